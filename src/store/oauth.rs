//! Queries of OAuth 2 authorization codes.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel, QueryFilter};
use uuid::Uuid;

use super::entities::oauth_codes;

/// Stores a new code, and sweeps the codes that expired before `stale_before`
/// (kept a while after their expiry, so that a late replay still revokes the
/// token its code became).
pub async fn insert_code(
    db: &impl ConnectionTrait,
    code: oauth_codes::Model,
    stale_before: DateTime<Utc>,
) -> Result<(), DbErr> {
    oauth_codes::Entity::delete_many()
        .filter(oauth_codes::Column::ExpiresAt.lt(stale_before))
        .exec(db)
        .await?;
    oauth_codes::Entity::insert(code.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn code_by_hash(
    db: &impl ConnectionTrait,
    hash: &str,
) -> Result<Option<oauth_codes::Model>, DbErr> {
    oauth_codes::Entity::find_by_id(hash.to_owned())
        .one(db)
        .await
}

/// Marks the code as exchanged for `token`, if nobody exchanged it first:
/// answers whether this call did (the one statement that makes a code single-use
/// under concurrent requests).
pub async fn claim_code(db: &impl ConnectionTrait, hash: &str, token: Uuid) -> Result<bool, DbErr> {
    let done = oauth_codes::Entity::update_many()
        .col_expr(oauth_codes::Column::TokenId, Expr::value(token))
        .filter(oauth_codes::Column::CodeHash.eq(hash))
        .filter(oauth_codes::Column::TokenId.is_null())
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}
