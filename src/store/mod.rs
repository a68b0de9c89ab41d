//! Entities and the queries the service needs. Nothing above this module builds SQL.
//! Query functions take `&impl ConnectionTrait`, so they work on a pool or a transaction.

mod auth;
pub mod entities;
mod queries;
pub mod stats;
mod webhooks;

pub use auth::*;
pub use queries::*;
pub use webhooks::*;

use std::time::Duration;

use migration::{Migrator, MigratorTrait};
use sea_orm::sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode};
use sea_orm::{
    ConnectOptions, ConnectionTrait, Database, DatabaseConnection, DatabaseTransaction, DbBackend,
    DbErr, SqliteTransactionMode, TransactionOptions, TransactionTrait,
};

use crate::config::{DatabaseKind, Settings};

/// Opens the pool: SQLite in WAL mode with a few connections, Postgres sized for the machine.
pub async fn connect(settings: &Settings) -> anyhow::Result<DatabaseConnection> {
    let kind = settings.database_kind()?;
    let mut opts = ConnectOptions::new(settings.database_url.clone());
    opts.sqlx_logging(false)
        .acquire_timeout(Duration::from_secs(10))
        .connect_timeout(Duration::from_secs(10));
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

/// Runs every pending migration, once however many replicas start together: on
/// Postgres under a transaction-scoped advisory lock, on SQLite inside an
/// IMMEDIATE transaction (which holds the database's write lock).
pub async fn migrate(db: &DatabaseConnection) -> Result<(), DbErr> {
    let tx = begin_write(db).await?;
    if db.get_database_backend() == DbBackend::Postgres {
        tx.execute_unprepared("SELECT pg_advisory_xact_lock(7153092215)")
            .await?;
    }
    Migrator::up(&tx, None).await?;
    tx.commit().await
}

/// Builds the statistics' running totals again from the history tables, in one
/// transaction. On Postgres it first waits for matches finishing meanwhile and holds
/// off new ones (which add to `stat_finished`) until it commits, so a server may
/// keep running; on SQLite the write lock does the same.
pub async fn rebuild_stat_totals(db: &DatabaseConnection) -> Result<(), DbErr> {
    let tx = begin_write(db).await?;
    if db.get_database_backend() == DbBackend::Postgres {
        tx.execute_unprepared("LOCK TABLE stat_finished IN EXCLUSIVE MODE")
            .await?;
    }
    migration::rebuild_stat_totals(&tx).await?;
    tx.commit().await
}

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

/// Whether an error is contention worth a retry (serialization failure, deadlock,
/// SQLite busy, pool exhaustion) rather than a fault.
pub fn is_contention(e: &DbErr) -> bool {
    let text = e.to_string();
    [
        "database is locked",
        "SQLITE_BUSY",
        "40001",
        "40P01",
        "could not serialize",
        "deadlock detected",
        "pool timed out",
        "PoolTimedOut",
    ]
    .iter()
    .any(|needle| text.contains(needle))
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
