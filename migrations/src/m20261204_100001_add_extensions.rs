use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Extensions of a seat's time: the grace extensions a match allows each seat
/// (how many, and how long each), and on each seat the time other seats or a
/// grace gave it for the step it owes (per-move clocks; a bank takes the time
/// into the bank itself), the step that time is for, and the graces it used.
#[derive(DeriveIden)]
enum Matches {
    Table,
    GraceExtensions,
    GraceSeconds,
}

#[derive(DeriveIden)]
enum MatchSeats {
    Table,
    ExtensionMs,
    ExtensionStep,
    GracesUsed,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One alteration per statement: SQLite cannot take two at once.
        for mut col in [
            integer_null(Matches::GraceExtensions),
            integer_null(Matches::GraceSeconds),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Matches::Table)
                        .add_column(&mut col)
                        .to_owned(),
                )
                .await?;
        }
        for mut col in [
            big_integer_null(MatchSeats::ExtensionMs),
            big_integer_null(MatchSeats::ExtensionStep),
            integer_null(MatchSeats::GracesUsed),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(MatchSeats::Table)
                        .add_column(&mut col)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for col in [
            MatchSeats::GracesUsed,
            MatchSeats::ExtensionStep,
            MatchSeats::ExtensionMs,
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(MatchSeats::Table)
                        .drop_column(col)
                        .to_owned(),
                )
                .await?;
        }
        for col in [Matches::GraceSeconds, Matches::GraceExtensions] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Matches::Table)
                        .drop_column(col)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
