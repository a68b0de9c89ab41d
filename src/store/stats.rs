//! Statistics: plain SQL over the typed history tables (never JSON), built with
//! sea-query so the same statement runs on both databases. Sums are cast to
//! BIGINT because Postgres answers NUMERIC for a SUM of BIGINT.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Cond, Expr, ExprTrait, JoinType, Order, Query, SelectStatement};
use sea_orm::{ConnectionTrait, DbErr, QueryResult};
use uuid::Uuid;

fn t(name: &str) -> Alias {
    Alias::new(name)
}

fn col(table: &str, column: &str) -> Expr {
    Expr::col((t(table), t(column)))
}

/// Which finished matches count.
#[derive(Debug, Clone, Default)]
pub struct StatsFilter {
    pub game: Option<String>,
    pub player: Option<Uuid>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub seats: Option<i32>,
    pub include_positions: bool,
}

impl StatsFilter {
    /// The conditions on the `m` (matches) alias.
    fn matches(&self) -> Cond {
        let mut c = Cond::all().add(col("m", "status").eq("finished"));
        if let Some(g) = &self.game {
            c = c.add(col("m", "game").eq(g.clone()));
        }
        if !self.include_positions {
            c = c.add(col("m", "position").is_null());
        }
        if let Some(s) = self.since {
            c = c.add(col("m", "finished_at").gte(s));
        }
        if let Some(u) = self.until {
            c = c.add(col("m", "finished_at").lt(u));
        }
        if let Some(n) = self.seats {
            c = c.add(col("m", "seat_count").eq(n));
        }
        c
    }
}

async fn rows(db: &impl ConnectionTrait, q: &SelectStatement) -> Result<Vec<QueryResult>, DbErr> {
    db.query_all(q).await
}

fn get_i64(r: &QueryResult, c: &str) -> i64 {
    r.try_get::<Option<i64>>("", c).ok().flatten().unwrap_or(0)
}

fn get_str(r: &QueryResult, c: &str) -> Option<String> {
    r.try_get::<Option<String>>("", c).ok().flatten()
}

/// Per game: (game, finished, won, sum of ranks, sum of scores) of a player.
pub async fn player_results(
    db: &impl ConnectionTrait,
    f: &StatsFilter,
) -> Result<Vec<(String, i64, i64, i64, i64)>, DbErr> {
    let mut q = Query::select();
    q.expr_as(col("m", "game"), t("game"))
        .expr_as(Expr::cust("CAST(COUNT(*) AS BIGINT)"), t("finished"))
        .expr_as(
            Expr::cust("CAST(SUM(CASE WHEN r.rank = 1 THEN 1 ELSE 0 END) AS BIGINT)"),
            t("won"),
        )
        .expr_as(Expr::cust("CAST(SUM(r.rank) AS BIGINT)"), t("rank_sum"))
        .expr_as(Expr::cust("CAST(SUM(r.score) AS BIGINT)"), t("score_sum"))
        .from_as(t("match_results"), t("r"))
        .join_as(
            JoinType::InnerJoin,
            t("matches"),
            t("m"),
            col("m", "id").equals((t("r"), t("match_id"))),
        )
        .cond_where(f.matches())
        .group_by_col((t("m"), t("game")));
    if let Some(p) = f.player {
        q.and_where(col("r", "player_id").eq(p));
    }
    Ok(rows(db, &q)
        .await?
        .iter()
        .map(|r| {
            (
                get_str(r, "game").unwrap_or_default(),
                get_i64(r, "finished"),
                get_i64(r, "won"),
                get_i64(r, "rank_sum"),
                get_i64(r, "score_sum"),
            )
        })
        .collect())
}

/// Per game: matches a player holds a seat in, active or finished.
pub async fn player_played(
    db: &impl ConnectionTrait,
    player: Uuid,
    game: Option<&str>,
    include_positions: bool,
) -> Result<Vec<(String, i64)>, DbErr> {
    let mut q = Query::select();
    q.expr_as(col("m", "game"), t("game"))
        .expr_as(Expr::cust("CAST(COUNT(*) AS BIGINT)"), t("n"))
        .from_as(t("match_seats"), t("s"))
        .join_as(
            JoinType::InnerJoin,
            t("matches"),
            t("m"),
            col("m", "id").equals((t("s"), t("match_id"))),
        )
        .and_where(col("s", "player_id").eq(player))
        .and_where(col("m", "status").is_in(["active", "finished"]))
        .group_by_col((t("m"), t("game")));
    if let Some(g) = game {
        q.and_where(col("m", "game").eq(g));
    }
    if !include_positions {
        q.and_where(col("m", "position").is_null());
    }
    Ok(rows(db, &q)
        .await?
        .iter()
        .map(|r| (get_str(r, "game").unwrap_or_default(), get_i64(r, "n")))
        .collect())
}

/// One group of round-seat rows.
#[derive(Debug, Clone)]
pub struct SeatGroup {
    pub game: String,
    pub key: Option<String>,
    pub plays: i64,
    pub successes: i64,
    pub staked: i64,
    pub with_stake: i64,
    pub payoff: i64,
}

/// Round-seat rows of finished matches grouped by game and one column (`kind` or `card`).
pub async fn seat_groups(
    db: &impl ConnectionTrait,
    f: &StatsFilter,
    by: &str,
) -> Result<Vec<SeatGroup>, DbErr> {
    let mut q = Query::select();
    q.expr_as(col("m", "game"), t("game"))
        .expr_as(col("rs", by), t("key"))
        .expr_as(Expr::cust("CAST(COUNT(*) AS BIGINT)"), t("plays"))
        .expr_as(
            Expr::cust("CAST(SUM(CASE WHEN rs.success THEN 1 ELSE 0 END) AS BIGINT)"),
            t("successes"),
        )
        .expr_as(
            Expr::cust("CAST(SUM(COALESCE(rs.stake, 0)) AS BIGINT)"),
            t("staked"),
        )
        .expr_as(
            Expr::cust("CAST(SUM(CASE WHEN rs.stake IS NULL THEN 0 ELSE 1 END) AS BIGINT)"),
            t("with_stake"),
        )
        .expr_as(Expr::cust("CAST(SUM(rs.delta) AS BIGINT)"), t("payoff"))
        .from_as(t("round_seats"), t("rs"))
        .join_as(
            JoinType::InnerJoin,
            t("matches"),
            t("m"),
            col("m", "id").equals((t("rs"), t("match_id"))),
        )
        .cond_where(f.matches())
        .group_by_col((t("m"), t("game")))
        .group_by_col((t("rs"), t(by)))
        .order_by((t("rs"), t(by)), Order::Asc);
    if let Some(p) = f.player {
        q.and_where(col("rs", "player_id").eq(p));
    }
    Ok(rows(db, &q)
        .await?
        .iter()
        .map(|r| SeatGroup {
            game: get_str(r, "game").unwrap_or_default(),
            key: get_str(r, "key"),
            plays: get_i64(r, "plays"),
            successes: get_i64(r, "successes"),
            staked: get_i64(r, "staked"),
            with_stake: get_i64(r, "with_stake"),
            payoff: get_i64(r, "payoff"),
        })
        .collect())
}

/// A player's best round in a game: (match, round, delta).
pub async fn best_round(
    db: &impl ConnectionTrait,
    f: &StatsFilter,
) -> Result<Option<(Uuid, i64, i64)>, DbErr> {
    let mut q = Query::select();
    q.expr_as(col("rs", "match_id"), t("match_id"))
        .expr_as(Expr::cust("CAST(rs.round AS BIGINT)"), t("round"))
        .expr_as(col("rs", "delta"), t("delta"))
        .from_as(t("round_seats"), t("rs"))
        .join_as(
            JoinType::InnerJoin,
            t("matches"),
            t("m"),
            col("m", "id").equals((t("rs"), t("match_id"))),
        )
        .cond_where(f.matches())
        .order_by((t("rs"), t("delta")), Order::Desc)
        .order_by((t("rs"), t("match_id")), Order::Asc)
        .order_by((t("rs"), t("round")), Order::Asc)
        .limit(1);
    if let Some(p) = f.player {
        q.and_where(col("rs", "player_id").eq(p));
    }
    Ok(rows(db, &q).await?.first().and_then(|r| {
        let id = r.try_get::<Uuid>("", "match_id").ok()?;
        Some((id, get_i64(r, "round"), get_i64(r, "delta")))
    }))
}

/// Finished matches by seat count and variant.
pub async fn matches_by_size(
    db: &impl ConnectionTrait,
    f: &StatsFilter,
) -> Result<Vec<(i64, String, i64)>, DbErr> {
    let mut q = Query::select();
    q.expr_as(Expr::cust("CAST(m.seat_count AS BIGINT)"), t("seats"))
        .expr_as(col("m", "variant"), t("variant"))
        .expr_as(Expr::cust("CAST(COUNT(*) AS BIGINT)"), t("n"))
        .from_as(t("matches"), t("m"))
        .cond_where(f.matches())
        .group_by_col((t("m"), t("seat_count")))
        .group_by_col((t("m"), t("variant")))
        .order_by((t("m"), t("seat_count")), Order::Asc)
        .order_by((t("m"), t("variant")), Order::Asc);
    Ok(rows(db, &q)
        .await?
        .iter()
        .map(|r| {
            (
                get_i64(r, "seats"),
                get_str(r, "variant").unwrap_or_default(),
                get_i64(r, "n"),
            )
        })
        .collect())
}

/// Resolved rounds of finished matches by value and outcome.
pub async fn rounds_by_value(
    db: &impl ConnectionTrait,
    f: &StatsFilter,
) -> Result<Vec<(Option<i64>, String, i64)>, DbErr> {
    let mut q = Query::select();
    q.expr_as(col("r", "value"), t("value"))
        .expr_as(col("r", "outcome"), t("outcome"))
        .expr_as(Expr::cust("CAST(COUNT(*) AS BIGINT)"), t("n"))
        .from_as(t("rounds"), t("r"))
        .join_as(
            JoinType::InnerJoin,
            t("matches"),
            t("m"),
            col("m", "id").equals((t("r"), t("match_id"))),
        )
        .cond_where(f.matches())
        .group_by_col((t("r"), t("value")))
        .group_by_col((t("r"), t("outcome")))
        .order_by((t("r"), t("value")), Order::Asc)
        .order_by((t("r"), t("outcome")), Order::Asc);
    Ok(rows(db, &q)
        .await?
        .iter()
        .map(|r| {
            (
                r.try_get::<Option<i64>>("", "value").ok().flatten(),
                get_str(r, "outcome").unwrap_or_default(),
                get_i64(r, "n"),
            )
        })
        .collect())
}

/// (seat offset from the first round's lead seat, seats, wins).
pub async fn wins_by_offset(
    db: &impl ConnectionTrait,
    f: &StatsFilter,
) -> Result<Vec<(i64, i64, i64)>, DbErr> {
    let offset = "CAST(((mr.seat - r0.lead_seat + m.seat_count) % m.seat_count) AS BIGINT)";
    let mut q = Query::select();
    q.expr_as(Expr::cust(offset), t("offset"))
        .expr_as(Expr::cust("CAST(COUNT(*) AS BIGINT)"), t("n"))
        .expr_as(
            Expr::cust("CAST(SUM(CASE WHEN mr.rank = 1 THEN 1 ELSE 0 END) AS BIGINT)"),
            t("wins"),
        )
        .from_as(t("match_results"), t("mr"))
        .join_as(
            JoinType::InnerJoin,
            t("matches"),
            t("m"),
            col("m", "id").equals((t("mr"), t("match_id"))),
        )
        .join_as(
            JoinType::InnerJoin,
            t("rounds"),
            t("r0"),
            Cond::all()
                .add(col("r0", "match_id").equals((t("mr"), t("match_id"))))
                .add(col("r0", "round").eq(1)),
        )
        .cond_where(f.matches())
        .and_where(col("r0", "lead_seat").is_not_null())
        .add_group_by([Expr::cust(offset)])
        .order_by_expr(Expr::cust(offset), Order::Asc);
    Ok(rows(db, &q)
        .await?
        .iter()
        .map(|r| (get_i64(r, "offset"), get_i64(r, "n"), get_i64(r, "wins")))
        .collect())
}

/// (role, seats, wins) over finished matches where seats had roles.
pub async fn wins_by_role(
    db: &impl ConnectionTrait,
    f: &StatsFilter,
) -> Result<Vec<(String, i64, i64)>, DbErr> {
    let mut q = Query::select();
    q.expr_as(col("mr", "role"), t("role"))
        .expr_as(Expr::cust("CAST(COUNT(*) AS BIGINT)"), t("n"))
        .expr_as(
            Expr::cust("CAST(SUM(CASE WHEN mr.rank = 1 THEN 1 ELSE 0 END) AS BIGINT)"),
            t("wins"),
        )
        .from_as(t("match_results"), t("mr"))
        .join_as(
            JoinType::InnerJoin,
            t("matches"),
            t("m"),
            col("m", "id").equals((t("mr"), t("match_id"))),
        )
        .cond_where(f.matches())
        .and_where(col("mr", "role").is_not_null())
        .group_by_col((t("mr"), t("role")))
        .order_by((t("mr"), t("role")), Order::Asc);
    Ok(rows(db, &q)
        .await?
        .iter()
        .map(|r| {
            (
                get_str(r, "role").unwrap_or_default(),
                get_i64(r, "n"),
                get_i64(r, "wins"),
            )
        })
        .collect())
}
