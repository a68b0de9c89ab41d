use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// OAuth 2 authorization codes between the consent and the token request:
/// only the SHA-256 of the code is kept, with what it is bound to (the client,
/// the redirect URI, the PKCE challenge, the scopes) and, once exchanged, the
/// token it became, so that a replayed code revokes that token (RFC 6749 §4.1.2).
#[derive(DeriveIden)]
enum OauthCodes {
    Table,
    CodeHash,
    PlayerId,
    ClientId,
    RedirectUri,
    CodeChallenge,
    Scopes,
    CreatedAt,
    ExpiresAt,
    TokenId,
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
                    .table(OauthCodes::Table)
                    // Hex SHA-256 of the code: the token request's one lookup.
                    .col(string_len(OauthCodes::CodeHash, 64).primary_key())
                    .col(uuid(OauthCodes::PlayerId))
                    .col(string_len(OauthCodes::ClientId, 64))
                    .col(string_len(OauthCodes::RedirectUri, 2000))
                    // base64url of a SHA-256: 43 characters.
                    .col(string_len(OauthCodes::CodeChallenge, 64))
                    .col(string_len(OauthCodes::Scopes, 64))
                    .col(timestamp_with_time_zone(OauthCodes::CreatedAt))
                    .col(timestamp_with_time_zone(OauthCodes::ExpiresAt))
                    .col(uuid_null(OauthCodes::TokenId))
                    .foreign_key(
                        ForeignKey::create()
                            .from(OauthCodes::Table, OauthCodes::PlayerId)
                            .to(Players::Table, Players::Id)
                            .on_delete(ForeignKeyAction::Cascade),
                    )
                    .to_owned(),
            )
            .await?;
        // Spent and expired codes are swept by their expiry.
        manager
            .create_index(
                Index::create()
                    .name("idx_oauth_codes_expires")
                    .table(OauthCodes::Table)
                    .col(OauthCodes::ExpiresAt)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(OauthCodes::Table).to_owned())
            .await
    }
}
