//! Tournaments: round robin and Swiss, their rounds started by the server.

use crate::service::tournaments::Tournaments;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::errors::{ApiError, Problem};
use crate::ratelimit::{Creation, RateLimits, TooManyRequests};
use crate::service::caps::Caps;
use crate::service::tournaments::CreateTournament;
use crate::service::tournaments::{TournamentPage, TournamentResponse};

/// A new tournament.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateTournamentRequest {
    /// 1 to 80 characters.
    #[schema(example = "Friday Swiss")]
    pub name: String,
    #[schema(example = "malacca")]
    pub game: String,
    /// `round_robin` (everyone meets everyone once; tables of 2) or `swiss`.
    #[schema(example = "swiss")]
    pub format: String,
    /// Seats at each table: 2 (the default) pairs players; more seats
    /// multi-player tables (Swiss only), within the game's seat counts.
    #[schema(example = 2)]
    pub table_size: Option<i64>,
    /// Swiss only: 1 to 50 rounds; when not given, ⌈log₂ n⌉ for n entrants,
    /// fixed at the start.
    #[schema(minimum = 1, maximum = 50)]
    pub rounds: Option<i64>,
    /// The options of every match, as in `POST /matches`: the game's own and
    /// the service's (`rated`, `move_time_limit` or `time_control`,
    /// `timeout_policy`, `absent_move_time_limit`, `min_reliability`, which
    /// is asked of every entrant); no `position`.
    #[schema(value_type = Option<Object>)]
    pub options: Option<Value>,
    /// The most entrants: from the game's fewest seats (at least 2) to 256
    /// (default 64).
    #[schema(minimum = 2, maximum = 256)]
    pub max_players: Option<i64>,
    /// When the server starts it (in the future); otherwise its owner starts
    /// it with `POST /tournaments/{id}/start`. Started with too few entrants,
    /// it is cancelled.
    pub starts_at: Option<DateTime<Utc>>,
    /// Seconds from a round's start before the next round may start: 60 to
    /// 604800 (a week). A round then starts when the previous one is over
    /// and its time has come. Not given: as soon as the previous one is over.
    #[schema(minimum = 60, maximum = 604800)]
    pub round_interval: Option<i64>,
    /// Whether the creator enters it (default: true).
    #[serde(default = "default_true")]
    pub join: bool,
}

fn default_true() -> bool {
    true
}

/// Creates a tournament, taking entries until it starts.
#[utoipa::path(tag = "tournaments", operation_id = "create_tournament",
    security(("bearer" = [])),
    request_body = CreateTournamentRequest,
    responses(
        (status = 201, description = "The tournament, taking entries.", body = TournamentResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "You have the most tournaments of your own registering or running one account may (`too_many_tournaments`, `MAX_OPEN_TOURNAMENTS`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown game; bad name, format, table size, rounds, options, max_players, starts_at or round_interval.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/tournaments")]
pub async fn create_tournament(
    req: HttpRequest,
    tournaments: web::Data<Tournaments>,
    limits: web::Data<RateLimits>,
    caps: web::Data<Caps>,
    me: AuthenticatedPlayer,
    body: web::Json<CreateTournamentRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = super::creation_quota(&limits, &caps, &req, &me, Creation::Tournaments).await?;
    let b = body.into_inner();
    let t = tournaments
        .create_tournament(
            &me,
            CreateTournament {
                name: b.name,
                game: b.game,
                format: b.format,
                table_size: b.table_size,
                rounds: b.rounds,
                options: b.options,
                max_players: b.max_players,
                starts_at: b.starts_at,
                round_interval: b.round_interval,
                join: b.join,
            },
        )
        .await?;
    Ok(quota
        .headers(HttpResponse::Created())
        .insert_header(("Location", format!("/api/v1/tournaments/{}", t.summary.id)))
        .json(t))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListTournamentsQuery {
    /// Only this game.
    pub game: Option<String>,
    /// `registering`, `running`, `finished` or `cancelled`.
    pub status: Option<String>,
    /// Items per page: 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Lists tournaments, newest first.
#[utoipa::path(tag = "tournaments", operation_id = "list_tournaments",
    params(ListTournamentsQuery),
    responses(
        (status = 200, description = "A page of tournaments.", body = TournamentPage),
        (status = 400, description = "A bad filter, limit or cursor.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/tournaments")]
pub async fn list_tournaments(
    tournaments: web::Data<Tournaments>,
    query: web::Query<ListTournamentsQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = tournaments
        .list_tournaments(
            q.game.as_deref(),
            q.status.as_deref(),
            q.limit,
            q.cursor.as_deref(),
        )
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// A tournament: its standings (with tie-breaks) and every round's tables,
/// their matches and results.
#[utoipa::path(tag = "tournaments", operation_id = "get_tournament",
    params(("id" = Uuid, Path, description = "The tournament id.")),
    responses(
        (status = 200, description = "The tournament.", body = TournamentResponse),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/tournaments/{id}")]
pub async fn get_tournament(
    tournaments: web::Data<Tournaments>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(tournaments.get_tournament(*id).await?))
}

/// Bots to enter.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AddTournamentBotsRequest {
    /// A bot kind of the game (`GET /games`).
    #[schema(example = "random")]
    pub kind: String,
    /// How many: 1 to 256 (default 1).
    #[schema(minimum = 1, maximum = 256)]
    pub count: Option<i64>,
}

/// Enters bots (the owner only, while it takes entries): each is a bot account
/// (`bot.<kind>.<n>`) the server plays for.
#[utoipa::path(tag = "tournaments", operation_id = "add_tournament_bots",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The tournament id.")),
    request_body = AddTournamentBotsRequest,
    responses(
        (status = 200, description = "The tournament with its new entrants.", body = TournamentResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the tournament's owner.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such tournament.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "It has started (`tournament_started`), or has no room (`tournament_full`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such bot for the game, or a bad count.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/tournaments/{id}/bots")]
pub async fn add_tournament_bots(
    req: HttpRequest,
    tournaments: web::Data<Tournaments>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Json<AddTournamentBotsRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let t = tournaments
        .add_tournament_bots(&me, *id, &body.kind, body.count.unwrap_or(1))
        .await?;
    Ok(quota.headers(HttpResponse::Ok()).json(t))
}

/// A change to a tournament with no body; each counts against the caller's
/// move allowance.
macro_rules! action {
    ($name:ident, $path:literal, $op:literal, $summary:literal, $call:ident, $forbidden:literal, $conflict:literal) => {
        #[doc = $summary]
        #[utoipa::path(tag = "tournaments", operation_id = $op,
            security(("bearer" = [])),
            params(("id" = Uuid, Path, description = "The tournament id.")),
            responses(
                (status = 200, description = "The tournament after the change.", body = TournamentResponse),
                (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
                (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
                (status = 403, description = $forbidden, body = Problem, content_type = "application/problem+json"),
                (status = 404, description = "No such tournament.", body = Problem, content_type = "application/problem+json"),
                (status = 409, description = $conflict, body = Problem, content_type = "application/problem+json"),
                TooManyRequests,
            ))]
        #[post($path)]
        pub async fn $name(
            req: HttpRequest,
            tournaments: web::Data<Tournaments>,
            limits: web::Data<RateLimits>,
            me: AuthenticatedPlayer,
            id: web::Path<Uuid>,
        ) -> Result<HttpResponse, ApiError> {
            let quota = limits.moves(&req, me.id)?;
            let t = tournaments.$call(&me, *id).await?;
            Ok(quota.headers(HttpResponse::Ok()).json(t))
        }
    };
}

action!(
    join_tournament,
    "/tournaments/{id}/join",
    "join_tournament",
    "Enters the tournament (while it takes entries).",
    join_tournament,
    "An API token without the `play` scope (`insufficient_scope`).",
    "It has started (`tournament_started`), is full (`tournament_full`), you are in it (`already_entered`), or your reliability is below its matches' `min_reliability` (`reliability_too_low`)."
);
action!(
    withdraw_from_tournament,
    "/tournaments/{id}/withdraw",
    "withdraw_from_tournament",
    "Leaves the tournament. Before it starts the entry is removed; once it runs \
     you are not paired again, your match in play is resigned, and your results \
     stand.",
    withdraw_from_tournament,
    "An API token without the `play` scope (`insufficient_scope`).",
    "Not entered (`not_entered`), already withdrawn (`already_withdrawn`), or it is over (`tournament_over`)."
);
action!(
    start_tournament,
    "/tournaments/{id}/start",
    "start_tournament",
    "Starts the tournament now (its owner only): the first round is seated and \
     its matches start.",
    start_tournament,
    "Not the tournament's owner.",
    "It has started (`tournament_started`), or has too few entrants (`not_enough_players`)."
);
action!(
    cancel_tournament,
    "/tournaments/{id}/cancel",
    "cancel_tournament",
    "Cancels the tournament (its owner only). Matches in play are played out; no \
     further round starts.",
    cancel_tournament,
    "Not the tournament's owner.",
    "It is over (`tournament_over`)."
);
