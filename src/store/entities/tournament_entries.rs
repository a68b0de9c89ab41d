use sea_orm::entity::prelude::*;

/// A player (or a bot account) entered in a tournament.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "tournament_entries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub tournament_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub player_id: Uuid,
    /// Entry order from 1: the last tie-break, and a round robin's schedule.
    pub seq: i32,
    /// The bot kind that plays this entrant, if a bot.
    pub bot: Option<String>,
    pub joined_at: ChronoDateTimeUtc,
    pub withdrawn_at: Option<ChronoDateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
