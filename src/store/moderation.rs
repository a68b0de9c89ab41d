//! Queries of moderation: roles, disabled accounts, the audit log.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel, QueryFilter, QueryOrder,
    QuerySelect,
};
use uuid::Uuid;

use super::entities::{audit_log, credentials};

/// Sets a player's role; answers whether the player exists.
pub async fn set_role(db: &impl ConnectionTrait, id: Uuid, role: &str) -> Result<bool, DbErr> {
    let done = credentials::Entity::update_many()
        .col_expr(credentials::Column::Role, Expr::value(role))
        .filter(credentials::Column::Id.eq(id))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

/// Disables (`Some(at)`) or enables (`None`) an account.
pub async fn set_disabled(
    db: &impl ConnectionTrait,
    id: Uuid,
    at: Option<DateTime<Utc>>,
    reason: Option<&str>,
) -> Result<bool, DbErr> {
    let done = credentials::Entity::update_many()
        .col_expr(credentials::Column::DisabledAt, Expr::value(at))
        .col_expr(
            credentials::Column::DisabledReason,
            Expr::value(reason.map(str::to_owned)),
        )
        .filter(credentials::Column::Id.eq(id))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

pub async fn insert_audit(db: &impl ConnectionTrait, row: audit_log::Model) -> Result<(), DbErr> {
    audit_log::Entity::insert(row.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// A page of the audit log, newest first (ids are UUIDv7).
pub async fn list_audit(
    db: &impl ConnectionTrait,
    before: Option<Uuid>,
    limit: u64,
) -> Result<Vec<audit_log::Model>, DbErr> {
    let mut q = audit_log::Entity::find();
    if let Some(before) = before {
        q = q.filter(audit_log::Column::Id.lt(before));
    }
    q.order_by_desc(audit_log::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

/// Records one moderation action (in the caller's transaction).
pub async fn audit(
    db: &impl ConnectionTrait,
    now: chrono::DateTime<chrono::Utc>,
    actor: &str,
    action: &str,
    target: &str,
    reason: Option<String>,
) -> Result<(), DbErr> {
    insert_audit(
        db,
        audit_log::Model {
            id: uuid::Uuid::now_v7(),
            at: now,
            actor: actor.to_owned(),
            action: action.to_owned(),
            target: target.to_owned(),
            reason,
        },
    )
    .await
}
