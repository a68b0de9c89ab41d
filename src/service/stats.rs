//! Player and game statistics over finished matches, from the typed history tables.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;

use crate::service::accounts::player_not_found;
use crate::service::error::{Error, Result};
use crate::service::folds::Folds;
use crate::service::games::Games;
use crate::service::models::{
    GameStatsResponse, MatchCount, PlayGroup, PlayerGameStats, PlayerRef, PlayerStatsResponse,
    RoundRef, ValueStats, WinGroup,
};
use crate::service::reliability::Reliability;
use crate::store;
use crate::store::stats;
use crate::store::stats::{StatsFilter, Window};

/// Player and game statistics.
pub struct Stats {
    db: DatabaseConnection,
    games: Arc<Games>,
    folds: Arc<Folds>,
    reliability: Arc<Reliability>,
}

impl Stats {
    pub fn new(
        db: DatabaseConnection,
        games: Arc<Games>,
        folds: Arc<Folds>,
        reliability: Arc<Reliability>,
    ) -> Self {
        Self {
            db,
            games,
            folds,
            reliability,
        }
    }
}

fn ratio(a: i64, b: i64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

pub(crate) fn wins(key: String, seats: i64, wins: i64) -> WinGroup {
    WinGroup {
        key,
        seats,
        wins,
        win_rate: ratio(wins, seats),
    }
}

/// A group from summed (plays, successes, staked, with_stake, payoff).
fn summed(key: Option<String>, s: [i64; 5]) -> PlayGroup {
    PlayGroup {
        key,
        plays: s[0],
        successes: s[1],
        success_rate: ratio(s[1], s[0]),
        average_stake: ratio(s[2], s[3]),
        average_payoff: ratio(s[4], s[0]),
    }
}

fn add(into: &mut [i64; 5], s: [i64; 5]) {
    for (a, b) in into.iter_mut().zip(s) {
        *a += b;
    }
}

pub struct GameStatsQuery {
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub players: Option<i32>,
    pub include_positions: bool,
}

impl Stats {
    fn known_game(&self, game: &str) -> Result<(), Error> {
        self.games
            .get(game)
            .map(|_| ())
            .ok_or_else(|| Error::not_found("game_not_found", "No game has that id."))
    }

    pub async fn player_stats(
        &self,
        name: &str,
        game: Option<String>,
        include_positions: bool,
    ) -> Result<PlayerStatsResponse, Error> {
        if let Some(g) = &game {
            self.known_game(g)?;
        }
        let player = store::players::player_by_name(&self.db, name)
            .await?
            .ok_or_else(player_not_found)?;
        // Finished matches come from the running totals; only the player's
        // active matches (few) are counted live.
        let (id, g, inc) = (player.id, game.as_deref(), include_positions);
        self.folds.settle_finishes().await?;
        let active = stats::player_played(&self.db, id, g, inc, &["active"]).await?;
        let seated = stats::player_totals(&self.db, id, g, inc, "seated").await?;
        let results = stats::player_totals(&self.db, id, g, inc, "results").await?;
        let kinds = stats::player_totals(&self.db, id, g, inc, "kind").await?;
        let cards = stats::player_totals(&self.db, id, g, inc, "card").await?;
        let best = stats::player_best_rounds(&self.db, id, g, inc).await?;
        let ratings = store::ratings::ratings_of(&self.db, player.id).await?;
        let mut played: BTreeMap<String, i64> = BTreeMap::new();
        for (game, n) in active {
            *played.entry(game).or_default() += n;
        }
        for (game, _, s) in &seated {
            *played.entry(game.clone()).or_default() += s[0];
        }
        let mut ids: Vec<String> = played.keys().cloned().collect();
        if let Some(g) = &game
            && !ids.contains(g)
        {
            ids.push(g.clone());
        }
        ids.sort();
        let groups = |rows: &[(String, Option<String>, [i64; 5])], id: &str| {
            let mut v: Vec<PlayGroup> = rows
                .iter()
                .filter(|r| r.0 == id)
                .map(|(_, key, s)| summed(key.clone(), *s))
                .collect();
            v.sort_by(|a, b| a.key.cmp(&b.key));
            v
        };
        let mut games = Vec::new();
        for id in ids {
            let [finished, won, rank_sum, score_sum, _] = results
                .iter()
                .find(|r| r.0 == id)
                .map(|r| r.2)
                .unwrap_or_default();
            games.push(PlayerGameStats {
                played: played.get(&id).copied().unwrap_or(0),
                finished,
                won,
                win_rate: ratio(won, finished),
                average_rank: ratio(rank_sum, finished),
                average_score: ratio(score_sum, finished),
                rating: ratings.iter().find(|r| r.game == id).map(|r| r.rating),
                kinds: groups(&kinds, &id),
                cards: groups(&cards, &id),
                best_round: best
                    .iter()
                    .find(|b| b.0 == id)
                    .map(|(_, match_id, round, delta)| RoundRef {
                        match_id: *match_id,
                        round: *round,
                        delta: *delta,
                    }),
                game: id,
            });
        }
        Ok(PlayerStatsResponse {
            reliability: self.reliability.record(player.id).await?,
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
    ) -> Result<GameStatsResponse, Error> {
        self.known_game(game)?;
        let f = StatsFilter {
            game: Some(game.to_owned()),
            player: None,
            finished: vec![(q.since, q.until)],
            seats: q.players,
            include_positions: q.include_positions,
        };
        // Whole buckets come from the running totals (every metric in one
        // statement), the minutes at the window's edges from the history tables
        // (both edges in one statement a metric); both are summed per key.
        self.folds.settle_finishes().await?;
        let db = &self.db;
        let w = Window::new(q.since, q.until);
        let mut sizes: BTreeMap<(i64, String), i64> = BTreeMap::new();
        let mut values: BTreeMap<(Option<i64>, String), i64> = BTreeMap::new();
        let mut kinds: BTreeMap<Option<String>, [i64; 5]> = BTreeMap::new();
        let mut offsets: BTreeMap<i64, [i64; 5]> = BTreeMap::new();
        let mut roles: BTreeMap<String, [i64; 5]> = BTreeMap::new();
        let metrics = ["matches", "round", "kind", "offset", "role"];
        for (metric, (seats, variant, key, num, k2, s)) in
            stats::game_totals(db, &f, &w, &metrics, &["matches"]).await?
        {
            match metric.as_str() {
                "matches" => *sizes.entry((seats, variant)).or_default() += s[0],
                "round" => *values.entry((num, k2)).or_default() += s[0],
                "kind" => add(kinds.entry(key).or_default(), s),
                "offset" => add(offsets.entry(num.unwrap_or(0)).or_default(), s),
                "role" => add(roles.entry(key.unwrap_or_default()).or_default(), s),
                _ => {}
            }
        }
        if let Some(e) = &w.raw_filter(&f) {
            for (seats, variant, n) in stats::matches_by_size(db, e).await? {
                *sizes.entry((seats, variant)).or_default() += n;
            }
            for (value, outcome, n) in stats::rounds_by_value(db, e).await? {
                *values.entry((value, outcome)).or_default() += n;
            }
            for g in stats::seat_groups(db, e, "kind").await? {
                let s = [g.plays, g.successes, g.staked, g.with_stake, g.payoff];
                add(kinds.entry(g.key).or_default(), s);
            }
            for (offset, n, wins) in stats::wins_by_offset(db, e).await? {
                add(offsets.entry(offset).or_default(), [n, wins, 0, 0, 0]);
            }
            for (role, n, wins) in stats::wins_by_role(db, e).await? {
                add(roles.entry(role).or_default(), [n, wins, 0, 0, 0]);
            }
        }
        let matches = sizes
            .into_iter()
            .map(|((players, variant), matches)| MatchCount {
                players,
                variant,
                matches,
            })
            .collect();
        let mut by_value: Vec<ValueStats> = Vec::new();
        for ((value, outcome), n) in values {
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
        let kinds = kinds.into_iter().map(|(key, s)| summed(key, s)).collect();
        let seat_offsets = offsets
            .into_iter()
            .map(|(o, s)| wins(o.to_string(), s[0], s[1]))
            .collect();
        let roles = roles
            .into_iter()
            .map(|(r, s)| wins(r, s[0], s[1]))
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
