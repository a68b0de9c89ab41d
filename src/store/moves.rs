//! Moves, events and the history written as rounds resolve.

use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, IntoActiveModel, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use super::batch::Batch;
use super::entities::{
    events, ledger, match_checkpoints, match_results, moves, round_seats, rounds,
};
use super::move_write::{NewEvent, RoundRows, insert_events_statement};

// ---------------------------------------------------------------- moves

pub async fn move_at(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    step: i64,
    seat: i32,
) -> Result<Option<moves::Model>, DbErr> {
    moves::Entity::find()
        .filter(moves::Column::MatchId.eq(match_id))
        .filter(moves::Column::Step.eq(step))
        .filter(moves::Column::Seat.eq(seat))
        .filter(moves::Column::Replaced.eq(false))
        .one(db)
        .await
}

/// Every move of a match that stands (none replaced), in the order played: what
/// a replay of the match applies.
pub async fn standing_moves(
    db: &impl ConnectionTrait,
    match_id: Uuid,
) -> Result<Vec<moves::Model>, DbErr> {
    moves::Entity::find()
        .filter(moves::Column::MatchId.eq(match_id))
        .filter(moves::Column::Replaced.eq(false))
        .order_by_asc(moves::Column::Id)
        .all(db)
        .await
}

/// The standing moves of steps `from` to `to` (not included), in order.
pub async fn standing_moves_between(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    from: i64,
    to: i64,
) -> Result<Vec<moves::Model>, DbErr> {
    moves::Entity::find()
        .filter(moves::Column::MatchId.eq(match_id))
        .filter(moves::Column::Replaced.eq(false))
        .filter(moves::Column::Step.gte(from))
        .filter(moves::Column::Step.lt(to))
        .order_by_asc(moves::Column::Id)
        .all(db)
        .await
}

// ---------------------------------------------------------------- kept positions

/// The kept position of a match nearest below or at `step`: its step and state
/// text.
pub async fn checkpoint_at_or_before(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    step: i64,
) -> Result<Option<(i64, String)>, DbErr> {
    Ok(match_checkpoints::Entity::find()
        .filter(match_checkpoints::Column::MatchId.eq(match_id))
        .filter(match_checkpoints::Column::Step.lte(step))
        .order_by_desc(match_checkpoints::Column::Step)
        .one(db)
        .await?
        .map(|c| (c.step, c.state)))
}

/// Keeps positions of a match (`(step, state text)`); one kept already (by
/// another reader meanwhile) stays as it is, as it holds the same state.
pub async fn keep_checkpoints(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    kept: Vec<(i64, String)>,
) -> Result<(), DbErr> {
    if kept.is_empty() {
        return Ok(());
    }
    match_checkpoints::Entity::insert_many(kept.into_iter().map(|(step, state)| {
        match_checkpoints::Model {
            match_id,
            step,
            state,
        }
        .into_active_model()
    }))
    .on_conflict(
        OnConflict::columns([
            match_checkpoints::Column::MatchId,
            match_checkpoints::Column::Step,
        ])
        .do_nothing()
        .to_owned(),
    )
    .exec_without_returning(db)
    .await
    .map(|_| ())
}

/// Marks a sealed move replaced by its seat (before the other's insert: the
/// one-move-per-seat-and-step index covers only moves that stand).
pub async fn mark_replaced(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    id: i64,
) -> Result<(), DbErr> {
    moves::Entity::update_many()
        .col_expr(moves::Column::Replaced, Expr::value(true))
        .filter(moves::Column::MatchId.eq(match_id))
        .filter(moves::Column::Id.eq(id))
        .exec(db)
        .await
        .map(|_| ())
}

pub async fn move_by_key(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    player_id: Uuid,
    key: &str,
) -> Result<Option<moves::Model>, DbErr> {
    moves::Entity::find()
        .filter(moves::Column::MatchId.eq(match_id))
        .filter(moves::Column::PlayerId.eq(player_id))
        .filter(moves::Column::IdempotencyKey.eq(key))
        .one(db)
        .await
}

pub async fn moves_of(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    after_id: Option<i64>,
    limit: u64,
) -> Result<Vec<moves::Model>, DbErr> {
    let mut q = moves::Entity::find().filter(moves::Column::MatchId.eq(match_id));
    if let Some(a) = after_id {
        q = q.filter(moves::Column::Id.gt(a));
    }
    q.order_by_asc(moves::Column::Id).limit(limit).all(db).await
}

// ---------------------------------------------------------------- events

/// Stores events in the order given (their ids follow it).
pub async fn insert_events(db: &impl ConnectionTrait, rows: &[NewEvent]) -> Result<(), DbErr> {
    match insert_events_statement(rows, db.get_database_backend())? {
        Some(st) => db.execute_raw(st).await.map(|_| ()),
        None => Ok(()),
    }
}

/// Which events of a match a query reads: the public ones, and those addressed
/// to `seat` (the visibility policy decides which a viewer may have).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventScope {
    pub seat: Option<i32>,
}

/// The events of a match in `scope`, in order.
pub async fn events_of(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    scope: EventScope,
    after_id: Option<i64>,
    limit: u64,
) -> Result<Vec<events::Model>, DbErr> {
    let mut q = events::Entity::find().filter(events::Column::MatchId.eq(match_id));
    q = match scope.seat {
        Some(s) => q.filter(
            events::Column::AudienceSeat
                .is_null()
                .or(events::Column::AudienceSeat.eq(s)),
        ),
        None => q.filter(events::Column::AudienceSeat.is_null()),
    };
    if let Some(a) = after_id {
        q = q.filter(events::Column::Id.gt(a));
    }
    q.order_by_asc(events::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

// ---------------------------------------------------------------- history

/// A finished match's placings.
pub fn queue_results(batch: &mut Batch, rows: Vec<match_results::Model>, backend: DbBackend) {
    if rows.is_empty() {
        return;
    }
    batch.push(
        &match_results::Entity::insert_many(rows.into_iter().map(|r| r.into_active_model())),
        backend,
    );
}

/// Marks the stored moves of a match public: at a reveal, all but those
/// private until the end; when the match is over, all.
pub fn queue_reveal_moves(batch: &mut Batch, match_id: Uuid, match_over: bool, backend: DbBackend) {
    let mut q = moves::Entity::update_many()
        .col_expr(moves::Column::Revealed, Expr::value(true))
        .filter(moves::Column::MatchId.eq(match_id))
        .filter(moves::Column::Revealed.eq(false));
    if !match_over {
        q = q.filter(moves::Column::PrivateUntilEnd.eq(false));
    }
    batch.push(&q, backend);
}

pub async fn rounds_of(db: &impl ConnectionTrait, match_id: Uuid) -> Result<Vec<RoundRows>, DbErr> {
    let rounds = rounds::Entity::find()
        .filter(rounds::Column::MatchId.eq(match_id))
        .order_by_asc(rounds::Column::Round)
        .all(db)
        .await?;
    let seats = round_seats::Entity::find()
        .filter(round_seats::Column::MatchId.eq(match_id))
        .order_by_asc(round_seats::Column::Round)
        .order_by_asc(round_seats::Column::Seat)
        .all(db)
        .await?;
    let ledger = ledger::Entity::find()
        .filter(ledger::Column::MatchId.eq(match_id))
        .order_by_asc(ledger::Column::Id)
        .all(db)
        .await?;
    Ok(rounds
        .into_iter()
        .map(|round| RoundRows {
            seats: seats
                .iter()
                .filter(|s| s.round == round.round)
                .cloned()
                .collect(),
            ledger: ledger
                .iter()
                .filter(|l| l.round == round.round)
                .cloned()
                .collect(),
            round,
        })
        .collect())
}
