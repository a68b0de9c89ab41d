//! Per-game Weng-Lin ratings (the OpenSkill family, as `skillratings` computes
//! them): the arithmetic of one finished match, free of I/O, shared by the
//! move that finishes a match (its rating input) and the fold that applies it.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use skillratings::MultiTeamOutcome;
use skillratings::weng_lin::{WengLinConfig, WengLinRating, weng_lin_multi_team};
use uuid::Uuid;

use crate::games::Outcome;
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
