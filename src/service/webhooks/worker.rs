//! The webhook worker every replica runs: fan-out (events to outbox rows), then
//! delivery (due rows, claimed with SKIP LOCKED under a lease, posted, logged,
//! retried with exponential backoff and jitter).

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use bytes::Bytes;
use serde_json::json;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use uuid::Uuid;

use super::{net, sign};
use crate::service::backoff::backoff;
use crate::service::error::{Error, Result};
use crate::service::hub::Wake;
use crate::service::models::EventResponse;
use crate::service::tx::transaction;
use crate::service::webhooks::{Webhooks, wants};
use crate::store;
use crate::store::entities::{webhook_attempts, webhook_deliveries, webhooks};
use crate::store::streams::StreamPosition;
use crate::store::webhooks::DeliveryOutcome;

pub const PENDING: &str = "pending";
pub const DELIVERED: &str = "delivered";
pub const FAILED: &str = "failed";

/// Webhooks read per query while fanning out.
const WEBHOOKS_PER_READ: u64 = 100;
/// Events turned into deliveries per transaction.
const EVENTS_PER_STEP: u64 = 200;
/// How long a changed match's players' webhooks are read at every poll.
const RECENT_MATCH: Duration = Duration::from_secs(10);
/// The least time between two passes of the worker.
const WAKE_GAP: Duration = Duration::from_millis(25);
/// How often every webhook is read, whatever the wake-ups said.
const FULL_PASS: Duration = Duration::from_secs(60);
/// Deliveries claimed at once (and posted concurrently).
const CLAIM_BATCH: u64 = 16;
/// How much of an error is kept in the log.
const MAX_ERROR_CHARS: usize = 500;

/// An attempt made, to be recorded.
struct Attempted {
    attempt: webhook_attempts::Model,
    outcome: DeliveryOutcome,
}

impl Webhooks {
    /// Fans out and delivers until the server stops. A wake-up names the match
    /// that changed (here or, on Postgres, in another replica), so fan-out reads
    /// only the webhooks of its players, and keeps reading them for
    /// [`RECENT_MATCH`] at every poll: an event may be committed but held back by
    /// the settle watermark when its wake-up arrives. Every webhook is read at
    /// start, after a wake-up that names no match, and every [`FULL_PASS`], so
    /// nothing is missed for longer than that.
    pub async fn run_webhook_worker(&self) {
        let every = Duration::from_millis(self.webhooks.poll_ms.max(10));
        let mut wakes = self.hub.subscribe();
        let mut stop = self.hub.shutdown_signal();
        let mut recent: HashMap<Uuid, Instant> = HashMap::new();
        let mut full_due = true;
        let mut last_full = Instant::now();
        let mut last_pass = Instant::now();
        // The count of webhooks created here when the last full pass found
        // none: until it moves, a wake-up has no webhook to fan out to here
        // (one created on another replica is that replica's to serve, since
        // every change reaches every replica as a wake-up).
        let mut none_since: Option<u64> = None;
        loop {
            // Under a stream of moves every commit wakes the worker: its passes
            // are spaced by WAKE_GAP at least, each covering all wake-ups since.
            let since = last_pass.elapsed();
            if since < WAKE_GAP {
                tokio::time::sleep(WAKE_GAP - since).await;
            }
            // Whatever woke us before this point is covered by the pass below.
            loop {
                match wakes.try_recv() {
                    Ok(Wake::Match(m)) => {
                        recent.insert(m, Instant::now());
                    }
                    Ok(Wake::All) | Err(TryRecvError::Lagged(_)) => full_due = true,
                    // No webhook tells of chat.
                    Ok(Wake::Chat(_)) => {}
                    Err(TryRecvError::Empty | TryRecvError::Closed) => break,
                }
            }
            if last_full.elapsed() >= FULL_PASS {
                full_due = true;
            }
            let created = self.webhooks_created.load(Ordering::SeqCst);
            let idle = !full_due && none_since == Some(created);
            if idle {
                // A webhook made from now on starts at the feed's head: only
                // matches that change after it matter to it.
                recent.clear();
            } else {
                recent.retain(|_, at| at.elapsed() < RECENT_MATCH);
            }
            // Deliveries of webhooks made elsewhere are also served from here,
            // at the poll's pace when this replica knows of none.
            if !idle || last_pass.elapsed() >= every {
                last_pass = Instant::now();
                let fanned = if full_due {
                    last_full = Instant::now();
                    self.fan_out_all_webhooks().await.map(|(made, hooks)| {
                        none_since = (hooks == 0).then_some(created);
                        made
                    })
                } else if idle {
                    Ok(0)
                } else {
                    self.fan_out_webhooks_of(recent.keys().copied().collect())
                        .await
                };
                match fanned {
                    Ok(_) => full_due = false,
                    Err(e) => tracing::warn!(error = %e, "webhook fan-out failed"),
                }
                if let Err(e) = self.deliver_due_webhooks().await {
                    tracing::warn!(error = %e, "webhook delivery failed");
                }
            }
            tokio::select! {
                _ = tokio::time::sleep(every) => {}
                w = wakes.recv() => match w {
                    Ok(Wake::Match(m)) => {
                        recent.insert(m, Instant::now());
                    }
                    Ok(Wake::All) | Err(RecvError::Lagged(_)) => full_due = true,
                    Ok(Wake::Chat(_)) | Err(RecvError::Closed) => {}
                },
                _ = stop.changed() => return,
            }
        }
    }

    /// Fan-out for the webhooks of the players of these matches only.
    async fn fan_out_webhooks_of(&self, matches: Vec<Uuid>) -> Result<usize, Error> {
        let hooks =
            store::webhooks::webhooks_of_matches(&self.db, matches, self.clock.now()).await?;
        Ok(self.fan_out_each(&hooks).await)
    }

    /// Fans out each webhook; one that fails is logged and left for a later pass.
    async fn fan_out_each(&self, hooks: &[webhooks::Model]) -> usize {
        let mut made = 0;
        for h in hooks {
            match self.fan_out(h).await {
                Ok(n) => made += n,
                Err(e) => {
                    tracing::warn!(webhook.id = %h.id, error = %e, "fan-out of a webhook failed")
                }
            }
        }
        made
    }

    /// Turns every webhook's new events into deliveries; answers how many, and
    /// how many webhooks there are.
    async fn fan_out_all_webhooks(&self) -> Result<(usize, usize), Error> {
        let (mut made, mut seen) = (0, 0);
        let mut after = None;
        loop {
            let hooks = store::webhooks::webhooks_after(&self.db, after, WEBHOOKS_PER_READ).await?;
            made += self.fan_out_each(&hooks).await;
            seen += hooks.len();
            if (hooks.len() as u64) < WEBHOOKS_PER_READ {
                return Ok((made, seen));
            }
            after = hooks.last().map(|h| h.id);
        }
    }

    /// One webhook's fan-out: the player's settled events past its cursor (the
    /// feed's own audience rule: public events and the player's seat's), those
    /// of a wanted kind as deliveries, and the cursor moved past them all — in
    /// one transaction, and only if nobody moved the cursor meanwhile. The
    /// (webhook, event) key keeps a delivery single whatever races.
    async fn fan_out(&self, hook: &webhooks::Model) -> Result<usize, Error> {
        let mut at = StreamPosition {
            tx: hook.cursor_tx,
            id: hook.cursor_id,
        };
        let mut made = 0;
        loop {
            let settled = self.settled.settled_tx().await?;
            let events = store::streams::player_events_after(
                &self.db,
                hook.player_id,
                at,
                EVENTS_PER_STEP,
                settled,
                self.clock.now(),
            )
            .await?;
            let Some(last) = events.last() else {
                return Ok(made);
            };
            let to = StreamPosition {
                tx: last.tx,
                id: last.id,
            };
            let now = self.clock.now();
            let mut rows = Vec::new();
            for e in events.iter().filter(|e| wants(&hook.events, &e.kind)) {
                let id = Uuid::now_v7();
                let event = EventResponse {
                    id: e.id,
                    version: e.version,
                    audience_seat: e.audience_seat.map(|s| s as usize),
                    kind: e.kind.clone(),
                    data: serde_json::from_str(&e.data).map_err(Error::internal)?,
                    created_at: e.created_at,
                };
                let payload = json!({
                    "delivery_id": id,
                    "webhook_id": hook.id,
                    "match_id": e.match_id,
                    "position": format!("{}.{}", e.tx, e.id),
                    "event": event,
                });
                rows.push(webhook_deliveries::Model {
                    id,
                    webhook_id: hook.id,
                    event_id: e.id,
                    match_id: e.match_id,
                    kind: e.kind.chars().take(64).collect(),
                    payload: payload.to_string(),
                    status: PENDING.into(),
                    attempts: 0,
                    next_attempt_at: now,
                    claimed_until: None,
                    claim: None,
                    created_at: now,
                    delivered_at: None,
                    last_status_code: None,
                    last_error: None,
                });
            }
            let n = rows.len();
            let tx = store::begin_write(&self.db).await?;
            store::webhooks::insert_deliveries(&tx, rows).await?;
            if !store::webhooks::advance_webhook_cursor(
                &tx,
                hook.id,
                (at.tx, at.id),
                (to.tx, to.id),
            )
            .await?
            {
                // Another replica fanned this webhook out meanwhile.
                tx.rollback().await?;
                return Ok(made);
            }
            tx.commit().await?;
            made += n;
            at = to;
            if (events.len() as u64) < EVENTS_PER_STEP {
                return Ok(made);
            }
        }
    }

    /// Claims due deliveries a batch at a time and posts them; answers how many
    /// attempts were made.
    pub async fn deliver_due_webhooks(&self) -> Result<usize, Error> {
        let mut made = 0;
        loop {
            let now = self.clock.now();
            // A plain read first: most polls find nothing, and need no write lock.
            if !store::webhooks::any_delivery_due(&self.db, now).await? {
                return Ok(made);
            }
            let claim = Uuid::new_v4();
            // Long enough for the attempt; if this process dies, the row is free
            // again when it runs out.
            let lease = chrono::Duration::milliseconds(self.webhooks.timeout_ms as i64)
                + chrono::Duration::seconds(10);
            let tx = store::begin_write(&self.db).await?;
            let rows = store::webhooks::lock_due_deliveries(&tx, now, CLAIM_BATCH).await?;
            store::webhooks::lease_deliveries(
                &tx,
                rows.iter().map(|r| r.id).collect(),
                claim,
                now + lease,
            )
            .await?;
            tx.commit().await?;
            if rows.is_empty() {
                return Ok(made);
            }
            let hooks: HashMap<Uuid, webhooks::Model> = store::webhooks::webhooks_by_ids(
                &self.db,
                rows.iter().map(|r| r.webhook_id).collect(),
            )
            .await?
            .into_iter()
            .map(|h| (h.id, h))
            .collect();
            let attempts = rows.iter().filter_map(|r| {
                hooks
                    .get(&r.webhook_id)
                    .map(|h| self.attempt_delivery(r, h))
            });
            // Posted concurrently, recorded together: one transaction per batch,
            // and no concurrent writers of these tables from one replica (on a
            // distributed Postgres they are reference tables, whose concurrent
            // writes deadlock across nodes).
            let done = futures_util::future::join_all(attempts).await;
            if let Err(e) = self.record_attempts(&done, claim).await {
                tracing::warn!(error = %e, "recording webhook attempts failed");
            }
            made += rows.len();
            if (rows.len() as u64) < CLAIM_BATCH {
                return Ok(made);
            }
        }
    }

    /// One attempt: sign, post, and say what to record.
    async fn attempt_delivery(
        &self,
        d: &webhook_deliveries::Model,
        hook: &webhooks::Model,
    ) -> Attempted {
        let started_at = self.clock.now();
        let started = Instant::now();
        let body = Bytes::from(d.payload.clone());
        let (id, unix) = (d.id.to_string(), started_at.timestamp());
        let headers = [
            (
                sign::STANDARD_SIGNATURE_HEADER,
                sign::standard_signature(&hook.secret, &id, unix, &body),
            ),
            (sign::STANDARD_ID_HEADER, id.clone()),
            (sign::STANDARD_TIMESTAMP_HEADER, unix.to_string()),
            (
                sign::SIGNATURE_HEADER,
                sign::signature(&hook.secret, unix, &body),
            ),
            (sign::DELIVERY_HEADER, id),
            (sign::EVENT_HEADER, d.kind.clone()),
        ];
        let result = match url::Url::parse(&hook.url) {
            Ok(url) => {
                net::post(
                    &url,
                    &headers,
                    body,
                    self.webhooks.allow_private,
                    Duration::from_millis(self.webhooks.timeout_ms),
                )
                .await
            }
            Err(e) => Err(net::TargetError::Refused(format!("bad URL: {e}"))),
        };
        let duration_ms = i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX);
        let attempt = d.attempts + 1;
        let (status_code, error) = match result {
            Ok(a) if (200..300).contains(&a.status) => (Some(i32::from(a.status)), None),
            Ok(a) => (
                Some(i32::from(a.status)),
                Some(format!("the receiver answered {}", a.status)),
            ),
            Err(e) => (
                None,
                Some(e.to_string().chars().take(MAX_ERROR_CHARS).collect()),
            ),
        };
        let now = self.clock.now();
        let outcome = match &error {
            None => DeliveryOutcome {
                status: DELIVERED,
                next_attempt_at: now,
                delivered_at: Some(now),
                status_code,
                error: None,
            },
            Some(_) if attempt >= self.webhooks.max_attempts as i32 => DeliveryOutcome {
                status: FAILED,
                next_attempt_at: now,
                delivered_at: None,
                status_code,
                error: error.clone(),
            },
            Some(_) => DeliveryOutcome {
                status: PENDING,
                next_attempt_at: now + backoff(self.webhooks.backoff_ms, attempt),
                delivered_at: None,
                status_code,
                error: error.clone(),
            },
        };
        let counted = match outcome.status {
            PENDING => "retry",
            other => other,
        };
        self.metrics
            .webhook_attempts
            .with_label_values(&[counted])
            .inc();
        tracing::info!(
            webhook.id = %hook.id, delivery.id = %d.id, attempt, status = outcome.status,
            status_code, error = error.as_deref().unwrap_or(""), "webhook attempt"
        );
        Attempted {
            attempt: webhook_attempts::Model {
                id: Uuid::now_v7(),
                delivery_id: d.id,
                attempt,
                started_at,
                duration_ms,
                status_code,
                error,
            },
            outcome,
        }
    }

    /// Records attempts and their deliveries' new states, each delivery only
    /// while `claim` still holds it (a lease that ran out belongs to somebody else).
    async fn record_attempts(&self, done: &[Attempted], claim: Uuid) -> Result<(), Error> {
        transaction!(&self.db, |tx| {
            for a in done {
                store::webhooks::insert_attempt(tx, a.attempt.clone()).await?;
                if !store::webhooks::finish_delivery(
                    tx,
                    a.attempt.delivery_id,
                    claim,
                    a.outcome.clone(),
                )
                .await?
                {
                    tracing::warn!(delivery.id = %a.attempt.delivery_id, "a webhook lease ran out during its attempt");
                }
            }
            Ok(())
        })
    }
}
