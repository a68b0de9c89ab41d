use sea_orm_migration::{prelude::*, schema::*};

use crate::{add_columns, drop_columns};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A bank's playing hours: the time zone they are kept in, and the minutes
/// after local midnight they begin and end.
#[derive(DeriveIden)]
enum Matches {
    Table,
    PlayingHoursZone,
    PlayingHoursFrom,
    PlayingHoursTo,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_columns(
            manager,
            Matches::Table,
            [
                string_null(Matches::PlayingHoursZone),
                integer_null(Matches::PlayingHoursFrom),
                integer_null(Matches::PlayingHoursTo),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_columns(
            manager,
            Matches::Table,
            [
                Matches::PlayingHoursTo,
                Matches::PlayingHoursFrom,
                Matches::PlayingHoursZone,
            ],
        )
        .await
    }
}
