use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A player's reliability counts its deadlines in clocked matches only (a move
/// time limit or a time bank). With no index saying which matches are clocked,
/// Postgres found them by reading every match: 0.6 s for a busy player's
/// figures at 100,000 finished matches, growing with the matches there are. A
/// partial index holds the clocked matches alone, so the read starts from them
/// (and from the player's seats when those are fewer), and unclocked matches
/// cost it nothing. The condition is written as the query writes it, so the
/// planner can match the two.
///
/// The same statement on SQLite and Postgres; Citus creates it on every shard.
const UP: &str = "CREATE INDEX IF NOT EXISTS idx_matches_clocked ON matches (id) \
                  WHERE move_time_limit IS NOT NULL OR bank_initial_seconds IS NOT NULL";
const DOWN: &str = "DROP INDEX IF EXISTS idx_matches_clocked";

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
