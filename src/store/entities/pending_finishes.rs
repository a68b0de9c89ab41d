use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "pending_finishes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub match_id: Uuid,
    pub game: String,
    pub finished_at: ChronoDateTimeUtc,
    /// JSON: `[{"player", "rank", "moves"}]` of every placed seat, or none when
    /// the match moves no rating.
    pub placed: Option<String>,
    pub stats: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
