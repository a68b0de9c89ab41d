use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "rounds")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub match_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub round: i32,
    pub step: i64,
    pub value: Option<i64>,
    pub outcome: String,
    pub total_a: Option<i64>,
    pub total_b: Option<i64>,
    pub lead_seat: Option<i32>,
    /// What the round was about, as the game names it (`city:brno`).
    pub subject: Option<String>,
    pub created_at: ChronoDateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
