//! Leaderboards and players' rating histories. The ratings themselves are
//! computed in `skill` and written when a finish is folded (see `folds`).

use std::sync::Arc;

use sea_orm::DatabaseConnection;

use crate::service::accounts::player_not_found;
use crate::service::error::{Error, Result};
use crate::service::folds::Folds;
use crate::service::games::Games;
use crate::service::models::{
    LeaderboardEntry, LeaderboardPage, PlayerRef, RatingChange, RatingResponse, RatingsPage,
};
use crate::service::pages::{decode_cursor, encode_cursor, offset_cursor, page_limit};
use crate::store;

/// Leaderboards and players' rating histories.
pub struct Ratings {
    db: DatabaseConnection,
    games: Arc<Games>,
    folds: Arc<Folds>,
}

impl Ratings {
    pub fn new(db: DatabaseConnection, games: Arc<Games>, folds: Arc<Folds>) -> Self {
        Self { db, games, folds }
    }
}

impl Ratings {
    pub async fn leaderboard(
        &self,
        game: &str,
        min_games: Option<i32>,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<LeaderboardPage, Error> {
        if self.games.get(game).is_none() {
            return Err(Error::not_found("game_not_found", "No game has that id."));
        }
        let limit = page_limit(limit)?;
        let offset = offset_cursor(cursor)?;
        let min_games = min_games.unwrap_or(1).max(0);
        self.folds.settle_finishes().await?;
        let mut rows =
            store::ratings::leaderboard(&self.db, game, min_games, offset, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let names =
            store::players::names_by_id(&self.db, rows.iter().map(|r| r.player_id).collect())
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
    ) -> Result<RatingsPage, Error> {
        let limit = page_limit(limit)?;
        let player = store::players::player_by_name(&self.db, name)
            .await?
            .ok_or_else(player_not_found)?;
        if let Some(g) = &game
            && self.games.get(g).is_none()
        {
            return Err(Error::not_found("game_not_found", "No game has that id."));
        }
        let after = match cursor {
            Some(c) => Some(decode_cursor(&c)?.parse::<i64>().map_err(|_| {
                Error::bad_request(
                    "invalid_cursor",
                    "The cursor is not one this server issued.",
                )
            })?),
            None => None,
        };
        self.folds.settle_finishes().await?;
        let current = store::ratings::ratings_of(&self.db, player.id)
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
        let mut rows = store::ratings::rating_history_of(
            &self.db,
            player.id,
            game.as_deref(),
            after,
            limit + 1,
        )
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
