//! The lobby: public matches appearing, filling, starting and being cancelled,
//! as a page or a stream that resumes from `Last-Event-ID`.
//!
//! The lobby is the same for every reader, so a replica reads it once for all
//! its lobby streams: one feed task reads what is new after each wake-up (one
//! query per batch of commits, none while nobody listens) and broadcasts it
//! serialised; a stream reads the database itself only to catch up from where
//! its client resumes, or after it fell behind the broadcast.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;
use serde::Serialize;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::{Mutex, broadcast, mpsc};
use utoipa::ToSchema;
use uuid::Uuid;

use super::{KEEPALIVE, PAGE, RETRY_MS, SHUTDOWN_RETRY_MS, StreamFrame, bad_last_event_id};
use crate::service::error::{Error, Result};
use crate::service::hub::Hub;
use crate::service::models::MatchSummary;
use crate::service::pages::{decode_cursor, encode_cursor, page_limit};
use crate::service::reads::Reads;
use crate::service::settled::Settled;
use crate::service::visibility::Policy;
use crate::store;
use crate::store::entities::events;
use crate::store::streams::StreamPosition;

/// The events that change what an open-matches list shows.
pub const LOBBY_KINDS: [&str; 4] = [
    "player_joined",
    "player_left",
    "match_started",
    "match_aborted",
];

/// How many frames the broadcast holds for a slow stream before it falls
/// behind (and catches up from the database).
const BROADCAST: usize = 1024;

/// A change in the lobby.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LobbyEventResponse {
    /// `player_joined`, `player_left`, `match_started` or `match_aborted`.
    #[schema(example = "player_joined")]
    pub kind: String,
    pub match_id: Uuid,
    /// When the event happened.
    pub created_at: DateTime<Utc>,
    /// The match as a list shows it when this was sent (not as it was at the
    /// event): a `waiting` one belongs in a list of open matches, any other
    /// leaves it.
    #[serde(rename = "match")]
    pub summary: MatchSummary,
}

/// A page of the lobby's changes, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct LobbyEventPage {
    pub items: Vec<LobbyEventResponse>,
    pub next_cursor: Option<String>,
}

/// A frame as the feed hands it to every stream: serialised once.
#[derive(Debug, Clone)]
struct Item {
    at: StreamPosition,
    kind: Arc<str>,
    data: Arc<str>,
}

impl Item {
    fn frame(&self) -> StreamFrame {
        StreamFrame::Event {
            id: position_id(self.at),
            kind: self.kind.to_string(),
            data: self.data.to_string(),
        }
    }
}

fn position_id(at: StreamPosition) -> String {
    format!("{}.{}", at.tx, at.id)
}

fn parse_position(s: &str) -> Option<StreamPosition> {
    let (tx, id) = s.trim().split_once('.')?;
    Some(StreamPosition {
        tx: tx.parse().ok()?,
        id: id.parse().ok()?,
    })
}

/// The lobby as pages and streams, fed by one read per batch of commits.
pub struct LobbyFeed {
    db: DatabaseConnection,
    hub: Arc<Hub>,
    policy: Arc<Policy>,
    reads: Arc<Reads>,
    settled: Arc<Settled>,
    items: broadcast::Sender<Item>,
    /// Where the feed has read to; `None` while nobody listens.
    head: Mutex<Option<StreamPosition>>,
}

impl LobbyFeed {
    pub fn new(
        db: DatabaseConnection,
        hub: Arc<Hub>,
        policy: Arc<Policy>,
        reads: Arc<Reads>,
        settled: Arc<Settled>,
    ) -> Self {
        Self {
            db,
            hub,
            policy,
            reads,
            settled,
            items: broadcast::channel(BROADCAST).0,
            head: Mutex::new(None),
        }
    }

    /// The lobby events after `after` settled below `settled`, with their
    /// matches' summaries.
    async fn read_after(
        &self,
        after: StreamPosition,
        limit: u64,
        settled: Option<i64>,
    ) -> Result<Vec<(events::Model, LobbyEventResponse)>, Error> {
        let rows = store::streams::lobby_events_after(
            &self.db,
            &LOBBY_KINDS,
            &self.policy.lobby(),
            after,
            limit,
            settled,
        )
        .await?;
        let mut ids: Vec<Uuid> = rows.iter().map(|e| e.match_id).collect();
        ids.sort();
        ids.dedup();
        let summaries: HashMap<Uuid, MatchSummary> = self
            .reads
            .lobby_summaries(ids)
            .await?
            .into_iter()
            .map(|s| (s.id, s))
            .collect();
        Ok(rows
            .into_iter()
            .filter_map(|e| {
                let summary = summaries.get(&e.match_id)?.clone();
                let response = LobbyEventResponse {
                    kind: e.kind.clone(),
                    match_id: e.match_id,
                    created_at: e.created_at,
                    summary,
                };
                Some((e, response))
            })
            .collect())
    }

    fn item(e: &events::Model, r: &LobbyEventResponse) -> Result<Item, Error> {
        Ok(Item {
            at: StreamPosition { tx: e.tx, id: e.id },
            kind: Arc::from(e.kind.as_str()),
            data: Arc::from(serde_json::to_string(r).map_err(Error::internal)?),
        })
    }

    /// A page of the lobby's changes, oldest first, from the start or after a
    /// page's `next_cursor`.
    pub async fn page(&self, limit: Option<u64>, cursor: Option<String>) -> Result<LobbyEventPage> {
        let limit = page_limit(limit)?;
        let after = match cursor {
            Some(c) => parse_position(&decode_cursor(&c)?).ok_or_else(|| {
                Error::bad_request(
                    "invalid_cursor",
                    "The cursor is not one this server issued.",
                )
            })?,
            None => StreamPosition { tx: -1, id: 0 },
        };
        let settled = self.settled.settled_tx().await?;
        let mut rows = self.read_after(after, limit + 1, settled).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = if more {
            rows.last()
                .map(|(e, _)| encode_cursor(&position_id(StreamPosition { tx: e.tx, id: e.id })))
        } else {
            None
        };
        Ok(LobbyEventPage {
            items: rows.into_iter().map(|(_, r)| r).collect(),
            next_cursor,
        })
    }

    /// Reads what is new for every stream of this replica, after each batch of
    /// wake-ups, while any stream listens. Runs until shutdown.
    pub async fn run_feed(&self) {
        let mut wakes = self.hub.subscribe();
        let mut stop = self.hub.shutdown_signal();
        // When to read again without a wake-up: soon while events are
        // committed but unsettled (Postgres), a while after a failed read.
        let mut again: Option<Duration> = None;
        loop {
            let wait = again.unwrap_or(Duration::from_secs(3600));
            tokio::select! {
                w = wakes.recv() => if let Err(RecvError::Closed) = w { return },
                _ = tokio::time::sleep(wait) => {}
                _ = stop.changed() => return,
            }
            // One read answers every wake-up already queued.
            loop {
                match wakes.try_recv() {
                    Ok(_) | Err(TryRecvError::Lagged(_)) => continue,
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Closed) => return,
                }
            }
            again = match self.read_on().await {
                Ok(true) => Some(Duration::from_millis(50)),
                Ok(false) => None,
                Err(e) => {
                    tracing::warn!(error = %e, "reading the lobby failed; trying again");
                    Some(Duration::from_secs(1))
                }
            };
        }
    }

    /// Broadcasts the lobby's settled events after the feed's head: whether
    /// some are committed but not settled yet.
    async fn read_on(&self) -> Result<bool, Error> {
        let mut head = self.head.lock().await;
        // Nobody listens: nothing is read, and the next stream starts the feed
        // afresh (see `subscribe`).
        if self.items.receiver_count() == 0 {
            *head = None;
            return Ok(false);
        }
        let mut at = match *head {
            Some(at) => at,
            None => store::streams::stream_head(&self.db).await?,
        };
        let settled = loop {
            let settled = self.settled.settled_tx().await?;
            let rows = self.read_after(at, PAGE, settled).await?;
            for (e, r) in &rows {
                let item = Self::item(e, r)?;
                at = item.at;
                let _ = self.items.send(item);
            }
            *head = Some(at);
            if (rows.len() as u64) < PAGE {
                break settled;
            }
        };
        // Pending by the watermark the last read used: an event that settled
        // since is above it, so the feed reads again for it rather than wait
        // for a wake-up it already took.
        Ok(store::streams::lobby_events_pending(
            &self.db,
            &LOBBY_KINDS,
            &self.policy.lobby(),
            at,
            settled,
        )
        .await?)
    }

    /// A receiver of the feed, which from now on reads for it. Under the
    /// head's lock, so the feed cannot take itself for unheard meanwhile; a
    /// feed nobody listened to starts where the log stands now, and the new
    /// stream catches up to there from the database.
    async fn subscribe(&self) -> Result<broadcast::Receiver<Item>, Error> {
        let mut head = self.head.lock().await;
        if head.is_none() {
            *head = Some(store::streams::stream_head(&self.db).await?);
        }
        Ok(self.items.subscribe())
    }

    /// The lobby as a stream: from `last_event_id` (from now without one).
    pub async fn stream(
        self: &Arc<Self>,
        last_event_id: Option<&str>,
    ) -> Result<mpsc::Receiver<StreamFrame>, Error> {
        let start = match last_event_id {
            Some(s) => parse_position(s).ok_or_else(bad_last_event_id)?,
            None => store::streams::stream_head(&self.db).await?,
        };
        let (tx, rx) = mpsc::channel(64);
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this.run_stream(start, &tx).await {
                tracing::warn!(error = %e, "lobby stream ended");
            }
        });
        Ok(rx)
    }

    /// Sends what the stream missed after `at`, from the database: false when
    /// its reader went away.
    async fn catch_up(
        &self,
        at: &mut StreamPosition,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<bool, Error> {
        loop {
            let settled = self.settled.settled_tx().await?;
            let rows = self.read_after(*at, PAGE, settled).await?;
            for (e, r) in &rows {
                let item = Self::item(e, r)?;
                *at = item.at;
                if out.send(item.frame()).await.is_err() {
                    return Ok(false);
                }
            }
            if (rows.len() as u64) < PAGE {
                return Ok(true);
            }
        }
    }

    async fn run_stream(
        &self,
        mut at: StreamPosition,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<(), Error> {
        let mut stop = self.hub.shutdown_signal();
        if out.send(StreamFrame::Retry(RETRY_MS)).await.is_err() {
            return Ok(());
        }
        // Subscribed before catching up: what the feed reads from now on
        // reaches this stream, and what it read before, the catch-up reads
        // (the settle watermark only grows). Both may carry an event: the
        // position tells which was sent.
        let mut items = self.subscribe().await?;
        if !self.catch_up(&mut at, out).await? {
            return Ok(());
        }
        loop {
            tokio::select! {
                item = items.recv() => match item {
                    Ok(item) => {
                        if item.at > at {
                            at = item.at;
                            if out.send(item.frame()).await.is_err() {
                                return Ok(());
                            }
                        }
                    }
                    Err(RecvError::Lagged(_)) => {
                        if !self.catch_up(&mut at, out).await? {
                            return Ok(());
                        }
                    }
                    Err(RecvError::Closed) => return Ok(()),
                },
                _ = tokio::time::sleep(KEEPALIVE) => {
                    if out.send(StreamFrame::KeepAlive).await.is_err() {
                        return Ok(());
                    }
                }
                _ = stop.changed() => {
                    let _ = out.send(StreamFrame::Retry(SHUTDOWN_RETRY_MS)).await;
                    return Ok(());
                }
                _ = out.closed() => return Ok(()),
            }
        }
    }
}
