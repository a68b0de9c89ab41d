//! The layout of the tables on a distributed Postgres (Citus), with the match as
//! the tenant: every table whose rows belong to a match is hash-distributed by
//! `match_id` and colocated with `matches` (distributed by `id`), so a match's rows
//! live on one shard and every statement of the move path, which names one match,
//! goes to that shard alone. Every other table (accounts, tokens, webhooks, ratings,
//! statistics totals, settings) is a reference table, copied to every node, so that
//! joins with it stay on the shard. The migration bookkeeping stays on the
//! coordinator.
//!
//! The server lays the tables out itself at startup, under the migration lock:
//! idempotently (a table already distributed is left alone) and only when the
//! database has the `citus` extension. Plain Postgres and SQLite never get here.

use sea_orm::{ConnectionTrait, DatabaseTransaction, DbBackend, DbErr, Statement};

/// Where each table went, for the startup log.
#[derive(Debug, Default)]
pub struct Layout {
    pub distributed: Vec<String>,
    pub reference: Vec<String>,
    /// Tables laid out at this start (the rest were already).
    pub changed: Vec<String>,
}

/// Whether the database has the `citus` extension (a Citus coordinator).
pub async fn is_citus(db: &impl ConnectionTrait) -> Result<bool, DbErr> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Ok(false);
    }
    Ok(db
        .query_one_raw(Statement::from_string(
            DbBackend::Postgres,
            "SELECT 1 AS one FROM pg_extension WHERE extname = 'citus'",
        ))
        .await?
        .is_some())
}

async fn strings(tx: &DatabaseTransaction, sql: &str) -> Result<Vec<String>, DbErr> {
    tx.query_all_raw(Statement::from_string(DbBackend::Postgres, sql))
        .await?
        .iter()
        .map(|r| r.try_get::<String>("", "s"))
        .collect()
}

async fn run(tx: &DatabaseTransaction, sql: &str) -> Result<(), DbErr> {
    tx.execute_unprepared(sql).await.map(|_| ())
}

/// Lays out every table of the current schema that is not laid out yet (see the
/// module's documentation). `shard_count` sets the shards of a new colocation
/// group (`None`: Citus's default, 32).
///
/// Citus distributes a table only without foreign keys to tables not yet
/// distributed, so the keys among our tables are dropped first and made again
/// afterwards from their own definitions.
pub async fn lay_out(tx: &DatabaseTransaction, shard_count: Option<u32>) -> Result<Layout, DbErr> {
    let tables = strings(
        tx,
        "SELECT c.relname AS s FROM pg_class c \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = current_schema() AND c.relkind = 'r' \
           AND c.relname <> 'seaql_migrations' ORDER BY c.relname",
    )
    .await?;
    let per_match = strings(
        tx,
        "SELECT table_name::text AS s FROM information_schema.columns \
         WHERE table_schema = current_schema() AND column_name = 'match_id' ORDER BY 1",
    )
    .await?;
    let laid_out = strings(
        tx,
        "SELECT c.relname::text AS s FROM pg_dist_partition p \
         JOIN pg_class c ON c.oid = p.logicalrelid \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         WHERE n.nspname = current_schema()",
    )
    .await?;
    let mut layout = Layout::default();
    for t in &tables {
        if t == "matches" || per_match.contains(t) {
            layout.distributed.push(t.clone());
        } else {
            layout.reference.push(t.clone());
        }
    }
    let pending: Vec<&String> = tables.iter().filter(|t| !laid_out.contains(t)).collect();
    if pending.is_empty() {
        return Ok(layout);
    }
    // Every foreign key among our tables, with its definition, then dropped.
    let keys = tx
        .query_all_raw(Statement::from_string(
            DbBackend::Postgres,
            "SELECT c.conrelid::regclass::text AS t, c.conname::text AS k, \
                    pg_get_constraintdef(c.oid) AS d \
             FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace \
             WHERE c.contype = 'f' AND n.nspname = current_schema() ORDER BY 1, 2",
        ))
        .await?
        .iter()
        .map(|r| {
            Ok((
                r.try_get::<String>("", "t")?,
                r.try_get::<String>("", "k")?,
                r.try_get::<String>("", "d")?,
            ))
        })
        .collect::<Result<Vec<_>, DbErr>>()?;
    for (table, key, _) in &keys {
        run(
            tx,
            &format!("ALTER TABLE {table} DROP CONSTRAINT \"{key}\""),
        )
        .await?;
    }
    if let Some(n) = shard_count {
        run(tx, &format!("SET LOCAL citus.shard_count = {n}")).await?;
    }
    // A sequential mode: the tables are created in one transaction with the
    // foreign keys made afterwards, which Citus requires of reference tables.
    run(
        tx,
        "SET LOCAL citus.multi_shard_modify_mode TO 'sequential'",
    )
    .await?;
    if pending.iter().any(|t| *t == "matches") {
        run(tx, "SELECT create_distributed_table('matches', 'id')").await?;
        layout.changed.push("matches".into());
    }
    for t in &pending {
        let t = t.as_str();
        if t == "matches" {
            continue;
        }
        let sql = if per_match.iter().any(|p| p == t) {
            format!(
                "SELECT create_distributed_table('{t}', 'match_id', colocate_with => 'matches')"
            )
        } else {
            format!("SELECT create_reference_table('{t}')")
        };
        run(tx, &sql).await?;
        layout.changed.push(t.to_owned());
    }
    for (table, key, def) in &keys {
        run(
            tx,
            &format!("ALTER TABLE {table} ADD CONSTRAINT \"{key}\" {def}"),
        )
        .await?;
    }
    Ok(layout)
}
