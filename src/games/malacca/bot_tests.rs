//! The heuristic bot: it sees only the seat's view, and it plays sensibly.

use serde_json::json;

use super::rules::{Phase, State};
use super::test_support::*;
use super::*;
use crate::games::checks;
use crate::games::rng::GameRng;

/// Re-draws what `seat` cannot see: the ship deck's order, the special cards of
/// the deck and of the other seats' hands (each keeps its count), the other
/// seats' face-down cards before the reveal (and their stakes in sealed
/// betting), and the cards Sayyida drew when she is another seat.
fn redraw(state: &State, seat: Seat, rng: &mut GameRng) -> State {
    let mut s = state.clone();
    rng.shuffle(&mut s.ship_deck);
    let face_down = matches!(s.phase, Phase::Bet { .. });
    let mut pool: Vec<Card> = std::mem::take(&mut s.special_deck);
    let deck_len = pool.len();
    let mut held = vec![0usize; s.players.len()];
    for p in s.players.iter_mut().filter(|p| p.seat != seat) {
        if face_down && let Some(play) = p.play {
            p.hand.push(play.card);
        }
        let (special, normal): (Vec<Card>, Vec<Card>) = p.hand.iter().partition(|c| !c.is_normal());
        held[p.seat] = special.len();
        pool.extend(special);
        p.hand = normal;
    }
    let mut kept = None;
    if let Phase::SayyidaKeep {
        seat: sayyida,
        cards,
        ..
    } = &mut s.phase
        && *sayyida != seat
    {
        kept = Some(cards.len());
        pool.append(cards);
    }
    rng.shuffle(&mut pool);
    if let (Some(n), Phase::SayyidaKeep { cards, .. }) = (kept, &mut s.phase) {
        cards.extend(pool.drain(..n));
    }
    let sealed = s.options.stakes == Stakes::Sealed;
    for p in s.players.iter_mut().filter(|p| p.seat != seat) {
        p.hand.extend(pool.drain(..held[p.seat]));
        if face_down && let Some(play) = p.play.as_mut() {
            let i = rng.index(p.hand.len());
            play.card = p.hand.remove(i);
            if sealed {
                play.stake = rng.below(play.coins_at_bet as u64 + 1) as i64;
                p.coins = play.coins_at_bet - play.stake;
            }
        }
        p.hand.sort();
    }
    assert_eq!(pool.len(), deck_len);
    s.special_deck = pool;
    s
}

#[test]
fn bots_decide_the_same_whatever_their_seat_cannot_see() {
    let data = data();
    let mut changed = 0;
    for (seats, options) in [
        (4, json!({})),
        (3, json!({"characters": true, "equipment": true})),
        (5, json!({"characters": true, "stakes": "sealed"})),
        (
            8,
            json!({"characters": true, "equipment": true, "equipment_purchase": "captain_only"}),
        ),
        (2, json!({"stakes": "sealed", "equipment": true})),
    ] {
        changed += checks::bot_invariance::<Malacca>(&data, seats, &opts(options), 1, 1, redraw);
    }
    assert!(changed > 50, "only {changed} re-draws changed anything");
}

fn heuristic(state: &State, seat: Seat, key: u8) -> Action {
    let legal = Malacca::legal(state, seat).expect("the seat owes a move");
    let view = Malacca::view(state, Viewer::Seat(seat));
    Malacca::bot_move(
        "heuristic",
        &view,
        &legal,
        &mut GameRng::from_key([key; 32]),
    )
    .expect("the heuristic always moves")
}

#[test]
fn the_heuristic_attacks_a_table_of_all_in_stakes_and_trades_big_among_defenders() {
    // Seats 1-3 bet before seat 0 and stake everything, as traders do: loot.
    let s = plain(&[5, 5, 5, 5], 1, &[8, 8], &[], &[]);
    let s = run(
        &s,
        &[
            (1, bet("trade", 5)),
            (2, bet("trade", 5)),
            (3, bet("trade", 5)),
        ],
    )
    .state;
    match heuristic(&s, 0, 1) {
        Action::Play { card, stake } => {
            assert_eq!((card, stake), (Card::Attack, 0), "an attack risks no stake")
        }
        other => panic!("{other:?}"),
    }
    // Two rounds in which everyone else defended with nothing at stake: the
    // ship is safe, so a trade pays, and pays in proportion to the stake.
    let s = plain(&[5, 5, 5, 5], 1, &[8, 8, 8], &[], &[]);
    let d = || bet("defense", 0);
    let s = run(
        &s,
        &[
            (1, d()),
            (2, d()),
            (3, d()),
            (0, bet("trade", 0)),
            (2, d()),
            (3, d()),
            (0, bet("trade", 0)),
            (1, d()),
            (3, d()),
        ],
    )
    .state;
    match heuristic(&s, 0, 2) {
        Action::Play { card, stake } => {
            assert_eq!(card, Card::Trade);
            assert!(stake >= 3, "stake {stake}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_heuristic_chooses_its_waiting_card_after_seeing_the_table() {
    // Seat 0 holds wait_defense_trade; seat 1 attacks, seat 2 defends: a tie is
    // a defense whatever seat 0 chooses, so its staked trade pays.
    let s = plain(&[5, 5, 5], 0, &[8, 8], &[], &[&["wait_defense_trade"]]);
    let s = run(
        &s,
        &[
            (0, bet("wait_defense_trade", 3)),
            (1, bet("attack", 0)),
            (2, bet("defense", 0)),
        ],
    )
    .state;
    assert_eq!(prompt(&s).kind, "waiting_choice");
    assert_eq!(heuristic(&s, 0, 3), Action::Choose { kind: Kind::Trade });
    // Two attackers against one defense: only its defense saves the stake.
    let s = plain(&[5, 5, 5, 5], 0, &[8, 8], &[], &[&["wait_defense_trade"]]);
    let s = run(
        &s,
        &[
            (0, bet("wait_defense_trade", 3)),
            (1, bet("attack", 0)),
            (2, bet("attack", 0)),
            (3, bet("defense", 0)),
        ],
    )
    .state;
    assert_eq!(
        heuristic(&s, 0, 4),
        Action::Choose {
            kind: Kind::Defense
        }
    );
}

#[test]
fn the_heuristic_is_offered_and_its_view_names_its_seat_and_the_history() {
    assert_eq!(Malacca::bot_kinds(), &["heuristic"]);
    let s = plain(&[5, 5], 0, &[8, 8], &[], &[]);
    let s = run(&s, &[(0, bet("trade", 1)), (1, bet("defense", 0))]).state;
    let v = Malacca::view(&s, Viewer::Seat(1));
    assert_eq!(v.seat, Some(1));
    assert_eq!(v.history.len(), 1);
    assert_eq!(Malacca::view(&s, Viewer::Spectator).seat, None);
    let legal = Malacca::legal(&s, 1).expect("seat 1 bets next");
    assert!(Malacca::bot_move("nonsense", &v, &legal, &mut GameRng::from_key([0; 32])).is_none());
}
