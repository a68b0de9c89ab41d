use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Clubs: named groups of players with their own matches and leaderboards.
///
/// `clubs` and `club_members` have no `match_id`: on Citus they are reference
/// tables like the other per-player tables (a club is written when people
/// join or leave, read with every club page). A club's matches carry its id
/// (`matches.club_id`, indexed for the club's match list and leaderboard).
#[derive(DeriveIden)]
enum Clubs {
    Table,
    Id,
    Name,
    NameKey,
    Description,
    JoinPolicy,
    OwnerId,
    CreatedAt,
}

/// One row per player and club: a member (`owner`, `admin` or `member`), or a
/// pending request or invitation.
#[derive(DeriveIden)]
enum ClubMembers {
    Table,
    ClubId,
    PlayerId,
    Status,
    Role,
    InvitedBy,
    CreatedAt,
    JoinedAt,
}

#[derive(DeriveIden)]
enum Players {
    Table,
    Id,
}

const UP: &[&str] = &[
    "ALTER TABLE matches ADD COLUMN club_id uuid NULL",
    "CREATE INDEX IF NOT EXISTS idx_matches_club_id ON matches (club_id)",
];

const DOWN: &[&str] = &[
    "DROP INDEX IF EXISTS idx_matches_club_id",
    "ALTER TABLE matches DROP COLUMN club_id",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Clubs::Table)
                    .col(uuid(Clubs::Id).primary_key())
                    .col(string_len(Clubs::Name, 48))
                    .col(string_len_uniq(Clubs::NameKey, 48))
                    .col(string_len(Clubs::Description, 1000).default(""))
                    .col(string_len(Clubs::JoinPolicy, 16))
                    .col(uuid(Clubs::OwnerId))
                    .col(timestamp_with_time_zone(Clubs::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Clubs::Table, Clubs::OwnerId)
                            .to(Players::Table, Players::Id),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ClubMembers::Table)
                    .col(uuid(ClubMembers::ClubId))
                    .col(uuid(ClubMembers::PlayerId))
                    .col(string_len(ClubMembers::Status, 16))
                    .col(string_len(ClubMembers::Role, 16))
                    .col(uuid_null(ClubMembers::InvitedBy))
                    .col(timestamp_with_time_zone(ClubMembers::CreatedAt))
                    .col(timestamp_with_time_zone_null(ClubMembers::JoinedAt))
                    .primary_key(
                        Index::create()
                            .col(ClubMembers::ClubId)
                            .col(ClubMembers::PlayerId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ClubMembers::Table, ClubMembers::ClubId)
                            .to(Clubs::Table, Clubs::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(ClubMembers::Table, ClubMembers::PlayerId)
                            .to(Players::Table, Players::Id),
                    )
                    .to_owned(),
            )
            .await?;
        // A player's clubs: `GET /players/me/clubs`.
        manager
            .create_index(
                Index::create()
                    .name("idx_club_members_player")
                    .table(ClubMembers::Table)
                    .col(ClubMembers::PlayerId)
                    .to_owned(),
            )
            .await?;
        crate::run_all(manager, UP).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::run_all(manager, DOWN).await?;
        manager
            .drop_table(Table::drop().table(ClubMembers::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Clubs::Table).to_owned())
            .await
    }
}
