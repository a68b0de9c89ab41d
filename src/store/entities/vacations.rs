use sea_orm::entity::prelude::*;

/// A player's vacation: its clocks stand from `starts_at` to `ends_at`.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "vacations")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub player_id: Uuid,
    pub starts_at: ChronoDateTimeUtc,
    /// When it ends, or ended: a player who comes back early cuts it there.
    pub ends_at: ChronoDateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
