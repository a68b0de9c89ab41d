//! The schema of Sealed Orders, one change per file. Identifiers are declared here,
//! never imported from the application's entities, so old migrations never change.

pub use sea_orm_migration::prelude::*;

mod m20261122_000001_create_players;
mod m20261122_000002_create_matches;
mod m20261122_000003_create_moves_and_events;
mod m20261122_000004_create_history;
mod m20261122_000005_create_game_data_and_settings;
mod m20261122_000006_add_idempotency_key;
mod m20261122_000007_create_ratings;
mod m20261122_000008_add_variant_and_role;
mod m20261122_000009_add_deadline;
mod m20261122_000010_add_private_moves;
mod m20261123_000001_add_seat_presence;
mod m20261123_000002_add_match_timing;
mod m20261123_000003_add_move_author;
mod m20261123_000004_add_event_tx;
mod m20261123_000005_create_stream_tickets;
mod m20261123_300001_add_password_version;
mod m20261123_300002_create_api_tokens;
mod m20261124_100001_create_webhooks;
mod m20261124_200001_create_stat_totals;
mod m20261125_000001_add_coarse_stat_grains;
mod m20261125_100001_key_per_match_tables;
mod m20261125_100002_create_match_deadlines;
mod m20261125_100003_rename_match_references;
mod m20261125_180001_add_round_subject;
mod m20261125_200001_add_ticket_credential;
mod m20261125_210001_add_move_commitment;
mod m20261125_220001_add_move_replaced;
mod m20261126_100001_add_match_visibility_and_invitations;
mod m20261126_110001_create_match_chat;
mod m20261126_120001_add_moderation;
mod m20261127_100001_add_account_deletion;
mod m20261127_110001_create_clubs;
mod m20261128_100001_create_tournaments;
mod m20261129_100001_create_pending_finishes;
mod m20261130_100001_add_player_locale;
mod m20261201_100001_add_inviter_indexes;
mod m20261201_100001_create_notifications;
mod m20261202_100001_add_chat_scope;
mod m20261202_100002_create_oauth_codes;
mod m20261203_100001_add_time_banks;
mod m20261204_100001_add_extensions;
mod m20261204_100002_add_timed_out_index;
mod m20261204_100003_create_vacations;
mod m20261205_100001_add_playing_hours;
mod m20261205_200001_create_match_checkpoints;
mod m20261205_200002_add_clocked_match_index;
mod m20261206_100001_add_ten_minute_stat_grain;
mod m20261207_100001_compress_states_with_lz4;
mod m20261208_100001_drop_move_row_foreign_keys;
mod m20261209_100001_add_match_homes;
mod stat_totals;

pub use stat_totals::{GRAINS, fold_statements, grain_minutes};

/// The `matches.visibility` of a match that exists for nobody outside it: its
/// play stays out of every rebuilt statistic, as out of the live ones.
pub const PRIVATE: &str = "private";

/// Empties the statistics' running totals and builds them again, at every grain
/// kept today, from the typed history tables: a repair for an operator who doubts
/// them, and what the tests compare the incremental totals with.
pub async fn rebuild_stat_totals<C: sea_orm_migration::sea_orm::ConnectionTrait>(
    db: &C,
) -> Result<(), DbErr> {
    stat_totals::rebuild(db, &GRAINS, Some(PRIVATE)).await
}

/// [`rebuild_stat_totals`], telling `progress` before each of its statements
/// (its number from 1, how many there are, what it writes).
pub async fn rebuild_stat_totals_reporting<C: sea_orm_migration::sea_orm::ConnectionTrait>(
    db: &C,
    progress: &mut (dyn FnMut(usize, usize, &str) + Send),
) -> Result<(), DbErr> {
    stat_totals::rebuild_reporting(db, &GRAINS, Some(PRIVATE), progress).await
}

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261122_000001_create_players::Migration),
            Box::new(m20261122_000002_create_matches::Migration),
            Box::new(m20261122_000003_create_moves_and_events::Migration),
            Box::new(m20261122_000004_create_history::Migration),
            Box::new(m20261122_000005_create_game_data_and_settings::Migration),
            Box::new(m20261122_000006_add_idempotency_key::Migration),
            Box::new(m20261122_000007_create_ratings::Migration),
            Box::new(m20261122_000008_add_variant_and_role::Migration),
            Box::new(m20261122_000009_add_deadline::Migration),
            Box::new(m20261122_000010_add_private_moves::Migration),
            Box::new(m20261123_000001_add_seat_presence::Migration),
            Box::new(m20261123_000002_add_match_timing::Migration),
            Box::new(m20261123_000003_add_move_author::Migration),
            Box::new(m20261123_000004_add_event_tx::Migration),
            Box::new(m20261123_000005_create_stream_tickets::Migration),
            Box::new(m20261123_300001_add_password_version::Migration),
            Box::new(m20261123_300002_create_api_tokens::Migration),
            Box::new(m20261124_100001_create_webhooks::Migration),
            Box::new(m20261124_200001_create_stat_totals::Migration),
            Box::new(m20261125_000001_add_coarse_stat_grains::Migration),
            Box::new(m20261125_100001_key_per_match_tables::Migration),
            Box::new(m20261125_100002_create_match_deadlines::Migration),
            Box::new(m20261125_100003_rename_match_references::Migration),
            Box::new(m20261125_180001_add_round_subject::Migration),
            Box::new(m20261125_200001_add_ticket_credential::Migration),
            Box::new(m20261125_210001_add_move_commitment::Migration),
            Box::new(m20261125_220001_add_move_replaced::Migration),
            Box::new(m20261126_100001_add_match_visibility_and_invitations::Migration),
            Box::new(m20261126_110001_create_match_chat::Migration),
            Box::new(m20261126_120001_add_moderation::Migration),
            Box::new(m20261127_100001_add_account_deletion::Migration),
            Box::new(m20261127_110001_create_clubs::Migration),
            Box::new(m20261128_100001_create_tournaments::Migration),
            Box::new(m20261129_100001_create_pending_finishes::Migration),
            Box::new(m20261130_100001_add_player_locale::Migration),
            Box::new(m20261201_100001_add_inviter_indexes::Migration),
            Box::new(m20261201_100001_create_notifications::Migration),
            Box::new(m20261202_100001_add_chat_scope::Migration),
            Box::new(m20261202_100002_create_oauth_codes::Migration),
            Box::new(m20261203_100001_add_time_banks::Migration),
            Box::new(m20261204_100001_add_extensions::Migration),
            Box::new(m20261204_100002_add_timed_out_index::Migration),
            Box::new(m20261204_100003_create_vacations::Migration),
            Box::new(m20261205_100001_add_playing_hours::Migration),
            Box::new(m20261205_200001_create_match_checkpoints::Migration),
            Box::new(m20261205_200002_add_clocked_match_index::Migration),
            Box::new(m20261206_100001_add_ten_minute_stat_grain::Migration),
            Box::new(m20261207_100001_compress_states_with_lz4::Migration),
            Box::new(m20261208_100001_drop_move_row_foreign_keys::Migration),
            Box::new(m20261209_100001_add_match_homes::Migration),
        ]
    }
}

/// Runs raw statements one at a time, in order (SQLite takes one a call).
pub(crate) async fn run_all(manager: &SchemaManager<'_>, statements: &[&str]) -> Result<(), DbErr> {
    let db = manager.get_connection();
    for sql in statements {
        db.execute_unprepared(sql).await?;
    }
    Ok(())
}

/// Adds columns to a table, one statement each: SQLite takes one alteration a
/// statement.
pub(crate) async fn add_columns<const N: usize>(
    manager: &SchemaManager<'_>,
    table: impl IntoIden,
    columns: [ColumnDef; N],
) -> Result<(), DbErr> {
    let table = table.into_iden();
    for mut col in columns {
        manager
            .alter_table(
                Table::alter()
                    .table(table.clone())
                    .add_column(&mut col)
                    .to_owned(),
            )
            .await?;
    }
    Ok(())
}

/// Drops columns of a table, one statement each.
pub(crate) async fn drop_columns<const N: usize>(
    manager: &SchemaManager<'_>,
    table: impl IntoIden,
    columns: [impl IntoIden; N],
) -> Result<(), DbErr> {
    let table = table.into_iden();
    for col in columns {
        manager
            .alter_table(
                Table::alter()
                    .table(table.clone())
                    .drop_column(col)
                    .to_owned(),
            )
            .await?;
    }
    Ok(())
}
