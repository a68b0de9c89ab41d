use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend};
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Running totals behind the statistics, kept exact by the transaction that
/// finishes a match (see [`fold_statements`]) so that reading them costs the
/// same at any number of matches. Built from the typed history tables only.
#[derive(DeriveIden)]
enum StatFinished {
    Table,
    MatchId,
    Game,
    SeatCount,
    Variant,
    Positional,
    Hour,
    Day,
}

#[derive(DeriveIden)]
enum StatGameTotals {
    Table,
    Game,
    Metric,
    Grain,
    Bucket,
    SeatCount,
    Variant,
    Positional,
    KText,
    KNum,
    KNull,
    K2,
    N,
    S1,
    S2,
    S3,
    S4,
}

#[derive(DeriveIden)]
enum StatPlayerTotals {
    Table,
    PlayerId,
    Game,
    Metric,
    Positional,
    KText,
    KNull,
    N,
    S1,
    S2,
    S3,
    S4,
}

#[derive(DeriveIden)]
enum StatPlayerBest {
    Table,
    PlayerId,
    Game,
    Positional,
    MatchId,
    Round,
    Delta,
}

#[derive(DeriveIden)]
enum Matches {
    Table,
    Game,
    Status,
    FinishedAt,
}

/// Game totals are kept per hour (grain 1) and per day (grain 2) of the finishing
/// time, in whole hours and days since the Unix epoch (UTC).
pub const GRAIN_HOUR: i16 = 1;
pub const GRAIN_DAY: i16 = 2;

const GRAINS: &str = "(SELECT 1 AS grain UNION ALL SELECT 2 AS grain) g";
const BUCKET: &str = "CASE WHEN g.grain = 1 THEN f.hour ELSE f.day END";
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

fn game_fold(scope: &str, metric: &str, from: &str, key: &str, sums: &str, group: &str) -> String {
    format!(
        "INSERT INTO stat_game_totals ({GAME_KEYS}, n, s1, s2, s3, s4) \
         SELECT f.game, '{metric}', g.grain, {BUCKET}, f.seat_count, f.variant, f.positional, {key}, {sums} \
         FROM {from} CROSS JOIN {GRAINS} WHERE {scope} \
         GROUP BY f.game, g.grain, {BUCKET}, f.seat_count, f.variant, f.positional{group} \
         ON CONFLICT ({GAME_KEYS}) DO UPDATE SET {GAME_SUMS}"
    )
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
/// and its `stat_finished` row are written; this migration runs them over all.
pub fn fold_statements(scope: &str) -> Vec<String> {
    let no_key = "'', CAST(0 AS BIGINT), FALSE, ''";
    let rounds = "rounds r JOIN stat_finished f ON f.match_id = r.match_id";
    let seats = "round_seats rs JOIN stat_finished f ON f.match_id = rs.match_id";
    let results = "match_results mr JOIN stat_finished f ON f.match_id = mr.match_id";
    let offset = "CAST(((mr.seat - r0.lead_seat + f.seat_count) % f.seat_count) AS BIGINT)";
    let zeros = "CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT), CAST(0 AS BIGINT)";
    let best = "CASE WHEN excluded.delta > stat_player_best.delta THEN TRUE \
        WHEN excluded.delta < stat_player_best.delta THEN FALSE \
        WHEN excluded.match_id < stat_player_best.match_id THEN TRUE \
        WHEN excluded.match_id > stat_player_best.match_id THEN FALSE \
        ELSE excluded.round < stat_player_best.round END";
    vec![
        game_fold(
            scope,
            "matches",
            "stat_finished f",
            no_key,
            &format!("CAST(COUNT(*) AS BIGINT), {zeros}"),
            "",
        ),
        game_fold(
            scope,
            "round",
            rounds,
            "'', CAST(COALESCE(r.value, 0) AS BIGINT), r.value IS NULL, r.outcome",
            &format!("CAST(COUNT(*) AS BIGINT), {zeros}"),
            ", r.value, r.outcome",
        ),
        game_fold(
            scope,
            "kind",
            seats,
            "COALESCE(rs.kind, ''), CAST(0 AS BIGINT), rs.kind IS NULL, ''",
            PLAY_SUMS,
            ", rs.kind",
        ),
        game_fold(
            scope,
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
        game_fold(
            scope,
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
            "INSERT INTO stat_player_best (player_id, game, positional, match_id, round, delta) \
             SELECT x.player_id, x.game, x.positional, x.match_id, x.round, x.delta FROM ( \
               SELECT rs.player_id, f.game, f.positional, rs.match_id, rs.round, rs.delta, \
                 ROW_NUMBER() OVER (PARTITION BY rs.player_id, f.game, f.positional \
                   ORDER BY rs.delta DESC, rs.match_id ASC, rs.round ASC) AS rn \
               FROM {seats} WHERE {scope} AND rs.player_id IS NOT NULL) x \
             WHERE x.rn = 1 \
             ON CONFLICT (player_id, game, positional) DO UPDATE SET \
               match_id = excluded.match_id, round = excluded.round, delta = excluded.delta \
             WHERE {best}"
        ),
    ]
}

/// Empties the running totals and builds them again from every finished match: the
/// backfill of this migration, and a repair for an operator who doubts them.
pub async fn rebuild<C: ConnectionTrait>(db: &C) -> Result<(), DbErr> {
    let (hour, day) = match db.get_database_backend() {
        DbBackend::Postgres => (
            "CAST(FLOOR(EXTRACT(EPOCH FROM m.finished_at) / 3600) AS BIGINT)",
            "CAST(FLOOR(EXTRACT(EPOCH FROM m.finished_at) / 86400) AS BIGINT)",
        ),
        _ => (
            "CAST(strftime('%s', m.finished_at) AS INTEGER) / 3600",
            "CAST(strftime('%s', m.finished_at) AS INTEGER) / 86400",
        ),
    };
    for table in [
        "stat_player_best",
        "stat_player_totals",
        "stat_game_totals",
        "stat_finished",
    ] {
        db.execute_unprepared(&format!("DELETE FROM {table}"))
            .await?;
    }
    db.execute_unprepared(&format!(
        "INSERT INTO stat_finished (match_id, game, seat_count, variant, positional, hour, day) \
         SELECT m.id, m.game, m.seat_count, m.variant, m.position IS NOT NULL, {hour}, {day} \
         FROM matches m WHERE m.status = 'finished' AND m.finished_at IS NOT NULL"
    ))
    .await?;
    for sql in fold_statements("TRUE") {
        db.execute_unprepared(&sql).await?;
    }
    Ok(())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(StatFinished::Table)
                    .col(uuid(StatFinished::MatchId).primary_key())
                    .col(string_len(StatFinished::Game, 64))
                    .col(integer(StatFinished::SeatCount))
                    .col(string_len(StatFinished::Variant, 64))
                    .col(boolean(StatFinished::Positional))
                    .col(big_integer(StatFinished::Hour))
                    .col(big_integer(StatFinished::Day))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(StatGameTotals::Table)
                    .col(string_len(StatGameTotals::Game, 64))
                    .col(string_len(StatGameTotals::Metric, 16))
                    .col(small_integer(StatGameTotals::Grain))
                    .col(big_integer(StatGameTotals::Bucket))
                    .col(integer(StatGameTotals::SeatCount))
                    .col(string_len(StatGameTotals::Variant, 64))
                    .col(boolean(StatGameTotals::Positional))
                    .col(string_len(StatGameTotals::KText, 64))
                    .col(big_integer(StatGameTotals::KNum))
                    .col(boolean(StatGameTotals::KNull))
                    .col(string_len(StatGameTotals::K2, 32))
                    .col(big_integer(StatGameTotals::N))
                    .col(big_integer(StatGameTotals::S1))
                    .col(big_integer(StatGameTotals::S2))
                    .col(big_integer(StatGameTotals::S3))
                    .col(big_integer(StatGameTotals::S4))
                    .primary_key(
                        Index::create()
                            .col(StatGameTotals::Game)
                            .col(StatGameTotals::Metric)
                            .col(StatGameTotals::Grain)
                            .col(StatGameTotals::Bucket)
                            .col(StatGameTotals::SeatCount)
                            .col(StatGameTotals::Variant)
                            .col(StatGameTotals::Positional)
                            .col(StatGameTotals::KText)
                            .col(StatGameTotals::KNum)
                            .col(StatGameTotals::KNull)
                            .col(StatGameTotals::K2),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(StatPlayerTotals::Table)
                    .col(uuid(StatPlayerTotals::PlayerId))
                    .col(string_len(StatPlayerTotals::Game, 64))
                    .col(string_len(StatPlayerTotals::Metric, 16))
                    .col(boolean(StatPlayerTotals::Positional))
                    .col(string_len(StatPlayerTotals::KText, 64))
                    .col(boolean(StatPlayerTotals::KNull))
                    .col(big_integer(StatPlayerTotals::N))
                    .col(big_integer(StatPlayerTotals::S1))
                    .col(big_integer(StatPlayerTotals::S2))
                    .col(big_integer(StatPlayerTotals::S3))
                    .col(big_integer(StatPlayerTotals::S4))
                    .primary_key(
                        Index::create()
                            .col(StatPlayerTotals::PlayerId)
                            .col(StatPlayerTotals::Game)
                            .col(StatPlayerTotals::Metric)
                            .col(StatPlayerTotals::Positional)
                            .col(StatPlayerTotals::KText)
                            .col(StatPlayerTotals::KNull),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(StatPlayerBest::Table)
                    .col(uuid(StatPlayerBest::PlayerId))
                    .col(string_len(StatPlayerBest::Game, 64))
                    .col(boolean(StatPlayerBest::Positional))
                    .col(uuid(StatPlayerBest::MatchId))
                    .col(integer(StatPlayerBest::Round))
                    .col(big_integer(StatPlayerBest::Delta))
                    .primary_key(
                        Index::create()
                            .col(StatPlayerBest::PlayerId)
                            .col(StatPlayerBest::Game)
                            .col(StatPlayerBest::Positional),
                    )
                    .to_owned(),
            )
            .await?;
        // The few minutes or hours at the edges of a `since`/`until` window are
        // counted from the history tables, found by finishing time.
        manager
            .create_index(
                Index::create()
                    .name("idx_matches_game_status_finished")
                    .table(Matches::Table)
                    .col(Matches::Game)
                    .col(Matches::Status)
                    .col(Matches::FinishedAt)
                    .to_owned(),
            )
            .await?;
        rebuild(manager.get_connection()).await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_matches_game_status_finished")
                    .table(Matches::Table)
                    .to_owned(),
            )
            .await?;
        for table in [
            StatPlayerBest::Table.into_iden(),
            StatPlayerTotals::Table.into_iden(),
            StatGameTotals::Table.into_iden(),
            StatFinished::Table.into_iden(),
        ] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
