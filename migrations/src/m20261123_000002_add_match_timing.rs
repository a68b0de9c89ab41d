use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The service's time limits of a match, and when its current step began (every
/// owing seat's deadline is counted from it).
#[derive(DeriveIden)]
enum Matches {
    Table,
    MoveTimeLimit,
    AbsentMoveTimeLimit,
    TimeoutPolicy,
    StepStartedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let columns = [
            integer_null(Matches::MoveTimeLimit),
            integer_null(Matches::AbsentMoveTimeLimit),
            string_null(Matches::TimeoutPolicy),
            timestamp_with_time_zone_null(Matches::StepStartedAt),
        ];
        // One alteration per statement: SQLite cannot take two at once.
        for mut col in columns {
            manager
                .alter_table(
                    Table::alter()
                        .table(Matches::Table)
                        .add_column(&mut col)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for col in [
            Matches::StepStartedAt,
            Matches::TimeoutPolicy,
            Matches::AbsentMoveTimeLimit,
            Matches::MoveTimeLimit,
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
