use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::auth::AuthenticatedPlayer;
use crate::errors::{ApiError, Problem};
use crate::service::Service;
use crate::service::models::PlayerResponse;

/// A new account.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePlayerRequest {
    /// 3 to 32 characters: letters, digits, `_`, `-`; unique regardless of case.
    #[schema(pattern = "^[A-Za-z0-9_-]{3,32}$", example = "alice")]
    pub name: String,
    /// At least 8 characters.
    #[schema(min_length = 8, example = "correct horse")]
    pub password: String,
}

/// Registers a player.
#[utoipa::path(tag = "players", operation_id = "create_player",
    request_body = CreatePlayerRequest,
    responses(
        (status = 201, description = "The player was created.", body = PlayerResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The name is taken.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The name or password is not acceptable.", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/players")]
pub async fn create_player(
    service: web::Data<Service>,
    body: web::Json<CreatePlayerRequest>,
) -> Result<HttpResponse, ApiError> {
    let p = service.register(&body.name, &body.password).await?;
    Ok(HttpResponse::Created().json(p))
}

/// The authenticated player's profile.
#[utoipa::path(tag = "players", operation_id = "get_me",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your profile.", body = PlayerResponse),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me")]
pub async fn get_me(
    service: web::Data<Service>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(service.player_by_id(me.id).await?))
}

/// A player's public profile.
#[utoipa::path(tag = "players", operation_id = "get_player",
    params(("name" = String, Path, description = "The player's name (any case).")),
    responses(
        (status = 200, description = "The player.", body = PlayerResponse),
        (status = 404, description = "No such player.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/{name}")]
pub async fn get_player(
    service: web::Data<Service>,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(service.player_by_name(&name).await?))
}

/// Every active match where you owe a move: soonest deadline first, then the
/// longest owed.
#[utoipa::path(tag = "players", operation_id = "get_my_turns",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your turns.", body = crate::service::models::TurnsResponse),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/turns")]
pub async fn get_my_turns(
    service: web::Data<Service>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(service.my_turns(&me).await?))
}
