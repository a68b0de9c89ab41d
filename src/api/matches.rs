use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::{AuthenticatedPlayer, MaybePlayer};
use crate::errors::{ApiError, Problem};
use crate::service::models::{MatchPage, MatchResponse};
use crate::service::{CreateMatch, ListMatches, Service};

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
}

/// Creates a match.
#[utoipa::path(tag = "matches", operation_id = "create_match",
    security(("bearer" = [])),
    request_body = CreateMatchRequest,
    responses(
        (status = 201, description = "The match, waiting for players.", body = MatchResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Unknown game, bad seat count, options or position.", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/matches")]
pub async fn create_match(
    service: web::Data<Service>,
    me: AuthenticatedPlayer,
    body: web::Json<CreateMatchRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let m = service
        .create_match(
            &me,
            CreateMatch {
                game: body.game,
                seats: body.seats,
                options: body.options,
            },
        )
        .await?;
    Ok(HttpResponse::Created().json(m))
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
    /// Items per page: 1 to 200 (default 50).
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Lists matches, newest first.
#[utoipa::path(tag = "matches", operation_id = "list_matches",
    params(ListMatchesQuery),
    responses(
        (status = 200, description = "A page of matches.", body = MatchPage),
        (status = 400, description = "A bad filter, limit or cursor.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches")]
pub async fn list_matches(
    service: web::Data<Service>,
    query: web::Query<ListMatchesQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = service
        .list_matches(ListMatches {
            game: q.game,
            player: q.player,
            status: q.status,
            limit: q.limit,
            cursor: q.cursor,
        })
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// A match, with the caller's view and prompt (anonymous callers get the spectator view).
#[utoipa::path(tag = "matches", operation_id = "get_match",
    params(("id" = Uuid, Path, description = "The match id.")),
    responses(
        (status = 200, description = "The match.", body = MatchResponse),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}")]
pub async fn get_match(
    service: web::Data<Service>,
    caller: MaybePlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let m = service.get_match(caller.0.map(|p| p.id), *id).await?;
    Ok(HttpResponse::Ok().json(m))
}

macro_rules! lifecycle {
    ($name:ident, $path:literal, $op:literal, $summary:literal, $call:ident) => {
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
            ))]
        #[post($path)]
        pub async fn $name(
            service: web::Data<Service>,
            me: AuthenticatedPlayer,
            id: web::Path<Uuid>,
        ) -> Result<HttpResponse, ApiError> {
            Ok(HttpResponse::Ok().json(service.$call(&me, *id).await?))
        }
    };
}

lifecycle!(
    join_match,
    "/matches/{id}/join",
    "join_match",
    "Takes the lowest free seat; the match starts when the last seat is taken.",
    join_match
);
lifecycle!(
    start_match,
    "/matches/{id}/start",
    "start_match",
    "Starts a waiting match with the players seated (owner only; at least the minimum).",
    start_match
);
lifecycle!(
    leave_match,
    "/matches/{id}/leave",
    "leave_match",
    "Gives up one's seat before the start; the next player becomes owner; the last one out aborts it.",
    leave_match
);
lifecycle!(
    cancel_match,
    "/matches/{id}/cancel",
    "cancel_match",
    "Aborts a waiting match (owner only).",
    cancel_match
);
