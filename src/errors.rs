//! The one mapping from errors to `application/problem+json` (RFC 9457).
//!
//! Every error body the server sends is built here: handlers, extractors, the
//! default service (unknown routes, wrong methods) and panics alike. 5xx bodies say
//! only "internal error"; the cause goes to the log.
//!
//! A problem's `title` and `detail` are in the language negotiated from the
//! request's `Accept-Language` ([`localize`]); its `code` and `type` never
//! change with it.

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, ResponseError};
use fluent_bundle::FluentArgs;
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::games::{DynError, RuleError};
use crate::i18n::{self, Locale};

/// An RFC 9457 problem document.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Problem {
    /// A URI naming the problem type: `urn:sealed-orders:problem:<code>`.
    #[serde(rename = "type")]
    pub problem_type: String,
    /// The HTTP status's name, in the response's `Content-Language`.
    pub title: String,
    pub status: u16,
    /// A sentence for a person, in the response's `Content-Language` (the
    /// language `Accept-Language` asked for when the server can say it whole,
    /// English otherwise).
    pub detail: String,
    /// A stable snake_case code for programs: the same in every language.
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
    /// The values a translated detail needs (`problem-<code>` in the
    /// catalogues), by the names the catalogue uses; never sent as members.
    /// Boxed: most errors carry none, and every `Result` carries the error's size.
    args: Option<Box<[(&'static str, Value)]>>,
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
            args: None,
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
        .arg("allow", allow.clone())
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

    /// Gives the translated detail a value it needs (`problem-<code>` in the
    /// catalogues names it): e.g. `.arg("path", path)`. A member added with
    /// [`ApiError::with`] is an argument too.
    pub fn arg(mut self, name: &'static str, value: impl Into<Value>) -> Self {
        let mut args = self.args.take().map(Vec::from).unwrap_or_default();
        args.push((name, value.into()));
        self.args = Some(args.into_boxed_slice());
        self
    }

    fn title(&self) -> &'static str {
        self.status.canonical_reason().unwrap_or("Error")
    }

    /// The English problem document: the detail as written where the error
    /// was raised.
    pub fn body(&self) -> Value {
        self.document(self.title().into(), self.detail.clone())
    }

    /// The problem document in `locale`, and the language it is in: the
    /// catalogue's title and detail when the catalogue has the code's message
    /// and the error carries every value it needs; otherwise the English
    /// document (a problem is never half translated).
    pub fn body_in(&self, locale: Locale) -> (Value, Locale) {
        match self.translated(locale) {
            Some((title, detail)) => (self.document(title, detail), locale),
            None => (self.body(), Locale::En),
        }
    }

    /// The translated title and detail, when they can be given whole.
    fn translated(&self, locale: Locale) -> Option<(String, String)> {
        if locale == Locale::En {
            return None;
        }
        let key = format!("problem-{}", self.code);
        let mut args = FluentArgs::new();
        for (name, value) in self.extra.iter().map(|(k, v)| (k.as_str(), v)).chain(
            self.args
                .iter()
                .flat_map(|a| a.iter())
                .map(|(k, v)| (*k, v)),
        ) {
            args.set(name.to_owned(), i18n::fluent_value(value));
        }
        // Only the branch a selector takes needs its variables, so the
        // message is formatted in this language alone and refused whole when a
        // value it reaches for is missing.
        let detail = i18n::format_exactly(locale, &key, &args)?;
        let title = i18n::format(
            locale,
            &format!("problem-title-{}", self.status.as_u16()),
            &FluentArgs::new(),
        )?;
        Some((title, detail))
    }

    fn document(&self, title: String, detail: String) -> Value {
        let mut body = Map::new();
        body.insert(
            "type".into(),
            format!("urn:sealed-orders:problem:{}", self.code).into(),
        );
        body.insert("title".into(), title.into());
        body.insert("status".into(), self.status.as_u16().into());
        body.insert("detail".into(), detail.into());
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
        // Kept with the response so that [`localize`], which knows the
        // request, can answer in the reader's language.
        resp.extensions_mut().insert(self.clone());
        resp.body(self.body().to_string())
    }
}

/// Middleware: every problem document leaves in the language the request's
/// `Accept-Language` asks for (English by default), with `Content-Language`
/// saying which and `Vary: Accept-Language`. It finds the problem by the
/// [`ApiError`] its response was built from, wherever that was (a handler, an
/// extractor, another middleware, the default service).
pub async fn localize(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let locale = i18n::negotiate(
        req.headers()
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|v| v.to_str().ok()),
    );
    // Middleware here answers its problems (rather than returning them as
    // errors, which would become responses only past this one), so every
    // problem passes through with its response.
    let (request, response) = next.call(req).await?.into_parts();
    let response = response.map_into_boxed_body();
    let problem = response.extensions().get::<ApiError>().cloned();
    let Some(problem) = problem else {
        return Ok(ServiceResponse::new(request, response));
    };
    let (body, language) = problem.body_in(locale);
    let mut response = response.set_body(BoxBody::new(body.to_string()));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_LANGUAGE,
        HeaderValue::from_static(language.tag()),
    );
    headers.append(header::VARY, HeaderValue::from_static("accept-language"));
    Ok(ServiceResponse::new(request, response))
}

/// An error of OAuth's token and revocation endpoints (RFC 6749 §5.2): these two
/// answer in the RFC's JSON (`{"error": "invalid_grant", …}`), not problem+json,
/// because that is the form every OAuth client library reads. The codes are the
/// RFC's and untranslated; the description is for the developer.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OAuthError {
    /// `invalid_request`, `invalid_grant`, `unsupported_grant_type`,
    /// `unsupported_token_type`.
    pub error: &'static str,
    pub error_description: &'static str,
}

impl OAuthError {
    pub fn of(error: &'static str, error_description: &'static str) -> Self {
        Self {
            error,
            error_description,
        }
    }
}

impl std::fmt::Display for OAuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.error, self.error_description)
    }
}

impl ResponseError for OAuthError {
    fn status_code(&self) -> StatusCode {
        StatusCode::BAD_REQUEST
    }

    fn error_response(&self) -> HttpResponse {
        HttpResponse::BadRequest()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(self)
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
pub(crate) enum Trouble {
    /// Worth a retry at once: serialization failure, deadlock, SQLite busy, a pool
    /// with no connection free.
    Contention,
    /// A database node cannot be reached (a distributed database's worker is down,
    /// the server restarts): worth a retry in a few seconds.
    Unreachable,
    Fault,
}

pub(crate) fn trouble(e: &sea_orm::DbErr) -> Trouble {
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
            // The reasons are serde's and actix's own words: English in
            // every language, as a technical detail is.
            JsonPayloadError::Deserialize(d) if d.is_data() => ApiError::unprocessable(
                "invalid_body",
                format!("The request body does not have the expected fields: {d}."),
            )
            .arg("reason", format!("{d}.")),
            _ => ApiError::bad_request(
                "malformed_json",
                format!("The request body is not valid JSON: {err}."),
            )
            .arg("reason", format!("{err}.")),
        };
        e.into()
    }

    pub fn path(err: PathError, _req: &HttpRequest) -> Error {
        ApiError::bad_request(
            "invalid_path",
            format!("A path segment is not valid: {err}."),
        )
        .arg("reason", format!("{err}."))
        .into()
    }

    pub fn query(err: QueryPayloadError, _req: &HttpRequest) -> Error {
        ApiError::bad_request(
            "invalid_query",
            format!("The query string is not valid: {err}."),
        )
        .arg("reason", format!("{err}."))
        .into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_problem_lacking_a_value_its_translation_needs_stays_english_whole() {
        let bare = ApiError::unprocessable("unknown_game", "There is no game \"go\".");
        let (body, locale) = bare.body_in(Locale::Cs);
        assert_eq!(locale, Locale::En);
        assert_eq!(body["title"], "Unprocessable Entity");
        assert_eq!(body["detail"], "There is no game \"go\".");

        let whole = bare.arg("game", "go").arg("games", "malacca, cairo");
        let (body, locale) = whole.body_in(Locale::Cs);
        assert_eq!(locale, Locale::Cs);
        assert_eq!(
            body["detail"],
            "Hra go neexistuje; hry jsou: malacca, cairo."
        );
        assert_eq!(body["code"], "unknown_game");
    }

    #[test]
    fn a_selector_needs_only_the_values_of_the_branch_it_takes() {
        let e = ApiError::unprocessable("invalid_expiry", "expires_at must be in the future.")
            .arg("field", "expires_at");
        let (_, locale) = e.body_in(Locale::Et);
        assert_eq!(locale, Locale::Et);
        let e =
            ApiError::unprocessable("invalid_expiry", "…").arg("field", "invitation_expires_in");
        let (body, locale) = e.body_in(Locale::Et);
        assert_eq!((locale, &body["detail"]), (Locale::En, &json!("…")));
    }
}
