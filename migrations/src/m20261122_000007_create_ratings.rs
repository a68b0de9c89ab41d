use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Each player's current Weng-Lin rating per game.
#[derive(DeriveIden)]
enum Ratings {
    Table,
    Game,
    PlayerId,
    Mu,
    Sigma,
    Rating,
    Games,
    Wins,
    UpdatedAt,
}

/// Every rating change, one row per player and rated match.
#[derive(DeriveIden)]
enum RatingHistory {
    Table,
    Id,
    Game,
    PlayerId,
    MatchId,
    MuBefore,
    SigmaBefore,
    MuAfter,
    SigmaAfter,
    RatingAfter,
    Rank,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Players {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Matches {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Ratings::Table)
                    .col(string_len(Ratings::Game, 32))
                    .col(uuid(Ratings::PlayerId))
                    .col(double(Ratings::Mu))
                    .col(double(Ratings::Sigma))
                    // The conservative estimate mu - 3 sigma, which leaderboards sort by.
                    .col(double(Ratings::Rating))
                    .col(integer(Ratings::Games))
                    .col(integer(Ratings::Wins))
                    .col(timestamp_with_time_zone(Ratings::UpdatedAt))
                    .primary_key(Index::create().col(Ratings::Game).col(Ratings::PlayerId))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Ratings::Table, Ratings::PlayerId)
                            .to(Players::Table, Players::Id),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_ratings_leaderboard")
                    .table(Ratings::Table)
                    .col(Ratings::Game)
                    .col(Ratings::Rating)
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(RatingHistory::Table)
                    .col(big_pk_auto(RatingHistory::Id))
                    .col(string_len(RatingHistory::Game, 32))
                    .col(uuid(RatingHistory::PlayerId))
                    .col(uuid(RatingHistory::MatchId))
                    .col(double(RatingHistory::MuBefore))
                    .col(double(RatingHistory::SigmaBefore))
                    .col(double(RatingHistory::MuAfter))
                    .col(double(RatingHistory::SigmaAfter))
                    .col(double(RatingHistory::RatingAfter))
                    .col(integer(RatingHistory::Rank))
                    .col(timestamp_with_time_zone(RatingHistory::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(RatingHistory::Table, RatingHistory::MatchId)
                            .to(Matches::Table, Matches::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_rating_history_player")
                    .table(RatingHistory::Table)
                    .col(RatingHistory::PlayerId)
                    .col(RatingHistory::Game)
                    .col(RatingHistory::Id)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(RatingHistory::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Ratings::Table).to_owned())
            .await
    }
}
