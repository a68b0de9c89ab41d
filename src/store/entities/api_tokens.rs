use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "api_tokens")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub player_id: Uuid,
    pub name: String,
    /// Hex SHA-256 of the whole token; the secret itself is never stored.
    pub token_hash: String,
    /// Space-separated scopes: `play read`.
    pub scopes: String,
    pub created_at: ChronoDateTimeUtc,
    pub expires_at: Option<ChronoDateTimeUtc>,
    pub last_used_at: Option<ChronoDateTimeUtc>,
    pub revoked_at: Option<ChronoDateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::credentials::Entity",
        from = "Column::PlayerId",
        to = "super::credentials::Column::Id"
    )]
    Owner,
}

impl Related<super::credentials::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Owner.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
