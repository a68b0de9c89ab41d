use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Players' vacations: when each began and ends (or ended, when its player came
/// back early), for the allowance of days a year and the player's page; and on
/// each seat the vacation that stops its clock, copied there so that deadlines
/// stay derived from the seat's own row.
#[derive(DeriveIden)]
enum Vacations {
    Table,
    Id,
    PlayerId,
    StartsAt,
    EndsAt,
}

#[derive(DeriveIden)]
enum MatchSeats {
    Table,
    AwayFrom,
    AwayUntil,
}

#[derive(DeriveIden)]
enum Players {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Vacations::Table)
                    .col(uuid(Vacations::Id).primary_key())
                    .col(uuid(Vacations::PlayerId))
                    .col(timestamp_with_time_zone(Vacations::StartsAt))
                    .col(timestamp_with_time_zone(Vacations::EndsAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Vacations::Table, Vacations::PlayerId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // A player's vacations, latest first: the current one and the year's.
        manager
            .create_index(
                Index::create()
                    .name("vacations_player_starts")
                    .table(Vacations::Table)
                    .col(Vacations::PlayerId)
                    .col(Vacations::StartsAt)
                    .to_owned(),
            )
            .await?;
        for mut col in [
            timestamp_with_time_zone_null(MatchSeats::AwayFrom),
            timestamp_with_time_zone_null(MatchSeats::AwayUntil),
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
        for col in [MatchSeats::AwayUntil, MatchSeats::AwayFrom] {
            manager
                .alter_table(
                    Table::alter()
                        .table(MatchSeats::Table)
                        .drop_column(col)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .drop_table(Table::drop().table(Vacations::Table).to_owned())
            .await
    }
}
