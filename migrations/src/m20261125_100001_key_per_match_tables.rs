use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::DbBackend;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Every key and unique index of a table that holds `match_id` begins with it, so
/// that a distributed Postgres (Citus, the match as tenant) can place each match's
/// rows on one shard and route every statement of the move path to it.
///
/// On Postgres the primary keys of `moves`, `events`, `ledger` and `rating_history`
/// become `(match_id, id)` (ids stay unique: they come from their sequences);
/// `idx_events_match_id` goes, since the new key covers it. On both backends the
/// one-seat-per-player index of `match_seats` is turned round to `(match_id,
/// player_id)`, with a plain `(player_id, match_id)` index beside it for the lists
/// by player, and the idempotency-key index keeps only moves that have a key.
///
/// Index statements say `IF [NOT] EXISTS` although the names are known: a SQLite
/// connection of the pool whose schema was read before another connection dropped
/// an index refuses to create one of the same name ("already exists") without
/// checking its schema again, while the `IF` forms make it check.
///
/// SQLite keeps its rowid keys: an autoincrementing id cannot be part of a composite
/// key there, and nothing is distributed on SQLite.
const PG_UP: &[&str] = &[
    "ALTER TABLE moves DROP CONSTRAINT moves_pkey, ADD PRIMARY KEY (match_id, id)",
    "ALTER TABLE events DROP CONSTRAINT events_pkey, ADD PRIMARY KEY (match_id, id)",
    "DROP INDEX IF EXISTS idx_events_match_id",
    "ALTER TABLE ledger DROP CONSTRAINT ledger_pkey, ADD PRIMARY KEY (match_id, id)",
    "ALTER TABLE rating_history DROP CONSTRAINT rating_history_pkey, ADD PRIMARY KEY (match_id, id)",
];

const PG_DOWN: &[&str] = &[
    "ALTER TABLE rating_history DROP CONSTRAINT rating_history_pkey, ADD PRIMARY KEY (id)",
    "ALTER TABLE ledger DROP CONSTRAINT ledger_pkey, ADD PRIMARY KEY (id)",
    "CREATE INDEX IF NOT EXISTS idx_events_match_id ON events (match_id, id)",
    "ALTER TABLE events DROP CONSTRAINT events_pkey, ADD PRIMARY KEY (id)",
    "ALTER TABLE moves DROP CONSTRAINT moves_pkey, ADD PRIMARY KEY (id)",
];

const BOTH_UP: &[&str] = &[
    "DROP INDEX IF EXISTS idx_match_seats_player",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_match_seats_match_player ON match_seats (match_id, player_id)",
    "CREATE INDEX IF NOT EXISTS idx_match_seats_player ON match_seats (player_id, match_id)",
    "DROP INDEX IF EXISTS idx_moves_idempotency_key",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_moves_idempotency_key ON moves (match_id, player_id, idempotency_key) \
     WHERE idempotency_key IS NOT NULL",
];

const BOTH_DOWN: &[&str] = &[
    "DROP INDEX IF EXISTS idx_moves_idempotency_key",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_moves_idempotency_key ON moves (match_id, player_id, idempotency_key)",
    "DROP INDEX IF EXISTS idx_match_seats_player",
    "DROP INDEX IF EXISTS idx_match_seats_match_player",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_match_seats_player ON match_seats (player_id, match_id)",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() == DbBackend::Postgres {
            crate::run_all(manager, PG_UP).await?;
        }
        crate::run_all(manager, BOTH_UP).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::run_all(manager, BOTH_DOWN).await?;
        if manager.get_database_backend() == DbBackend::Postgres {
            crate::run_all(manager, PG_DOWN).await?;
        }
        Ok(())
    }
}
