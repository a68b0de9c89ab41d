use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Positions of a match kept with it: the state after every move of the steps
/// before `step`, in the text a match's state is stored as, at some multiples of
/// a fixed number of steps. A position before a match's current step never
/// changes again, so a row is written once (by the first read that replays past
/// it) and read by every later one, in any process, instead of a replay from the
/// start. Keyed by the match, so on Citus it is distributed by it and colocated
/// with `matches`.
#[derive(DeriveIden)]
enum MatchCheckpoints {
    Table,
    MatchId,
    Step,
    State,
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
                    .table(MatchCheckpoints::Table)
                    .col(uuid(MatchCheckpoints::MatchId))
                    .col(big_integer(MatchCheckpoints::Step))
                    .col(text(MatchCheckpoints::State))
                    .primary_key(
                        Index::create()
                            .col(MatchCheckpoints::MatchId)
                            .col(MatchCheckpoints::Step),
                    )
                    .foreign_key(
                        ForeignKey::create()
                            .from(MatchCheckpoints::Table, MatchCheckpoints::MatchId)
                            .to(Matches::Table, Matches::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(MatchCheckpoints::Table).to_owned())
            .await
    }
}
