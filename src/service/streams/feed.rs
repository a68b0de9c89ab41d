//! One read of the event log for every stream of this process: the player
//! and match streams filter its batches, and the lobby relays its part of them.
//!
//! A player's stream used to read the log itself at every commit of one of its
//! matches: three queries per stream per commit, so that sixteen streams cut
//! the moves a second by three quarters. The feed reads each settled event
//! once, with who follows its match at that moment (the seats and the standing
//! invitations), and hands the batch to every stream; a stream filters it by
//! the same rule the database query applies ([`Batch::shown_to`]). A stream
//! that falls behind the feed (it started after a batch, or lagged) catches up
//! from the database and goes on from the batches. A match stream did the
//! same (four queries per stream per commit of its match) and now takes its
//! match's part of each batch, reading the database only for its chat, at its
//! start and where a batch cannot be trusted to continue it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use sea_orm::DatabaseConnection;
use tokio::sync::broadcast;
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

use super::PAGE;
use crate::service::clock::Clock;
use crate::service::error::Result;
use crate::service::hub::{Hub, Wake};
use crate::service::settled::Settled;
use crate::service::visibility::{event_in_scope, event_scope};
use crate::store;
use crate::store::entities::events;
use crate::store::streams::StreamPosition;

/// The least time between two reads: commits that come closer together share
/// a read, and a stream hears of an event at most this much later.
const GAP: Duration = Duration::from_millis(10);
/// How soon to read again while a committed event is not yet settled.
const UNSETTLED_RETRY: Duration = Duration::from_millis(50);
/// Batches kept for a stream that is busy writing to a slow reader; past them
/// it catches up from the database.
const BACKLOG: usize = 256;

/// Settled events of the log, in stream order, with who followed their matches
/// when they were read.
pub(in crate::service) struct Batch {
    /// The position the batch follows: every event after it up to `to` is here.
    pub from: StreamPosition,
    /// The position of its last event.
    pub to: StreamPosition,
    pub events: Vec<events::Model>,
    /// Each event's JSON ([`super::event_json`]), written once for every
    /// stream that sends it, by the first that does: a batch that only the
    /// lobby relay or the mail worker hears is never written.
    json: OnceLock<Vec<String>>,
    /// Whether the read stopped at its page's end, the next batch following
    /// at once. A read orders events by their writing transactions' ids, which
    /// for two transactions of one match need not be the order they committed
    /// in (the order of the events' own ids); only a page's end can part such
    /// a pair into two batches.
    pub more: bool,
    /// For each match of the batch, its followers: a seated player with its
    /// seat, an invitee with none.
    followers: HashMap<Uuid, Vec<(Uuid, Option<i32>)>>,
}

impl Batch {
    /// Each event's JSON, in the order of `events`.
    pub fn json(&self) -> Result<&[String]> {
        if let Some(json) = self.json.get() {
            return Ok(json);
        }
        let json = self
            .events
            .iter()
            .map(super::event_json)
            .collect::<Result<Vec<_>>>()?;
        // Two streams may write it at once; either copy is the same.
        Ok(self.json.get_or_init(|| json))
    }

    /// Whether `player`'s feed carries the event: the player holds a seat in its
    /// match or a standing invitation to it, and the event is public or
    /// addressed to the player's seat (as `store::streams::player_events_after`).
    pub fn shown_to(&self, player: Uuid, e: &events::Model) -> bool {
        let Some(seat) = self
            .followers
            .get(&e.match_id)
            .and_then(|f| f.iter().find(|(p, _)| *p == player))
            .map(|(_, seat)| *seat)
        else {
            return false;
        };
        event_in_scope(event_scope(seat.map(|s| s as usize)), e.audience_seat)
    }
}

pub(in crate::service) struct Feed {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    hub: Arc<Hub>,
    settled: Arc<Settled>,
    batches: broadcast::Sender<Arc<Batch>>,
    started: AtomicBool,
}

impl Feed {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        hub: Arc<Hub>,
        settled: Arc<Settled>,
    ) -> Arc<Self> {
        let (batches, _) = broadcast::channel(BACKLOG);
        Arc::new(Self {
            db,
            clock,
            hub,
            settled,
            batches,
            started: AtomicBool::new(false),
        })
    }

    /// The batches from now on; the reader starts with the first subscriber.
    pub fn subscribe(self: &Arc<Self>) -> broadcast::Receiver<Arc<Batch>> {
        let rx = self.batches.subscribe();
        if !self.started.swap(true, Ordering::AcqRel) {
            let this = self.clone();
            tokio::spawn(async move { this.run().await });
        }
        rx
    }

    async fn run(&self) {
        let mut wakes = self.hub.subscribe();
        let mut stop = self.hub.shutdown_signal();
        // Unknown while nobody listens: a stream that comes catches up from the
        // database, and the feed starts at the head of the log.
        let mut at: Option<StreamPosition> = None;
        loop {
            let read_at = tokio::time::Instant::now();
            let mut retry = None;
            if self.batches.receiver_count() == 0 {
                at = None;
            } else {
                match self.read(at).await {
                    Ok((to, pending)) => {
                        at = Some(to);
                        retry = pending.then_some(UNSETTLED_RETRY);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "reading the event log for the streams failed");
                        retry = Some(UNSETTLED_RETRY);
                    }
                }
            }
            // Commits that came while reading are in what was read, or wake
            // the feed again below.
            tokio::select! {
                open = next_change(&mut wakes) => if !open { return },
                _ = async {
                    match retry {
                        Some(d) => tokio::time::sleep(d).await,
                        None => std::future::pending().await,
                    }
                } => {}
                _ = stop.changed() => return,
            }
            let since = read_at.elapsed();
            if since < GAP {
                tokio::time::sleep(GAP - since).await;
            }
            while wakes.try_recv().is_ok() {}
        }
    }

    /// Reads and sends what settled after `at` (after the head of the log when
    /// `None`): where the feed stands then, and whether an event committed
    /// after it is still unsettled.
    async fn read(&self, at: Option<StreamPosition>) -> Result<(StreamPosition, bool)> {
        let mut at = match at {
            Some(at) => at,
            None => store::streams::stream_head(&self.db).await?,
        };
        loop {
            let settled = self.settled.settled_tx().await?;
            let events = store::streams::log_after(&self.db, at, settled, PAGE).await?;
            let Some(last) = events.last() else {
                let pending = store::streams::log_pending(&self.db, at, settled).await?;
                return Ok((at, pending));
            };
            let to = StreamPosition {
                tx: last.tx,
                id: last.id,
            };
            let full = events.len() as u64 == PAGE;
            let mut batch = self.batch(at, to, events).await?;
            batch.more = full;
            // Nobody listening is no error: the next read starts at the head.
            let _ = self.batches.send(Arc::new(batch));
            at = to;
            if !full {
                // The watermark the read used, not a newer one: an event that
                // settled after the read and is above this one still counts
                // as pending, so the feed reads again instead of waiting for a
                // wake-up that came already.
                let pending = store::streams::log_pending(&self.db, at, settled).await?;
                return Ok((at, pending));
            }
        }
    }

    async fn batch(
        &self,
        from: StreamPosition,
        to: StreamPosition,
        events: Vec<events::Model>,
    ) -> Result<Batch> {
        let mut matches: Vec<Uuid> = events.iter().map(|e| e.match_id).collect();
        matches.sort_unstable();
        matches.dedup();
        let mut followers: HashMap<Uuid, Vec<(Uuid, Option<i32>)>> = HashMap::new();
        for s in store::matches::seats_of_matches(&self.db, matches.clone()).await? {
            followers
                .entry(s.match_id)
                .or_default()
                .push((s.player_id, Some(s.seat)));
        }
        for (m, p) in store::community::invitees_of(&self.db, matches, self.clock.now()).await? {
            let f = followers.entry(m).or_default();
            // A seat counts before an invitation (the SQL's `OR` of the two).
            if !f.iter().any(|(q, _)| *q == p) {
                f.push((p, None));
            }
        }
        Ok(Batch {
            from,
            to,
            events,
            json: OnceLock::new(),
            more: false,
            followers,
        })
    }
}

/// Waits for a wake-up that may have written events: a chat message writes
/// none. False once the hub is gone.
async fn next_change(wakes: &mut broadcast::Receiver<Wake>) -> bool {
    loop {
        match wakes.recv().await {
            Ok(Wake::Chat(_)) => continue,
            Err(RecvError::Closed) => return false,
            Ok(_) | Err(RecvError::Lagged(_)) => return true,
        }
    }
}
