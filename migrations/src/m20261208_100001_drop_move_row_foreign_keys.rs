use sea_orm_migration::{prelude::*, sea_orm::DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The tables every move inserts into, and the key each had to its match.
///
/// A foreign key is checked by a trigger per inserted row: a query on the
/// match row that also locks it (`FOR KEY SHARE`), run after the statement.
/// A move inserts about ten such rows (the move, its events, a round's rows and
/// ledger entries), so the checks were a tenth of Postgres's CPU in a drive of
/// moves (`AfterTriggerEndQuery`, 4.6 % of the whole machine), for rows whose
/// match the same statement has just updated under its version condition and
/// so cannot be missing. Nothing deletes a match (finished matches are the
/// record), so the keys' cascades never ran either.
///
/// SQLite keeps the keys: it cannot drop a constraint without rebuilding the
/// table, and its writes are not where the throughput is measured. Other
/// per-match tables (seats, results, deadlines, checkpoints, invitations,
/// messages) keep theirs: they are not written by every move.
const KEYS: [(&str, &str); 5] = [
    ("moves", "moves_match_id_fkey"),
    ("events", "events_match_id_fkey"),
    ("rounds", "rounds_match_id_fkey"),
    ("round_seats", "round_seats_match_id_fkey"),
    ("ledger", "ledger_match_id_fkey"),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        for (table, key) in KEYS {
            db.execute_unprepared(&format!(
                "ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {key}"
            ))
            .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() != DbBackend::Postgres {
            return Ok(());
        }
        let db = manager.get_connection();
        for (table, key) in KEYS {
            db.execute_unprepared(&format!(
                "ALTER TABLE {table} ADD CONSTRAINT {key} FOREIGN KEY (match_id) \
                 REFERENCES matches (id) ON DELETE CASCADE"
            ))
            .await?;
        }
        Ok(())
    }
}
