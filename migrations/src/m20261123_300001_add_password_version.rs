use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Counts a player's password changes; every JWT carries the count it was issued
/// under, so a change refuses every older JWT without a clock comparison.
#[derive(DeriveIden)]
enum Players {
    Table,
    PasswordVersion,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .add_column(big_integer(Players::PasswordVersion).default(0))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Players::Table)
                    .drop_column(Players::PasswordVersion)
                    .to_owned(),
            )
            .await
    }
}
