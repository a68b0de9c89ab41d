use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "match_seats")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub match_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub seat: i32,
    pub player_id: Uuid,
    pub joined_at: ChronoDateTimeUtc,
    /// The bot kind when a bot holds the seat (its player is a bot account).
    pub bot: Option<String>,
    /// `present`, `absent` (a bot stands in after a timeout) or `forfeited`.
    pub presence: String,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
