use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The language a player chose for the web client (and, later, mail): a BCP 47
/// tag the server speaks (`en`, `cs`, `et`), null until they choose.
#[derive(DeriveIden)]
enum Players {
    Table,
    Locale,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .add_column(string_len_null(Players::Locale, 16))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .drop_column(Players::Locale)
                    .to_owned(),
            )
            .await
    }
}
