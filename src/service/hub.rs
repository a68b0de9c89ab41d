//! Wake-ups for whoever waits on a match: event streams, long polls, the deadline
//! poller. The events table is the source of truth; a wake-up only says "read it
//! again". Within a process a broadcast channel carries them; across replicas on
//! Postgres a NOTIFY does, sent after the writing transaction committed (never
//! inside it: a NOTIFY in a transaction serialises every commit of the cluster),
//! and coalesced per match.

use std::collections::HashSet;
use std::sync::Mutex;
use std::time::Duration;

use sea_orm::DatabaseConnection;
use tokio::sync::{Notify, broadcast, watch};
use uuid::Uuid;

use crate::store;

/// What changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Something of this match: read its events again.
    Match(Uuid),
    /// Possibly anything (a listener reconnected and may have missed wake-ups):
    /// every waiter reads again.
    All,
}

pub struct Hub {
    wakes: broadcast::Sender<Wake>,
    /// Players whose credentials were revoked or changed: their event streams
    /// check what opened them again, on every replica.
    credentials: broadcast::Sender<Uuid>,
    /// Matches changed here and not yet announced to the other replicas.
    pending: Mutex<HashSet<Uuid>>,
    /// Players whose credentials changed here, not yet announced.
    pending_credentials: Mutex<HashSet<Uuid>>,
    publish: Notify,
    poller: Notify,
    shutdown: watch::Sender<bool>,
    /// Tells this replica's own NOTIFYs apart from the others'.
    replica: Uuid,
    /// Whether NOTIFYs are sent (Postgres); SQLite has one process.
    across_replicas: bool,
}

impl Hub {
    pub fn new(across_replicas: bool) -> Self {
        let (wakes, _) = broadcast::channel(1024);
        let (credentials, _) = broadcast::channel(256);
        let (shutdown, _) = watch::channel(false);
        Self {
            wakes,
            credentials,
            pending: Mutex::new(HashSet::new()),
            pending_credentials: Mutex::new(HashSet::new()),
            publish: Notify::new(),
            poller: Notify::new(),
            shutdown,
            replica: Uuid::new_v4(),
            across_replicas,
        }
    }

    /// Called after a transaction that changed `id` committed.
    pub fn changed(&self, id: Uuid) {
        let _ = self.wakes.send(Wake::Match(id));
        if self.across_replicas {
            if let Ok(mut p) = self.pending.lock() {
                p.insert(id);
            }
            self.publish.notify_one();
        }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Wake> {
        self.wakes.subscribe()
    }

    /// Called after a player's API token was revoked or password changed.
    pub fn credentials_changed(&self, player: Uuid) {
        let _ = self.credentials.send(player);
        if self.across_replicas {
            if let Ok(mut p) = self.pending_credentials.lock() {
                p.insert(player);
            }
            self.publish.notify_one();
        }
    }

    /// Players whose credentials changed, here or (on Postgres) on another replica.
    pub fn subscribe_credentials(&self) -> broadcast::Receiver<Uuid> {
        self.credentials.subscribe()
    }

    /// Asks this replica's deadline poller to look now (a bot or a forfeited seat
    /// owes a move) instead of at its next tick.
    pub fn wake_poller(&self) {
        self.poller.notify_one();
    }

    /// Resolves at the next `wake_poller`.
    pub async fn poller_woken(&self) {
        self.poller.notified().await
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
    /// carries every match changed since the last one. Runs until shutdown.
    pub async fn publish_forever(&self, db: DatabaseConnection, channel: String) {
        let mut stop = self.shutdown_signal();
        loop {
            tokio::select! {
                _ = self.publish.notified() => {}
                _ = stop.changed() => return,
            }
            let mut items: Vec<String> = match self.pending.lock() {
                Ok(mut p) => p.drain().map(|id| id.to_string()).collect(),
                Err(_) => continue,
            };
            // A player's credentials as `c:<id>`: an older replica reads no
            // match id there and passes it over.
            if let Ok(mut p) = self.pending_credentials.lock() {
                items.extend(p.drain().map(|id| format!("c:{id}")));
            }
            // A payload is at most 8000 bytes: at most 39 bytes an item, so chunks of 200.
            for chunk in items.chunks(200) {
                let list: Vec<&str> = chunk.iter().map(String::as_str).collect();
                let payload = format!("{}|{}", self.replica, list.join(","));
                if let Err(e) = store::notify(&db, &channel, &payload).await {
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
            let mut listener = match store::listen(&db, &channel).await {
                Ok(l) => l,
                Err(e) => {
                    tracing::warn!(error = %e, "LISTEN failed; retrying");
                    tokio::select! {
                        _ = tokio::time::sleep(Duration::from_secs(1)) => continue,
                        _ = stop.changed() => return,
                    }
                }
            };
            let _ = self.wakes.send(Wake::All);
            loop {
                let next = tokio::select! {
                    n = listener.try_recv() => n,
                    _ = stop.changed() => return,
                };
                match next {
                    Ok(Some(n)) => self.pass_on(n.payload()),
                    Ok(None) => {
                        // The connection dropped; try_recv reconnects on its next call.
                        let _ = self.wakes.send(Wake::All);
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "LISTEN connection lost; reconnecting");
                        break;
                    }
                }
            }
        }
    }

    fn pass_on(&self, payload: &str) {
        let Some((replica, ids)) = payload.split_once('|') else {
            return;
        };
        if replica == self.replica.to_string() {
            return;
        }
        for item in ids.split(',') {
            if let Some(player) = item.strip_prefix("c:") {
                if let Ok(player) = player.parse::<Uuid>() {
                    let _ = self.credentials.send(player);
                }
            } else if let Ok(id) = item.parse::<Uuid>() {
                let _ = self.wakes.send(Wake::Match(id));
            }
        }
        // A remote change can make a deadline of ours due now (a bot's turn).
        self.poller.notify_one();
    }
}
