use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "mail_outbox")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub player_id: Uuid,
    pub kind: String,
    /// The match the mail is about, the token's id for a confirmation or a
    /// reset, or the nil UUID.
    pub subject_id: Uuid,
    /// The match's step (a turn, a reminder), the day of a digest, or 0.
    pub step: i64,
    pub address: String,
    /// The token a confirmation or reset link carries, until sent.
    pub secret: Option<String>,
    /// `pending`, `sent`, `skipped` or `failed`.
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: ChronoDateTimeUtc,
    pub claimed_until: Option<ChronoDateTimeUtc>,
    pub claim: Option<Uuid>,
    pub created_at: ChronoDateTimeUtc,
    pub sent_at: Option<ChronoDateTimeUtc>,
    pub last_error: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
