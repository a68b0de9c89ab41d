//! Property tests over random legal games: 2–8 players, with and without the
//! expansions, both stake modes.

use serde_json::{Value, json};

use super::{Card, Malacca, State};
use crate::games::legal::{is_listed, sample};
use crate::games::rng::GameRng;
use crate::games::{Game, Progress};

fn data() -> <Malacca as Game>::Data {
    let files: Vec<(&str, &str)> = Malacca::data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    Malacca::load_data(&files).expect("embedded data")
}

fn specials_in_play(s: &State) -> usize {
    let in_hands: usize = s
        .players
        .iter()
        .map(|p| p.hand.iter().filter(|c| !Card::NORMAL.contains(c)).count())
        .sum();
    in_hands + s.special_deck.len()
}

fn equipment_total(s: &State) -> i64 {
    let v = serde_json::to_value(s.equipment_supply).unwrap_or(Value::Null);
    let sum = |v: &Value| -> i64 {
        v.as_object()
            .map_or(0, |o| o.values().filter_map(Value::as_i64).sum())
    };
    sum(&v)
        + s.players
            .iter()
            .map(|p| sum(&serde_json::to_value(p.equipment).unwrap_or(Value::Null)))
            .sum::<i64>()
}

/// Plays one random game and checks every property on the way; answers the final
/// state as JSON (for the replay check).
fn random_game(seats: usize, options: Value, seed: u8) -> Value {
    let data = data();
    let options = serde_json::from_value(options).expect("options");
    let mut state =
        Malacca::setup(&data, seats, &options, &mut GameRng::from_key([seed; 32])).expect("setup");
    let mut bot = GameRng::from_key([seed ^ 0xa5; 32]);
    let specials = specials_in_play(&state);
    let equipment = equipment_total(&state);
    let mut coins_at_round: Vec<i64> = state.players.iter().map(|p| p.coins).collect();
    let mut rounds_seen = 0;
    for step in 0..10_000u64 {
        let prompt = match Malacca::progress(&state) {
            Progress::Finished(outcome) => {
                assert_eq!(rounds_seen, 12, "a game lasts 12 rounds");
                assert_eq!(outcome.placings.len(), seats);
                assert_eq!(
                    specials_in_play(&state),
                    specials,
                    "special cards accounted for"
                );
                return serde_json::to_value(&state).expect("state");
            }
            Progress::Active(p) => p,
        };
        // Legal and validate agree, for every seat.
        for seat in 0..seats {
            match Malacca::legal(&state, seat) {
                None => assert!(!prompt.awaiting.contains(&seat)),
                Some(listed) => {
                    assert!(prompt.awaiting.contains(&seat));
                    for _ in 0..4 {
                        let a = sample(&listed, &mut bot).expect("a legal move");
                        let typed = serde_json::from_value(a.clone()).expect("parses");
                        assert!(
                            Malacca::validate(&state, seat, &typed).is_ok(),
                            "{a} is listed but refused"
                        );
                    }
                    // Random actions are accepted exactly when listed.
                    let card = Card::ALL[bot.index(Card::ALL.len())];
                    let stake = bot.below(12) as i64 - 1;
                    let probe = json!({"type": "play", "card": card, "stake": stake});
                    if let Ok(typed) = serde_json::from_value(probe.clone()) {
                        assert_eq!(
                            Malacca::validate(&state, seat, &typed).is_ok(),
                            is_listed(&listed, &probe),
                            "{probe} in {}",
                            Value::Array(listed.clone())
                        );
                    }
                }
            }
        }
        let seat = prompt.awaiting[bot.index(prompt.awaiting.len())];
        let listed = Malacca::legal(&state, seat).expect("awaited");
        let action =
            serde_json::from_value(sample(&listed, &mut bot).expect("move")).expect("parses");
        let t = Malacca::apply(
            &state,
            seat,
            &action,
            &mut GameRng::from_key([step as u8; 32]),
        )
        .expect("apply");
        state = t.state;
        for p in &state.players {
            assert!(p.coins >= 0, "coins never go negative");
        }
        assert_eq!(
            equipment_total(&state),
            equipment,
            "equipment accounted for"
        );
        for r in &t.rounds {
            rounds_seen += 1;
            for s in &r.seats {
                let ledger: i64 = r
                    .ledger
                    .iter()
                    .filter(|l| l.seat == s.seat)
                    .map(|l| l.amount)
                    .sum();
                assert_eq!(
                    ledger, s.delta,
                    "round {}: the ledger explains seat {}",
                    r.round, s.seat
                );
                assert_eq!(
                    state.players[s.seat].coins - coins_at_round[s.seat],
                    s.delta,
                    "round {}: seat {}'s coins moved by its delta",
                    r.round,
                    s.seat
                );
            }
            coins_at_round = state.players.iter().map(|p| p.coins).collect();
            assert_eq!(
                specials_in_play(&state),
                specials,
                "special cards accounted for after a round"
            );
        }
    }
    panic!("the game did not end");
}

#[test]
fn random_games_of_every_size_keep_every_invariant_and_end() {
    for seats in 2..=8 {
        for (i, options) in [
            json!({}),
            json!({"stakes": "sealed"}),
            json!({"characters": true, "equipment": true}),
            json!({"characters": true, "equipment": true, "equipment_purchase": "captain_only", "stakes": "sealed"}),
        ]
        .into_iter()
        .enumerate()
        {
            random_game(seats, options, (seats * 10 + i) as u8);
        }
    }
}

#[test]
fn a_replay_from_the_same_seed_and_moves_is_exact() {
    let options = json!({"characters": true, "equipment": true});
    assert_eq!(
        random_game(5, options.clone(), 77),
        random_game(5, options, 77)
    );
}

#[test]
fn the_engine_source_uses_no_io_clock_or_framework() {
    for src in [
        include_str!("mod.rs"),
        include_str!("rules.rs"),
        include_str!("view.rs"),
        include_str!("position.rs"),
        include_str!("data.rs"),
    ] {
        for banned in [
            "actix",
            "sea_orm",
            "tokio",
            "chrono",
            "Utc::now",
            "thread_rng",
            "std::fs",
        ] {
            assert!(
                !src.contains(banned),
                "the Malacca engine mentions {banned}"
            );
        }
    }
}
