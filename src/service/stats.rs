//! Player and game statistics over finished matches, from the typed history tables.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::Service;
use super::models::{
    GameStatsResponse, MatchCount, PlayGroup, PlayerGameStats, PlayerRef, PlayerStatsResponse,
    RoundRef, ValueStats, WinGroup,
};
use super::players::player_not_found;
use crate::errors::ApiError;
use crate::store;
use crate::store::stats::{self, SeatGroup, StatsFilter};

fn ratio(a: i64, b: i64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

fn group(g: &SeatGroup) -> PlayGroup {
    PlayGroup {
        key: g.key.clone(),
        plays: g.plays,
        successes: g.successes,
        success_rate: ratio(g.successes, g.plays),
        average_stake: ratio(g.staked, g.with_stake),
        average_payoff: ratio(g.payoff, g.plays),
    }
}

fn wins(key: String, seats: i64, wins: i64) -> WinGroup {
    WinGroup {
        key,
        seats,
        wins,
        win_rate: ratio(wins, seats),
    }
}

pub struct GameStatsQuery {
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub players: Option<i32>,
    pub include_positions: bool,
}

impl Service {
    fn known_game(&self, game: &str) -> Result<(), ApiError> {
        self.game(game)
            .map(|_| ())
            .ok_or_else(|| ApiError::not_found("game_not_found", "No game has that id."))
    }

    pub async fn player_stats(
        &self,
        name: &str,
        game: Option<String>,
        include_positions: bool,
    ) -> Result<PlayerStatsResponse, ApiError> {
        if let Some(g) = &game {
            self.known_game(g)?;
        }
        let player = store::player_by_name(&self.db, name)
            .await?
            .ok_or_else(player_not_found)?;
        let f = StatsFilter {
            game: game.clone(),
            player: Some(player.id),
            include_positions,
            ..Default::default()
        };
        let played =
            stats::player_played(&self.db, player.id, game.as_deref(), include_positions).await?;
        let results = stats::player_results(&self.db, &f).await?;
        let kinds = stats::seat_groups(&self.db, &f, "kind").await?;
        let cards = stats::seat_groups(&self.db, &f, "card").await?;
        let ratings = store::ratings_of(&self.db, player.id).await?;
        let mut ids: Vec<String> = played.iter().map(|(g, _)| g.clone()).collect();
        if let Some(g) = &game
            && !ids.contains(g)
        {
            ids.push(g.clone());
        }
        ids.sort();
        let mut games = Vec::new();
        for id in ids {
            let (finished, won, rank_sum, score_sum) = results
                .iter()
                .find(|r| r.0 == id)
                .map(|r| (r.1, r.2, r.3, r.4))
                .unwrap_or_default();
            let best = stats::best_round(
                &self.db,
                &StatsFilter {
                    game: Some(id.clone()),
                    ..f.clone()
                },
            )
            .await?;
            games.push(PlayerGameStats {
                played: played.iter().find(|p| p.0 == id).map(|p| p.1).unwrap_or(0),
                finished,
                won,
                win_rate: ratio(won, finished),
                average_rank: ratio(rank_sum, finished),
                average_score: ratio(score_sum, finished),
                rating: ratings.iter().find(|r| r.game == id).map(|r| r.rating),
                kinds: kinds.iter().filter(|k| k.game == id).map(group).collect(),
                cards: cards.iter().filter(|k| k.game == id).map(group).collect(),
                best_round: best.map(|(match_id, round, delta)| RoundRef {
                    match_id,
                    round,
                    delta,
                }),
                game: id,
            });
        }
        Ok(PlayerStatsResponse {
            player: PlayerRef {
                id: player.id,
                name: player.name,
            },
            games,
        })
    }

    pub async fn game_stats(
        &self,
        game: &str,
        q: GameStatsQuery,
    ) -> Result<GameStatsResponse, ApiError> {
        self.known_game(game)?;
        let f = StatsFilter {
            game: Some(game.to_owned()),
            player: None,
            since: q.since,
            until: q.until,
            seats: q.players,
            include_positions: q.include_positions,
        };
        let matches = stats::matches_by_size(&self.db, &f)
            .await?
            .into_iter()
            .map(|(players, variant, matches)| MatchCount {
                players,
                variant,
                matches,
            })
            .collect();
        let mut by_value: Vec<ValueStats> = Vec::new();
        for (value, outcome, n) in stats::rounds_by_value(&self.db, &f).await? {
            if by_value.last().is_none_or(|v| v.value != value) {
                by_value.push(ValueStats {
                    value,
                    rounds: 0,
                    outcomes: BTreeMap::new(),
                    outcome_rates: BTreeMap::new(),
                });
            }
            if let Some(v) = by_value.last_mut() {
                v.rounds += n;
                v.outcomes.insert(outcome, n);
            }
        }
        for v in &mut by_value {
            v.outcome_rates = v
                .outcomes
                .iter()
                .map(|(k, n)| (k.clone(), *n as f64 / v.rounds as f64))
                .collect();
        }
        let kinds = stats::seat_groups(&self.db, &f, "kind")
            .await?
            .iter()
            .map(group)
            .collect();
        let seat_offsets = stats::wins_by_offset(&self.db, &f)
            .await?
            .into_iter()
            .map(|(o, n, w)| wins(o.to_string(), n, w))
            .collect();
        let roles = stats::wins_by_role(&self.db, &f)
            .await?
            .into_iter()
            .map(|(r, n, w)| wins(r, n, w))
            .collect();
        Ok(GameStatsResponse {
            game: game.to_owned(),
            matches,
            by_value,
            kinds,
            seat_offsets,
            roles,
        })
    }
}
