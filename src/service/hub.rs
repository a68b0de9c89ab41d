//! Wake-ups for whoever waits on a match: event streams, long polls, the deadline
//! poller. The events table is the source of truth; a wake-up only says "read it
//! again". Within a process a broadcast channel carries them; across replicas on
//! Postgres a NOTIFY does, sent after the writing transaction committed (never
//! inside it: a NOTIFY in a transaction serialises every commit of the cluster),
//! and coalesced per match.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use sea_orm::DatabaseConnection;
use tokio::sync::{Notify, broadcast, watch};
use uuid::Uuid;

use crate::store;

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Something of this match: read its events again.
    Match(Uuid),
    /// This match's chat (a message written or deleted): its match streams
    /// read the chat again. The match itself, its version and its events are
    /// as they were.
    Chat(Uuid),
    /// Possibly anything (a listener reconnected and may have missed wake-ups):
    /// every waiter reads again.
    All,
}

pub struct Hub {
    wakes: broadcast::Sender<Wake>,
    /// The same wake-ups but a match's change: what an event stream listens
    /// to, since the feed brings it its match's events. Were streams to hear
    /// every change, each commit would wake every open stream of the process
    /// only for it to find the change was another match's.
    beyond_events: broadcast::Sender<Wake>,
    /// Players whose credentials were revoked or changed: their event streams
    /// check what opened them again, on every replica.
    credentials: broadcast::Sender<Uuid>,
    /// Counts the credential changes heard of (here, from another replica, or
    /// possibly missed while the listener was down), raised before anybody is
    /// told: a credential checked before a change is not taken from the cache
    /// after it, even by a request that comes before the cache's own task ran.
    credential_epoch: AtomicU64,
    /// Matches changed here and not yet announced to the other replicas.
    pending: Mutex<HashSet<Uuid>>,
    /// Players whose credentials changed here, not yet announced.
    pending_credentials: Mutex<HashSet<Uuid>>,
    /// Matches whose chat changed here, not yet announced.
    pending_chat: Mutex<HashSet<Uuid>>,
    /// A change here made a move due at once (a bot's turn), not yet
    /// announced: the other replicas' pollers look now too.
    pending_due: AtomicBool,
    publish: Notify,
    poller: Notify,
    /// Wakes this replica's mail worker when a request queued a mail.
    mailer: Notify,
    shutdown: watch::Sender<bool>,
    /// Tells this replica's own NOTIFYs apart from the others'.
    replica: Uuid,
    /// Whether NOTIFYs are sent (Postgres); SQLite has one process.
    across_replicas: bool,
    /// Told first of every change heard of from another replica (`None`: any
    /// match may have changed), before anybody is woken.
    on_remote: OnceLock<RemoteHook>,
    /// Whether the LISTEN connection is known to be up: set by the first
    /// notification after it (re)connected, including this replica's own.
    listening: AtomicBool,
    /// When another replica was last heard of (any notification of theirs,
    /// their heartbeat included); at start, "now": others are assumed until
    /// `silence` has passed without a word from any.
    others_heard: Mutex<Instant>,
    /// How long without a word from another replica before this one takes
    /// itself for the only one (`REPLICA_SILENCE_MS`); each replica speaks at
    /// least three times in that span.
    silence_ms: AtomicU64,
}

/// A replica's heartbeat item in a notification's list.
const HEARTBEAT: &str = "h";

/// The least time between two NOTIFYs of a replica. Each is a transaction,
/// and wakes every listening connection and every replica behind it: sent at
/// every commit, a busy replica's NOTIFYs outnumbered its moves' own
/// statements. Spaced, one carries every change of the span, and a change
/// reaches the other replicas at most this much later.
const NOTIFY_SPACING: Duration = Duration::from_millis(5);

/// The item that says a change made a move due at once: the listeners' deadline
/// pollers look now rather than at their next tick.
const DUE: &str = "d";

type RemoteHook = Box<dyn Fn(Option<Uuid>) + Send + Sync>;

impl Hub {
    pub fn new(across_replicas: bool) -> Self {
        Self::for_replica(across_replicas, Uuid::new_v4())
    }

    /// The hub of the replica named `replica` (its wake-ups carry the name, so
    /// that it passes over its own).
    pub fn for_replica(across_replicas: bool, replica: Uuid) -> Self {
        let (wakes, _) = broadcast::channel(1024);
        let (beyond_events, _) = broadcast::channel(256);
        let (credentials, _) = broadcast::channel(256);
        let (shutdown, _) = watch::channel(false);
        Self {
            wakes,
            beyond_events,
            credentials,
            credential_epoch: AtomicU64::new(0),
            pending: Mutex::new(HashSet::new()),
            pending_credentials: Mutex::new(HashSet::new()),
            pending_chat: Mutex::new(HashSet::new()),
            pending_due: AtomicBool::new(false),
            publish: Notify::new(),
            poller: Notify::new(),
            mailer: Notify::new(),
            shutdown,
            replica,
            across_replicas,
            on_remote: OnceLock::new(),
            listening: AtomicBool::new(false),
            others_heard: Mutex::new(Instant::now()),
            silence_ms: AtomicU64::new(crate::config::DEFAULT_REPLICA_SILENCE_MS),
        }
    }

    /// How long without a word from another replica before this one takes
    /// itself for the only one.
    pub fn set_replica_silence(&self, silence: Duration) {
        self.silence_ms
            .store(silence.as_millis() as u64, Ordering::SeqCst);
    }

    fn silence(&self) -> Duration {
        Duration::from_millis(self.silence_ms.load(Ordering::SeqCst))
    }

    /// Whether no other replica spoke for the whole silence span.
    fn alone(&self) -> bool {
        self.others_heard
            .lock()
            .map(|at| at.elapsed() >= self.silence())
            .unwrap_or(false)
    }

    /// Sets what to do, first, when another replica changed a match (once;
    /// later calls are ignored).
    pub fn on_remote_change(&self, hook: RemoteHook) {
        let _ = self.on_remote.set(hook);
    }

    /// Whether this process can take what it keeps of a match for current
    /// without asking the database: always with one process (SQLite); on
    /// Postgres while it is the only replica (no other was heard of for the
    /// silence span), its LISTEN connection is up and a hook takes the changes
    /// in. With other replicas about, a change of theirs reaches this one a
    /// moment after it committed, and a read in that moment would answer the
    /// older version: so then every read asks.
    pub fn hears_every_change(&self) -> bool {
        !self.across_replicas
            || (self.on_remote.get().is_some()
                && self.listening.load(Ordering::SeqCst)
                && self.alone())
    }

    fn remote_change(&self, id: Option<Uuid>) {
        if let Some(hook) = self.on_remote.get() {
            hook(id);
        }
    }

    /// The LISTEN connection works again: whatever changed while it did not
    /// was not heard, so everything kept is dropped before it is trusted.
    fn heard(&self) {
        if !self.listening.load(Ordering::SeqCst) {
            self.remote_change(None);
            self.listening.store(true, Ordering::SeqCst);
        }
    }

    fn deaf(&self) {
        self.listening.store(false, Ordering::SeqCst);
        self.remote_change(None);
    }

    /// Called after a transaction that changed `id` committed.
    pub fn changed(&self, id: Uuid) {
        self.wake(Wake::Match(id));
        if self.across_replicas {
            if let Ok(mut p) = self.pending.lock() {
                p.insert(id);
            }
            self.publish.notify_one();
        }
    }

    /// Called after a transaction that wrote or deleted a chat message of
    /// match `id` committed.
    pub fn chat_changed(&self, id: Uuid) {
        self.wake(Wake::Chat(id));
        if self.across_replicas {
            if let Ok(mut p) = self.pending_chat.lock() {
                p.insert(id);
            }
            self.publish.notify_one();
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Wake> {
        self.wakes.subscribe()
    }

    /// The wake-ups other than a match's change ([`Wake::Chat`] and
    /// [`Wake::All`]), for the event streams: the feed's batches carry the
    /// matches' events to them.
    pub fn subscribe_beyond_events(&self) -> broadcast::Receiver<Wake> {
        self.beyond_events.subscribe()
    }

    fn wake(&self, w: Wake) {
        let _ = self.wakes.send(w);
        if !matches!(w, Wake::Match(_)) {
            let _ = self.beyond_events.send(w);
        }
    }

    /// Called after a player's API token was revoked or password changed.
    pub fn credentials_changed(&self, player: Uuid) {
        self.credential_epoch.fetch_add(1, Ordering::SeqCst);
        let _ = self.credentials.send(player);
        if self.across_replicas {
            if let Ok(mut p) = self.pending_credentials.lock() {
                p.insert(player);
            }
            self.publish.notify_one();
        }
    }

    /// How many credential changes this replica has heard of: a credential
    /// check is cached under the count read before it began, and holds only
    /// while the count is the same.
    pub fn credential_epoch(&self) -> u64 {
        self.credential_epoch.load(Ordering::SeqCst)
    }

    /// Players whose credentials changed, here or (on Postgres) on another replica.
    pub fn subscribe_credentials(&self) -> broadcast::Receiver<Uuid> {
        self.credentials.subscribe()
    }

    /// Asks this replica's deadline poller to look now instead of at its next
    /// tick.
    pub fn wake_poller(&self) {
        self.poller.notify_one();
    }

    /// Called after a committed change made a move due at once (a bot or a
    /// forfeited seat owes one): every replica's deadline poller looks now, this
    /// one's at once and the others' when they hear of it. Every replica polls,
    /// and whichever claims the match plays the move.
    pub fn due_now(&self) {
        self.wake_poller();
        if self.across_replicas {
            self.pending_due.store(true, Ordering::SeqCst);
            self.publish.notify_one();
        }
    }

    /// Resolves at the next `wake_poller`.
    pub async fn poller_woken(&self) {
        self.poller.notified().await
    }

    /// Asks this replica's mail worker to look at the outbox now.
    pub fn wake_mailer(&self) {
        self.mailer.notify_one();
    }

    /// Resolves at the next `wake_mailer`.
    pub async fn mailer_woken(&self) {
        self.mailer.notified().await
    }

    /// Tells every stream to close (the server is stopping).
    pub fn shut_down(&self) {
        let _ = self.shutdown.send(true);
    }

    pub fn shutdown_signal(&self) -> watch::Receiver<bool> {
        self.shutdown.subscribe()
    }

    /// The channel name of this database and schema (NOTIFY channels are per
    /// database, and tests share one database between schemas).
    pub fn channel(schema: Option<&str>) -> String {
        let suffix: String = schema
            .unwrap_or("public")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        format!("sealed_orders_{suffix}")
    }

    /// Sends the pending wake-ups to the other replicas, coalesced: one NOTIFY
    /// carries every match changed since the last one, and NOTIFYs go at most
    /// every [`NOTIFY_SPACING`]. Runs until shutdown.
    pub async fn publish_forever(&self, db: DatabaseConnection, channel: String) {
        let mut stop = self.shutdown_signal();
        // No silence span (a replica told it is alone): no heartbeat either.
        let beats = !self.silence().is_zero();
        let mut heartbeat =
            tokio::time::interval((self.silence() / 3).max(Duration::from_millis(100)));
        let mut sent = tokio::time::Instant::now() - NOTIFY_SPACING;
        loop {
            let mut items: Vec<String> = Vec::new();
            tokio::select! {
                _ = self.publish.notified() => {}
                _ = heartbeat.tick(), if beats => items.push(HEARTBEAT.to_owned()),
                _ = stop.changed() => return,
            }
            // What changes meanwhile goes in the same NOTIFY.
            tokio::select! {
                _ = tokio::time::sleep_until(sent + NOTIFY_SPACING) => {}
                _ = stop.changed() => return,
            }
            sent = tokio::time::Instant::now();
            match self.pending.lock() {
                Ok(mut p) => items.extend(p.drain().map(|id| id.to_string())),
                Err(_) => continue,
            };
            // A player's credentials as `c:<id>`: an older replica reads no
            // match id there and passes it over.
            if let Ok(mut p) = self.pending_credentials.lock() {
                items.extend(p.drain().map(|id| format!("c:{id}")));
            }
            // A match's chat as `t:<id>` (talk), likewise.
            if let Ok(mut p) = self.pending_chat.lock() {
                items.extend(p.drain().map(|id| format!("t:{id}")));
            }
            if self.pending_due.swap(false, Ordering::SeqCst) {
                items.push(DUE.to_owned());
            }
            // A payload is at most 8000 bytes: at most 39 bytes an item, so chunks of 200.
            for chunk in items.chunks(200) {
                let list: Vec<&str> = chunk.iter().map(String::as_str).collect();
                let payload = format!("{}|{}", self.replica, list.join(","));
                if let Err(e) = store::streams::notify(&db, &channel, &payload).await {
                    tracing::warn!(error = %e, "NOTIFY failed; other replicas poll on");
                }
            }
        }
    }

    /// Listens to the other replicas' wake-ups and passes them on here. After a
    /// lost connection everybody is told to read again, since wake-ups sent
    /// meanwhile are gone (the table still has every event).
    pub async fn listen_forever(&self, db: DatabaseConnection, channel: String) {
        let mut stop = self.shutdown_signal();
        loop {
            let mut listener = match store::streams::listen(&db, &channel).await {
                Ok(l) => l,
                Err(e) => {
                    tracing::warn!(error = %e, "LISTEN failed; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(1)) => continue,
                        _ = stop.changed() => return,
                    }
                }
            };
            // Listening from now on: what changed before is dropped here.
            self.heard();
            self.credential_epoch.fetch_add(1, Ordering::SeqCst);
            self.wake(Wake::All);
            loop {
                let next = tokio::select! {
                    n = listener.try_recv() => n,
                    _ = stop.changed() => return,
                };
                match next {
                    Ok(Some(n)) => {
                        self.heard();
                        self.pass_on(n.payload());
                    }
                    Ok(None) => {
                        // The connection dropped; try_recv reconnects on its next call.
                        self.deaf();
                        self.credential_epoch.fetch_add(1, Ordering::SeqCst);
                        self.wake(Wake::All);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "LISTEN connection lost; reconnecting");
                        self.deaf();
                        break;
                    }
                }
            }
        }
    }

    /// Tells the other replicas this one is here, before it serves anything:
    /// from then on they ask the database at every read.
    pub async fn announce(&self, db: &DatabaseConnection, channel: &str) {
        let payload = format!("{}|{HEARTBEAT}", self.replica);
        if let Err(e) = store::streams::notify(db, channel, &payload).await {
            tracing::warn!(error = %e, "NOTIFY failed; other replicas learn of this one later");
        }
    }

    fn pass_on(&self, payload: &str) {
        let Some((replica, ids)) = payload.split_once('|') else {
            return;
        };
        if replica == self.replica.to_string() {
            return;
        }
        if let Ok(mut at) = self.others_heard.lock() {
            *at = Instant::now();
        }
        for item in ids.split(',') {
            if let Some(player) = item.strip_prefix("c:") {
                if let Ok(player) = player.parse::<Uuid>() {
                    self.credential_epoch.fetch_add(1, Ordering::SeqCst);
                    let _ = self.credentials.send(player);
                }
            } else if let Some(id) = item.strip_prefix("t:") {
                if let Ok(id) = id.parse::<Uuid>() {
                    self.wake(Wake::Chat(id));
                }
            } else if item == DUE {
                // Another replica's change made a move due at once: this
                // poller may be the one to claim it. Other changes leave the
                // deadlines to the tick; waking at each of them ran the
                // poller's query once for every notification heard.
                self.wake_poller();
            } else if let Ok(id) = item.parse::<Uuid>() {
                self.remote_change(Some(id));
                self.wake(Wake::Match(id));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;

    fn lone_hub(silence_ms: u64) -> (Hub, Arc<Mutex<Vec<Option<Uuid>>>>) {
        let hub = Hub::new(true);
        hub.set_replica_silence(Duration::from_millis(silence_ms));
        let dropped = Arc::new(Mutex::new(Vec::new()));
        let seen = dropped.clone();
        hub.on_remote_change(Box::new(move |id| seen.lock().expect("lock").push(id)));
        (hub, dropped)
    }

    #[test]
    fn a_replica_trusts_what_it_keeps_only_while_alone_and_listening() {
        let (hub, dropped) = lone_hub(0);
        assert!(!hub.hears_every_change(), "not listening yet");
        hub.heard();
        assert_eq!(*dropped.lock().expect("lock"), vec![None]);
        assert!(hub.hears_every_change());
        // Its own notification changes nothing.
        hub.pass_on(&format!("{}|{}", hub.replica, Uuid::nil()));
        assert!(hub.hears_every_change());
        // A lost connection: nothing is trusted until it works again.
        hub.deaf();
        assert!(!hub.hears_every_change());
        hub.heard();
        assert!(hub.hears_every_change());
    }

    #[test]
    fn another_replicas_word_drops_its_match_first_and_ends_the_trust() {
        let (hub, dropped) = lone_hub(60_000);
        hub.heard();
        // At start others are assumed for the whole span.
        assert!(!hub.hears_every_change());
        *hub.others_heard.lock().expect("lock") = Instant::now() - Duration::from_secs(61);
        assert!(hub.hears_every_change());
        let id = Uuid::now_v7();
        let mut wakes = hub.subscribe();
        hub.pass_on(&format!("{}|{id}", Uuid::new_v4()));
        assert_eq!(dropped.lock().expect("lock").last(), Some(&Some(id)));
        assert_eq!(wakes.try_recv().ok(), Some(Wake::Match(id)));
        assert!(!hub.hears_every_change(), "another replica speaks");
        // A heartbeat alone keeps it so.
        *hub.others_heard.lock().expect("lock") = Instant::now() - Duration::from_secs(61);
        hub.pass_on(&format!("{}|{HEARTBEAT}", Uuid::new_v4()));
        assert!(!hub.hears_every_change());
    }

    #[test]
    fn another_replicas_chat_wakes_its_match_streams_and_drops_nothing_kept() {
        let (hub, dropped) = lone_hub(60_000);
        hub.heard();
        let kept = dropped.lock().expect("lock").len();
        let (id, player) = (Uuid::now_v7(), Uuid::now_v7());
        let mut wakes = hub.subscribe();
        let mut credentials = hub.subscribe_credentials();
        let epoch = hub.credential_epoch();
        hub.pass_on(&format!("{}|t:{id},c:{player}", Uuid::new_v4()));
        // Moved before anybody was told: no cached check outlives the change.
        assert_eq!(hub.credential_epoch(), epoch + 1);
        assert_eq!(wakes.try_recv().ok(), Some(Wake::Chat(id)));
        assert!(
            wakes.try_recv().is_err(),
            "a chat is no change of the match"
        );
        assert_eq!(credentials.try_recv().ok(), Some(player));
        assert_eq!(dropped.lock().expect("lock").len(), kept);
    }

    #[test]
    fn event_streams_hear_chats_and_resets_but_no_match_changes() {
        let hub = Hub::new(false);
        let mut all = hub.subscribe();
        let mut beyond = hub.subscribe_beyond_events();
        let id = Uuid::now_v7();
        hub.changed(id);
        hub.chat_changed(id);
        hub.wake(Wake::All);
        assert_eq!(all.try_recv().ok(), Some(Wake::Match(id)));
        assert_eq!(all.try_recv().ok(), Some(Wake::Chat(id)));
        assert_eq!(all.try_recv().ok(), Some(Wake::All));
        assert_eq!(beyond.try_recv().ok(), Some(Wake::Chat(id)));
        assert_eq!(beyond.try_recv().ok(), Some(Wake::All));
        assert!(
            beyond.try_recv().is_err(),
            "a match's change reaches no stream"
        );
    }

    #[tokio::test]
    async fn another_replica_wakes_the_poller_only_for_a_move_due_at_once() {
        let (hub, _) = lone_hub(60_000);
        let polled = || async {
            tokio::time::timeout(Duration::from_millis(50), hub.poller_woken())
                .await
                .is_ok()
        };
        hub.pass_on(&format!("{}|{}", Uuid::new_v4(), Uuid::now_v7()));
        hub.pass_on(&format!("{}|{HEARTBEAT}", Uuid::new_v4()));
        assert!(!polled().await, "a change that makes nothing due");
        hub.pass_on(&format!("{}|{},{DUE}", Uuid::new_v4(), Uuid::now_v7()));
        assert!(polled().await, "a change that made a move due now");
        // Here, a move due at once wakes this poller and is announced.
        hub.due_now();
        assert!(polled().await);
        assert!(hub.pending_due.load(Ordering::SeqCst));
    }

    #[test]
    fn one_process_always_hears_every_change() {
        assert!(Hub::new(false).hears_every_change());
    }

    #[test]
    fn a_credential_change_here_moves_the_epoch_before_telling_anybody() {
        let hub = Hub::new(false);
        let mut credentials = hub.subscribe_credentials();
        hub.credentials_changed(Uuid::now_v7());
        assert_eq!(hub.credential_epoch(), 1);
        assert!(credentials.try_recv().is_ok());
    }
}
