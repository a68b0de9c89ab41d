//! What this process knows of recently used matches, each as of one version.
//!
//! A snapshot is a match's row (without the text of its state), its seats, the
//! names of its players and owner, and its state parsed into the game's types: all
//! a read renders from and all a move checks against. It is valid for exactly the
//! version it was read or written at, because every change of a match's row, its
//! seats or its state raises `version` (the service never writes one without the
//! other). So a read asks the database for the version alone and renders from the
//! snapshot when they agree; a move is written with `version = <snapshot's>` as its
//! condition and, when another writer came first, falls back to reading everything
//! under the row lock. A stale or missing snapshot costs a read, never a wrong
//! answer, whichever replica wrote the match.
//!
//! Only what is committed enters: snapshots are put after a read outside any
//! transaction, after a read under the row lock before anything is written, or
//! after the commit of the transaction (or single statement) that wrote them. A
//! version written by a transaction that rolled back can never be cached.
//!
//! The cache is bounded by an estimate of its entries' bytes (least recently used
//! leave first), so memory does not grow with the matches that merely exist.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use quick_cache::Weighter;
use quick_cache::sync::Cache;
use uuid::Uuid;

use crate::games::AnyState;
use crate::store::entities::{match_seats, matches};

/// A match as of one version (see the module's documentation).
#[derive(Clone)]
pub struct Snapshot {
    /// The row, with `state: None`: the parsed state below replaces its text.
    pub row: matches::Model,
    pub seats: Vec<match_seats::Model>,
    /// Names of the seated players and of the owner.
    pub names: HashMap<Uuid, String>,
    pub state: Option<AnyState>,
    /// When the names were read: a name can change without the match changing.
    pub names_read: Instant,
    /// The bytes this snapshot is estimated to hold.
    pub weight: u64,
    /// How many of the match's moves in a row, up to this version, this
    /// replica wrote in one statement (0 for a snapshot read or written
    /// otherwise); see `service::homes`.
    pub own_streak: u32,
    /// Until when this replica is the match's home at this version, so that a
    /// read needs no check (see `service::homes`).
    pub trusted_until: Option<Instant>,
}

/// How long names read with a snapshot are trusted. A read after that reads the
/// match again (one statement) and so picks up a renamed or anonymised player.
pub const NAMES_MAX_AGE: Duration = Duration::from_secs(60);

impl Snapshot {
    /// `row` as read or written, its state's stored text length given so that the
    /// cache can weigh the parsed state (of the same order of bytes).
    pub fn new(
        mut row: matches::Model,
        seats: Vec<match_seats::Model>,
        names: HashMap<Uuid, String>,
        state: Option<AnyState>,
        state_text_len: usize,
    ) -> Self {
        row.state = None;
        let weight = 512
            + 2 * state_text_len as u64
            + row.options.len() as u64
            + row.position.as_ref().map_or(0, |p| p.len() as u64)
            + 160 * seats.len() as u64
            + names.values().map(|n| 48 + n.len() as u64).sum::<u64>();
        Self {
            row,
            seats,
            names,
            state,
            names_read: Instant::now(),
            weight,
            own_streak: 0,
            trusted_until: None,
        }
    }

    pub fn version(&self) -> i64 {
        self.row.version
    }

    /// Whether its names are recent enough to answer a read with.
    pub fn names_fresh(&self) -> bool {
        self.names_read.elapsed() < NAMES_MAX_AGE
    }

    /// Whether this replica is the match's home at this version, its lease
    /// still running: no other writer can have changed the match.
    pub fn home_now(&self) -> bool {
        self.trusted_until.is_some_and(|t| Instant::now() < t)
    }
}

#[derive(Clone)]
struct ByWeight;

impl Weighter<Uuid, Arc<Snapshot>> for ByWeight {
    fn weight(&self, _: &Uuid, s: &Arc<Snapshot>) -> u64 {
        s.weight
    }
}

/// Clones share the same entries (the hub drops them when other replicas
/// change their matches).
#[derive(Clone)]
pub struct SnapshotCache {
    entries: Option<Arc<Cache<Uuid, Arc<Snapshot>, ByWeight>>>,
    /// Counts the drops for changes heard of, per bucket of match ids, so that
    /// a read that began before one does not put back what it read (the change
    /// may be newer). Buckets, so that one match's changes do not keep every
    /// other match's reads out of the cache.
    forgotten: Arc<Vec<AtomicU64>>,
}

const FORGET_BUCKETS: usize = 1024;

fn bucket(id: Uuid) -> usize {
    (id.as_u128() % FORGET_BUCKETS as u128) as usize
}

/// A four-seat Malacca snapshot weighs about 10 KiB; the figure only sizes the table.
const TYPICAL_ENTRY_BYTES: u64 = 10 * 1024;

impl SnapshotCache {
    /// A cache of at most `bytes`; 0 keeps nothing.
    pub fn new(bytes: u64) -> Self {
        let entries = (bytes > 0).then(|| {
            let items = (bytes / TYPICAL_ENTRY_BYTES).clamp(16, 1 << 20) as usize;
            Arc::new(Cache::with_weighter(items, bytes, ByWeight))
        });
        Self {
            entries,
            forgotten: Arc::new((0..FORGET_BUCKETS).map(|_| AtomicU64::new(0)).collect()),
        }
    }

    /// Drops the snapshot of a match changed elsewhere (`None`: of every
    /// match, when changes may have been missed).
    pub fn forget(&self, id: Option<Uuid>) {
        match id {
            Some(id) => {
                self.forgotten[bucket(id)].fetch_add(1, Ordering::SeqCst);
            }
            None => {
                for b in self.forgotten.iter() {
                    b.fetch_add(1, Ordering::SeqCst);
                }
            }
        }
        let Some(entries) = &self.entries else { return };
        match id {
            Some(id) => {
                entries.remove(&id);
            }
            None => entries.clear(),
        }
    }

    /// Where the drops stand: taken before a read of the database, given to
    /// [`Self::put_read`] after it.
    pub fn mark(&self, id: Uuid) -> u64 {
        self.forgotten[bucket(id)].load(Ordering::SeqCst)
    }

    /// Keeps a snapshot read from the database, unless a change of its match
    /// was heard of since `mark` (what was read may be older than that change).
    pub fn put_read(&self, snapshot: Arc<Snapshot>, mark: u64) {
        if self.mark(snapshot.row.id) == mark {
            self.put(snapshot);
        }
    }

    /// The latest snapshot kept of match `id`, whatever its version.
    pub fn get(&self, id: Uuid) -> Option<Arc<Snapshot>> {
        self.entries.as_ref()?.get(&id)
    }

    /// The snapshot of match `id` at exactly `version`.
    pub fn get_at(&self, id: Uuid, version: i64) -> Option<Arc<Snapshot>> {
        self.get(id).filter(|s| s.version() == version)
    }

    /// Keeps a committed snapshot, unless a later version is kept already (two
    /// requests may finish in either order).
    pub fn put(&self, snapshot: Arc<Snapshot>) {
        let Some(entries) = &self.entries else { return };
        let id = snapshot.row.id;
        if entries
            .get(&id)
            .is_some_and(|kept| kept.version() > snapshot.version())
        {
            return;
        }
        entries.insert(id, snapshot);
    }

    /// Drops every snapshot that names `player` (seated or owning), so that
    /// the next read of those matches reads their names again: after the
    /// player's account was deleted (or `None`: every snapshot).
    pub fn forget_player(&self, player: Option<Uuid>) {
        let Some(entries) = &self.entries else { return };
        match player {
            Some(p) => entries.retain(|_, s| !s.names.contains_key(&p)),
            None => entries.clear(),
        }
    }

    /// Entries kept and their weight in bytes (for /metrics).
    pub fn usage(&self) -> (u64, u64) {
        self.entries
            .as_ref()
            .map_or((0, 0), |c| (c.len() as u64, c.weight()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Utc;

    fn row(version: i64) -> matches::Model {
        let now = Utc::now();
        matches::Model {
            id: Uuid::nil(),
            game: "malacca".into(),
            status: "active".into(),
            seat_count: 3,
            owner_id: None,
            options: "{}".into(),
            position: None,
            rated: true,
            seed: vec![0; 32],
            seed_sha256: String::new(),
            state: Some("x".repeat(4000)),
            step: 0,
            version,
            engine_version: "1".into(),
            data_sha256: String::new(),
            created_at: now,
            started_at: None,
            finished_at: None,
            updated_at: now,
            variant: String::new(),
            deadline_at: None,
            move_time_limit: None,
            absent_move_time_limit: None,
            timeout_policy: None,
            step_started_at: None,
            visibility: "public".into(),
            spectators: true,
            join_code: None,
            rematch_of: None,
            chat: "players".into(),
            club_id: None,
            bank_initial_seconds: None,
            bank_increment_seconds: None,
            bank_cap_seconds: None,
            playing_hours_zone: None,
            playing_hours_from: None,
            playing_hours_to: None,
            grace_extensions: None,
            grace_seconds: None,
        }
    }

    fn snap(id: Uuid, version: i64) -> Arc<Snapshot> {
        let mut r = row(version);
        r.id = id;
        Arc::new(Snapshot::new(r, Vec::new(), HashMap::new(), None, 4000))
    }

    #[test]
    fn a_read_that_began_before_a_change_was_heard_does_not_put_back_what_it_read() {
        let cache = SnapshotCache::new(1 << 20);
        let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
        let (mark_a, mark_b) = (cache.mark(a), cache.mark(b));
        cache.forget(Some(a));
        cache.put_read(snap(a, 3), mark_a);
        assert!(cache.get(a).is_none(), "a change of its match came between");
        cache.put_read(snap(b, 3), mark_b);
        assert!(cache.get(b).is_some() || super::bucket(a) == super::bucket(b));
        // A clone shares the entries: what the hub drops is gone for the service.
        let shared = cache.clone();
        cache.put(snap(a, 4));
        shared.forget(None);
        assert!(cache.get(a).is_none() && cache.get(b).is_none());
    }

    #[test]
    fn a_snapshot_answers_only_for_its_version_and_drops_the_state_text() {
        let cache = SnapshotCache::new(1 << 20);
        let id = Uuid::now_v7();
        cache.put(snap(id, 3));
        assert!(cache.get_at(id, 3).is_some());
        assert!(cache.get_at(id, 4).is_none());
        assert!(cache.get_at(Uuid::now_v7(), 3).is_none());
        assert!(cache.get(id).is_some_and(|s| s.row.state.is_none()));
    }

    #[test]
    fn an_older_version_never_replaces_a_newer_one() {
        let cache = SnapshotCache::new(1 << 20);
        let id = Uuid::now_v7();
        cache.put(snap(id, 5));
        cache.put(snap(id, 4));
        assert_eq!(cache.get(id).map(|s| s.version()), Some(5));
        cache.put(snap(id, 6));
        assert_eq!(cache.get(id).map(|s| s.version()), Some(6));
    }

    #[test]
    fn the_cache_stays_within_its_bytes() {
        let cache = SnapshotCache::new(256 * 1024);
        for _ in 0..1000 {
            cache.put(snap(Uuid::now_v7(), 1));
        }
        let (n, bytes) = cache.usage();
        assert!(bytes <= 256 * 1024, "{bytes}");
        assert!((1..1000).contains(&n), "{n}");
    }
}
