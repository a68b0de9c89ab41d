//! The match lifecycle, written once for all games. Owns transactions and locking.

mod absence;
mod account;
pub mod chat;
pub mod clock;
pub mod clubs;
pub mod commitment;
pub mod community;
pub mod data;
mod deadlines;
mod folds;
pub mod hub;
mod lifecycle;
mod matches;
pub mod models;
pub mod moderation;
mod moves;
pub mod outcome;
mod pairing;
mod players;
mod ratings;
pub mod registry;
pub mod replay;
mod snapshots;
mod stats;
pub mod streams;
pub mod timing;
mod tokens;
pub mod tournaments;
pub mod webhooks;

use std::sync::Arc;

use sea_orm::DatabaseConnection;

use crate::auth::JwtKeys;
use crate::errors::ApiError;
use crate::games::DynGame;
use crate::metrics::Metrics;

pub use matches::SERVICE_OPTION_KEYS;
pub use matches::{CreateMatch, JoinMatch, ListMatches};
pub use moves::{SubmitMove, Submitted};
pub use stats::GameStatsQuery;
pub use streams::{StreamAuth, StreamFrame};
pub use tokens::NewApiToken;
pub use tournaments::CreateTournament;

/// Shared by every request handler: the pool, the games, their data, the keys, the clock.
pub struct Service {
    db: DatabaseConnection,
    games: Vec<Box<dyn DynGame>>,
    data: data::DataStore,
    jwt: JwtKeys,
    clock: Arc<dyn clock::Clock>,
    metrics: Arc<Metrics>,
    hub: Arc<hub::Hub>,
    webhooks: crate::config::WebhookSettings,
    settled: SettledCache,
    passwords: Arc<crate::auth::PasswordPool>,
    snapshots: snapshots::SnapshotCache,
    credentials: players::CredentialCache,
    /// How long a waiting match may go unjoined (none: for ever), and when the
    /// last sweep for such matches ran, by the service's clock.
    stale_lobby: Option<chrono::Duration>,
    last_lobby_sweep: std::sync::Mutex<Option<chrono::DateTime<chrono::Utc>>>,
    /// How long an invitation stays open when its sender does not say.
    invitation_ttl: chrono::Duration,
    /// Whether a match ended here since the poller last looked at tournaments,
    /// and when it last looked, by the service's clock.
    tournaments_due: std::sync::atomic::AtomicBool,
    last_tournament_sweep: std::sync::Mutex<Option<chrono::DateTime<chrono::Utc>>>,
    /// Whether moves may be written as one statement outside a transaction
    /// (Postgres; SQLite is in-process, where a transaction costs no round trips).
    one_statement_moves: bool,
    /// How that statement writes its lists (VALUES on Citus).
    move_lists: crate::store::MoveLists,
    /// The pool the one-statement move is sent on (generic plans; see
    /// `store::connect_for_moves`); the main pool when none is given.
    move_db: Option<DatabaseConnection>,
    /// Whether a read trusts a kept snapshot while the hub hears of every
    /// change (`MATCH_READS=notified`), or asks the database for the version.
    notified_reads: bool,
    /// Webhooks created here so far: the webhook worker skips its wake-up
    /// passes while its last full pass found none and this has not moved.
    webhooks_created: std::sync::atomic::AtomicU64,
    /// Signalled when a match finished here: its ratings and totals are due.
    folds_due: tokio::sync::Notify,
}

/// The settle watermark of the event log (`store::settled_tx`), read at most once
/// per [`SETTLED_MAX_AGE`] by this process however many streams and webhook
/// workers ask: each read scans `pg_stat_activity`, and every subscriber used to
/// make two per wake-up. A cached value is older, hence lower, so it can only
/// hold an event back a moment longer, never let an unsettled one through.
#[derive(Default)]
struct SettledCache {
    last: tokio::sync::Mutex<Option<(std::time::Instant, Option<i64>)>>,
}

const SETTLED_MAX_AGE: std::time::Duration = std::time::Duration::from_millis(15);

impl Service {
    pub fn new(
        db: DatabaseConnection,
        games: Vec<Box<dyn DynGame>>,
        data: data::DataStore,
        jwt: JwtKeys,
        clock: Arc<dyn clock::Clock>,
        metrics: Arc<Metrics>,
    ) -> Self {
        let across_replicas = db.get_database_backend() == sea_orm::DbBackend::Postgres;
        let one_statement_moves = across_replicas;
        let hub = Arc::new(hub::Hub::new(across_replicas));
        Self {
            db,
            games,
            data,
            jwt,
            clock,
            metrics,
            hub,
            webhooks: Default::default(),
            settled: SettledCache::default(),
            passwords: Arc::new(crate::auth::PasswordPool::new(
                crate::config::default_password_hash_threads(),
                std::time::Duration::from_millis(crate::config::DEFAULT_PASSWORD_HASH_WAIT_MS),
            )),
            snapshots: snapshots::SnapshotCache::new(crate::config::DEFAULT_MATCH_CACHE_MIB << 20),
            credentials: players::CredentialCache::new(std::time::Duration::from_millis(
                crate::config::DEFAULT_CREDENTIAL_CACHE_MS,
            )),
            one_statement_moves,
            move_lists: crate::store::MoveLists::Arrays,
            move_db: None,
            notified_reads: true,
            stale_lobby: Some(chrono::Duration::days(
                crate::config::DEFAULT_STALE_LOBBY_DAYS as i64,
            )),
            last_lobby_sweep: std::sync::Mutex::new(None),
            invitation_ttl: chrono::Duration::hours(crate::config::DEFAULT_INVITATION_HOURS as i64),
            tournaments_due: std::sync::atomic::AtomicBool::new(false),
            last_tournament_sweep: std::sync::Mutex::new(None),
            webhooks_created: std::sync::atomic::AtomicU64::new(0),
            folds_due: tokio::sync::Notify::new(),
        }
    }

    /// The pool moves written as one statement are sent on.
    pub fn with_move_pool(mut self, db: Option<DatabaseConnection>) -> Self {
        self.move_db = db;
        self
    }

    /// How moves written as one statement write their lists.
    pub fn with_move_lists(mut self, lists: crate::store::MoveLists) -> Self {
        self.move_lists = lists;
        self
    }

    /// Cancels waiting matches nobody joined or left for `days` (0: never).
    pub fn with_stale_lobby_days(mut self, days: u64) -> Self {
        self.stale_lobby = (days > 0).then(|| chrono::Duration::days(days as i64));
        self
    }

    /// Invitations stay open `hours` unless their sender says otherwise.
    pub fn with_invitation_hours(mut self, hours: u64) -> Self {
        self.invitation_ttl = chrono::Duration::hours(hours.clamp(1, 24 * 365) as i64);
        self
    }

    /// Answers credential checks from memory for `ttl` (zero: never).
    pub fn with_credential_cache(mut self, ttl: std::time::Duration) -> Self {
        self.credentials = players::CredentialCache::new(ttl);
        self
    }

    /// Whether reads trust kept snapshots while every change is heard of
    /// (false: each read asks the database for the match's version).
    pub fn with_notified_reads(mut self, notified: bool) -> Self {
        self.notified_reads = notified;
        self
    }

    /// Has the hub drop the snapshot of every match another replica changes,
    /// before anybody waiting on it is woken. Call once the cache is set up,
    /// before the hub listens.
    pub fn watch_remote_changes(&self) {
        let cache = self.snapshots.clone();
        self.hub
            .on_remote_change(Box::new(move |id| cache.forget(id)));
    }

    /// Keeps at most `mib` MiB of match snapshots (0: none).
    pub fn with_match_cache(mut self, mib: u64) -> Self {
        self.snapshots = snapshots::SnapshotCache::new(mib << 20);
        self
    }

    /// Password hashing on `threads` threads, a request waiting at most `wait`.
    pub fn with_password_hashing(mut self, threads: usize, wait: std::time::Duration) -> Self {
        self.passwords = Arc::new(crate::auth::PasswordPool::new(threads, wait));
        self
    }

    pub fn passwords(&self) -> &crate::auth::PasswordPool {
        &self.passwords
    }

    /// The settle watermark, shared by every reader of the player feed in this
    /// process (see [`SettledCache`]). The lock is held across the read, so
    /// subscribers woken together wait for one read instead of making their own.
    pub(crate) async fn settled_tx(&self) -> Result<Option<i64>, ApiError> {
        let mut last = self.settled.last.lock().await;
        if let Some((at, value)) = *last
            && at.elapsed() < SETTLED_MAX_AGE
        {
            return Ok(value);
        }
        let read_at = std::time::Instant::now();
        let value = crate::store::settled_tx(&self.db).await?;
        *last = Some((read_at, value));
        Ok(value)
    }

    /// How this server delivers webhooks (the defaults otherwise).
    pub fn with_webhook_settings(mut self, settings: crate::config::WebhookSettings) -> Self {
        self.webhooks = settings;
        self
    }

    pub fn hub(&self) -> &Arc<hub::Hub> {
        &self.hub
    }

    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// Refreshes the gauges read from the database, then renders every metric.
    pub async fn render_metrics(&self) -> Result<String, ApiError> {
        for (status, n) in crate::store::count_matches_by_status(&self.db).await? {
            self.metrics
                .matches
                .with_label_values(&[status.as_str()])
                .set(n);
        }
        let (size, idle) = crate::store::pool_usage(&self.db);
        self.metrics.pool.with_label_values(&["open"]).set(size);
        self.metrics.pool.with_label_values(&["idle"]).set(idle);
        self.metrics
            .pool
            .with_label_values(&["in_use"])
            .set(size - idle);
        let hashes = &self.metrics.password_hashes;
        hashes
            .with_label_values(&["running"])
            .set(self.passwords.running() as i64);
        hashes
            .with_label_values(&["peak"])
            .set(self.passwords.peak() as i64);
        let (entries, bytes) = self.snapshots.usage();
        let cache = &self.metrics.match_cache;
        cache.with_label_values(&["entries"]).set(entries as i64);
        cache.with_label_values(&["bytes"]).set(bytes as i64);
        Ok(self.metrics.render())
    }

    pub fn jwt(&self) -> &JwtKeys {
        &self.jwt
    }

    pub fn db(&self) -> &DatabaseConnection {
        &self.db
    }

    fn game(&self, id: &str) -> Option<&dyn DynGame> {
        self.games
            .iter()
            .find(|g| g.info().id == id)
            .map(|g| g.as_ref())
    }

    /// A stored match's game; a missing one means the row is corrupt.
    fn game_of(&self, id: &str) -> Result<&dyn DynGame, ApiError> {
        self.game(id)
            .ok_or_else(|| ApiError::internal(format!("match of unknown game {id}")))
    }

    pub fn games(&self) -> &[Box<dyn DynGame>] {
        &self.games
    }

    /// Names of players by id.
    async fn player_names(
        &self,
        ids: Vec<uuid::Uuid>,
    ) -> Result<std::collections::HashMap<uuid::Uuid, String>, ApiError> {
        Ok(crate::store::players_by_ids(&self.db, ids)
            .await?
            .into_iter()
            .map(|p| (p.id, p.name))
            .collect())
    }

    /// Readiness: the database answers.
    pub async fn ready(&self) -> bool {
        crate::store::ping(&self.db).await.is_ok()
    }
}

/// Runs a write transaction, retrying a few times with jitter when the database
/// reports contention; then gives up with a 503.
macro_rules! with_retry {
    ($body:expr) => {{
        let mut attempt = 0u32;
        loop {
            match $body.await {
                Err(e)
                    if e.status == actix_web::http::StatusCode::SERVICE_UNAVAILABLE
                        && attempt < 4 =>
                {
                    attempt += 1;
                    let jitter = (uuid::Uuid::new_v4().as_u128() % 20) as u64;
                    tokio::time::sleep(std::time::Duration::from_millis(
                        10 * u64::from(attempt) + jitter,
                    ))
                    .await;
                }
                other => break other,
            }
        }
    }};
}
pub(crate) use with_retry;

/// Encodes a list cursor (opaque to clients).
fn encode_cursor(raw: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw.as_bytes())
}

/// Decodes a list cursor; a bad one is the client's fault (400).
fn decode_cursor(cursor: &str) -> Result<String, ApiError> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.as_bytes())
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| {
            ApiError::bad_request(
                "invalid_cursor",
                "The cursor is not one this server issued.",
            )
        })
}

fn invalid_cursor() -> ApiError {
    ApiError::bad_request(
        "invalid_cursor",
        "The cursor is not one this server issued.",
    )
}

/// The id a page of a list ordered by id starts below.
fn uuid_cursor(cursor: Option<String>) -> Result<Option<uuid::Uuid>, ApiError> {
    cursor
        .map(|c| decode_cursor(&c)?.parse().map_err(|_| invalid_cursor()))
        .transpose()
}

/// The offset a page of a list ordered otherwise starts at.
fn offset_cursor(cursor: Option<String>) -> Result<u64, ApiError> {
    cursor.map_or(Ok(0), |c| {
        decode_cursor(&c)?.parse().map_err(|_| invalid_cursor())
    })
}

fn page_limit(limit: Option<u64>) -> Result<u64, ApiError> {
    match limit {
        None => Ok(50),
        Some(l) if (1..=200).contains(&l) => Ok(l),
        Some(_) => Err(ApiError::bad_request(
            "invalid_limit",
            "limit must be between 1 and 200.",
        )),
    }
}

impl Service {
    /// The game catalogue.
    pub fn catalogue(&self) -> Vec<models::GameResponse> {
        self.games
            .iter()
            .map(|g| {
                let info = g.info();
                let data = self.data.current(info.id);
                models::GameResponse {
                    id: info.id.to_owned(),
                    name: info.name.to_owned(),
                    summary: info.summary.to_owned(),
                    seats: info.seats,
                    options: info.options,
                    service_options: serde_json::json!({
                        "rated": true,
                        "position": null,
                        "move_time_limit": null,
                        "timeout_policy": timing::POLICY_BOT,
                        "absent_move_time_limit": timing::DEFAULT_ABSENT_LIMIT,
                    }),
                    bots: g.bot_kinds().into_iter().map(str::to_owned).collect(),
                    data_sha256: data.as_ref().map(|d| d.sha256.clone()).unwrap_or_default(),
                    data_placeholder: data.is_some_and(|d| d.placeholder),
                }
            })
            .collect()
    }
}
