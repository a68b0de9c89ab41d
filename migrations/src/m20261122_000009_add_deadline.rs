use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// When the current step of a match times out; polled by every replica.
#[derive(DeriveIden)]
enum Matches {
    Table,
    Status,
    DeadlineAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Matches::Table)
                    .add_column(timestamp_with_time_zone_null(Matches::DeadlineAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_matches_deadline")
                    .table(Matches::Table)
                    .col(Matches::Status)
                    .col(Matches::DeadlineAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_matches_deadline")
                    .table(Matches::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Matches::Table)
                    .drop_column(Matches::DeadlineAt)
                    .to_owned(),
            )
            .await
    }
}
