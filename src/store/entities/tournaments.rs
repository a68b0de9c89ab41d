use sea_orm::entity::prelude::*;

/// A tournament: its format, the options its matches are created with, and
/// how far it got.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "tournaments")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub name: String,
    pub game: String,
    /// `round_robin` or `swiss`.
    pub format: String,
    /// Seats at each table (2 for pairings).
    pub table_size: i32,
    /// The rounds planned (a round robin's are known at its start).
    pub rounds: i32,
    /// The options every match is created with, as a JSON object.
    pub options: String,
    pub owner_id: Uuid,
    /// `registering`, `running`, `finished` or `cancelled`.
    pub status: String,
    /// The round being played (0 before the first).
    pub current_round: i32,
    pub starts_at: Option<ChronoDateTimeUtc>,
    /// Seconds from a round's start before the next may start (none: at once).
    pub round_interval: Option<i32>,
    pub round_started_at: Option<ChronoDateTimeUtc>,
    pub max_players: i32,
    pub created_at: ChronoDateTimeUtc,
    pub started_at: Option<ChronoDateTimeUtc>,
    pub finished_at: Option<ChronoDateTimeUtc>,
    pub updated_at: ChronoDateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
