use sea_orm::entity::prelude::*;

/// An OAuth 2 authorization code between consent and exchange.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "oauth_codes")]
pub struct Model {
    /// Hex SHA-256 of the code; the code itself is never stored.
    #[sea_orm(primary_key, auto_increment = false)]
    pub code_hash: String,
    pub player_id: Uuid,
    pub client_id: String,
    pub redirect_uri: String,
    /// The PKCE S256 challenge: base64url SHA-256 of the client's verifier.
    pub code_challenge: String,
    /// Space-separated scopes, as `api_tokens.scopes`.
    pub scopes: String,
    pub created_at: ChronoDateTimeUtc,
    pub expires_at: ChronoDateTimeUtc,
    /// The API token the code was exchanged for; null until then.
    pub token_id: Option<Uuid>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
