use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Who made a stored move when it was not the seat's player in person: a bot
/// (`bot:<kind>`), or the server playing a null move (`null`).
#[derive(DeriveIden)]
enum Moves {
    Table,
    Author,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Moves::Table)
                    .add_column(string_null(Moves::Author))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Moves::Table)
                    .drop_column(Moves::Author)
                    .to_owned(),
            )
            .await
    }
}
