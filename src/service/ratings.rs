//! Per-game Weng-Lin ratings (the OpenSkill family, through `skillratings`),
//! updated when a rated match's finish is folded (see `folds`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use uuid::Uuid;

use super::models::{
    LeaderboardEntry, LeaderboardPage, PlayerRef, RatingChange, RatingResponse, RatingsPage,
};
use super::players::player_not_found;
use super::{Service, decode_cursor, encode_cursor, offset_cursor, page_limit};
use crate::errors::ApiError;
use crate::games::Outcome;
use crate::store;
use crate::store::entities::{match_seats, rating_history, ratings};

pub(super) fn default_rating() -> (f64, f64) {
    let r = WengLinRating::new();
    (r.rating, r.uncertainty)
}

/// One placed seat of a finished match, as its rating update needs it: queued
/// with the finish (`pending_finishes.placed`), applied when folded.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct Placed {
    pub player: Uuid,
    pub rank: u32,
    /// Whether this seat's rating moves (the others' take part in the
    /// computation but are not written).
    pub moves: bool,
}

/// The rating input of a finished match: every placed seat with a player,
/// `moves` telling whose rating moves; none when fewer than two are placed or
/// no rating moves.
pub(super) fn rating_input(
    outcome: &Outcome,
    seats: &[match_seats::Model],
    moves: impl Fn(&match_seats::Model) -> bool,
) -> Option<Vec<Placed>> {
    let seat_of = |seat: usize| seats.iter().find(|s| s.seat as usize == seat);
    let placed: Vec<Placed> = outcome
        .placings
        .iter()
        .filter_map(|p| {
            seat_of(p.seat).map(|s| Placed {
                player: s.player_id,
                rank: p.rank,
                moves: moves(s),
            })
        })
        .collect();
    (placed.len() >= 2 && placed.iter().any(|p| p.moves)).then_some(placed)
}

/// Applies one finished match to the ratings in `rows` (every placed player's,
/// locked): each seat is a team of one, and tied seats share their rank.
/// Answers the history rows of the ratings that moved.
pub(super) fn rate(
    rows: &mut HashMap<Uuid, ratings::Model>,
    placed: &[Placed],
    game: &str,
    match_id: Uuid,
    at: DateTime<Utc>,
) -> Vec<rating_history::Model> {
    let current = |id: Uuid| {
        rows.get(&id)
            .map(|r| WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            })
            .unwrap_or_default()
    };
    let teams: Vec<[WengLinRating; 1]> = placed.iter().map(|p| [current(p.player)]).collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(placed)
        .map(|(t, p)| (&t[..], MultiTeamOutcome::new(p.rank as usize)))
        .collect();
    let updated = weng_lin_multi_team(&input, &WengLinConfig::new());
    let mut history = Vec::new();
    for (p, new) in placed.iter().zip(updated) {
        if !p.moves {
            continue;
        }
        let (Some(row), Some(after)) = (rows.get_mut(&p.player), new.first()) else {
            continue;
        };
        history.push(rating_history::Model {
            id: 0,
            game: game.to_owned(),
            player_id: p.player,
            match_id,
            mu_before: row.mu,
            sigma_before: row.sigma,
            mu_after: after.rating,
            sigma_after: after.uncertainty,
            rating_after: after.rating - 3.0 * after.uncertainty,
            rank: p.rank as i32,
            created_at: at,
        });
        row.mu = after.rating;
        row.sigma = after.uncertainty;
        row.rating = after.rating - 3.0 * after.uncertainty;
        row.games += 1;
        row.wins += i32::from(p.rank == 1);
        row.updated_at = at;
    }
    history
}

impl Service {
    pub async fn leaderboard(
        &self,
        game: &str,
        min_games: Option<i32>,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<LeaderboardPage, ApiError> {
        if self.game(game).is_none() {
            return Err(ApiError::not_found(
                "game_not_found",
                "No game has that id.",
            ));
        }
        let limit = page_limit(limit)?;
        let offset = offset_cursor(cursor)?;
        let min_games = min_games.unwrap_or(1).max(0);
        self.settle_finishes().await?;
        let mut rows = store::leaderboard(&self.db, game, min_games, offset, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let names = self
            .player_names(rows.iter().map(|r| r.player_id).collect())
            .await?;
        let items = rows
            .iter()
            .enumerate()
            .map(|(i, r)| LeaderboardEntry {
                rank: offset + i as u64 + 1,
                player: PlayerRef {
                    id: r.player_id,
                    name: names.get(&r.player_id).cloned().unwrap_or_default(),
                },
                rating: r.rating,
                mu: r.mu,
                sigma: r.sigma,
                games: r.games as u32,
                wins: r.wins as u32,
            })
            .collect();
        Ok(LeaderboardPage {
            items,
            next_cursor: more.then(|| encode_cursor(&(offset + limit).to_string())),
        })
    }

    pub async fn player_ratings(
        &self,
        name: &str,
        game: Option<String>,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<RatingsPage, ApiError> {
        let limit = page_limit(limit)?;
        let player = store::player_by_name(&self.db, name)
            .await?
            .ok_or_else(player_not_found)?;
        if let Some(g) = &game
            && self.game(g).is_none()
        {
            return Err(ApiError::not_found(
                "game_not_found",
                "No game has that id.",
            ));
        }
        let after = match cursor {
            Some(c) => Some(decode_cursor(&c)?.parse::<i64>().map_err(|_| {
                ApiError::bad_request(
                    "invalid_cursor",
                    "The cursor is not one this server issued.",
                )
            })?),
            None => None,
        };
        self.settle_finishes().await?;
        let current = store::ratings_of(&self.db, player.id)
            .await?
            .into_iter()
            .filter(|r| game.as_deref().is_none_or(|g| g == r.game))
            .map(|r| RatingResponse {
                game: r.game,
                rating: r.rating,
                mu: r.mu,
                sigma: r.sigma,
                games: r.games as u32,
                wins: r.wins as u32,
            })
            .collect();
        let mut rows =
            store::rating_history_of(&self.db, player.id, game.as_deref(), after, limit + 1)
                .await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = if more {
            rows.last().map(|r| encode_cursor(&r.id.to_string()))
        } else {
            None
        };
        let items = rows
            .into_iter()
            .map(|r| RatingChange {
                game: r.game,
                match_id: r.match_id,
                rank: r.rank as u32,
                mu_before: r.mu_before,
                sigma_before: r.sigma_before,
                mu_after: r.mu_after,
                sigma_after: r.sigma_after,
                rating_after: r.rating_after,
                created_at: r.created_at,
            })
            .collect();
        Ok(RatingsPage {
            player: PlayerRef {
                id: player.id,
                name: player.name,
            },
            current,
            items,
            next_cursor,
        })
    }
}
