use sea_orm_migration::sea_orm::ConnectionTrait;
use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// The deadline the pollers look for, in a table of its own: one row per active
/// match that has one. Indexed in `matches` (`idx_matches_deadline`), a deadline that
/// moves at every move made each move's update of the match row a non-HOT update,
/// writing a new entry into every index of `matches`; here it rewrites a row of two
/// columns and two index entries, and a move of a match without time limits writes
/// nothing here at all. `matches.deadline_at` stays, unindexed, as the row's copy.
#[derive(DeriveIden)]
enum MatchDeadlines {
    Table,
    MatchId,
    DueAt,
}

#[derive(DeriveIden)]
enum Matches {
    Table,
    Id,
    Status,
    DeadlineAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(MatchDeadlines::Table)
                    .col(uuid(MatchDeadlines::MatchId).primary_key())
                    .col(timestamp_with_time_zone(MatchDeadlines::DueAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(MatchDeadlines::Table, MatchDeadlines::MatchId)
                            .to(Matches::Table, Matches::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_match_deadlines_due")
                    .table(MatchDeadlines::Table)
                    .col(MatchDeadlines::DueAt)
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "INSERT INTO match_deadlines (match_id, due_at) \
                 SELECT id, deadline_at FROM matches \
                 WHERE status = 'active' AND deadline_at IS NOT NULL",
            )
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_matches_deadline")
                    .table(Matches::Table)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                Index::create()
                    .name("idx_matches_deadline")
                    .table(Matches::Table)
                    .col(Matches::Status)
                    .col(Matches::DeadlineAt)
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table(MatchDeadlines::Table).to_owned())
            .await
    }
}
