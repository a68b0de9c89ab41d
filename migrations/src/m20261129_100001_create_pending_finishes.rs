use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Finished matches whose ratings and statistics' running totals are still to
/// be updated: written by the transaction that finishes a match, taken and
/// deleted by the transaction that folds a batch of them, so that a finishing
/// move never waits for rows every other finish updates too.
#[derive(DeriveIden)]
enum PendingFinishes {
    Table,
    MatchId,
    Game,
    FinishedAt,
    /// The rating's input, JSON: every placed seat's player, rank and whether
    /// its rating moves. None when the match moves no rating.
    Placed,
    /// Whether the match goes into the statistics (it has a `stat_finished` row).
    Stats,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(PendingFinishes::Table)
                    .col(uuid(PendingFinishes::MatchId).primary_key())
                    .col(string_len(PendingFinishes::Game, 64))
                    .col(timestamp_with_time_zone(PendingFinishes::FinishedAt))
                    .col(text_null(PendingFinishes::Placed))
                    .col(boolean(PendingFinishes::Stats))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(PendingFinishes::Table).to_owned())
            .await
    }
}
