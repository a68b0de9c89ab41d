//! What follows a committed write of a match: the snapshot kept in step, whoever
//! waits on the match woken (here and on the other replicas), and the signals
//! the background work listens for (a finish to fold, a tournament round that
//! may be complete, a move due at once).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::metrics::Metrics;
use crate::service::clock::Clock;
use crate::service::hub::Hub;
use crate::service::lifecycle::{ABORTED, FINISHED};
use crate::service::snapshots::SnapshotCache;
use crate::store::entities::matches;

/// After-commit work and the signals it raises.
pub struct Commits {
    snapshots: SnapshotCache,
    hub: Arc<Hub>,
    clock: Arc<dyn Clock>,
    metrics: Arc<Metrics>,
    /// Signalled when a match finished here: its ratings and totals are due.
    pub folds_due: tokio::sync::Notify,
    /// Whether a match ended here since the poller last looked at tournaments.
    pub tournaments_due: AtomicBool,
}

impl Commits {
    pub fn new(
        snapshots: SnapshotCache,
        hub: Arc<Hub>,
        clock: Arc<dyn Clock>,
        metrics: Arc<Metrics>,
    ) -> Self {
        Self {
            snapshots,
            hub,
            clock,
            metrics,
            folds_due: tokio::sync::Notify::new(),
            tournaments_due: AtomicBool::new(false),
        }
    }

    /// Wakes the folder: a match finished here.
    pub fn finish_to_fold(&self) {
        self.folds_due.notify_one();
    }

    pub fn count_move(&self, game: &str, completes_step: bool) {
        self.metrics.moves_accepted.with_label_values(&[game]).inc();
        if completes_step {
            self.metrics.steps_resolved.with_label_values(&[game]).inc();
        }
    }

    /// After a transaction that changed `m` committed: wakes whoever waits on the
    /// match, here and on the other replicas, and the poller when a move is due
    /// at once (a bot's, or a forfeited seat's).
    pub fn committed(&self, m: &matches::Model) {
        // A write that did not keep its own snapshot: an older one kept, or
        // one a read is about to put back, would otherwise be trusted.
        if self
            .snapshots
            .get(m.id)
            .is_none_or(|s| s.version() < m.version)
        {
            self.snapshots.forget(Some(m.id));
        }
        self.hub.changed(m.id);
        if m.status == FINISHED {
            self.finish_to_fold();
        }
        if m.status == FINISHED || m.status == ABORTED {
            // It may have been a tournament's: its round may be complete.
            self.tournament_match_over();
        }
        if m.deadline_at.is_some_and(|at| at <= self.clock.now()) {
            self.hub.due_now();
        }
    }

    /// Asks the poller to look at tournaments soon: a match ended here.
    pub fn tournament_match_over(&self) {
        self.tournaments_due.store(true, Ordering::Relaxed);
        self.hub.wake_poller();
    }
}
