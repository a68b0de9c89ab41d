//! Ratings and the statistics' running totals, brought up to date after a
//! match finishes rather than in the transaction that finishes it.
//!
//! Every finish updates rows that other finishes update too: the game's totals,
//! and the ratings of players who sit in many matches at once. Written by the
//! finishing move itself, they made it queue behind every other finish holding
//! them (most of the submit's p99). Now the finish queues a `pending_finishes`
//! row beside its results; one transaction at a time, across replicas, folds
//! the queue in batches, oldest first, and deletes what it
//! folded: each finish is folded exactly once. Reads of ratings and statistics
//! fold whatever is pending first, so they never answer without a finished
//! match; the folder here does it a moment after each finish, so the reads
//! seldom have to.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseConnection, DatabaseTransaction, DbBackend};
use uuid::Uuid;

use crate::service::commits::Commits;
use crate::service::error::{Error, Result};
use crate::service::hub::Hub;
use crate::service::skill::{Placed, default_rating, rate};
use crate::service::tx::transaction;
use crate::store;
use crate::store::entities::{matches, pending_finishes, ratings};
use crate::store::move_write::MoveLists;

/// Finished matches folded into ratings and statistics' totals.
pub struct Folds {
    db: DatabaseConnection,
    hub: Arc<Hub>,
    commits: Arc<Commits>,
    move_lists: MoveLists,
}

impl Folds {
    pub fn new(
        db: DatabaseConnection,
        hub: Arc<Hub>,
        commits: Arc<Commits>,
        move_lists: MoveLists,
    ) -> Self {
        Self {
            db,
            hub,
            commits,
            move_lists,
        }
    }
}

/// At most this many finishes per fold transaction.
const FOLD_BATCH: u64 = 256;
/// After a finish here, the folder waits this long for others to fold with it.
const GATHER: Duration = Duration::from_millis(20);
/// How often the folder looks for finishes nobody folded (another replica's,
/// whose folder stopped before it could).
const SWEEP: Duration = Duration::from_secs(2);

/// Queues the finish's records for its fold (its `stat_finished` row and its
/// `pending_finishes` row) in `batch`, with the finish's other writes.
pub(super) fn queue_finish(
    batch: &mut store::batch::Batch,
    backend: DbBackend,
    m: &matches::Model,
    placed: Option<Vec<Placed>>,
    at: DateTime<Utc>,
) -> Result<(), Error> {
    let stats = store::stats::stat_finished_statement(m, at, backend);
    if placed.is_none() && stats.is_none() {
        return Ok(());
    }
    let placed = placed
        .map(|p| serde_json::to_string(&p))
        .transpose()
        .map_err(Error::internal)?;
    let row = pending_finishes::Model {
        match_id: m.id,
        game: m.game.clone(),
        finished_at: at,
        placed,
        stats: stats.is_some(),
    };
    if let Some(st) = stats {
        batch.push_statement(st);
    }
    store::folds::queue_finish(batch, row, backend);
    Ok(())
}

/// The rating input queued with a finish. One that does not parse is left
/// out, loudly, rather than hold up every finish queued after it.
fn placed_of(row: &pending_finishes::Model) -> Option<Vec<Placed>> {
    let text = row.placed.as_deref()?;
    match serde_json::from_str(text) {
        Ok(p) => Some(p),
        Err(e) => {
            tracing::error!(match.id = %row.match_id, error = %e, "a finish's rating input does not parse; its ratings are left as they were");
            None
        }
    }
}

/// Applies one game's finishes to its ratings, in order: every player's row
/// locked once (made at the default when missing), updated in memory match by
/// match, written back once.
async fn fold_ratings(
    tx: &DatabaseTransaction,
    game: &str,
    finishes: &[(&pending_finishes::Model, Vec<Placed>)],
) -> Result<(), Error> {
    let Some((first, _)) = finishes.first() else {
        return Ok(());
    };
    let players: Vec<Uuid> = finishes
        .iter()
        .flat_map(|(_, p)| p.iter().map(|p| p.player))
        .collect();
    let locked =
        store::ratings::lock_ratings(tx, game, players, default_rating(), first.finished_at)
            .await?;
    let mut rows: HashMap<Uuid, ratings::Model> =
        locked.into_iter().map(|r| (r.player_id, r)).collect();
    let mut moved: BTreeSet<Uuid> = BTreeSet::new();
    let mut history = Vec::new();
    for (f, placed) in finishes {
        moved.extend(placed.iter().filter(|p| p.moves).map(|p| p.player));
        history.extend(rate(&mut rows, placed, game, f.match_id, f.finished_at));
    }
    let saved = moved.iter().filter_map(|p| rows.remove(p)).collect();
    store::ratings::save_ratings(tx, game, saved, history).await?;
    Ok(())
}

impl Folds {
    /// Folds every finish still pending. Reads of ratings and statistics call
    /// it first; it costs one probe of a small table when nothing is pending.
    pub(super) async fn settle_finishes(&self) -> Result<(), Error> {
        if !store::folds::any_pending_finish(&self.db).await? {
            return Ok(());
        }
        while self.fold_pending().await? == FOLD_BATCH as usize {}
        Ok(())
    }

    /// Folds finishes as they come, until the server stops.
    pub async fn run_folder(&self) {
        let mut stop = self.hub.shutdown_signal();
        loop {
            tokio::select! {
                _ = self.commits.folds_due.notified() => {
                    tokio::time::sleep(GATHER).await;
                }
                _ = tokio::time::sleep(SWEEP) => {}
                _ = stop.changed() => return,
            }
            if let Err(e) = self.settle_finishes().await {
                tracing::warn!(error = %e, "folding finished matches failed");
            }
        }
    }

    /// One fold transaction: the oldest pending finishes (at most
    /// [`FOLD_BATCH`]) applied to the ratings oldest first and
    /// summed into the totals, then taken off the queue. Answers how many.
    async fn fold_pending(&self) -> Result<usize, Error> {
        transaction!(&self.db, |tx| {
            store::folds::lock_folding(tx).await?;
            let rows = store::folds::pending_finishes(tx, FOLD_BATCH).await?;
            if rows.is_empty() {
                return Ok(0);
            }
            // Plain Postgres sends the statistics' folds as one statement.
            let combine = self.move_lists == store::move_write::MoveLists::Arrays
                && tx.get_database_backend() == sea_orm::DbBackend::Postgres;
            let games: BTreeSet<&str> = rows.iter().map(|r| r.game.as_str()).collect();
            for game in games {
                let of_game: Vec<(&pending_finishes::Model, Vec<Placed>)> = rows
                    .iter()
                    .filter(|r| r.game == game)
                    .filter_map(|r| placed_of(r).map(|p| (r, p)))
                    .collect();
                fold_ratings(tx, game, &of_game).await?;
            }
            let stats: Vec<Uuid> = rows
                .iter()
                .filter(|r| r.stats)
                .map(|r| r.match_id)
                .collect();
            store::stats::fold_finished(tx, &stats, combine).await?;
            let ids: Vec<Uuid> = rows.iter().map(|r| r.match_id).collect();
            tx.execute_raw(store::folds::drop_pending_statement(
                tx.get_database_backend(),
                &ids,
            ))
            .await?;
            Ok(rows.len())
        })
    }
}
