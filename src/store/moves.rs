//! Moves, events and the history written as rounds resolve.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, IntoActiveModel, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect,
};

use uuid::Uuid;

use super::batch::Batch;
use super::entities::{events, ledger, match_results, moves, round_seats, rounds};

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
        .one(db)
        .await
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

pub async fn insert_move(db: &impl ConnectionTrait, m: moves::ActiveModel) -> Result<(), DbErr> {
    moves::Entity::insert(m)
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// Marks the stored moves of a match public: at a reveal, all but those private
/// until the end; when the match ends, all.
pub async fn reveal_moves(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    match_over: bool,
) -> Result<(), DbErr> {
    let mut q = moves::Entity::update_many()
        .col_expr(moves::Column::Revealed, Expr::value(true))
        .filter(moves::Column::MatchId.eq(match_id))
        .filter(moves::Column::Revealed.eq(false));
    if !match_over {
        q = q.filter(moves::Column::PrivateUntilEnd.eq(false));
    }
    q.exec(db).await.map(|_| ())
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

pub async fn count_moves(db: &impl ConnectionTrait, match_id: Uuid) -> Result<u64, DbErr> {
    moves::Entity::find()
        .filter(moves::Column::MatchId.eq(match_id))
        .count(db)
        .await
}

// ---------------------------------------------------------------- events

pub async fn insert_events(
    db: &impl ConnectionTrait,
    rows: Vec<events::ActiveModel>,
) -> Result<(), DbErr> {
    if rows.is_empty() {
        return Ok(());
    }
    events::Entity::insert_many(rows)
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// Events one audience may see: public ones, plus those of `seat` when given.
pub async fn events_of(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    seat: Option<i32>,
    everything: bool,
    after_id: Option<i64>,
    limit: u64,
) -> Result<Vec<events::Model>, DbErr> {
    let mut q = events::Entity::find().filter(events::Column::MatchId.eq(match_id));
    if !everything {
        q = match seat {
            Some(s) => q.filter(
                events::Column::AudienceSeat
                    .is_null()
                    .or(events::Column::AudienceSeat.eq(s)),
            ),
            None => q.filter(events::Column::AudienceSeat.is_null()),
        };
    }
    if let Some(a) = after_id {
        q = q.filter(events::Column::Id.gt(a));
    }
    q.order_by_asc(events::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

// ---------------------------------------------------------------- history

pub struct RoundRows {
    pub round: rounds::Model,
    pub seats: Vec<round_seats::Model>,
    pub ledger: Vec<ledger::Model>,
}

/// Queues the inserts of a round's rows.
pub fn queue_round(batch: &mut Batch, rows: RoundRows, backend: DbBackend) {
    batch.push(
        &rounds::Entity::insert(rows.round.into_active_model()),
        backend,
    );
    if !rows.seats.is_empty() {
        batch.push(
            &round_seats::Entity::insert_many(
                rows.seats.into_iter().map(|s| s.into_active_model()),
            ),
            backend,
        );
    }
    if !rows.ledger.is_empty() {
        batch.push(
            &ledger::Entity::insert_many(rows.ledger.into_iter().map(|l| {
                let mut a = l.into_active_model();
                a.id = sea_orm::ActiveValue::NotSet;
                a
            })),
            backend,
        );
    }
}

/// Queues the reveal of a match's stored moves (see `reveal_moves`).
pub fn queue_reveal_moves(batch: &mut Batch, match_id: Uuid, backend: DbBackend) {
    batch.push(
        &moves::Entity::update_many()
            .col_expr(moves::Column::Revealed, Expr::value(true))
            .filter(moves::Column::MatchId.eq(match_id))
            .filter(moves::Column::Revealed.eq(false))
            .filter(moves::Column::PrivateUntilEnd.eq(false)),
        backend,
    );
}

pub async fn insert_round(db: &impl ConnectionTrait, rows: RoundRows) -> Result<(), DbErr> {
    rounds::Entity::insert(rows.round.into_active_model())
        .exec_without_returning(db)
        .await?;
    if !rows.seats.is_empty() {
        round_seats::Entity::insert_many(rows.seats.into_iter().map(|s| s.into_active_model()))
            .exec_without_returning(db)
            .await?;
    }
    if !rows.ledger.is_empty() {
        ledger::Entity::insert_many(rows.ledger.into_iter().map(|l| {
            let mut a = l.into_active_model();
            a.id = sea_orm::ActiveValue::NotSet;
            a
        }))
        .exec_without_returning(db)
        .await?;
    }
    Ok(())
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

pub async fn insert_results(
    db: &impl ConnectionTrait,
    rows: Vec<match_results::Model>,
) -> Result<(), DbErr> {
    if rows.is_empty() {
        return Ok(());
    }
    match_results::Entity::insert_many(rows.into_iter().map(|r| r.into_active_model()))
        .exec_without_returning(db)
        .await
        .map(|_| ())
}
