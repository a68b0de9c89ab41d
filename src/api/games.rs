use actix_web::{HttpResponse, get, web};

use crate::errors::{ApiError, Problem};
use crate::service::games::Games;
use crate::service::models::GameResponse;

/// The game catalogue.
#[utoipa::path(tag = "games", operation_id = "list_games",
    responses((status = 200, description = "Every hosted game.", body = Vec<GameResponse>)))]
#[get("/games")]
pub async fn list_games(games: web::Data<Games>) -> HttpResponse {
    HttpResponse::Ok().json(games.catalogue())
}

/// One game of the catalogue.
#[utoipa::path(tag = "games", operation_id = "get_game",
    params(("game" = String, Path, description = "The game's id, e.g. `malacca`.")),
    responses(
        (status = 200, description = "The game.", body = GameResponse),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{game}")]
pub async fn get_game(
    games: web::Data<Games>,
    game: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    games
        .catalogue()
        .into_iter()
        .find(|g| g.id == *game)
        .map(|g| HttpResponse::Ok().json(g))
        .ok_or_else(|| ApiError::not_found("game_not_found", "No game has that id."))
}
