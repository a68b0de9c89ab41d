use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "ratings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub game: String,
    #[sea_orm(primary_key, auto_increment = false)]
    pub player_id: Uuid,
    pub mu: f64,
    pub sigma: f64,
    pub rating: f64,
    pub games: i32,
    pub wins: i32,
    pub updated_at: ChronoDateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
