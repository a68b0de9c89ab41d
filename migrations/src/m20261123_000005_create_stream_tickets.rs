use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Single-use tickets for event streams opened by browsers, which cannot send an
/// Authorization header with an EventSource. Kept in the database so that any
/// replica can redeem a ticket another one issued.
#[derive(DeriveIden)]
enum StreamTickets {
    Table,
    Hash,
    PlayerId,
    ExpiresAt,
    UsedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(StreamTickets::Table)
                    .col(string(StreamTickets::Hash).primary_key())
                    .col(uuid(StreamTickets::PlayerId))
                    .col(timestamp_with_time_zone(StreamTickets::ExpiresAt))
                    .col(timestamp_with_time_zone_null(StreamTickets::UsedAt))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_stream_tickets_expires")
                    .table(StreamTickets::Table)
                    .col(StreamTickets::ExpiresAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(StreamTickets::Table).to_owned())
            .await
    }
}
