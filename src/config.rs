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
    /// How long an access token lives.
    pub token_ttl_seconds: i64,
    /// Overrides of the embedded component data: `DATA_DIR/<game>/<file>.json`.
    pub data_dir: Option<PathBuf>,
    /// Pool size; `None` picks a default per database.
    pub max_connections: Option<u32>,
    /// `json` or `pretty`.
    pub log_format: String,
    /// How often each replica looks for expired deadlines; 0 turns polling off.
    pub deadline_poll_ms: u64,
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
        let token_ttl_seconds = match var("TOKEN_TTL_SECONDS") {
            Some(t) => t
                .parse()
                .map_err(|_| anyhow::anyhow!("TOKEN_TTL_SECONDS must be a whole number"))?,
            None => 7 * 24 * 3600,
        };
        let max_connections = match var("DATABASE_MAX_CONNECTIONS") {
            Some(n) => Some(
                n.parse()
                    .map_err(|_| anyhow::anyhow!("DATABASE_MAX_CONNECTIONS must be a number"))?,
            ),
            None => None,
        };
        let deadline_poll_ms = match var("DEADLINE_POLL_MS") {
            Some(n) => n
                .parse()
                .map_err(|_| anyhow::anyhow!("DEADLINE_POLL_MS must be a whole number"))?,
            None => 500,
        };
        let settings = Self {
            database_url,
            database_schema: var("DATABASE_SCHEMA"),
            host: var("HOST").unwrap_or_else(|| "127.0.0.1".to_owned()),
            port,
            jwt_secret: var("JWT_SECRET").map(SecretString::from),
            token_ttl_seconds,
            data_dir: var("DATA_DIR").map(PathBuf::from),
            max_connections,
            log_format: var("LOG_FORMAT").unwrap_or_else(|| "pretty".to_owned()),
            deadline_poll_ms,
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
