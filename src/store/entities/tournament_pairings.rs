use sea_orm::entity::prelude::*;

/// Where an entrant played one round: a seat at a table (its match), or a bye.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "tournament_pairings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub tournament_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub round: i32,
    #[sea_orm(primary_key, auto_increment = false)]
    pub player_id: Uuid,
    /// The table, from 1; none for a bye.
    pub table_no: Option<i32>,
    pub seat: Option<i32>,
    /// The table's match; none for a bye.
    pub game_match: Option<Uuid>,
    /// The points scored, once the match is over (a bye's at once).
    pub points: Option<f64>,
    /// The placing in the match (1 is best), once over.
    pub rank: Option<i32>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
