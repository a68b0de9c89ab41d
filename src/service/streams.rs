//! Event streams (Server-Sent Events) and long polls. The events table is the
//! source of truth: a stream reads it, sends what is new, and waits for a
//! wake-up without holding a database connection. Resumable: a match stream's
//! position is an event id; a player's stream crosses matches and is ordered by
//! (writing transaction, id), which it writes as `tx.id`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use utoipa::ToSchema;
use uuid::Uuid;

use super::Service;
use super::hub::Wake;
use super::lifecycle::{ACTIVE, WAITING, not_found};
use super::models::EventResponse;
use crate::errors::ApiError;
use crate::games::rng::sha256_hex;
use crate::store::entities::{events, stream_tickets};
use crate::store::{self, StreamPosition};

/// How long a stream ticket is good for.
const TICKET_SECONDS: i64 = 60;
/// A comment line this often keeps proxies from closing an idle stream.
const KEEPALIVE: Duration = Duration::from_secs(15);
/// Events read per query.
const PAGE: u64 = 200;
/// How long a client should wait before reconnecting, in milliseconds: at the
/// start, and when the server closes the stream because it is stopping.
pub const RETRY_MS: u64 = 2000;
pub const SHUTDOWN_RETRY_MS: u64 = 1000;

/// Who opens a stream.
#[derive(Debug, Clone, Copy)]
pub enum StreamAuth {
    Anonymous,
    Player(Uuid),
}

/// One piece of a stream, for the HTTP layer to write out.
#[derive(Debug, Clone)]
pub enum StreamFrame {
    /// An event: its position (the `id:` a client resumes from), kind and JSON.
    Event {
        id: String,
        kind: String,
        data: String,
    },
    /// How long to wait before reconnecting.
    Retry(u64),
    /// Nothing new; keeps the connection alive.
    KeepAlive,
}

/// A single-use ticket for `?ticket=`, for clients (browsers) that cannot send
/// an Authorization header with an event stream.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StreamTicketResponse {
    pub ticket: String,
    pub expires_at: DateTime<Utc>,
}

/// An event of a player's stream: which match it belongs to, and the event.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerEventResponse {
    pub match_id: Uuid,
    #[serde(flatten)]
    pub event: EventResponse,
}

/// A page of a player's events, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerEventPage {
    pub items: Vec<PlayerEventResponse>,
    pub next_cursor: Option<String>,
}

fn event_response(e: &events::Model) -> Result<EventResponse, ApiError> {
    Ok(EventResponse {
        id: e.id,
        version: e.version,
        audience_seat: e.audience_seat.map(|s| s as usize),
        kind: e.kind.clone(),
        data: serde_json::from_str(&e.data).map_err(ApiError::internal)?,
        created_at: e.created_at,
    })
}

fn bad_last_event_id() -> ApiError {
    ApiError::bad_request(
        "invalid_last_event_id",
        "Last-Event-ID is not a position this stream gave.",
    )
}

impl Service {
    pub async fn issue_stream_ticket(
        &self,
        player: Uuid,
    ) -> Result<StreamTicketResponse, ApiError> {
        let mut raw = [0u8; 32];
        getrandom::fill(&mut raw)
            .map_err(|e| ApiError::internal(format!("no OS randomness: {e}")))?;
        let ticket = format!("st_{}", hex::encode(raw));
        let now = self.clock.now();
        let expires_at = now + chrono::Duration::seconds(TICKET_SECONDS);
        let row = stream_tickets::Model {
            hash: sha256_hex(ticket.as_bytes()),
            player_id: player,
            expires_at,
            used_at: None,
        };
        store::insert_stream_ticket(&self.db, row, now).await?;
        Ok(StreamTicketResponse { ticket, expires_at })
    }

    /// The player a ticket was issued to; a ticket works once, within its minute.
    pub async fn redeem_stream_ticket(&self, ticket: &str) -> Result<Uuid, ApiError> {
        store::redeem_stream_ticket(&self.db, &sha256_hex(ticket.as_bytes()), self.clock.now())
            .await?
            .ok_or_else(|| {
                ApiError::unauthorized(
                    "invalid_ticket",
                    "The stream ticket is unknown, used or expired.",
                )
            })
    }

    /// A page of the player's events (what its stream carries), oldest first.
    pub async fn player_events_page(
        &self,
        player: Uuid,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<PlayerEventPage, ApiError> {
        let limit = super::page_limit(limit)?;
        let after = match cursor {
            Some(c) => {
                let raw = super::decode_cursor(&c)?;
                let bad = || {
                    ApiError::bad_request(
                        "invalid_cursor",
                        "The cursor is not one this server issued.",
                    )
                };
                let (tx, id) = raw.split_once('.').ok_or_else(bad)?;
                StreamPosition {
                    tx: tx.parse().map_err(|_| bad())?,
                    id: id.parse().map_err(|_| bad())?,
                }
            }
            None => StreamPosition { tx: -1, id: 0 },
        };
        let settled = self.settled_tx().await?;
        let mut rows =
            store::player_events_after(&self.db, player, after, limit + 1, settled).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = if more {
            rows.last()
                .map(|e| super::encode_cursor(&format!("{}.{}", e.tx, e.id)))
        } else {
            None
        };
        let items = rows
            .iter()
            .map(|e| {
                Ok(PlayerEventResponse {
                    match_id: e.match_id,
                    event: event_response(e)?,
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok(PlayerEventPage { items, next_cursor })
    }

    /// A match's events as a stream: every event the caller may see after
    /// `last_event_id` (from the start of the match without one), then each new
    /// one as it happens. The stream ends once the match is over and told.
    pub async fn match_stream(
        self: &Arc<Self>,
        auth: StreamAuth,
        id: Uuid,
        last_event_id: Option<&str>,
    ) -> Result<mpsc::Receiver<StreamFrame>, ApiError> {
        let after = last_event_id
            .map(|s| s.trim().parse::<i64>().map_err(|_| bad_last_event_id()))
            .transpose()?;
        store::match_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let player = match auth {
            StreamAuth::Player(p) => Some(p),
            StreamAuth::Anonymous => None,
        };
        let (tx, rx) = mpsc::channel(64);
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this.run_match_stream(id, player, after, &tx).await {
                tracing::warn!(match.id = %id, error = %e, "match stream ended");
            }
        });
        Ok(rx)
    }

    async fn run_match_stream(
        &self,
        id: Uuid,
        player: Option<Uuid>,
        mut after: Option<i64>,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<(), ApiError> {
        // Subscribed before the first read, so nothing committed after it is missed.
        let mut wakes = self.hub.subscribe();
        let mut stop = self.hub.shutdown_signal();
        if out.send(StreamFrame::Retry(RETRY_MS)).await.is_err() {
            return Ok(());
        }
        // The caller's seat, once it can no longer change.
        let mut kept_seat: Option<Option<i32>> = None;
        loop {
            let status = store::match_status(&self.db, id)
                .await?
                .ok_or_else(not_found)?;
            let over = status != ACTIVE && status != WAITING;
            // While the match waits the caller may take or leave a seat, and seats
            // are renumbered at the start; from then on the seat is fixed, so it is
            // read once instead of at every wake-up.
            let seat = match (player, kept_seat) {
                (None, _) => None,
                (Some(_), Some(kept)) => kept,
                (Some(p), None) => {
                    let seat = store::seat_of_player(&self.db, id, p).await?;
                    if status != WAITING {
                        kept_seat = Some(seat);
                    }
                    seat
                }
            };
            loop {
                let rows = store::events_of(&self.db, id, seat, over, after, PAGE).await?;
                for e in &rows {
                    let data =
                        serde_json::to_string(&event_response(e)?).map_err(ApiError::internal)?;
                    let frame = StreamFrame::Event {
                        id: e.id.to_string(),
                        kind: e.kind.clone(),
                        data,
                    };
                    if out.send(frame).await.is_err() {
                        return Ok(());
                    }
                    after = Some(e.id);
                }
                if (rows.len() as u64) < PAGE {
                    break;
                }
            }
            if over {
                return Ok(());
            }
            // Wait for a wake-up of this match (or of everything).
            loop {
                tokio::select! {
                    w = wakes.recv() => match w {
                        Ok(Wake::Match(m)) if m != id => continue,
                        Ok(_) | Err(RecvError::Lagged(_)) => break,
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

    /// Every event of every match the player holds a seat in (public ones and
    /// its own seat's) as a stream, from `last_event_id` (from now without one).
    pub async fn player_stream(
        self: &Arc<Self>,
        player: Uuid,
        last_event_id: Option<&str>,
    ) -> Result<mpsc::Receiver<StreamFrame>, ApiError> {
        let start = match last_event_id {
            Some(s) => {
                let (tx, id) = s.trim().split_once('.').ok_or_else(bad_last_event_id)?;
                StreamPosition {
                    tx: tx.parse().map_err(|_| bad_last_event_id())?,
                    id: id.parse().map_err(|_| bad_last_event_id())?,
                }
            }
            None => store::stream_head(&self.db).await?,
        };
        let (tx, rx) = mpsc::channel(64);
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this.run_player_stream(player, start, &tx).await {
                tracing::warn!(player.id = %player, error = %e, "player stream ended");
            }
        });
        Ok(rx)
    }

    async fn run_player_stream(
        &self,
        player: Uuid,
        mut at: StreamPosition,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<(), ApiError> {
        let mut wakes = self.hub.subscribe();
        let mut stop = self.hub.shutdown_signal();
        // Which matches are the player's, learnt as wake-ups name them.
        let mut mine: HashMap<Uuid, bool> = HashMap::new();
        if out.send(StreamFrame::Retry(RETRY_MS)).await.is_err() {
            return Ok(());
        }
        loop {
            loop {
                let settled = self.settled_tx().await?;
                let rows = store::player_events_after(&self.db, player, at, PAGE, settled).await?;
                for e in &rows {
                    let event = PlayerEventResponse {
                        match_id: e.match_id,
                        event: event_response(e)?,
                    };
                    let frame = StreamFrame::Event {
                        id: format!("{}.{}", e.tx, e.id),
                        kind: e.kind.clone(),
                        data: serde_json::to_string(&event).map_err(ApiError::internal)?,
                    };
                    if out.send(frame).await.is_err() {
                        return Ok(());
                    }
                    mine.insert(e.match_id, true);
                    at = StreamPosition { tx: e.tx, id: e.id };
                }
                if (rows.len() as u64) < PAGE {
                    break;
                }
            }
            // On Postgres an event can be committed but not yet settled (an older
            // transaction elsewhere is still open): look again shortly.
            let settled = self.settled_tx().await?;
            let pending = store::player_events_pending(&self.db, player, at, settled).await?;
            let mut wait = if pending {
                Duration::from_millis(50)
            } else {
                KEEPALIVE
            };
            loop {
                tokio::select! {
                    w = wakes.recv() => match w {
                        Ok(Wake::Match(m)) => {
                            let is_mine = match mine.get(&m) {
                                Some(known) => *known,
                                None => {
                                    let seated = store::seat_of_player(&self.db, m, player).await?.is_some();
                                    mine.insert(m, seated);
                                    seated
                                }
                            };
                            if is_mine {
                                break;
                            }
                        }
                        Ok(Wake::All) | Err(RecvError::Lagged(_)) => break,
                        Err(RecvError::Closed) => return Ok(()),
                    },
                    _ = tokio::time::sleep(wait) => {
                        if !pending && out.send(StreamFrame::KeepAlive).await.is_err() {
                            return Ok(());
                        }
                        break;
                    }
                    _ = stop.changed() => {
                        let _ = out.send(StreamFrame::Retry(SHUTDOWN_RETRY_MS)).await;
                        return Ok(());
                    }
                    _ = out.closed() => return Ok(()),
                }
                wait = KEEPALIVE;
            }
        }
    }

    /// Waits until the match's version passes `after_version`, for at most
    /// `wait`; answers at once when it already has. Holds no database connection
    /// while it waits.
    pub async fn wait_for_version(
        &self,
        id: Uuid,
        after_version: i64,
        wait: Duration,
    ) -> Result<(), ApiError> {
        let mut wakes = self.hub.subscribe();
        let mut stop = self.hub.shutdown_signal();
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let (version, status) = store::match_progress(&self.db, id)
                .await?
                .ok_or_else(not_found)?;
            if version > after_version || (status != ACTIVE && status != WAITING) {
                return Ok(());
            }
            loop {
                tokio::select! {
                    w = wakes.recv() => match w {
                        Ok(Wake::Match(m)) if m != id => continue,
                        Ok(_) | Err(RecvError::Lagged(_)) => break,
                        Err(RecvError::Closed) => return Ok(()),
                    },
                    _ = tokio::time::sleep_until(deadline) => return Ok(()),
                    _ = stop.changed() => return Ok(()),
                }
            }
        }
    }
}
