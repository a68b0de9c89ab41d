use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::errors::{ApiError, Problem};
use crate::service::Service;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ExportQuery {
    /// Only this game.
    pub game: Option<String>,
    /// Matches finished at or after this time (RFC 3339).
    pub since: Option<DateTime<Utc>>,
    /// Matches finished before this time (RFC 3339).
    pub until: Option<DateTime<Utc>>,
    /// Bundles per response: 1 to 1000 (default 100).
    #[param(minimum = 1, maximum = 1000, default = 100)]
    pub limit: Option<u64>,
    /// Resume after this cursor (the `Next-Cursor` header of the previous response).
    pub cursor: Option<String>,
}

/// Finished matches as NDJSON, one replay bundle per line, oldest first. When more
/// remain, the `Next-Cursor` header resumes after the last line.
#[utoipa::path(tag = "replays", operation_id = "export_matches",
    params(ExportQuery),
    responses(
        (status = 200, description = "One replay bundle (as in `GET /matches/{id}/export`) per line.",
            body = String, content_type = "application/x-ndjson",
            headers(("Next-Cursor" = String, description = "Present when more bundles remain: pass it as `cursor`."))),
        (status = 400, description = "A bad filter, limit or cursor.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/exports/matches")]
pub async fn export_matches(
    service: web::Data<Service>,
    query: web::Query<ExportQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let (lines, next) = service
        .export_finished(q.game, q.since, q.until, q.limit, q.cursor)
        .await?;
    let mut resp = HttpResponse::Ok();
    resp.content_type("application/x-ndjson");
    if let Some(c) = next {
        resp.insert_header(("Next-Cursor", c));
    }
    Ok(resp.body(lines))
}
