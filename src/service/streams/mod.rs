//! Event streams (Server-Sent Events) and long polls. The events table is the
//! source of truth: a stream reads it, sends what is new, and waits for a
//! wake-up without holding a database connection. Resumable: a match stream's
//! position is an event id; a player's stream crosses matches and is ordered by
//! (writing transaction, id), which it writes as `tx.id`.

pub(in crate::service) mod feed;
pub mod lobby;
mod matches;
mod players;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;
use serde::Serialize;
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use utoipa::ToSchema;
use uuid::Uuid;

use super::chat;
use crate::auth::{AuthenticatedPlayer, Credential, Scope, Scopes};
use crate::games::rng::sha256_hex;
use crate::service::chat::Chat;
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::hub::{Hub, Wake};
use crate::service::lifecycle::{ACTIVE, WAITING, not_found};
use crate::service::models::EventResponse;
use crate::service::reads::Reads;
use crate::service::settled::Settled;
use crate::service::visibility::Policy;
use crate::store;
use crate::store::entities::{events, stream_tickets};

/// Event streams and long polls.
pub struct Streams {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    hub: Arc<Hub>,
    policy: Arc<Policy>,
    chat: Arc<Chat>,
    reads: Arc<Reads>,
    settled: Arc<Settled>,
    /// One read of the log for every player stream.
    feed: Arc<feed::Feed>,
}

impl Streams {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        hub: Arc<Hub>,
        policy: Arc<Policy>,
        chat: Arc<Chat>,
        reads: Arc<Reads>,
        settled: Arc<Settled>,
    ) -> Self {
        let feed = feed::Feed::new(db.clone(), hub.clone(), settled.clone());
        Self {
            db,
            clock,
            hub,
            policy,
            chat,
            reads,
            settled,
            feed,
        }
    }

    /// The process's one read of the log, which the lobby relays from too.
    pub(in crate::service) fn feed(&self) -> Arc<feed::Feed> {
        self.feed.clone()
    }
}

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
///
/// Its events are boxed: every open stream holds a channel whose first block
/// has room for 32 frames from the start, so the frame's size is paid 32 times
/// per stream while it waits (2.3 KiB with the event inline, 0.5 KiB boxed).
#[derive(Debug, Clone)]
pub enum StreamFrame {
    /// An event: its position (the `id:` a client resumes from), kind and JSON.
    Event(Box<EventFrame>),
    /// How long to wait before reconnecting.
    Retry(u64),
    /// Nothing new; keeps the connection alive.
    KeepAlive,
    /// An event that is no position of the stream (no `id:`): the caller's
    /// prompt after a batch, or the last frame of a stream that ends for a
    /// reason of its own (its credential ended).
    Unpositioned(Box<UnpositionedFrame>),
}

#[derive(Debug, Clone)]
pub struct EventFrame {
    pub id: String,
    pub kind: String,
    pub data: String,
}

#[derive(Debug, Clone)]
pub struct UnpositionedFrame {
    pub kind: &'static str,
    pub data: String,
}

impl StreamFrame {
    pub fn event(id: String, kind: String, data: String) -> Self {
        Self::Event(Box::new(EventFrame { id, kind, data }))
    }

    pub fn unpositioned(kind: &'static str, data: String) -> Self {
        Self::Unpositioned(Box::new(UnpositionedFrame { kind, data }))
    }
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

/// An event as the streams write it: [`EventResponse`]'s fields, its data
/// passed on as stored (compact JSON written by `serde_json`, so the same
/// text a parse and a new serialization would give) instead of parsed.
#[derive(Serialize)]
struct EventJson<'a> {
    id: i64,
    version: i64,
    audience_seat: Option<usize>,
    kind: &'a str,
    data: &'a serde_json::value::RawValue,
    created_at: DateTime<Utc>,
}

/// An event's JSON, as [`EventResponse`] serializes.
pub(in crate::service) fn event_json(e: &events::Model) -> Result<String, Error> {
    let data: &serde_json::value::RawValue =
        serde_json::from_str(&e.data).map_err(Error::internal)?;
    serde_json::to_string(&EventJson {
        id: e.id,
        version: e.version,
        audience_seat: e.audience_seat.map(|s| s as usize),
        kind: &e.kind,
        data,
        created_at: e.created_at,
    })
    .map_err(Error::internal)
}

/// A player's stream's frame of an event, as [`PlayerEventResponse`]
/// serializes, from the event's JSON: its match first, then the event's
/// fields.
fn player_event_json(match_id: Uuid, event: &str) -> String {
    format!("{{\"match_id\":\"{match_id}\",{}", &event[1..])
}

fn event_response(e: &events::Model) -> Result<EventResponse, Error> {
    Ok(EventResponse {
        id: e.id,
        version: e.version,
        audience_seat: e.audience_seat.map(|s| s as usize),
        kind: e.kind.clone(),
        data: serde_json::from_str(&e.data).map_err(Error::internal)?,
        created_at: e.created_at,
    })
}

/// A match stream's position: an event id, or `<event id>.<chat seq>` after a
/// chat frame.
fn parse_match_position(s: &str) -> Result<(i64, Option<i64>), Error> {
    let s = s.trim();
    let (event, chat) = match s.split_once('.') {
        Some((e, c)) => (e, Some(c.parse::<i64>().map_err(|_| bad_last_event_id())?)),
        None => (s, None),
    };
    Ok((event.parse().map_err(|_| bad_last_event_id())?, chat))
}

fn bad_last_event_id() -> Error {
    Error::bad_request(
        "invalid_last_event_id",
        "Last-Event-ID is not a position this stream gave.",
    )
}

impl Streams {
    pub async fn issue_stream_ticket(
        &self,
        me: &AuthenticatedPlayer,
    ) -> Result<StreamTicketResponse, Error> {
        let (token_id, password_version) = match &me.credential {
            Credential::Password { version, .. } => (None, Some(*version)),
            Credential::ApiToken { id, .. } => (Some(*id), None),
            Credential::Server => {
                return Err(Error::internal("a stream ticket for the server itself"));
            }
        };
        let mut raw = [0u8; 32];
        getrandom::fill(&mut raw).map_err(|e| Error::internal(format!("no OS randomness: {e}")))?;
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
        store::streams::insert_stream_ticket(&self.db, row, now).await?;
        Ok(StreamTicketResponse { ticket, expires_at })
    }

    /// The player a ticket was issued to, with the credential that asked for
    /// it, which must still hold; a ticket works once, within its minute.
    pub async fn redeem_stream_ticket(&self, ticket: &str) -> Result<StreamHolder, Error> {
        let refuse = |detail: &str| Error::unauthorized("invalid_ticket", detail.to_owned());
        let row = store::streams::redeem_stream_ticket(
            &self.db,
            &sha256_hex(ticket.as_bytes()),
            self.clock.now(),
        )
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
    ) -> Result<Option<CredentialEnd>, Error> {
        let now = self.clock.now();
        if holder.credential.expires_at().is_some_and(|at| at <= now) {
            return Ok(Some(CredentialEnd::Expired));
        }
        if !matches!(holder.credential, Credential::Server)
            && store::auth::credentials_by_id(&self.db, holder.player)
                .await?
                .is_some_and(|p| p.disabled_at.is_some())
        {
            return Ok(Some(CredentialEnd::Disabled));
        }
        Ok(match &holder.credential {
            Credential::Password { version, .. } => {
                match store::auth::credentials_by_id(&self.db, holder.player).await? {
                    Some(p) if p.password_version == *version => None,
                    _ => Some(CredentialEnd::PasswordChanged),
                }
            }
            Credential::ApiToken { id, .. } => {
                match store::auth::api_token_by_id(&self.db, *id).await? {
                    Some(t) if t.revoked_at.is_none() && t.player_id == holder.player => None,
                    _ => Some(CredentialEnd::Revoked),
                }
            }
            Credential::Server => None,
        })
    }

    /// Ends a stream whose credential no longer holds, with an event saying why:
    /// true when it ended (or its reader went away).
    async fn ended_by_credential(
        &self,
        holder: Option<&StreamHolder>,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<bool, Error> {
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
            .send(StreamFrame::unpositioned(
                CREDENTIAL_ENDED,
                serde_json::to_string(&data).map_err(Error::internal)?,
            ))
            .await;
        tracing::info!(player.id = %holder.player, reason = end.reason(), "stream ended with its credential");
        Ok(true)
    }

    /// Whether a notice of changed credentials ends the stream: one for its
    /// player (or notices lost to lag) whose check fails, or the hub closing.
    async fn ends_on_notice(
        &self,
        notice: Result<Uuid, RecvError>,
        holder: Option<&StreamHolder>,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<bool, Error> {
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
    ) -> Result<(), Error> {
        let mut wakes = self.hub.subscribe();
        let mut stop = self.hub.shutdown_signal();
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            let (version, status) = store::matches::match_progress(&self.db, id)
                .await?
                .ok_or_else(not_found)?;
            if version > after_version || (status != ACTIVE && status != WAITING) {
                return Ok(());
            }
            loop {
                tokio::select! {
                    w = wakes.recv() => match w {
                        Ok(Wake::Match(m)) if m != id => continue,
                        // Chat changes no version.
                        Ok(Wake::Chat(_)) => continue,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn event(data: &str, audience_seat: Option<i32>) -> events::Model {
        events::Model {
            id: 41,
            match_id: Uuid::now_v7(),
            version: 7,
            audience_seat,
            kind: "step_resolved".into(),
            data: data.into(),
            created_at: "2026-11-28T18:30:00.123456Z".parse().expect("a time"),
            tx: 900,
        }
    }

    #[test]
    fn an_events_json_is_what_its_response_serializes_to() {
        for (data, seat) in [
            (r#"{"a":1,"b":[true,null,"x\"y"],"c":{"d":-2.5}}"#, None),
            (r#"{}"#, Some(2)),
            (r#"{"seat":0,"card":"attack2"}"#, Some(0)),
        ] {
            // Stored data is compact JSON written by serde_json.
            let stored: serde_json::Value = serde_json::from_str(data).expect("json");
            let e = event(&stored.to_string(), seat);
            let response = event_response(&e).expect("response");
            assert_eq!(
                event_json(&e).expect("json"),
                serde_json::to_string(&response).expect("serialized")
            );
            let player = PlayerEventResponse {
                match_id: e.match_id,
                event: response,
            };
            assert_eq!(
                player_event_json(e.match_id, &event_json(&e).expect("json")),
                serde_json::to_string(&player).expect("serialized")
            );
        }
    }

    #[test]
    fn stored_data_that_is_not_json_is_an_error_not_a_frame() {
        assert!(event_json(&event("{not json", None)).is_err());
    }
}
