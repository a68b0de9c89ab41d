use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "matches")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub game: String,
    pub status: String,
    pub seat_count: i32,
    pub owner_id: Option<Uuid>,
    pub options: String,
    pub position: Option<String>,
    pub rated: bool,
    pub seed: Vec<u8>,
    pub seed_sha256: String,
    pub state: Option<String>,
    pub step: i64,
    pub version: i64,
    pub engine_version: String,
    pub data_sha256: String,
    pub created_at: ChronoDateTimeUtc,
    pub started_at: Option<ChronoDateTimeUtc>,
    pub finished_at: Option<ChronoDateTimeUtc>,
    pub updated_at: ChronoDateTimeUtc,
    pub variant: String,
    /// The earliest deadline of any seat owing a move (what the poller looks for).
    pub deadline_at: Option<ChronoDateTimeUtc>,
    /// Seconds a seat has for each move; None: no limit.
    pub move_time_limit: Option<i32>,
    /// Seconds an absent seat has before its stand-in bot moves.
    pub absent_move_time_limit: Option<i32>,
    /// `bot` or `forfeit`, when `move_time_limit` is set.
    pub timeout_policy: Option<String>,
    /// When the current step began: every owing seat's deadline counts from it.
    pub step_started_at: Option<ChronoDateTimeUtc>,
    /// `public` (listed), `unlisted` (not listed; anyone with its id may look) or
    /// `private` (only its owner, seats and invitees know it exists).
    pub visibility: String,
    /// Whether people without a seat may watch it while it is played.
    pub spectators: bool,
    /// The code that lets a player join an unlisted or private match (its owner
    /// hands it out); none for a public one.
    pub join_code: Option<String>,
    /// The finished match this one replays with the same players and options.
    pub rematch_of: Option<Uuid>,
    /// Who may write in its chat: `players`, `everyone` (signed-in spectators
    /// too) or `off`.
    pub chat: String,
    /// The club whose match this is: only its members take seats.
    pub club_id: Option<Uuid>,
    /// The bank time control: seconds each seat's bank starts with; None when
    /// the match has no bank (then `move_time_limit`, if any, rules).
    pub bank_initial_seconds: Option<i32>,
    /// Seconds added to a seat's bank after each of its moves.
    pub bank_increment_seconds: Option<i32>,
    /// The most a seat's bank may hold, in seconds.
    pub bank_cap_seconds: Option<i32>,
    /// The time zone (IANA name) of the bank's playing hours; None when the
    /// banks run at any hour.
    pub playing_hours_zone: Option<String>,
    /// Minutes after local midnight the playing hours begin.
    pub playing_hours_from: Option<i32>,
    /// Minutes after local midnight they end (at or before `from`: the next
    /// day).
    pub playing_hours_to: Option<i32>,
    /// How many grace extensions each seat gets before the timeout policy
    /// applies; None for none.
    pub grace_extensions: Option<i32>,
    /// How long each grace extension is, in seconds.
    pub grace_seconds: Option<i32>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
