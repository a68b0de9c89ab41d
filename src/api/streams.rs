//! Event streams (Server-Sent Events) and the tickets browsers open them with.

use crate::service::streams::Streams;
use actix_web::http::header::{self, HeaderMap, HeaderValue};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use futures_util::stream;
use serde::Deserialize;
use tokio::sync::mpsc;
use utoipa::{IntoParams, ToSchema};

use crate::auth::{AuthenticatedPlayer, MaybePlayer};
use crate::errors::{ApiError, Problem};
use crate::service::streams::lobby::{LobbyEventPage, LobbyFeed};
use crate::service::streams::{PlayerEventPage, StreamTicketResponse};
use crate::service::streams::{StreamAuth, StreamFrame};

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
    streams: &Streams,
    caller: MaybePlayer,
    ticket: Option<&str>,
) -> Result<StreamAuth, ApiError> {
    match (caller.0, ticket) {
        (Some(p), _) => Ok(StreamAuth::Player((&p).into())),
        (None, Some(t)) => Ok(StreamAuth::Player(streams.redeem_stream_ticket(t).await?)),
        (None, None) => Ok(StreamAuth::Anonymous),
    }
}

/// What a stream's frames are named (`event:`): EventSource calls a listener
/// per name, so a client that wants everything would have to know every kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EventNames {
    /// Each frame is named by its kind (`event: player_joined`), its `data`
    /// the kind's.
    #[default]
    Kind,
    /// Every frame is `event: message` (what EventSource's `onmessage` gets)
    /// and its `data` is `{"event": <the kind>, "data": <the kind's data>}`.
    Message,
}

/// The one name every frame carries with `event_names=message`.
pub const MESSAGE: &str = "message";

fn named(names: EventNames, kind: &str, data: &str) -> String {
    match names {
        EventNames::Kind => format!("event: {kind}\ndata: {data}\n\n"),
        // `data` is always a JSON document, so it goes into the envelope as is.
        EventNames::Message => format!(
            "event: {MESSAGE}\ndata: {{\"event\":{},\"data\":{data}}}\n\n",
            serde_json::Value::from(kind)
        ),
    }
}

fn frame_bytes(frame: StreamFrame, names: EventNames) -> Bytes {
    Bytes::from(match frame {
        StreamFrame::Event(e) => format!("id: {}\n{}", e.id, named(names, &e.kind, &e.data)),
        StreamFrame::Retry(ms) => format!("retry: {ms}\n\n"),
        StreamFrame::KeepAlive => ": keepalive\n\n".to_owned(),
        StreamFrame::Unpositioned(u) => named(names, u.kind, &u.data),
    })
}

/// The HTTP answer that carries a stream's frames until either side ends it.
pub fn sse(rx: mpsc::Receiver<StreamFrame>, names: EventNames) -> HttpResponse {
    let body = stream::unfold(rx, move |mut rx| async move {
        rx.recv()
            .await
            .map(|f| (Ok::<_, actix_web::Error>(frame_bytes(f, names)), rx))
    });
    let mut res = HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        // Tells buffering reverse proxies (nginx) to pass events on at once.
        .insert_header(("X-Accel-Buffering", HeaderValue::from_static("no")))
        .streaming(body);
    // A response's header map starts with room for twelve headers (3.3 KiB),
    // held for as long as the stream is open; a stream ends with at most
    // seven (its three, the request id, `Vary` and CORS's two), which fit half
    // that.
    let mut headers = HeaderMap::with_capacity(STREAM_HEADERS);
    for (name, value) in res.headers().iter() {
        headers.append(name.clone(), value.clone());
    }
    *res.headers_mut() = headers;
    res
}

/// The headers a stream's answer ends with, at most.
pub const STREAM_HEADERS: usize = 7;

/// A single-use ticket for opening an event stream with `?ticket=` (60 seconds).
#[utoipa::path(tag = "events", operation_id = "create_stream_ticket",
    security(("bearer" = [])),
    responses(
        (status = 201, description = "The ticket; it opens one stream, within a minute.", body = StreamTicketResponse),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/stream-tickets")]
pub async fn create_stream_ticket(
    streams: web::Data<Streams>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Created().json(streams.issue_stream_ticket(&me).await?))
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
    /// Streams: how frames are named (`kind` by default; `message`: every frame
    /// under the one name, its kind inside).
    #[param(inline)]
    pub event_names: Option<EventNames>,
    /// Streams: at the start for every match where you owe a move, and after
    /// each batch of events for every match it touched, an `event: prompt`
    /// (no `id:`) with `data` `{"match_id", "prompt"}`: your prompt there as
    /// `GET /matches/{id}` gives it (null once the match is over), so a bot
    /// playing many matches never reads before it moves.
    pub prompt: Option<bool>,
}

/// Every event of every match you hold a seat in (public ones and your seat's).
///
/// With `Accept: text/event-stream`, a Server-Sent Events stream: from now, or
/// after the `Last-Event-ID` a reconnecting client sends (every `id:` is a
/// position `tx.id`); a `: keepalive` comment every 15 s. The stream ends when
/// the credential that opened it (directly or through its ticket) does:
/// revoked, expired, or issued before a password change; its last event is then
/// `event: credential_ended`, `data` `{"reason", "detail"}`, with no `id:`.
/// With `event_names=message` every frame is `event: message` and its `data`
/// `{"event": <the kind>, "data": <the kind's data>}`, for a client that
/// listens to one name. Otherwise a JSON page, oldest first.
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
    streams: web::Data<Streams>,
    req: HttpRequest,
    caller: MaybePlayer,
    query: web::Query<PlayerEventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let player = match stream_auth(&streams, caller, q.ticket.as_deref()).await? {
        StreamAuth::Player(p) => p,
        StreamAuth::Anonymous => {
            return Err(ApiError::unauthorized(
                "unauthorized",
                "This request needs an access token (Authorization: Bearer) or a stream ticket.",
            ));
        }
    };
    if wants_stream(&req) {
        let streams = streams.into_inner();
        let rx = streams
            .player_stream(
                player,
                last_event_id(&req).as_deref(),
                q.prompt.unwrap_or(false),
            )
            .await?;
        return Ok(sse(rx, q.event_names.unwrap_or_default()));
    }
    Ok(HttpResponse::Ok().json(
        streams
            .player_events_page(player.player, q.limit, q.cursor)
            .await?,
    ))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LobbyEventsQuery {
    /// JSON pages only: items per page, 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    /// JSON pages only: the `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Streams: how frames are named (`kind` by default; `message`: every frame
    /// under the one name, its kind inside).
    #[param(inline)]
    pub event_names: Option<EventNames>,
}

/// The lobby: public matches gaining or losing a player, starting and being
/// cancelled, the same for everybody.
///
/// With `Accept: text/event-stream`, a Server-Sent Events stream: from now, or
/// after the `Last-Event-ID` a reconnecting client sends (every `id:` is a
/// position `tx.id`), with a `: keepalive` comment every 15 s. Each frame is
/// named by its kind (`player_joined`, `player_left`, `match_started`,
/// `match_aborted`; with `event_names=message` all are `event: message`, data
/// `{"event", "data"}`), and its data carries the match as the list of
/// matches shows it when it is sent: a client keeps its open matches by
/// `match.id`, those `waiting` in, the others out. A match appears with its
/// first player (one created with `join: false` and nobody seated shows in
/// `GET /matches?status=waiting` only). Otherwise a JSON page, oldest first.
#[utoipa::path(tag = "matches", operation_id = "get_lobby_events",
    params(LobbyEventsQuery,
        ("Last-Event-ID" = Option<String>, Header, description = "Streams: resume after this position.")),
    responses(
        (status = 200, description = "A page of the lobby's changes, or the stream of them.", content(
            (LobbyEventPage = "application/json"),
            (String = "text/event-stream"))),
        (status = 400, description = "A bad limit, cursor or Last-Event-ID.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/lobby/events")]
pub async fn get_lobby_events(
    lobby: web::Data<LobbyFeed>,
    req: HttpRequest,
    query: web::Query<LobbyEventsQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    if wants_stream(&req) {
        let rx = lobby
            .into_inner()
            .stream(last_event_id(&req).as_deref())
            .await?;
        return Ok(sse(rx, q.event_names.unwrap_or_default()));
    }
    Ok(HttpResponse::Ok().json(lobby.page(q.limit, q.cursor).await?))
}
