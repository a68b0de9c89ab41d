//! Bots see only their seat's view (see `games::checks`).

use super::rules::Choice;
use super::*;
use crate::games::checks;
use crate::games::rng::GameRng;

/// Re-deals the other seats' hands among themselves (each keeps its count) and
/// re-draws the card each of them chose face down.
fn redraw(state: &State, seat: Seat, rng: &mut GameRng) -> State {
    let mut s = state.clone();
    let mut pool: Vec<Card> = Vec::new();
    for p in s.players.iter().filter(|p| p.seat != seat) {
        pool.extend(p.hand.iter().cloned());
    }
    rng.shuffle(&mut pool);
    for p in s.players.iter_mut().filter(|p| p.seat != seat) {
        let n = p.hand.len();
        p.hand = pool.drain(..n).collect();
        if let Some(Choice::Card { card }) = p.choice.as_mut()
            && !p.hand.is_empty()
        {
            *card = p.hand[rng.index(p.hand.len())].id.clone();
        }
    }
    s
}

#[test]
fn bots_decide_the_same_whatever_their_seat_cannot_see() {
    let data = checks::embedded_data::<Kontor>();
    let mut changed = 0;
    for (seats, variant) in [(2, "duel"), (4, "team")] {
        let options: Options =
            serde_json::from_value(serde_json::json!({ "variant": variant })).expect("options");
        changed += checks::bot_invariance::<Kontor>(&data, seats, &options, 1, 1, redraw);
    }
    assert!(changed > 50, "only {changed} re-draws changed anything");
}
