//! Every worked example of shared/rules/malacca.md §11, played through the engine
//! from a position (or a setup for example 15), with the figures the rules give.

use serde_json::{Value, json};

use super::{Malacca, State};
use crate::games::rng::GameRng;
use crate::games::{Game, Progress};

fn data() -> <Malacca as Game>::Data {
    let files: Vec<(&str, &str)> = Malacca::data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    Malacca::load_data(&files).expect("embedded data")
}

/// Plays `moves` in order from a position; each must be for the awaited seat.
fn play(options: Value, position: Value, moves: &[(usize, Value)]) -> State {
    let seats = position["players"].as_array().map_or(0, Vec::len);
    let options = serde_json::from_value(options).expect("options");
    let position = serde_json::from_value(position).expect("position");
    let mut state =
        Malacca::from_position(&data(), seats, &options, position).expect("a valid position");
    for (i, (seat, action)) in moves.iter().enumerate() {
        match Malacca::progress(&state) {
            Progress::Active(p) => assert!(
                p.awaiting.contains(seat),
                "move {i}: awaiting {:?}, not {seat}",
                p.awaiting
            ),
            Progress::Finished(_) => panic!("move {i}: the game is over"),
        }
        let action = serde_json::from_value(action.clone()).expect("action");
        Malacca::validate(&state, *seat, &action).expect("legal");
        let mut rng = GameRng::from_key([i as u8; 32]);
        state = Malacca::apply(&state, *seat, &action, &mut rng)
            .expect("apply")
            .state;
    }
    state
}

fn coins(s: &State) -> Vec<i64> {
    s.players.iter().map(|p| p.coins).collect()
}

fn specials(s: &State, seat: usize) -> Vec<String> {
    s.players[seat]
        .hand
        .iter()
        .map(|c| {
            serde_json::to_value(c)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default()
        })
        .filter(|c| !["attack", "defense", "trade"].contains(&c.as_str()))
        .collect()
}

fn deck(s: &State) -> Value {
    serde_json::to_value(&s.special_deck).expect("deck")
}

fn bet(card: &str, stake: i64) -> Value {
    json!({"type": "play", "card": card, "stake": stake})
}

fn choose(kind: &str) -> Value {
    json!({"type": "choose", "kind": kind})
}

fn pos(captain: usize, ship: i64, coins: &[i64], deck: Value, specials: &[&[&str]]) -> Value {
    let players: Vec<Value> = coins
        .iter()
        .enumerate()
        .map(|(i, c)| json!({"coins": c, "specials": specials.get(i).copied().unwrap_or(&[])}))
        .collect();
    json!({"round": 1, "captain": captain, "ships": [ship], "special_deck": deck, "players": players})
}

#[test]
fn example_1_all_trade_on_a_defended_ship() {
    let s = play(
        json!({}),
        pos(2, 9, &[5, 5, 5, 5], json!(["attack2"]), &[]),
        &[
            (2, bet("trade", 3)),
            (3, bet("trade", 5)),
            (0, bet("trade", 0)),
            (1, bet("trade", 1)),
        ],
    );
    assert_eq!(coins(&s), [5, 6, 8, 10]);
    assert_eq!(deck(&s), json!(["attack2"]), "nobody draws");
}

#[test]
fn example_2_capture_and_the_loot_remainder_when_the_captain_does_not_attack() {
    let s = play(
        json!({}),
        pos(3, 7, &[6, 8, 5, 4, 9], json!([]), &[]),
        &[
            (3, bet("trade", 4)),
            (4, bet("attack", 2)),
            (0, bet("trade", 3)),
            (1, bet("defense", 1)),
            (2, bet("attack", 0)),
        ],
    );
    assert_eq!(coins(&s), [3, 7, 12, 0, 17]);
}

#[test]
fn example_3_failed_attack_penalty_defenders_split_and_draw_in_order() {
    let s = play(
        json!({}),
        pos(
            1,
            12,
            &[9, 6, 14, 4],
            json!(["trade2", "wait_attack_defense"]),
            &[&["defense2"]],
        ),
        &[
            (1, bet("defense", 0)),
            (2, bet("attack", 3)),
            (3, bet("trade", 4)),
            (0, bet("defense2", 1)),
        ],
    );
    assert_eq!(coins(&s), [10, 8, 6, 8]);
    assert_eq!(specials(&s, 1), ["trade2"]);
    assert_eq!(specials(&s, 0), ["wait_attack_defense"]);
    assert_eq!(deck(&s), json!(["defense2"]));
}

#[test]
fn example_4_a_tie_is_a_defense_with_two_players() {
    let s = play(
        json!({}),
        pos(0, 10, &[5, 5], json!(["attack2"]), &[]),
        &[(0, bet("attack", 0)), (1, bet("defense", 2))],
    );
    assert_eq!(coins(&s), [3, 5]);
    assert_eq!(specials(&s, 1), ["attack2"]);
}

#[test]
fn example_5_tragic_hero() {
    let s = play(
        json!({}),
        pos(
            0,
            13,
            &[5, 7, 3, 6],
            json!(["trade2"]),
            &[&[], &["attack2"]],
        ),
        &[
            (0, bet("attack", 0)),
            (1, bet("attack2", 0)),
            (2, bet("defense", 3)),
            (3, bet("attack", 0)),
        ],
    );
    assert_eq!(coins(&s), [11, 12, 0, 11]);
    assert_eq!(specials(&s, 2), ["trade2"], "the tragic hero draws one");
    assert_eq!(deck(&s), json!(["attack2"]));
}

#[test]
fn example_6_useless_defense() {
    let s = play(
        json!({}),
        pos(1, 4, &[8, 3, 6], json!(["attack2"]), &[]),
        &[
            (1, bet("trade", 3)),
            (2, bet("defense", 2)),
            (0, bet("trade", 8)),
        ],
    );
    assert_eq!(coins(&s), [16, 6, 6]);
    assert!(specials(&s, 2).is_empty(), "no card for a useless defense");
}

#[test]
fn example_7_deck_scrubbing_also_with_trade2() {
    let s = play(
        json!({}),
        pos(2, 6, &[0, 0, 7], json!([]), &[&[], &["trade2"]]),
        &[
            (2, bet("defense", 0)),
            (0, bet("trade", 0)),
            (1, bet("trade2", 0)),
        ],
    );
    assert_eq!(coins(&s), [2, 2, 7]);
}

#[test]
fn example_8_trade2_and_attack2_on_a_defended_ship() {
    let s = play(
        json!({}),
        pos(
            3,
            8,
            &[10, 4, 6, 5],
            json!(["defense2", "trade2"]),
            &[&["trade2"], &["attack2"]],
        ),
        &[
            (3, bet("defense", 0)),
            (0, bet("trade2", 6)),
            (1, bet("attack2", 0)),
            (2, bet("defense", 0)),
        ],
    );
    assert_eq!(coins(&s), [22, 2, 6, 5]);
    assert_eq!(
        specials(&s, 3),
        ["defense2"],
        "the defenders draw from captain 3: seat 3 first"
    );
    assert_eq!(specials(&s, 2), ["trade2"]);
    assert_eq!(
        deck(&s),
        json!(["trade2", "attack2"]),
        "played cards return in captain order"
    );
}

#[test]
fn example_9_two_waiting_cards_decided_in_order() {
    let s = play(
        json!({}),
        pos(
            4,
            11,
            &[5, 5, 5, 5, 5],
            json!(["attack2", "trade2"]),
            &[&["wait_defense_trade"], &[], &["wait_attack_defense"]],
        ),
        &[
            (4, bet("attack", 1)),
            (0, bet("wait_defense_trade", 2)),
            (1, bet("trade", 3)),
            (2, bet("wait_attack_defense", 0)),
            (3, bet("defense", 0)),
            (0, choose("defense")),
            (2, choose("attack")),
        ],
    );
    assert_eq!(coins(&s), [6, 8, 3, 5, 2]);
    assert_eq!(specials(&s, 0), ["attack2"]);
    assert_eq!(specials(&s, 3), ["trade2"]);
    assert_eq!(
        deck(&s),
        json!(["wait_defense_trade", "wait_attack_defense"])
    );
}

#[test]
fn example_10_the_deck_runs_out_during_the_draws() {
    let s = play(
        json!({}),
        pos(1, 5, &[4, 4, 4], json!(["defense2"]), &[]),
        &[
            (1, bet("defense", 0)),
            (2, bet("attack", 0)),
            (0, bet("defense", 0)),
        ],
    );
    assert_eq!(coins(&s), [4, 4, 2]);
    assert_eq!(specials(&s, 1), ["defense2"]);
    assert!(specials(&s, 0).is_empty());
    assert_eq!(deck(&s), json!([]));
}

fn with_characters(mut position: Value, characters: &[&str]) -> Value {
    for (p, c) in position["players"]
        .as_array_mut()
        .expect("players")
        .iter_mut()
        .zip(characters)
    {
        p["character"] = json!(c);
    }
    position
}

#[test]
fn example_11_henry_ingrid_pierre_and_sayyida() {
    let position = with_characters(
        pos(
            0,
            9,
            &[7, 6, 3, 5],
            json!(["attack2", "trade2", "defense2"]),
            &[&[], &[], &[], &["wait_defense_trade"]],
        ),
        &[
            "henry_morgan",
            "ingrid_hammar",
            "pierre_le_picard",
            "sayyida_al_hurra",
        ],
    );
    let s = play(
        json!({"characters": true}),
        position,
        &[
            (0, bet("defense", 1)),
            (1, bet("attack", 2)),
            (2, bet("attack", 0)),
            (3, bet("wait_defense_trade", 0)),
            (3, choose("defense")),
            (3, json!({"type": "keep", "card": "defense2"})),
        ],
    );
    assert_eq!(coins(&s), [11, 2, 3, 6]);
    assert_eq!(specials(&s, 0), ["attack2"]);
    assert_eq!(specials(&s, 3), ["defense2"]);
    assert_eq!(deck(&s), json!(["trade2", "wait_defense_trade"]));
}

#[test]
fn example_12_zheng_he_with_a_zero_stake_and_black_caesar_on_all_trade() {
    let position = with_characters(
        pos(2, 6, &[3, 3, 9], json!([]), &[&["trade2"]]),
        &["black_caesar", "zheng_he", "rodrigo_orgonez"],
    );
    let s = play(
        json!({"characters": true}),
        position,
        &[
            (2, bet("trade", 9)),
            (0, bet("trade2", 3)),
            (1, bet("trade", 0)),
        ],
    );
    assert_eq!(coins(&s), [12, 6, 18]);
}

#[test]
fn example_13_black_caesar_on_all_attack_with_a_waiting_card_and_ingrid() {
    let position = with_characters(
        pos(
            1,
            10,
            &[3, 4, 5],
            json!([]),
            &[&["attack2"], &[], &["wait_attack_defense"]],
        ),
        &["black_caesar", "ingrid_hammar", "laskarina"],
    );
    let s = play(
        json!({"characters": true}),
        position,
        &[
            (1, bet("attack", 0)),
            (2, bet("wait_attack_defense", 0)),
            (0, bet("attack2", 1)),
            (2, choose("attack")),
        ],
    );
    assert_eq!(coins(&s), [9, 11, 8]);
}

#[test]
fn example_14_equipment_purchase_and_all_three_kinds() {
    let mut position = pos(1, 8, &[12, 7, 4], json!([]), &[]);
    position["equipment_supply"] =
        json!({"better_attack": 4, "better_defense": 4, "better_trade": 4});
    let s = play(
        json!({"equipment": true}),
        position,
        &[
            (1, json!({"type": "buy", "kind": "better_trade"})),
            (2, json!({"type": "pass"})),
            (0, json!({"type": "buy", "kind": "better_defense"})),
            (1, bet("trade", 2)),
            (2, bet("attack", 1)),
            (0, bet("defense", 0)),
        ],
    );
    assert_eq!(coins(&s), [12, 9, 2]);
}

#[test]
fn example_15_laskarina_and_starting_coins() {
    let options = serde_json::from_value(json!({
        "characters": true,
        "characters_by_seat": ["laskarina", "black_caesar", "pierre_le_picard", "rodrigo_orgonez"]
    }))
    .expect("options");
    let s = Malacca::setup(&data(), 4, &options, &mut GameRng::from_key([15; 32])).expect("setup");
    assert_eq!(coins(&s), [5, 4, 3, 9]);
    assert_eq!(
        specials(&s, 0).len(),
        1,
        "Laskarina draws one special card at setup"
    );
    assert_eq!(s.special_deck.len(), 15);
}

#[test]
fn example_16_a_two_player_tragic_hero() {
    let s = play(
        json!({}),
        pos(1, 9, &[4, 4], json!(["trade2"]), &[&[], &["attack2"]]),
        &[(1, bet("attack2", 0)), (0, bet("defense", 2))],
    );
    assert_eq!(coins(&s), [2, 15]);
    assert_eq!(specials(&s, 0), ["trade2"]);
    assert_eq!(deck(&s), json!(["attack2"]));
}

/// Rules §8.2 and example 14's note: two `better_attack` cards on a captured ship pay +6.
#[test]
fn better_attack_bonuses_stack_on_a_capture() {
    let mut position = pos(0, 5, &[5, 5], json!([]), &[]);
    position["players"][0]["equipment"] =
        json!({"better_attack": 2, "better_defense": 0, "better_trade": 0});
    position["equipment_supply"] =
        json!({"better_attack": 2, "better_defense": 4, "better_trade": 4});
    let s = play(
        json!({"equipment": true}),
        position,
        &[
            (0, json!({"type": "pass"})),
            (1, json!({"type": "pass"})),
            (0, bet("attack", 1)),
            (1, bet("trade", 2)),
        ],
    );
    // Seat 0: stake back, loot 5 + 2 = 7, and 2 × 3 from its equipment.
    assert_eq!(coins(&s), [5 + 7 + 6, 3]);
}

/// D26, `captain_only` (ET): only the round's captain is asked to buy.
#[test]
fn captain_only_purchase_asks_the_captain_alone() {
    let mut position = pos(1, 5, &[9, 9, 9], json!([]), &[]);
    position["equipment_supply"] =
        json!({"better_attack": 4, "better_defense": 4, "better_trade": 4});
    let s = play(
        json!({"equipment": true, "equipment_purchase": "captain_only"}),
        position,
        &[(1, json!({"type": "buy", "kind": "better_defense"}))],
    );
    match Malacca::progress(&s) {
        Progress::Active(p) => {
            assert_eq!(
                p.kind, "bet",
                "after the captain's purchase, betting starts"
            );
            assert_eq!(p.awaiting, [1]);
        }
        Progress::Finished(_) => panic!("the game is not over"),
    }
    assert_eq!(coins(&s), [9, 4, 9]);
}

/// D27: `better_trade` pays nothing on a zero stake; D21: Zheng He's bonus does.
#[test]
fn better_trade_needs_a_stake_but_zheng_he_does_not() {
    let mut position = with_characters(
        pos(0, 5, &[0, 5], json!([]), &[]),
        &["zheng_he", "rodrigo_orgonez"],
    );
    position["players"][0]["equipment"] =
        json!({"better_attack": 0, "better_defense": 0, "better_trade": 1});
    position["equipment_supply"] =
        json!({"better_attack": 4, "better_defense": 4, "better_trade": 3});
    let s = play(
        json!({"equipment": true, "characters": true}),
        position,
        &[
            (0, json!({"type": "pass"})),
            (1, json!({"type": "pass"})),
            (0, bet("trade", 0)),
            (1, bet("trade", 1)),
        ],
    );
    // Seat 0 had 0 coins: deck scrubbing 2 + Zheng He 3, no better_trade.
    assert_eq!(coins(&s), [5, 6]);
}

/// D37: a tragic-hero Sayyida draws two and keeps one.
#[test]
fn a_tragic_hero_sayyida_draws_two_and_keeps_one() {
    let position = with_characters(
        pos(0, 6, &[5, 5, 5], json!(["trade2", "defense2"]), &[]),
        &["ingrid_hammar", "rodrigo_orgonez", "sayyida_al_hurra"],
    );
    let s = play(
        json!({"characters": true}),
        position,
        &[
            (0, bet("attack", 0)),
            (1, bet("attack", 0)),
            (2, bet("defense", 1)),
            (2, json!({"type": "keep", "card": "trade2"})),
        ],
    );
    assert_eq!(specials(&s, 2), ["trade2"]);
    assert_eq!(deck(&s), json!(["defense2"]));
    // Loot 6 + 1 = 7 split 4/3 from captain 0; Ingrid +3.
    assert_eq!(coins(&s), [5 + 4 + 3, 5 + 3, 4]);
}
