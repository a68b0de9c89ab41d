use crate::service::lobby::Lobby;
use crate::service::reads::Reads;
use crate::service::streams::Streams;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::{AuthenticatedPlayer, MaybePlayer};
use crate::errors::{ApiError, Problem};
use crate::ratelimit::{Creation, Granted, RateLimits, TooManyRequests};
use crate::service::caps::Caps;
use crate::service::lobby::{CreateMatch, JoinMatch};
use crate::service::models::{MatchPage, MatchResponse};
use crate::service::presence::Presence;
use crate::service::reads::ListMatches;

/// A new match; the creator takes seat 0.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateMatchRequest {
    /// A game id from `GET /api/v1/games`.
    #[schema(example = "malacca")]
    pub game: String,
    /// The number of seats.
    #[schema(example = 3)]
    pub seats: i64,
    /// The game's options, plus the service options `rated` (bool, default true)
    /// and `position` (start from a given situation; the match is then unrated).
    /// Unknown options are refused.
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// Bots to seat at once, by kind (see the game's `bots`), after the creator.
    #[serde(default)]
    #[schema(example = json!(["random"]))]
    pub bots: Vec<String>,
    /// Whether the creator takes seat 0 (default true). With false the creator
    /// only owns the match: seats are filled by others and by bots.
    #[serde(default = "default_true")]
    pub join: bool,
    /// Who may see the match: `public` (default; listed in the lobby),
    /// `unlisted` (left out of every list; anyone with its id may read and join
    /// it) or `private` (exists only for its owner, its seats and its invitees;
    /// joined by invitation or join code; never rated). Unlisted and private
    /// matches get a `join_code`, shown to the owner.
    #[schema(example = "public")]
    pub visibility: Option<String>,
    /// Whether players without a seat may watch while it is played (default:
    /// true, false for a private match). Once over, a match reads as usual.
    pub spectators: Option<bool>,
    /// Players to invite, by name (at most the seats left free, and 16): each
    /// finds it under `GET /players/me/invitations` and gets an
    /// `invitation_sent` event on its feed, stream and webhooks; joining
    /// accepts. One name makes a challenge.
    #[serde(default)]
    #[schema(example = json!(["alice"]))]
    pub invite: Vec<String>,
    /// Seconds the invitations stay open: 60 to 2592000 (30 days); the
    /// server's `INVITATION_HOURS` (a week) when not given.
    #[schema(minimum = 60, maximum = 2592000)]
    pub invitation_expires_in: Option<i64>,
    /// Who writes in the match's chat: `players` (default: its seated players
    /// and owner; whoever may read the match reads), `everyone` (signed-in
    /// spectators write too) or `off`.
    #[schema(example = "players")]
    pub chat: Option<String>,
    /// A club (by id) whose match this is: you must be one of its members,
    /// and only its members take seats (bots too). It lists under
    /// `GET /matches?club=` and counts for the club's leaderboards.
    pub club: Option<Uuid>,
}

fn default_true() -> bool {
    true
}

/// Creates a match.
#[utoipa::path(tag = "matches", operation_id = "create_match",
    security(("bearer" = [])),
    request_body = CreateMatchRequest,
    responses(
        (status = 201, description = "The match, waiting for players.", body = MatchResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "You own the most matches waiting for players one account may (`too_many_waiting_matches`, `MAX_WAITING_MATCHES`; a match that starts at once does not count), or the invitations would pass your cap (`too_many_invitations`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown game, bad seat count, options, position, visibility or invitations.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches")]
pub async fn create_match(
    req: HttpRequest,
    lobby: web::Data<Lobby>,
    limits: web::Data<RateLimits>,
    caps: web::Data<Caps>,
    me: AuthenticatedPlayer,
    body: web::Json<CreateMatchRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = super::creation_quota(&limits, &caps, &req, &me, Creation::Matches).await?;
    let body = body.into_inner();
    let m = lobby
        .create_match(
            &me,
            CreateMatch {
                game: body.game,
                seats: body.seats,
                options: body.options,
                bots: body.bots,
                join: body.join,
                visibility: body.visibility,
                spectators: body.spectators,
                invite: body.invite,
                invitation_expires_in: body.invitation_expires_in,
                chat: body.chat,
                club: body.club,
            },
        )
        .await?;
    Ok(quota
        .headers(HttpResponse::Created())
        .insert_header(("Location", format!("/api/v1/matches/{}", m.id)))
        .json(m))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListMatchesQuery {
    /// Only this game.
    pub game: Option<String>,
    /// Only matches this player (by name) holds a seat in.
    pub player: Option<String>,
    /// `waiting`, `active`, `finished` or `aborted`.
    pub status: Option<String>,
    /// Only the matches of this club (by id).
    pub club: Option<Uuid>,
    /// Items per page: 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Lists matches, newest first: the public ones, and the caller's own unlisted
/// and private ones (those it owns or holds a seat in).
#[utoipa::path(tag = "matches", operation_id = "list_matches",
    security((), ("bearer" = [])),
    params(ListMatchesQuery),
    responses(
        (status = 200, description = "A page of matches.", body = MatchPage),
        (status = 400, description = "A bad filter, limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches")]
pub async fn list_matches(
    reads: web::Data<Reads>,
    caller: MaybePlayer,
    query: web::Query<ListMatchesQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = reads
        .list_matches(ListMatches {
            game: q.game,
            player: q.player,
            status: q.status,
            club: q.club,
            limit: q.limit,
            cursor: q.cursor,
            reader: caller.0.map(|p| p.id),
        })
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct GetMatchQuery {
    /// Long poll: answer only once the match's `version` is above this (or it is
    /// over), or when `wait` runs out; answers at once if it already is.
    pub after_version: Option<i64>,
    /// Long poll: the most seconds to wait, 1 to 60 (30 when not given); only with
    /// `after_version`.
    #[param(minimum = 1, maximum = 60)]
    pub wait: Option<u64>,
}

/// The longest a long poll may wait, in seconds.
const MAX_WAIT: u64 = 60;

/// A match, with the caller's view and prompt (anonymous callers get the spectator view).
///
/// With `after_version`, a long poll: the answer comes when the match changes
/// past that version (or after `wait` seconds, unchanged).
///
/// Every answer carries a weak `ETag` (of what this caller was shown, but for the
/// clocks' countdown); a poller that sends it back in `If-None-Match` gets
/// `304 Not Modified` without a body while nothing it would see has changed. A
/// timed match's `seconds_remaining` and owing seats' `bank_seconds` run down
/// meanwhile: a client counts them down from the `deadline` instants.
#[utoipa::path(tag = "matches", operation_id = "get_match",
    security((), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id."), GetMatchQuery,
        ("If-None-Match" = Option<String>, Header, description = "An `ETag` of an earlier answer (or several, comma-separated): `304` while the match reads the same to the caller.")),
    responses(
        (status = 200, description = "The match.", body = MatchResponse,
            headers(("ETag" = String, description = "A weak tag of this answer (blind to the clocks' countdown), for `If-None-Match`."))),
        (status = 304, description = "Unchanged for this caller since the tag in `If-None-Match`; no body.",
            headers(("ETag" = String, description = "The same tag."))),
        (status = 400, description = "The id is not a UUID, or a bad after_version or wait.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The match is played without spectators (`spectators_not_allowed`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one the caller is not part of).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}")]
pub async fn get_match(
    req: HttpRequest,
    reads: web::Data<Reads>,
    streams: web::Data<Streams>,
    caller: MaybePlayer,
    id: web::Path<Uuid>,
    query: web::Query<GetMatchQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    match (q.after_version, q.wait) {
        (None, Some(_)) => {
            return Err(
                ApiError::bad_request("invalid_wait", "wait goes with after_version.")
                    .arg("max", MAX_WAIT),
            );
        }
        (_, Some(w)) if !(1..=MAX_WAIT).contains(&w) => {
            return Err(ApiError::bad_request(
                "invalid_wait",
                format!("wait is 1 to {MAX_WAIT} seconds."),
            )
            .arg("max", MAX_WAIT));
        }
        (Some(v), w) => {
            // Nobody waits on a match they may not read: the wait itself would
            // tell that it exists.
            reads
                .check_match_visible(caller.0.as_ref().map(|p| p.id), *id)
                .await?;
            let wait = std::time::Duration::from_secs(w.unwrap_or(30));
            streams.wait_for_version(*id, v, wait).await?;
        }
        (None, None) => {}
    }
    let m = reads.get_match(caller.0.map(|p| p.id), *id).await?;
    // Straight from the typed answer: a detour through `serde_json::Value` parsed
    // the game's view (kept as raw JSON) back into maps, on every read.
    let body = serde_json::to_vec(&m).map_err(ApiError::internal)?;
    let tag = etag_of(m).map_err(ApiError::internal)?;
    // The answer depends on who asks: no shared cache may hand one caller's
    // view to another, and every reuse is checked with the server.
    let unchanged = not_modified(&req, &tag);
    let mut answer = if unchanged {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    answer
        .insert_header((header::ETAG, tag))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"))
        .insert_header((header::VARY, "Authorization"));
    Ok(if unchanged {
        answer.finish()
    } else {
        answer.content_type("application/json").body(body)
    })
}

/// A weak entity tag: the first 128 bits of the SHA-256 of the document without
/// its countdown (`seconds_remaining` and `bank_seconds`: what a seat owing a
/// move has left, which runs down between two changes of the match), so a timed
/// match keeps its tag (and a poller its `304`) from one second to the next while
/// nothing happens in it. The countdown is derived from the deadlines the
/// document carries, which do change with the tag; every other difference
/// changes it too.
fn etag_of(mut m: MatchResponse) -> Result<String, serde_json::Error> {
    use sha2::{Digest, Sha256};
    /// Feeds the serialiser's output to the hash without collecting it.
    struct Hashing(Sha256);
    impl std::io::Write for Hashing {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    for seat in &mut m.seats {
        seat.seconds_remaining = None;
        seat.bank_seconds = None;
    }
    if let Some(prompt) = &mut m.prompt {
        for d in &mut prompt.deadlines {
            d.seconds_remaining = None;
            d.bank_seconds = None;
        }
    }
    let mut hashing = Hashing(Sha256::new());
    serde_json::to_writer(&mut hashing, &m)?;
    let digest = hashing.0.finalize();
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    Ok(format!("W/\"{hex}\""))
}

/// Whether `If-None-Match` names `tag` (or is `*`), comparing weakly as RFC 9110
/// asks for this header.
fn not_modified(req: &HttpRequest, tag: &str) -> bool {
    req.headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().trim_start_matches("W/"))
        .any(|t| t == "*" || t == tag.trim_start_matches("W/"))
}

/// A bot for a waiting match.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddBotRequest {
    /// One of the game's `bots` (`GET /games/{id}`).
    #[schema(example = "random")]
    pub kind: String,
}

/// Seats a bot in the lowest free seat (owner only, before the start); the match
/// starts when that fills it. Bots move through the same path as players, from
/// their seat's view and legal moves only. A match with a bot is not rated.
#[utoipa::path(tag = "matches", operation_id = "add_bot",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    request_body = AddBotRequest,
    responses(
        (status = 200, description = "The match with the bot seated.", body = MatchResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the match's owner.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The match is not waiting, or full.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such bot for this game.", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/matches/{id}/bots")]
pub async fn add_bot(
    lobby: web::Data<Lobby>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Json<AddBotRequest>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(lobby.add_bot(&me, *id, &body.kind).await?))
}

/// A lifecycle operation. `rate_limited` ones count against the caller's move
/// allowance (resigning and returning are moves of a kind).
macro_rules! lifecycle {
    ($name:ident, $path:literal, $op:literal, $summary:literal, $part:ident.$call:ident) => {
        lifecycle!(@op $name, $path, $op, $summary, $part, $call,
            |_: &RateLimits, _: &HttpRequest, _: &AuthenticatedPlayer| Ok(Granted::default()));
    };
    ($name:ident, $path:literal, $op:literal, $summary:literal, $part:ident.$call:ident, rate_limited) => {
        lifecycle!(@op $name, $path, $op, $summary, $part, $call,
            |limits: &RateLimits, req: &HttpRequest, me: &AuthenticatedPlayer| limits.moves(req, me.id),
            TooManyRequests);
    };
    (@op $name:ident, $path:literal, $op:literal, $summary:literal, $part:ident, $call:ident, $limit:expr $(, $limited:ty)?) => {
        #[doc = $summary]
        #[utoipa::path(tag = "matches", operation_id = $op,
            security(("bearer" = [])),
            params(("id" = Uuid, Path, description = "The match id.")),
            responses(
                (status = 200, description = "The match after the change.", body = MatchResponse),
                (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
                (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
                (status = 403, description = "Not allowed for you (not the owner, not seated).", body = Problem, content_type = "application/problem+json"),
                (status = 404, description = "No such match.", body = Problem, content_type = "application/problem+json"),
                (status = 409, description = "Not possible in the match's current status.", body = Problem, content_type = "application/problem+json"),
                $($limited,)?
            ))]
        #[post($path)]
        pub async fn $name(
            req: HttpRequest,
            part: web::Data<$part>,
            limits: web::Data<RateLimits>,
            me: AuthenticatedPlayer,
            id: web::Path<Uuid>,
        ) -> Result<HttpResponse, ApiError> {
            let check: fn(&RateLimits, &HttpRequest, &AuthenticatedPlayer) -> Result<Granted, ApiError> = $limit;
            let quota = check(&limits, &req, &me)?;
            Ok(quota.headers(HttpResponse::Ok()).json(part.$call(&me, *id).await?))
        }
    };
}

/// How to join: both optional, so an empty body (or none) joins a public match
/// in the lowest free seat.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinMatchRequest {
    /// The match's join code: what opens a private match to a player who is
    /// not invited. Case, spaces and dashes do not matter.
    #[schema(example = "K7M2QXR9TB")]
    pub code: Option<String>,
    /// The seat to take (0-based); the lowest free one when not given.
    #[schema(example = 1)]
    pub seat: Option<i64>,
}

/// A join by code alone.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct JoinByCodeRequest {
    /// The join code the match's owner handed out.
    #[schema(example = "K7M2QXR9TB")]
    pub code: String,
    /// The seat to take (0-based); the lowest free one when not given.
    #[schema(example = 1)]
    pub seat: Option<i64>,
}

/// A body that may be empty: absent means every field's default.
pub(super) fn optional_body<T: Default + serde::de::DeserializeOwned>(
    body: &[u8],
) -> Result<T, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    serde_json::from_slice(body).map_err(|e| {
        if e.is_data() {
            ApiError::unprocessable(
                "invalid_body",
                format!("The request body does not have the expected fields: {e}."),
            )
            .arg("reason", e.to_string())
        } else {
            ApiError::bad_request(
                "malformed_json",
                format!("The request body is not valid JSON: {e}."),
            )
            .arg("reason", e.to_string())
        }
    })
}

/// Takes a seat: the one asked for, or the lowest free one; the match starts
/// when the last seat is taken. A private match takes its join code, or an
/// invitation (which joining accepts).
#[utoipa::path(tag = "matches", operation_id = "join_match",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    request_body(content = JoinMatchRequest, description = "A JSON object: `{}`, or a join code and the seat wanted. An empty body counts as `{}`."),
    responses(
        (status = 200, description = "The match after the change.", body = MatchResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one without a valid code or invitation).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not waiting, full, the seat taken, already seated, the invitation declined, or your reliability is below the match's `min_reliability` (`reliability_too_low`, with your `ratio` and the `minimum`), or you are on vacation (`on_vacation`).", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The invitation expired (`invitation_expired`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such seat, a malformed join code, or unknown fields.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches/{id}/join")]
pub async fn join_match(
    req: HttpRequest,
    lobby: web::Data<Lobby>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let how: JoinMatchRequest = optional_body(&body)?;
    let quota = limits.moves(&req, me.id)?;
    let m = lobby
        .join_match(
            &me,
            *id,
            JoinMatch {
                code: how.code,
                seat: how.seat,
            },
        )
        .await?;
    Ok(quota.headers(HttpResponse::Ok()).json(m))
}

/// Joins the waiting match a join code opens (unlisted or private), in the seat
/// asked for or the lowest free one.
#[utoipa::path(tag = "matches", operation_id = "join_match_by_code",
    security(("bearer" = [])),
    request_body = JoinByCodeRequest,
    responses(
        (status = 200, description = "The match joined.", body = MatchResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No waiting match has this code (`join_code_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Full, the seat taken, already seated, or your reliability is below the match's `min_reliability` (`reliability_too_low`, with your `ratio` and the `minimum`), or you are on vacation (`on_vacation`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such seat, or a malformed code.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches/join")]
pub async fn join_match_by_code(
    req: HttpRequest,
    lobby: web::Data<Lobby>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    body: web::Json<JoinByCodeRequest>,
) -> Result<HttpResponse, ApiError> {
    // Counted before the look-up: codes are guessed at a move's pace at most.
    let quota = limits.moves(&req, me.id)?;
    let body = body.into_inner();
    let m = lobby.join_match_by_code(&me, &body.code, body.seat).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(m))
}
lifecycle!(
    start_match,
    "/matches/{id}/start",
    "start_match",
    "Starts a waiting match with the players seated (owner only; at least the minimum).",
    Lobby.start_match
);
lifecycle!(
    leave_match,
    "/matches/{id}/leave",
    "leave_match",
    "Gives up one's seat before the start; the next player becomes owner; the last one out aborts it.",
    Lobby.leave_match
);
lifecycle!(
    cancel_match,
    "/matches/{id}/cancel",
    "cancel_match",
    "Aborts a waiting match (owner only).",
    Lobby.cancel_match
);
lifecycle!(
    resign_match,
    "/matches/{id}/resign",
    "resign_match",
    "Forfeits your seat: it plays null moves to the end and ranks last, whatever its score; when fewer than two seats are left in play the match ends at once.",
    Presence.resign,
    rate_limited
);
lifecycle!(
    return_to_match,
    "/matches/{id}/return",
    "return_to_match",
    "Ends your absence (a bot stood in after you let a deadline pass): your own deadlines apply again. Moving does the same.",
    Presence.return_to_match,
    rate_limited
);

/// More time for a seat.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ExtendSeatRequest {
    /// The seat to give time to (0-based): one that owes a move now, not
    /// your own.
    #[schema(example = 1)]
    pub seat: i64,
    /// How much, 1 to 604800 (a week): added to the seat's bank, or to its
    /// limit for the step it owes under a per-move clock.
    #[schema(example = 3600)]
    pub seconds: i64,
}

/// Gives a seat that owes a move more time (as a chess player adds time to
/// the opponent's clock): any other seat of the match may. With a bank time
/// control the time goes into the seat's bank; with a per-move limit, on top
/// of its limit for this step. Recorded as a public `seat_extended` event.
#[utoipa::path(tag = "matches", operation_id = "extend_seat",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    request_body = ExtendSeatRequest,
    responses(
        (status = 200, description = "The match with the seat's new deadline.", body = MatchResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "You hold no seat in the match.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The match is not active (`match_not_active`), has no clock (`no_clock`), the seat owes no move of its own now (`seat_not_awaited`), or it is yours (`own_seat`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such seat, or seconds out of range (`invalid_extension`).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches/{id}/extensions")]
pub async fn extend_seat(
    req: HttpRequest,
    presence: web::Data<Presence>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Json<ExtendSeatRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let m = presence
        .extend_seat(&me, *id, body.seat, body.seconds)
        .await?;
    Ok(quota.headers(HttpResponse::Ok()).json(m))
}
