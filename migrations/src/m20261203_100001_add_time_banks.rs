use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A match's bank time control (seconds each seat starts with, earns per move,
/// and may hold at most), and each seat's bank with the instants it is charged
/// from: deadlines are derived from these, so they survive restarts and every
/// replica computes the same ones.
#[derive(DeriveIden)]
enum Matches {
    Table,
    BankInitialSeconds,
    BankIncrementSeconds,
    BankCapSeconds,
}

#[derive(DeriveIden)]
enum MatchSeats {
    Table,
    BankMs,
    AskedAt,
    MovedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One alteration per statement: SQLite cannot take two at once.
        for mut col in [
            integer_null(Matches::BankInitialSeconds),
            integer_null(Matches::BankIncrementSeconds),
            integer_null(Matches::BankCapSeconds),
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
            big_integer_null(MatchSeats::BankMs),
            timestamp_with_time_zone_null(MatchSeats::AskedAt),
            timestamp_with_time_zone_null(MatchSeats::MovedAt),
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
        for col in [MatchSeats::MovedAt, MatchSeats::AskedAt, MatchSeats::BankMs] {
            manager
                .alter_table(
                    Table::alter()
                        .table(MatchSeats::Table)
                        .drop_column(col)
                        .to_owned(),
                )
                .await?;
        }
        for col in [
            Matches::BankCapSeconds,
            Matches::BankIncrementSeconds,
            Matches::BankInitialSeconds,
        ] {
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
