use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A move that stays private to its author until the match ends, whatever is
/// revealed meanwhile.
#[derive(DeriveIden)]
enum Moves {
    Table,
    PrivateUntilEnd,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Moves::Table)
                    .add_column(boolean(Moves::PrivateUntilEnd).default(false))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Moves::Table)
                    .drop_column(Moves::PrivateUntilEnd)
                    .to_owned(),
            )
            .await
    }
}
