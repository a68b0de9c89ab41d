//! Homes: reads without the version check while other replicas are about.
//!
//! With another replica about, a read of a match asks the database for the
//! version, because the other may have committed a change this one has not
//! heard of yet (see `Records::snapshot`). That round trip is spared for a
//! match this replica is the **home** of: the replica whose own moves keep
//! writing it, as behind a proxy that routes each match to one replica.
//!
//! A move statement claims the home for a lease (`HOME_LEASE_MS`), stored in
//! the match row (`home`, `home_until`). A trigger makes any other writer of
//! the row wait, under the row's lock, until the lease is over, and clears the
//! home at every write that does not claim it again. So while the lease runs,
//! nothing but the home's own writes can change the match, and the home's
//! snapshot from its last write is current without asking. The home trusts it
//! for nine tenths of the lease, counted from before the statement was sent
//! (the database counts from when it ran it, later), so that neither a
//! difference in clock rates nor a small clock step makes the two overlap.
//!
//! Claims are made only where they cost nothing: a move whose snapshot came
//! from this replica's own move before (`Snapshot::own_streak`), while other
//! replicas are about, and only while most of this replica's moves are such
//! (a running share, [`STICKY_ENOUGH`]). Clients spread over replicas
//! whatever the match (a load balancer that is not sticky) keep the share near
//! one half, so nothing is claimed and no writer ever waits; the reads there
//! ask as before.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::service::snapshots::Snapshot;
use crate::store::move_write::Home;

/// The running share of this replica's one-statement moves made on its own
/// previous move's snapshot, in millionths, above which it claims homes.
pub const STICKY_ENOUGH: u32 = 900_000;

/// Each move weighs this fraction (1/64) in the running share.
const SHARE_WEIGHT: u32 = 64;

/// A move claims its match's home when it is this replica's so-manieth move of
/// the match in a row: the first made on a read, the second on its snapshot.
pub const CLAIM_AFTER: u32 = 2;

/// This replica's homes.
pub struct Homes {
    replica: Uuid,
    lease: Duration,
    /// The running share of moves on the replica's own previous snapshot.
    share: AtomicU32,
}

impl Homes {
    pub fn new(replica: Uuid, lease: Duration) -> Self {
        Self {
            replica,
            lease,
            share: AtomicU32::new(0),
        }
    }

    /// The running share of moves made on this replica's own snapshot, in millionths.
    pub fn share(&self) -> u32 {
        self.share.load(Ordering::Relaxed)
    }

    fn observe(&self, own: bool) {
        let _ = self
            .share
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |s| {
                let step = if own { 1_000_000 / SHARE_WEIGHT } else { 0 };
                Some(s - s / SHARE_WEIGHT + step)
            });
    }

    /// What the statement of a move checked against `snap` does about the
    /// home; `others_about` is whether reads here ask the database at all,
    /// `deadline` the match's after the move.
    ///
    /// A move that leaves a deadline within the lease (a bot's turn, a seat
    /// that has forfeited, a short clock) claims nothing: the move due then
    /// may be made by any replica's deadline poller, which would wait.
    pub fn for_move(
        &self,
        snap: &Snapshot,
        others_about: bool,
        deadline: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Home {
        self.observe(snap.own_streak > 0);
        let claim = others_about && self.claims(snap.own_streak, deadline, now);
        Home {
            replica: Some(self.replica),
            claim_ms: claim.then_some(self.lease.as_millis() as i64),
        }
    }

    /// Whether a move on a snapshot of `own_streak` moves of this replica's
    /// own claims the home, leaving `deadline`.
    fn claims(&self, own_streak: u32, deadline: Option<DateTime<Utc>>, now: DateTime<Utc>) -> bool {
        let lease = chrono::Duration::from_std(self.lease).unwrap_or(chrono::Duration::MAX);
        own_streak + 1 >= CLAIM_AFTER
            && self.share() >= STICKY_ENOUGH
            && deadline.is_none_or(|at| at > now + lease)
    }

    /// Until when a snapshot written by a statement that claimed the home and
    /// was sent after `sent_after` may be trusted without asking.
    pub fn trusted_until(&self, sent_after: Instant) -> Instant {
        sent_after + self.lease * 9 / 10
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn share_after(own: impl IntoIterator<Item = bool>) -> u32 {
        let h = Homes::new(Uuid::nil(), Duration::from_secs(1));
        for o in own {
            h.observe(o);
        }
        h.share()
    }

    #[test]
    fn a_replica_whose_moves_follow_its_own_reaches_the_share_that_claims() {
        assert!(share_after(std::iter::repeat_n(true, 200)) >= STICKY_ENOUGH);
        // One move in 24 from a read (the first of each match) still claims.
        let matches = (0..400).map(|i| i % 24 != 0);
        assert!(share_after(matches) >= STICKY_ENOUGH);
    }

    #[test]
    fn clients_spread_over_replicas_whatever_the_match_never_reach_it() {
        assert!(share_after((0..10_000).map(|i| i % 2 == 0)) < STICKY_ENOUGH);
        // Three in four of a replica's moves on its own snapshot: still not.
        assert!(share_after((0..10_000).map(|i| i % 4 != 0)) < STICKY_ENOUGH);
        assert_eq!(share_after([]), 0);
    }

    #[test]
    fn a_claim_needs_a_move_of_its_own_before_a_sticky_share_and_no_deadline_within_the_lease() {
        let h = Homes::new(Uuid::nil(), Duration::from_secs(3));
        let now = Utc::now();
        assert!(!h.claims(5, None, now), "the share starts at nothing");
        for _ in 0..300 {
            h.observe(true);
        }
        assert!(h.claims(1, None, now));
        assert!(
            !h.claims(0, None, now),
            "a move made on a read claims nothing"
        );
        let soon = now + chrono::Duration::seconds(2);
        assert!(!h.claims(3, Some(soon), now), "a deadline within the lease");
        assert!(!h.claims(3, Some(now), now), "a move due at once");
        assert!(h.claims(3, Some(now + chrono::Duration::seconds(60)), now));
    }

    #[test]
    fn trust_ends_before_the_lease_the_database_counts() {
        let h = Homes::new(Uuid::nil(), Duration::from_millis(1000));
        let t = Instant::now();
        assert_eq!(h.trusted_until(t), t + Duration::from_millis(900));
    }
}
