use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Match chat: who may write in a match's chat (`matches.chat`), its messages,
/// and the players each player has muted.
///
/// `match_messages` is a match's chat as a log: a row per message, and a row
/// per deletion notice (`kind = 'deleted'`, naming the message by `target_seq`).
/// `seq` counts a match's rows from 1, given under the match's row lock, and
/// `after_event` is the match's last event id at that moment: a match's stream
/// interleaves its chat with its events by it, without touching the events'
/// ids or the match's version. `match_id` leads the primary key, so on Citus the
/// table is distributed by it and colocated with `matches`.
///
/// `player_mutes` belongs to a player (the muter leads its key): a reference
/// table on Citus, as the other per-player tables.
#[derive(DeriveIden)]
enum MatchMessages {
    Table,
    MatchId,
    Seq,
    Kind,
    AuthorId,
    Text,
    TargetSeq,
    AfterEvent,
    CreatedAt,
    DeletedAt,
    DeletedBy,
}

#[derive(DeriveIden)]
enum PlayerMutes {
    Table,
    PlayerId,
    MutedId,
    CreatedAt,
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

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        crate::run_all(
            manager,
            &["ALTER TABLE matches ADD COLUMN chat varchar NOT NULL DEFAULT 'players'"],
        )
        .await?;
        manager
            .create_table(
                Table::create()
                    .table(MatchMessages::Table)
                    .col(uuid(MatchMessages::MatchId))
                    .col(big_integer(MatchMessages::Seq))
                    .col(string(MatchMessages::Kind))
                    .col(uuid(MatchMessages::AuthorId))
                    .col(text_null(MatchMessages::Text))
                    .col(big_integer_null(MatchMessages::TargetSeq))
                    .col(big_integer(MatchMessages::AfterEvent))
                    .col(timestamp_with_time_zone(MatchMessages::CreatedAt))
                    .col(timestamp_with_time_zone_null(MatchMessages::DeletedAt))
                    .col(uuid_null(MatchMessages::DeletedBy))
                    .primary_key(
                        Index::create()
                            .col(MatchMessages::MatchId)
                            .col(MatchMessages::Seq),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(MatchMessages::Table, MatchMessages::MatchId)
                            .to(Matches::Table, Matches::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(PlayerMutes::Table)
                    .col(uuid(PlayerMutes::PlayerId))
                    .col(uuid(PlayerMutes::MutedId))
                    .col(timestamp_with_time_zone(PlayerMutes::CreatedAt))
                    .primary_key(
                        Index::create()
                            .col(PlayerMutes::PlayerId)
                            .col(PlayerMutes::MutedId),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(PlayerMutes::Table, PlayerMutes::PlayerId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(PlayerMutes::Table, PlayerMutes::MutedId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(PlayerMutes::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(MatchMessages::Table).to_owned())
            .await?;
        crate::run_all(manager, &["ALTER TABLE matches DROP COLUMN chat"]).await
    }
}
