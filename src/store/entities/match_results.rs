use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "match_results")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub match_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub seat: i32,
    pub player_id: Option<Uuid>,
    pub score: i64,
    pub rank: i32,
    pub role: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
