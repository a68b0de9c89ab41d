//! Typed settings from the environment. Secrets are redacted in Debug.

use std::path::PathBuf;

use secrecy::SecretString;

/// Which database, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseKind {
    Sqlite,
    Postgres,
}

#[derive(Debug, Clone)]
pub struct Settings {
    /// A sea-orm connection URL (`sqlite://…` or `postgres://…`).
    pub database_url: String,
    /// Postgres only: the schema to use (tests use one schema each).
    pub database_schema: Option<String>,
    pub host: String,
    pub port: u16,
    pub jwt_secret: Option<SecretString>,
    /// How long a password-issued JWT lives (`JWT_TTL`).
    pub jwt_ttl_seconds: i64,
    /// Registrations, logins and password changes a minute, per address and per
    /// account; 0 turns the limit off.
    pub rate_limit_auth_per_min: u32,
    /// Moves a minute per player; 0 turns move limits off (both).
    pub rate_limit_moves_per_min: u32,
    /// Moves a minute per client address (every seat of a match may play from
    /// one host); 0 turns this one off.
    pub rate_limit_moves_per_min_per_address: u32,
    /// Chat messages a minute per player (`RATE_LIMIT_CHAT_PER_MIN`); 0 turns
    /// the limit off.
    pub rate_limit_chat_per_min: u32,
    /// New matches (rematches included) a minute per player, and five times
    /// that per address (`RATE_LIMIT_MATCHES_PER_MIN`); 0 turns it off.
    pub rate_limit_matches_per_min: u32,
    /// Invitations sent (requests to invite to a match or a club) a minute per
    /// player, and five times that per address; 0 turns it off.
    pub rate_limit_invitations_per_min: u32,
    /// New clubs a minute per player, and five times that per address.
    pub rate_limit_clubs_per_min: u32,
    /// New tournaments a minute per player, and five times that per address.
    pub rate_limit_tournaments_per_min: u32,
    /// The most one account may hold open at once (`MAX_*`).
    pub caps: Caps,
    /// Peers whose X-Forwarded-For names the client address.
    pub trusted_proxies: Vec<crate::network::Network>,
    /// Origins browsers may call the API from; empty: no CORS headers at all.
    pub cors_origins: Vec<String>,
    /// Overrides of the embedded component data: `DATA_DIR/<game>/<file>.json`.
    pub data_dir: Option<PathBuf>,
    /// Pool size; `None` picks a default per database.
    pub max_connections: Option<u32>,
    /// Citus only: the shards of the tables the server distributes when it lays
    /// them out (`CITUS_SHARD_COUNT`; default Citus's own, 32).
    pub citus_shard_count: Option<u32>,
    /// `json` or `pretty`.
    pub log_format: String,
    /// How often each replica looks for expired deadlines; 0 turns polling off.
    pub deadline_poll_ms: u64,
    /// Webhook deliveries (`WEBHOOK_*`).
    pub webhooks: WebhookSettings,
    /// How mail is sent (none without `SMTP_URL`).
    pub mail: MailSettings,
    /// Password hashes (argon2id, 19 MiB each) computed at once
    /// (`PASSWORD_HASH_THREADS`, default: the machine's cores).
    pub password_hash_threads: usize,
    /// How long a login or registration waits for a hashing thread before it is
    /// answered 503 (`PASSWORD_HASH_WAIT_MS`).
    pub password_hash_wait_ms: u64,
    /// MiB of match snapshots kept per process (`MATCH_CACHE_MIB`); 0 keeps none.
    pub match_cache_mib: u64,
    /// How long a credential check is answered from memory (`CREDENTIAL_CACHE_MS`);
    /// 0 reads the database on every request.
    pub credential_cache_ms: u64,
    /// Days a waiting match may go without anybody joining or leaving before
    /// the server cancels it (`STALE_LOBBY_DAYS`); 0 never does.
    pub stale_lobby_days: u64,
    /// Hours an invitation to a match stays open unless its sender says
    /// otherwise (`INVITATION_HOURS`, at least 1).
    pub invitation_hours: u64,
    /// Days of vacation a player may take in any 365 days
    /// (`VACATION_DAYS_PER_YEAR`); 0 turns vacations off.
    pub vacation_days_per_year: u64,
    /// How the Postgres move statement writes its lists (`MOVE_LISTS`): `auto`
    /// (multi-row `VALUES` on Citus, arrays elsewhere), `arrays` or `values`.
    pub move_lists: String,
    /// How a match read knows its kept snapshot is current (`MATCH_READS`):
    /// `auto` (default: without asking while this replica is the only one and
    /// hears of every change, on SQLite and plain Postgres) or `checked` (it
    /// asks the database for the version at every read, as on Citus).
    pub match_reads: String,
    /// Milliseconds without a word from another replica before a replica
    /// takes itself for the only one (`REPLICA_SILENCE_MS`).
    pub replica_silence_ms: u64,
    /// The lease, in milliseconds, of a match's home: the replica whose own
    /// moves keep writing a match answers its reads without asking the
    /// database, and any other writer waits for the lease (`HOME_LEASE_MS`,
    /// plain Postgres with `MATCH_READS=auto`; 0 turns homes off).
    pub home_lease_ms: u64,
    /// The most moves of different matches written in one statement and one
    /// commit (`MOVE_BATCH`, plain Postgres); 1 writes every move alone.
    pub move_batch: u64,
    /// How many such statements may be in flight at once (`MOVE_WRITERS`):
    /// moves that arrive while all are busy wait and go together in the next.
    pub move_writers: u64,
    /// Microseconds a writer waits for more moves after the first before it
    /// sends (`MOVE_BATCH_WAIT_US`); 0 sends what has arrived at once.
    pub move_batch_wait_us: u64,
}

/// Moves a commit may carry: more than a two-core server gathers while one
/// statement is in flight.
pub const DEFAULT_MOVE_BATCH: u64 = 32;
/// Statements of moves in flight at once. One: the next batch gathers while
/// the statement runs, so batches grow with the load. With two, a writer
/// that came free took at once the one move that had arrived since the other
/// started (a quarter of the moves went alone), and each extra statement
/// cost Postgres its start and its commit (docs/benchmarks.md, "One writer,
/// and no foreign keys on the rows a move writes").
pub const DEFAULT_MOVE_WRITERS: u64 = 1;

/// Half a minute: every replica speaks at least every ten seconds.
pub const DEFAULT_REPLICA_SILENCE_MS: u64 = 30_000;

/// Three seconds: longer than a sticky client takes between a move and its
/// next read of the match, even at five hundred matches a replica on a busy
/// machine; what a writer through another replica waits at most.
pub const DEFAULT_HOME_LEASE_MS: u64 = 3_000;

/// Two weeks: long enough for friends who play by mail, short enough that the
/// lobby does not fill with matches nobody will join.
pub const DEFAULT_STALE_LOBBY_DAYS: u64 = 14;

/// A week: a correspondence player looks in at least that often, and the lobby
/// itself goes stale after two.
pub const DEFAULT_INVITATION_HOURS: u64 = 7 * 24;
/// Days of vacation a year, as a correspondence league gives (ICCF: 35).
pub const DEFAULT_VACATION_DAYS: u64 = 30;

/// A revocation through another replica takes effect within this time.
pub const DEFAULT_CREDENTIAL_CACHE_MS: u64 = 2000;

/// Enough for the states of about 8,000 matches of Malacca: every match active
/// on a busy server, in a small part of the memory budget.
pub const DEFAULT_MATCH_CACHE_MIB: u64 = 32;

/// As many hashing threads as the machine has cores: more would only share
/// them and hold more 19 MiB buffers.
pub fn default_password_hash_threads() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// A burst of logins waits this long at most for a hashing thread (about 150
/// hashes' worth on two cores) before it is answered 503 with Retry-After.
pub const DEFAULT_PASSWORD_HASH_WAIT_MS: u64 = 3000;

/// What one account may hold open at once: the lobby, the club directory and
/// the tournament list are read by everybody, and one script must not fill
/// them. Each is far above what a person who plays keeps open; 0 lifts a cap.
/// Counted in the database, so they hold across replicas.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caps {
    /// Matches owned that wait for players (`MAX_WAITING_MATCHES`).
    pub waiting_matches: u32,
    /// Tournaments created that are registering or running
    /// (`MAX_OPEN_TOURNAMENTS`).
    pub open_tournaments: u32,
    /// Clubs owned (`MAX_CLUBS_OWNED`).
    pub clubs_owned: u32,
    /// Invitations sent that still stand: to matches, pending, unexpired and
    /// the match still waiting; to clubs, unanswered
    /// (`MAX_PENDING_INVITATIONS`).
    pub pending_invitations: u32,
}

impl Default for Caps {
    fn default() -> Self {
        Self {
            waiting_matches: 20,
            open_tournaments: 5,
            clubs_owned: 10,
            pending_invitations: 100,
        }
    }
}

impl Caps {
    fn from_env(var: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let d = Self::default();
        let cap = |k: &str, default: u32| -> anyhow::Result<u32> {
            match var(k) {
                Some(n) => n.trim().parse().map_err(|_| {
                    anyhow::anyhow!("{k} must be a whole number (0 lifts the cap), not {n:?}")
                }),
                None => Ok(default),
            }
        };
        Ok(Self {
            waiting_matches: cap("MAX_WAITING_MATCHES", d.waiting_matches)?,
            open_tournaments: cap("MAX_OPEN_TOURNAMENTS", d.open_tournaments)?,
            clubs_owned: cap("MAX_CLUBS_OWNED", d.clubs_owned)?,
            pending_invitations: cap("MAX_PENDING_INVITATIONS", d.pending_invitations)?,
        })
    }
}

/// How webhooks are delivered.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    /// Allows `http` URLs and private, loopback and other non-public addresses
    /// (`WEBHOOK_ALLOW_PRIVATE=1`): for tests and closed networks only.
    pub allow_private: bool,
    /// How often each replica looks for events to fan out and deliveries due;
    /// 0 turns this replica's webhook worker off.
    pub poll_ms: u64,
    /// How long one attempt may take, connecting included.
    pub timeout_ms: u64,
    /// The wait before the first retry; it doubles at each failure (with jitter).
    pub backoff_ms: u64,
    /// Attempts before a delivery is marked failed.
    pub max_attempts: u32,
}

impl Default for WebhookSettings {
    fn default() -> Self {
        Self {
            allow_private: false,
            poll_ms: 1000,
            timeout_ms: 10_000,
            backoff_ms: 10_000,
            max_attempts: 12,
        }
    }
}

impl WebhookSettings {
    fn from_env(var: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let d = Self::default();
        let number = |k: &str, default: u64| -> anyhow::Result<u64> {
            match var(k) {
                Some(n) => n
                    .trim()
                    .parse()
                    .map_err(|_| anyhow::anyhow!("{k} must be a whole number, not {n:?}")),
                None => Ok(default),
            }
        };
        let allow_private = match var("WEBHOOK_ALLOW_PRIVATE").as_deref().map(str::trim) {
            None | Some("0" | "false" | "no") => false,
            Some("1" | "true" | "yes") => true,
            Some(v) => anyhow::bail!("WEBHOOK_ALLOW_PRIVATE must be 1 or 0, not {v:?}"),
        };
        let max_attempts = number("WEBHOOK_MAX_ATTEMPTS", u64::from(d.max_attempts))?;
        Ok(Self {
            allow_private,
            poll_ms: number("WEBHOOK_POLL_MS", d.poll_ms)?,
            timeout_ms: number("WEBHOOK_TIMEOUT_MS", d.timeout_ms)?.max(1),
            backoff_ms: number("WEBHOOK_BACKOFF_MS", d.backoff_ms)?,
            max_attempts: u32::try_from(max_attempts.clamp(1, 100)).unwrap_or(100),
        })
    }
}

/// How notifications and account mail are sent.
#[derive(Debug, Clone)]
pub struct MailSettings {
    /// `smtp://host:port` (STARTTLS when offered), `smtps://user:pass@host`
    /// (TLS from the start), with `?tls=required` to refuse plain text; None
    /// sends nothing.
    pub smtp_url: Option<SecretString>,
    /// The `From` of every mail (`Sealed Orders <play@example.org>`).
    pub from: String,
    /// Where the web client is, for the links in mail (`https://play.example.org`).
    pub public_url: String,
    /// How often each replica looks for mail to queue and send; 0 turns this
    /// replica's mail worker off.
    pub poll_ms: u64,
    /// The wait before the first retry; doubled at each failure (with jitter).
    pub backoff_ms: u64,
    /// Attempts before a mail is marked failed.
    pub max_attempts: u32,
}

impl Default for MailSettings {
    fn default() -> Self {
        Self {
            smtp_url: None,
            from: "Sealed Orders <noreply@localhost>".into(),
            public_url: "http://127.0.0.1:8080".into(),
            poll_ms: 1000,
            backoff_ms: 30_000,
            max_attempts: 8,
        }
    }
}

impl MailSettings {
    /// Whether mail is sent at all.
    pub fn enabled(&self) -> bool {
        self.smtp_url.is_some()
    }

    fn from_env(var: impl Fn(&str) -> Option<String>) -> anyhow::Result<Self> {
        let d = Self::default();
        let number = |k: &str, default: u64| -> anyhow::Result<u64> {
            match var(k) {
                Some(n) => n
                    .trim()
                    .parse()
                    .map_err(|_| anyhow::anyhow!("{k} must be a whole number, not {n:?}")),
                None => Ok(default),
            }
        };
        let smtp_url = var("SMTP_URL");
        let from = var("MAIL_FROM");
        let public_url = var("PUBLIC_URL");
        if smtp_url.is_some() {
            if from.is_none() {
                anyhow::bail!(
                    "MAIL_FROM is required with SMTP_URL (e.g. 'Sealed Orders <play@example.org>')"
                );
            }
            if public_url.is_none() {
                anyhow::bail!(
                    "PUBLIC_URL is required with SMTP_URL: mail links to the web client there"
                );
            }
        }
        let public_url = public_url.unwrap_or(d.public_url);
        url::Url::parse(&public_url)
            .map_err(|e| anyhow::anyhow!("PUBLIC_URL must be a URL, not {public_url:?}: {e}"))?;
        let max_attempts = number("MAIL_MAX_ATTEMPTS", u64::from(d.max_attempts))?;
        Ok(Self {
            smtp_url: smtp_url.map(SecretString::from),
            from: from.unwrap_or(d.from),
            public_url: public_url.trim_end_matches('/').to_owned(),
            poll_ms: number("MAIL_POLL_MS", d.poll_ms)?,
            backoff_ms: number("MAIL_BACKOFF_MS", d.backoff_ms)?,
            max_attempts: u32::try_from(max_attempts.clamp(1, 100)).unwrap_or(100),
        })
    }
}

/// The SQLite file used when `DATABASE_URL` is unset: in the working directory.
pub const DEFAULT_SQLITE_URL: &str = "sqlite://sealed-orders.db?mode=rwc";

impl Settings {
    /// Reads the environment; unset values take their documented defaults.
    pub fn from_env() -> anyhow::Result<Self> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let database_url = var("DATABASE_URL").unwrap_or_else(|| DEFAULT_SQLITE_URL.to_owned());
        let port = match var("PORT") {
            Some(p) => p
                .parse()
                .map_err(|_| anyhow::anyhow!("PORT must be a port number, not {p:?}"))?,
            None => 8080,
        };
        if var("TOKEN_TTL_SECONDS").is_some() {
            anyhow::bail!("TOKEN_TTL_SECONDS was replaced by JWT_TTL (e.g. JWT_TTL=24h)");
        }
        let jwt_ttl_seconds = match var("JWT_TTL") {
            Some(t) => parse_duration_seconds(&t).ok_or_else(|| {
                anyhow::anyhow!("JWT_TTL must be like 3600, 90s, 15m, 24h or 7d, not {t:?}")
            })?,
            None => 24 * 3600,
        };
        let per_minute = |k: &str, default: u32| -> anyhow::Result<u32> {
            match var(k) {
                Some(n) => n.parse().map_err(|_| {
                    anyhow::anyhow!("{k} must be a whole number (0 turns the limit off)")
                }),
                None => Ok(default),
            }
        };
        let rate_limit_moves_per_min = per_minute("RATE_LIMIT_MOVES_PER_MIN", 600)?;
        let rate_limit_moves_per_min_per_address = if rate_limit_moves_per_min == 0 {
            0
        } else {
            per_minute(
                "RATE_LIMIT_MOVES_PER_MIN_PER_ADDRESS",
                rate_limit_moves_per_min.saturating_mul(5),
            )?
        };
        let trusted_proxies = var("TRUSTED_PROXIES")
            .iter()
            .flat_map(|v| v.split(',').map(str::to_owned).collect::<Vec<_>>())
            .filter(|n| !n.trim().is_empty())
            .map(|n| {
                n.parse()
                    .map_err(|e| anyhow::anyhow!("TRUSTED_PROXIES: {e}"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let cors_origins = crate::cors::parse_origins(&var("CORS_ORIGINS").unwrap_or_default())
            .map_err(|e| anyhow::anyhow!("CORS_ORIGINS: {e}"))?;
        let max_connections = match var("DATABASE_MAX_CONNECTIONS") {
            Some(n) => Some(
                n.parse()
                    .map_err(|_| anyhow::anyhow!("DATABASE_MAX_CONNECTIONS must be a number"))?,
            ),
            None => None,
        };
        let citus_shard_count = match var("CITUS_SHARD_COUNT") {
            Some(n) => Some(
                n.parse::<u32>()
                    .ok()
                    .filter(|n| (1..=4096).contains(n))
                    .ok_or_else(|| anyhow::anyhow!("CITUS_SHARD_COUNT must be 1 to 4096"))?,
            ),
            None => None,
        };
        let deadline_poll_ms = match var("DEADLINE_POLL_MS") {
            Some(n) => n
                .parse()
                .map_err(|_| anyhow::anyhow!("DEADLINE_POLL_MS must be a whole number"))?,
            None => 500,
        };
        let whole = |k: &str, default: u64| -> anyhow::Result<u64> {
            match var(k) {
                Some(n) => n
                    .trim()
                    .parse()
                    .map_err(|_| anyhow::anyhow!("{k} must be a whole number, not {n:?}")),
                None => Ok(default),
            }
        };
        let password_hash_threads = whole(
            "PASSWORD_HASH_THREADS",
            default_password_hash_threads() as u64,
        )?;
        if password_hash_threads == 0 || password_hash_threads > 256 {
            anyhow::bail!("PASSWORD_HASH_THREADS must be between 1 and 256");
        }
        let settings = Self {
            database_url,
            database_schema: var("DATABASE_SCHEMA"),
            host: var("HOST").unwrap_or_else(|| "127.0.0.1".to_owned()),
            port,
            jwt_secret: var("JWT_SECRET").map(SecretString::from),
            jwt_ttl_seconds,
            rate_limit_auth_per_min: per_minute("RATE_LIMIT_AUTH_PER_MIN", 60)?,
            rate_limit_moves_per_min,
            rate_limit_moves_per_min_per_address,
            rate_limit_chat_per_min: per_minute("RATE_LIMIT_CHAT_PER_MIN", 20)?,
            rate_limit_matches_per_min: per_minute("RATE_LIMIT_MATCHES_PER_MIN", 10)?,
            rate_limit_invitations_per_min: per_minute("RATE_LIMIT_INVITATIONS_PER_MIN", 30)?,
            rate_limit_clubs_per_min: per_minute("RATE_LIMIT_CLUBS_PER_MIN", 5)?,
            rate_limit_tournaments_per_min: per_minute("RATE_LIMIT_TOURNAMENTS_PER_MIN", 5)?,
            caps: Caps::from_env(var)?,
            trusted_proxies,
            cors_origins,
            data_dir: var("DATA_DIR").map(PathBuf::from),
            max_connections,
            citus_shard_count,
            log_format: var("LOG_FORMAT").unwrap_or_else(|| "pretty".to_owned()),
            deadline_poll_ms,
            webhooks: WebhookSettings::from_env(var)?,
            mail: MailSettings::from_env(var)?,
            password_hash_threads: password_hash_threads as usize,
            password_hash_wait_ms: whole("PASSWORD_HASH_WAIT_MS", DEFAULT_PASSWORD_HASH_WAIT_MS)?,
            match_cache_mib: whole("MATCH_CACHE_MIB", DEFAULT_MATCH_CACHE_MIB)?,
            credential_cache_ms: whole("CREDENTIAL_CACHE_MS", DEFAULT_CREDENTIAL_CACHE_MS)?,
            stale_lobby_days: whole("STALE_LOBBY_DAYS", DEFAULT_STALE_LOBBY_DAYS)?,
            invitation_hours: whole("INVITATION_HOURS", DEFAULT_INVITATION_HOURS)?.max(1),
            vacation_days_per_year: whole("VACATION_DAYS_PER_YEAR", DEFAULT_VACATION_DAYS)?
                .min(365),
            move_lists: var("MOVE_LISTS").unwrap_or_else(|| "auto".to_owned()),
            match_reads: var("MATCH_READS").unwrap_or_else(|| "auto".to_owned()),
            replica_silence_ms: whole("REPLICA_SILENCE_MS", DEFAULT_REPLICA_SILENCE_MS)?,
            home_lease_ms: whole("HOME_LEASE_MS", DEFAULT_HOME_LEASE_MS)?.min(60_000),
            move_batch: whole("MOVE_BATCH", DEFAULT_MOVE_BATCH)?.clamp(1, 1_000),
            move_writers: whole("MOVE_WRITERS", DEFAULT_MOVE_WRITERS)?.clamp(1, 64),
            move_batch_wait_us: whole("MOVE_BATCH_WAIT_US", 0)?.min(100_000),
        };
        settings.check()?;
        Ok(settings)
    }

    pub fn database_kind(&self) -> anyhow::Result<DatabaseKind> {
        let url = self.database_url.as_str();
        if url.starts_with("sqlite:") {
            Ok(DatabaseKind::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(DatabaseKind::Postgres)
        } else {
            anyhow::bail!("DATABASE_URL must start with sqlite:// or postgres://")
        }
    }

    /// Startup checks that need no database.
    pub fn check(&self) -> anyhow::Result<()> {
        use secrecy::ExposeSecret;
        let kind = self.database_kind()?;
        if !matches!(self.move_lists.as_str(), "auto" | "arrays" | "values") {
            anyhow::bail!(
                "MOVE_LISTS is auto, arrays or values, not {:?}",
                self.move_lists
            );
        }
        if !matches!(self.match_reads.as_str(), "auto" | "checked") {
            anyhow::bail!("MATCH_READS is auto or checked, not {:?}", self.match_reads);
        }
        match &self.jwt_secret {
            Some(s) if s.expose_secret().len() < 32 => {
                anyhow::bail!("JWT_SECRET must be at least 32 bytes long")
            }
            None if kind == DatabaseKind::Postgres => anyhow::bail!(
                "JWT_SECRET is required on Postgres (replicas must share it); set it to 32 bytes or more"
            ),
            _ => Ok(()),
        }
    }
}

/// `3600`, `3600s`, `90m`, `24h` or `7d`, in seconds; positive.
fn parse_duration_seconds(text: &str) -> Option<i64> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().last()? {
        (i, c) if c.is_ascii_alphabetic() => (&text[..i], c.to_ascii_lowercase()),
        _ => (text, 's'),
    };
    let scale = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        _ => return None,
    };
    number
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|n| *n > 0)
        .and_then(|n| n.checked_mul(scale))
}

#[cfg(test)]
mod tests {
    use super::parse_duration_seconds;

    #[test]
    fn durations_take_seconds_or_a_unit() {
        assert_eq!(parse_duration_seconds("3600"), Some(3600));
        assert_eq!(parse_duration_seconds("90s"), Some(90));
        assert_eq!(parse_duration_seconds("15m"), Some(900));
        assert_eq!(parse_duration_seconds("24h"), Some(86_400));
        assert_eq!(parse_duration_seconds("7D"), Some(604_800));
        for bad in ["", "h", "0", "-5m", "1w", "1.5h", "9999999999999999999d"] {
            assert_eq!(parse_duration_seconds(bad), None, "{bad}");
        }
    }
}
