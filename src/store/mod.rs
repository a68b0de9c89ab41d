//! Entities and the queries the service needs. Nothing above this module builds SQL.
//! Query functions take `&impl ConnectionTrait`, so they work on a pool or a transaction.

pub mod auth;
pub mod batch;
pub mod chat;
pub mod citus;
pub mod clubs;
pub mod community;
pub mod deletion;
pub mod entities;
pub mod folds;
pub mod matches;
pub mod moderation;
pub mod move_write;
pub mod moves;
pub mod notifications;
pub mod oauth;
pub mod players;
pub mod ratings;
pub mod reliability;
pub mod settings;
pub mod stats;
pub mod streams;
pub mod tournaments;
pub mod vacations;
pub mod webhooks;

use std::time::Duration;

use migration::{Migrator, MigratorTrait};
use sea_orm::sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DatabaseTransaction, DbBackend,
    DbErr, SqliteTransactionMode, TransactionOptions, TransactionTrait,
};

use crate::config::{DatabaseKind, Settings};
use crate::errors::{Trouble, trouble};

/// Opens the pool: SQLite in WAL mode with a few connections, Postgres sized for the machine.
pub async fn connect(settings: &Settings) -> anyhow::Result<DatabaseConnection> {
    let kind = settings.database_kind()?;
    let url = match kind {
        DatabaseKind::Postgres => loopback_without_tls(&settings.database_url),
        DatabaseKind::Sqlite => settings.database_url.clone(),
    };
    let mut opts = ConnectOptions::new(url);
    opts.sqlx_logging(false)
        .acquire_timeout(Duration::from_secs(10))
        .connect_timeout(Duration::from_secs(10))
        // sqlx pings a connection at every acquire by default: a round trip per
        // query of the hot path. A connection idle for a while is still checked.
        .test_before_acquire_if_idle_for(Duration::from_secs(30));
    match kind {
        DatabaseKind::Sqlite => {
            opts.max_connections(settings.max_connections.unwrap_or(4))
                .min_connections(1)
                .map_sqlx_sqlite_opts(|o: SqliteConnectOptions| {
                    o.journal_mode(SqliteJournalMode::Wal)
                        .busy_timeout(Duration::from_secs(10))
                        .foreign_keys(true)
                        .create_if_missing(true)
                });
        }
        DatabaseKind::Postgres => {
            opts.max_connections(settings.max_connections.unwrap_or(16))
                .min_connections(1);
            if let Some(schema) = &settings.database_schema {
                opts.set_schema_search_path(schema.clone());
            }
        }
    }
    Ok(Database::connect(opts).await?)
}

/// The session settings of the move pool (see [`connect_for_moves`]).
const MOVE_SESSION: &str = "-c plan_cache_mode=force_generic_plan -c enable_seqscan=off";

/// A second, smaller pool for the one-statement move on plain Postgres, whose
/// sessions use generic plans (`plan_cache_mode=force_generic_plan`): the
/// statement's text is fixed per shape, so it is planned once per connection
/// instead of at every move (custom plans cost Postgres about 6 % of its CPU per
/// move). Every other query keeps Postgres's own choice on the main pool, where
/// a listing's plan may rightly depend on its parameters.
///
/// Its sessions also turn sequential scans off (`enable_seqscan=off`): a
/// generic plan is made once, at a connection's first move, from the tables'
/// statistics then, and a fresh server's first moves meet nearly empty
/// tables, for which scanning beats an index. Kept for the connection's life,
/// such a plan read every move of every match at each batch that revealed a
/// step (docs/decisions.md, "Many moves, one commit"). Every part of the move
/// statements reaches its rows by an index on the match.
pub async fn connect_for_moves(settings: &Settings) -> anyhow::Result<DatabaseConnection> {
    // Half the main pool: a move holds its connection for one round trip.
    let most = (settings.max_connections.unwrap_or(16) / 2).max(2);
    connect_with_session(settings, MOVE_SESSION, most).await
}

/// The session settings of the notification pool (see [`connect_for_notifications`]).
const NOTIFY_SESSION: &str = "-c synchronous_commit=off";

/// A pool of one connection for the wake-ups a replica sends the others
/// (`NOTIFY`), whose commits are not waited for on disk
/// (`synchronous_commit=off`). A `NOTIFY` gives its transaction an id, so each
/// one was a commit flushed to the WAL like a move's, about one for every
/// statement of moves; yet a wake-up lost in a crash loses nothing, since
/// every replica reads everything again when its listening connection comes
/// back, and the events themselves are committed by the moves. Listeners are
/// told at the commit, flushed or not.
pub async fn connect_for_notifications(settings: &Settings) -> anyhow::Result<DatabaseConnection> {
    connect_with_session(settings, NOTIFY_SESSION, 1).await
}

/// A pool of at most `most` connections to the main database whose sessions
/// start with `session` (`-c name=value` words, after any the URL gives).
async fn connect_with_session(
    settings: &Settings,
    session: &str,
    most: u32,
) -> anyhow::Result<DatabaseConnection> {
    let mut pool = settings.clone();
    pool.database_url = with_session(&settings.database_url, session)?;
    pool.max_connections = Some(most);
    connect(&pool).await
}

/// Names this replica to the database in every session of its pools
/// (`sealed_orders.replica`), so that the trigger of a match's home knows a
/// write of the home's own from another's (see `service::homes`).
pub fn naming_the_replica(database_url: &str, replica: uuid::Uuid) -> anyhow::Result<String> {
    with_session(database_url, &format!("-c sealed_orders.replica={replica}"))
}

/// `database_url` with `session` (`-c name=value` words) added to the
/// `options` it gives, if any.
fn with_session(database_url: &str, session: &str) -> anyhow::Result<String> {
    let mut url = url::Url::parse(database_url)?;
    let given: Option<String> = url
        .query_pairs()
        .find(|(k, _)| k == "options")
        .map(|(_, v)| v.into_owned());
    let options = match given {
        Some(o) => format!("{o} {session}"),
        None => session.to_owned(),
    };
    let kept: Vec<(String, String)> = url
        .query_pairs()
        .filter(|(k, _)| k != "options")
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    url.query_pairs_mut()
        .clear()
        .extend_pairs(kept)
        .append_pair("options", &options);
    Ok(url.to_string())
}

/// A Postgres URL to a server on this machine (a loopback address or a Unix
/// socket) that names no `sslmode` gets `sslmode=disable`. libpq's default,
/// `prefer`, negotiates TLS wherever the server offers it, and on loopback that
/// protects nothing while costing a sixth of the server's CPU per move (rustls
/// on every statement). A URL that names `sslmode`, or any other host, is kept
/// as written: TLS to a remote database stays the default.
pub fn loopback_without_tls(database_url: &str) -> String {
    let Ok(mut url) = url::Url::parse(database_url) else {
        return database_url.to_owned();
    };
    if url.query_pairs().any(|(k, _)| k == "sslmode") {
        return database_url.to_owned();
    }
    let host_is_socket = url
        .query_pairs()
        .any(|(k, v)| k == "host" && v.starts_with('/'));
    let local = match url.host() {
        // `postgres:` is not a special scheme, so an IPv4 host arrives as a name.
        Some(url::Host::Domain(d)) => {
            d == "localhost" || d.parse::<std::net::IpAddr>().is_ok_and(|a| a.is_loopback())
        }
        Some(url::Host::Ipv4(a)) => a.is_loopback(),
        Some(url::Host::Ipv6(a)) => a.is_loopback(),
        None => true,
    };
    if !(local || host_is_socket) {
        return database_url.to_owned();
    }
    url.query_pairs_mut().append_pair("sslmode", "disable");
    url.to_string()
}

/// Runs every pending migration, once however many replicas start together: on
/// Postgres under a transaction-scoped advisory lock, on SQLite inside an
/// IMMEDIATE transaction (which holds the database's write lock).
///
/// On a Citus coordinator it then lays the tables out (see [`citus`]), under the
/// same lock, and logs where each went. Answers whether the database is one.
pub async fn migrate(db: &DatabaseConnection, settings: &Settings) -> Result<bool, DbErr> {
    let postgres = db.get_database_backend() == DbBackend::Postgres;
    // SQLite gives up on its write lock after the busy timeout; a replica
    // starting beside another that migrates a slow disk waits longer than that
    // rather than exit.
    let give_up = std::time::Instant::now() + Duration::from_secs(120);
    again_on(give_up, "migrating", || migrate_once(db, postgres)).await?;
    let on_citus = postgres && citus::is_citus(db).await?;
    if on_citus {
        // Laying reference tables out locks Citus's metadata on every node,
        // and Citus ends a distributed deadlock by cancelling one of its
        // transactions: a replica starting while another schema of the same
        // database is laid out or busy may be the one cancelled. Nothing of
        // the layout stays behind then, so it is tried again.
        let layout = again_on(give_up, "laying the tables out on citus", || {
            lay_out_once(db, settings.citus_shard_count)
        })
        .await?;
        tracing::info!(
            distributed_by_match = ?layout.distributed,
            reference = ?layout.reference,
            laid_out_now = ?layout.changed,
            "citus: tables laid out with the match as tenant"
        );
    }
    Ok(on_citus)
}

/// Runs `step` until it ends otherwise than with contention (a lock held, a
/// deadlock: what the requests' errors also retry, see [`trouble`]), or
/// until `give_up`.
async fn again_on<T, F, Fut>(
    give_up: std::time::Instant,
    what: &str,
    mut step: F,
) -> Result<T, DbErr>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, DbErr>>,
{
    loop {
        match step().await {
            Err(e) if trouble(&e) == Trouble::Contention && std::time::Instant::now() < give_up => {
                tracing::warn!(error = %e, "{what}: trying again");
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            done => return done,
        }
    }
}

async fn lay_out_once(
    db: &DatabaseConnection,
    shard_count: Option<u32>,
) -> Result<citus::Layout, DbErr> {
    let tx = db.begin().await?;
    tx.execute_unprepared(MIGRATION_LOCK).await?;
    let layout = citus::lay_out(&tx, shard_count).await?;
    tx.commit().await?;
    Ok(layout)
}

async fn migrate_once(db: &DatabaseConnection, postgres: bool) -> Result<(), DbErr> {
    let tx = begin_write(db).await?;
    if postgres {
        tx.execute_unprepared(MIGRATION_LOCK).await?;
    }
    Migrator::up(&tx, None).await?;
    tx.commit().await
}

const MIGRATION_LOCK: &str = "SELECT pg_advisory_xact_lock(7153092215)";

/// Builds the statistics' running totals again from the history tables, in one
/// transaction. On Postgres it first waits for matches finishing meanwhile and holds
/// off new ones (which add to `stat_finished`) until it commits, so a server may
/// keep running; on SQLite the write lock does the same.
pub async fn rebuild_stat_totals(
    db: &DatabaseConnection,
    progress: &mut (dyn FnMut(usize, usize, &str) + Send),
) -> Result<(), DbErr> {
    let tx = begin_write(db).await?;
    // No fold runs meanwhile, and the finishes still pending are counted by
    // the rebuild: their folds must not count them again.
    folds::lock_folding(&tx).await?;
    if db.get_database_backend() == DbBackend::Postgres {
        tx.execute_unprepared("LOCK TABLE stat_finished IN EXCLUSIVE MODE")
            .await?;
        // The rebuild groups the whole history in a few aggregates; with the
        // default few megabytes each would sort or spill tens of millions of rows
        // to disk at a million matches. One session, for minutes, can afford more.
        tx.execute_unprepared(REBUILD_WORK_MEM).await?;
    }
    migration::rebuild_stat_totals_reporting(&tx, progress).await?;
    folds::forget_pending_stats(&tx).await?;
    tx.commit().await?;
    if db.get_database_backend() == DbBackend::Postgres {
        // The totals were all written anew, and a rebuild usually follows a bulk
        // load of the history tables: until autovacuum came round, the planner
        // would plan the statistics' reads from the tables' sizes before (the
        // filtered game figures were several times slower right after a bulk
        // load). So it is told now.
        db.execute_unprepared(ANALYZE_AFTER_REBUILD).await?;
    }
    Ok(())
}

const REBUILD_WORK_MEM: &str = "SET LOCAL work_mem = '256MB'";

/// The tables the statistics read: the running totals a rebuild wrote and the
/// history tables it read them from (whose edges of a time window are read live).
const ANALYZE_AFTER_REBUILD: &str = "ANALYZE stat_finished, stat_game_totals, \
    stat_player_totals, stat_player_best, matches, match_seats, match_results, rounds, \
    round_seats";

/// A write transaction: IMMEDIATE on SQLite (sea-query drops row locks there), so
/// writers queue at BEGIN instead of failing at their first write.
pub async fn begin_write(db: &DatabaseConnection) -> Result<DatabaseTransaction, DbErr> {
    if db.get_database_backend() == DbBackend::Sqlite {
        db.begin_with_options(TransactionOptions {
            sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
            ..Default::default()
        })
        .await
    } else {
        db.begin().await
    }
}

/// Checks that the database answers.
pub async fn ping(db: &impl ConnectionTrait) -> Result<(), DbErr> {
    db.execute_unprepared("SELECT 1").await.map(|_| ())
}

/// Open and idle connections of the pool.
pub fn pool_usage(db: &DatabaseConnection) -> (i64, i64) {
    match db.get_database_backend() {
        DbBackend::Postgres => {
            let p = db.get_postgres_connection_pool();
            (i64::from(p.size()), p.num_idle() as i64)
        }
        _ => {
            let p = db.get_sqlite_connection_pool();
            (i64::from(p.size()), p.num_idle() as i64)
        }
    }
}

/// `q` as a worker's claim: `FOR UPDATE SKIP LOCKED` on Postgres, so rows
/// another transaction holds are passed over; on SQLite unchanged, as the
/// IMMEDIATE transaction already excludes every other writer.
pub fn skipping_locked<E: sea_orm::EntityTrait>(
    q: sea_orm::Select<E>,
    backend: DbBackend,
) -> sea_orm::Select<E> {
    use sea_orm::QuerySelect;
    if backend == DbBackend::Postgres {
        q.lock_with_behavior(
            sea_orm::sea_query::LockType::Update,
            sea_orm::sea_query::LockBehavior::SkipLocked,
        )
    } else {
        q
    }
}

#[cfg(test)]
mod tls_tests {
    use super::loopback_without_tls as f;

    #[test]
    fn loopback_urls_without_sslmode_turn_tls_off_and_nothing_else_changes() {
        assert_eq!(
            f("postgres://postgres@127.0.0.1:5432/db"),
            "postgres://postgres@127.0.0.1:5432/db?sslmode=disable"
        );
        assert_eq!(
            f("postgres://u@localhost/db?application_name=x"),
            "postgres://u@localhost/db?application_name=x&sslmode=disable"
        );
        assert_eq!(
            f("postgres://u@[::1]/db"),
            "postgres://u@[::1]/db?sslmode=disable"
        );
        for kept in [
            "postgres://u@127.0.0.1/db?sslmode=require",
            "postgres://u@db.example.com/db",
            "postgres://u@10.0.0.5:5432/db",
        ] {
            assert_eq!(f(kept), kept);
        }
    }
}

#[cfg(test)]
mod again_tests {
    use std::cell::Cell;
    use std::time::{Duration, Instant};

    use sea_orm::DbErr;

    use super::again_on;

    fn failing(message: &str) -> DbErr {
        DbErr::Custom(message.to_owned())
    }

    #[tokio::test]
    async fn a_passing_deadlock_is_tried_again_and_any_other_error_ends_at_once() {
        let later = Instant::now() + Duration::from_secs(60);
        let calls = Cell::new(0);
        let done = again_on(later, "test", || {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move {
                if n < 3 {
                    Err(failing("deadlock detected"))
                } else {
                    Ok(n)
                }
            }
        })
        .await;
        assert_eq!(done.expect("the third try"), 3);

        calls.set(0);
        let done: Result<(), DbErr> = again_on(later, "test", || {
            calls.set(calls.get() + 1);
            async { Err(failing("relation \"matches\" does not exist")) }
        })
        .await;
        assert!(done.is_err());
        assert_eq!(calls.get(), 1, "another error is not tried again");
    }

    #[tokio::test]
    async fn past_the_time_given_the_error_is_returned() {
        let calls = Cell::new(0);
        let done: Result<(), DbErr> = again_on(Instant::now(), "test", || {
            calls.set(calls.get() + 1);
            async { Err(failing("deadlock detected")) }
        })
        .await;
        assert!(done.expect_err("given up").to_string().contains("deadlock"));
        assert_eq!(calls.get(), 1);
    }
}
