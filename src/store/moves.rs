//! Moves, events and the history written as rounds resolve.

use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, IntoActiveModel, PaginatorTrait,
    QueryFilter, QueryOrder, QuerySelect,
};

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::batch::Batch;
use super::entities::{events, ledger, match_results, matches, moves, round_seats, rounds};

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

// ---------------------------------------------------------------- the move in one statement

/// An event as the move statement writes it (match and version are the move's).
pub struct EventRow {
    pub audience_seat: Option<i32>,
    pub kind: String,
    pub data: String,
}

/// What happens to a match's row in `match_deadlines` with a move.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum DeadlineWrite {
    /// Unchanged (most moves of a match without time limits).
    Keep,
    Set(DateTime<Utc>),
    Clear,
}

/// A move that neither finishes its match nor changes a seat: the match row after
/// it, the move, the reveal it may cause, its events and round records.
pub struct MoveWrite<'a> {
    /// The version the move was checked against: the write happens only if the
    /// match is still at it.
    pub before_version: i64,
    pub after: &'a matches::Model,
    pub deadline: DeadlineWrite,
    pub mv: &'a moves::Model,
    pub reveal: bool,
    pub events: &'a [EventRow],
    pub rounds: &'a [RoundRows],
}

/// How [`write_move`] ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Written {
    /// Committed.
    Done,
    /// Nothing written: the match was no longer at `before_version`, or a move
    /// with that idempotency key exists. Read under the lock and decide again.
    Stale,
}

/// Writes a move on Postgres as one statement outside any transaction: the
/// inserts of the move, its events and rounds, and the update of the match row,
/// which fails (division by zero, SQLSTATE 22012) unless the match is still at the
/// version the move was checked against, taking every insert with it. One round
/// trip, one commit; no row lock is held while the server works.
///
/// The text of the statement depends only on whether the move resolves rounds and
/// what it does to the deadline, so each connection prepares a handful of them
/// once. Lists (events, round seats, ledger lines) are bound as arrays and
/// unnested, their order kept (`WITH ORDINALITY`), so that event ids follow the
/// order the events were recorded in.
///
/// No part reads another's result: on a distributed Postgres a part that did would
/// be shipped to every worker as an intermediate result, making the move a
/// two-phase commit across them. As it is, every part names the match (`$1`), so
/// the whole statement stays on the one worker that holds it.
pub async fn write_move(db: &DatabaseConnection, w: &MoveWrite<'_>) -> Result<Written, DbErr> {
    use sea_orm::sqlx;
    let shape = 3 * usize::from(!w.rounds.is_empty())
        + match w.deadline {
            DeadlineWrite::Keep => 0,
            DeadlineWrite::Set(_) => 1,
            DeadlineWrite::Clear => 2,
        };
    let m = w.after;
    let mv = w.mv;
    // The texts are made of the constants below only.
    let mut q = sqlx::query(sqlx::AssertSqlSafe(MOVE_STATEMENTS[shape].as_str()))
        .bind(m.id)
        .bind(w.before_version)
        .bind(m.version)
        .bind(m.step)
        .bind(m.state.as_deref())
        .bind(m.updated_at)
        .bind(m.step_started_at)
        .bind(m.deadline_at)
        .bind(mv.step)
        .bind(mv.seat)
        .bind(mv.player_id)
        .bind(&mv.action)
        .bind(mv.public_action.as_deref())
        .bind(mv.revealed)
        .bind(mv.completes_step)
        .bind(mv.idempotency_key.as_deref())
        .bind(mv.private_until_end)
        .bind(mv.author.as_deref())
        .bind(w.reveal)
        .bind(w.events.iter().map(|e| e.audience_seat).collect::<Vec<_>>())
        .bind(w.events.iter().map(|e| e.kind.as_str()).collect::<Vec<_>>())
        .bind(w.events.iter().map(|e| e.data.as_str()).collect::<Vec<_>>());
    if !w.rounds.is_empty() {
        let rounds = || w.rounds.iter().map(|r| &r.round);
        let seats = || w.rounds.iter().flat_map(|r| r.seats.iter());
        let ledger = || w.rounds.iter().flat_map(|r| r.ledger.iter());
        q = q
            .bind(rounds().map(|r| r.round).collect::<Vec<_>>())
            .bind(rounds().map(|r| r.step).collect::<Vec<_>>())
            .bind(rounds().map(|r| r.value).collect::<Vec<_>>())
            .bind(rounds().map(|r| r.outcome.as_str()).collect::<Vec<_>>())
            .bind(rounds().map(|r| r.total_a).collect::<Vec<_>>())
            .bind(rounds().map(|r| r.total_b).collect::<Vec<_>>())
            .bind(rounds().map(|r| r.lead_seat).collect::<Vec<_>>())
            .bind(rounds().map(|r| r.subject.as_deref()).collect::<Vec<_>>())
            .bind(seats().map(|s| s.round).collect::<Vec<_>>())
            .bind(seats().map(|s| s.seat).collect::<Vec<_>>())
            .bind(seats().map(|s| s.player_id).collect::<Vec<_>>())
            .bind(seats().map(|s| s.card.as_deref()).collect::<Vec<_>>())
            .bind(seats().map(|s| s.kind.as_deref()).collect::<Vec<_>>())
            .bind(seats().map(|s| s.stake).collect::<Vec<_>>())
            .bind(seats().map(|s| s.choice.as_deref()).collect::<Vec<_>>())
            .bind(seats().map(|s| s.success).collect::<Vec<_>>())
            .bind(seats().map(|s| s.delta).collect::<Vec<_>>())
            .bind(seats().map(|s| s.drew).collect::<Vec<_>>())
            .bind(ledger().map(|l| l.round).collect::<Vec<_>>())
            .bind(ledger().map(|l| l.seat).collect::<Vec<_>>())
            .bind(ledger().map(|l| l.amount).collect::<Vec<_>>())
            .bind(ledger().map(|l| l.reason.as_str()).collect::<Vec<_>>());
    }
    if let DeadlineWrite::Set(at) = w.deadline {
        q = q.bind(at);
    }
    q = q.bind(mv.nonce.as_deref()).bind(mv.commitment.as_deref());
    let pool = db.get_postgres_connection_pool();
    match q.execute(pool).await {
        Ok(done) if done.rows_affected() == 1 => Ok(Written::Done),
        Ok(_) => Ok(Written::Stale),
        Err(sqlx::Error::Database(e))
            // 22012: the match moved past the version (the guard's division by
            // zero); 23505: a unique index refused the move (its idempotency key
            // was used before, or a concurrent writer stored the seat's move).
            if matches!(e.code().as_deref(), Some("22012" | "23505")) =>
        {
            Ok(Written::Stale)
        }
        Err(e) => Err(DbErr::Exec(sea_orm::RuntimeErr::SqlxError(Arc::new(e)))),
    }
}

/// The six texts of [`write_move`]'s statement: (no rounds, rounds) × (deadline
/// kept, set, cleared).
static MOVE_STATEMENTS: std::sync::LazyLock<[String; 6]> = std::sync::LazyLock::new(|| {
    let set = DeadlineWrite::Set(DateTime::<Utc>::MIN_UTC);
    [
        move_statement(false, DeadlineWrite::Keep),
        move_statement(false, set),
        move_statement(false, DeadlineWrite::Clear),
        move_statement(true, DeadlineWrite::Keep),
        move_statement(true, set),
        move_statement(true, DeadlineWrite::Clear),
    ]
});

/// The text of [`write_move`]'s statement for one shape of move.
fn move_statement(rounds: bool, deadline: DeadlineWrite) -> String {
    // The move's nonce and commitment are bound last, after the lists and the
    // deadline, whose numbers depend on the shape.
    let nonce =
        (if rounds { 45 } else { 23 }) + usize::from(matches!(deadline, DeadlineWrite::Set(_)));
    let commitment = nonce + 1;
    let mut sql = format!(
        "WITH mv AS (\
           INSERT INTO moves (match_id, step, seat, player_id, action, public_action, revealed, \
             completes_step, version_after, created_at, idempotency_key, private_until_end, author, \
             nonce, commitment) \
           VALUES ($1, $9, $10, $11, $12, $13, $14, $15, $3, $6, $16, $17, $18, ${nonce}, ${commitment})), \
         rv AS (\
           UPDATE moves SET revealed = true \
           WHERE match_id = $1 AND $19 AND NOT revealed AND NOT private_until_end), \
         ev AS (\
           INSERT INTO events (match_id, version, audience_seat, kind, data, created_at) \
           SELECT $1, $3, e.a, e.k, e.d, $6 \
           FROM unnest($20::int4[], $21::text[], $22::text[]) WITH ORDINALITY AS e(a, k, d, o) \
           ORDER BY e.o)",
    );
    let mut next = 23;
    if rounds {
        sql.push_str(
            ", rd AS (\
               INSERT INTO rounds (match_id, round, step, value, outcome, total_a, total_b, \
                 lead_seat, subject, created_at) \
               SELECT $1, r.round, r.step, r.value, r.outcome, r.a, r.b, r.lead, r.subject, $6 \
               FROM unnest($23::int4[], $24::int8[], $25::int8[], $26::text[], $27::int8[], \
                 $28::int8[], $29::int4[], $30::text[]) \
                 AS r(round, step, value, outcome, a, b, lead, subject)), \
             rs AS (\
               INSERT INTO round_seats (match_id, round, seat, player_id, card, kind, stake, \
                 choice, success, delta, drew) \
               SELECT $1, s.* FROM unnest($31::int4[], $32::int4[], $33::uuid[], $34::text[], \
                 $35::text[], $36::int8[], $37::text[], $38::bool[], $39::int8[], $40::int4[]) \
                 AS s(round, seat, player, card, kind, stake, choice, success, delta, drew)), \
             lg AS (\
               INSERT INTO ledger (match_id, round, seat, amount, reason) \
               SELECT $1, l.round, l.seat, l.amount, l.reason \
               FROM unnest($41::int4[], $42::int4[], $43::int8[], $44::text[]) \
                 WITH ORDINALITY AS l(round, seat, amount, reason, o) \
               ORDER BY l.o)",
        );
        next = 45;
    }
    match deadline {
        DeadlineWrite::Keep => {}
        DeadlineWrite::Set(_) => sql.push_str(&format!(
            ", dl AS (\
               INSERT INTO match_deadlines (match_id, due_at) VALUES ($1, ${next}) \
               ON CONFLICT (match_id) DO UPDATE SET due_at = excluded.due_at)"
        )),
        DeadlineWrite::Clear => {
            sql.push_str(", dl AS (DELETE FROM match_deadlines WHERE match_id = $1)")
        }
    }
    // The guard: unless the row is still at version $2, 1 / 0 fails the statement.
    sql.push_str(
        " UPDATE matches SET version = $3 + 0 * (1 / (CASE WHEN version = $2 THEN 1 ELSE 0 END)), \
           step = $4, state = $5, updated_at = $6, step_started_at = $7, deadline_at = $8 \
         WHERE id = $1",
    );
    sql
}
