//! A player's vacation: every clock of its seats stands while it lasts.

use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::AuthenticatedPlayer;
use crate::errors::{ApiError, Problem};
use crate::ratelimit::{RateLimits, TooManyRequests};
use crate::service::models::VacationResponse;
use crate::service::presence::Presence;

/// A vacation to take from now.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StartVacationRequest {
    /// Whole days, from 1 to the days left of the allowance.
    #[schema(example = 7)]
    pub days: i64,
}

/// Your vacation under way, if any, and your allowance of days.
#[utoipa::path(tag = "players", operation_id = "get_my_vacation",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your vacation and allowance.", body = VacationResponse),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/vacation")]
pub async fn get_my_vacation(
    presence: web::Data<Presence>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(presence.vacation(&me).await?))
}

/// Starts a vacation of `days` days now. Every clock of your seats stands
/// until it ends (or you come back): banks are not charged, per-move
/// deadlines move on by the time away. The other seats of your matches are
/// told (`seat_on_vacation`, and the seat's `away_until`), and the lobby
/// seats you in no new match meanwhile.
#[utoipa::path(tag = "players", operation_id = "start_vacation",
    security(("bearer" = [])),
    request_body = StartVacationRequest,
    responses(
        (status = 200, description = "Your vacation and what is left of the allowance.", body = VacationResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already on vacation (`on_vacation`), or the server gives none (`vacations_off`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Days out of range or past the allowance (`invalid_vacation`).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/players/me/vacation")]
pub async fn start_vacation(
    req: HttpRequest,
    presence: web::Data<Presence>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    body: web::Json<StartVacationRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let v = presence.start_vacation(&me, body.days).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(v))
}

/// Comes back from vacation early: your clocks run again from now, and the
/// days not taken return to the allowance (a day begun counts whole).
#[utoipa::path(tag = "players", operation_id = "end_vacation",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your allowance after coming back.", body = VacationResponse),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Not on vacation (`not_on_vacation`).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[delete("/players/me/vacation")]
pub async fn end_vacation(
    req: HttpRequest,
    presence: web::Data<Presence>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let v = presence.end_vacation(&me).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(v))
}
