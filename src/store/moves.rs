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

pub async fn insert_move(db: &impl ConnectionTrait, m: moves::ActiveModel) -> Result<(), DbErr> {
    moves::Entity::insert(m)
        .exec_without_returning(db)
        .await
        .map(|_| ())
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

/// How the move statement writes its lists (events, rounds, round seats, ledger
/// lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveLists {
    /// Arrays bound once each and unnested: six statement texts in all, each
    /// prepared once per connection. Plain Postgres.
    Arrays,
    /// Multi-row `VALUES`, one parameter a field: the text follows the lists'
    /// lengths. Citus, where an `INSERT … SELECT … FROM unnest(…)` is planned
    /// through the coordinator and makes every move a two-phase commit.
    Values,
}

/// Writes a move on Postgres as one statement outside any transaction: the
/// inserts of the move, its events and rounds, and the update of the match row,
/// which fails (division by zero, SQLSTATE 22012) unless the match is still at the
/// version the move was checked against, taking every insert with it. One round
/// trip, one commit; no row lock is held while the server works.
///
/// No part reads another's result, and every part names the match (`$1`), so on
/// a distributed Postgres the whole statement stays on the one worker that holds
/// it (docs/decisions.md, "A move is one statement").
pub async fn write_move(
    db: &DatabaseConnection,
    w: &MoveWrite<'_>,
    lists: MoveLists,
) -> Result<Written, DbErr> {
    match lists {
        MoveLists::Arrays => write_move_arrays(db, w).await,
        MoveLists::Values => write_move_values(db, w).await,
    }
}

/// Binds parameters 1–19 of either form of the move statement: the match row
/// after the move, the version it was checked against, the move and its reveal.
fn bind_row<'q>(
    q: sea_orm::sqlx::query::Query<
        'q,
        sea_orm::sqlx::Postgres,
        sea_orm::sqlx::postgres::PgArguments,
    >,
    w: &'q MoveWrite<'_>,
) -> sea_orm::sqlx::query::Query<'q, sea_orm::sqlx::Postgres, sea_orm::sqlx::postgres::PgArguments>
{
    let (m, mv) = (w.after, w.mv);
    q.bind(m.id)
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
}

/// What a unique index or the version guard refusing the move means: somebody
/// else wrote first.
fn written(
    result: Result<sea_orm::sqlx::postgres::PgQueryResult, sea_orm::sqlx::Error>,
) -> Result<Written, DbErr> {
    use sea_orm::sqlx;
    match result {
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

/// [`write_move`] with [`MoveLists::Values`]. Lists (events, rounds, round
/// seats, ledger lines) are written as multi-row
/// `VALUES`, one parameter a field, in the order they were recorded (so event ids
/// follow it). So the text depends on the lists' lengths; a match plays a few
/// shapes again and again, and each connection prepares each shape once.
///
/// Why `VALUES` and not arrays bound once and unnested: on Citus an
/// `INSERT … SELECT … FROM unnest(…)` is planned through the coordinator and
/// written over a connection of its own, which turned every move into a
/// two-phase commit (measured: one prepared transaction a move). With `VALUES`
/// and no part reading another's result, every part names the match (`$1`) and
/// the whole statement is one single-shard transaction on the worker that holds
/// it (docs/decisions.md, "A move is one statement").
async fn write_move_values(db: &DatabaseConnection, w: &MoveWrite<'_>) -> Result<Written, DbErr> {
    use sea_orm::sqlx;
    let shape = Shape::of(w);
    let mv = w.mv;
    let mut q = bind_row(sqlx::query(sqlx::AssertSqlSafe(move_statement(&shape))), w)
        .bind(mv.nonce.as_deref())
        .bind(mv.commitment.as_deref());
    // From here on, in the order `move_statement` numbers them.
    if let DeadlineWrite::Set(at) = w.deadline {
        q = q.bind(at);
    }
    for e in w.events {
        q = q
            .bind(e.audience_seat)
            .bind(e.kind.as_str())
            .bind(e.data.as_str());
    }
    for r in w.rounds.iter().map(|r| &r.round) {
        q = q
            .bind(r.round)
            .bind(r.step)
            .bind(r.value)
            .bind(r.outcome.as_str())
            .bind(r.total_a)
            .bind(r.total_b)
            .bind(r.lead_seat)
            .bind(r.subject.as_deref());
    }
    for s in w.rounds.iter().flat_map(|r| r.seats.iter()) {
        q = q
            .bind(s.round)
            .bind(s.seat)
            .bind(s.player_id)
            .bind(s.card.as_deref())
            .bind(s.kind.as_deref())
            .bind(s.stake)
            .bind(s.choice.as_deref())
            .bind(s.success)
            .bind(s.delta)
            .bind(s.drew);
    }
    for l in w.rounds.iter().flat_map(|r| r.ledger.iter()) {
        q = q
            .bind(l.round)
            .bind(l.seat)
            .bind(l.amount)
            .bind(l.reason.as_str());
    }
    written(q.execute(db.get_postgres_connection_pool()).await)
}

/// [`write_move`] with [`MoveLists::Arrays`]: lists bound as arrays and
/// unnested, their order kept (`WITH ORDINALITY`) so that event ids follow the
/// order the events were recorded in.
async fn write_move_arrays(db: &DatabaseConnection, w: &MoveWrite<'_>) -> Result<Written, DbErr> {
    use sea_orm::sqlx;
    let shape = 3 * usize::from(!w.rounds.is_empty())
        + match w.deadline {
            DeadlineWrite::Keep => 0,
            DeadlineWrite::Set(_) => 1,
            DeadlineWrite::Clear => 2,
        };
    let mv = w.mv;
    // The texts are made of the constants below only.
    let mut q = bind_row(
        sqlx::query(sqlx::AssertSqlSafe(ARRAY_STATEMENTS[shape].as_str())),
        w,
    )
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
    written(q.execute(db.get_postgres_connection_pool()).await)
}

/// The six texts of [`write_move_arrays`]'s statement: (no rounds, rounds) × (deadline
/// kept, set, cleared).
static ARRAY_STATEMENTS: std::sync::LazyLock<[String; 6]> = std::sync::LazyLock::new(|| {
    let set = DeadlineWrite::Set(DateTime::<Utc>::MIN_UTC);
    [
        array_statement(false, DeadlineWrite::Keep),
        array_statement(false, set),
        array_statement(false, DeadlineWrite::Clear),
        array_statement(true, DeadlineWrite::Keep),
        array_statement(true, set),
        array_statement(true, DeadlineWrite::Clear),
    ]
});

/// The text of [`write_move_arrays`]'s statement for one shape of move.
fn array_statement(rounds: bool, deadline: DeadlineWrite) -> String {
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

/// What the text of [`write_move_values`]'s statement depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Shape {
    events: usize,
    rounds: usize,
    seats: usize,
    ledger: usize,
    /// 0 keep, 1 set, 2 clear.
    deadline: u8,
}

impl Shape {
    fn of(w: &MoveWrite<'_>) -> Shape {
        Shape {
            events: w.events.len(),
            rounds: w.rounds.len(),
            seats: w.rounds.iter().map(|r| r.seats.len()).sum(),
            ledger: w.rounds.iter().map(|r| r.ledger.len()).sum(),
            deadline: match w.deadline {
                DeadlineWrite::Keep => 0,
                DeadlineWrite::Set(_) => 1,
                DeadlineWrite::Clear => 2,
            },
        }
    }
}

/// Appends `rows` rows of `($1, <fixed...>, $n, $n+1, …)` with `fields` fresh
/// parameters each, numbered on from `*last`.
fn push_rows(
    sql: &mut String,
    rows: usize,
    lead: &str,
    fields: usize,
    trail: &str,
    last: &mut usize,
) {
    use std::fmt::Write;
    for r in 0..rows {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        sql.push_str(lead);
        for _ in 0..fields {
            *last += 1;
            let _ = write!(sql, ", ${last}");
        }
        sql.push_str(trail);
        sql.push(')');
    }
}

/// The text of [`write_move_values`]'s statement for one shape of move. Parameters
/// 1–21 are the match row and the move; then the deadline (when set), then each
/// event, round, round seat and ledger line in turn.
fn move_statement(s: &Shape) -> String {
    let mut sql = String::with_capacity(1024 + 64 * (s.events + s.rounds + s.seats + s.ledger));
    sql.push_str(
        "WITH mv AS (\
           INSERT INTO moves (match_id, step, seat, player_id, action, public_action, revealed, \
             completes_step, version_after, created_at, idempotency_key, private_until_end, author, \
             nonce, commitment) \
           VALUES ($1, $9, $10, $11, $12, $13, $14, $15, $3, $6, $16, $17, $18, $20, $21)), \
         rv AS (\
           UPDATE moves SET revealed = true \
           WHERE match_id = $1 AND $19 AND NOT revealed AND NOT private_until_end)",
    );
    let mut last = 21;
    match s.deadline {
        1 => {
            last += 1;
            sql.push_str(&format!(
                ", dl AS (\
                   INSERT INTO match_deadlines (match_id, due_at) VALUES ($1, ${last}) \
                   ON CONFLICT (match_id) DO UPDATE SET due_at = excluded.due_at)"
            ));
        }
        2 => sql.push_str(", dl AS (DELETE FROM match_deadlines WHERE match_id = $1)"),
        _ => {}
    }
    if s.events > 0 {
        sql.push_str(
            ", ev AS (INSERT INTO events (match_id, version, audience_seat, kind, data, created_at) VALUES ",
        );
        push_rows(&mut sql, s.events, "$1, $3", 3, ", $6", &mut last);
        sql.push(')');
    }
    if s.rounds > 0 {
        sql.push_str(
            ", rd AS (INSERT INTO rounds (match_id, round, step, value, outcome, total_a, total_b, \
               lead_seat, subject, created_at) VALUES ",
        );
        push_rows(&mut sql, s.rounds, "$1", 8, ", $6", &mut last);
        sql.push(')');
    }
    if s.seats > 0 {
        sql.push_str(
            ", rs AS (INSERT INTO round_seats (match_id, round, seat, player_id, card, kind, stake, \
               choice, success, delta, drew) VALUES ",
        );
        push_rows(&mut sql, s.seats, "$1", 10, "", &mut last);
        sql.push(')');
    }
    if s.ledger > 0 {
        sql.push_str(", lg AS (INSERT INTO ledger (match_id, round, seat, amount, reason) VALUES ");
        push_rows(&mut sql, s.ledger, "$1", 4, "", &mut last);
        sql.push(')');
    }
    // The guard: unless the row is still at version $2, 1 / 0 fails the statement.
    sql.push_str(
        " UPDATE matches SET version = $3 + 0 * (1 / (CASE WHEN version = $2 THEN 1 ELSE 0 END)), \
           step = $4, state = $5, updated_at = $6, step_started_at = $7, deadline_at = $8 \
         WHERE id = $1",
    );
    sql
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every parameter the binds supply is used once in the text, numbered
    /// without a gap, whatever the shape.
    #[test]
    fn the_statement_numbers_every_bound_field() {
        for deadline in 0..3u8 {
            for (events, rounds, seats, ledger) in
                [(0, 0, 0, 0), (1, 0, 0, 0), (4, 1, 3, 0), (2, 2, 8, 5)]
            {
                let s = Shape {
                    events,
                    rounds,
                    seats,
                    ledger,
                    deadline,
                };
                let sql = move_statement(&s);
                let binds = 21
                    + usize::from(deadline == 1)
                    + 3 * events
                    + 8 * rounds
                    + 10 * seats
                    + 4 * ledger;
                let mut used: Vec<usize> = sql
                    .split('$')
                    .skip(1)
                    .map(|t| {
                        t.chars()
                            .take_while(char::is_ascii_digit)
                            .collect::<String>()
                    })
                    .map(|n| n.parse().expect("a parameter number"))
                    .collect();
                used.sort_unstable();
                used.dedup();
                assert_eq!(used, (1..=binds).collect::<Vec<_>>(), "{s:?}");
                assert!(!sql.contains("unnest"), "{s:?}");
            }
        }
    }
}
