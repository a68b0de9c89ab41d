//! One read of the event log for every stream of this process: the player
//! and match streams filter its batches, and the lobby relays its part of them.
//!
//! A player's stream used to read the log itself at every commit of one of its
//! matches: three queries per stream per commit, so that sixteen streams cut
//! the moves a second by three quarters. The feed reads each settled event
//! once and hands the batch to every stream; a player's stream filters it by
//! who follows each match (the seats and the standing invitations, read once
//! per batch for all player streams, by the first that asks) and the same rule
//! the database query applies ([`Followers::shown_to`]). A stream
//! that falls behind the feed (it started after a batch, or lagged) catches up
//! from the database and goes on from the batches. A match stream did the
//! same (four queries per stream per commit of its match) and now takes its
//! match's part of each batch, reading the database only for its chat, at its
//! start and where a batch cannot be trusted to continue it.
//!
//! A match stream is handed only the batches that hold an event of its match
//! ([`Feed::subscribe_match`]): with every stream woken by every batch, two
//! hundred match streams cost the server a quarter more per move, nearly all
//! of it streams finding that the batch was other matches'.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Duration;

use sea_orm::DatabaseConnection;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{Notify, broadcast};
use uuid::Uuid;

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
/// The most events one read of the log takes. A batch that ends at a full
/// page may have parted two events of one match (see [`Batch::more`]), and
/// every match stream of its matches then reads the database: with pages of
/// the streams' own 200 events, a drive of 3,000 moves a second filled nearly
/// every page, and two hundred match streams made four queries each at almost
/// every move (docs/benchmarks.md, "Match streams kept on the feed's batches").
const FEED_PAGE: u64 = 2_000;
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
    /// For each match of the batch, its followers: read for the first player
    /// stream that asks, so a batch that only match streams, the lobby relay
    /// or nobody hears costs no read of them.
    followers: tokio::sync::OnceCell<Followers>,
}

/// For each match, its followers: a seated player with its seat, an invitee
/// with none.
pub(in crate::service) struct Followers(HashMap<Uuid, Vec<(Uuid, Option<i32>)>>);

impl Followers {
    /// Whether `player`'s feed carries the event: the player holds a seat in its
    /// match or a standing invitation to it, and the event is public or
    /// addressed to the player's seat (as `store::streams::player_events_after`).
    pub fn shown_to(&self, player: Uuid, e: &events::Model) -> bool {
        let Some(seat) = self
            .0
            .get(&e.match_id)
            .and_then(|f| f.iter().find(|(p, _)| *p == player))
            .map(|(_, seat)| *seat)
        else {
            return false;
        };
        event_in_scope(event_scope(seat.map(|s| s as usize)), e.audience_seat)
    }
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

    /// Who follows the batch's matches, as of the first call: the seats and
    /// the standing invitations (the SQL's `OR` of the two, a seat counting
    /// before an invitation).
    pub async fn followers(
        &self,
        db: &DatabaseConnection,
        clock: &dyn Clock,
    ) -> Result<&Followers> {
        self.followers
            .get_or_try_init(|| async {
                let mut matches: Vec<Uuid> = self.events.iter().map(|e| e.match_id).collect();
                matches.sort_unstable();
                matches.dedup();
                let mut followers: HashMap<Uuid, Vec<(Uuid, Option<i32>)>> = HashMap::new();
                for s in store::matches::seats_of_matches(db, matches.clone()).await? {
                    followers
                        .entry(s.match_id)
                        .or_default()
                        .push((s.player_id, Some(s.seat)));
                }
                for (m, p) in store::community::invitees_of(db, matches, clock.now()).await? {
                    let f = followers.entry(m).or_default();
                    if !f.iter().any(|(q, _)| *q == p) {
                        f.push((p, None));
                    }
                }
                Ok(Followers(followers))
            })
            .await
    }
}

pub(in crate::service) struct Feed {
    db: DatabaseConnection,
    hub: Arc<Hub>,
    settled: Arc<Settled>,
    batches: broadcast::Sender<Arc<Batch>>,
    /// The match streams, by match: each is handed the batches that hold an
    /// event of its match.
    by_match: Mutex<HashMap<Uuid, Vec<Weak<Inbox>>>>,
    started: AtomicBool,
}

/// A match stream's batches, waiting for it to take them.
struct Inbox {
    queue: Mutex<Queue>,
    /// One waiter, the stream: a batch handed while it is busy leaves a
    /// permit, so it is never missed between a look at the queue and the wait.
    ready: Notify,
}

#[derive(Default)]
struct Queue {
    batches: VecDeque<Arc<Batch>>,
    /// More than [`BACKLOG`] batches came before the stream took them: they
    /// were dropped, and the stream catches up from the database.
    lagged: bool,
}

/// A match stream's receiver of the feed's batches: only those holding an
/// event of its match, in the feed's order, from its subscription on.
pub(in crate::service) struct MatchBatches {
    feed: Arc<Feed>,
    id: Uuid,
    inbox: Arc<Inbox>,
}

/// What [`MatchBatches::recv`] brings.
pub(in crate::service) enum MatchBatch {
    Batch(Arc<Batch>),
    /// Batches were dropped while the stream was busy: read the database.
    Lagged,
}

impl MatchBatches {
    /// The next batch of the match, waiting for it.
    pub async fn recv(&self) -> MatchBatch {
        loop {
            {
                let mut q = lock(&self.inbox.queue);
                if std::mem::take(&mut q.lagged) {
                    return MatchBatch::Lagged;
                }
                if let Some(b) = q.batches.pop_front() {
                    return MatchBatch::Batch(b);
                }
            }
            self.inbox.ready.notified().await;
        }
    }
}

impl Drop for MatchBatches {
    fn drop(&mut self) {
        let mut by_match = lock(&self.feed.by_match);
        if let Some(inboxes) = by_match.get_mut(&self.id) {
            inboxes.retain(|w| w.strong_count() > 0 && !std::ptr::eq(w.as_ptr(), &*self.inbox));
            if inboxes.is_empty() {
                by_match.remove(&self.id);
            }
        }
    }
}

/// A poisoned lock holds nothing a panic could have left half written (a
/// queue of batches, a list of receivers), so it is taken as it is.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Feed {
    pub fn new(db: DatabaseConnection, hub: Arc<Hub>, settled: Arc<Settled>) -> Arc<Self> {
        let (batches, _) = broadcast::channel(BACKLOG);
        Arc::new(Self {
            db,
            hub,
            settled,
            batches,
            by_match: Mutex::new(HashMap::new()),
            started: AtomicBool::new(false),
        })
    }

    /// The batches from now on; the reader starts with the first subscriber.
    pub fn subscribe(self: &Arc<Self>) -> broadcast::Receiver<Arc<Batch>> {
        let rx = self.batches.subscribe();
        self.start();
        rx
    }

    /// The batches from now on that hold an event of match `id`.
    pub fn subscribe_match(self: &Arc<Self>, id: Uuid) -> MatchBatches {
        let inbox = Arc::new(Inbox {
            queue: Mutex::new(Queue::default()),
            ready: Notify::new(),
        });
        lock(&self.by_match)
            .entry(id)
            .or_default()
            .push(Arc::downgrade(&inbox));
        self.start();
        MatchBatches {
            feed: self.clone(),
            id,
            inbox,
        }
    }

    fn start(self: &Arc<Self>) {
        if !self.started.swap(true, Ordering::AcqRel) {
            let this = self.clone();
            tokio::spawn(async move { this.run().await });
        }
    }

    fn listened_to(&self) -> bool {
        self.batches.receiver_count() > 0 || !lock(&self.by_match).is_empty()
    }

    /// Hands a batch to every stream of a match it holds an event of, then
    /// to every other subscriber.
    fn send(&self, batch: Batch) {
        let batch = Arc::new(batch);
        let mut matches: Vec<Uuid> = batch.events.iter().map(|e| e.match_id).collect();
        matches.sort_unstable();
        matches.dedup();
        {
            let by_match = lock(&self.by_match);
            for inbox in matches
                .iter()
                .filter_map(|m| by_match.get(m))
                .flatten()
                .filter_map(Weak::upgrade)
            {
                {
                    let mut q = lock(&inbox.queue);
                    if q.batches.len() >= BACKLOG {
                        q.batches.clear();
                        q.lagged = true;
                    } else {
                        q.batches.push_back(batch.clone());
                    }
                }
                inbox.ready.notify_one();
            }
        }
        // Nobody listening is no error: the next read starts at the head.
        let _ = self.batches.send(batch);
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
            if !self.listened_to() {
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
            // The pending it tells is of the watermark the read used, not a
            // newer one: an event that settled since still counts as pending,
            // so the feed reads again instead of waiting for a wake-up that
            // came already.
            let (events, pending) =
                store::streams::log_page(&self.db, at, settled, FEED_PAGE).await?;
            let Some(last) = events.last() else {
                return Ok((at, pending));
            };
            let to = StreamPosition {
                tx: last.tx,
                id: last.id,
            };
            let full = events.len() as u64 == FEED_PAGE;
            let mut batch = Self::batch(at, to, events);
            batch.more = full;
            self.send(batch);
            at = to;
            if !full {
                return Ok((at, pending));
            }
        }
    }

    fn batch(from: StreamPosition, to: StreamPosition, events: Vec<events::Model>) -> Batch {
        Batch {
            from,
            to,
            events,
            json: OnceLock::new(),
            more: false,
            followers: tokio::sync::OnceCell::new(),
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A feed whose reader never starts: the tests hand it batches themselves.
    fn quiet_feed() -> Arc<Feed> {
        let db = DatabaseConnection::default();
        let feed = Feed::new(
            db.clone(),
            Arc::new(Hub::new(false)),
            Arc::new(Settled::new(db)),
        );
        feed.started.store(true, Ordering::Release);
        feed
    }

    fn batch(ids: &[(Uuid, i64)]) -> Batch {
        let events: Vec<events::Model> = ids
            .iter()
            .map(|&(match_id, id)| events::Model {
                id,
                match_id,
                version: id,
                audience_seat: None,
                kind: "step_resolved".into(),
                data: "{}".into(),
                created_at: chrono::Utc::now(),
                tx: id,
            })
            .collect();
        let at = |id: i64| StreamPosition { tx: id, id };
        Batch {
            from: at(ids[0].1 - 1),
            to: at(ids[ids.len() - 1].1),
            events,
            json: OnceLock::new(),
            more: false,
            followers: tokio::sync::OnceCell::new(),
        }
    }

    /// The next batch the receiver holds, without waiting for one.
    async fn now(rx: &MatchBatches) -> Option<MatchBatch> {
        tokio::time::timeout(Duration::from_millis(20), rx.recv())
            .await
            .ok()
    }

    fn first_event(b: Option<MatchBatch>) -> Option<i64> {
        match b {
            Some(MatchBatch::Batch(b)) => Some(b.events[0].id),
            _ => None,
        }
    }

    #[tokio::test]
    async fn a_match_stream_hears_only_the_batches_of_its_match() {
        let feed = quiet_feed();
        let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
        let (on_a, on_b) = (feed.subscribe_match(a), feed.subscribe_match(b));
        let mut everything = feed.subscribe();
        feed.send(batch(&[(a, 1), (a, 2)]));
        feed.send(batch(&[(b, 3)]));
        feed.send(batch(&[(b, 4), (a, 5)]));
        assert_eq!(first_event(now(&on_a).await), Some(1));
        assert_eq!(first_event(now(&on_a).await), Some(4));
        assert!(
            now(&on_a).await.is_none(),
            "the batch of b alone passed a by"
        );
        assert_eq!(first_event(now(&on_b).await), Some(3));
        assert_eq!(first_event(now(&on_b).await), Some(4));
        assert!(now(&on_b).await.is_none());
        // A player's stream (or the lobby) still hears every batch.
        for first in [1, 3, 4] {
            assert_eq!(everything.try_recv().expect("a batch").events[0].id, first);
        }
    }

    #[tokio::test]
    async fn a_batch_handed_before_the_stream_waits_is_not_missed() {
        let feed = quiet_feed();
        let a = Uuid::now_v7();
        let on_a = Arc::new(feed.subscribe_match(a));
        let waiting = tokio::spawn({
            let on_a = on_a.clone();
            async move { first_event(Some(on_a.recv().await)) }
        });
        tokio::task::yield_now().await;
        feed.send(batch(&[(a, 7)]));
        let got = tokio::time::timeout(Duration::from_secs(5), waiting)
            .await
            .expect("woken")
            .expect("joined");
        assert_eq!(got, Some(7));
    }

    #[tokio::test]
    async fn a_stream_that_falls_behind_is_told_to_read_the_database() {
        let feed = quiet_feed();
        let a = Uuid::now_v7();
        let on_a = feed.subscribe_match(a);
        for i in 0..=BACKLOG as i64 {
            feed.send(batch(&[(a, i + 1)]));
        }
        assert!(matches!(now(&on_a).await, Some(MatchBatch::Lagged)));
        assert!(
            now(&on_a).await.is_none(),
            "what passed is dropped, not sent late"
        );
        feed.send(batch(&[(a, 1000)]));
        assert_eq!(first_event(now(&on_a).await), Some(1000));
    }

    #[tokio::test]
    async fn a_closed_stream_leaves_the_feed() {
        let feed = quiet_feed();
        let a = Uuid::now_v7();
        let (one, two) = (feed.subscribe_match(a), feed.subscribe_match(a));
        assert!(feed.listened_to());
        drop(one);
        assert!(
            feed.listened_to(),
            "the other stream of the match still listens"
        );
        feed.send(batch(&[(a, 1)]));
        assert_eq!(first_event(now(&two).await), Some(1));
        drop(two);
        assert!(
            !feed.listened_to(),
            "nobody listens: the feed stops reading"
        );
    }
}
