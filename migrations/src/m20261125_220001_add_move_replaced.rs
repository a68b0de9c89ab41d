use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Amending a sealed move: the move it replaced stays in the history, marked
/// `replaced`, and the one-move-per-seat-and-step index covers only the moves
/// that stand (a partial index: it still begins with `match_id`).
///
/// Going down deletes the replaced moves, since the full index would refuse them.
const UP: &[&str] = &[
    "ALTER TABLE moves ADD COLUMN replaced boolean NOT NULL DEFAULT false",
    "DROP INDEX IF EXISTS idx_moves_match_step_seat",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_moves_match_step_seat ON moves (match_id, step, seat) \
     WHERE NOT replaced",
];

const DOWN: &[&str] = &[
    "DELETE FROM moves WHERE replaced",
    "DROP INDEX IF EXISTS idx_moves_match_step_seat",
    "CREATE UNIQUE INDEX IF NOT EXISTS idx_moves_match_step_seat ON moves (match_id, step, seat)",
    "ALTER TABLE moves DROP COLUMN replaced",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::run_all(manager, UP).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::run_all(manager, DOWN).await
    }
}
