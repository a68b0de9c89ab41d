//! Every game's legal moves and prompts match the types the API document gives them.

use serde_json::json;

use super::Game;
use super::cairo::Cairo;
use super::checks::{embedded_data, legal_is_typed};
use super::heretics::Heretics;
use super::kontor::Kontor;
use super::malacca::Malacca;

fn options<G: Game>(v: serde_json::Value) -> G::Options {
    serde_json::from_value(v).expect("options parse")
}

#[test]
fn malaccas_legal_moves_are_typed_in_every_betting_mode() {
    let data = embedded_data::<Malacca>();
    let mut templates = 0;
    for (seats, o) in [
        (2, json!({})),
        (
            4,
            json!({"stakes": "sealed", "equipment_purchase": "captain_only"}),
        ),
        (6, json!({"characters": false, "equipment": false})),
    ] {
        templates += legal_is_typed::<Malacca>(&data, seats, &options::<Malacca>(o), 3);
    }
    assert!(templates > 0);
}

#[test]
fn heretics_legal_moves_are_complete_actions() {
    let data = embedded_data::<Heretics>();
    for seats in [2, 3, 4] {
        let o = options::<Heretics>(json!({}));
        assert_eq!(legal_is_typed::<Heretics>(&data, seats, &o, 2), 0);
    }
}

#[test]
fn kontors_legal_moves_are_typed_in_every_variant() {
    let data = embedded_data::<Kontor>();
    let mut templates = 0;
    for (seats, o) in [
        (2, json!({})),
        (2, json!({"variant": "duel"})),
        (4, json!({"variant": "team"})),
    ] {
        templates += legal_is_typed::<Kontor>(&data, seats, &options::<Kontor>(o), 2);
    }
    assert!(templates > 0);
}

#[test]
fn cairos_legal_moves_are_typed_in_both_modes() {
    let data = embedded_data::<Cairo>();
    let mut templates = 0;
    for (seats, o) in [
        (2, json!({})),
        (3, json!({"mode": "simulated"})),
        (5, json!({"dice_source": "reported"})),
    ] {
        templates += legal_is_typed::<Cairo>(&data, seats, &options::<Cairo>(o), 1);
    }
    assert!(templates > 0);
}
