//! The `players` columns authentication reads and writes, as an entity of their
//! own: `players::Model` is built wherever an account is created (registration,
//! bot seats, simulations), and the password version is nobody's business there;
//! the column's default (0) fills it on insert.

use sea_orm::entity::prelude::*;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
#[sea_orm(table_name = "players")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub name: String,
    pub name_key: String,
    pub password_hash: String,
    pub is_bot: bool,
    /// How many times the password was changed; JWTs carry it as `pwv`.
    pub password_version: i64,
    /// `player` or `admin` (see docs/community.md, "Moderation").
    pub role: String,
    /// Set while an admin has disabled the account: every credential is refused.
    pub disabled_at: Option<ChronoDateTimeUtc>,
    pub disabled_reason: Option<String>,
    /// Set once the player deleted the account (see docs/community.md).
    pub deleted_at: Option<ChronoDateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
