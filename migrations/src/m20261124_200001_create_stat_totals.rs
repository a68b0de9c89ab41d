use sea_orm_migration::{prelude::*, schema::*};

use crate::stat_totals::{self, GRAIN_DAY, GRAIN_HOUR};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Running totals behind the statistics, kept exact by the transaction that
/// finishes a match (see [`stat_totals::fold_statements`]) so that reading them costs the
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
    /// Named `best_match_id` since m20261125_100003 (a table holding a `match_id`
    /// column is a per-match table, which this one is not); databases made before
    /// that have `match_id`, which that migration renames.
    BestMatchId,
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
                    .col(uuid(StatPlayerBest::BestMatchId))
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
        // The grains this schema began with; a later migration adds coarser ones.
        stat_totals::rebuild(manager.get_connection(), &[GRAIN_HOUR, GRAIN_DAY], None).await?;
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
