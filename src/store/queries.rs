use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait, OnConflict};
use sea_orm::{
    ActiveModelTrait, ActiveValue::Set, ColumnTrait, ConnectionTrait, DatabaseConnection,
    DbBackend, DbErr, EntityTrait, IntoActiveModel, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, QueryTrait, Statement,
};
use std::sync::LazyLock;

use sea_orm::{FromQueryResult, IdenStatic, Iterable};
use uuid::Uuid;

use super::entities::{
    events, game_data, ledger, match_results, match_seats, matches, moves, players, rating_history,
    ratings, round_seats, rounds, server_settings, stream_tickets,
};

// ---------------------------------------------------------------- players

pub async fn insert_player(db: &impl ConnectionTrait, player: players::Model) -> Result<(), DbErr> {
    players::Entity::insert(player.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn player_by_name(
    db: &impl ConnectionTrait,
    name: &str,
) -> Result<Option<players::Model>, DbErr> {
    players::Entity::find()
        .filter(players::Column::NameKey.eq(name.to_lowercase()))
        .one(db)
        .await
}

pub async fn player_by_id(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<players::Model>, DbErr> {
    players::Entity::find_by_id(id).one(db).await
}

pub async fn players_by_ids(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
) -> Result<Vec<players::Model>, DbErr> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    players::Entity::find()
        .filter(players::Column::Id.is_in(ids))
        .all(db)
        .await
}

// ---------------------------------------------------------------- matches

pub async fn insert_match(db: &impl ConnectionTrait, m: matches::Model) -> Result<(), DbErr> {
    matches::Entity::insert(m.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn match_by_id(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<matches::Model>, DbErr> {
    matches::Entity::find_by_id(id).one(db).await
}

/// A match's status alone: what a match stream needs at each wake-up, without
/// the state column that makes up most of the row.
pub async fn match_status(db: &impl ConnectionTrait, id: Uuid) -> Result<Option<String>, DbErr> {
    matches::Entity::find_by_id(id)
        .select_only()
        .column(matches::Column::Status)
        .into_tuple::<String>()
        .one(db)
        .await
}

/// Reads a match for update. Postgres takes a row lock; SQLite needs none because
/// the caller's transaction began IMMEDIATE and so already holds the write lock.
pub async fn lock_match(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<matches::Model>, DbErr> {
    let q = matches::Entity::find_by_id(id);
    if db.get_database_backend() == DbBackend::Postgres {
        q.lock_exclusive().one(db).await
    } else {
        q.one(db).await
    }
}

/// Reads a match for update together with its seats (in seat order), in one
/// round trip. On Postgres the seat rows are locked too: a locked row is re-read
/// at its latest version once the lock is granted, so the seats cannot be those
/// of a snapshot older than the match row (which a join locking the match alone
/// would give after waiting for the lock). Seats change only under the match's
/// lock, so nobody else waits on those. `None` when the match does not exist
/// or has no seats (then use `lock_match` and `seats_of`).
pub async fn lock_match_with_seats(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<(matches::Model, Vec<match_seats::Model>)>, DbErr> {
    let sql = match db.get_database_backend() {
        DbBackend::Postgres => &*LOCK_MATCH_WITH_SEATS_PG,
        _ => &*MATCH_WITH_SEATS_SQLITE,
    };
    match_and_seats(db, id, sql).await
}

/// A match and its seats (in seat order) as of one statement; `None` when the
/// match does not exist or has no seats (then use `match_by_id` and `seats_of`).
pub async fn match_with_seats(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<(matches::Model, Vec<match_seats::Model>)>, DbErr> {
    let sql = match db.get_database_backend() {
        DbBackend::Postgres => &*MATCH_WITH_SEATS_PG,
        _ => &*MATCH_WITH_SEATS_SQLITE,
    };
    match_and_seats(db, id, sql).await
}

async fn match_and_seats(
    db: &impl ConnectionTrait,
    id: Uuid,
    sql: &str,
) -> Result<Option<(matches::Model, Vec<match_seats::Model>)>, DbErr> {
    let backend = db.get_database_backend();
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, [id.into()]))
        .await?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let m = matches::Model::from_query_result(first, "m_")?;
    let seats = rows
        .iter()
        .map(|r| match_seats::Model::from_query_result(r, "s_"))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Some((m, seats)))
}

fn lock_match_with_seats_sql(placeholder: &str, lock: &str) -> String {
    let cols = |table: &str, names: Vec<String>| -> Vec<String> {
        names
            .into_iter()
            .map(|c| format!("{table}.\"{c}\" AS \"{table}_{c}\""))
            .collect()
    };
    let mut all = cols(
        "m",
        matches::Column::iter()
            .map(|c| c.as_str().to_owned())
            .collect(),
    );
    all.extend(cols(
        "s",
        match_seats::Column::iter()
            .map(|c| c.as_str().to_owned())
            .collect(),
    ));
    format!(
        "SELECT {} FROM matches m JOIN match_seats s ON s.match_id = m.id \
         WHERE m.id = {placeholder} ORDER BY s.seat{lock}",
        all.join(", ")
    )
}

static LOCK_MATCH_WITH_SEATS_PG: LazyLock<String> =
    LazyLock::new(|| lock_match_with_seats_sql("$1", " FOR UPDATE"));
static MATCH_WITH_SEATS_PG: LazyLock<String> =
    LazyLock::new(|| lock_match_with_seats_sql("$1", ""));
// SQLite takes no row locks: the caller's IMMEDIATE transaction holds the write lock.
static MATCH_WITH_SEATS_SQLITE: LazyLock<String> =
    LazyLock::new(|| lock_match_with_seats_sql("?", ""));

/// Active matches whose deadline has passed, locked for this replica alone: on
/// Postgres rows another replica holds are skipped (`FOR UPDATE SKIP LOCKED`); on
/// SQLite the IMMEDIATE transaction already excludes everybody else.
pub async fn lock_due_matches(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
    limit: u64,
) -> Result<Vec<matches::Model>, DbErr> {
    let q = matches::Entity::find()
        .filter(matches::Column::Status.eq("active"))
        .filter(matches::Column::DeadlineAt.lte(now))
        .order_by_asc(matches::Column::DeadlineAt)
        .limit(limit);
    if db.get_database_backend() == DbBackend::Postgres {
        q.lock_with_behavior(
            sea_orm::sea_query::LockType::Update,
            sea_orm::sea_query::LockBehavior::SkipLocked,
        )
        .all(db)
        .await
    } else {
        q.all(db).await
    }
}

/// Writes of one transaction that go out together: on Postgres as one statement
/// (all but the last as data-modifying `WITH` parts), on SQLite one after the other
/// (in-process calls: no round trips to save). They must not depend on each
/// other's effects: in one Postgres statement every part sees the rows as they
/// were before it. Events are gathered into one INSERT, last but for a final
/// statement, so that their ids follow the order they were recorded in.
#[derive(Default)]
pub struct Batch {
    statements: Vec<Statement>,
    events: Vec<events::ActiveModel>,
}

impl Batch {
    pub fn push(&mut self, q: &impl QueryTrait, backend: DbBackend) {
        self.statements.push(q.build(backend));
    }

    pub fn push_statement(&mut self, st: Statement) {
        self.statements.push(st);
    }

    pub fn push_events(&mut self, rows: Vec<events::ActiveModel>) {
        self.events.extend(rows);
    }

    pub fn is_empty(&self) -> bool {
        self.statements.is_empty() && self.events.is_empty()
    }

    /// Sends what is queued, then `last` (if any), as one statement on Postgres.
    pub async fn flush(
        &mut self,
        db: &impl ConnectionTrait,
        last: Option<Statement>,
    ) -> Result<(), DbErr> {
        let backend = db.get_database_backend();
        let mut all = std::mem::take(&mut self.statements);
        let events = std::mem::take(&mut self.events);
        if !events.is_empty() {
            all.push(events::Entity::insert_many(events).build(backend));
        }
        all.extend(last);
        if backend == DbBackend::Postgres && all.len() > 1 {
            return db.execute_raw(combine_pg(all)).await.map(|_| ());
        }
        for st in all {
            db.execute_raw(st).await?;
        }
        Ok(())
    }
}

/// `WITH w0 AS (s0), w1 AS (s1), … sN`, with each part's `$n` placeholders moved
/// past those of the parts before it.
fn combine_pg(parts: Vec<Statement>) -> Statement {
    let last = parts.len() - 1;
    let mut sql = String::from("WITH ");
    let mut values: Vec<sea_orm::Value> = Vec::new();
    for (i, part) in parts.into_iter().enumerate() {
        let offset = values.len();
        let text = shift_placeholders(&part.sql, offset);
        if i < last {
            sql.push_str(&format!("w{i} AS ({text}), "));
        } else {
            sql.truncate(sql.len() - 2);
            sql.push(' ');
            sql.push_str(&text);
        }
        if let Some(v) = part.values {
            values.extend(v.0);
        }
    }
    Statement::from_sql_and_values(DbBackend::Postgres, sql, values)
}

/// Adds `offset` to every `$n` placeholder outside quoted identifiers and strings.
fn shift_placeholders(sql: &str, offset: usize) -> String {
    if offset == 0 {
        return sql.to_owned();
    }
    let mut out = String::with_capacity(sql.len() + 16);
    let mut chars = sql.chars().peekable();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                out.push(c);
            }
            None if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) => {
                let mut n = 0usize;
                while let Some(d) = chars.peek().and_then(|d| d.to_digit(10)) {
                    n = n * 10 + d as usize;
                    chars.next();
                }
                out.push_str(&format!("${}", n + offset));
            }
            None => out.push(c),
        }
    }
    out
}

/// The statement that writes back every column of a match row.
pub fn update_match_statement(m: matches::Model, backend: DbBackend) -> Statement {
    let id = m.id;
    let mut active = m.into_active_model().reset_all();
    active.id = sea_orm::ActiveValue::NotSet;
    matches::Entity::update_many()
        .set(active)
        .filter(matches::Column::Id.eq(id))
        .build(backend)
}

/// The statement that inserts a move.
pub fn insert_move_statement(m: moves::ActiveModel, backend: DbBackend) -> Statement {
    moves::Entity::insert(m).build(backend)
}

/// Writes back every column of a match row.
pub async fn update_match(db: &impl ConnectionTrait, m: matches::Model) -> Result<(), DbErr> {
    let mut active = m.into_active_model();
    active = active.reset_all();
    active.update(db).await.map(|_| ())
}

pub async fn delete_match(db: &impl ConnectionTrait, id: Uuid) -> Result<(), DbErr> {
    matches::Entity::delete_by_id(id).exec(db).await.map(|_| ())
}

/// Filters of the match list.
#[derive(Debug, Default, Clone)]
pub struct MatchFilter {
    pub game: Option<String>,
    pub status: Option<String>,
    pub player_id: Option<Uuid>,
    /// Only matches whose id is below this one (ids are UUIDv7: time-ordered).
    pub before: Option<Uuid>,
}

pub async fn list_matches(
    db: &impl ConnectionTrait,
    filter: &MatchFilter,
    limit: u64,
    with_state: bool,
) -> Result<Vec<matches::Model>, DbErr> {
    let mut q = matches::Entity::find();
    if !with_state {
        // The state (and a position) are most of a match row's bytes, and a page
        // of summaries needs neither: without them a page of 50 finished matches
        // reads a few kilobytes instead of megabytes of JSON.
        q = q
            .select_only()
            .columns(
                matches::Column::iter()
                    .filter(|c| !matches!(c, matches::Column::State | matches::Column::Position)),
            )
            .column_as(Expr::cust("CAST(NULL AS TEXT)"), "state")
            .column_as(Expr::cust("CAST(NULL AS TEXT)"), "position");
    }
    if let Some(g) = &filter.game {
        q = q.filter(matches::Column::Game.eq(g.clone()));
    }
    if let Some(s) = &filter.status {
        q = q.filter(matches::Column::Status.eq(s.clone()));
    }
    if let Some(before) = filter.before {
        q = q.filter(matches::Column::Id.lt(before));
    }
    if let Some(p) = filter.player_id {
        let seated = match_seats::Entity::find()
            .select_only()
            .column(match_seats::Column::MatchId)
            .filter(match_seats::Column::PlayerId.eq(p))
            .into_query();
        q = q.filter(matches::Column::Id.in_subquery(seated));
    }
    q.order_by_desc(matches::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

/// How many matches there are in each status.
pub async fn count_matches_by_status(
    db: &impl ConnectionTrait,
) -> Result<Vec<(String, i64)>, DbErr> {
    matches::Entity::find()
        .select_only()
        .column(matches::Column::Status)
        .column_as(matches::Column::Id.count(), "n")
        .group_by(matches::Column::Status)
        .into_tuple::<(String, i64)>()
        .all(db)
        .await
}

// ---------------------------------------------------------------- seats

pub async fn seats_of(
    db: &impl ConnectionTrait,
    match_id: Uuid,
) -> Result<Vec<match_seats::Model>, DbErr> {
    match_seats::Entity::find()
        .filter(match_seats::Column::MatchId.eq(match_id))
        .order_by_asc(match_seats::Column::Seat)
        .all(db)
        .await
}

pub async fn seats_of_matches(
    db: &impl ConnectionTrait,
    match_ids: Vec<Uuid>,
) -> Result<Vec<match_seats::Model>, DbErr> {
    if match_ids.is_empty() {
        return Ok(Vec::new());
    }
    match_seats::Entity::find()
        .filter(match_seats::Column::MatchId.is_in(match_ids))
        .order_by_asc(match_seats::Column::Seat)
        .all(db)
        .await
}

pub async fn insert_seat(db: &impl ConnectionTrait, seat: match_seats::Model) -> Result<(), DbErr> {
    match_seats::Entity::insert(seat.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn delete_seat(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    seat: i32,
) -> Result<(), DbErr> {
    match_seats::Entity::delete_many()
        .filter(match_seats::Column::MatchId.eq(match_id))
        .filter(match_seats::Column::Seat.eq(seat))
        .exec(db)
        .await
        .map(|_| ())
}

/// Replaces a match's seats (compaction at the start).
pub async fn replace_seats(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    seats: Vec<match_seats::Model>,
) -> Result<(), DbErr> {
    match_seats::Entity::delete_many()
        .filter(match_seats::Column::MatchId.eq(match_id))
        .exec(db)
        .await?;
    if seats.is_empty() {
        return Ok(());
    }
    match_seats::Entity::insert_many(seats.into_iter().map(|s| s.into_active_model()))
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

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

// ---------------------------------------------------------------- component data

/// Stores a data set under its hash; a second store of the same hash is a no-op.
pub async fn ensure_game_data(
    db: &impl ConnectionTrait,
    sha256: &str,
    game: &str,
    files: &str,
    now: DateTime<Utc>,
) -> Result<(), DbErr> {
    let row = game_data::ActiveModel {
        sha256: Set(sha256.to_owned()),
        game: Set(game.to_owned()),
        files: Set(files.to_owned()),
        created_at: Set(now),
    };
    game_data::Entity::insert(row)
        .on_conflict(
            OnConflict::column(game_data::Column::Sha256)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

pub async fn game_data_by_sha(
    db: &impl ConnectionTrait,
    sha256: &str,
) -> Result<Option<game_data::Model>, DbErr> {
    game_data::Entity::find_by_id(sha256.to_owned())
        .one(db)
        .await
}

// ---------------------------------------------------------------- settings

pub async fn setting(db: &impl ConnectionTrait, key: &str) -> Result<Option<String>, DbErr> {
    Ok(server_settings::Entity::find_by_id(key.to_owned())
        .one(db)
        .await?
        .map(|s| s.value))
}

/// Stores a value unless one is already there; answers the stored value.
pub async fn setting_or_insert(
    db: &impl ConnectionTrait,
    key: &str,
    value: &str,
) -> Result<String, DbErr> {
    let row = server_settings::ActiveModel {
        key: Set(key.to_owned()),
        value: Set(value.to_owned()),
    };
    server_settings::Entity::insert(row)
        .on_conflict(
            OnConflict::column(server_settings::Column::Key)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(setting(db, key).await?.unwrap_or_else(|| value.to_owned()))
}

// ---------------------------------------------------------------- ratings

/// The rating rows of these players in one game, created at the default when
/// missing, and locked in ascending player id (so two matches finishing together
/// with the same players queue instead of deadlocking).
pub async fn lock_ratings(
    db: &impl ConnectionTrait,
    game: &str,
    mut players: Vec<Uuid>,
    default: (f64, f64),
    now: DateTime<Utc>,
) -> Result<Vec<ratings::Model>, DbErr> {
    players.sort();
    players.dedup();
    for p in &players {
        let row = ratings::ActiveModel {
            game: Set(game.to_owned()),
            player_id: Set(*p),
            mu: Set(default.0),
            sigma: Set(default.1),
            rating: Set(default.0 - 3.0 * default.1),
            games: Set(0),
            wins: Set(0),
            updated_at: Set(now),
        };
        ratings::Entity::insert(row)
            .on_conflict(
                OnConflict::columns([ratings::Column::Game, ratings::Column::PlayerId])
                    .do_nothing()
                    .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
    }
    let q = ratings::Entity::find()
        .filter(ratings::Column::Game.eq(game))
        .filter(ratings::Column::PlayerId.is_in(players))
        .order_by_asc(ratings::Column::PlayerId);
    if db.get_database_backend() == DbBackend::Postgres {
        q.lock_exclusive().all(db).await
    } else {
        q.all(db).await
    }
}

pub async fn save_rating(db: &impl ConnectionTrait, r: ratings::Model) -> Result<(), DbErr> {
    r.into_active_model()
        .reset_all()
        .update(db)
        .await
        .map(|_| ())
}

pub async fn insert_rating_history(
    db: &impl ConnectionTrait,
    rows: Vec<rating_history::Model>,
) -> Result<(), DbErr> {
    if rows.is_empty() {
        return Ok(());
    }
    rating_history::Entity::insert_many(rows.into_iter().map(|r| {
        let mut a = r.into_active_model();
        a.id = sea_orm::ActiveValue::NotSet;
        a
    }))
    .exec_without_returning(db)
    .await
    .map(|_| ())
}

/// One page of a game's leaderboard, best first (ties by player id).
pub async fn leaderboard(
    db: &impl ConnectionTrait,
    game: &str,
    min_games: i32,
    offset: u64,
    limit: u64,
) -> Result<Vec<ratings::Model>, DbErr> {
    ratings::Entity::find()
        .filter(ratings::Column::Game.eq(game))
        .filter(ratings::Column::Games.gte(min_games))
        .order_by_desc(ratings::Column::Rating)
        .order_by_asc(ratings::Column::PlayerId)
        .offset(offset)
        .limit(limit)
        .all(db)
        .await
}

pub async fn ratings_of(
    db: &impl ConnectionTrait,
    player: Uuid,
) -> Result<Vec<ratings::Model>, DbErr> {
    ratings::Entity::find()
        .filter(ratings::Column::PlayerId.eq(player))
        .order_by_asc(ratings::Column::Game)
        .all(db)
        .await
}

pub async fn rating_history_of(
    db: &impl ConnectionTrait,
    player: Uuid,
    game: Option<&str>,
    after_id: Option<i64>,
    limit: u64,
) -> Result<Vec<rating_history::Model>, DbErr> {
    let mut q = rating_history::Entity::find().filter(rating_history::Column::PlayerId.eq(player));
    if let Some(g) = game {
        q = q.filter(rating_history::Column::Game.eq(g));
    }
    if let Some(a) = after_id {
        q = q.filter(rating_history::Column::Id.gt(a));
    }
    q.order_by_asc(rating_history::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

/// Finished matches of a game in id order (ids are time-ordered), for bulk export.
pub async fn finished_matches(
    db: &impl ConnectionTrait,
    game: Option<&str>,
    since: Option<DateTime<Utc>>,
    until: Option<DateTime<Utc>>,
    after: Option<Uuid>,
    limit: u64,
) -> Result<Vec<Uuid>, DbErr> {
    let mut q = matches::Entity::find()
        .select_only()
        .column(matches::Column::Id)
        .filter(matches::Column::Status.eq("finished"));
    if let Some(g) = game {
        q = q.filter(matches::Column::Game.eq(g));
    }
    if let Some(s) = since {
        q = q.filter(matches::Column::FinishedAt.gte(s));
    }
    if let Some(u) = until {
        q = q.filter(matches::Column::FinishedAt.lt(u));
    }
    if let Some(a) = after {
        q = q.filter(matches::Column::Id.gt(a));
    }
    q.order_by_asc(matches::Column::Id)
        .limit(limit)
        .into_tuple::<Uuid>()
        .all(db)
        .await
}

// ---------------------------------------------------------------- wake-ups (Postgres)

/// Sends a NOTIFY on `channel`, outside any transaction.
pub async fn notify(db: &DatabaseConnection, channel: &str, payload: &str) -> Result<(), DbErr> {
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT pg_notify($1, $2)",
        [channel.into(), payload.into()],
    ))
    .await
    .map(|_| ())
}

/// A connection of its own that LISTENs on `channel`.
pub async fn listen(
    db: &DatabaseConnection,
    channel: &str,
) -> Result<sea_orm::sqlx::postgres::PgListener, sea_orm::sqlx::Error> {
    let mut l =
        sea_orm::sqlx::postgres::PgListener::connect_with(db.get_postgres_connection_pool())
            .await?;
    l.listen(channel).await?;
    Ok(l)
}

// ---------------------------------------------------------------- event streams

/// Where a stream across matches stands: events are ordered by the writing
/// transaction, then id (see the `tx` column's migration).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct StreamPosition {
    pub tx: i64,
    pub id: i64,
}

/// Every transaction below this id has settled, so no event ordered before it can
/// still appear (Postgres); on SQLite, with one writer at a time, everything
/// committed is settled.
///
/// The bound is the oldest transaction in progress in this database (other
/// databases of the cluster do not write our events, so a long transaction there
/// holds nothing up), or, with none, the next transaction id. It is read before
/// the events are, in a statement of its own: any transaction below it had
/// finished when it was read, so the later read sees all it committed.
pub async fn settled_tx(db: &impl ConnectionTrait) -> Result<Option<i64>, DbErr> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Ok(None);
    }
    // The snapshot is taken as the statement starts, before pg_stat_activity is
    // read, so a transaction that gets its id during the read is above xmax.
    let row = db
        .query_one_raw(Statement::from_string(
            DbBackend::Postgres,
            "SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xmax, \
             (SELECT min(backend_xid::text::bigint) FROM pg_stat_activity \
              WHERE datname = current_database() AND backend_xid IS NOT NULL) AS oldest",
        ))
        .await?;
    let Some(row) = row else { return Ok(None) };
    let xmax: i64 = row.try_get("", "xmax")?;
    let oldest: Option<i64> = row.try_get("", "oldest")?;
    Ok(Some(match oldest {
        Some(x) => std::cmp::min(xmax, widen_xid(x, xmax)),
        None => xmax,
    }))
}

/// A 32-bit transaction id as the 64-bit one (with its epoch) it stands for,
/// given a recent 64-bit id it is not far below.
fn widen_xid(xid32: i64, recent: i64) -> i64 {
    let epoch = recent >> 32;
    let low = recent & 0xffff_ffff;
    if xid32 <= low {
        (epoch << 32) | xid32
    } else {
        ((epoch - 1) << 32) | xid32
    }
}

/// Where a new stream across matches starts: after everything settled so far.
pub async fn stream_head(db: &impl ConnectionTrait) -> Result<StreamPosition, DbErr> {
    match settled_tx(db).await? {
        Some(xmin) => Ok(StreamPosition { tx: xmin, id: 0 }),
        None => {
            let last = events::Entity::find()
                .select_only()
                .column_as(events::Column::Id.max(), "m")
                .into_tuple::<Option<i64>>()
                .one(db)
                .await?
                .flatten();
            Ok(StreamPosition {
                tx: 0,
                id: last.unwrap_or(0),
            })
        }
    }
}

/// The settled events after `after` of every match `player` holds a seat in that
/// the player may see (public ones and those of the player's seat), in stream order.
///
/// `settled` is a value of [`settled_tx`] read before this call (the shared one of
/// `Service::settled_tx` will do): an older value is lower, so it holds events
/// back a little longer but never lets an unsettled one through.
pub async fn player_events_after(
    db: &impl ConnectionTrait,
    player: Uuid,
    after: StreamPosition,
    limit: u64,
    settled: Option<i64>,
) -> Result<Vec<events::Model>, DbErr> {
    let seats = match_seats::Entity::find()
        .select_only()
        .column(match_seats::Column::MatchId)
        .filter(match_seats::Column::PlayerId.eq(player))
        .into_query();
    let mine = match_seats::Entity::find()
        .select_only()
        .column(match_seats::Column::Seat)
        .filter(match_seats::Column::PlayerId.eq(player))
        .filter(
            Expr::col((match_seats::Entity, match_seats::Column::MatchId))
                .equals((events::Entity, events::Column::MatchId)),
        )
        .into_query();
    let mut q = events::Entity::find()
        .filter(events::Column::MatchId.in_subquery(seats))
        .filter(
            events::Column::AudienceSeat
                .is_null()
                .or(events::Column::AudienceSeat.in_subquery(mine)),
        )
        .filter(
            events::Column::Tx.gt(after.tx).or(events::Column::Tx
                .eq(after.tx)
                .and(events::Column::Id.gt(after.id))),
        );
    if let Some(xmin) = settled {
        q = q.filter(events::Column::Tx.lt(xmin));
    }
    q.order_by_asc(events::Column::Tx)
        .order_by_asc(events::Column::Id)
        .limit(limit)
        .all(db)
        .await
}

/// Whether `player` holds a seat in `match_id`, and which.
pub async fn seat_of_player(
    db: &impl ConnectionTrait,
    match_id: Uuid,
    player: Uuid,
) -> Result<Option<i32>, DbErr> {
    match_seats::Entity::find()
        .select_only()
        .column(match_seats::Column::Seat)
        .filter(match_seats::Column::MatchId.eq(match_id))
        .filter(match_seats::Column::PlayerId.eq(player))
        .into_tuple::<i32>()
        .one(db)
        .await
}

// ---------------------------------------------------------------- stream tickets

pub async fn insert_stream_ticket(
    db: &impl ConnectionTrait,
    t: stream_tickets::Model,
    now: DateTime<Utc>,
) -> Result<(), DbErr> {
    // Expired tickets are of no use to anybody: clear them as new ones come.
    stream_tickets::Entity::delete_many()
        .filter(stream_tickets::Column::ExpiresAt.lt(now))
        .exec(db)
        .await?;
    stream_tickets::Entity::insert(t.into_active_model())
        .exec_without_returning(db)
        .await
        .map(|_| ())
}

/// Marks a ticket used, once: answers its player when it was valid and unused.
pub async fn redeem_stream_ticket(
    db: &impl ConnectionTrait,
    hash: &str,
    now: DateTime<Utc>,
) -> Result<Option<Uuid>, DbErr> {
    let done = stream_tickets::Entity::update_many()
        .col_expr(stream_tickets::Column::UsedAt, Expr::value(now))
        .filter(stream_tickets::Column::Hash.eq(hash))
        .filter(stream_tickets::Column::UsedAt.is_null())
        .filter(stream_tickets::Column::ExpiresAt.gt(now))
        .exec(db)
        .await?;
    if done.rows_affected != 1 {
        return Ok(None);
    }
    Ok(stream_tickets::Entity::find_by_id(hash.to_owned())
        .one(db)
        .await?
        .map(|t| t.player_id))
}

// ---------------------------------------------------------------- seats of bots and absence

/// Writes back a seat's bot and presence.
pub async fn update_seat(db: &impl ConnectionTrait, s: match_seats::Model) -> Result<(), DbErr> {
    s.into_active_model()
        .reset_all()
        .update(db)
        .await
        .map(|_| ())
}

/// The bot account of this name, created on first use (it can never log in).
pub async fn bot_player(
    db: &impl ConnectionTrait,
    name: &str,
    now: DateTime<Utc>,
) -> Result<players::Model, DbErr> {
    if let Some(p) = player_by_name(db, name).await? {
        return Ok(p);
    }
    let row = players::ActiveModel {
        id: Set(Uuid::now_v7()),
        name: Set(name.to_owned()),
        name_key: Set(name.to_lowercase()),
        password_hash: Set(String::new()),
        is_bot: Set(true),
        created_at: Set(now),
    };
    players::Entity::insert(row)
        .on_conflict(
            OnConflict::column(players::Column::NameKey)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    player_by_name(db, name)
        .await?
        .ok_or_else(|| DbErr::RecordNotFound(format!("bot player {name}")))
}

/// Whether any active match has a deadline at or before `now` (a plain read).
pub async fn any_due(db: &impl ConnectionTrait, now: DateTime<Utc>) -> Result<bool, DbErr> {
    Ok(matches::Entity::find()
        .select_only()
        .column(matches::Column::Id)
        .filter(matches::Column::Status.eq("active"))
        .filter(matches::Column::DeadlineAt.lte(now))
        .limit(1)
        .into_tuple::<uuid::Uuid>()
        .one(db)
        .await?
        .is_some())
}

/// Whether the player has events after `after` that are committed but not yet
/// settled (Postgres; never on SQLite).
pub async fn player_events_pending(
    db: &impl ConnectionTrait,
    player: Uuid,
    after: StreamPosition,
    settled: Option<i64>,
) -> Result<bool, DbErr> {
    let Some(settled) = settled else {
        return Ok(false);
    };
    let seats = match_seats::Entity::find()
        .select_only()
        .column(match_seats::Column::MatchId)
        .filter(match_seats::Column::PlayerId.eq(player))
        .into_query();
    Ok(events::Entity::find()
        .select_only()
        .column(events::Column::Id)
        .filter(events::Column::MatchId.in_subquery(seats))
        .filter(events::Column::Tx.gte(settled))
        .filter(
            events::Column::Tx.gt(after.tx).or(events::Column::Tx
                .eq(after.tx)
                .and(events::Column::Id.gt(after.id))),
        )
        .limit(1)
        .into_tuple::<i64>()
        .one(db)
        .await?
        .is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_move_past_earlier_parts_only_outside_quotes() {
        assert_eq!(
            shift_placeholders(r#"INSERT INTO "a$1" ("x") VALUES ($1, '$2', $10)"#, 3),
            r#"INSERT INTO "a$1" ("x") VALUES ($4, '$2', $13)"#
        );
    }

    #[test]
    fn a_batch_is_one_statement_with_the_values_in_order() {
        let parts = vec![
            Statement::from_sql_and_values(
                DbBackend::Postgres,
                "INSERT INTO a (x, y) VALUES ($1, $2)",
                [1i32.into(), 2i32.into()],
            ),
            Statement::from_sql_and_values(
                DbBackend::Postgres,
                "UPDATE b SET z = $1 WHERE id = $2",
                [3i32.into(), 4i32.into()],
            ),
        ];
        let st = combine_pg(parts);
        assert_eq!(
            st.sql,
            "WITH w0 AS (INSERT INTO a (x, y) VALUES ($1, $2)) UPDATE b SET z = $3 WHERE id = $4"
        );
        let values: Vec<sea_orm::Value> = st.values.map(|v| v.0).unwrap_or_default();
        assert_eq!(
            values,
            vec![1i32.into(), 2i32.into(), 3i32.into(), 4i32.into()]
        );
    }
}
