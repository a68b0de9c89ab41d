use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::{ConnectionTrait, DbBackend, Statement};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// A table that holds a `match_id` column is a per-match table: its rows belong to
/// that match, its keys begin with it, and a distributed Postgres keeps it on the
/// match's shard. Two tables held one that only points at a match: a webhook
/// delivery belongs to its webhook (the match is its event's), and a player's best
/// round belongs to the player. Their columns are renamed to say so.
/// (`stat_player_best` is created with `best_match_id` since this change; a
/// database made before it has `match_id`, renamed here.)
#[derive(DeriveIden)]
enum WebhookDeliveries {
    Table,
    MatchId,
    EventMatchId,
}

#[derive(DeriveIden)]
enum StatPlayerBest {
    Table,
    MatchId,
    BestMatchId,
}

async fn has_column(manager: &SchemaManager<'_>, table: &str, column: &str) -> Result<bool, DbErr> {
    let db = manager.get_connection();
    let backend = manager.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => {
            "SELECT 1 AS one FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = $1 AND column_name = $2"
        }
        _ => "SELECT 1 AS one FROM pragma_table_info(?) WHERE name = ?",
    };
    Ok(db
        .query_one_raw(Statement::from_sql_and_values(
            backend,
            sql,
            [table.into(), column.into()],
        ))
        .await?
        .is_some())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(WebhookDeliveries::Table)
                    .rename_column(WebhookDeliveries::MatchId, WebhookDeliveries::EventMatchId)
                    .to_owned(),
            )
            .await?;
        if has_column(manager, "stat_player_best", "match_id").await? {
            manager
                .alter_table(
                    Table::alter()
                        .table(StatPlayerBest::Table)
                        .rename_column(StatPlayerBest::MatchId, StatPlayerBest::BestMatchId)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(WebhookDeliveries::Table)
                    .rename_column(WebhookDeliveries::EventMatchId, WebhookDeliveries::MatchId)
                    .to_owned(),
            )
            .await
    }
}
