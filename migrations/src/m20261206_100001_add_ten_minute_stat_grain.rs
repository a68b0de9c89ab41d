use sea_orm_migration::{prelude::*, schema::*};

use crate::stat_totals::{self, GRAINS, HOURLY_GRAINS};
use crate::{PRIVATE, add_columns, drop_columns};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The minute a match finished (since the Unix epoch), from which its
/// ten-minute bucket is taken.
#[derive(DeriveIden)]
enum StatFinished {
    Table,
    Minute,
}

/// Adds game totals per ten minutes below the hourly ones. A window's edges that
/// fall inside an hour were read from the history tables: at a million matches,
/// the round seats of a few hundred matches per edge, most of what a windowed
/// request cost. With ten-minute buckets an edge reads at most ten minutes.
///
/// The new grain is rows of the totals, so the change is a rebuild of them from
/// the history tables (minutes at a million matches); the finishes still
/// waiting to be folded are counted by it, so their folds must not count them
/// again.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_columns(
            manager,
            StatFinished::Table,
            [big_integer(StatFinished::Minute).default(0).to_owned()],
        )
        .await?;
        let db = manager.get_connection();
        stat_totals::rebuild(db, &GRAINS, Some(PRIVATE)).await?;
        db.execute_unprepared(FORGET_PENDING).await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let db = manager.get_connection();
        stat_totals::rebuild(db, &HOURLY_GRAINS, Some(PRIVATE)).await?;
        db.execute_unprepared(FORGET_PENDING).await?;
        drop_columns(manager, StatFinished::Table, [StatFinished::Minute]).await
    }
}

const FORGET_PENDING: &str = "UPDATE pending_finishes SET stats = FALSE WHERE stats";
