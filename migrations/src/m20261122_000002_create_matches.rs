use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Matches {
    Table,
    Id,
    Game,
    Status,
    SeatCount,
    OwnerId,
    Options,
    Position,
    Rated,
    Seed,
    SeedSha256,
    State,
    Step,
    Version,
    EngineVersion,
    DataSha256,
    CreatedAt,
    StartedAt,
    FinishedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum MatchSeats {
    Table,
    MatchId,
    Seat,
    PlayerId,
    JoinedAt,
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
                    .table(Matches::Table)
                    .col(uuid(Matches::Id).primary_key())
                    .col(string_len(Matches::Game, 32))
                    .col(string_len(Matches::Status, 16))
                    .col(integer(Matches::SeatCount))
                    .col(uuid_null(Matches::OwnerId))
                    .col(text(Matches::Options))
                    .col(text_null(Matches::Position))
                    .col(boolean(Matches::Rated))
                    .col(binary_len(Matches::Seed, 32))
                    .col(string_len(Matches::SeedSha256, 64))
                    .col(text_null(Matches::State))
                    .col(big_integer(Matches::Step))
                    .col(big_integer(Matches::Version))
                    .col(string_len(Matches::EngineVersion, 32))
                    .col(string_len(Matches::DataSha256, 64))
                    .col(timestamp_with_time_zone(Matches::CreatedAt))
                    .col(timestamp_with_time_zone_null(Matches::StartedAt))
                    .col(timestamp_with_time_zone_null(Matches::FinishedAt))
                    .col(timestamp_with_time_zone(Matches::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Matches::Table, Matches::OwnerId)
                            .to(Players::Table, Players::Id),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_matches_game_status_created")
                    .table(Matches::Table)
                    .col(Matches::Game)
                    .col(Matches::Status)
                    .col(Matches::CreatedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_matches_status_created")
                    .table(Matches::Table)
                    .col(Matches::Status)
                    .col(Matches::CreatedAt)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(MatchSeats::Table)
                    .col(uuid(MatchSeats::MatchId))
                    .col(integer(MatchSeats::Seat))
                    .col(uuid(MatchSeats::PlayerId))
                    .col(timestamp_with_time_zone(MatchSeats::JoinedAt))
                    .primary_key(
                        Index::create()
                            .col(MatchSeats::MatchId)
                            .col(MatchSeats::Seat),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(MatchSeats::Table, MatchSeats::MatchId)
                            .to(Matches::Table, Matches::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(MatchSeats::Table, MatchSeats::PlayerId)
                            .to(Players::Table, Players::Id),
                    )
                    .to_owned(),
            )
            .await?;
        // A player holds at most one seat per match.
        manager
            .create_index(
                Index::create()
                    .name("idx_match_seats_player")
                    .table(MatchSeats::Table)
                    .col(MatchSeats::PlayerId)
                    .col(MatchSeats::MatchId)
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(MatchSeats::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Matches::Table).to_owned())
            .await
    }
}
