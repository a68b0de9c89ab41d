//! Wake-ups, the player feed's order and settle watermark, and stream tickets.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, DbErr, EntityTrait,
    IntoActiveModel, QueryFilter, QueryOrder, QuerySelect, QueryTrait, Statement,
};

use uuid::Uuid;

use super::entities::{events, match_seats, matches, stream_tickets};

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

/// The settled events of every match after `after`, in stream order: the log
/// as the mail worker and the shared feed of the player streams read it.
pub async fn log_after(
    db: &impl ConnectionTrait,
    after: StreamPosition,
    settled: Option<i64>,
    limit: u64,
) -> Result<Vec<events::Model>, DbErr> {
    settled_after(events::Entity::find(), after, settled)
        .limit(limit)
        .all(db)
        .await
}

/// The settled events of every match after `after`, in stream order, at most
/// `limit`, and whether an event after them is committed but not yet settled
/// (Postgres only: on SQLite everything committed is settled): the shared
/// feed's read, one statement where a read and a check for the pending were
/// two. Settled events come first in `(tx, id)` order, so one more row than
/// `limit` tells both: an unsettled one among them is pending, and when all
/// are settled the page is full and the caller reads on from it.
pub async fn log_page(
    db: &impl ConnectionTrait,
    after: StreamPosition,
    settled: Option<i64>,
    limit: u64,
) -> Result<(Vec<events::Model>, bool), DbErr> {
    // Ordered as the `(tx, id)` index is, so the plan walks that index from
    // `after` and stops after its rows. A check for the pending made apart,
    // unordered, was once planned as a sequential scan expecting to stop early,
    // and found no row in the usual case: every read of the feed then read the
    // whole log (docs/benchmarks.md, "The log's pending check; streams woken
    // only for their own").
    let mut rows = settled_after(events::Entity::find(), after, None)
        .limit(limit + 1)
        .all(db)
        .await?;
    let settled_rows = match settled {
        Some(xmin) => rows.iter().take_while(|e| e.tx < xmin).count(),
        None => rows.len(),
    };
    let pending = settled_rows < rows.len();
    rows.truncate(settled_rows.min(limit as usize));
    Ok((rows, pending))
}

/// The matches whose events reach `player`'s feed: those it holds a seat in
/// and those it has a standing invitation to (as of `now`).
pub async fn followed_matches(
    db: &impl ConnectionTrait,
    player: Uuid,
    now: DateTime<Utc>,
) -> Result<Vec<Uuid>, DbErr> {
    let mut ids: Vec<Uuid> = match_seats::Entity::find()
        .select_only()
        .column(match_seats::Column::MatchId)
        .filter(match_seats::Column::PlayerId.eq(player))
        .into_tuple()
        .all(db)
        .await?;
    let invited = super::community::invited_matches(player, now);
    let stmt = db.get_database_backend().build(&invited);
    for row in db.query_all_raw(stmt).await? {
        ids.push(row.try_get_by_index(0)?);
    }
    Ok(ids)
}

/// The settled events after `after` of every match `player` holds a seat in (or
/// a standing invitation to, as of `now`) that the player may see (public ones
/// and those of the player's seat), in stream order.
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
    now: DateTime<Utc>,
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
    let q = events::Entity::find()
        .filter(events::Column::MatchId.in_subquery(seats).or(
            events::Column::MatchId.in_subquery(super::community::invited_matches(player, now)),
        ))
        .filter(
            events::Column::AudienceSeat
                .is_null()
                .or(events::Column::AudienceSeat.in_subquery(mine)),
        );
    settled_after(q, after, settled).limit(limit).all(db).await
}

/// Events after `after` whose transactions have settled, in stream order.
pub(super) fn settled_after(
    q: sea_orm::Select<events::Entity>,
    after: StreamPosition,
    settled: Option<i64>,
) -> sea_orm::Select<events::Entity> {
    let mut q = q.filter(after_position(after));
    if let Some(xmin) = settled {
        q = q.filter(events::Column::Tx.lt(xmin));
    }
    q.order_by_asc(events::Column::Tx)
        .order_by_asc(events::Column::Id)
}

/// The events ordered after `after` by (transaction, id). The leading
/// `tx >= after.tx` is implied by the rest, and is there for the planner: it
/// starts the scan of the `(tx, id)` index at `after` (an `OR` alone scanned
/// the index from its first entry and filtered every older event, so each
/// read of the log took longer the more events there were).
fn after_position(after: StreamPosition) -> sea_orm::sea_query::SimpleExpr {
    events::Column::Tx.gte(after.tx).and(
        events::Column::Tx
            .gt(after.tx)
            .or(events::Column::Id.gt(after.id)),
    )
}

// ---------------------------------------------------------------- the lobby

/// The lobby's events after `after`, in stream order: the public events of
/// `kinds` of the matches `listed` shows, settled (as in
/// [`player_events_after`]).
pub async fn lobby_events_after(
    db: &impl ConnectionTrait,
    kinds: &[&str],
    listed: &super::matches::Listed,
    after: StreamPosition,
    limit: u64,
    settled: Option<i64>,
) -> Result<Vec<events::Model>, DbErr> {
    settled_after(lobby_events(kinds, listed), after, settled)
        .limit(limit)
        .all(db)
        .await
}

fn lobby_events(
    kinds: &[&str],
    listed: &super::matches::Listed,
) -> sea_orm::Select<events::Entity> {
    let mut shown = matches::Entity::find()
        .select_only()
        .column(matches::Column::Id);
    if let Some(c) = super::matches::listed_condition(listed) {
        shown = shown.filter(c);
    }
    events::Entity::find()
        .filter(events::Column::Kind.is_in(kinds.iter().copied()))
        .filter(events::Column::AudienceSeat.is_null())
        .filter(events::Column::MatchId.in_subquery(shown.into_query()))
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

/// Marks a ticket used, once: answers it when it was valid and unused.
pub async fn redeem_stream_ticket(
    db: &impl ConnectionTrait,
    hash: &str,
    now: DateTime<Utc>,
) -> Result<Option<stream_tickets::Model>, DbErr> {
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
    stream_tickets::Entity::find_by_id(hash.to_owned())
        .one(db)
        .await
}
