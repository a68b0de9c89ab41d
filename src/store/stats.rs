//! Statistics: plain SQL over the typed history tables (never JSON), built with
//! sea-query so the same statement runs on both databases. Sums are cast to
//! BIGINT because Postgres answers NUMERIC for a SUM of BIGINT.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Alias, Cond, Expr, ExprTrait, JoinType, Order, Query, SelectStatement};
use sea_orm::{ConnectionTrait, DbErr, QueryResult, Statement};
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
    /// Finished within one of these spans; at any time when none is listed.
    pub finished: Vec<Span>,
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
        if !self.finished.is_empty() {
            let mut any = Cond::any();
            for (since, until) in &self.finished {
                let mut span = Cond::all();
                if let Some(s) = since {
                    span = span.add(col("m", "finished_at").gte(*s));
                }
                if let Some(u) = until {
                    span = span.add(col("m", "finished_at").lt(*u));
                }
                any = any.add(span);
            }
            c = c.add(any);
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

/// Per game: matches in one of `statuses` a player holds a seat in.
pub async fn player_played(
    db: &impl ConnectionTrait,
    player: Uuid,
    game: Option<&str>,
    include_positions: bool,
    statuses: &[&str],
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
        .and_where(col("m", "status").is_in(statuses.iter().copied()))
        // A private match exists for nobody else: it counts nowhere public.
        .and_where(col("m", "visibility").ne(migration::PRIVATE))
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

/// Which stored totals and which raw edges make up a `since`/`until` window: the
/// coarsest buckets that fit inside it, finer buckets at their edges down to the
/// finest grain, and the minutes left over from the history tables, so any window
/// is exact and costs about the same for any length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Game totals to sum: (grain, `[from, to)` in that grain's buckets since the
    /// epoch), unbounded where `None`.
    pub totals: Vec<(i16, Option<i64>, Option<i64>)>,
    /// Finishing times counted from the history tables.
    pub raw: Vec<Span>,
}

/// A `[since, until)` range of finishing times, unbounded where `None`.
pub type Span = (Option<DateTime<Utc>>, Option<DateTime<Utc>>);

const HOUR: i64 = 3600;

/// Seconds in one bucket of a grain kept today.
fn grain_seconds(grain: i16) -> Option<i64> {
    migration::grain_minutes(grain).map(|m| m * 60)
}

/// The start of bucket `b` of a bucket `width` seconds wide.
fn at_bucket(b: i64, width: i64) -> DateTime<Utc> {
    b.checked_mul(width)
        .and_then(|s| DateTime::from_timestamp(s, 0))
        .unwrap_or(DateTime::<Utc>::MAX_UTC)
}

/// Hours since the epoch that `at` falls in.
pub fn hour_of(at: DateTime<Utc>) -> i64 {
    at.timestamp().div_euclid(HOUR)
}

/// Days since the epoch that `at` falls in.
pub fn day_of(at: DateTime<Utc>) -> i64 {
    at.timestamp().div_euclid(24 * HOUR)
}

impl Window {
    pub fn new(since: Option<DateTime<Utc>>, until: Option<DateTime<Utc>>) -> Self {
        let grains = migration::GRAINS;
        // The finest grain's buckets: the unit the climb starts from.
        let unit = grain_seconds(grains[0]).unwrap_or(HOUR);
        let ceil = |t: DateTime<Utc>| {
            let b = t.timestamp().div_euclid(unit);
            if t == at_bucket(b, unit) { b } else { b + 1 }
        };
        let mut lo = since.map(ceil);
        let mut hi = until.map(|t| t.timestamp().div_euclid(unit));
        if let (Some(a), Some(b)) = (lo, hi)
            && a >= b
        {
            return Self {
                totals: Vec::new(),
                raw: vec![(since, until)],
            };
        }
        let mut raw = Vec::new();
        if let (Some(s), Some(b)) = (since, lo)
            && s < at_bucket(b, unit)
        {
            raw.push((Some(s), Some(at_bucket(b, unit))));
        }
        if let (Some(u), Some(b)) = (until, hi)
            && at_bucket(b, unit) < u
        {
            raw.push((Some(at_bucket(b, unit)), Some(u)));
        }
        // Climb from the finest grain: at each grain keep the buckets that do not
        // fill a whole bucket of the next grain, and hand the rest up.
        let mut totals = Vec::new();
        for (i, grain) in grains.iter().copied().enumerate() {
            let step = grains.get(i + 1).and_then(|up| {
                Some(grain_seconds(*up)? / grain_seconds(grain)?).filter(|s| *s > 1)
            });
            let Some(step) = step else {
                totals.push((grain, lo, hi));
                break;
            };
            let up_lo = lo.map(|x| x.div_euclid(step) + i64::from(x.rem_euclid(step) != 0));
            let up_hi = hi.map(|x| x.div_euclid(step));
            if let (Some(a), Some(b)) = (up_lo, up_hi)
                && a >= b
            {
                totals.push((grain, lo, hi));
                break;
            }
            if let (Some(x), Some(u)) = (lo, up_lo)
                && x < u * step
            {
                totals.push((grain, Some(x), Some(u * step)));
            }
            if let (Some(x), Some(u)) = (hi, up_hi)
                && u * step < x
            {
                totals.push((grain, Some(u * step), Some(x)));
            }
            (lo, hi) = (up_lo, up_hi);
        }
        Self { totals, raw }
    }

    fn cond(&self) -> Cond {
        let mut any = Cond::any();
        for (grain, from, to) in &self.totals {
            let mut c = Cond::all().add(Expr::col(t("grain")).eq(*grain));
            if let Some(f) = from {
                c = c.add(Expr::col(t("bucket")).gte(*f));
            }
            if let Some(to) = to {
                c = c.add(Expr::col(t("bucket")).lt(*to));
            }
            any = any.add(c);
        }
        // An empty `any` is true: say false when no totals are wanted.
        if self.totals.is_empty() {
            any = any.add(Expr::cust("1 = 0"));
        }
        any
    }

    /// The same filter over the window's edges read from the history tables,
    /// both in one; `None` when the totals cover the whole window.
    pub fn raw_filter(&self, f: &StatsFilter) -> Option<StatsFilter> {
        (!self.raw.is_empty()).then(|| StatsFilter {
            finished: self.raw.clone(),
            ..f.clone()
        })
    }
}

/// Game totals over a window: rows of (seat_count, variant, k_text, k_num, k2,
/// [n, s1, s2, s3, s4]), summed over their buckets.
pub type TotalRow = (i64, String, Option<String>, Option<i64>, String, [i64; 5]);

/// Game totals of several metrics over a window in one statement, by metric.
/// Rows of a metric in `by_size` are kept apart by seat count and variant; the
/// others are summed over both (their seat count 0, their variant empty).
pub async fn game_totals(
    db: &impl ConnectionTrait,
    f: &StatsFilter,
    w: &Window,
    metrics: &[&'static str],
    by_size: &[&'static str],
) -> Result<Vec<(String, TotalRow)>, DbErr> {
    // `by_size` is written into the statement, not bound: the grouping repeats
    // the expressions that test it, and Postgres matches a grouped expression to
    // the selected one only when they are the same text, which two bound
    // parameters are not. Its names are the service's constants, never a
    // caller's input.
    let sized = if by_size.is_empty() {
        "FALSE".to_owned()
    } else {
        let names: Vec<String> = by_size
            .iter()
            .map(|m| format!("'{}'", m.replace('\'', "''")))
            .collect();
        format!("metric IN ({})", names.join(", "))
    };
    let seats = format!("CAST(CASE WHEN {sized} THEN seat_count ELSE 0 END AS BIGINT)");
    let variant = format!("CASE WHEN {sized} THEN variant ELSE '' END");
    let mut q = Query::select();
    q.from(t("stat_game_totals"))
        .and_where(Expr::col(t("metric")).is_in(metrics.iter().copied()))
        .cond_where(w.cond());
    if let Some(g) = &f.game {
        q.and_where(Expr::col(t("game")).eq(g.clone()));
    }
    if !f.include_positions {
        q.and_where(Expr::col(t("positional")).eq(false));
    }
    if let Some(n) = f.seats {
        q.and_where(Expr::col(t("seat_count")).eq(n));
    }
    q.expr_as(Expr::col(t("metric")), t("metric"))
        .expr_as(Expr::cust(seats.clone()), t("seats"))
        .expr_as(Expr::cust(variant.clone()), t("variant"))
        .expr_as(
            Expr::cust("CASE WHEN k_null THEN NULL ELSE k_text END"),
            t("key_text"),
        )
        .expr_as(
            Expr::cust("CASE WHEN k_null THEN NULL ELSE k_num END"),
            t("key_num"),
        )
        .expr_as(Expr::col(t("k2")), t("key2"));
    for s in ["n", "s1", "s2", "s3", "s4"] {
        q.expr_as(Expr::cust(format!("CAST(SUM({s}) AS BIGINT)")), t(s));
    }
    q.group_by_col(t("metric"))
        .add_group_by([Expr::cust(seats.clone()), Expr::cust(variant.clone())])
        .group_by_col(t("k_text"))
        .group_by_col(t("k_num"))
        .group_by_col(t("k_null"))
        .group_by_col(t("k2"));
    Ok(rows(db, &q)
        .await?
        .iter()
        .map(|r| {
            (
                get_str(r, "metric").unwrap_or_default(),
                (
                    get_i64(r, "seats"),
                    get_str(r, "variant").unwrap_or_default(),
                    get_str(r, "key_text"),
                    r.try_get::<Option<i64>>("", "key_num").ok().flatten(),
                    get_str(r, "key2").unwrap_or_default(),
                    ["n", "s1", "s2", "s3", "s4"].map(|s| get_i64(r, s)),
                ),
            )
        })
        .collect())
}

/// A player's totals of one metric: rows of (game, key, [n, s1, s2, s3, s4]).
pub async fn player_totals(
    db: &impl ConnectionTrait,
    player: Uuid,
    game: Option<&str>,
    include_positions: bool,
    metric: &str,
) -> Result<Vec<(String, Option<String>, [i64; 5])>, DbErr> {
    let mut q = Query::select();
    q.from(t("stat_player_totals"))
        .expr_as(Expr::col(t("game")), t("game"))
        .expr_as(
            Expr::cust("CASE WHEN k_null THEN NULL ELSE k_text END"),
            t("key_text"),
        )
        .and_where(Expr::col(t("player_id")).eq(player))
        .and_where(Expr::col(t("metric")).eq(metric))
        .group_by_col(t("game"))
        .group_by_col(t("k_text"))
        .group_by_col(t("k_null"));
    for s in ["n", "s1", "s2", "s3", "s4"] {
        q.expr_as(Expr::cust(format!("CAST(SUM({s}) AS BIGINT)")), t(s));
    }
    if let Some(g) = game {
        q.and_where(Expr::col(t("game")).eq(g));
    }
    if !include_positions {
        q.and_where(Expr::col(t("positional")).eq(false));
    }
    Ok(rows(db, &q)
        .await?
        .iter()
        .map(|r| {
            (
                get_str(r, "game").unwrap_or_default(),
                get_str(r, "key_text"),
                ["n", "s1", "s2", "s3", "s4"].map(|s| get_i64(r, s)),
            )
        })
        .collect())
}

/// A player's best round per game: (game, match, round, delta), the highest
/// delta, then the lowest match id and round.
pub async fn player_best_rounds(
    db: &impl ConnectionTrait,
    player: Uuid,
    game: Option<&str>,
    include_positions: bool,
) -> Result<Vec<(String, Uuid, i64, i64)>, DbErr> {
    let mut q = Query::select();
    q.from(t("stat_player_best"))
        .expr_as(Expr::col(t("game")), t("game"))
        .expr_as(Expr::col(t("best_match_id")), t("match_id"))
        .expr_as(Expr::cust("CAST(round AS BIGINT)"), t("round"))
        .expr_as(Expr::col(t("delta")), t("delta"))
        .and_where(Expr::col(t("player_id")).eq(player));
    if let Some(g) = game {
        q.and_where(Expr::col(t("game")).eq(g));
    }
    if !include_positions {
        q.and_where(Expr::col(t("positional")).eq(false));
    }
    let mut best: Vec<(String, Uuid, i64, i64)> = Vec::new();
    for r in rows(db, &q).await? {
        let Ok(id) = r.try_get::<Uuid>("", "match_id") else {
            continue;
        };
        let row = (
            get_str(&r, "game").unwrap_or_default(),
            id,
            get_i64(&r, "round"),
            get_i64(&r, "delta"),
        );
        match best.iter_mut().find(|b| b.0 == row.0) {
            Some(b)
                if (row.3, std::cmp::Reverse((row.1, row.2)))
                    > (b.3, std::cmp::Reverse((b.1, b.2))) =>
            {
                *b = row
            }
            Some(_) => {}
            None => best.push(row),
        }
    }
    Ok(best)
}

/// The `stat_finished` row of a finishing match, which records it for the
/// statistics, to write with the finish; [`fold_finished`] then adds it to the
/// running totals. None for a private match, which exists for nobody else:
/// its play stays out of every public statistic.
pub fn stat_finished_statement(
    m: &crate::store::entities::matches::Model,
    finished_at: DateTime<Utc>,
    backend: sea_orm::DbBackend,
) -> Option<Statement> {
    if m.visibility == migration::PRIVATE {
        return None;
    }
    Some(Statement::from_sql_and_values(
        backend,
        "INSERT INTO stat_finished (match_id, game, seat_count, variant, positional, hour, day, minute) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        [
            m.id.into(),
            m.game.clone().into(),
            m.seat_count.into(),
            m.variant.clone().into(),
            m.position.is_some().into(),
            hour_of(finished_at).into(),
            day_of(finished_at).into(),
            finished_at.timestamp().div_euclid(60).into(),
        ],
    ))
}

/// Adds matches recorded by [`stat_finished_statement`] to the running totals,
/// once their rounds and results are written: each fold sums over all of them.
pub async fn fold_finished(
    db: &impl ConnectionTrait,
    ids: &[uuid::Uuid],
    combine: bool,
) -> Result<(), DbErr> {
    if ids.is_empty() {
        return Ok(());
    }
    let backend = db.get_database_backend();
    // Padded with repeats (see `folds::padded`): `IN` takes each match once.
    let (scope, values) = super::folds::id_list("f.match_id", &super::folds::padded(ids), 1);
    let statements = migration::fold_statements(&scope, &migration::GRAINS)
        .into_iter()
        .map(|sql| Statement::from_sql_and_values(backend, sql, values.clone()));
    if combine {
        // The folds read only what was written before them and write rows of
        // their own (one metric each): one statement on plain Postgres.
        let mut batch = super::batch::Batch::default();
        statements.for_each(|st| batch.push_statement(st));
        return batch.flush(db, None).await;
    }
    for st in statements {
        db.execute_raw(st).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::rng::GameRng;

    fn ts(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).expect("time").to_utc()
    }

    fn width(grain: i16) -> i64 {
        grain_seconds(grain).expect("a grain kept today")
    }

    /// The window's pieces as finishing-time ranges, in order.
    fn pieces(w: &Window) -> Vec<Span> {
        let mut out: Vec<Span> = w.raw.clone();
        for (g, from, to) in &w.totals {
            let at = |b: i64| at_bucket(b, width(*g));
            out.push((from.map(at), to.map(at)));
        }
        out.sort_by_key(|(a, _)| *a);
        out
    }

    /// The pieces tile `[since, until)`: no gap, no overlap, nothing outside.
    fn assert_tiles(since: Option<DateTime<Utc>>, until: Option<DateTime<Utc>>) {
        let w = Window::new(since, until);
        let p = pieces(&w);
        assert!(!p.is_empty(), "{since:?}..{until:?}");
        assert_eq!(p[0].0, since, "{w:?}");
        assert_eq!(p[p.len() - 1].1, until, "{w:?}");
        for pair in p.windows(2) {
            assert_eq!(pair[0].1, pair[1].0, "gap or overlap in {w:?}");
        }
        for (a, b) in &p {
            if let (Some(a), Some(b)) = (a, b) {
                assert!(a < b, "empty piece in {w:?}");
            }
        }
        // At most two edges per grain below the top, one run at the top.
        assert!(w.totals.len() <= 2 * (migration::GRAINS.len() - 1) + 1);
        assert!(w.raw.len() <= 2);
    }

    #[test]
    fn an_unbounded_window_is_the_coarsest_totals() {
        let w = Window::new(None, None);
        assert_eq!(
            w.totals,
            vec![(migration::GRAINS[migration::GRAINS.len() - 1], None, None)]
        );
        assert!(w.raw.is_empty());
    }

    #[test]
    fn a_ragged_window_is_coarse_inside_then_finer_at_the_edges() {
        let (s, u) = (ts("2026-03-01T10:27:00Z"), ts("2026-03-05T04:15:00Z"));
        let w = Window::new(Some(s), Some(u));
        let d = |x: &str| day_of(ts(x));
        let h = |x: &str| hour_of(ts(x));
        let m10 = |x: &str| ts(x).timestamp() / 600;
        assert_eq!(
            w.totals,
            vec![
                (
                    migration::GRAINS[0],
                    Some(m10("2026-03-01T10:30:00Z")),
                    Some(m10("2026-03-01T11:00:00Z"))
                ),
                (
                    migration::GRAINS[0],
                    Some(m10("2026-03-05T04:00:00Z")),
                    Some(m10("2026-03-05T04:10:00Z"))
                ),
                (
                    migration::GRAINS[1],
                    Some(h("2026-03-01T11:00:00Z")),
                    Some(h("2026-03-02T00:00:00Z"))
                ),
                (
                    migration::GRAINS[1],
                    Some(h("2026-03-05T00:00:00Z")),
                    Some(h("2026-03-05T04:00:00Z"))
                ),
                (
                    migration::GRAINS[2],
                    Some(d("2026-03-02T00:00:00Z")),
                    Some(d("2026-03-05T00:00:00Z"))
                ),
            ]
        );
        // The history tables are read for the minutes short of ten alone.
        assert_eq!(
            w.raw,
            vec![
                (Some(s), Some(ts("2026-03-01T10:30:00Z"))),
                (Some(ts("2026-03-05T04:10:00Z")), Some(u)),
            ]
        );
        assert_tiles(Some(s), Some(u));
    }

    #[test]
    fn a_long_window_reads_few_buckets() {
        let (s, u) = (ts("2025-01-07T10:30:00Z"), ts("2026-11-20T04:15:00Z"));
        let w = Window::new(Some(s), Some(u));
        assert!(
            w.totals.iter().any(|t| t.0 == migration::GRAINS[4]),
            "{w:?}"
        );
        let buckets: i64 = w
            .totals
            .iter()
            .map(|(_, a, b)| b.unwrap_or(0) - a.unwrap_or(0))
            .sum();
        assert!(buckets < 80, "{buckets} buckets for {w:?}");
        assert_tiles(Some(s), Some(u));
    }

    #[test]
    fn aligned_narrow_and_half_open_windows_tile() {
        let w = Window::new(
            Some(ts("2026-03-01T00:00:00Z")),
            Some(ts("2026-03-03T00:00:00Z")),
        );
        assert!(w.raw.is_empty());
        assert!(
            w.totals.iter().all(|t| t.0 == migration::GRAINS[2]),
            "{w:?}"
        );
        let (s, u) = (ts("2026-03-01T10:11:00Z"), ts("2026-03-01T10:19:00Z"));
        let w = Window::new(Some(s), Some(u));
        assert!(w.totals.is_empty());
        assert_eq!(w.raw, vec![(Some(s), Some(u))]);
        for (a, b) in [
            ("2026-03-01T10:10:00Z", "2026-03-01T20:00:00Z"),
            ("2026-03-01T10:10:00Z", "2026-03-01T10:10:00.000001Z"),
            ("2026-03-01T00:00:00Z", "2026-03-01T01:00:00Z"),
            ("1970-01-01T00:00:00Z", "2026-03-01T01:00:00Z"),
        ] {
            assert_tiles(Some(ts(a)), Some(ts(b)));
            assert_tiles(Some(ts(a)), None);
            assert_tiles(None, Some(ts(b)));
        }
    }

    #[test]
    fn random_windows_tile_exactly() {
        let mut rng = GameRng::from_key([9; 32]);
        let base = ts("2024-01-01T00:00:00Z").timestamp();
        for _ in 0..5000 {
            // Lengths from seconds to years, on and off bucket edges.
            let scale = [60, 600, 3600, 86_400, 8 * 86_400, 512 * 86_400][rng.index(6)];
            let at = |rng: &mut GameRng| {
                let x = base + rng.index(1000) as i64 * scale / 7 + rng.index(3) as i64 * 300;
                DateTime::from_timestamp(x, 0).expect("time")
            };
            let (a, b) = (at(&mut rng), at(&mut rng));
            let (a, b) = (
                Ord::min(a, b),
                Ord::max(a, b) + chrono::Duration::seconds(1),
            );
            assert_tiles(Some(a), Some(b));
            assert_tiles(Some(a), None);
            assert_tiles(None, Some(b));
        }
    }
}
