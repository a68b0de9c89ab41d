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
    /// The seat's bank in milliseconds, as of `asked_at` while it is asked (its
    /// running time is not yet taken off); None when the match has no bank.
    pub bank_ms: Option<i64>,
    /// When the seat was asked for the move it owes or made in the current step.
    pub asked_at: Option<ChronoDateTimeUtc>,
    /// When its standing move of the current step was made (a replacement's
    /// time, if replaced): what the step's resolution charges its bank up to.
    pub moved_at: Option<ChronoDateTimeUtc>,
    /// Time given to the seat for the step `extension_step` (per-move clocks:
    /// a bank takes it into `bank_ms`), in milliseconds: by other seats, or by
    /// a grace extension.
    pub extension_ms: Option<i64>,
    /// The step `extension_ms` counts for; any other step ignores it.
    pub extension_step: Option<i64>,
    /// How many of the match's grace extensions the seat has used.
    pub graces_used: Option<i32>,
    /// The player's latest vacation, copied onto each seat it holds in an
    /// active match: the seat's clock stands from `away_from` to
    /// `away_until` (cut short when the player comes back early).
    pub away_from: Option<ChronoDateTimeUtc>,
    pub away_until: Option<ChronoDateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
