use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Playing with people one chooses: a match's visibility (`public`, `unlisted`,
/// `private`), whether spectators may watch it, its join code, the match it is a
/// rematch of, and the invitations its owner sent.
///
/// Invitations belong to a match: `match_invitations` carries `match_id` first in
/// its primary key, so on Citus it is distributed by it and colocated with
/// `matches`. An invited player's list reads it by `player_id` (an index), across
/// shards, as the list of a player's matches does.
#[derive(DeriveIden)]
enum MatchInvitations {
    Table,
    MatchId,
    PlayerId,
    InvitedBy,
    Status,
    CreatedAt,
    ExpiresAt,
    AnsweredAt,
}

#[derive(DeriveIden)]
enum Matches {
    Table,
    Id,
}

#[derive(DeriveIden)]
enum Players {
    Table,
    Id,
}

/// One alteration per statement: SQLite takes no more.
const UP: &[&str] = &[
    "ALTER TABLE matches ADD COLUMN visibility varchar NOT NULL DEFAULT 'public'",
    "ALTER TABLE matches ADD COLUMN spectators boolean NOT NULL DEFAULT true",
    "ALTER TABLE matches ADD COLUMN join_code varchar NULL",
    "CREATE INDEX IF NOT EXISTS idx_matches_join_code ON matches (join_code)",
    "ALTER TABLE matches ADD COLUMN rematch_of uuid NULL",
    "CREATE INDEX IF NOT EXISTS idx_matches_rematch_of ON matches (rematch_of)",
];

const DOWN: &[&str] = &[
    "DROP INDEX IF EXISTS idx_matches_rematch_of",
    "ALTER TABLE matches DROP COLUMN rematch_of",
    "DROP INDEX IF EXISTS idx_matches_join_code",
    "ALTER TABLE matches DROP COLUMN join_code",
    "ALTER TABLE matches DROP COLUMN spectators",
    "ALTER TABLE matches DROP COLUMN visibility",
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::run_all(manager, UP).await?;
        manager
            .create_table(
                Table::create()
                    .table(MatchInvitations::Table)
                    .col(uuid(MatchInvitations::MatchId))
                    .col(uuid(MatchInvitations::PlayerId))
                    .col(uuid(MatchInvitations::InvitedBy))
                    .col(string(MatchInvitations::Status))
                    .col(timestamp_with_time_zone(MatchInvitations::CreatedAt))
                    .col(timestamp_with_time_zone(MatchInvitations::ExpiresAt))
                    .col(timestamp_with_time_zone_null(MatchInvitations::AnsweredAt))
                    .primary_key(
                        Index::create()
                            .col(MatchInvitations::MatchId)
                            .col(MatchInvitations::PlayerId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(MatchInvitations::Table, MatchInvitations::MatchId)
                            .to(Matches::Table, Matches::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(MatchInvitations::Table, MatchInvitations::PlayerId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_match_invitations_player")
                    .table(MatchInvitations::Table)
                    .col(MatchInvitations::PlayerId)
                    .col(MatchInvitations::Status)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(MatchInvitations::Table).to_owned())
            .await?;
        crate::run_all(manager, DOWN).await
    }
}
