use sea_orm::entity::prelude::*;

/// A match's chat, as a log: a message, or the notice that one was deleted.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "match_messages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub match_id: Uuid,
    /// The row's place in the match's chat, from 1.
    #[sea_orm(primary_key, auto_increment = false)]
    pub seq: i64,
    /// `message` or `deleted` (a notice naming `target_seq`).
    pub kind: String,
    /// The writer of a message; whoever deleted, for a notice.
    pub author_id: Uuid,
    /// The text; none once deleted (and for a notice).
    pub text: Option<String>,
    pub target_seq: Option<i64>,
    /// The match's last event id when the row was written (0: none yet).
    pub after_event: i64,
    pub created_at: ChronoDateTimeUtc,
    pub deleted_at: Option<ChronoDateTimeUtc>,
    pub deleted_by: Option<Uuid>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
