use crate::service::ratings::Ratings;
use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::errors::{ApiError, Problem};
use crate::service::models::{LeaderboardPage, RatingsPage};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct LeaderboardQuery {
    /// Only players with at least this many rated matches (default 1).
    pub min_games: Option<i32>,
    /// Items per page: 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// A game's leaderboard, best first, by the conservative rating `mu − 3·sigma`.
#[utoipa::path(tag = "ratings", operation_id = "get_leaderboard",
    params(("game" = String, Path, description = "The game's id."), LeaderboardQuery),
    responses(
        (status = 200, description = "A page of the leaderboard.", body = LeaderboardPage),
        (status = 400, description = "A bad limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/leaderboards/{game}")]
pub async fn get_leaderboard(
    ratings: web::Data<Ratings>,
    game: web::Path<String>,
    query: web::Query<LeaderboardQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = ratings
        .leaderboard(&game, q.min_games, q.limit, q.cursor)
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct RatingsQuery {
    /// Only this game.
    pub game: Option<String>,
    /// Items per page: 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// A player's current ratings and their history, oldest first.
#[utoipa::path(tag = "ratings", operation_id = "get_player_ratings",
    params(("name" = String, Path, description = "The player's name (any case)."), RatingsQuery),
    responses(
        (status = 200, description = "The ratings and a page of their history.", body = RatingsPage),
        (status = 400, description = "A bad limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such player or game.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/{name}/ratings")]
pub async fn get_player_ratings(
    ratings: web::Data<Ratings>,
    name: web::Path<String>,
    query: web::Query<RatingsQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = ratings
        .player_ratings(&name, q.game, q.limit, q.cursor)
        .await?;
    Ok(HttpResponse::Ok().json(page))
}
