use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "webhook_deliveries")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub webhook_id: Uuid,
    pub event_id: i64,
    /// The match of the event delivered (the delivery belongs to its webhook).
    #[sea_orm(column_name = "event_match_id")]
    pub match_id: Uuid,
    pub kind: String,
    /// The JSON body, fixed when the delivery was made.
    pub payload: String,
    /// `pending`, `delivered` or `failed`.
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: ChronoDateTimeUtc,
    /// A worker's lease: until then nobody else takes the row.
    pub claimed_until: Option<ChronoDateTimeUtc>,
    pub claim: Option<Uuid>,
    pub created_at: ChronoDateTimeUtc,
    pub delivered_at: Option<ChronoDateTimeUtc>,
    pub last_status_code: Option<i32>,
    pub last_error: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
