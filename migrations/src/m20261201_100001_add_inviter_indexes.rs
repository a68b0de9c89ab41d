use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The invitations a player has sent that still stand (match invitations
/// pending, club invitations not answered) are counted at every new one, to
/// hold the player to the most allowed: these indexes keep that count a read
/// of the sender's own rows rather than of every invitation.
#[derive(DeriveIden)]
enum MatchInvitations {
    Table,
    InvitedBy,
    Status,
}

#[derive(DeriveIden)]
enum ClubMembers {
    Table,
    InvitedBy,
    Status,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                Index::create()
                    .name("idx_match_invitations_sender")
                    .table(MatchInvitations::Table)
                    .col(MatchInvitations::InvitedBy)
                    .col(MatchInvitations::Status)
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_club_members_sender")
                    .table(ClubMembers::Table)
                    .col(ClubMembers::InvitedBy)
                    .col(ClubMembers::Status)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_club_members_sender")
                    .table(ClubMembers::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_match_invitations_sender")
                    .table(MatchInvitations::Table)
                    .to_owned(),
            )
            .await
    }
}
