//! Matches and their seats: reads, locks, writes, the lists and the due deadlines.

use chrono::{DateTime, Utc};
use sea_orm::ActiveValue::Set;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DbBackend, DbErr, EntityTrait, IntoActiveModel,
    QueryFilter, QueryOrder, QuerySelect, QueryTrait, Statement,
};
use std::sync::LazyLock;

use sea_orm::{FromQueryResult, IdenStatic, Iterable};
use uuid::Uuid;

use super::entities::{match_deadlines, match_seats, matches};

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

/// A match as a read renders it: the row, its seats in seat order, and the names
/// of its seated players (owner's aside), in one statement; `None` when there is no
/// such match. Seatless matches come back with no seats.
pub async fn match_snapshot(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<MatchRead>, DbErr> {
    let backend = db.get_database_backend();
    let sql = match backend {
        DbBackend::Postgres => &*MATCH_SNAPSHOT_PG,
        _ => &*MATCH_SNAPSHOT_SQLITE,
    };
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(backend, sql, [id.into()]))
        .await?;
    let Some(first) = rows.first() else {
        return Ok(None);
    };
    let row = matches::Model::from_query_result(first, "m_")?;
    let mut seats = Vec::with_capacity(rows.len());
    let mut names = Vec::with_capacity(rows.len());
    for r in &rows {
        if r.try_get::<Option<Uuid>>("", "s_match_id")?.is_none() {
            continue;
        }
        let seat = match_seats::Model::from_query_result(r, "s_")?;
        if let Some(name) = r.try_get::<Option<String>>("", "p_name")? {
            names.push((seat.player_id, name));
        }
        seats.push(seat);
    }
    Ok(Some(MatchRead { row, seats, names }))
}

/// What [`match_snapshot`] reads.
pub struct MatchRead {
    pub row: matches::Model,
    pub seats: Vec<match_seats::Model>,
    /// (player id, name) of every seated player.
    pub names: Vec<(Uuid, String)>,
}

/// A match's version alone, by its primary key: what decides whether a snapshot
/// this process keeps is current.
pub async fn match_version(db: &impl ConnectionTrait, id: Uuid) -> Result<Option<i64>, DbErr> {
    matches::Entity::find_by_id(id)
        .select_only()
        .column(matches::Column::Version)
        .into_tuple::<i64>()
        .one(db)
        .await
}

/// A match's version and status: what a long poll checks at each wake-up.
pub async fn match_progress(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<(i64, String)>, DbErr> {
    matches::Entity::find_by_id(id)
        .select_only()
        .column(matches::Column::Version)
        .column(matches::Column::Status)
        .into_tuple::<(i64, String)>()
        .one(db)
        .await
}

fn prefixed(table: &str, names: impl Iterator<Item = String>) -> Vec<String> {
    names
        .map(|c| format!("{table}.\"{c}\" AS \"{table}_{c}\""))
        .collect()
}

fn match_snapshot_sql(placeholder: &str) -> String {
    let mut all = prefixed("m", matches::Column::iter().map(|c| c.as_str().to_owned()));
    all.extend(prefixed(
        "s",
        match_seats::Column::iter().map(|c| c.as_str().to_owned()),
    ));
    all.push("p.\"name\" AS \"p_name\"".to_owned());
    format!(
        "SELECT {} FROM matches m LEFT JOIN match_seats s ON s.match_id = m.id \
         LEFT JOIN players p ON p.id = s.player_id \
         WHERE m.id = {placeholder} ORDER BY s.seat",
        all.join(", ")
    )
}

static MATCH_SNAPSHOT_PG: LazyLock<String> = LazyLock::new(|| match_snapshot_sql("$1"));
static MATCH_SNAPSHOT_SQLITE: LazyLock<String> = LazyLock::new(|| match_snapshot_sql("?"));

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
    let mut all = prefixed("m", matches::Column::iter().map(|c| c.as_str().to_owned()));
    all.extend(prefixed(
        "s",
        match_seats::Column::iter().map(|c| c.as_str().to_owned()),
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

/// Ids of the matches whose deadline is at or before `now`, earliest first: a plain
/// read, without locks, since on a distributed database it spans every shard and a
/// row lock there is refused. Each is then claimed on its own with
/// [`try_lock_match`] and its deadline checked again under the lock.
pub async fn due_matches(
    db: &impl ConnectionTrait,
    now: DateTime<Utc>,
    limit: u64,
) -> Result<Vec<Uuid>, DbErr> {
    match_deadlines::Entity::find()
        .select_only()
        .column(match_deadlines::Column::MatchId)
        .filter(match_deadlines::Column::DueAt.lte(now))
        .order_by_asc(match_deadlines::Column::DueAt)
        .limit(limit)
        .into_tuple::<Uuid>()
        .all(db)
        .await
}

/// Ids of waiting matches unchanged (nobody joined or left) since `cutoff`,
/// oldest first: a plain read, as [`due_matches`] is.
pub async fn stale_lobbies(
    db: &impl ConnectionTrait,
    cutoff: DateTime<Utc>,
    limit: u64,
) -> Result<Vec<Uuid>, DbErr> {
    matches::Entity::find()
        .select_only()
        .column(matches::Column::Id)
        .filter(matches::Column::Status.eq("waiting"))
        .filter(matches::Column::UpdatedAt.lte(cutoff))
        .order_by_asc(matches::Column::UpdatedAt)
        .limit(limit)
        .into_tuple::<Uuid>()
        .all(db)
        .await
}

/// A match locked for this transaction alone, or `None` when it does not exist or
/// another transaction holds it (Postgres: `FOR UPDATE SKIP LOCKED`, one row by its
/// id, so routed to one shard; SQLite: the IMMEDIATE transaction already excludes
/// everybody else).
pub async fn try_lock_match(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> Result<Option<matches::Model>, DbErr> {
    let q = matches::Entity::find_by_id(id);
    super::skipping_locked(q, db.get_database_backend())
        .one(db)
        .await
}

/// Writes back every column of a match row, and its deadline for the pollers.
pub async fn update_match(db: &impl ConnectionTrait, m: matches::Model) -> Result<(), DbErr> {
    set_deadline(db, &m).await?;
    let mut active = m.into_active_model();
    active = active.reset_all();
    active.update(db).await.map(|_| ())
}

/// Records the match's deadline for the pollers, as its row states it.
pub async fn set_deadline(db: &impl ConnectionTrait, m: &matches::Model) -> Result<(), DbErr> {
    db.execute_raw(deadline_statement_of(m, db.get_database_backend()))
        .await
        .map(|_| ())
}

/// The statement of [`set_deadline`].
pub fn deadline_statement_of(m: &matches::Model, backend: DbBackend) -> Statement {
    deadline_statement(
        m.id,
        m.deadline_at.filter(|_| m.status == "active"),
        backend,
    )
}

/// The statement that records a match's deadline for the pollers (`None`: it has
/// none, or it is not active).
pub fn deadline_statement(id: Uuid, due: Option<DateTime<Utc>>, backend: DbBackend) -> Statement {
    match due {
        Some(at) => match_deadlines::Entity::insert(match_deadlines::ActiveModel {
            match_id: Set(id),
            due_at: Set(at),
        })
        .on_conflict(
            OnConflict::column(match_deadlines::Column::MatchId)
                .update_column(match_deadlines::Column::DueAt)
                .to_owned(),
        )
        .build(backend),
        None => match_deadlines::Entity::delete_many()
            .filter(match_deadlines::Column::MatchId.eq(id))
            .build(backend),
    }
}

/// Filters of the match list.
#[derive(Debug, Default, Clone)]
pub struct MatchFilter {
    pub game: Option<String>,
    pub status: Option<String>,
    pub club_id: Option<Uuid>,
    pub player_id: Option<Uuid>,
    /// Only matches whose id is below this one (ids are UUIDv7: time-ordered).
    pub before: Option<Uuid>,
    /// Only these matches.
    pub ids: Option<Vec<Uuid>>,
    /// Which matches a list may show.
    pub listed: Listed,
}

/// Which matches a list shows.
#[derive(Debug, Default, Clone)]
pub enum Listed {
    /// Every match (the server's own reads).
    #[default]
    All,
    /// The public ones, and those the reader (when signed in) owns or holds a
    /// seat in.
    For(Option<Uuid>),
}

/// The matches a list may show, as a condition on `matches` (none: every one).
pub fn listed_condition(listed: &Listed) -> Option<sea_orm::Condition> {
    let Listed::For(reader) = listed else {
        return None;
    };
    let mut shown = sea_orm::Condition::any().add(matches::Column::Visibility.eq("public"));
    if let Some(r) = reader {
        let seated = match_seats::Entity::find()
            .select_only()
            .column(match_seats::Column::MatchId)
            .filter(match_seats::Column::PlayerId.eq(*r))
            .into_query();
        shown = shown
            .add(matches::Column::OwnerId.eq(*r))
            .add(matches::Column::Id.in_subquery(seated));
    }
    Some(shown)
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
    if let Some(c) = filter.club_id {
        q = q.filter(matches::Column::ClubId.eq(c));
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
    if let Some(ids) = &filter.ids {
        q = q.filter(matches::Column::Id.is_in(ids.iter().copied()));
    }
    if let Some(shown) = listed_condition(&filter.listed) {
        q = q.filter(shown);
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

// ---------------------------------------------------------------- seats of bots and absence

/// The statement that writes a seat's bank and the instants it is charged
/// from, and nothing else of the seat (a batch may carry one per seat).
pub fn seat_bank_statement(s: &match_seats::Model, backend: DbBackend) -> Statement {
    match_seats::Entity::update_many()
        .col_expr(match_seats::Column::BankMs, Expr::value(s.bank_ms))
        .col_expr(match_seats::Column::AskedAt, Expr::value(s.asked_at))
        .col_expr(match_seats::Column::MovedAt, Expr::value(s.moved_at))
        .filter(match_seats::Column::MatchId.eq(s.match_id))
        .filter(match_seats::Column::Seat.eq(s.seat))
        .build(backend)
}

/// Writes back a seat's bot and presence.
pub async fn update_seat(db: &impl ConnectionTrait, s: match_seats::Model) -> Result<(), DbErr> {
    s.into_active_model()
        .reset_all()
        .update(db)
        .await
        .map(|_| ())
}

/// Whether any match has a deadline at or before `now` (a plain read).
pub async fn any_due(db: &impl ConnectionTrait, now: DateTime<Utc>) -> Result<bool, DbErr> {
    Ok(match_deadlines::Entity::find()
        .select_only()
        .column(match_deadlines::Column::MatchId)
        .filter(match_deadlines::Column::DueAt.lte(now))
        .limit(1)
        .into_tuple::<Uuid>()
        .one(db)
        .await?
        .is_some())
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
        .filter(matches::Column::Status.eq("finished"))
        .filter(matches::Column::Visibility.eq("public"));
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

/// How many matches waiting for players `owner` owns (read through the
/// status index: the waiting matches are the lobby, never the archive).
pub async fn count_waiting_owned(db: &impl ConnectionTrait, owner: Uuid) -> Result<u64, DbErr> {
    use sea_orm::PaginatorTrait;
    matches::Entity::find()
        .filter(matches::Column::Status.eq("waiting"))
        .filter(matches::Column::OwnerId.eq(owner))
        .count(db)
        .await
}
