use crate::service::history::History;
use crate::service::moves::Moves;
use crate::service::positions::Positions;
use crate::service::reads::Reads;
use crate::service::streams::Streams;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use super::PageQuery;
use super::streams::{EventNames, last_event_id, sse, stream_auth, wants_stream};
use crate::auth::{AuthenticatedPlayer, MaybePlayer};
use crate::errors::{ApiError, Problem};
use crate::ratelimit::{RateLimits, TooManyRequests};
use crate::service::models::{EventPage, MovePage, MoveReceipt, PositionResponse, RoundPage};
use crate::service::moves::SubmitMove;

/// A move for the current step.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitMoveRequest {
    /// The prompt's `step`; every seat of a sealed step submits the same one.
    pub step: i64,
    /// The action, tagged by `type` (one of the game's actions).
    #[schema(value_type = Object)]
    pub action: Value,
}

/// Submits a move. Re-sending the identical move for a step answers the original receipt.
#[utoipa::path(tag = "moves", operation_id = "submit_move",
    security(("bearer" = [])),
    params(
        ("id" = Uuid, Path, description = "The match id."),
        ("Idempotency-Key" = Option<String>, Header, description = "Any string of 1 to 255 characters naming this move: a retry with the same key and body replays the original answer (with `Idempotent-Replay: true`); the same key with another move is a 409."),
        ("Prefer" = Option<String>, Header, description = "`return=representation` (RFC 7240): the answer also carries the caller's `prompt` in this match after the move, so a client that plays on needs no read before its next move.", example = "return=representation"),
    ),
    request_body = SubmitMoveRequest,
    responses(
        (status = 200, description = "The move was accepted (or had been: then `Idempotent-Replay: true`).", body = MoveReceipt,
            headers(("Idempotent-Replay" = String, description = "`true` when this answers a retry of an accepted move."),
                    ("Preference-Applied" = String, description = "`return=representation` when the answer carries the caller's `prompt`."),
                    ("RateLimit-Limit" = u32, description = "Moves allowed per minute."),
                    ("RateLimit-Remaining" = u32, description = "Moves left now."),
                    ("RateLimit-Reset" = u64, description = "Seconds until the allowance is whole again."))),
        (status = 400, description = "The body is not JSON or the id not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "You hold no seat in this match.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "stale_step (with current_step), not_your_turn, already_moved, idempotency_key_reused or match_not_active.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The move breaks a rule; the detail says which.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database is busy; retry after the Retry-After header.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches/{id}/moves")]
pub async fn submit_move(
    req: HttpRequest,
    moves: web::Data<Moves>,
    reads: web::Data<Reads>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Json<SubmitMoveRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let body = body.into_inner();
    let idempotency_key = match req.headers().get("idempotency-key") {
        Some(v) => Some(
            v.to_str()
                .map_err(|_| {
                    ApiError::bad_request(
                        "invalid_idempotency_key",
                        "An Idempotency-Key must be visible ASCII.",
                    )
                })?
                .to_owned(),
        ),
        None => None,
    };
    let with_prompt = prefers_representation(&req);
    let mut done = moves
        .submit_move(
            &me,
            *id,
            SubmitMove {
                step: body.step,
                action: body.action,
                idempotency_key,
            },
        )
        .await?;
    let mut resp = quota.headers(HttpResponse::Ok());
    if done.replay {
        resp.insert_header(("Idempotent-Replay", "true"));
    }
    if with_prompt {
        // The move stands whatever happens here: a read that fails leaves the
        // answer as without the preference (no `Preference-Applied`), and the
        // client reads the match as it would have.
        match reads.prompt_for(me.id, *id, done.receipt.version).await {
            Ok(prompt) => {
                done.receipt.prompt = Some(prompt);
                resp.insert_header(("Preference-Applied", "return=representation"));
            }
            Err(e) => {
                tracing::warn!(match.id = %id, error = %e, "no prompt for a move's answer");
            }
        }
    }
    Ok(resp.json(done.receipt))
}

/// Whether the request's `Prefer` headers ask for `return=representation`
/// (RFC 7240: preferences separated by commas, each perhaps with parameters
/// after semicolons, names without regard to case).
fn prefers_representation(req: &HttpRequest) -> bool {
    req.headers()
        .get_all("prefer")
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|p| p.split(';').next())
        .any(|p| {
            let mut kv = p.splitn(2, '=');
            let (k, v) = (
                kv.next().unwrap_or("").trim(),
                kv.next().unwrap_or("").trim(),
            );
            k.eq_ignore_ascii_case("return")
                && v.trim_matches('"').eq_ignore_ascii_case("representation")
        })
}

/// The match's moves, oldest first; a move still sealed to the caller shows only its public part.
#[utoipa::path(tag = "moves", operation_id = "list_moves",
    security((), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id."), PageQuery),
    responses(
        (status = 200, description = "A page of moves.", body = MovePage),
        (status = 400, description = "A bad id, limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The match is played without spectators (`spectators_not_allowed`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one the caller is not part of).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}/moves")]
pub async fn list_moves(
    history: web::Data<History>,
    caller: MaybePlayer,
    id: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = history
        .list_moves(caller.0.map(|p| p.id), *id, q.limit, q.cursor)
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct EventsQuery {
    /// JSON pages only: items per page, 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    /// JSON pages only: the `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Streams: a ticket from `POST /stream-tickets`, instead of an Authorization
    /// header (for browsers' EventSource).
    pub ticket: Option<String>,
    /// Streams: after each batch of events (and once at the start), an
    /// `event: prompt` with the caller's prompt as `GET /matches/{id}` would give
    /// it (`data` null when the caller owes nothing), so a bot needs no read
    /// after an event. Only for a seated caller.
    pub prompt: Option<bool>,
    /// Streams: how frames are named (`kind` by default; `message`: every frame
    /// under the one name, its kind inside).
    #[param(inline)]
    pub event_names: Option<EventNames>,
}

/// The match's events the caller may see (public ones, plus the caller's own
/// private ones; everything once the match is over).
///
/// With `Accept: text/event-stream`, a Server-Sent Events stream: every event
/// from the start of the match (or after the `Last-Event-ID` a reconnecting
/// client sends; every `id:` is an event id), then each new one as it happens,
/// with a `: keepalive` comment every 15 s; it ends once the match is over.
/// A stream opened with a credential (or a ticket) ends when that credential
/// does (revoked, expired, or issued before a password change), with a last
/// `event: credential_ended` whose `data` is `{"reason", "detail"}` and which
/// has no `id:`. With `prompt=true` a seated caller also gets `event: prompt`
/// (no `id:`) after each batch of events: its prompt, or null. Otherwise a JSON
/// page, oldest first.
///
/// A stream also carries the match's chat (never a JSON page: see `GET
/// /matches/{id}/messages`): `event: chat_message` (`data` as a message is
/// read) and `event: chat_message_deleted` (`{"match_id", "message_id",
/// "deleted_by", "deleted_at"}`), in the order they were written among the
/// events. Their `id:` is `<event id>.<message id>`, which `Last-Event-ID`
/// takes as well; they take no event id and leave the match's `version` alone.
/// The messages of players the caller muted are left out.
///
/// Frames are named by their kind, so an EventSource listens to each kind it
/// wants. With `event_names=message` every frame is `event: message` (what
/// `onmessage` gets) and its `data` is `{"event": <the kind>, "data": <the
/// kind's data>}`: one listener gets everything, `prompt` and
/// `credential_ended` included; the `id:` lines are the same.
#[utoipa::path(tag = "moves", operation_id = "list_events",
    security((), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id."), EventsQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "Streams: resume after this event id.")),
    responses(
        (status = 200, description = "A page of events, or the event stream.", content(
            (EventPage = "application/json"),
            (String = "text/event-stream"))),
        (status = 400, description = "A bad id, limit, cursor or Last-Event-ID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token or ticket was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The match is played without spectators (`spectators_not_allowed`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one the caller is not part of).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}/events")]
pub async fn list_events(
    streams: web::Data<Streams>,
    history: web::Data<History>,
    req: HttpRequest,
    caller: MaybePlayer,
    id: web::Path<Uuid>,
    query: web::Query<EventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    if wants_stream(&req) {
        let auth = stream_auth(&streams, caller, q.ticket.as_deref()).await?;
        let streams = streams.into_inner();
        let rx = streams
            .match_stream(
                auth,
                *id,
                last_event_id(&req).as_deref(),
                q.prompt.unwrap_or(false),
            )
            .await?;
        return Ok(sse(rx, q.event_names.unwrap_or_default()));
    }
    let caller = stream_auth(&streams, caller, q.ticket.as_deref())
        .await?
        .player();
    let page = history.list_events(caller, *id, q.limit, q.cursor).await?;
    Ok(HttpResponse::Ok().json(page))
}

/// The match as it stood at a step, for the caller as viewer: 0 is the start,
/// and the position at a step comes after every move of the steps before it.
///
/// A seat sees what it saw then (its own secrets, nobody else's), everybody else
/// what a spectator saw; once the match is over, `state` gives the whole position
/// to everybody who may read the match. The current step is the position now.
#[utoipa::path(tag = "moves", operation_id = "get_position",
    params(("id" = Uuid, Path, description = "The match id."),
        ("step" = i64, Path, description = "The step, from 0 (the start) to the match's step now.")),
    security((), ("bearer" = [])),
    responses(
        (status = 200, description = "The position.", body = PositionResponse),
        (status = 400, description = "The id is not a UUID or the step not a number.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The match is played without spectators (`spectators_not_allowed`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one the caller is not part of), or no such step yet (`position_not_found`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}/positions/{step}")]
pub async fn get_position(
    positions: web::Data<Positions>,
    caller: MaybePlayer,
    path: web::Path<(Uuid, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, step) = path.into_inner();
    Ok(HttpResponse::Ok().json(positions.position(caller.0.map(|p| p.id), id, step).await?))
}

/// Every resolved round: cards as revealed, stakes, choices, outcome, totals and every coin change.
#[utoipa::path(tag = "moves", operation_id = "list_rounds",
    security((), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    responses(
        (status = 200, description = "The rounds (always one page).", body = RoundPage),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The match is played without spectators (`spectators_not_allowed`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one the caller is not part of).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}/rounds")]
pub async fn list_rounds(
    history: web::Data<History>,
    caller: MaybePlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(history.list_rounds(caller.0.map(|p| p.id), *id).await?))
}
