use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "ledger")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub match_id: Uuid,
    pub round: i32,
    pub seat: i32,
    pub amount: i64,
    pub reason: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
