use sea_orm_migration::sea_orm::DbBackend;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The id of the transaction that wrote an event. On Postgres, event ids of
/// different matches are not handed out in commit order, so a stream across
/// matches orders by (transaction, id) and delivers only what every older
/// transaction has settled; SQLite has one writer at a time and keeps 0.
#[derive(DeriveIden)]
enum Events {
    Table,
    Tx,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Events::Table)
                    .add_column(big_integer(Events::Tx).default(0))
                    .to_owned(),
            )
            .await?;
        if manager.get_database_backend() == DbBackend::Postgres {
            manager
                .get_connection()
                .execute_unprepared(
                    "ALTER TABLE events ALTER COLUMN tx SET DEFAULT (pg_current_xact_id()::text::bigint)",
                )
                .await?;
        }
        manager
            .create_index(
                Index::create()
                    .name("idx_events_tx_id")
                    .table(Events::Table)
                    .col(Events::Tx)
                    .col(Events::Id)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_events_tx_id")
                    .table(Events::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Events::Table)
                    .drop_column(Events::Tx)
                    .to_owned(),
            )
            .await
    }
}
