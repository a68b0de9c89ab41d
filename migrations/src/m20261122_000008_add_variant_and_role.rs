use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Matches {
    Table,
    Variant,
}

#[derive(DeriveIden)]
enum MatchResults {
    Table,
    Role,
}

// One alteration per statement: SQLite cannot do more in one ALTER TABLE.
#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Matches::Table)
                    .add_column(string_len(Matches::Variant, 64).default("standard"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(MatchResults::Table)
                    .add_column(string_len_null(MatchResults::Role, 64))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(MatchResults::Table)
                    .drop_column(MatchResults::Role)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Matches::Table)
                    .drop_column(Matches::Variant)
                    .to_owned(),
            )
            .await
    }
}
