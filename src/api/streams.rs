//! Event streams (Server-Sent Events) and the tickets browsers open them with.

use actix_web::http::header::{self, HeaderValue};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use futures_util::stream;
use serde::Deserialize;
use tokio::sync::mpsc;
use utoipa::IntoParams;

use crate::auth::{AuthenticatedPlayer, MaybePlayer};
use crate::errors::{ApiError, Problem};
use crate::service::streams::{PlayerEventPage, StreamTicketResponse};
use crate::service::{Service, StreamAuth, StreamFrame};

/// Whether the client asked for an event stream rather than a JSON page.
pub fn wants_stream(req: &HttpRequest) -> bool {
    req.headers()
        .get_all(header::ACCEPT)
        .filter_map(|v| v.to_str().ok())
        .any(|v| v.contains("text/event-stream"))
}

/// The position a reconnecting EventSource sends.
pub fn last_event_id(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
        .filter(|v| !v.trim().is_empty())
}

/// Who opens a stream: a bearer token, or a ticket for clients that cannot send
/// headers. A token that is present but invalid was already refused.
pub async fn stream_auth(
    service: &Service,
    caller: MaybePlayer,
    ticket: Option<&str>,
) -> Result<StreamAuth, ApiError> {
    match (caller.0, ticket) {
        (Some(p), _) => Ok(StreamAuth::Player((&p).into())),
        (None, Some(t)) => Ok(StreamAuth::Player(service.redeem_stream_ticket(t).await?)),
        (None, None) => Ok(StreamAuth::Anonymous),
    }
}

fn frame_bytes(frame: StreamFrame) -> Bytes {
    Bytes::from(match frame {
        StreamFrame::Event { id, kind, data } => {
            format!("id: {id}\nevent: {kind}\ndata: {data}\n\n")
        }
        StreamFrame::Retry(ms) => format!("retry: {ms}\n\n"),
        StreamFrame::KeepAlive => ": keepalive\n\n".to_owned(),
        StreamFrame::End { kind, data } => format!("event: {kind}\ndata: {data}\n\n"),
    })
}

/// The HTTP answer that carries a stream's frames until either side ends it.
pub fn sse(rx: mpsc::Receiver<StreamFrame>) -> HttpResponse {
    let body = stream::unfold(rx, |mut rx| async move {
        rx.recv()
            .await
            .map(|f| (Ok::<_, actix_web::Error>(frame_bytes(f)), rx))
    });
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        // Tells buffering reverse proxies (nginx) to pass events on at once.
        .insert_header(("X-Accel-Buffering", HeaderValue::from_static("no")))
        .streaming(body)
}

/// A single-use ticket for opening an event stream with `?ticket=` (60 seconds).
#[utoipa::path(tag = "events", operation_id = "create_stream_ticket",
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The ticket; it opens one stream, within a minute.", body = StreamTicketResponse),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/stream-tickets")]
pub async fn create_stream_ticket(
    service: web::Data<Service>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Created().json(service.issue_stream_ticket(&me).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PlayerEventsQuery {
    /// JSON pages only: items per page, 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    /// JSON pages only: the `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// A ticket from `POST /stream-tickets`, instead of an Authorization header.
    pub ticket: Option<String>,
}

/// Every event of every match you hold a seat in (public ones and your seat's).
///
/// With `Accept: text/event-stream`, a Server-Sent Events stream: from now, or
/// after the `Last-Event-ID` a reconnecting client sends (every `id:` is a
/// position `tx.id`); a `: keepalive` comment every 15 s. The stream ends when
/// the credential that opened it (directly or through its ticket) does:
/// revoked, expired, or issued before a password change; its last event is then
/// `event: credential_ended`, `data` `{"reason", "detail"}`, with no `id:`.
/// Otherwise a JSON page, oldest first.
#[utoipa::path(tag = "events", operation_id = "get_my_events",
    security(("bearer" = [])),
    params(PlayerEventsQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "Streams: resume after this position.")),
    responses(
        (status = 200, description = "A page of events, or the event stream.", content(
            (PlayerEventPage = "application/json"),
            (String = "text/event-stream"))),
        (status = 400, description = "A bad limit, cursor or Last-Event-ID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token or ticket.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/events")]
pub async fn get_my_events(
    service: web::Data<Service>,
    req: HttpRequest,
    caller: MaybePlayer,
    query: web::Query<PlayerEventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let player = match stream_auth(&service, caller, q.ticket.as_deref()).await? {
        StreamAuth::Player(p) => p,
        StreamAuth::Anonymous => {
            return Err(ApiError::unauthorized(
                "unauthorized",
                "This request needs an access token (Authorization: Bearer) or a stream ticket.",
            ));
        }
    };
    if wants_stream(&req) {
        let service = service.into_inner();
        let rx = service
            .player_stream(player, last_event_id(&req).as_deref())
            .await?;
        return Ok(sse(rx));
    }
    Ok(HttpResponse::Ok().json(
        service
            .player_events_page(player.player, q.limit, q.cursor)
            .await?,
    ))
}
