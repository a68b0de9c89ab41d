//! A match as stored and as this process keeps it: its state parsed from the
//! row's text, and its latest snapshot (see `snapshots`), read whole when the
//! database says the kept one is stale.

use std::collections::HashMap;
use std::sync::Arc;

use sea_orm::{ConnectionTrait, DatabaseConnection};
use uuid::Uuid;

use crate::games::AnyState;
use crate::metrics::Metrics;
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::homes::Homes;
use crate::service::hub::Hub;
use crate::service::lifecycle::not_found;
use crate::service::snapshots::{Snapshot, SnapshotCache};
use crate::store;
use crate::store::entities::{match_seats, matches};

/// A match as stored and as kept in this process: its parsed state and its latest snapshot.
pub struct Records {
    db: DatabaseConnection,
    games: Arc<Games>,
    snapshots: SnapshotCache,
    hub: Arc<Hub>,
    notified_reads: bool,
    /// This replica's homes, where it takes part in them (plain Postgres,
    /// reads not `checked`, a lease set).
    homes: Option<Arc<Homes>>,
    metrics: Arc<Metrics>,
}

/// What [`Records::new`] is built from.
pub struct RecordsParts {
    pub db: DatabaseConnection,
    pub games: Arc<Games>,
    pub snapshots: SnapshotCache,
    pub hub: Arc<Hub>,
    pub notified_reads: bool,
    pub homes: Option<Arc<Homes>>,
    pub metrics: Arc<Metrics>,
}

impl Records {
    pub fn new(p: RecordsParts) -> Self {
        Self {
            db: p.db,
            games: p.games,
            snapshots: p.snapshots,
            hub: p.hub,
            notified_reads: p.notified_reads,
            homes: p.homes,
            metrics: p.metrics,
        }
    }

    /// This replica's homes, where it takes part in them.
    pub fn homes(&self) -> Option<&Arc<Homes>> {
        self.homes.as_ref()
    }

    fn count_read(&self, how: &str) {
        self.metrics.match_reads.with_label_values(&[how]).inc();
    }
}

impl Records {
    /// The snapshot kept of a match, whatever its version.
    pub fn kept(&self, id: Uuid) -> Option<Arc<Snapshot>> {
        self.snapshots.get(id)
    }

    /// Has the hub drop the snapshot of every match another replica changes,
    /// before anybody waiting on it is woken. Call once, before the hub listens.
    pub fn watch_remote_changes(&self) {
        let cache = self.snapshots.clone();
        self.hub
            .on_remote_change(Box::new(move |id| cache.forget(id)));
    }
}

impl Records {
    /// The typed state of `m`: the snapshot's when one of that very version is
    /// kept (see [`super::snapshots`]), else parsed from the row's text.
    pub(super) async fn state_of(&self, m: &matches::Model) -> Result<Option<AnyState>, Error> {
        if let Some(kept) = self.snapshots.get_at(m.id, m.version) {
            return Ok(kept.state.clone());
        }
        let Some(text) = m.state.as_deref() else {
            return Ok(None);
        };
        self.games.parse_stored(m, text).await.map(Some)
    }

    /// Stores `state` in `m` as text.
    pub(super) fn set_state(&self, m: &mut matches::Model, state: &AnyState) -> Result<(), Error> {
        m.state = Some(self.games.of(&m.game)?.state_text(state)?);
        Ok(())
    }

    /// Keeps what a committed write left, so that the next read or move of the
    /// match in this process needs neither a full read nor a parse. The names come
    /// from the snapshot kept before (a write that changes who is seated is not
    /// kept: the next read reads it whole).
    pub(super) fn keep_written(
        &self,
        m: &matches::Model,
        seats: &[match_seats::Model],
        state: Option<AnyState>,
    ) {
        let Some(before) = self.snapshots.get(m.id) else {
            return;
        };
        if before.seats.len() != seats.len()
            || before
                .seats
                .iter()
                .zip(seats)
                .any(|(a, b)| a.player_id != b.player_id)
            || m.owner_id != before.row.owner_id
        {
            return;
        }
        let text_len = m.state.as_ref().map_or(0, String::len);
        let mut snap = Snapshot::new(
            m.clone(),
            seats.to_vec(),
            before.names.clone(),
            state,
            text_len,
        );
        snap.names_read = before.names_read;
        self.snapshots.put(Arc::new(snap));
    }

    /// Whether a read now answers from the kept snapshot without asking the
    /// database for the version (this replica hears of every change).
    pub fn reads_from_snapshots(&self) -> bool {
        self.notified_reads && self.hub.hears_every_change()
    }

    /// The match at `version` or later: what [`Self::snapshot`] gives, read
    /// from the database when that is older. A stream that sent an event of
    /// version v may find the kept snapshot still before it (the feed read the
    /// committed event before the writer kept its new snapshot); a prompt
    /// drawn from that would say the turn is not yet the reader's, and nothing
    /// would tell it otherwise until the match moved again.
    ///
    /// A kept snapshot at `version` or later answers without asking the
    /// database, even with other replicas about: the caller asks for no more
    /// than what it was just told of (a move's own answer, a stream's event),
    /// and a later change reaches it as its own answer or event.
    pub(super) async fn snapshot_at_least(
        &self,
        id: Uuid,
        version: i64,
    ) -> Result<Arc<Snapshot>, Error> {
        if let Some(kept) = self
            .snapshots
            .get(id)
            .filter(|s| s.names_fresh() && s.version() >= version)
        {
            return Ok(kept);
        }
        let snap = self.snapshot(id).await?;
        if snap.version() >= version {
            return Ok(snap);
        }
        self.read_snapshot(id).await
    }

    /// The match as of its latest version: the kept snapshot when this replica
    /// hears of every change or is the match's home (see [`super::homes`]),
    /// or when the database says it is current (one primary-key read); else
    /// read whole and kept.
    pub(super) async fn snapshot(&self, id: Uuid) -> Result<Arc<Snapshot>, Error> {
        if let Some(kept) = self.snapshots.get(id).filter(|s| s.names_fresh()) {
            if self.reads_from_snapshots() {
                self.count_read("kept");
                return Ok(kept);
            }
            if kept.home_now() {
                self.count_read("home");
                return Ok(kept);
            }
            match store::matches::match_version(&self.db, id).await? {
                Some(v) if v == kept.version() => {
                    self.count_read("checked");
                    return Ok(kept);
                }
                None => return Err(not_found()),
                Some(_) => {}
            }
        }
        self.count_read("read");
        self.read_snapshot(id).await
    }

    /// Reads a match whole (one statement) and keeps it.
    pub(super) async fn read_snapshot(&self, id: Uuid) -> Result<Arc<Snapshot>, Error> {
        self.try_read_snapshot(id).await?.ok_or_else(not_found)
    }

    /// [`Self::read_snapshot`], `None` when there is no such match.
    pub(super) async fn try_read_snapshot(&self, id: Uuid) -> Result<Option<Arc<Snapshot>>, Error> {
        let mark = self.snapshots.mark(id);
        let Some(read) = store::matches::match_snapshot(&self.db, id).await? else {
            return Ok(None);
        };
        let mut names: HashMap<Uuid, String> = read.names.into_iter().collect();
        if let Some(owner) = read.row.owner_id
            && !names.contains_key(&owner)
        {
            names.extend(store::players::names_by_id(&self.db, vec![owner]).await?);
        }
        let text_len = read.row.state.as_ref().map_or(0, String::len);
        let state = match read.row.state.as_deref() {
            Some(text) => Some(self.games.parse_stored(&read.row, text).await?),
            None => None,
        };
        let snap = Arc::new(Snapshot::new(read.row, read.seats, names, state, text_len));
        self.snapshots.put_read(snap.clone(), mark);
        Ok(Some(snap))
    }

    pub(super) async fn names(
        &self,
        db: &impl ConnectionTrait,
        seats: &[match_seats::Model],
        owner: Option<Uuid>,
    ) -> Result<HashMap<Uuid, String>, Error> {
        let mut ids: Vec<Uuid> = seats.iter().map(|s| s.player_id).collect();
        ids.extend(owner);
        ids.sort();
        ids.dedup();
        Ok(store::players::players_by_ids(db, ids)
            .await?
            .into_iter()
            .map(|p| (p.id, p.name))
            .collect())
    }
}
