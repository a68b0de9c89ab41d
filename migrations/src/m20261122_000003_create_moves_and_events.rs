use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Moves {
    Table,
    Id,
    MatchId,
    Step,
    Seat,
    PlayerId,
    Action,
    PublicAction,
    Revealed,
    CompletesStep,
    VersionAfter,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Events {
    Table,
    Id,
    MatchId,
    Version,
    AudienceSeat,
    Kind,
    Data,
    CreatedAt,
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
                    .table(Moves::Table)
                    .col(big_pk_auto(Moves::Id))
                    .col(uuid(Moves::MatchId))
                    .col(big_integer(Moves::Step))
                    .col(integer(Moves::Seat))
                    .col(uuid_null(Moves::PlayerId))
                    .col(text(Moves::Action))
                    // What others may see before the reveal; null when the move is public.
                    .col(text_null(Moves::PublicAction))
                    .col(boolean(Moves::Revealed))
                    .col(boolean(Moves::CompletesStep))
                    .col(big_integer(Moves::VersionAfter))
                    .col(timestamp_with_time_zone(Moves::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Moves::Table, Moves::MatchId)
                            .to(Matches::Table, Matches::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_moves_match_step_seat")
                    .table(Moves::Table)
                    .col(Moves::MatchId)
                    .col(Moves::Step)
                    .col(Moves::Seat)
                    .unique()
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(Events::Table)
                    .col(big_pk_auto(Events::Id))
                    .col(uuid(Events::MatchId))
                    .col(big_integer(Events::Version))
                    // Null: public; otherwise only this seat may see the event.
                    .col(integer_null(Events::AudienceSeat))
                    .col(string_len(Events::Kind, 64))
                    .col(text(Events::Data))
                    .col(timestamp_with_time_zone(Events::CreatedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(Events::Table, Events::MatchId)
                            .to(Matches::Table, Matches::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_events_match_id")
                    .table(Events::Table)
                    .col(Events::MatchId)
                    .col(Events::Id)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(Events::Table).to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table(Moves::Table).to_owned())
            .await
    }
}
