use crate::service::stats::Stats;
use actix_web::{HttpResponse, get, web};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::errors::{ApiError, Problem};
use crate::service::models::{GameStatsResponse, PlayerStatsResponse};
use crate::service::stats::GameStatsQuery;

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct PlayerStatsParams {
    /// Only this game (all games when absent).
    pub game: Option<String>,
    /// `positions` to count matches started from a position too.
    pub include: Option<String>,
}

/// A player's statistics per game, over finished matches.
#[utoipa::path(tag = "stats", operation_id = "get_player_stats",
    params(("name" = String, Path, description = "The player's name (any case)."), PlayerStatsParams),
    responses(
        (status = 200, description = "One entry per game the player has played.", body = PlayerStatsResponse),
        (status = 400, description = "A bad query.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such player or game.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/{name}/stats")]
pub async fn get_player_stats(
    stats: web::Data<Stats>,
    name: web::Path<String>,
    query: web::Query<PlayerStatsParams>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let include = include_positions(q.include.as_deref())?;
    Ok(HttpResponse::Ok().json(stats.player_stats(&name, q.game, include).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct GameStatsParams {
    /// Matches finished at or after this time (RFC 3339).
    pub since: Option<DateTime<Utc>>,
    /// Matches finished before this time (RFC 3339).
    pub until: Option<DateTime<Utc>>,
    /// Only matches of this many players.
    pub players: Option<i32>,
    /// `positions` to count matches started from a position too.
    pub include: Option<String>,
}

/// A game's statistics over finished matches.
#[utoipa::path(tag = "stats", operation_id = "get_game_stats",
    params(("game" = String, Path, description = "The game's id."), GameStatsParams),
    responses(
        (status = 200, description = "The figures.", body = GameStatsResponse),
        (status = 400, description = "A bad query.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such game.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/games/{game}/stats")]
pub async fn get_game_stats(
    stats: web::Data<Stats>,
    game: web::Path<String>,
    query: web::Query<GameStatsParams>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let include = include_positions(q.include.as_deref())?;
    let stats = stats
        .game_stats(
            &game,
            GameStatsQuery {
                since: q.since,
                until: q.until,
                players: q.players,
                include_positions: include,
            },
        )
        .await?;
    Ok(HttpResponse::Ok().json(stats))
}

fn include_positions(include: Option<&str>) -> Result<bool, ApiError> {
    match include {
        None => Ok(false),
        Some("positions") => Ok(true),
        Some(_) => Err(ApiError::bad_request(
            "invalid_include",
            "include takes only `positions`.",
        )),
    }
}
