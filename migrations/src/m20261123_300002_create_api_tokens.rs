use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// Long-lived API tokens for bots: only the SHA-256 of the secret is kept.
#[derive(DeriveIden)]
enum ApiTokens {
    Table,
    Id,
    PlayerId,
    Name,
    TokenHash,
    Scopes,
    CreatedAt,
    ExpiresAt,
    LastUsedAt,
    RevokedAt,
}

#[derive(DeriveIden)]
enum Players {
    Table,
    Id,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(ApiTokens::Table)
                    .col(uuid(ApiTokens::Id).primary_key())
                    .col(uuid(ApiTokens::PlayerId))
                    .col(string_len(ApiTokens::Name, 64))
                    // Hex SHA-256 of the whole token; the extractor's one lookup.
                    .col(string_len_uniq(ApiTokens::TokenHash, 64))
                    // Space-separated, as OAuth's `scope`: `play read`.
                    .col(string_len(ApiTokens::Scopes, 64))
                    .col(timestamp_with_time_zone(ApiTokens::CreatedAt))
                    .col(timestamp_with_time_zone_null(ApiTokens::ExpiresAt))
                    .col(timestamp_with_time_zone_null(ApiTokens::LastUsedAt))
                    .col(timestamp_with_time_zone_null(ApiTokens::RevokedAt))
                    .foreign_key(
                        ForeignKey::create()
                            .from(ApiTokens::Table, ApiTokens::PlayerId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_api_tokens_player")
                    .table(ApiTokens::Table)
                    .col(ApiTokens::PlayerId)
                    .col(ApiTokens::Id)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ApiTokens::Table).to_owned())
            .await
    }
}
