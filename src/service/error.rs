//! The service's own error: contention, which a write may simply try again, apart
//! from every refusal, which the API tells the client as a problem document.
//!
//! Nothing in the service decides what to do by an HTTP status: a transaction is
//! tried again on [`Error::Contention`] (see [`super::tx`]), and a refusal keeps
//! its stable `code` for the client. The API layer turns both into
//! `application/problem+json` through `From<Error> for ApiError`.

use actix_web::http::StatusCode;
use serde_json::Value;

use crate::errors::{ApiError, Trouble, trouble};
use crate::games::{DynError, RuleError};

/// Why a service call did not do what was asked.
#[derive(Debug)]
pub enum Error {
    /// The database reported contention (a serialization failure, a deadlock,
    /// SQLite's busy lock): nothing was written, and the same work may succeed
    /// when tried again. Told to the client as 503 `busy` once retries are spent.
    Contention(sea_orm::DbErr),
    /// Refused or failed, as the client is told: a status, a stable code and a
    /// sentence (a rule broken, a stale step, a match that is not there…).
    Refused(ApiError),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> Self {
        Self::Refused(ApiError::new(status, code, detail))
    }
    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> Self {
        Self::Refused(ApiError::bad_request(code, detail))
    }
    pub fn unauthorized(code: &'static str, detail: impl Into<String>) -> Self {
        Self::Refused(ApiError::unauthorized(code, detail))
    }
    pub fn forbidden(code: &'static str, detail: impl Into<String>) -> Self {
        Self::Refused(ApiError::forbidden(code, detail))
    }
    pub fn not_found(code: &'static str, detail: impl Into<String>) -> Self {
        Self::Refused(ApiError::not_found(code, detail))
    }
    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        Self::Refused(ApiError::conflict(code, detail))
    }
    pub fn unprocessable(code: &'static str, detail: impl Into<String>) -> Self {
        Self::Refused(ApiError::unprocessable(code, detail))
    }
    /// A server fault: the cause is logged, never sent.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        Self::Refused(ApiError::internal(cause))
    }

    /// Adds a member to the problem document (e.g. `current_step`).
    pub fn with(self, key: &str, value: impl Into<Value>) -> Self {
        match self {
            Self::Refused(e) => Self::Refused(e.with(key, value)),
            other => other,
        }
    }

    /// A value the problem's translations need (see `crate::i18n`).
    pub fn arg(self, name: &'static str, value: impl Into<Value>) -> Self {
        match self {
            Self::Refused(e) => Self::Refused(e.arg(name, value)),
            other => other,
        }
    }

    /// Asks the client to wait this many seconds (`Retry-After`).
    pub fn retry_after(self, seconds: u32) -> Self {
        match self {
            Self::Refused(e) => Self::Refused(e.retry_after(seconds)),
            other => other,
        }
    }

    /// Whether the request was refused because what it acts on moved on
    /// meanwhile (a conflict: the match started, the entry went…).
    pub fn is_conflict(&self) -> bool {
        matches!(self, Self::Refused(e) if e.status == StatusCode::CONFLICT)
    }

    /// The stable code the client is told.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Contention(_) => "busy",
            Self::Refused(e) => e.code,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Contention(e) => write!(f, "contention: {e}"),
            Self::Refused(e) => e.fmt(f),
        }
    }
}

impl From<sea_orm::DbErr> for Error {
    fn from(e: sea_orm::DbErr) -> Self {
        match trouble(&e) {
            Trouble::Contention => Self::Contention(e),
            _ => Self::Refused(e.into()),
        }
    }
}

impl From<ApiError> for Error {
    fn from(e: ApiError) -> Self {
        Self::Refused(e)
    }
}

impl From<RuleError> for Error {
    fn from(e: RuleError) -> Self {
        Self::Refused(e.into())
    }
}

impl From<DynError> for Error {
    fn from(e: DynError) -> Self {
        Self::Refused(e.into())
    }
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        match e {
            Error::Contention(e) => e.into(),
            Error::Refused(e) => e,
        }
    }
}

/// Seats or seat counts as a problem's detail lists them (`2, 3, 4`), in every
/// language alike.
pub(crate) fn listed<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
