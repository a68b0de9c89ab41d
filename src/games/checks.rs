//! Checks every game runs in its own tests.
//!
//! Bots: a bot decides from what its seat may see, so re-drawing what the seat
//! cannot see (deck order, other seats' hands and sealed moves, unrevealed
//! cards) changes neither the seat's view, nor its legal actions, nor any bot's
//! move drawn with the same bot seed.

use serde_json::Value;

use super::rng::GameRng;
use super::{AnyState, DynGame, Erased, Game, Progress, Seat, Viewer, legal};

fn json<T: serde::Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("serializes")
}

/// Plays `games` random games from `key`; at every step, for every seat that owes
/// a move, compares the state with `tries` re-draws of what that seat cannot see.
/// Answers how many re-draws differed from the state (a caller asserts some did,
/// so the check is not vacuous).
pub fn bot_invariance<G: Game>(
    data: &G::Data,
    seats: usize,
    options: &G::Options,
    games: u8,
    tries: usize,
    redraw: impl Fn(&G::State, Seat, &mut GameRng) -> G::State,
) -> usize {
    let erased = Erased::<G>::new();
    let mut changed = 0;
    for g in 0..games {
        let mut setup = GameRng::from_key([g; 32]);
        let mut state = G::setup(data, seats, options, &mut setup).expect("setup");
        let mut play = GameRng::from_key([g ^ 0xa5; 32]);
        let mut hidden = GameRng::from_key([g ^ 0x3c; 32]);
        for step in 0u64.. {
            let prompt = match G::progress(&state) {
                Progress::Finished(_) => break,
                Progress::Active(p) => p,
            };
            let state_json = json(&state);
            for seat in 0..seats {
                let Some(listed) = G::legal(&state, seat) else {
                    continue;
                };
                let view = json(&G::view(&state, Viewer::Seat(seat)));
                for _ in 0..tries {
                    let other = redraw(&state, seat, &mut hidden);
                    let other_json = json(&other);
                    if other_json != state_json {
                        changed += 1;
                    }
                    assert_eq!(
                        json(&G::view(&other, Viewer::Seat(seat))),
                        view,
                        "a re-draw of what seat {seat} cannot see changed its view"
                    );
                    assert_eq!(G::legal(&other, seat).as_ref(), Some(&listed));
                    let state_any = AnyState::of(state.clone());
                    let other_any = AnyState::of(other.clone());
                    for kind in erased.bot_kinds() {
                        let key = [step as u8 ^ seat as u8; 32];
                        let mine = erased
                            .bot_move(kind, &state_any, seat, &mut GameRng::from_key(key))
                            .expect("bot move");
                        let theirs = erased
                            .bot_move(kind, &other_any, seat, &mut GameRng::from_key(key))
                            .expect("bot move");
                        assert_eq!(mine, theirs, "bot {kind} of seat {seat} saw hidden state");
                        let mine = mine.expect("a bot always moves when the seat owes one");
                        assert!(legal::is_listed(&listed, &mine), "{kind} played {mine}");
                    }
                }
            }
            let seat = prompt.awaiting[0];
            let listed = G::legal(&state, seat).expect("awaited seat has moves");
            let action: G::Action =
                serde_json::from_value(legal::sample(&listed, &mut play).expect("a move"))
                    .expect("parses");
            let mut rng = GameRng::from_key([step as u8; 32]);
            state = G::apply(&state, seat, &action, &mut rng)
                .expect("apply")
                .state;
        }
    }
    changed
}

/// A game's embedded component data.
pub fn embedded_data<G: Game>() -> G::Data {
    let files: Vec<(&str, &str)> = G::data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    G::load_data(&files).expect("embedded data loads")
}

/// Plays `games` random games and answers, per game, the standings after every
/// move and the final outcome's scores by seat.
pub fn standings_along<G: Game>(
    data: &G::Data,
    seats: usize,
    options: &G::Options,
    games: u8,
) -> Vec<(Vec<Vec<i64>>, Vec<i64>)> {
    (0..games)
        .map(|g| {
            let mut setup = GameRng::from_key([g.wrapping_add(100); 32]);
            let mut state = G::setup(data, seats, options, &mut setup).expect("setup");
            let mut play = GameRng::from_key([g ^ 0x77; 32]);
            let mut along = vec![G::standings(&state)];
            loop {
                let prompt = match G::progress(&state) {
                    Progress::Finished(o) => {
                        let mut scores = vec![0; seats];
                        for p in o.placings {
                            scores[p.seat] = p.score;
                        }
                        return (along, scores);
                    }
                    Progress::Active(p) => p,
                };
                let seat = prompt.awaiting[0];
                let listed = G::legal(&state, seat).expect("awaited seat has moves");
                let action: G::Action =
                    serde_json::from_value(legal::sample(&listed, &mut play).expect("a move"))
                        .expect("parses");
                state = G::apply(&state, seat, &action, &mut play)
                    .expect("apply")
                    .state;
                along.push(G::standings(&state));
            }
        })
        .collect()
}

/// Plays `games` random games and checks, at every step, that every prompt's kind
/// and every event's kind is one the game declares, and that every entry `legal` lists for every seat is
/// typed: a complete action parses as the game's action, an entry marked
/// `"template": true` as one of its templates. Answers how many templates were
/// seen (a caller asserts some were where the game has them, so the check is not
/// vacuous).
pub fn legal_is_typed<G: Game>(
    data: &G::Data,
    seats: usize,
    options: &G::Options,
    games: u8,
) -> usize {
    let mut templates = 0;
    for g in 0..games {
        let mut setup = GameRng::from_key([g.wrapping_add(40); 32]);
        let mut state = G::setup(data, seats, options, &mut setup).expect("setup");
        let mut play = GameRng::from_key([g ^ 0x5e; 32]);
        loop {
            let prompt = match G::progress(&state) {
                Progress::Finished(_) => break,
                Progress::Active(p) => p,
            };
            assert!(
                G::prompt_kinds().contains(&prompt.kind.as_str()),
                "prompt kind {} is not declared",
                prompt.kind
            );
            for seat in 0..seats {
                for entry in G::legal(&state, seat).into_iter().flatten() {
                    if entry.get("template") == Some(&Value::Bool(true)) {
                        templates += 1;
                        if let Err(e) = serde_json::from_value::<G::Template>(entry.clone()) {
                            panic!("template {entry} does not parse: {e}");
                        }
                    } else if let Err(e) = serde_json::from_value::<G::Action>(entry.clone()) {
                        panic!("complete action {entry} does not parse: {e}");
                    }
                }
            }
            let seat = prompt.awaiting[0];
            let listed = G::legal(&state, seat).expect("awaited seat has moves");
            let action: G::Action =
                serde_json::from_value(legal::sample(&listed, &mut play).expect("a move"))
                    .expect("parses");
            let t = G::apply(&state, seat, &action, &mut play).expect("apply");
            for e in &t.events {
                assert!(
                    G::event_kinds().contains(&e.kind.as_str()),
                    "event kind {} is not declared",
                    e.kind
                );
            }
            state = t.state;
        }
    }
    templates
}
