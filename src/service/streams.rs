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
use super::chat;
use super::hub::Wake;
use super::lifecycle::{ACTIVE, WAITING, not_found};
use super::models::EventResponse;
use crate::auth::{AuthenticatedPlayer, Credential, Scope, Scopes};
use crate::errors::ApiError;
use crate::games::rng::sha256_hex;
use crate::store::entities::{events, match_messages, stream_tickets};
use crate::store::{self, StreamPosition};

/// How long a stream ticket is good for.
const TICKET_SECONDS: i64 = 60;
/// A comment line this often keeps proxies from closing an idle stream.
const KEEPALIVE: Duration = Duration::from_secs(15);
/// Events read per query.
const PAGE: u64 = 200;
/// Chat rows read per query.
const CHAT_PAGE: u64 = 500;
/// How long a client should wait before reconnecting, in milliseconds: at the
/// start, and when the server closes the stream because it is stopping.
pub const RETRY_MS: u64 = 2000;
pub const SHUTDOWN_RETRY_MS: u64 = 1000;

/// Who opens a stream.
#[derive(Debug, Clone)]
pub enum StreamAuth {
    Anonymous,
    Player(StreamHolder),
}

impl StreamAuth {
    pub fn player(&self) -> Option<Uuid> {
        match self {
            StreamAuth::Player(h) => Some(h.player),
            StreamAuth::Anonymous => None,
        }
    }
}

/// A player's stream and the credential that opened it (directly or through a
/// ticket): the stream lasts only as long as that credential does.
#[derive(Debug, Clone)]
pub struct StreamHolder {
    pub player: Uuid,
    pub credential: Credential,
}

impl From<&AuthenticatedPlayer> for StreamHolder {
    fn from(p: &AuthenticatedPlayer) -> Self {
        Self {
            player: p.id,
            credential: p.credential.clone(),
        }
    }
}

/// Why a credential no longer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CredentialEnd {
    Expired,
    Revoked,
    PasswordChanged,
    /// An admin disabled the account (see docs/community.md, "Moderation").
    Disabled,
}

impl CredentialEnd {
    pub fn reason(self) -> &'static str {
        match self {
            CredentialEnd::Expired => "expired",
            CredentialEnd::Revoked => "revoked",
            CredentialEnd::PasswordChanged => "password_changed",
            CredentialEnd::Disabled => "account_disabled",
        }
    }

    fn detail(self) -> &'static str {
        match self {
            CredentialEnd::Expired => "The credential that opened this stream has expired.",
            CredentialEnd::Revoked => "The API token that opened this stream was revoked.",
            CredentialEnd::PasswordChanged => {
                "The password changed since the credential that opened this stream was issued."
            }
            CredentialEnd::Disabled => "The account was disabled by an admin.",
        }
    }
}

/// The last event of a stream whose credential ended: it names no position,
/// since the stream cannot be resumed with that credential.
pub const CREDENTIAL_ENDED: &str = "credential_ended";

/// What a stream's `credential_ended` event carries.
#[derive(Debug, Clone, Serialize)]
pub struct CredentialEndedData {
    /// `expired`, `revoked`, `password_changed` or `account_disabled`.
    pub reason: String,
    pub detail: String,
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
    /// An event that is no position of the stream (no `id:`): the caller's
    /// prompt after a batch, or the last frame of a stream that ends for a
    /// reason of its own (its credential ended).
    Unpositioned { kind: &'static str, data: String },
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

/// A match stream's position: an event id, or `<event id>.<chat seq>` after a
/// chat frame.
fn parse_match_position(s: &str) -> Result<(i64, Option<i64>), ApiError> {
    let s = s.trim();
    let (event, chat) = match s.split_once('.') {
        Some((e, c)) => (e, Some(c.parse::<i64>().map_err(|_| bad_last_event_id())?)),
        None => (s, None),
    };
    Ok((event.parse().map_err(|_| bad_last_event_id())?, chat))
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
        me: &AuthenticatedPlayer,
    ) -> Result<StreamTicketResponse, ApiError> {
        let (token_id, password_version) = match &me.credential {
            Credential::Password { version, .. } => (None, Some(*version)),
            Credential::ApiToken { id, .. } => (Some(*id), None),
            Credential::Server => {
                return Err(ApiError::internal("a stream ticket for the server itself"));
            }
        };
        let mut raw = [0u8; 32];
        getrandom::fill(&mut raw)
            .map_err(|e| ApiError::internal(format!("no OS randomness: {e}")))?;
        let ticket = format!("st_{}", hex::encode(raw));
        let now = self.clock.now();
        let expires_at = now + chrono::Duration::seconds(TICKET_SECONDS);
        let row = stream_tickets::Model {
            hash: sha256_hex(ticket.as_bytes()),
            player_id: me.id,
            expires_at,
            used_at: None,
            token_id,
            password_version,
            credential_expires_at: me.credential.expires_at(),
        };
        store::insert_stream_ticket(&self.db, row, now).await?;
        Ok(StreamTicketResponse { ticket, expires_at })
    }

    /// The player a ticket was issued to, with the credential that asked for
    /// it, which must still hold; a ticket works once, within its minute.
    pub async fn redeem_stream_ticket(&self, ticket: &str) -> Result<StreamHolder, ApiError> {
        let refuse = |detail: &str| ApiError::unauthorized("invalid_ticket", detail.to_owned());
        let row =
            store::redeem_stream_ticket(&self.db, &sha256_hex(ticket.as_bytes()), self.clock.now())
                .await?
                .ok_or_else(|| refuse("The stream ticket is unknown, used or expired."))?;
        let credential = match (
            row.token_id,
            row.password_version,
            row.credential_expires_at,
        ) {
            (Some(id), _, expires_at) => Credential::ApiToken {
                id,
                // A ticket opens a stream, which only reads.
                scopes: Scopes::from_list(&[Scope::Read]),
                expires_at,
            },
            (None, Some(version), Some(expires_at)) => Credential::Password {
                version,
                expires_at,
            },
            _ => {
                return Err(refuse(
                    "The stream ticket names no credential; ask for a new one.",
                ));
            }
        };
        let holder = StreamHolder {
            player: row.player_id,
            credential,
        };
        if let Some(end) = self.credential_end(&holder).await? {
            return Err(refuse(&format!(
                "The credential that asked for this ticket no longer holds ({}).",
                end.reason()
            )));
        }
        Ok(holder)
    }

    /// Whether the credential behind a stream still holds, read from the
    /// database (not the credential cache), so a revocation through any replica
    /// counts at once.
    pub async fn credential_end(
        &self,
        holder: &StreamHolder,
    ) -> Result<Option<CredentialEnd>, ApiError> {
        let now = self.clock.now();
        if holder.credential.expires_at().is_some_and(|at| at <= now) {
            return Ok(Some(CredentialEnd::Expired));
        }
        if !matches!(holder.credential, Credential::Server)
            && store::credentials_by_id(&self.db, holder.player)
                .await?
                .is_some_and(|p| p.disabled_at.is_some())
        {
            return Ok(Some(CredentialEnd::Disabled));
        }
        Ok(match &holder.credential {
            Credential::Password { version, .. } => {
                match store::credentials_by_id(&self.db, holder.player).await? {
                    Some(p) if p.password_version == *version => None,
                    _ => Some(CredentialEnd::PasswordChanged),
                }
            }
            Credential::ApiToken { id, .. } => match store::api_token_by_id(&self.db, *id).await? {
                Some(t) if t.revoked_at.is_none() && t.player_id == holder.player => None,
                _ => Some(CredentialEnd::Revoked),
            },
            Credential::Server => None,
        })
    }

    /// Ends a stream whose credential no longer holds, with an event saying why:
    /// true when it ended (or its reader went away).
    async fn ended_by_credential(
        &self,
        holder: Option<&StreamHolder>,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<bool, ApiError> {
        let Some(holder) = holder else {
            return Ok(false);
        };
        let Some(end) = self.credential_end(holder).await? else {
            return Ok(false);
        };
        let data = CredentialEndedData {
            reason: end.reason().to_owned(),
            detail: end.detail().to_owned(),
        };
        let _ = out
            .send(StreamFrame::Unpositioned {
                kind: CREDENTIAL_ENDED,
                data: serde_json::to_string(&data).map_err(ApiError::internal)?,
            })
            .await;
        tracing::info!(player.id = %holder.player, reason = end.reason(), "stream ended with its credential");
        Ok(true)
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
        let mut rows = store::player_events_after(
            &self.db,
            player,
            after,
            limit + 1,
            settled,
            self.clock.now(),
        )
        .await?;
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
        with_prompt: bool,
    ) -> Result<mpsc::Receiver<StreamFrame>, ApiError> {
        let after = last_event_id.map(parse_match_position).transpose()?;
        let holder = match auth {
            StreamAuth::Player(h) => Some(h),
            StreamAuth::Anonymous => None,
        };
        self.require_visible_id(holder.as_ref().map(|h| h.player), id)
            .await?;
        // Where the chat resumes: after the message a chat frame named, or
        // after what was written before the event an event frame named.
        let chat_at = match after {
            None => 0,
            Some((_, Some(seq))) => seq,
            Some((event, None)) => store::chat_seq_before_event(&self.db, id, event).await?,
        };
        let after = after.map(|(event, _)| event);
        let (tx, rx) = mpsc::channel(64);
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this
                .run_match_stream(id, holder, (after, chat_at), with_prompt, &tx)
                .await
            {
                tracing::warn!(match.id = %id, error = %e, "match stream ended");
            }
        });
        Ok(rx)
    }

    async fn run_match_stream(
        &self,
        id: Uuid,
        holder: Option<StreamHolder>,
        (mut after, mut chat_at): (Option<i64>, i64),
        with_prompt: bool,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<(), ApiError> {
        let player = holder.as_ref().map(|h| h.player);
        let mut first = true;
        // Subscribed before the first read, so nothing committed after it is missed.
        let mut wakes = self.hub.subscribe();
        let mut credentials = self.hub.subscribe_credentials();
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
            let mut sent = false;
            loop {
                // The chat is interleaved with the events by the event each
                // message followed: the match's last event id is read first,
                // and neither an event nor a message past it is sent in this
                // round (what was written before an event committed before it,
                // so it is read below).
                let horizon = store::last_event_id(&self.db, id).await?;
                let chat = store::chat_after(&self.db, id, chat_at, CHAT_PAGE).await?;
                // Read as the chat comes, so a mute counts from the next message.
                let muted = if chat.is_empty() {
                    Vec::new()
                } else {
                    self.muted_by(player).await?
                };
                let mut bound = horizon;
                let chat_full = chat.len() as u64 == CHAT_PAGE;
                if chat_full {
                    bound = bound.min(chat.last().map_or(0, |c| c.after_event));
                }
                let mut chat = chat.into_iter().peekable();
                let rows = store::events_of(&self.db, id, seat, over, after, PAGE).await?;
                let events_full = rows.len() as u64 == PAGE;
                let read = rows.len();
                let rows: Vec<_> = rows.into_iter().filter(|e| e.id <= bound).collect();
                // Events are read in order: with some past the bound (or a
                // short page), every one up to it was read.
                let dropped = rows.len() < read;
                let all_events = dropped || !events_full;
                sent |= !rows.is_empty();
                for e in &rows {
                    while let Some(c) = chat.next_if(|c| c.after_event < e.id) {
                        chat_at = c.seq;
                        if !self.send_chat(&c, after, &muted, out).await? {
                            return Ok(());
                        }
                    }
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
                // Every event up to the bound sent: the messages written up to
                // it follow; otherwise those written before the last one sent.
                let chat_bound = if all_events {
                    bound
                } else {
                    after.unwrap_or(0)
                };
                while let Some(c) = chat.next_if(|c| c.after_event <= chat_bound) {
                    chat_at = c.seq;
                    if !self.send_chat(&c, after, &muted, out).await? {
                        return Ok(());
                    }
                }
                if !(events_full || chat_full || dropped) {
                    break;
                }
            }
            if with_prompt && seat.is_some() && (first || sent) {
                let prompt = self.get_match(player, id).await?.prompt;
                let frame = StreamFrame::Unpositioned {
                    kind: "prompt",
                    data: serde_json::to_string(&prompt).map_err(ApiError::internal)?,
                };
                if out.send(frame).await.is_err() {
                    return Ok(());
                }
            }
            first = false;
            if over {
                return Ok(());
            }
            // Wait for a wake-up of this match (or of everything).
            loop {
                tokio::select! {
                    w = wakes.recv() => match w {
                        Ok(Wake::Match(m)) if m != id => continue,
                        Ok(Wake::Match(_)) => break,
                        // Wake-ups, credential changes among them, may have been missed.
                        Ok(Wake::All) | Err(RecvError::Lagged(_)) => {
                            if self.ended_by_credential(holder.as_ref(), out).await? {
                                return Ok(());
                            }
                            break;
                        }
                        Err(RecvError::Closed) => return Ok(()),
                    },
                    c = credentials.recv() => {
                        if self.ends_on_notice(c, holder.as_ref(), out).await? {
                            return Ok(());
                        }
                    }
                    _ = tokio::time::sleep(self.until_expiry(holder.as_ref())) => {
                        if self.ended_by_credential(holder.as_ref(), out).await? {
                            return Ok(());
                        }
                    }
                    _ = tokio::time::sleep(KEEPALIVE) => {
                        // Also the backstop for a credential change whose notice was lost.
                        if self.ended_by_credential(holder.as_ref(), out).await?
                            || out.send(StreamFrame::KeepAlive).await.is_err()
                        {
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

    /// Sends a chat row on a match's stream (unless its author is muted): its
    /// `id:` is the last event sent and the row's number, `<event>.<seq>`. False
    /// when the reader went away.
    async fn send_chat(
        &self,
        c: &match_messages::Model,
        after: Option<i64>,
        muted: &[Uuid],
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<bool, ApiError> {
        let (kind, data) = if c.kind == chat::DELETED {
            let notice = self.chat_notice(c).await?;
            (chat::CHAT_DELETED_EVENT, serde_json::to_string(&notice))
        } else {
            if muted.contains(&c.author_id) {
                return Ok(true);
            }
            let mut m = self.chat_responses(std::slice::from_ref(c)).await?;
            (chat::CHAT_MESSAGE_EVENT, serde_json::to_string(&m.pop()))
        };
        let frame = StreamFrame::Event {
            id: format!("{}.{}", after.unwrap_or(0), c.seq),
            kind: kind.to_owned(),
            data: data.map_err(ApiError::internal)?,
        };
        Ok(out.send(frame).await.is_ok())
    }

    /// Every event of every match the player holds a seat in (public ones and
    /// its own seat's) as a stream, from `last_event_id` (from now without one).
    pub async fn player_stream(
        self: &Arc<Self>,
        holder: StreamHolder,
        last_event_id: Option<&str>,
    ) -> Result<mpsc::Receiver<StreamFrame>, ApiError> {
        let player = holder.player;
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
            if let Err(e) = this.run_player_stream(holder, start, &tx).await {
                tracing::warn!(player.id = %player, error = %e, "player stream ended");
            }
        });
        Ok(rx)
    }

    async fn run_player_stream(
        &self,
        holder: StreamHolder,
        mut at: StreamPosition,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<(), ApiError> {
        let player = holder.player;
        let holder = Some(holder);
        let mut wakes = self.hub.subscribe();
        let mut credentials = self.hub.subscribe_credentials();
        let mut stop = self.hub.shutdown_signal();
        // Which matches are the player's, learnt as wake-ups name them.
        let mut mine: HashMap<Uuid, bool> = HashMap::new();
        if out.send(StreamFrame::Retry(RETRY_MS)).await.is_err() {
            return Ok(());
        }
        loop {
            loop {
                let settled = self.settled_tx().await?;
                let rows = store::player_events_after(
                    &self.db,
                    player,
                    at,
                    PAGE,
                    settled,
                    self.clock.now(),
                )
                .await?;
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
            let pending =
                store::player_events_pending(&self.db, player, at, settled, self.clock.now())
                    .await?;
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
                                    let seated = store::follows_match(&self.db, m, player, self.clock.now()).await?;
                                    mine.insert(m, seated);
                                    seated
                                }
                            };
                            if is_mine {
                                break;
                            }
                        }
                        Ok(Wake::All) | Err(RecvError::Lagged(_)) => {
                            if self.ended_by_credential(holder.as_ref(), out).await? {
                                return Ok(());
                            }
                            break;
                        }
                        Err(RecvError::Closed) => return Ok(()),
                    },
                    c = credentials.recv() => {
                        if self.ends_on_notice(c, holder.as_ref(), out).await? {
                            return Ok(());
                        }
                    }
                    _ = tokio::time::sleep(self.until_expiry(holder.as_ref())) => {
                        if self.ended_by_credential(holder.as_ref(), out).await? {
                            return Ok(());
                        }
                    }
                    _ = tokio::time::sleep(wait) => {
                        if !pending
                            && (self.ended_by_credential(holder.as_ref(), out).await?
                                || out.send(StreamFrame::KeepAlive).await.is_err())
                        {
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

    /// Whether a notice of changed credentials ends the stream: one for its
    /// player (or notices lost to lag) whose check fails, or the hub closing.
    async fn ends_on_notice(
        &self,
        notice: Result<Uuid, RecvError>,
        holder: Option<&StreamHolder>,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<bool, ApiError> {
        let concerned = match notice {
            Ok(p) => holder.is_some_and(|h| h.player == p),
            Err(RecvError::Lagged(_)) => true,
            Err(RecvError::Closed) => return Ok(true),
        };
        Ok(concerned && self.ended_by_credential(holder, out).await?)
    }

    /// How long until the stream's credential expires of itself (a year when it
    /// never does, or for anonymous streams).
    fn until_expiry(&self, holder: Option<&StreamHolder>) -> Duration {
        holder
            .and_then(|h| h.credential.expires_at())
            .map_or(Duration::from_secs(365 * 86_400), |at| {
                (at - self.clock.now()).to_std().unwrap_or(Duration::ZERO)
            })
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
