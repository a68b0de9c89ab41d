use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A player's reliability counts the `seat_timed_out` events of the matches it
/// sat in. Their match's other events (hundreds a match) would be read to find
/// the few time-outs: a partial index holds the time-outs alone, so it costs
/// nothing to the writes of every other event. The kind is a literal in the
/// index and in the query that uses it (a bound parameter could not be matched
/// against the index's condition when the plan is made).
///
/// The same statement on SQLite and Postgres; Citus creates it on every shard.
const UP: &str = "CREATE INDEX IF NOT EXISTS idx_events_timed_out ON events (match_id) \
                  WHERE kind = 'seat_timed_out'";
const DOWN: &str = "DROP INDEX IF EXISTS idx_events_timed_out";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.get_connection().execute_unprepared(UP).await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager.get_connection().execute_unprepared(DOWN).await?;
        Ok(())
    }
}
