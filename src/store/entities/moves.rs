use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "moves")]
pub struct Model {
    #[sea_orm(primary_key)]
    pub id: i64,
    pub match_id: Uuid,
    pub step: i64,
    pub seat: i32,
    pub player_id: Option<Uuid>,
    pub action: String,
    pub public_action: Option<String>,
    pub revealed: bool,
    pub completes_step: bool,
    pub version_after: i64,
    pub created_at: ChronoDateTimeUtc,
    pub idempotency_key: Option<String>,
    pub private_until_end: bool,
    /// None when the seat's player moved; `bot:<kind>` or `null` otherwise.
    pub author: Option<String>,
    /// 32 random bytes in hex, drawn when the move was accepted; published with
    /// the move at its reveal. None for moves stored before receipts.
    pub nonce: Option<String>,
    /// Hex SHA-256 over the move's match, step, seat, action and nonce
    /// (`service::commitment`), shown to everybody from the start.
    pub commitment: Option<String>,
    /// The seat replaced this sealed move with another before the step's
    /// reveal; kept for the history and its commitment, never replayed.
    pub replaced: bool,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
