use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// What a resolved round was about, as its game names it (`city:brno`,
/// `ship:9`, …), so a round can be identified from its record alone.
#[derive(DeriveIden)]
enum Rounds {
    Table,
    Subject,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Rounds::Table)
                    .add_column(string_null(Rounds::Subject))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Rounds::Table)
                    .drop_column(Rounds::Subject)
                    .to_owned(),
            )
            .await
    }
}
