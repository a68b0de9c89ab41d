//! Every worked example of shared/rules/malacca.md §11, with the figures it gives.

use serde_json::{Value, json};

use super::test_support::*;
use super::*;
use crate::games::rng::GameRng;
use crate::games::{Audience, Game, Viewer, legal as legal_fmt};

// ----- §11 worked examples --------------------------------------------------------

#[test]
fn example_1_all_trade_is_a_defended_ship_and_traders_double_their_stakes() {
    let s = plain(&[5, 5, 5, 5], 2, &[9], &["attack2"], &[]);
    let out = run(
        &s,
        &[
            (2, bet("trade", 3)),
            (3, bet("trade", 5)),
            (0, bet("trade", 0)),
            (1, bet("trade", 1)),
        ],
    );
    assert_eq!(coins(&out.state), vec![5, 6, 8, 10]);
    let r = &out.rounds[0];
    assert_eq!(r.outcome, "defended");
    assert_eq!((r.total_a, r.total_b), (Some(0), Some(0)));
    assert!(r.seats.iter().all(|x| x.drew == 0));
    assert_eq!(out.state.special_deck, cards(&["attack2"]));
}

#[test]
fn example_2_loot_is_split_coin_by_coin_from_the_first_attacker_after_the_captain() {
    let s = plain(&[6, 8, 5, 4, 9], 3, &[7], &[], &[]);
    let out = run(
        &s,
        &[
            (3, bet("trade", 4)),
            (4, bet("attack", 2)),
            (0, bet("trade", 3)),
            (1, bet("defense", 1)),
            (2, bet("attack", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![3, 7, 12, 0, 17]);
    let r = &out.rounds[0];
    assert_eq!(r.outcome, "captured");
    assert_eq!((r.total_a, r.total_b), (Some(2), Some(1)));
    // Seat 4 gets 8 of the 15, seat 2 gets 7.
    assert_eq!(
        ledger_sum(r, 4, "loot_share") + ledger_sum(r, 4, "cargo"),
        8
    );
    assert_eq!(
        ledger_sum(r, 2, "loot_share") + ledger_sum(r, 2, "cargo"),
        7
    );
    assert_eq!(ledger_sum(r, 4, "stake_returned"), 2);
    // Not a tragic hero: nobody draws.
    assert!(r.seats.iter().all(|x| x.drew == 0));
}

#[test]
fn example_3_failed_attack_pays_half_of_what_is_left_and_defenders_draw_in_order() {
    let s = plain(
        &[9, 6, 14, 4],
        1,
        &[12],
        &["trade2", "wait_attack_defense", "attack2"],
        &[&["defense2"]],
    );
    let out = run(
        &s,
        &[
            (1, bet("defense", 0)),
            (2, bet("attack", 3)),
            (3, bet("trade", 4)),
            (0, bet("defense2", 1)),
        ],
    );
    let r = &out.rounds[0];
    assert_eq!((r.total_a, r.total_b), (Some(1), Some(3)));
    assert_eq!(r.outcome, "defended");
    assert_eq!(ledger_sum(r, 2, "caught_penalty"), -5);
    assert_eq!(ledger_sum(r, 1, "defense_share"), 2);
    assert_eq!(ledger_sum(r, 0, "defense_share"), 1);
    assert_eq!(coins(&out.state), vec![10, 8, 6, 8]);
    assert_eq!(specials(&out.state, 1), cards(&["trade2"]));
    assert_eq!(specials(&out.state, 0), cards(&["wait_attack_defense"]));
    assert_eq!(out.state.special_deck, cards(&["attack2", "defense2"]));
    // Who drew is public, what was drawn only for the drawer, in order from the captain.
    let drawn: Vec<(Audience, &str)> = out
        .events
        .iter()
        .filter(|e| e.kind.starts_with("special_drawn"))
        .map(|e| (e.audience, e.kind.as_str()))
        .collect();
    assert_eq!(
        drawn,
        vec![
            (Audience::Seat(1), "special_drawn"),
            (Audience::Public, "special_drawn_count"),
            (Audience::Seat(0), "special_drawn"),
            (Audience::Public, "special_drawn_count"),
        ]
    );
}

#[test]
fn example_4_a_tie_is_a_defense_with_two_players() {
    let s = plain(&[5, 5], 0, &[10], &["attack2"], &[]);
    let out = run(&s, &[(0, bet("attack", 0)), (1, bet("defense", 2))]);
    assert_eq!(coins(&out.state), vec![3, 5]);
    assert_eq!(out.rounds[0].outcome, "defended");
    assert_eq!(specials(&out.state, 1).len(), 1);
    assert_eq!(out.rounds[0].seats[1].drew, 1);
}

#[test]
fn example_5_tragic_hero_loses_the_stake_but_draws_one_card() {
    let s = plain(
        &[5, 7, 3, 6],
        0,
        &[13],
        &["defense2", "trade2"],
        &[&[], &["attack2"]],
    );
    let out = run(
        &s,
        &[
            (0, bet("attack", 0)),
            (1, bet("attack2", 0)),
            (2, bet("defense", 3)),
            (3, bet("attack", 0)),
        ],
    );
    let r = &out.rounds[0];
    assert_eq!((r.total_a, r.total_b), (Some(4), Some(1)));
    assert_eq!(coins(&out.state), vec![11, 12, 0, 11]);
    assert_eq!(r.seats[2].drew, 1);
    assert_eq!(r.seats[2].success, Some(false));
    assert_eq!(specials(&out.state, 2), cards(&["defense2"]));
    assert_eq!(out.state.special_deck, cards(&["trade2", "attack2"]));
}

#[test]
fn example_6_useless_defense_only_takes_the_stake_back() {
    let s = plain(&[8, 3, 6], 1, &[4], &["attack2"], &[]);
    let out = run(
        &s,
        &[
            (1, bet("trade", 3)),
            (2, bet("defense", 2)),
            (0, bet("trade", 8)),
        ],
    );
    assert_eq!(coins(&out.state), vec![16, 6, 6]);
    assert_eq!(out.rounds[0].seats[2].drew, 0);
    assert_eq!(out.rounds[0].seats[2].success, Some(false));
    assert_eq!(out.state.special_deck.len(), 1);
}

#[test]
fn example_7_deck_scrubbing_pays_a_flat_two_also_with_trade2() {
    let s = plain(&[0, 0, 7], 2, &[6], &[], &[&[], &["trade2"]]);
    let out = run(
        &s,
        &[
            (2, bet("defense", 0)),
            (0, bet("trade", 0)),
            (1, bet("trade2", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![2, 2, 7]);
    assert_eq!(ledger_sum(&out.rounds[0], 1, "deck_scrubbing"), 2);
}

#[test]
fn example_7_deck_scrubbing_needs_a_defended_ship_and_no_coins_at_all() {
    // Captured: the penniless traders get nothing.
    let s = plain(&[0, 0, 7], 2, &[6], &[], &[]);
    let out = run(
        &s,
        &[
            (2, bet("attack", 0)),
            (0, bet("trade", 0)),
            (1, bet("trade", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![0, 0, 13]);
    // Coins in hand but a zero stake: nothing.
    let s = plain(&[3, 0, 7], 2, &[6], &[], &[]);
    let out = run(
        &s,
        &[
            (2, bet("defense", 0)),
            (0, bet("trade", 0)),
            (1, bet("trade", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![3, 2, 7]);
}

#[test]
fn example_8_trade2_pays_twice_the_stake_and_played_specials_go_under_in_order() {
    let s = plain(
        &[10, 4, 6, 5],
        3,
        &[8],
        &["defense2", "wait_defense_trade"],
        &[&["trade2"], &["attack2"]],
    );
    let out = run(
        &s,
        &[
            (3, bet("defense", 0)),
            (0, bet("trade2", 6)),
            (1, bet("attack2", 0)),
            (2, bet("defense", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![22, 2, 6, 5]);
    assert_eq!(specials(&out.state, 3), cards(&["defense2"]));
    assert_eq!(specials(&out.state, 2), cards(&["wait_defense_trade"]));
    assert_eq!(out.state.special_deck, cards(&["trade2", "attack2"]));
}

#[test]
fn example_9_two_waiting_cards_are_decided_in_order_from_the_captain() {
    let s = plain(
        &[5, 5, 5, 5, 5],
        4,
        &[11],
        &["attack2", "defense2", "trade2"],
        &[&["wait_defense_trade"], &[], &["wait_attack_defense"]],
    );
    let s = run(
        &s,
        &[
            (4, bet("attack", 1)),
            (0, bet("wait_defense_trade", 2)),
            (1, bet("trade", 3)),
            (2, bet("wait_attack_defense", 0)),
            (3, bet("defense", 0)),
        ],
    )
    .state;
    let p = prompt(&s);
    assert_eq!(
        (p.kind.as_str(), p.awaiting.clone()),
        ("waiting_choice", vec![0])
    );
    assert_eq!(
        Malacca::legal(&s, 0),
        Some(vec![choose("defense"), choose("trade")])
    );
    let s = run(&s, &[(0, choose("defense"))]).state;
    assert_eq!(prompt(&s).awaiting, vec![2]);
    // Seat 2 sees seat 0's choice.
    assert_eq!(
        view_json(&s, Viewer::Seat(2))["players"][0]["choice"],
        json!("defense")
    );
    let out = run(&s, &[(2, choose("attack"))]);
    let r = &out.rounds[0];
    assert_eq!((r.total_a, r.total_b), (Some(2), Some(2)));
    assert_eq!(coins(&out.state), vec![6, 8, 3, 5, 2]);
    assert_eq!(r.seats[0].choice.as_deref(), Some("defense"));
    assert_eq!(r.seats[2].choice.as_deref(), Some("attack"));
    assert_eq!(r.seats[0].drew + r.seats[3].drew, 2);
    assert_eq!(specials(&out.state, 0), cards(&["attack2"]));
    assert_eq!(specials(&out.state, 3), cards(&["defense2"]));
    assert_eq!(
        out.state.special_deck,
        cards(&["trade2", "wait_defense_trade", "wait_attack_defense"])
    );
}

#[test]
fn example_10_an_empty_deck_gives_nothing() {
    let s = plain(&[4, 4, 4], 1, &[5], &["defense2"], &[]);
    let out = run(
        &s,
        &[
            (1, bet("defense", 0)),
            (2, bet("attack", 0)),
            (0, bet("defense", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![4, 4, 2]);
    assert_eq!(specials(&out.state, 1), cards(&["defense2"]));
    assert!(specials(&out.state, 0).is_empty());
    assert!(out.state.special_deck.is_empty());
    assert_eq!(out.rounds[0].seats[0].drew, 0);
}

#[test]
fn example_11_henry_ingrid_pierre_and_sayyida() {
    let s = with_chars(
        &[7, 6, 3, 5],
        &[
            "henry_morgan",
            "ingrid_hammar",
            "pierre_le_picard",
            "sayyida_al_hurra",
        ],
        0,
        &[9],
        &["attack2", "trade2", "defense2", "attack2"],
        &[&[], &[], &[], &["wait_defense_trade"]],
    );
    let s = run(
        &s,
        &[
            (0, bet("defense", 1)),
            (1, bet("attack", 2)),
            (2, bet("attack", 0)),
            (3, bet("wait_defense_trade", 0)),
            (3, choose("defense")),
        ],
    )
    .state;
    // Money is settled, seat 0 has drawn; Sayyida decides.
    let p = prompt(&s);
    assert_eq!(
        (p.kind.as_str(), p.awaiting.clone(), p.sealed),
        ("sayyida_keep", vec![3], false)
    );
    assert_eq!(specials(&s, 0), cards(&["attack2"]));
    assert_eq!(
        Malacca::legal(&s, 3),
        Some(vec![keep("trade2"), keep("defense2")])
    );
    let out = run(&s, &[(3, keep("defense2"))]);
    assert_eq!(coins(&out.state), vec![11, 2, 3, 6]);
    let r = &out.rounds[0];
    assert_eq!(ledger_sum(r, 0, "character_bonus"), 3);
    assert_eq!(ledger_sum(r, 1, "character_bonus"), 0);
    assert_eq!(ledger_sum(r, 2, "caught_penalty"), -1);
    assert_eq!(ledger_sum(r, 2, "character_bonus"), 1);
    assert_eq!(specials(&out.state, 3), cards(&["defense2"]));
    // trade2 went under at once, before the played waiting card at the end of the round.
    assert_eq!(
        out.state.special_deck,
        cards(&["attack2", "trade2", "wait_defense_trade"])
    );
}

#[test]
fn example_12_zheng_he_with_a_zero_stake_and_black_caesar_on_an_all_trade_round() {
    let s = with_chars(
        &[3, 3, 9],
        &["black_caesar", "zheng_he", "rodrigo_orgonez"],
        2,
        &[6],
        &[],
        &[&["trade2"]],
    );
    let out = run(
        &s,
        &[
            (2, bet("trade", 9)),
            (0, bet("trade2", 3)),
            (1, bet("trade", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![12, 6, 18]);
    let r = &out.rounds[0];
    assert_eq!(ledger_sum(r, 0, "character_bonus"), 3);
    assert_eq!(ledger_sum(r, 1, "character_bonus"), 3);
    assert_eq!(ledger_sum(r, 2, "character_bonus"), 0);
}

#[test]
fn example_13_black_caesar_on_an_all_attack_round_with_a_waiting_card_and_ingrid() {
    let s = with_chars(
        &[3, 4, 5],
        &["black_caesar", "ingrid_hammar", "laskarina"],
        1,
        &[10],
        &[],
        &[&["attack2"], &[], &["wait_attack_defense"]],
    );
    let out = run(
        &s,
        &[
            (1, bet("attack", 0)),
            (2, bet("wait_attack_defense", 0)),
            (0, bet("attack2", 1)),
            (2, choose("attack")),
        ],
    );
    let r = &out.rounds[0];
    assert_eq!((r.total_a, r.total_b), (Some(4), Some(0)));
    assert_eq!(coins(&out.state), vec![9, 11, 8]);
    assert_eq!(ledger_sum(r, 0, "character_bonus"), 3);
    assert_eq!(ledger_sum(r, 1, "character_bonus"), 3);
}

#[test]
fn example_14_equipment_purchase_and_all_three_kinds_of_equipment() {
    let s = equipment_position("each_player", &[12, 7, 4], 1, &[8]);
    let p = prompt(&s);
    assert_eq!(
        (p.kind.as_str(), p.awaiting.clone()),
        ("equipment_purchase", vec![1])
    );
    assert_eq!(view_json(&s, Viewer::Spectator)["ship_value"], Value::Null);
    let s = run(&s, &[(1, buy("better_trade"))]).state;
    // Seat 2 cannot afford anything: it may only pass.
    assert_eq!(Malacca::legal(&s, 2), Some(vec![pass()]));
    let s = run(&s, &[(2, pass()), (0, buy("better_defense"))]).state;
    assert_eq!(
        s.equipment_supply,
        EquipmentCounts {
            better_attack: 4,
            better_defense: 3,
            better_trade: 3
        }
    );
    assert_eq!(coins(&s), vec![7, 2, 4]);
    assert_eq!(s.ship_value, Some(8));
    let out = run(
        &s,
        &[
            (1, bet("trade", 2)),
            (2, bet("attack", 1)),
            (0, bet("defense", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![12, 9, 2]);
    let r = &out.rounds[0];
    assert_eq!(ledger_sum(r, 0, "equipment_bonus"), 4);
    assert_eq!(ledger_sum(r, 1, "equipment_bonus"), 5);
    assert_eq!(ledger_sum(r, 0, "equipment_purchase"), -5);
    assert_eq!(r.seats[0].delta, 0);
    assert_eq!(r.seats[1].delta, 2);
    assert_eq!(r.seats[0].drew, 1);
}

#[test]
fn example_14_under_captain_only_only_the_captain_may_buy() {
    let s = equipment_position("captain_only", &[12, 7, 4], 1, &[8]);
    assert_eq!(prompt(&s).awaiting, vec![1]);
    let s = run(&s, &[(1, buy("better_trade"))]).state;
    assert_eq!(prompt(&s).kind, "bet");
    assert_eq!(Malacca::legal(&s, 0), None);
    assert_eq!(coins(&s), vec![12, 2, 4]);
}

#[test]
fn example_14_stacking_two_better_attack_pays_six_and_better_trade_needs_a_stake() {
    let s = start(
        json!({"equipment": true}),
        json!({"round": 1, "captain": 0, "ships": [5], "players": [
            {"coins": 5, "equipment": {"better_attack": 2, "better_trade": 1}},
            {"coins": 5, "equipment": {"better_trade": 1}}]}),
    );
    let out = run(
        &s,
        &[
            (0, pass()),
            (1, pass()),
            (0, bet("attack", 0)),
            (1, bet("trade", 2)),
        ],
    );
    assert_eq!(ledger_sum(&out.rounds[0], 0, "equipment_bonus"), 6);
    assert_eq!(coins(&out.state), vec![5 + 7 + 6, 3]);
    // Stake 0 on a defended trade: no +5.
    let out = run(
        &s,
        &[
            (0, pass()),
            (1, pass()),
            (0, bet("trade", 0)),
            (1, bet("trade", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![5, 5]);
    let out = run(
        &s,
        &[
            (0, pass()),
            (1, pass()),
            (0, bet("trade", 1)),
            (1, bet("trade", 0)),
        ],
    );
    assert_eq!(coins(&out.state), vec![5 + 1 + 5, 5]);
}

#[test]
fn example_15_laskarina_and_the_starting_coins() {
    let seed = [15u8; 32];
    let options = opts(json!({
        "characters": true, "stakes": "sealed", "ships": [5, 6],
        "characters_by_seat": ["laskarina", "black_caesar", "pierre_le_picard", "rodrigo_orgonez"]
    }));
    let s = Malacca::setup(&data(), 4, &options, &mut GameRng::for_setup(&seed)).expect("setup");
    assert_eq!(coins(&s), vec![5, 4, 3, 9]);
    // Her card is the top card of the shuffled special deck (no ship shuffle: the
    // ships were given; no character shuffle: they were given).
    let mut deck: Vec<Card> = data()
        .rules
        .special_cards
        .iter()
        .flat_map(|c| std::iter::repeat_n(c.id, c.count as usize))
        .collect();
    GameRng::for_setup(&seed).shuffle(&mut deck);
    assert_eq!(specials(&s, 0), vec![deck[0]]);
    assert_eq!(s.special_deck, deck[1..].to_vec());
    for seat in 1..4 {
        assert!(specials(&s, seat).is_empty());
    }
    // She may play it in round 1.
    let legal = Malacca::legal(&s, 0).expect("seat 0 bets");
    assert!(legal_fmt::is_listed(
        &legal,
        &json!({"type":"play","card": deck[0], "stake": 0})
    ));
    // Her hand is private; others see only the count.
    assert_eq!(
        view_json(&s, Viewer::Seat(1))["players"][0]["special_count"],
        1
    );
    assert_eq!(
        view_json(&s, Viewer::Seat(1))["hand"],
        json!(["attack", "defense", "trade"])
    );
}

#[test]
fn example_16_two_player_tragic_hero() {
    let s = plain(&[4, 4], 1, &[9], &["trade2"], &[&[], &["attack2"]]);
    let out = run(&s, &[(1, bet("attack2", 0)), (0, bet("defense", 2))]);
    assert_eq!(coins(&out.state), vec![2, 15]);
    assert_eq!(out.rounds[0].seats[0].drew, 1);
    assert_eq!(specials(&out.state, 0), cards(&["trade2"]));
    assert_eq!(out.state.special_deck, cards(&["attack2"]));
}
