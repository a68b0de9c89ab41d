//! A player's deadlines, met and missed, read from the moves and events of the
//! matches it sat in (`service::reliability` says what counts and why).
//!
//! One statement: the player's own moves and its time-outs, each counted per
//! game, as the two halves of a `UNION ALL`. Every join is on `match_id`, so on
//! Citus each half runs on the shards side by side.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, JoinType, Query, SelectStatement, UnionType};
use sea_orm::{ConnectionTrait, DbBackend, DbErr};
use uuid::Uuid;

fn t(name: &str) -> Alias {
    Alias::new(name)
}

fn col(table: &str, column: &str) -> Expr {
    Expr::col((t(table), t(column)))
}

/// Deadlines of one game: met (the player moved) and missed (its seat timed out).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameDeadlines {
    pub game: String,
    pub met: i64,
    pub missed: i64,
}

/// The player's seats in clocked, not private matches, joined to `matches` as `m`.
fn seats_in_clocked_matches(q: &mut SelectStatement, player: Uuid) {
    q.from_as(t("match_seats"), t("s"))
        .join_as(
            JoinType::InnerJoin,
            t("matches"),
            t("m"),
            col("m", "id").equals((t("s"), t("match_id"))),
        )
        .and_where(col("s", "player_id").eq(player))
        // A private match exists for nobody else: it counts nowhere public.
        .and_where(col("m", "visibility").ne(migration::PRIVATE))
        // The condition of the partial index `idx_matches_clocked`, as it is
        // written there: the planner uses the index only if the two match.
        .and_where(
            col("m", "move_time_limit")
                .is_not_null()
                .or(col("m", "bank_initial_seconds").is_not_null()),
        )
        .group_by_col((t("m"), t("game")));
}

/// Per game, the player's deadlines met and missed since `since`.
pub async fn deadlines_of(
    db: &impl ConnectionTrait,
    player: Uuid,
    since: DateTime<Utc>,
) -> Result<Vec<GameDeadlines>, DbErr> {
    // Met: the seat's player moved (no author), once per step (a replaced
    // sealed move and its replacement are one deadline).
    let mut met = Query::select();
    met.expr_as(col("m", "game"), t("game"))
        .expr_as(Expr::cust("CAST(COUNT(*) AS BIGINT)"), t("met"))
        .expr_as(Expr::cust("CAST(0 AS BIGINT)"), t("missed"));
    seats_in_clocked_matches(&mut met, player);
    met.join_as(
        JoinType::InnerJoin,
        t("moves"),
        t("mv"),
        col("mv", "match_id")
            .equals((t("s"), t("match_id")))
            .and(col("mv", "seat").equals((t("s"), t("seat")))),
    )
    .and_where(col("mv", "author").is_null())
    .and_where(col("mv", "replaced").eq(false))
    .and_where(col("mv", "created_at").gte(since));

    // Missed: the public time-out event names its seat in its data only. The
    // kind is a literal so the partial index on time-outs serves the read.
    let seat_of_event = match db.get_database_backend() {
        DbBackend::Sqlite => "json_extract(e.data, '$.seat') = s.seat",
        _ => "(CAST(e.data AS json) ->> 'seat') = CAST(s.seat AS TEXT)",
    };
    let mut missed = Query::select();
    missed
        .expr_as(col("m", "game"), t("game"))
        .expr_as(Expr::cust("CAST(0 AS BIGINT)"), t("met"))
        .expr_as(Expr::cust("CAST(COUNT(*) AS BIGINT)"), t("missed"));
    seats_in_clocked_matches(&mut missed, player);
    missed
        .join_as(
            JoinType::InnerJoin,
            t("events"),
            t("e"),
            col("e", "match_id").equals((t("s"), t("match_id"))),
        )
        .and_where(Expr::cust("e.kind = 'seat_timed_out'"))
        .and_where(Expr::cust(seat_of_event))
        .and_where(col("e", "created_at").gte(since));

    met.union(UnionType::All, missed);
    let rows = db.query_all(&met).await?;
    let mut out: Vec<GameDeadlines> = Vec::new();
    for r in rows {
        let game: String = r.try_get("", "game")?;
        let m = r.try_get::<Option<i64>>("", "met")?.unwrap_or(0);
        let x = r.try_get::<Option<i64>>("", "missed")?.unwrap_or(0);
        match out.iter_mut().find(|g| g.game == game) {
            Some(g) => {
                g.met += m;
                g.missed += x;
            }
            None => out.push(GameDeadlines {
                game,
                met: m,
                missed: x,
            }),
        }
    }
    out.sort_by(|a, b| a.game.cmp(&b.game));
    Ok(out)
}
