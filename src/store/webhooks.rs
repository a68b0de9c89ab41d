//! Queries of webhooks: subscriptions, the outbox of deliveries and their log.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, QueryTrait,
};
use uuid::Uuid;

use super::entities::{match_seats, webhook_attempts, webhook_deliveries, webhooks};

pub async fn insert_webhook(db: &impl ConnectionTrait, w: webhooks::Model) -> Result<(), DbErr> {
    webhooks::Entity::insert(w.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn count_webhooks(db: &impl ConnectionTrait, player: Uuid) -> Result<u64, DbErr> {
    webhooks::Entity::find()
        .filter(webhooks::Column::PlayerId.eq(player))
        .count(db)
        .await
}

/// A page of a player's webhooks, newest first (ids are UUIDv7).
pub async fn list_webhooks(
    db: &impl ConnectionTrait,
    player: Uuid,
    before: Option<Uuid>,
    limit: u64,
) -> Result<Vec<webhooks::Model>, DbErr> {
    let mut q = webhooks::Entity::find().filter(webhooks::Column::PlayerId.eq(player));
    if let Some(before) = before {
        q = q.filter(webhooks::Column::Id.lt(before));
    }
    q.order_by_desc(webhooks::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

/// One of the player's webhooks; None for somebody else's, as for a missing one.
pub async fn webhook_of(
    db: &impl ConnectionTrait,
    player: Uuid,
    id: Uuid,
) -> Result<Option<webhooks::Model>, DbErr> {
    webhooks::Entity::find_by_id(id)
        .filter(webhooks::Column::PlayerId.eq(player))
        .one(db)
        .await
}

pub async fn webhooks_by_ids(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
) -> Result<Vec<webhooks::Model>, DbErr> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    webhooks::Entity::find()
        .filter(webhooks::Column::Id.is_in(ids))
        .all(db)
        .await
}

/// Deletes one of the player's webhooks with its deliveries and their log;
/// answers whether there was one.
pub async fn delete_webhook(
    db: &impl ConnectionTrait,
    player: Uuid,
    id: Uuid,
) -> Result<bool, DbErr> {
    let done = webhooks::Entity::delete_many()
        .filter(webhooks::Column::Id.eq(id))
        .filter(webhooks::Column::PlayerId.eq(player))
        .exec(db)
        .await?;
    Ok(done.rows_affected > 0)
}

/// Every webhook after `after` in id order, a batch at a time: what fan-out walks.
pub async fn webhooks_after(
    db: &impl ConnectionTrait,
    after: Option<Uuid>,
    limit: u64,
) -> Result<Vec<webhooks::Model>, DbErr> {
    let mut q = webhooks::Entity::find();
    if let Some(after) = after {
        q = q.filter(webhooks::Column::Id.gt(after));
    }
    q.order_by_asc(webhooks::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

/// The webhooks of every player seated in these matches: whom a change of
/// those matches can concern.
pub async fn webhooks_of_matches(
    db: &impl ConnectionTrait,
    matches: Vec<Uuid>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<Vec<webhooks::Model>, DbErr> {
    if matches.is_empty() {
        return Ok(Vec::new());
    }
    let seated = match_seats::Entity::find()
        .select_only()
        .column(match_seats::Column::PlayerId)
        .filter(match_seats::Column::MatchId.is_in(matches.clone()))
        .into_query();
    webhooks::Entity::find()
        .filter(webhooks::Column::PlayerId.in_subquery(seated).or(
            webhooks::Column::PlayerId.in_subquery(super::community::invited_players(matches, now)),
        ))
        .order_by_asc(webhooks::Column::Id)
        .all(db)
        .await
}

/// Adds deliveries; one that exists for the same (webhook, event) is kept as it
/// is, so fan-out may run twice over an event and still deliver it once.
pub async fn insert_deliveries(
    db: &impl ConnectionTrait,
    rows: Vec<webhook_deliveries::Model>,
) -> Result<(), DbErr> {
    if rows.is_empty() {
        return Ok(());
    }
    webhook_deliveries::Entity::insert_many(
        rows.into_iter().map(IntoActiveModel::into_active_model),
    )
    .on_conflict(
        OnConflict::columns([
            webhook_deliveries::Column::WebhookId,
            webhook_deliveries::Column::EventId,
        ])
        .do_nothing()
        .to_owned(),
    )
    .exec_without_returning(db)
    .await
    .map(|_| ())
}

/// Moves a webhook's fan-out cursor from `from` to `to`, only if it still is at
/// `from` (another replica may have moved it meanwhile); answers whether it did.
pub async fn advance_webhook_cursor(
    db: &impl ConnectionTrait,
    id: Uuid,
    from: (i64, i64),
    to: (i64, i64),
) -> Result<bool, DbErr> {
    let done = webhooks::Entity::update_many()
        .col_expr(webhooks::Column::CursorTx, Expr::value(to.0))
        .col_expr(webhooks::Column::CursorId, Expr::value(to.1))
        .filter(webhooks::Column::Id.eq(id))
        .filter(webhooks::Column::CursorTx.eq(from.0))
        .filter(webhooks::Column::CursorId.eq(from.1))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

fn due(now: DateTime<Utc>) -> sea_orm::Condition {
    sea_orm::Condition::all()
        .add(webhook_deliveries::Column::Status.eq("pending"))
        .add(webhook_deliveries::Column::NextAttemptAt.lte(now))
        .add(
            sea_orm::Condition::any()
                .add(webhook_deliveries::Column::ClaimedUntil.is_null())
                .add(webhook_deliveries::Column::ClaimedUntil.lt(now)),
        )
}

/// Whether any delivery is due (a plain read, so idle polls take no lock).
pub async fn any_delivery_due(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
) -> Result<bool, DbErr> {
    Ok(webhook_deliveries::Entity::find()
        .select_only()
        .column(webhook_deliveries::Column::Id)
        .filter(due(now))
        .limit(1)
        .into_tuple::<Uuid>()
        .one(db)
        .await?
        .is_some())
}

/// Due deliveries, locked for this worker alone (`FOR UPDATE SKIP LOCKED` on
/// Postgres; on SQLite the IMMEDIATE transaction excludes everybody else). The
/// caller leases them in the same transaction.
pub async fn lock_due_deliveries(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
    limit: u64,
) -> Result<Vec<webhook_deliveries::Model>, DbErr> {
    let q = webhook_deliveries::Entity::find()
        .filter(due(now))
        .order_by_asc(webhook_deliveries::Column::NextAttemptAt)
        .limit(limit);
    super::skipping_locked(q, db.get_database_backend())
        .all(db)
        .await
}

/// Leases deliveries to `claim` until `until`: if the worker dies, the lease runs
/// out and another takes them.
pub async fn lease_deliveries(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
    claim: Uuid,
    until: DateTime<Utc>,
) -> Result<(), DbErr> {
    if ids.is_empty() {
        return Ok(());
    }
    webhook_deliveries::Entity::update_many()
        .col_expr(webhook_deliveries::Column::ClaimedUntil, Expr::value(until))
        .col_expr(webhook_deliveries::Column::Claim, Expr::value(claim))
        .filter(webhook_deliveries::Column::Id.is_in(ids))
        .exec(db)
        .await
        .map(|_| ())
}

/// What an attempt changes in its delivery.
#[derive(Clone)]
pub struct DeliveryOutcome {
    pub status: &'static str,
    pub next_attempt_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub status_code: Option<i32>,
    pub error: Option<String>,
}

/// Records an attempt's outcome and frees the row, only while `claim` still
/// holds it (a lease that ran out belongs to somebody else); answers whether it did.
pub async fn finish_delivery(
    db: &impl ConnectionTrait,
    id: Uuid,
    claim: Uuid,
    outcome: DeliveryOutcome,
) -> Result<bool, DbErr> {
    let done = webhook_deliveries::Entity::update_many()
        .col_expr(
            webhook_deliveries::Column::Status,
            Expr::value(outcome.status),
        )
        .col_expr(
            webhook_deliveries::Column::Attempts,
            Expr::col(webhook_deliveries::Column::Attempts).add(1),
        )
        .col_expr(
            webhook_deliveries::Column::NextAttemptAt,
            Expr::value(outcome.next_attempt_at),
        )
        .col_expr(
            webhook_deliveries::Column::DeliveredAt,
            Expr::value(outcome.delivered_at),
        )
        .col_expr(
            webhook_deliveries::Column::LastStatusCode,
            Expr::value(outcome.status_code),
        )
        .col_expr(
            webhook_deliveries::Column::LastError,
            Expr::value(outcome.error),
        )
        .col_expr(
            webhook_deliveries::Column::ClaimedUntil,
            Expr::value(Option::<DateTime<Utc>>::None),
        )
        .col_expr(
            webhook_deliveries::Column::Claim,
            Expr::value(Option::<Uuid>::None),
        )
        .filter(webhook_deliveries::Column::Id.eq(id))
        .filter(webhook_deliveries::Column::Claim.eq(claim))
        .exec(db)
        .await?;
    Ok(done.rows_affected == 1)
}

pub async fn insert_attempt(
    db: &impl ConnectionTrait,
    a: webhook_attempts::Model,
) -> Result<(), DbErr> {
    webhook_attempts::Entity::insert(a.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// A page of a webhook's deliveries, newest first (ids are UUIDv7).
pub async fn list_deliveries(
    db: &impl ConnectionTrait,
    webhook: Uuid,
    before: Option<Uuid>,
    limit: u64,
) -> Result<Vec<webhook_deliveries::Model>, DbErr> {
    let mut q = webhook_deliveries::Entity::find()
        .filter(webhook_deliveries::Column::WebhookId.eq(webhook));
    if let Some(before) = before {
        q = q.filter(webhook_deliveries::Column::Id.lt(before));
    }
    q.order_by_desc(webhook_deliveries::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

/// The attempts of these deliveries, in order.
pub async fn attempts_of(
    db: &impl ConnectionTrait,
    deliveries: Vec<Uuid>,
) -> Result<Vec<webhook_attempts::Model>, DbErr> {
    if deliveries.is_empty() {
        return Ok(Vec::new());
    }
    webhook_attempts::Entity::find()
        .filter(webhook_attempts::Column::DeliveryId.is_in(deliveries))
        .order_by_asc(webhook_attempts::Column::DeliveryId)
        .order_by_asc(webhook_attempts::Column::Attempt)
        .all(db)
        .await
}
