use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Tournaments: the tournament, its entrants, and who sat where in each round.
///
/// None of these tables has a `match_id` column: on Citus every table with one
/// is distributed by it, and a tournament's rows belong to the tournament, not
/// to one match. They stay reference tables, keyed by `tournament_id`; a
/// pairing names its match in `game_match`, without a foreign key (a reference
/// table may not point into a distributed one).
#[derive(DeriveIden)]
enum Tournaments {
    Table,
    Id,
    Name,
    Game,
    Format,
    TableSize,
    Rounds,
    Options,
    OwnerId,
    Status,
    CurrentRound,
    StartsAt,
    RoundInterval,
    RoundStartedAt,
    MaxPlayers,
    CreatedAt,
    StartedAt,
    FinishedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum TournamentEntries {
    Table,
    TournamentId,
    PlayerId,
    Seq,
    Bot,
    JoinedAt,
    WithdrawnAt,
}

#[derive(DeriveIden)]
enum TournamentPairings {
    Table,
    TournamentId,
    Round,
    PlayerId,
    TableNo,
    Seat,
    GameMatch,
    Points,
    Rank,
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
                    .table(Tournaments::Table)
                    .col(uuid(Tournaments::Id).primary_key())
                    .col(string(Tournaments::Name))
                    .col(string(Tournaments::Game))
                    .col(string(Tournaments::Format))
                    .col(integer(Tournaments::TableSize))
                    .col(integer(Tournaments::Rounds))
                    .col(text(Tournaments::Options))
                    .col(uuid(Tournaments::OwnerId))
                    .col(string(Tournaments::Status))
                    .col(integer(Tournaments::CurrentRound).default(0))
                    .col(timestamp_with_time_zone_null(Tournaments::StartsAt))
                    .col(integer_null(Tournaments::RoundInterval))
                    .col(timestamp_with_time_zone_null(Tournaments::RoundStartedAt))
                    .col(integer(Tournaments::MaxPlayers))
                    .col(timestamp_with_time_zone(Tournaments::CreatedAt))
                    .col(timestamp_with_time_zone_null(Tournaments::StartedAt))
                    .col(timestamp_with_time_zone_null(Tournaments::FinishedAt))
                    .col(timestamp_with_time_zone(Tournaments::UpdatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Tournaments::Table, Tournaments::OwnerId)
                            .to(Players::Table, Players::Id),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_tournaments_status")
                    .table(Tournaments::Table)
                    .col(Tournaments::Status)
                    .col(Tournaments::Id)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(TournamentEntries::Table)
                    .col(uuid(TournamentEntries::TournamentId))
                    .col(uuid(TournamentEntries::PlayerId))
                    .col(integer(TournamentEntries::Seq))
                    .col(string_null(TournamentEntries::Bot))
                    .col(timestamp_with_time_zone(TournamentEntries::JoinedAt))
                    .col(timestamp_with_time_zone_null(
                        TournamentEntries::WithdrawnAt,
                    ))
                    .primary_key(
                        Index::create()
                            .col(TournamentEntries::TournamentId)
                            .col(TournamentEntries::PlayerId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(TournamentEntries::Table, TournamentEntries::TournamentId)
                            .to(Tournaments::Table, Tournaments::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(TournamentEntries::Table, TournamentEntries::PlayerId)
                            .to(Players::Table, Players::Id),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_tournament_entries_player")
                    .table(TournamentEntries::Table)
                    .col(TournamentEntries::PlayerId)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(TournamentPairings::Table)
                    .col(uuid(TournamentPairings::TournamentId))
                    .col(integer(TournamentPairings::Round))
                    .col(uuid(TournamentPairings::PlayerId))
                    .col(integer_null(TournamentPairings::TableNo))
                    .col(integer_null(TournamentPairings::Seat))
                    .col(uuid_null(TournamentPairings::GameMatch))
                    .col(double_null(TournamentPairings::Points))
                    .col(integer_null(TournamentPairings::Rank))
                    .primary_key(
                        Index::create()
                            .col(TournamentPairings::TournamentId)
                            .col(TournamentPairings::Round)
                            .col(TournamentPairings::PlayerId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(TournamentPairings::Table, TournamentPairings::TournamentId)
                            .to(Tournaments::Table, Tournaments::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_tournament_pairings_game_match")
                    .table(TournamentPairings::Table)
                    .col(TournamentPairings::GameMatch)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(TournamentPairings::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(TournamentEntries::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Tournaments::Table).to_owned())
            .await
    }
}
