//! Finished matches waiting for their ratings and statistics' totals
//! (`pending_finishes`): queued by the transaction that finishes a match,
//! folded in batches by one transaction at a time (see the service's `folds`).

use sea_orm::{
    ConnectionTrait, DbBackend, DbErr, EntityTrait, QueryOrder, QuerySelect, Statement, Value,
};
use uuid::Uuid;

use super::entities::pending_finishes;

/// Queues a finished match, with the finish's other writes.
pub fn queue_finish(
    batch: &mut super::batch::Batch,
    row: pending_finishes::Model,
    backend: DbBackend,
) {
    let active: pending_finishes::ActiveModel = row.into();
    batch.push(&pending_finishes::Entity::insert(active), backend);
}

/// Makes the caller's transaction the only one folding until it ends: on
/// Postgres a transaction-scoped advisory lock (per schema, so databases that
/// share a cluster do not wait for each other); on SQLite the caller's
/// IMMEDIATE transaction already excludes every other writer.
pub async fn lock_folding(db: &impl ConnectionTrait) -> Result<(), DbErr> {
    if db.get_database_backend() != DbBackend::Postgres {
        return Ok(());
    }
    db.execute_unprepared("SELECT pg_advisory_xact_lock(71530922, hashtext(current_schema()))")
        .await
        .map(|_| ())
}

/// The oldest finishes still to fold, oldest first.
pub async fn pending_finishes(
    db: &impl ConnectionTrait,
    limit: u64,
) -> Result<Vec<pending_finishes::Model>, DbErr> {
    pending_finishes::Entity::find()
        .order_by_asc(pending_finishes::Column::FinishedAt)
        .order_by_asc(pending_finishes::Column::MatchId)
        .limit(limit)
        .all(db)
        .await
}

/// Whether any finish waits to be folded.
pub async fn any_pending_finish(db: &impl ConnectionTrait) -> Result<bool, DbErr> {
    Ok(db
        .query_one_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT 1 AS one FROM pending_finishes LIMIT 1",
        ))
        .await?
        .is_some())
}

/// The lengths a list of a fold's statement is padded to: its statements
/// then have one of a few texts, each kept as a prepared statement per
/// connection (by the pool, and by Postgres with its plan), where a text per
/// length would fill both caches with near-copies.
const PADDED: [usize; 5] = [1, 4, 16, 64, 256];

/// The padded length of a list of `n`: the next of [`PADDED`], or a multiple
/// of the last.
pub(crate) fn padded_len(n: usize) -> usize {
    let top = PADDED[PADDED.len() - 1];
    PADDED
        .iter()
        .copied()
        .find(|&p| p >= n)
        .unwrap_or_else(|| n.div_ceil(top) * top)
}

/// The longest padded length that `n` items fill (at least 1).
pub(crate) fn padded_len_below(n: usize) -> usize {
    PADDED.iter().copied().rev().find(|&p| p <= n).unwrap_or(1)
}

/// `items` padded to [`padded_len`] with repeats of the last one.
pub(crate) fn padded<T: Clone>(items: &[T]) -> Vec<T> {
    let mut out = items.to_vec();
    if let Some(last) = items.last() {
        out.resize(padded_len(items.len()), last.clone());
    }
    out
}

/// `col IN ($first, …)` over these ids, and the values to bind.
pub(super) fn id_list(col: &str, ids: &[Uuid], first: usize) -> (String, Vec<Value>) {
    let marks: Vec<String> = (0..ids.len()).map(|i| format!("${}", first + i)).collect();
    (
        format!("{col} IN ({})", marks.join(", ")),
        ids.iter().map(|id| (*id).into()).collect(),
    )
}

/// The statement that takes folded finishes off the queue.
pub fn drop_pending_statement(backend: DbBackend, ids: &[Uuid]) -> Statement {
    let (scope, values) = id_list("match_id", &padded(ids), 1);
    Statement::from_sql_and_values(
        backend,
        format!("DELETE FROM pending_finishes WHERE {scope}"),
        values,
    )
}

/// Whether the statistics of the pending finishes are still to be folded: a
/// rebuild of the totals (which counts every `stat_finished` row) clears it.
pub async fn forget_pending_stats(db: &impl ConnectionTrait) -> Result<(), DbErr> {
    db.execute_unprepared("UPDATE pending_finishes SET stats = FALSE WHERE stats")
        .await
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_padded_to_a_few_lengths() {
        let lens: std::collections::BTreeSet<usize> = (1..=1000).map(padded_len).collect();
        assert_eq!(
            lens.iter().copied().collect::<Vec<_>>(),
            vec![1, 4, 16, 64, 256, 512, 768, 1024]
        );
        for n in 1..=1000 {
            assert!(padded_len(n) >= n);
            let below = padded_len_below(n);
            assert!(below <= n && PADDED.contains(&below), "{n}");
        }
        assert_eq!(padded(&[1, 2, 3]), vec![1, 2, 3, 3]);
        assert!(padded::<u8>(&[]).is_empty());
    }
}
