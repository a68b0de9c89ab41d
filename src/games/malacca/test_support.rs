//! Helpers shared by the Malacca tests.

use serde_json::{Value, json};

use super::rules::State;
use super::*;
use crate::games::rng::GameRng;
use crate::games::{Event, Game, Progress, RoundRecord, Transition, Viewer, legal as legal_fmt};

// ----- helpers --------------------------------------------------------------------

pub(super) fn data() -> MalaccaData {
    let files: Vec<(&str, &str)> = Malacca::data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    Malacca::load_data(&files).expect("embedded data loads")
}

pub(super) fn opts(v: Value) -> MalaccaOptions {
    serde_json::from_value(v).expect("options parse")
}

pub(super) fn start(options: Value, position: Value) -> State {
    let p: MalaccaPosition = serde_json::from_value(position).expect("position parses");
    let n = p.players.len();
    Malacca::from_position(&data(), n, &opts(options), p).expect("position is valid")
}

pub(super) fn try_start(options: Value, position: Value) -> Result<State, crate::games::RuleError> {
    let p: MalaccaPosition = serde_json::from_value(position).expect("position parses");
    let n = p.players.len();
    Malacca::from_position(&data(), n, &opts(options), p)
}

/// A base-game position: coins per seat, captain, ships, special deck and the
/// special cards per seat.
pub(super) fn plain(
    coins: &[i64],
    captain: usize,
    ships: &[i64],
    deck: &[&str],
    specials: &[&[&str]],
) -> State {
    let players: Vec<Value> = coins
        .iter()
        .enumerate()
        .map(|(i, c)| json!({"coins": c, "specials": specials.get(i).copied().unwrap_or(&[])}))
        .collect();
    start(
        json!({}),
        json!({"round": 1, "captain": captain, "ships": ships, "special_deck": deck, "players": players}),
    )
}

/// A position with characters (one per seat).
pub(super) fn with_chars(
    coins: &[i64],
    chars: &[&str],
    captain: usize,
    ships: &[i64],
    deck: &[&str],
    specials: &[&[&str]],
) -> State {
    let players: Vec<Value> = coins
        .iter()
        .enumerate()
        .map(|(i, c)| {
            json!({"coins": c, "character": chars[i],
                   "specials": specials.get(i).copied().unwrap_or(&[])})
        })
        .collect();
    start(
        json!({"characters": true}),
        json!({"round": 1, "captain": captain, "ships": ships, "special_deck": deck, "players": players}),
    )
}

pub(super) fn bet(card: &str, stake: i64) -> Value {
    json!({"type": "play", "card": card, "stake": stake})
}
pub(super) fn choose(kind: &str) -> Value {
    json!({"type": "choose", "kind": kind})
}
pub(super) fn buy(kind: &str) -> Value {
    json!({"type": "buy", "kind": kind})
}
pub(super) fn pass() -> Value {
    json!({"type": "pass"})
}
pub(super) fn keep(card: &str) -> Value {
    json!({"type": "keep", "card": card})
}

pub(super) fn step(state: &State, seat: Seat, action: Value) -> Transition<State> {
    let legal = Malacca::legal(state, seat)
        .unwrap_or_else(|| panic!("seat {seat} owes no move, cannot play {action}"));
    assert!(
        legal_fmt::is_listed(&legal, &action),
        "{action} is not in legal {legal:?}"
    );
    let a: Action = serde_json::from_value(action).expect("action parses");
    Malacca::validate(state, seat, &a).expect("validate accepts");
    let mut rng = GameRng::from_key([0; 32]);
    Malacca::apply(state, seat, &a, &mut rng).expect("apply")
}

pub(super) struct Played {
    pub state: State,
    pub events: Vec<Event>,
    pub rounds: Vec<RoundRecord>,
}

pub(super) fn run(state: &State, moves: &[(Seat, Value)]) -> Played {
    let mut s = state.clone();
    let mut events = Vec::new();
    let mut rounds = Vec::new();
    for (seat, action) in moves {
        let t = step(&s, *seat, action.clone());
        events.extend(t.events);
        rounds.extend(t.rounds);
        s = t.state;
    }
    Played {
        state: s,
        events,
        rounds,
    }
}

pub(super) fn coins(s: &State) -> Vec<i64> {
    s.players.iter().map(|p| p.coins).collect()
}

pub(super) fn specials(s: &State, seat: Seat) -> Vec<Card> {
    s.players[seat]
        .hand
        .iter()
        .copied()
        .filter(|c| !c.is_normal())
        .collect()
}

pub(super) fn cards(ids: &[&str]) -> Vec<Card> {
    ids.iter()
        .map(|c| serde_json::from_value(json!(c)).expect("card id"))
        .collect()
}

pub(super) fn ledger_sum(r: &RoundRecord, seat: Seat, reason: &str) -> i64 {
    r.ledger
        .iter()
        .filter(|l| l.seat == seat && l.reason == reason)
        .map(|l| l.amount)
        .sum()
}

pub(super) fn prompt(s: &State) -> crate::games::Prompt {
    match Malacca::progress(s) {
        Progress::Active(p) => p,
        Progress::Finished(_) => panic!("match finished"),
    }
}

pub(super) fn view_json(s: &State, viewer: Viewer) -> Value {
    serde_json::to_value(Malacca::view(s, viewer)).expect("view serializes")
}

pub(super) fn equipment_position(
    purchase: &str,
    coins: &[i64],
    captain: usize,
    ships: &[i64],
) -> State {
    let players: Vec<Value> = coins.iter().map(|c| json!({"coins": c})).collect();
    start(
        json!({"equipment": true, "equipment_purchase": purchase}),
        json!({"round": 1, "captain": captain, "ships": ships, "special_deck": ["attack2"], "players": players}),
    )
}
