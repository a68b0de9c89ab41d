use sea_orm_migration::prelude::*;

use crate::stat_totals::{self, GRAIN_DAY, GRAIN_HOUR, HOURLY_GRAINS};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Adds game totals per 8, 64 and 512 days above the hourly and daily ones: with
/// only days, a game's figures over half a year summed tens of thousands of rows.
/// The new grains are rows, not columns, so the change is a rebuild of the totals
/// from the history tables.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        stat_totals::rebuild(manager.get_connection(), &HOURLY_GRAINS, None).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        stat_totals::rebuild(manager.get_connection(), &[GRAIN_HOUR, GRAIN_DAY], None).await
    }
}
