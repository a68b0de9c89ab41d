//! Webhooks: a player's events posted to a URL of theirs, signed, retried, logged.
//!
//! A subscription keeps a cursor in the player's event feed (the order of
//! `GET /players/me/events`, behind the same settled watermark). Fan-out turns
//! what is past the cursor into rows of an outbox, one per (webhook, event);
//! workers in every replica claim due rows with `FOR UPDATE SKIP LOCKED` and a
//! lease, post them, and record each attempt. Everything lives in the database,
//! so a restart loses nothing.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::config::WebhookSettings;
use crate::metrics::Metrics;
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::hub::Hub;
use crate::service::pages::{encode_cursor, page_limit, uuid_cursor};
use crate::service::settled::Settled;
use crate::store;
use crate::store::entities::webhooks;

pub mod net;
pub mod sign;
mod worker;

/// Webhooks a player may hold.
pub const MAX_WEBHOOKS: u64 = 10;

/// The event kinds the server itself writes, for every game. A game's own kinds
/// are not listed in code; `*` subscribes to them with everything else.
pub const LIFECYCLE_KINDS: &[&str] = &[
    "player_joined",
    "player_left",
    "match_started",
    "seat_submitted",
    "move_replaced",
    "step_resolved",
    "round_resolved",
    "match_finished",
    "match_aborted",
    "seat_timed_out",
    "seat_extended",
    "seat_on_vacation",
    "seat_back_from_vacation",
    "seat_returned",
    "seat_forfeited",
    "invitation_sent",
    "invitation_accepted",
    "invitation_declined",
    "tournament_round_started",
];

/// Every kind.
const ALL: &str = "*";

/// A subscription, without its secret.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WebhookResponse {
    pub id: Uuid,
    #[schema(example = "https://bots.example/sealed-orders")]
    pub url: String,
    /// The event kinds delivered; `["*"]` for every kind.
    #[schema(example = json!(["match_started", "match_finished"]))]
    pub events: Vec<String>,
    pub created_at: DateTime<Utc>,
}

/// A new webhook with its signing secret, shown this once.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CreatedWebhook {
    /// `whsec_` and 64 hex digits: the HMAC-SHA256 key of
    /// `Sealed-Orders-Signature` (its UTF-8 bytes, prefix included).
    pub secret: String,
    pub webhook: WebhookResponse,
}

/// A page of webhooks, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WebhookPage {
    pub items: Vec<WebhookResponse>,
    pub next_cursor: Option<String>,
}

/// One attempt at a delivery.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AttemptResponse {
    /// 1 for the first.
    pub attempt: i32,
    pub started_at: DateTime<Utc>,
    pub duration_ms: i64,
    /// The receiver's HTTP status; null when none came.
    pub status_code: Option<i32>,
    /// Why it failed; null when it succeeded.
    pub error: Option<String>,
}

/// One event's delivery to one webhook, with its attempts.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryResponse {
    /// Sent as `Sealed-Orders-Delivery`: the same at every attempt.
    pub id: Uuid,
    pub match_id: Uuid,
    pub event_id: i64,
    pub kind: String,
    /// `pending` (to be tried, or retried at `next_attempt_at`), `delivered`
    /// (a 2xx answer) or `failed` (every attempt failed).
    pub status: String,
    /// When the next attempt is due; null unless pending.
    pub next_attempt_at: Option<DateTime<Utc>>,
    pub delivered_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub attempts: Vec<AttemptResponse>,
}

/// A page of deliveries, newest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryPage {
    pub items: Vec<DeliveryResponse>,
    pub next_cursor: Option<String>,
}

fn response(row: &webhooks::Model) -> WebhookResponse {
    WebhookResponse {
        id: row.id,
        url: row.url.clone(),
        events: row.events.split(' ').map(str::to_owned).collect(),
        created_at: row.created_at,
    }
}

/// Subscribes to these kinds: a list of known kinds, or `*` (also what an
/// omitted list means). Stored space-separated, sorted, without repeats.
fn parse_kinds(kinds: Option<Vec<String>>) -> Result<String, Error> {
    let Some(kinds) = kinds else {
        return Ok(ALL.to_owned());
    };
    if kinds.is_empty() {
        return Err(Error::unprocessable(
            "invalid_events",
            "events lists at least one kind; omit it or send [\"*\"] for every kind.",
        )
        .arg("kinds", LIFECYCLE_KINDS.join(", ")));
    }
    if kinds.iter().any(|k| k == ALL) {
        return Ok(ALL.to_owned());
    }
    let mut out = Vec::new();
    for k in &kinds {
        if !LIFECYCLE_KINDS.contains(&k.as_str()) {
            return Err(Error::unprocessable(
                "invalid_events",
                format!(
                    "{:?} is not an event kind a webhook can filter on; use \"*\" or some of: {}.",
                    k.chars().take(64).collect::<String>(),
                    LIFECYCLE_KINDS.join(", ")
                ),
            )
            .arg("kinds", LIFECYCLE_KINDS.join(", ")));
        }
        out.push(k.as_str());
    }
    out.sort_unstable();
    out.dedup();
    Ok(out.join(" "))
}

/// Whether a webhook with these stored kinds wants an event of `kind`.
pub(crate) fn wants(stored: &str, kind: &str) -> bool {
    stored == ALL || stored.split(' ').any(|k| k == kind)
}

fn new_secret() -> Result<String, Error> {
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| Error::internal(format!("no OS randomness: {e}")))?;
    Ok(format!("whsec_{}", hex::encode(raw)))
}

fn webhook_not_found() -> Error {
    Error::not_found("webhook_not_found", "You have no webhook with that id.")
}

/// Webhooks: a player's events posted to a URL of theirs, signed, retried, logged.
pub struct Webhooks {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    hub: Arc<Hub>,
    metrics: Arc<Metrics>,
    /// How this server delivers webhooks.
    webhooks: crate::config::WebhookSettings,
    settled: Arc<Settled>,
    /// Webhooks created here so far: the worker skips its wake-up passes while
    /// its last full pass found none and this has not moved.
    webhooks_created: std::sync::atomic::AtomicU64,
}

impl Webhooks {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        hub: Arc<Hub>,
        metrics: Arc<Metrics>,
        webhooks: crate::config::WebhookSettings,
        settled: Arc<Settled>,
    ) -> Self {
        Self {
            db,
            clock,
            hub,
            metrics,
            webhooks,
            settled,
            webhooks_created: std::sync::atomic::AtomicU64::new(0),
        }
    }
}

impl Webhooks {
    pub fn webhook_settings(&self) -> &WebhookSettings {
        &self.webhooks
    }

    /// Subscribes `url` to the caller's events from now on.
    pub async fn create_webhook(
        &self,
        me: &AuthenticatedPlayer,
        url: &str,
        events: Option<Vec<String>>,
    ) -> Result<CreatedWebhook, Error> {
        let url = net::check_url(url.trim(), self.webhooks.allow_private).map_err(|why| {
            let why = why.to_string();
            Error::unprocessable("invalid_webhook_url", why.clone()).arg("reason", why)
        })?;
        let events = parse_kinds(events)?;
        if store::webhooks::count_webhooks(&self.db, me.id).await? >= MAX_WEBHOOKS {
            return Err(Error::conflict(
                "too_many_webhooks",
                format!("A player holds at most {MAX_WEBHOOKS} webhooks; delete one first."),
            )
            .arg("max", MAX_WEBHOOKS));
        }
        // From the settled head of the feed: only events from now on are sent.
        let head = store::streams::stream_head(&self.db).await?;
        let row = webhooks::Model {
            id: Uuid::now_v7(),
            player_id: me.id,
            url: url.to_string(),
            events,
            secret: new_secret()?,
            created_at: self.clock.now(),
            cursor_tx: head.tx,
            cursor_id: head.id,
        };
        store::webhooks::insert_webhook(&self.db, row.clone()).await?;
        self.webhooks_created
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        tracing::info!(player.id = %me.id, webhook.id = %row.id, "webhook created");
        Ok(CreatedWebhook {
            secret: row.secret.clone(),
            webhook: response(&row),
        })
    }

    pub async fn list_webhooks(
        &self,
        me: &AuthenticatedPlayer,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<WebhookPage, Error> {
        let limit = page_limit(limit)?;
        let before = uuid_cursor(cursor)?;
        let mut rows = store::webhooks::list_webhooks(&self.db, me.id, before, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        Ok(WebhookPage {
            next_cursor: more
                .then(|| rows.last().map(|r| encode_cursor(&r.id.to_string())))
                .flatten(),
            items: rows.iter().map(response).collect(),
        })
    }

    /// Deletes a webhook, its pending deliveries and its log.
    pub async fn delete_webhook(&self, me: &AuthenticatedPlayer, id: Uuid) -> Result<(), Error> {
        if store::webhooks::delete_webhook(&self.db, me.id, id).await? {
            tracing::info!(player.id = %me.id, webhook.id = %id, "webhook deleted");
            Ok(())
        } else {
            Err(webhook_not_found())
        }
    }

    /// A page of a webhook's deliveries with their attempts; the owner's only.
    pub async fn list_webhook_deliveries(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<DeliveryPage, Error> {
        let limit = page_limit(limit)?;
        let before = uuid_cursor(cursor)?;
        store::webhooks::webhook_of(&self.db, me.id, id)
            .await?
            .ok_or_else(webhook_not_found)?;
        let mut rows = store::webhooks::list_deliveries(&self.db, id, before, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        // The two reads are not one snapshot: an attempt recorded between them
        // (with its delivery's new state, in one transaction) is left out, so
        // each delivery shows the attempts its own row counts.
        let counted: std::collections::HashMap<Uuid, i32> =
            rows.iter().map(|r| (r.id, r.attempts)).collect();
        let mut attempts = std::collections::HashMap::<Uuid, Vec<AttemptResponse>>::new();
        for a in store::webhooks::attempts_of(&self.db, rows.iter().map(|r| r.id).collect()).await?
        {
            if counted.get(&a.delivery_id).is_none_or(|&n| a.attempt > n) {
                continue;
            }
            attempts
                .entry(a.delivery_id)
                .or_default()
                .push(AttemptResponse {
                    attempt: a.attempt,
                    started_at: a.started_at,
                    duration_ms: a.duration_ms,
                    status_code: a.status_code,
                    error: a.error,
                });
        }
        Ok(DeliveryPage {
            next_cursor: more
                .then(|| rows.last().map(|r| encode_cursor(&r.id.to_string())))
                .flatten(),
            items: rows
                .iter()
                .map(|r| DeliveryResponse {
                    id: r.id,
                    match_id: r.match_id,
                    event_id: r.event_id,
                    kind: r.kind.clone(),
                    status: r.status.clone(),
                    next_attempt_at: (r.status == worker::PENDING).then_some(r.next_attempt_at),
                    delivered_at: r.delivered_at,
                    created_at: r.created_at,
                    attempts: attempts.remove(&r.id).unwrap_or_default(),
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_are_known_ones_or_everything() {
        assert_eq!(parse_kinds(None).ok().as_deref(), Some("*"));
        assert_eq!(
            parse_kinds(Some(vec!["*".into(), "match_started".into()]))
                .ok()
                .as_deref(),
            Some("*")
        );
        assert_eq!(
            parse_kinds(Some(vec![
                "match_started".into(),
                "match_finished".into(),
                "match_started".into()
            ]))
            .ok()
            .as_deref(),
            Some("match_finished match_started")
        );
        assert!(parse_kinds(Some(vec![])).is_err());
        assert!(parse_kinds(Some(vec!["no_such_kind".into()])).is_err());
        assert!(wants("*", "card_drawn"));
        assert!(wants("match_finished match_started", "match_started"));
        assert!(!wants("match_finished match_started", "seat_submitted"));
    }
}
