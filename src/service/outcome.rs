//! How a match ends when seats forfeited: the engine's placings with every
//! forfeited seat below every other, or an early end when fewer than two seats
//! are left in play. Pure, so that replay verification reaches the same result.

use crate::games::{AnyState, DynError, DynGame, Outcome, Placing, Progress, Seat};
use crate::service::error::Result;

/// Whether forfeits leave too few seats in play for the match to go on.
pub fn ends_early(seats: usize, forfeited: &[Seat]) -> bool {
    seats.saturating_sub(forfeited.len()) < 2
}

/// The final placings, or None while the match goes on.
pub fn final_outcome(
    game: &dyn DynGame,
    state: &AnyState,
    seats: usize,
    forfeited: &[Seat],
) -> Result<Option<Outcome>, DynError> {
    match game.progress(state)? {
        Progress::Finished(o) => Ok(Some(demote(o, forfeited))),
        Progress::Active(_) if !forfeited.is_empty() && ends_early(seats, forfeited) => {
            let standings = game.standings(state)?;
            let score = |seat: Seat| standings.get(seat).copied().unwrap_or(0);
            // Scores as they stand decide nothing here: the seats still in play rank
            // first (sharing the rank if several), the forfeited ones after them.
            let placings = (0..seats)
                .map(|seat| Placing {
                    seat,
                    score: score(seat),
                    rank: 1,
                })
                .collect();
            Ok(Some(demote(Outcome { placings }, forfeited)))
        }
        Progress::Active(_) => Ok(None),
    }
}

/// Moves every forfeited seat below the others, whatever its score: the others
/// keep their order and ties and are ranked again from 1; the forfeited seats
/// share the last rank, listed by score.
fn demote(outcome: Outcome, forfeited: &[Seat]) -> Outcome {
    if forfeited.is_empty() {
        return outcome;
    }
    let (mut gone, kept): (Vec<Placing>, Vec<Placing>) = outcome
        .placings
        .into_iter()
        .partition(|p| forfeited.contains(&p.seat));
    let mut placings: Vec<Placing> = Vec::with_capacity(kept.len() + gone.len());
    let mut previous_engine_rank = None;
    for (i, mut p) in kept.into_iter().enumerate() {
        let engine_rank = p.rank;
        p.rank = match (previous_engine_rank, placings.last()) {
            (Some(r), Some(last)) if r == engine_rank => last.rank,
            _ => i as u32 + 1,
        };
        previous_engine_rank = Some(engine_rank);
        placings.push(p);
    }
    let last = placings.len() as u32 + 1;
    gone.sort_by(|a, b| b.score.cmp(&a.score).then(a.seat.cmp(&b.seat)));
    placings.extend(gone.into_iter().map(|mut p| {
        p.rank = last;
        p
    }));
    Outcome { placings }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranks(o: &Outcome) -> Vec<(Seat, u32)> {
        o.placings.iter().map(|p| (p.seat, p.rank)).collect()
    }

    #[test]
    fn a_forfeited_winner_ranks_last_and_the_others_move_up_keeping_their_ties() {
        let o = Outcome::from_scores(&[30, 20, 20, 10]);
        assert_eq!(ranks(&o), vec![(0, 1), (1, 2), (2, 2), (3, 4)]);
        let d = demote(o, &[0]);
        assert_eq!(ranks(&d), vec![(1, 1), (2, 1), (3, 3), (0, 4)]);
        assert_eq!(d.placings[3].score, 30, "the score stays what it was");
    }

    #[test]
    fn several_forfeited_seats_share_the_last_rank() {
        let d = demote(Outcome::from_scores(&[5, 9, 7]), &[1, 2]);
        assert_eq!(ranks(&d), vec![(0, 1), (1, 2), (2, 2)]);
    }

    #[test]
    fn without_forfeits_the_outcome_is_unchanged() {
        let o = Outcome::from_scores(&[1, 2]);
        assert_eq!(demote(o.clone(), &[]), o);
    }

    #[test]
    fn a_match_ends_early_when_fewer_than_two_seats_are_left_in_play() {
        assert!(ends_early(2, &[1]));
        assert!(!ends_early(3, &[1]));
        assert!(ends_early(3, &[0, 2]));
    }
}
