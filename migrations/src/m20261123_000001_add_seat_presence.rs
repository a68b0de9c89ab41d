use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Who plays a seat: a bot kind when a bot holds it, and whether its player is
/// present, absent (a bot stands in after a timeout) or has forfeited.
#[derive(DeriveIden)]
enum MatchSeats {
    Table,
    Bot,
    Presence,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One alteration per statement: SQLite cannot take two at once.
        manager
            .alter_table(
                Table::alter()
                    .table(MatchSeats::Table)
                    .add_column(string_null(MatchSeats::Bot))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(MatchSeats::Table)
                    .add_column(string(MatchSeats::Presence).default("present"))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for col in [MatchSeats::Presence, MatchSeats::Bot] {
            manager
                .alter_table(
                    Table::alter()
                        .table(MatchSeats::Table)
                        .drop_column(col)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
