use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "stream_tickets")]
pub struct Model {
    /// SHA-256 (hex) of the ticket; the ticket itself is never stored.
    #[sea_orm(primary_key, auto_increment = false)]
    pub hash: String,
    pub player_id: Uuid,
    pub expires_at: ChronoDateTimeUtc,
    pub used_at: Option<ChronoDateTimeUtc>,
    /// The API token that asked for the ticket, if one did.
    pub token_id: Option<Uuid>,
    /// The password version of the JWT that asked for the ticket, if one did.
    pub password_version: Option<i64>,
    /// When that credential expires (never, for an API token without expiry).
    pub credential_expires_at: Option<ChronoDateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
