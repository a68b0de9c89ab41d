//! The running totals behind the statistics: what a finished match adds to them,
//! and how to build them again from the typed history tables. Shared by the
//! migrations that create or reshape them and by the transaction that finishes a
//! match; each migration names the grains it builds, so an old migration does the
//! same work it always did.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};

/// Game totals are kept per bucket of the finishing time at several grains, each
/// bucket counted in whole units since the Unix epoch (UTC): ten minutes, hours,
/// days, and blocks of 8, 64 and 512 days. A window is read from the coarsest
/// buckets that fit in it, then finer ones at its edges, so its cost hardly grows
/// with its length; the finest grain bounds the minutes read from the history
/// tables at each edge. Grains are numbered in the order they were added.
pub const GRAIN_HOUR: i16 = 1;
pub const GRAIN_DAY: i16 = 2;
pub const GRAIN_8_DAYS: i16 = 3;
pub const GRAIN_64_DAYS: i16 = 4;
pub const GRAIN_512_DAYS: i16 = 5;
pub const GRAIN_10_MINUTES: i16 = 6;

/// Every grain kept today, finest first.
pub const GRAINS: [i16; 6] = [
    GRAIN_10_MINUTES,
    GRAIN_HOUR,
    GRAIN_DAY,
    GRAIN_8_DAYS,
    GRAIN_64_DAYS,
    GRAIN_512_DAYS,
];

/// The grains kept before ten-minute buckets: what the migrations before that
/// built, and what undoing it goes back to.
pub const HOURLY_GRAINS: [i16; 5] = [
    GRAIN_HOUR,
    GRAIN_DAY,
    GRAIN_8_DAYS,
    GRAIN_64_DAYS,
    GRAIN_512_DAYS,
];

/// Minutes in one bucket of a grain; `None` for an unknown grain.
pub fn grain_minutes(grain: i16) -> Option<i64> {
    const DAY: i64 = 24 * 60;
    match grain {
        GRAIN_10_MINUTES => Some(10),
        GRAIN_HOUR => Some(60),
        GRAIN_DAY => Some(DAY),
        GRAIN_8_DAYS => Some(8 * DAY),
        GRAIN_64_DAYS => Some(64 * DAY),
        GRAIN_512_DAYS => Some(512 * DAY),
        _ => None,
    }
}

/// The bucket of a `stat_finished` row `f` at a grain, in SQL.
fn bucket_sql(grain: i16) -> String {
    match grain {
        GRAIN_10_MINUTES => "f.minute / 10".into(),
        GRAIN_HOUR => "f.hour".into(),
        g => {
            let days = grain_minutes(g).unwrap_or(24 * 60) / (24 * 60);
            // Days since the epoch are positive, so integer division floors.
            if days == 1 {
                "f.day".into()
            } else {
                format!("f.day / {days}")
            }
        }
    }
}

/// The grains as a derived table `g`, and the bucket of `f` at `g.grain`.
fn grain_sql(grains: &[i16]) -> (String, String) {
    let table = grains
        .iter()
        .map(|g| format!("SELECT {g} AS grain"))
        .collect::<Vec<_>>()
        .join(" UNION ALL ");
    let cases: String = grains
        .iter()
        .map(|g| format!(" WHEN {g} THEN {}", bucket_sql(*g)))
        .collect();
    (format!("({table}) g"), format!("CASE g.grain{cases} END"))
}

const GAME_KEYS: &str =
    "game, metric, grain, bucket, seat_count, variant, positional, k_text, k_num, k_null, k2";
const GAME_SUMS: &str = "n = stat_game_totals.n + excluded.n, s1 = stat_game_totals.s1 + excluded.s1, \
    s2 = stat_game_totals.s2 + excluded.s2, s3 = stat_game_totals.s3 + excluded.s3, \
    s4 = stat_game_totals.s4 + excluded.s4";
const PLAYER_KEYS: &str = "player_id, game, metric, positional, k_text, k_null";
const PLAYER_SUMS: &str = "n = stat_player_totals.n + excluded.n, s1 = stat_player_totals.s1 + excluded.s1, \
    s2 = stat_player_totals.s2 + excluded.s2, s3 = stat_player_totals.s3 + excluded.s3, \
    s4 = stat_player_totals.s4 + excluded.s4";
const PLAY_SUMS: &str = "CAST(COUNT(*) AS BIGINT), \
    CAST(SUM(CASE WHEN rs.success THEN 1 ELSE 0 END) AS BIGINT), \
    CAST(SUM(COALESCE(rs.stake, 0)) AS BIGINT), \
    CAST(SUM(CASE WHEN rs.stake IS NULL THEN 0 ELSE 1 END) AS BIGINT), \
    CAST(SUM(rs.delta) AS BIGINT)";
const WINS: &str = "CAST(SUM(CASE WHEN mr.rank = 1 THEN 1 ELSE 0 END) AS BIGINT)";

struct GameFold<'a> {
    scope: &'a str,
    grains: &'a [i16],
}

impl GameFold<'_> {
    fn sql(&self, metric: &str, from: &str, key: &str, sums: &str, group: &str) -> String {
        let (scope, (grains, bucket)) = (self.scope, grain_sql(self.grains));
        format!(
            "INSERT INTO stat_game_totals ({GAME_KEYS}, n, s1, s2, s3, s4) \
         SELECT f.game, '{metric}', g.grain, {bucket}, f.seat_count, f.variant, f.positional, {key}, {sums} \
         FROM {from} CROSS JOIN {grains} WHERE {scope} \
         GROUP BY f.game, g.grain, {bucket}, f.seat_count, f.variant, f.positional{group} \
         ON CONFLICT ({GAME_KEYS}) DO UPDATE SET {GAME_SUMS}"
        )
    }
}

fn player_fold(
    scope: &str,
    metric: &str,
    from: &str,
    key: &str,
    sums: &str,
    group: &str,
) -> String {
    format!(
        "INSERT INTO stat_player_totals ({PLAYER_KEYS}, n, s1, s2, s3, s4) \
         SELECT p.player_id, f.game, '{metric}', f.positional, {key}, {sums} \
         FROM {from} WHERE {scope} AND p.player_id IS NOT NULL \
         GROUP BY p.player_id, f.game, f.positional{group} \
         ON CONFLICT ({PLAYER_KEYS}) DO UPDATE SET {PLAYER_SUMS}"
    )
}

/// The statements that add the finished matches selected by `scope` (a condition
/// on `f`, their `stat_finished` rows) to every running total. The finishing
/// transaction runs them with `f.match_id = $1` once the match's history rows
/// and its `stat_finished` row are written; [`rebuild`] runs them over all.
pub fn fold_statements(scope: &str, grains: &[i16]) -> Vec<String> {
    let g = GameFold { scope, grains };
    let no_key = "'', CAST(0 AS BIGINT), FALSE, ''";
    let rounds = "rounds r JOIN stat_finished f ON f.match_id = r.match_id";
    let seats = "round_seats rs JOIN stat_finished f ON f.match_id = rs.match_id";
    let results = "match_results mr JOIN stat_finished f ON f.match_id = mr.match_id";
    let offset = "CAST(((mr.seat - r0.lead_seat + f.seat_count) % f.seat_count) AS BIGINT)";
    let zeros = "CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT)";
    let best = "CASE WHEN excluded.delta > stat_player_best.delta THEN TRUE \
        WHEN excluded.delta < stat_player_best.delta THEN FALSE \
        WHEN excluded.best_match_id < stat_player_best.best_match_id THEN TRUE \
        WHEN excluded.best_match_id > stat_player_best.best_match_id THEN FALSE \
        ELSE excluded.round < stat_player_best.round END";
    vec![
        g.sql(
            "matches",
            "stat_finished f",
            no_key,
            &format!("CAST(COUNT(*) AS BIGINT), {zeros}"),
            "",
        ),
        g.sql(
            "round",
            rounds,
            "'', CAST(COALESCE(r.value, 0) AS BIGINT), r.value IS NULL, r.outcome",
            &format!("CAST(COUNT(*) AS BIGINT), {zeros}"),
            ", r.value, r.outcome",
        ),
        g.sql(
            "kind",
            seats,
            "COALESCE(rs.kind, ''), CAST(0 AS BIGINT), rs.kind IS NULL, ''",
            PLAY_SUMS,
            ", rs.kind",
        ),
        g.sql(
            "offset",
            &format!(
                "{results} JOIN rounds r0 ON r0.match_id = mr.match_id AND r0.round = 1 \
                 AND r0.lead_seat IS NOT NULL"
            ),
            &format!("'', {offset}, FALSE, ''"),
            &format!(
                "CAST(COUNT(*) AS BIGINT), {WINS}, CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT)"
            ),
            &format!(", {offset}"),
        ),
        g.sql(
            "role",
            &format!("{results} AND mr.role IS NOT NULL"),
            "mr.role, CAST(0 AS BIGINT), FALSE, ''",
            &format!(
                "CAST(COUNT(*) AS BIGINT), {WINS}, CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT)"
            ),
            ", mr.role",
        ),
        player_fold(
            scope,
            "results",
            "match_results p JOIN stat_finished f ON f.match_id = p.match_id",
            "'', FALSE",
            "CAST(COUNT(*) AS BIGINT), \
             CAST(SUM(CASE WHEN p.rank = 1 THEN 1 ELSE 0 END) AS BIGINT), \
             CAST(SUM(p.rank) AS BIGINT), CAST(SUM(p.score) AS BIGINT), CAST(0 AS BIGINT)",
            "",
        ),
        player_fold(
            scope,
            "seated",
            "match_seats p JOIN stat_finished f ON f.match_id = p.match_id",
            "'', FALSE",
            &format!("CAST(COUNT(*) AS BIGINT), {zeros}"),
            "",
        ),
        player_fold(
            scope,
            "kind",
            "round_seats p JOIN stat_finished f ON f.match_id = p.match_id",
            "COALESCE(p.kind, ''), p.kind IS NULL",
            &PLAY_SUMS.replace("rs.", "p."),
            ", p.kind",
        ),
        player_fold(
            scope,
            "card",
            "round_seats p JOIN stat_finished f ON f.match_id = p.match_id",
            "COALESCE(p.card, ''), p.card IS NULL",
            &PLAY_SUMS.replace("rs.", "p."),
            ", p.card",
        ),
        format!(
            "INSERT INTO stat_player_best (player_id, game, positional, best_match_id, round, delta) \
             SELECT x.player_id, x.game, x.positional, x.match_id, x.round, x.delta FROM ( \
               SELECT rs.player_id, f.game, f.positional, rs.match_id, rs.round, rs.delta, \
                 ROW_NUMBER() OVER (PARTITION BY rs.player_id, f.game, f.positional \
                   ORDER BY rs.delta DESC, rs.match_id ASC, rs.round ASC) AS rn \
               FROM {seats} WHERE {scope} AND rs.player_id IS NOT NULL) x \
             WHERE x.rn = 1 \
             ON CONFLICT (player_id, game, positional) DO UPDATE SET \
               best_match_id = excluded.best_match_id, round = excluded.round, delta = excluded.delta \
             WHERE {best}"
        ),
    ]
}

/// The statements that fill each grain of `coarser` (coarsest last) from the game
/// totals of the grain before it, `finest` first. Each grain's bucket must be a
/// whole number of the previous grain's: integer division of a bucket by that
/// number is then the coarser bucket, as [`bucket_sql`] computes it from the
/// finishing time (times since the epoch are positive, so both floor).
fn roll_up_statements(finest: i16, coarser: &[i16]) -> Result<Vec<(String, String)>, DbErr> {
    let mut below = finest;
    coarser
        .iter()
        .map(|&grain| {
            let step = match (grain_minutes(below), grain_minutes(grain)) {
                (Some(lo), Some(hi)) if hi > lo && hi % lo == 0 => hi / lo,
                _ => {
                    return Err(DbErr::Custom(format!(
                        "grain {grain} is not made of buckets of grain {below}"
                    )));
                }
            };
            let sql = format!(
                "INSERT INTO stat_game_totals ({GAME_KEYS}, n, s1, s2, s3, s4) \
                 SELECT game, metric, {grain}, bucket / {step}, seat_count, variant, positional, \
                   k_text, k_num, k_null, k2, CAST(SUM(n) AS BIGINT), CAST(SUM(s1) AS BIGINT), \
                   CAST(SUM(s2) AS BIGINT), CAST(SUM(s3) AS BIGINT), CAST(SUM(s4) AS BIGINT) \
                 FROM stat_game_totals WHERE grain = {below} \
                 GROUP BY game, metric, bucket / {step}, seat_count, variant, positional, \
                   k_text, k_num, k_null, k2"
            );
            below = grain;
            Ok((format!("adding stat_game_totals up to grain {grain}"), sql))
        })
        .collect()
}

/// Empties the running totals and builds them again from every finished match: the
/// backfill of this migration, and a repair for an operator who doubts them.
/// Migrations that ran before matches had a visibility rebuild with `private:
/// None`; the rebuild of today passes the column's value for a private match,
/// whose play counts in no public statistic.
pub async fn rebuild<C: ConnectionTrait>(
    db: &C,
    grains: &[i16],
    private: Option<&str>,
) -> Result<(), DbErr> {
    rebuild_reporting(db, grains, private, &mut |_, _, _| {}).await
}

/// [`rebuild`], telling `progress` before each statement: its number (from 1),
/// how many there are, and what it writes.
pub async fn rebuild_reporting<C: ConnectionTrait>(
    db: &C,
    grains: &[i16],
    private: Option<&str>,
    progress: &mut (dyn FnMut(usize, usize, &str) + Send),
) -> Result<(), DbErr> {
    let hidden = private
        .map(|p| format!(" AND m.visibility <> '{}'", p.replace('\'', "''")))
        .unwrap_or_default();
    let (minute, hour, day) = match db.get_database_backend() {
        DbBackend::Postgres => (
            "CAST(FLOOR(EXTRACT(EPOCH FROM m.finished_at) / 60) AS BIGINT)",
            "CAST(FLOOR(EXTRACT(EPOCH FROM m.finished_at) / 3600) AS BIGINT)",
            "CAST(FLOOR(EXTRACT(EPOCH FROM m.finished_at) / 86400) AS BIGINT)",
        ),
        _ => (
            "CAST(strftime('%s', m.finished_at) AS INTEGER) / 60",
            "CAST(strftime('%s', m.finished_at) AS INTEGER) / 3600",
            "CAST(strftime('%s', m.finished_at) AS INTEGER) / 86400",
        ),
    };
    // `stat_finished.minute` came with the ten-minute grain: the migrations
    // before it rebuild without it, on a table that does not have it yet.
    let (minute_col, minute) = if grains.contains(&GRAIN_10_MINUTES) {
        (", minute", format!(", {minute}"))
    } else {
        ("", String::new())
    };
    let mut statements: Vec<(String, String)> = [
        "stat_player_best",
        "stat_player_totals",
        "stat_game_totals",
        "stat_finished",
    ]
    .iter()
    .map(|table| (format!("emptying {table}"), format!("DELETE FROM {table}")))
    .collect();
    statements.push((
        "listing the finished matches".to_owned(),
        format!(
            "INSERT INTO stat_finished (match_id, game, seat_count, variant, positional, hour, day{minute_col}) \
             SELECT m.id, m.game, m.seat_count, m.variant, m.position IS NOT NULL, {hour}, {day}{minute} \
             FROM matches m WHERE m.status = 'finished' AND m.finished_at IS NOT NULL{hidden}"
        ),
    ));
    // Every finished match's rows are read at the finest grain alone; each coarser
    // grain is then added up from the grain below it (a bucket of one is a whole
    // number of buckets of the other), a few rows per bucket instead of the
    // history's millions again: at a million matches the round seats alone are
    // 65 million rows, read once instead of once a grain.
    let Some((finest, coarser)) = grains.split_first() else {
        return Err(DbErr::Custom("no grain to build the totals at".into()));
    };
    for sql in fold_statements("TRUE", std::slice::from_ref(finest)) {
        let table = sql
            .split_whitespace()
            .skip_while(|w| !w.eq_ignore_ascii_case("INTO"))
            .nth(1)
            .unwrap_or("the totals")
            .to_owned();
        statements.push((format!("adding up {table}"), sql));
    }
    statements.extend(roll_up_statements(*finest, coarser)?);
    let total = statements.len();
    for (i, (what, sql)) in statements.iter().enumerate() {
        progress(i + 1, total, what);
        db.execute_unprepared(sql).await?;
    }
    Ok(())
}
