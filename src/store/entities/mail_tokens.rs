use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "mail_tokens")]
pub struct Model {
    /// Hex SHA-256 of the token: the token itself is never stored.
    #[sea_orm(primary_key, auto_increment = false)]
    pub hash: String,
    pub id: Uuid,
    pub player_id: Uuid,
    /// `confirm_email` or `password_reset`.
    pub purpose: String,
    pub address: Option<String>,
    pub created_at: ChronoDateTimeUtc,
    pub expires_at: ChronoDateTimeUtc,
    pub used_at: Option<ChronoDateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
