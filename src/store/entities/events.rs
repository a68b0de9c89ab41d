use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "events")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub match_id: Uuid,
    pub version: i64,
    pub audience_seat: Option<i32>,
    pub kind: String,
    pub data: String,
    pub created_at: ChronoDateTimeUtc,
    /// The writing transaction's id on Postgres (0 on SQLite): see the migration.
    pub tx: i64,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
