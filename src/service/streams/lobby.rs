//! The lobby: public matches appearing, filling, starting and being cancelled,
//! as a page or a stream that resumes from `Last-Event-ID`.
//!
//! The lobby is the same for every reader, so a replica serialises it once for
//! all its lobby streams. It reads no log of its own: a relay takes the lobby's
//! events from the batches of the process's one read of the event log (the
//! player streams' feed), adds their matches' summaries (one read per batch
//! that has any) and broadcasts the frames, while any lobby stream listens. A
//! stream reads the database itself only to catch up from where its client
//! resumes, or after it fell behind the broadcast.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;
use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::{Mutex, broadcast, mpsc};
use utoipa::ToSchema;
use uuid::Uuid;

use super::feed::{Batch, Feed};
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
        StreamFrame::event(
            position_id(self.at),
            self.kind.to_string(),
            self.data.to_string(),
        )
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

/// The lobby as pages and streams, relayed from the log's one feed.
pub struct LobbyFeed {
    db: DatabaseConnection,
    hub: Arc<Hub>,
    policy: Arc<Policy>,
    reads: Arc<Reads>,
    settled: Arc<Settled>,
    /// The one read of the log this process makes for all its streams.
    feed: Arc<Feed>,
    items: broadcast::Sender<Item>,
    /// Whether the relay runs: it does while any lobby stream listens.
    relay: Mutex<bool>,
}

impl LobbyFeed {
    pub(in crate::service) fn new(
        db: DatabaseConnection,
        hub: Arc<Hub>,
        policy: Arc<Policy>,
        reads: Arc<Reads>,
        settled: Arc<Settled>,
        feed: Arc<Feed>,
    ) -> Self {
        Self {
            db,
            hub,
            policy,
            reads,
            settled,
            feed,
            items: broadcast::channel(BROADCAST).0,
            relay: Mutex::new(false),
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
        self.with_summaries(rows).await
    }

    /// Lobby events with their matches' summaries as a list shows them now;
    /// an event of a match the lobby does not list (any more) is left out.
    async fn with_summaries(
        &self,
        rows: Vec<events::Model>,
    ) -> Result<Vec<(events::Model, LobbyEventResponse)>, Error> {
        if rows.is_empty() {
            return Ok(Vec::new());
        }
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

    /// A receiver of the lobby's frames, from now on. The first one starts the
    /// relay, under the lock its end is decided under, so a relay that is
    /// about to stop for want of listeners cannot leave this one unheard.
    async fn subscribe(self: &Arc<Self>) -> Result<broadcast::Receiver<Item>, Error> {
        let mut running = self.relay.lock().await;
        let rx = self.items.subscribe();
        if !*running {
            // Subscribed to the log's batches and placed at the head of the
            // log before the stream catches up, so nothing falls between.
            let batches = self.feed.subscribe();
            let at = store::streams::stream_head(&self.db).await?;
            *running = true;
            let this = self.clone();
            tokio::spawn(async move { this.run_relay(batches, at).await });
        }
        Ok(rx)
    }

    /// Turns the batches of the log's one feed into the lobby's frames, while
    /// any lobby stream listens: the lobby events of each batch, with their
    /// matches' summaries (which also tell which matches the lobby lists), in
    /// one read per batch that has any. Where it missed batches it reads the
    /// database for what they held.
    async fn run_relay(
        &self,
        mut batches: broadcast::Receiver<Arc<Batch>>,
        mut at: StreamPosition,
    ) {
        let mut stop = self.hub.shutdown_signal();
        loop {
            let batch = tokio::select! {
                b = batches.recv() => match b {
                    Ok(batch) => Some(batch),
                    Err(RecvError::Lagged(_)) => None,
                    Err(RecvError::Closed) => break,
                },
                // A quiet log still lets the relay notice its listeners left.
                _ = tokio::time::sleep(KEEPALIVE) => {
                    if self.stop_when_unheard().await {
                        return;
                    }
                    continue;
                }
                _ = stop.changed() => break,
            };
            let relayed = match batch {
                Some(batch) if batch.from <= at => self.relay_batch(&batch, &mut at).await,
                // Batches went by unseen (lag, or the feed restarted at the
                // head of the log): the database has what they held.
                _ => self.fill(&mut at).await,
            };
            if let Err(e) = relayed {
                // The next batch finds the gap and fills it from the database.
                tracing::warn!(error = %e, "relaying the lobby failed");
            }
            if self.stop_when_unheard().await {
                return;
            }
        }
        *self.relay.lock().await = false;
    }

    /// Whether the relay stopped because no lobby stream listens any more.
    async fn stop_when_unheard(&self) -> bool {
        let mut running = self.relay.lock().await;
        if self.items.receiver_count() == 0 {
            *running = false;
            return true;
        }
        false
    }

    async fn relay_batch(&self, batch: &Batch, at: &mut StreamPosition) -> Result<(), Error> {
        let lobby: Vec<events::Model> = batch
            .events
            .iter()
            .filter(|e| {
                StreamPosition { tx: e.tx, id: e.id } > *at
                    && e.audience_seat.is_none()
                    && LOBBY_KINDS.contains(&e.kind.as_str())
            })
            .cloned()
            .collect();
        for (e, r) in self.with_summaries(lobby).await? {
            let _ = self.items.send(Self::item(&e, &r)?);
        }
        *at = (*at).max(batch.to);
        Ok(())
    }

    /// Relays the lobby's settled events after `at` from the database.
    async fn fill(&self, at: &mut StreamPosition) -> Result<(), Error> {
        loop {
            let settled = self.settled.settled_tx().await?;
            let rows = self.read_after(*at, PAGE, settled).await?;
            for (e, r) in &rows {
                let item = Self::item(e, r)?;
                *at = item.at;
                let _ = self.items.send(item);
            }
            if (rows.len() as u64) < PAGE {
                return Ok(());
            }
        }
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
        self: &Arc<Self>,
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
