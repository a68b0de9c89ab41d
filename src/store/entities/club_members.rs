use sea_orm::entity::prelude::*;

/// A player's standing in a club: a member, or a request or invitation still
/// waiting for its answer.
#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "club_members")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub club_id: Uuid,
    #[sea_orm(primary_key, auto_increment = false)]
    pub player_id: Uuid,
    /// `member`, `requested` or `invited`.
    pub status: String,
    /// `owner`, `admin` or `member` (what a member becomes, for the others).
    pub role: String,
    pub invited_by: Option<Uuid>,
    pub created_at: ChronoDateTimeUtc,
    pub joined_at: Option<ChronoDateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
