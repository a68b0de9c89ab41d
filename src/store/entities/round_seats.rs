use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "round_seats")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub match_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub round: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub seat: i32,
    pub player_id: Option<Uuid>,
    pub card: Option<String>,
    pub kind: Option<String>,
    pub stake: Option<i64>,
    pub choice: Option<String>,
    pub success: Option<bool>,
    pub delta: i64,
    pub drew: i32,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
