//! Queries of authentication: credentials by id or name, password changes, API tokens.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use super::entities::{api_tokens, credentials};

/// One primary-key lookup: what the extractor checks a JWT against.
pub async fn credentials_by_id(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<credentials::Model>, DbErr> {
    credentials::Entity::find_by_id(id).one(db).await
}

pub async fn credentials_by_name(
    db: &impl ConnectionTrait,
    name: &str,
) -> Result<Option<credentials::Model>, DbErr> {
    credentials::Entity::find()
        .filter(credentials::Column::NameKey.eq(name.to_lowercase()))
        .one(db)
        .await
}

/// Replaces the password hash and raises the version, only if the version is
/// still the one the caller checked the old password under (a concurrent change
/// wins, this one answers false).
pub async fn change_password(
    db: &impl ConnectionTrait,
    id: Uuid,
    expected_version: i64,
    hash: &str,
) -> Result<bool, DbErr> {
    let done = credentials::Entity::update_many()
        .col_expr(credentials::Column::PasswordHash, Expr::value(hash))
        .col_expr(
            credentials::Column::PasswordVersion,
            Expr::col(credentials::Column::PasswordVersion).add(1),
        )
        .filter(credentials::Column::Id.eq(id))
        .filter(credentials::Column::PasswordVersion.eq(expected_version))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

pub async fn insert_api_token(
    db: &impl ConnectionTrait,
    token: api_tokens::Model,
) -> Result<(), DbErr> {
    api_tokens::Entity::insert(token.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// One unique-index lookup joined to its owner's primary key: what the extractor
/// checks an API token against.
pub async fn api_token_by_hash(
    db: &impl ConnectionTrait,
    hash: &str,
) -> Result<Option<(api_tokens::Model, Option<credentials::Model>)>, DbErr> {
    api_tokens::Entity::find()
        .filter(api_tokens::Column::TokenHash.eq(hash))
        .find_also_related(credentials::Entity)
        .one(db)
        .await
}

pub async fn api_token_by_id(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<api_tokens::Model>, DbErr> {
    api_tokens::Entity::find_by_id(id).one(db).await
}

/// A player's tokens that are neither revoked nor expired at `now`.
pub async fn count_live_api_tokens(
    db: &impl ConnectionTrait,
    player: Uuid,
    now: DateTime<Utc>,
) -> Result<u64, DbErr> {
    api_tokens::Entity::find()
        .filter(api_tokens::Column::PlayerId.eq(player))
        .filter(api_tokens::Column::RevokedAt.is_null())
        .filter(
            api_tokens::Column::ExpiresAt
                .is_null()
                .or(api_tokens::Column::ExpiresAt.gt(now)),
        )
        .count(db)
        .await
}

/// A page of a player's tokens, newest first (ids are UUIDv7).
pub async fn list_api_tokens(
    db: &impl ConnectionTrait,
    player: Uuid,
    before: Option<Uuid>,
    limit: u64,
) -> Result<Vec<api_tokens::Model>, DbErr> {
    let mut q = api_tokens::Entity::find().filter(api_tokens::Column::PlayerId.eq(player));
    if let Some(before) = before {
        q = q.filter(api_tokens::Column::Id.lt(before));
    }
    q.order_by_desc(api_tokens::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

/// Revokes one of the player's tokens (a revoked one keeps its first revocation
/// time); answers whether the player has a token with that id.
pub async fn revoke_api_token(
    db: &impl ConnectionTrait,
    player: Uuid,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    let found = api_tokens::Entity::find_by_id(id)
        .filter(api_tokens::Column::PlayerId.eq(player))
        .one(db)
        .await?;
    if found.is_none() {
        return Ok(false);
    }
    api_tokens::Entity::update_many()
        .col_expr(api_tokens::Column::RevokedAt, Expr::value(now))
        .filter(api_tokens::Column::Id.eq(id))
        .filter(api_tokens::Column::RevokedAt.is_null())
        .exec(db)
        .await?;
    Ok(true)
}

/// Revokes every token of the player not yet revoked.
pub async fn revoke_all_api_tokens(
    db: &impl ConnectionTrait,
    player: Uuid,
    now: DateTime<Utc>,
) -> Result<u64, DbErr> {
    api_tokens::Entity::update_many()
        .col_expr(api_tokens::Column::RevokedAt, Expr::value(now))
        .filter(api_tokens::Column::PlayerId.eq(player))
        .filter(api_tokens::Column::RevokedAt.is_null())
        .exec(db)
        .await
        .map(|r| r.rows_affected)
}

/// Records a use of the token, unless one was recorded since `stale_before`.
pub async fn touch_api_token(
    db: &impl ConnectionTrait,
    id: Uuid,
    now: DateTime<Utc>,
    stale_before: DateTime<Utc>,
) -> Result<(), DbErr> {
    api_tokens::Entity::update_many()
        .col_expr(api_tokens::Column::LastUsedAt, Expr::value(now))
        .filter(api_tokens::Column::Id.eq(id))
        .filter(
            api_tokens::Column::LastUsedAt
                .is_null()
                .or(api_tokens::Column::LastUsedAt.lt(stale_before)),
        )
        .exec(db)
        .await
        .map(|_| ())
}

/// The account's row, locked for the rest of the transaction (Postgres; SQLite's
/// write transaction already serialises writers): what an account holds open is
/// counted and added to under this lock, so two requests through any replicas
/// take turns and a cap is never passed by a race.
pub async fn lock_credentials(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<credentials::Model>, DbErr> {
    let mut q = credentials::Entity::find_by_id(id);
    if db.get_database_backend() == sea_orm::DbBackend::Postgres {
        q = q.lock_exclusive();
    }
    q.one(db).await
}

/// Revokes the token whose secret hashes to `hash`, if it is live; answers its
/// id and owner when this call revoked it.
pub async fn revoke_api_token_by_hash(
    db: &impl ConnectionTrait,
    hash: &str,
    now: DateTime<Utc>,
) -> Result<Option<(Uuid, Uuid)>, DbErr> {
    let Some(row) = api_tokens::Entity::find()
        .filter(api_tokens::Column::TokenHash.eq(hash))
        .filter(api_tokens::Column::RevokedAt.is_null())
        .one(db)
        .await?
    else {
        return Ok(None);
    };
    let done = api_tokens::Entity::update_many()
        .col_expr(api_tokens::Column::RevokedAt, Expr::value(now))
        .filter(api_tokens::Column::Id.eq(row.id))
        .filter(api_tokens::Column::RevokedAt.is_null())
        .exec(db)
        .await?;
    Ok((done.rows_affected == 1).then_some((row.id, row.player_id)))
}
