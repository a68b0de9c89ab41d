//! Per-game Weng-Lin ratings (the OpenSkill family, through `skillratings`),
//! updated in the transaction that finishes a rated match.

use chrono::{DateTime, Utc};
use sea_orm::DatabaseTransaction;
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
use crate::store::entities::{match_seats, matches, rating_history};

fn default_rating() -> (f64, f64) {
    let r = WengLinRating::new();
    (r.rating, r.uncertainty)
}

/// Updates the ratings of the seated players for which `moves` holds, from the
/// placings of every seat; each seat is a team of one, and tied seats share their
/// rank. The others' ratings take part in the computation but are not written.
pub(super) async fn rate_match(
    tx: &DatabaseTransaction,
    m: &matches::Model,
    outcome: &Outcome,
    seats: &[match_seats::Model],
    now: DateTime<Utc>,
    combine: bool,
    moves: impl Fn(&match_seats::Model) -> bool,
) -> Result<(), ApiError> {
    let seat_of = |seat: usize| seats.iter().find(|s| s.seat as usize == seat);
    let placed: Vec<(Uuid, u32, bool)> = outcome
        .placings
        .iter()
        .filter_map(|p| seat_of(p.seat).map(|s| (s.player_id, p.rank, moves(s))))
        .collect();
    if placed.len() < 2 {
        return Ok(());
    }
    let rows = store::lock_ratings(
        tx,
        &m.game,
        placed.iter().map(|(id, _, _)| *id).collect(),
        default_rating(),
        now,
    )
    .await?;
    let current = |id: Uuid| {
        rows.iter()
            .find(|r| r.player_id == id)
            .map(|r| WengLinRating {
                rating: r.mu,
                uncertainty: r.sigma,
            })
            .unwrap_or_default()
    };
    let teams: Vec<[WengLinRating; 1]> = placed.iter().map(|(id, _, _)| [current(*id)]).collect();
    let input: Vec<(&[WengLinRating], MultiTeamOutcome)> = teams
        .iter()
        .zip(&placed)
        .map(|(t, (_, rank, _))| (&t[..], MultiTeamOutcome::new(*rank as usize)))
        .collect();
    let updated = weng_lin_multi_team(&input, &WengLinConfig::new());
    let mut history = Vec::new();
    let mut saved = Vec::new();
    for ((id, rank, write), new) in placed.iter().zip(updated) {
        if !write {
            continue;
        }
        let Some(mut row) = rows.iter().find(|r| r.player_id == *id).cloned() else {
            continue;
        };
        let Some(after) = new.first() else { continue };
        history.push(rating_history::Model {
            id: 0,
            game: m.game.clone(),
            player_id: *id,
            match_id: m.id,
            mu_before: row.mu,
            sigma_before: row.sigma,
            mu_after: after.rating,
            sigma_after: after.uncertainty,
            rating_after: after.rating - 3.0 * after.uncertainty,
            rank: *rank as i32,
            created_at: now,
        });
        row.mu = after.rating;
        row.sigma = after.uncertainty;
        row.rating = after.rating - 3.0 * after.uncertainty;
        row.games += 1;
        row.wins += i32::from(*rank == 1);
        row.updated_at = now;
        saved.push(row);
    }
    store::save_ratings(tx, saved, history, combine).await?;
    Ok(())
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
