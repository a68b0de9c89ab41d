use sea_orm::entity::prelude::*;

/// A club: a named group of players with its own matches and leaderboards.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "clubs")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub name: String,
    /// The name lower-cased: unique, so two clubs never differ by case alone.
    pub name_key: String,
    pub description: String,
    /// `open`, `request` or `invitation`.
    pub join_policy: String,
    pub owner_id: Uuid,
    pub created_at: ChronoDateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
