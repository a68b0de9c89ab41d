//! The one mapping from errors to `application/problem+json` (RFC 9457).
//!
//! Every error body the server sends is built here: handlers, extractors, the
//! default service (unknown routes, wrong methods) and panics alike. 5xx bodies say
//! only "internal error"; the cause goes to the log.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::games::{DynError, RuleError};

/// An RFC 9457 problem document.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the problem type: `urn:sealed-orders:problem:<code>`.
    #[serde(rename = "type")]
    pub problem_type: String,
    pub title: String,
    pub status: u16,
    /// A sentence for a person.
    pub detail: String,
    /// A stable snake_case code for programs.
    pub code: String,
    /// The match's current step, on a `stale_step` conflict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_step: Option<i64>,
}

/// Every error the API answers with.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: &'static str,
    pub detail: String,
    extra: Map<String, Value>,
    retry_after: Option<u32>,
    /// Further response headers (Allow on a 405, RateLimit-* on a 429).
    headers: Vec<(&'static str, String)>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, detail: impl Into<String>) -> Self {
        Self {
            status,
            code,
            detail: detail.into(),
            extra: Map::new(),
            retry_after: None,
            headers: Vec::new(),
        }
    }

    pub fn bad_request(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, detail)
    }
    /// A 401, with the challenge RFC 6750 asks of a bearer-token API (and, for
    /// a credential that was sent but is not valid, its error code).
    pub fn unauthorized(code: &'static str, detail: impl Into<String>) -> Self {
        let challenge = match code {
            "invalid_token" => r#"Bearer realm="sealed-orders", error="invalid_token""#,
            _ => r#"Bearer realm="sealed-orders""#,
        };
        Self::new(StatusCode::UNAUTHORIZED, code, detail).with_header("WWW-Authenticate", challenge)
    }
    pub fn forbidden(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, code, detail)
    }
    pub fn not_found(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, code, detail)
    }
    pub fn conflict(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::CONFLICT, code, detail)
    }
    pub fn unprocessable(code: &'static str, detail: impl Into<String>) -> Self {
        Self::new(StatusCode::UNPROCESSABLE_ENTITY, code, detail)
    }
    pub fn method_not_allowed(allow: String) -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            format!("This resource allows only: {allow}."),
        )
        .with_header("Allow", allow)
    }
    pub fn unavailable(detail: impl Into<String>) -> Self {
        let mut e = Self::new(StatusCode::SERVICE_UNAVAILABLE, "busy", detail);
        e.retry_after = Some(1);
        e
    }
    /// Asks the client to wait this many seconds (`Retry-After`).
    pub fn retry_after(mut self, seconds: u32) -> Self {
        self.retry_after = Some(seconds.max(1));
        self
    }

    /// Adds a response header (e.g. the RateLimit-* headers of a 429).
    pub fn with_header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }

    /// A server fault: the cause is logged, never sent.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error",
        )
    }

    /// Adds a member to the problem document (e.g. `current_step`).
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        self.extra.insert(key.to_owned(), value.into());
        self
    }

    fn title(&self) -> &'static str {
        self.status.canonical_reason().unwrap_or("Error")
    }

    pub fn body(&self) -> Value {
        let mut body = Map::new();
        body.insert(
            "type".into(),
            format!("urn:sealed-orders:problem:{}", self.code).into(),
        );
        body.insert("title".into(), self.title().into());
        body.insert("status".into(), self.status.as_u16().into());
        body.insert("detail".into(), self.detail.clone().into());
        body.insert("code".into(), self.code.into());
        for (k, v) in &self.extra {
            body.insert(k.clone(), v.clone());
        }
        Value::Object(body)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.detail)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let mut resp = HttpResponse::build(self.status);
        resp.insert_header((
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        ));
        if let Some(secs) = self.retry_after {
            resp.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        for (name, value) in &self.headers {
            if let Ok(v) = HeaderValue::from_str(value) {
                resp.insert_header((*name, v));
            }
        }
        resp.body(self.body().to_string())
    }
}

impl From<RuleError> for ApiError {
    fn from(e: RuleError) -> Self {
        Self::unprocessable(e.code, e.message)
    }
}

impl From<DynError> for ApiError {
    fn from(e: DynError) -> Self {
        match e {
            DynError::Rule(r) => r.into(),
            DynError::Corrupt(cause) => Self::internal(cause),
        }
    }
}

impl From<sea_orm::DbErr> for ApiError {
    fn from(e: sea_orm::DbErr) -> Self {
        match trouble(&e) {
            Trouble::Contention => {
                tracing::warn!(error = %e, "database contention");
                Self::unavailable("The server is busy; try again shortly.")
            }
            Trouble::Unreachable => {
                tracing::warn!(error = %e, "database unreachable");
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "database_unavailable",
                    "The part of the database that holds this is unavailable; try again shortly.",
                )
                .retry_after(5)
            }
            Trouble::Fault => Self::internal(e),
        }
    }
}

/// What a database error means for the client.
#[derive(Debug, PartialEq, Eq)]
enum Trouble {
    /// Worth a retry at once: serialization failure, deadlock, SQLite busy, a pool
    /// with no connection free.
    Contention,
    /// A database node cannot be reached (a distributed database's worker is down,
    /// the server restarts): worth a retry in a few seconds.
    Unreachable,
    Fault,
}

fn trouble(e: &sea_orm::DbErr) -> Trouble {
    use sea_orm::{DbErr, RuntimeErr};
    if let DbErr::Exec(RuntimeErr::SqlxError(s))
    | DbErr::Query(RuntimeErr::SqlxError(s))
    | DbErr::Conn(RuntimeErr::SqlxError(s)) = e
    {
        use sea_orm::sqlx::Error;
        match s.as_ref() {
            Error::PoolTimedOut => return Trouble::Contention,
            Error::Io(_) | Error::PoolClosed | Error::WorkerCrashed => {
                return Trouble::Unreachable;
            }
            Error::Database(d) => match d.code().as_deref() {
                Some("40001" | "40P01") => return Trouble::Contention,
                // Connection exceptions (class 08: Citus reports a worker it
                // cannot reach as 08006), the server shutting down or starting,
                // too many connections.
                Some(c)
                    if c.starts_with("08")
                        || matches!(c, "57P01" | "57P02" | "57P03" | "53300") =>
                {
                    return Trouble::Unreachable;
                }
                _ => {}
            },
            _ => {}
        }
    }
    let text = e.to_string();
    // Citus, about a worker it lost a connection to mid-transaction.
    if text.contains("connection to the remote node")
        || text.contains("failure on connection marked as essential")
    {
        return Trouble::Unreachable;
    }
    if [
        "database is locked",
        "SQLITE_BUSY",
        "could not serialize",
        "deadlock detected",
        "pool timed out",
        "PoolTimedOut",
    ]
    .iter()
    .any(|needle| text.contains(needle))
    {
        Trouble::Contention
    } else {
        Trouble::Fault
    }
}

/// Error handlers for actix's own extractors, so that malformed input gets a
/// problem document like everything else.
pub mod extractors {
    use actix_web::error::{JsonPayloadError, PathError, QueryPayloadError};
    use actix_web::{Error, HttpRequest};

    use super::ApiError;

    pub fn json(err: JsonPayloadError, _req: &HttpRequest) -> Error {
        let e = match &err {
            JsonPayloadError::OverflowKnownLength { .. } | JsonPayloadError::Overflow { .. } => {
                ApiError::new(
                    actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
                    "payload_too_large",
                    "The request body is too large.",
                )
            }
            JsonPayloadError::ContentType => ApiError::new(
                actix_web::http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported_media_type",
                "The request body must be JSON (Content-Type: application/json).",
            ),
            JsonPayloadError::Deserialize(d) if d.is_data() => ApiError::unprocessable(
                "invalid_body",
                format!("The request body does not have the expected fields: {d}."),
            ),
            _ => ApiError::bad_request(
                "malformed_json",
                format!("The request body is not valid JSON: {err}."),
            ),
        };
        e.into()
    }

    pub fn path(err: PathError, _req: &HttpRequest) -> Error {
        ApiError::bad_request(
            "invalid_path",
            format!("A path segment is not valid: {err}."),
        )
        .into()
    }

    pub fn query(err: QueryPayloadError, _req: &HttpRequest) -> Error {
        ApiError::bad_request(
            "invalid_query",
            format!("The query string is not valid: {err}."),
        )
        .into()
    }
}
