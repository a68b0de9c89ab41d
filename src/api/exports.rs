use crate::service::replay::Replays;
use actix_web::web::Bytes;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use futures_util::{StreamExt, stream};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::errors::{ApiError, Problem};

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
    /// Each line also carries `positions`: the match's position at every step,
    /// 0 to the last, each as `GET /matches/{id}/positions/{step}` answers
    /// anybody (the whole `state` included, since the match is over).
    pub positions: Option<bool>,
}

/// Finished matches as NDJSON, one replay bundle per line, oldest first. When more
/// remain, the `Next-Cursor` header resumes after the last line.
///
/// With `positions=true` each line also has `positions`, a `PositionResponse`
/// per step, so a history needs no request per step. The lines are written
/// as they are read, one match at a time: an error after the first line
/// ends the response early (without its last newline), so a client takes
/// only whole lines and resumes with the cursor of the last match it has.
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
    replays: web::Data<Replays>,
    query: web::Query<ExportQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let positions = q.positions.unwrap_or(false);
    let (ids, next) = replays
        .export_batch(q.game, q.since, q.until, q.limit, q.cursor)
        .await?;
    let replays = replays.into_inner();
    let lines = stream::iter(ids).then(move |id| {
        let replays = replays.clone();
        async move {
            replays
                .export_line(id, positions)
                .await
                .map(Bytes::from)
                .map_err(|e| {
                    tracing::warn!(match.id = %id, error = %e, "export ended early");
                    actix_web::error::ErrorInternalServerError("internal error")
                })
        }
    });
    let mut resp = HttpResponse::Ok();
    resp.content_type("application/x-ndjson");
    if let Some(c) = next {
        resp.insert_header(("Next-Cursor", c));
    }
    Ok(resp.streaming(lines))
}
