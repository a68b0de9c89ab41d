use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "notification_settings")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub player_id: Uuid,
    pub address: Option<String>,
    /// The address lower-cased, for a reset by address.
    pub address_key: Option<String>,
    pub confirmed_at: Option<ChronoDateTimeUtc>,
    /// `immediately`, `daily_digest` or `off`.
    pub your_turn: String,
    pub quiet_minutes: i32,
    pub digest_hour: i32,
    pub time_zone: String,
    pub invitations: bool,
    pub match_started: bool,
    pub match_finished: bool,
    pub deadline_reminders: bool,
    pub updated_at: ChronoDateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
