//! Bots see only their seat's view (see `games::checks`). Cairo's only
//! secrets in the state are the other seats' sealed votes on a report.

use super::state::Vote;
use super::*;
use crate::games::checks;
use crate::games::rng::GameRng;

fn redraw(state: &CairoState, seat: Seat, rng: &mut GameRng) -> CairoState {
    let mut s = state.clone();
    if let Some(report) = s.report.as_mut() {
        for v in report.votes.iter_mut().filter(|v| v.seat != seat) {
            v.vote = if rng.chance(1, 2) {
                Vote::Confirm
            } else {
                Vote::Dispute
            };
        }
    }
    s
}

#[test]
fn bots_decide_the_same_whatever_their_seat_cannot_see() {
    let data = checks::embedded_data::<Cairo>();
    let changed = checks::bot_invariance::<Cairo>(&data, 3, &CairoOptions::default(), 1, 1, redraw);
    assert!(changed > 0, "no re-draw changed anything");
}
