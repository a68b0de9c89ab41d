use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhooks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub player_id: Uuid,
    pub url: String,
    /// Space-separated event kinds, or `*`.
    pub events: String,
    /// Kept as is (not hashed): every delivery is signed with it.
    pub secret: String,
    pub created_at: ChronoDateTimeUtc,
    /// Fan-out's position in the player's events: (transaction, event id).
    pub cursor_tx: i64,
    pub cursor_id: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
