use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Moves {
    Table,
    MatchId,
    PlayerId,
    IdempotencyKey,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Moves::Table)
                    .add_column(string_len_null(Moves::IdempotencyKey, 255))
                    .to_owned(),
            )
            .await?;
        // A key names one move of one player in one match (NULLs never collide).
        manager
            .create_index(
                Index::create()
                    .name("idx_moves_idempotency_key")
                    .table(Moves::Table)
                    .col(Moves::MatchId)
                    .col(Moves::PlayerId)
                    .col(Moves::IdempotencyKey)
                    .unique()
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_moves_idempotency_key")
                    .table(Moves::Table)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(Moves::Table)
                    .drop_column(Moves::IdempotencyKey)
                    .to_owned(),
            )
            .await
    }
}
