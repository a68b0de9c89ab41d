//! Bots see only their seat's view (see `games::checks`).

use super::*;
use crate::games::checks;
use crate::games::rng::GameRng;

/// Re-draws the city deck's order and every other seat's face-down personality
/// (taken back into its hand, one drawn from the hand in its place).
fn redraw(state: &HereticsState, seat: Seat, rng: &mut GameRng) -> HereticsState {
    let mut s = state.clone();
    rng.shuffle(&mut s.city_deck);
    for other in (0..s.seats).filter(|o| *o != seat) {
        let Some(card) = s.played[other].take() else {
            continue;
        };
        let mut hand = std::mem::take(&mut s.hand[other]);
        hand.push(card);
        let pick = hand.remove(rng.index(hand.len()));
        hand.sort_by_key(|id| (state.card(id).map_or(u32::MAX, |c| c.strength), id.clone()));
        s.hand[other] = hand;
        s.played[other] = Some(pick);
    }
    s
}

#[test]
fn bots_decide_the_same_whatever_their_seat_cannot_see() {
    let data = checks::embedded_data::<Heretics>();
    let mut changed = 0;
    for seats in 2..=4 {
        changed += checks::bot_invariance::<Heretics>(
            &data,
            seats,
            &HereticsOptions::default(),
            2,
            2,
            redraw,
        );
    }
    assert!(changed > 50, "only {changed} re-draws changed anything");
}
