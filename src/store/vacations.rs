//! Players' vacations, and the seats whose clocks they stop.

use chrono::{DateTime, Utc};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbErr, EntityTrait, IntoActiveModel, QueryFilter, QueryOrder,
    QuerySelect, sea_query::Expr,
};
use uuid::Uuid;

use crate::store::entities::{match_seats, matches, vacations};

/// The player's vacations that end after `since`, latest first.
pub async fn since(
    db: &impl ConnectionTrait,
    player: Uuid,
    since: DateTime<Utc>,
) -> Result<Vec<vacations::Model>, DbErr> {
    vacations::Entity::find()
        .filter(vacations::Column::PlayerId.eq(player))
        .filter(vacations::Column::EndsAt.gt(since))
        .order_by_desc(vacations::Column::StartsAt)
        .all(db)
        .await
}

pub async fn insert(db: &impl ConnectionTrait, v: vacations::Model) -> Result<(), DbErr> {
    vacations::Entity::insert(v.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// Cuts vacation `id` short at `at`.
pub async fn end_at(db: &impl ConnectionTrait, id: Uuid, at: DateTime<Utc>) -> Result<(), DbErr> {
    vacations::Entity::update_many()
        .col_expr(vacations::Column::EndsAt, Expr::value(at))
        .filter(vacations::Column::Id.eq(id))
        .exec(db)
        .await
        .map(|_| ())
}

/// The waiting and active matches in which `player` holds a seat.
pub async fn open_matches_of(db: &impl ConnectionTrait, player: Uuid) -> Result<Vec<Uuid>, DbErr> {
    let seated = match_seats::Entity::find()
        .select_only()
        .column(match_seats::Column::MatchId)
        .filter(match_seats::Column::PlayerId.eq(player))
        .into_tuple::<Uuid>()
        .all(db)
        .await?;
    if seated.is_empty() {
        return Ok(Vec::new());
    }
    matches::Entity::find()
        .select_only()
        .column(matches::Column::Id)
        .filter(matches::Column::Id.is_in(seated))
        .filter(matches::Column::Status.is_in(["waiting", "active"]))
        .into_tuple::<Uuid>()
        .all(db)
        .await
}

/// The player's vacation under way at `now`, if any.
pub async fn current(
    db: &impl ConnectionTrait,
    player: Uuid,
    now: DateTime<Utc>,
) -> Result<Option<vacations::Model>, DbErr> {
    Ok(since(db, player, now)
        .await?
        .into_iter()
        .find(|v| v.starts_at <= now))
}
