//! Unit tests: every ability, equipment kind and option, positions, null moves,
//! decisions the spec leaves open, data and purity. The worked examples are in
//! examples.rs, the random games in properties.rs.

use serde_json::{Value, json};

use super::rules::State;
use super::test_support::*;
use super::*;
use crate::games::rng::GameRng;
use crate::games::{Audience, Game, Progress, Viewer};

// ----- characters -----------------------------------------------------------------

#[test]
fn henry_morgan_gets_nothing_on_a_useless_defense_or_as_a_tragic_hero() {
    let chars = ["henry_morgan", "rodrigo_orgonez", "zheng_he"];
    let s = with_chars(&[5, 5, 5], &chars, 0, &[5], &["attack2"], &[]);
    let out = run(
        &s,
        &[
            (0, bet("defense", 1)),
            (1, bet("trade", 0)),
            (2, bet("trade", 0)),
        ],
    );
    assert_eq!(ledger_sum(&out.rounds[0], 0, "character_bonus"), 0);
    assert_eq!(out.state.players[0].coins, 5);
    let out = run(
        &s,
        &[
            (0, bet("defense", 1)),
            (1, bet("attack", 0)),
            (2, bet("attack", 0)),
        ],
    );
    assert_eq!(ledger_sum(&out.rounds[0], 0, "character_bonus"), 0);
    assert_eq!(out.rounds[0].seats[0].drew, 1);
    assert_eq!(out.state.players[0].coins, 4);
}

#[test]
fn henry_morgan_counts_defense2_and_a_waiting_card_resolved_as_defense() {
    let chars = ["henry_morgan", "rodrigo_orgonez"];
    for (card, wait) in [("defense2", None), ("wait_attack_defense", Some("defense"))] {
        let s = with_chars(&[5, 5], &chars, 0, &[5], &[], &[&[card]]);
        let mut moves = vec![(0, bet(card, 0)), (1, bet("attack", 0))];
        if let Some(k) = wait {
            moves.push((0, choose(k)));
        }
        let out = run(&s, &moves);
        assert_eq!(
            ledger_sum(&out.rounds[0], 0, "character_bonus"),
            3,
            "{card}"
        );
    }
}

#[test]
fn pierre_le_picard_gets_one_coin_every_round_including_the_last() {
    let chars = ["pierre_le_picard", "rodrigo_orgonez"];
    let s = with_chars(&[3, 9], &chars, 0, &[4, 4], &[], &[]);
    let out = run(
        &s,
        &[
            (0, bet("trade", 0)),
            (1, bet("trade", 0)),
            (1, bet("defense", 0)),
            (0, bet("attack", 0)),
        ],
    );
    assert_eq!(out.rounds.len(), 2);
    for r in &out.rounds {
        assert_eq!(ledger_sum(r, 0, "character_bonus"), 1);
    }
    // Round 2: caught with 3 coins, pays 1, then +1.
    assert_eq!(coins(&out.state), vec![3, 9]);
    assert!(matches!(
        Malacca::progress(&out.state),
        Progress::Finished(_)
    ));
}

#[test]
fn rodrigo_orgonez_starts_with_nine_coins_and_has_no_ability() {
    let options = opts(json!({"characters": true, "ships": [5],
        "characters_by_seat": ["rodrigo_orgonez", "ingrid_hammar"]}));
    let s = Malacca::setup(&data(), 2, &options, &mut GameRng::from_key([1; 32]))
        .expect("as the test sets up");
    assert_eq!(coins(&s), vec![9, 4]);
    let c = s.captain;
    let out = run(&s, &[(c, bet("attack", 0)), (1 - c, bet("attack", 0))]);
    assert_eq!(ledger_sum(&out.rounds[0], 0, "character_bonus"), 0);
}

#[test]
fn black_caesar_gets_n_on_an_all_defense_round_and_nothing_on_mixed_kinds() {
    let chars = [
        "black_caesar",
        "rodrigo_orgonez",
        "zheng_he",
        "henry_morgan",
    ];
    let s = with_chars(&[4, 9, 3, 5], &chars, 0, &[5], &["attack2"], &[]);
    let all_def = run(
        &s,
        &[
            (0, bet("defense", 0)),
            (1, bet("defense", 1)),
            (2, bet("defense", 0)),
            (3, bet("defense", 0)),
        ],
    );
    assert_eq!(ledger_sum(&all_def.rounds[0], 0, "character_bonus"), 4);
    assert_eq!(coins(&all_def.state), vec![8, 9, 3, 5]);
    let mixed = run(
        &s,
        &[
            (0, bet("defense", 0)),
            (1, bet("defense", 0)),
            (2, bet("trade", 0)),
            (3, bet("defense", 0)),
        ],
    );
    assert_eq!(ledger_sum(&mixed.rounds[0], 0, "character_bonus"), 0);
}

#[test]
fn zheng_he_with_no_coins_gets_deck_scrubbing_and_his_bonus_but_nothing_when_captured() {
    let chars = ["zheng_he", "rodrigo_orgonez"];
    let s = with_chars(&[0, 9], &chars, 0, &[5], &[], &[]);
    let out = run(&s, &[(0, bet("trade", 0)), (1, bet("trade", 0))]);
    assert_eq!(out.state.players[0].coins, 5);
    let out = run(&s, &[(0, bet("trade", 0)), (1, bet("attack", 0))]);
    assert_eq!(out.state.players[0].coins, 0);
    assert_eq!(ledger_sum(&out.rounds[0], 0, "character_bonus"), 0);
}

fn sayyida_defends(deck: &[&str], chars: [&str; 3]) -> State {
    // Seats 0 and 1 defend, seat 2 attacks: both defenders draw, seat 0 first.
    let s = with_chars(&[5, 5, 5], &chars, 0, &[5], deck, &[]);
    run(
        &s,
        &[
            (0, bet("defense", 0)),
            (1, bet("defense", 0)),
            (2, bet("attack", 0)),
        ],
    )
    .state
}

#[test]
fn sayyida_returns_the_other_card_to_the_bottom_before_the_next_drawer() {
    let s = sayyida_defends(
        &["trade2", "attack2"],
        ["sayyida_al_hurra", "henry_morgan", "rodrigo_orgonez"],
    );
    assert_eq!(prompt(&s).kind, "sayyida_keep");
    assert_eq!(s.special_deck.len(), 0);
    let out = run(&s, &[(0, keep("attack2"))]);
    // trade2 went under at once, so seat 1 draws it.
    assert_eq!(specials(&out.state, 0), cards(&["attack2"]));
    assert_eq!(specials(&out.state, 1), cards(&["trade2"]));
    assert!(out.state.special_deck.is_empty());
}

#[test]
fn sayyida_takes_the_last_card_without_a_choice_and_gets_nothing_from_an_empty_deck() {
    let chars = ["sayyida_al_hurra", "henry_morgan", "rodrigo_orgonez"];
    let s = sayyida_defends(&["trade2"], chars);
    assert_eq!(specials(&s, 0), cards(&["trade2"]));
    assert!(specials(&s, 1).is_empty());
    assert!(matches!(Malacca::progress(&s), Progress::Finished(_)));
    let chars = ["henry_morgan", "sayyida_al_hurra", "rodrigo_orgonez"];
    let s = sayyida_defends(&["trade2"], chars);
    assert_eq!(specials(&s, 0), cards(&["trade2"]));
    assert!(specials(&s, 1).is_empty());
    assert_eq!(s.history[0].seats[1].drew, 0);
}

#[test]
fn a_tragic_hero_sayyida_draws_two_and_keeps_one() {
    let chars = ["sayyida_al_hurra", "henry_morgan", "rodrigo_orgonez"];
    let s = with_chars(
        &[5, 5, 5],
        &chars,
        0,
        &[5],
        &["trade2", "defense2", "attack2"],
        &[],
    );
    let s = run(
        &s,
        &[
            (0, bet("defense", 2)),
            (1, bet("attack", 0)),
            (2, bet("attack", 0)),
        ],
    )
    .state;
    assert_eq!(
        Malacca::legal(&s, 0),
        Some(vec![keep("trade2"), keep("defense2")])
    );
    let out = run(&s, &[(0, keep("trade2"))]);
    assert_eq!(specials(&out.state, 0), cards(&["trade2"]));
    assert_eq!(out.state.special_deck, cards(&["attack2", "defense2"]));
    assert_eq!(out.rounds[0].seats[0].drew, 1);
}

#[test]
fn sayyidas_choice_is_seen_by_nobody_else() {
    let s = sayyida_defends(
        &["trade2", "attack2", "defense2"],
        ["rodrigo_orgonez", "sayyida_al_hurra", "henry_morgan"],
    );
    let p = prompt(&s);
    assert_eq!((p.kind.as_str(), p.awaiting), ("sayyida_keep", vec![1]));
    let mine = view_json(&s, Viewer::Seat(1));
    assert_eq!(mine["pending_keep"], json!(["attack2", "defense2"]));
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let v = view_json(&s, viewer);
        assert_eq!(v["pending_keep"], Value::Null);
        let text = v.to_string();
        assert!(
            !text.contains("attack2") && !text.contains("defense2"),
            "{text}"
        );
    }
    assert_eq!(Malacca::legal(&s, 0), None);
    assert_eq!(Malacca::legal(&s, 2), None);
    // The round's result and the revealed cards are public meanwhile.
    let v = view_json(&s, Viewer::Spectator);
    assert_eq!(v["result"]["outcome"], "defended");
    assert_eq!(v["players"][2]["card"], "attack");
    assert_eq!(v["players"][1]["kind"], "defense");
    assert_eq!(
        Malacca::null_move(&s, 1),
        Some(Action::Keep {
            card: Card::Attack2
        })
    );
    let t = step(&s, 1, keep("defense2"));
    for e in &t.events {
        if e.data.to_string().contains("defense2") || e.data.to_string().contains("attack2") {
            assert_eq!(e.audience, Audience::Seat(1), "{e:?}");
        }
    }
    assert_eq!(
        Malacca::public_part(
            &s,
            1,
            &Action::Keep {
                card: Card::Defense2
            }
        ),
        Some(json!({"type": "keep"}))
    );
}

#[test]
fn laskarina_in_a_position_draws_nothing() {
    let s = with_chars(
        &[5, 5],
        &["laskarina", "rodrigo_orgonez"],
        0,
        &[5],
        &["attack2"],
        &[],
    );
    assert!(specials(&s, 0).is_empty());
    assert_eq!(s.special_deck.len(), 1);
}

#[test]
fn ingrid_gets_her_bonus_even_with_a_loot_share_of_zero() {
    let chars = ["ingrid_hammar", "rodrigo_orgonez", "zheng_he"];
    let s = with_chars(&[4, 9, 3], &chars, 1, &[0], &[], &[]);
    let out = run(
        &s,
        &[
            (1, bet("attack", 0)),
            (2, bet("trade", 0)),
            (0, bet("attack", 0)),
        ],
    );
    // Pool 0: nobody gets loot; Ingrid still gets +3.
    assert_eq!(coins(&out.state), vec![7, 9, 3]);
}

// ----- equipment ------------------------------------------------------------------

#[test]
fn better_defense_pays_four_per_card_but_not_on_a_useless_defense() {
    let s = start(
        json!({"equipment": true}),
        json!({"round": 1, "captain": 0, "ships": [5], "players": [
            {"coins": 5, "equipment": {"better_defense": 2}}, {"coins": 5}, {"coins": 5}]}),
    );
    let pre = [(0, pass()), (1, pass()), (2, pass())];
    let mut moves = pre.to_vec();
    moves.extend([
        (0, bet("defense", 0)),
        (1, bet("attack", 0)),
        (2, bet("trade", 0)),
    ]);
    let out = run(&s, &moves);
    assert_eq!(ledger_sum(&out.rounds[0], 0, "equipment_bonus"), 8);
    let mut moves = pre.to_vec();
    moves.extend([
        (0, bet("defense", 0)),
        (1, bet("trade", 0)),
        (2, bet("trade", 0)),
    ]);
    let out = run(&s, &moves);
    assert_eq!(ledger_sum(&out.rounds[0], 0, "equipment_bonus"), 0);
}

#[test]
fn a_kind_that_has_run_out_cannot_be_bought() {
    let s = start(
        json!({"equipment": true}),
        json!({"round": 1, "captain": 0, "ships": [5],
               "equipment_supply": {"better_attack": 0, "better_defense": 1, "better_trade": 0},
               "players": [{"coins": 9, "equipment": {"better_attack": 4}}, {"coins": 5}]}),
    );
    assert_eq!(
        Malacca::legal(&s, 0),
        Some(vec![pass(), buy("better_defense")])
    );
    let a: Action = serde_json::from_value(buy("better_attack")).expect("as the test sets up");
    let e = Malacca::validate(&s, 0, &a).expect_err("must be refused");
    assert!(e.message.contains("run out"), "{}", e.message);
    let s = run(&s, &[(0, buy("better_defense"))]).state;
    // Seat 1 has 5 coins but the supply is empty.
    assert_eq!(Malacca::legal(&s, 1), Some(vec![pass()]));
}

#[test]
fn each_player_buys_at_most_one_card_per_round_and_deck_scrubbing_follows_a_purchase() {
    let s = equipment_position("each_player", &[5, 10], 0, &[4, 4]);
    let s = run(&s, &[(0, buy("better_attack"))]).state;
    // Seat 0 had its turn: it owes nothing more this round.
    assert_eq!(Malacca::legal(&s, 0), None);
    let s = run(
        &s,
        &[
            (1, buy("better_attack")),
            (0, bet("trade", 0)),
            (1, bet("trade", 0)),
        ],
    );
    // Seat 0 had 0 coins when betting, after the purchase: deck scrubbing (D11).
    assert_eq!(coins(&s.state), vec![2, 5]);
    assert_eq!(s.rounds[0].seats[0].delta, -3);
    // Round 2 begins with a new purchase step from the new captain.
    assert_eq!(prompt(&s.state).kind, "equipment_purchase");
    assert_eq!(prompt(&s.state).awaiting, vec![1]);
}

#[test]
fn without_the_equipment_option_there_is_no_purchase_step() {
    let s = plain(&[5, 5], 0, &[5], &[], &[]);
    assert_eq!(prompt(&s).kind, "bet");
    assert_eq!(s.equipment_supply, EquipmentCounts::default());
    assert_eq!(view_json(&s, Viewer::Spectator)["ship_value"], 5);
}

// ----- options --------------------------------------------------------------------

#[test]
fn the_options_default_to_the_base_game() {
    let info = Malacca::info();
    assert_eq!(
        info.options,
        json!({"characters": false, "equipment": false, "equipment_purchase": "each_player",
               "stakes": "open_sequential", "ships": null, "characters_by_seat": null})
    );
    assert_eq!(info.seats, vec![2, 3, 4, 5, 6, 7, 8]);
    assert!(serde_json::from_value::<MalaccaOptions>(json!({"bank_limit": 440})).is_err());
}

#[test]
fn the_ships_option_is_used_top_first_and_sets_the_number_of_rounds() {
    let options = opts(json!({"ships": [7, 3, 11]}));
    let mut s = Malacca::setup(&data(), 3, &options, &mut GameRng::from_key([2; 32]))
        .expect("as the test sets up");
    assert_eq!(s.ship_value, Some(7));
    assert_eq!(s.rounds_total, 3);
    let mut seen = vec![];
    let mut rounds = 0;
    while let Progress::Active(p) = Malacca::progress(&s) {
        if !seen.contains(&s.ship_value) {
            seen.push(s.ship_value);
        }
        let seat = p.awaiting[0];
        let a = Malacca::null_move(&s, seat).expect("as the test sets up");
        let t = Malacca::apply(&s, seat, &a, &mut GameRng::from_key([0; 32]))
            .expect("as the test sets up");
        rounds += t.rounds.len();
        s = t.state;
    }
    assert_eq!(seen, vec![Some(7), Some(3), Some(11)]);
    assert_eq!(rounds, 3);
    assert_eq!(s.ships_revealed, vec![7, 3, 11]);
}

#[test]
fn bad_options_are_rejected_with_a_reason() {
    let d = data();
    let mut rng = GameRng::from_key([0; 32]);
    let cases = [
        (json!({"ships": []}), 3),
        (json!({"ships": [-1]}), 3),
        (json!({"ships": vec![5; 51]}), 3),
        (json!({"characters_by_seat": ["laskarina", "zheng_he"]}), 2),
        (
            json!({"characters": true, "characters_by_seat": ["laskarina"]}),
            2,
        ),
        (
            json!({"characters": true, "characters_by_seat": ["laskarina", "laskarina"]}),
            2,
        ),
        (json!({}), 1),
        (json!({}), 9),
    ];
    for (o, seats) in cases {
        let e = Malacca::setup(&d, seats, &opts(o.clone()), &mut rng).expect_err("must be refused");
        assert_eq!(e.code, "invalid_options", "{o}");
    }
}

#[test]
fn open_betting_shows_each_stake_at_once_but_never_the_card() {
    let s = plain(&[5, 5, 5], 0, &[5], &[], &[&["trade2"]]);
    let t = step(&s, 0, bet("trade2", 3));
    assert!(t.completes_step && !t.reveal);
    assert_eq!(t.events.len(), 1);
    assert_eq!(t.events[0].kind, "stake_placed");
    assert_eq!(t.events[0].data, json!({"round": 1, "seat": 0, "stake": 3}));
    let s2 = t.state;
    for viewer in [Viewer::Seat(1), Viewer::Seat(2), Viewer::Spectator] {
        let v = view_json(&s2, viewer);
        assert_eq!(v["players"][0]["coins"], 2);
        assert_eq!(v["players"][0]["stake"], 3);
        assert_eq!(v["players"][0]["has_played"], true);
        assert_eq!(v["players"][0]["card"], Value::Null);
        assert_eq!(v["players"][0]["special_count"], 1);
        assert_eq!(v["my_play"], Value::Null);
        assert!(!v.to_string().contains("trade2"));
    }
    let own = view_json(&s2, Viewer::Seat(0));
    assert_eq!(own["my_play"], json!({"card": "trade2", "stake": 3}));
    assert_eq!(own["players"][0]["special_count"], 0);
    assert_eq!(own["hand"], json!(["attack", "defense", "trade"]));
    assert_eq!(
        Malacca::public_part(
            &s,
            0,
            &Action::Play {
                card: Card::Trade2,
                stake: 3
            }
        ),
        Some(json!({"type": "play", "stake": 3}))
    );
    // Out of turn.
    let a = Action::Play {
        card: Card::Attack,
        stake: 0,
    };
    assert!(
        Malacca::validate(&s2, 2, &a)
            .expect_err("must be refused")
            .message
            .contains("not your turn")
    );
    // The last bet reveals.
    let t = step(&s2, 1, bet("attack", 0));
    assert!(t.completes_step && !t.reveal);
    let t = step(&t.state, 2, bet("defense", 0));
    assert!(t.completes_step && t.reveal);
    let revealed = t
        .events
        .iter()
        .find(|e| e.kind == "cards_revealed")
        .expect("as the test sets up");
    assert_eq!(
        revealed.data["plays"][0],
        json!({"seat": 0, "card": "trade2", "stake": 3})
    );
}

#[test]
fn sealed_stakes_hide_stake_and_balance_until_the_last_seat_submits() {
    let s = start(
        json!({"stakes": "sealed"}),
        json!({"round": 1, "captain": 0, "ships": [6], "players": [
            {"coins": 5}, {"coins": 5, "specials": ["attack2"]}, {"coins": 5}]}),
    );
    let p = prompt(&s);
    assert!(p.sealed);
    assert_eq!(p.awaiting, vec![0, 1, 2]);
    // Any order: seat 1 first.
    let t = step(&s, 1, bet("attack2", 4));
    assert!(!t.completes_step && !t.reveal);
    assert_eq!(t.events[0].kind, "card_placed");
    assert_eq!(t.events[0].data, json!({"round": 1, "seat": 1}));
    let s1 = t.state;
    assert_eq!(prompt(&s1).awaiting, vec![0, 2]);
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let v = view_json(&s1, viewer);
        assert_eq!(v["players"][1]["coins"], 5);
        assert_eq!(v["players"][1]["stake"], Value::Null);
        assert_eq!(v["players"][1]["has_played"], true);
        assert_eq!(v["players"][1]["special_count"], 1);
        assert_eq!(v["ranking"][1]["coins"], 5);
        assert!(!v.to_string().contains("attack2"));
    }
    let own = view_json(&s1, Viewer::Seat(1));
    assert_eq!(own["players"][1]["coins"], 1);
    assert_eq!(own["players"][1]["stake"], 4);
    assert_eq!(
        Malacca::public_part(
            &s,
            1,
            &Action::Play {
                card: Card::Attack2,
                stake: 4
            }
        ),
        Some(json!({"type": "play"}))
    );
    assert!(
        Malacca::validate(
            &s1,
            1,
            &Action::Play {
                card: Card::Attack,
                stake: 0
            }
        )
        .is_err()
    );
    let t = step(&s1, 2, bet("defense", 1));
    assert!(!t.completes_step);
    let t = step(&t.state, 0, bet("trade", 2));
    assert!(t.completes_step && t.reveal);
    assert_eq!(t.rounds.len(), 1);
    // A = 2, D = 1: captured; seat 1 takes 6 + 1 + 2.
    assert_eq!(coins(&t.state), vec![3, 14, 4]);
}

// ----- null moves -----------------------------------------------------------------

#[test]
fn null_moves_are_pass_trade_with_no_stake_defense_and_the_first_card() {
    let s = equipment_position("each_player", &[12, 7], 0, &[8]);
    assert_eq!(Malacca::null_move(&s, 0), Some(Action::Pass {}));
    assert_eq!(Malacca::null_move(&s, 1), None);
    let s = run(&s, &[(0, pass()), (1, pass())]).state;
    assert_eq!(
        Malacca::null_move(&s, 0),
        Some(Action::Play {
            card: Card::Trade,
            stake: 0
        })
    );
    let s = plain(
        &[5, 5],
        0,
        &[5],
        &[],
        &[&["wait_attack_defense"], &["wait_defense_trade"]],
    );
    let s = run(
        &s,
        &[
            (0, bet("wait_attack_defense", 0)),
            (1, bet("wait_defense_trade", 0)),
        ],
    )
    .state;
    assert_eq!(
        Malacca::null_move(&s, 0),
        Some(Action::Choose {
            kind: Kind::Defense
        })
    );
    let s = run(&s, &[(0, choose("defense"))]).state;
    assert_eq!(
        Malacca::null_move(&s, 1),
        Some(Action::Choose {
            kind: Kind::Defense
        })
    );
}

// ----- positions ------------------------------------------------------------------

#[test]
fn a_position_starts_at_its_round_and_plays_one_round_per_ship() {
    let s = start(
        json!({}),
        json!({"round": 11, "captain": 1, "ships": [4, 9], "players": [{"coins": 2}, {"coins": 3}]}),
    );
    assert_eq!((s.round, s.rounds_total, s.captain), (11, 12, 1));
    let out = run(
        &s,
        &[
            (1, bet("trade", 0)),
            (0, bet("trade", 0)),
            (0, bet("trade", 0)),
            (1, bet("trade", 0)),
        ],
    );
    assert_eq!(
        out.rounds.iter().map(|r| r.round).collect::<Vec<_>>(),
        vec![11, 12]
    );
    assert_eq!(out.rounds[1].lead_seat, Some(0));
    assert!(matches!(
        Malacca::progress(&out.state),
        Progress::Finished(_)
    ));
}

#[test]
fn bad_positions_are_rejected_one_problem_at_a_time() {
    let two = |p0: Value| json!([p0, {"coins": 5}]);
    let base = |players: Value| json!({"round": 1, "captain": 0, "ships": [5], "special_deck": [], "players": players});
    let mut cases: Vec<(Value, Value, &str)> = vec![
        (
            json!({}),
            json!({"round": 0, "captain": 0, "ships": [5], "players": two(json!({"coins": 5}))}),
            "round",
        ),
        (
            json!({}),
            json!({"round": 1, "captain": 2, "ships": [5], "players": two(json!({"coins": 5}))}),
            "captain",
        ),
        (
            json!({}),
            json!({"round": 1, "captain": 0, "ships": [], "players": two(json!({"coins": 5}))}),
            "ships",
        ),
        (
            json!({}),
            json!({"round": 1, "captain": 0, "ships": [-2], "players": two(json!({"coins": 5}))}),
            "value",
        ),
        (json!({}), base(two(json!({"coins": -1}))), "coins"),
        (
            json!({}),
            base(two(json!({"coins": 5, "specials": ["attack"]}))),
            "normal",
        ),
        (
            json!({}),
            base(two(
                json!({"coins": 5, "specials": ["attack2","attack2","attack2","attack2","attack2"]}),
            )),
            "box",
        ),
        (
            json!({}),
            base(two(json!({"coins": 5, "character": "laskarina"}))),
            "off",
        ),
        (
            json!({"characters": true}),
            base(two(json!({"coins": 5, "character": "laskarina"}))),
            "no character",
        ),
        (
            json!({"characters": true}),
            base(
                json!([{"coins": 5, "character": "zheng_he"}, {"coins": 5, "character": "zheng_he"}]),
            ),
            "Two players",
        ),
        (
            json!({}),
            base(two(json!({"coins": 5, "equipment": {"better_trade": 1}}))),
            "equipment is off",
        ),
        (
            json!({"equipment": true}),
            base(two(json!({"coins": 5, "equipment": {"better_trade": -1}}))),
            "negative",
        ),
        (
            json!({"equipment": true}),
            base(two(json!({"coins": 5, "equipment": {"better_trade": 5}}))),
            "box",
        ),
    ];
    let mut p = base(two(json!({"coins": 5, "equipment": {"better_trade": 2}})));
    p["equipment_supply"] = json!({"better_attack": 4, "better_defense": 4, "better_trade": 3});
    cases.push((json!({"equipment": true}), p, "owned and supply"));
    let mut p = base(two(json!({"coins": 5})));
    p["special_deck"] = json!(["trade"]);
    cases.push((json!({}), p, "normal card"));
    for (o, p, needle) in cases {
        let e = try_start(o, p.clone()).expect_err("must be refused");
        assert_eq!(e.code, "invalid_position", "{p}");
        assert!(e.message.contains(needle), "{needle}: {}", e.message);
    }
    // The seat count must match.
    let p: MalaccaPosition =
        serde_json::from_value(base(two(json!({"coins": 5})))).expect("parses");
    let e = Malacca::from_position(&data(), 3, &MalaccaOptions::default(), p)
        .expect_err("must be refused");
    assert_eq!(e.code, "invalid_position");
    assert!(e.message.contains("lists 2 players"), "{}", e.message);
    // A position cannot be combined with the ships option.
    let e = try_start(json!({"ships": [5]}), base(two(json!({"coins": 5}))))
        .expect_err("must be refused");
    assert_eq!(e.code, "invalid_options");
    // Unknown fields are refused.
    let bad = json!({"round": 1, "captain": 0, "ships": [5], "players": [], "bank": 3});
    assert!(serde_json::from_value::<MalaccaPosition>(bad).is_err());
}

#[test]
fn a_position_supply_defaults_to_the_box_minus_what_players_own() {
    let s = start(
        json!({"equipment": true}),
        json!({"round": 1, "captain": 0, "ships": [5], "players": [
            {"coins": 5, "equipment": {"better_attack": 1}}, {"coins": 5}]}),
    );
    assert_eq!(
        s.equipment_supply,
        EquipmentCounts {
            better_attack: 3,
            better_defense: 4,
            better_trade: 4
        }
    );
}

// ----- decisions, data, purity ------------------------------------------------------

#[test]
fn ties_for_the_most_coins_share_rank_one() {
    let s = plain(&[5, 5, 3], 0, &[5], &[], &[]);
    let out = run(
        &s,
        &[
            (0, bet("trade", 0)),
            (1, bet("trade", 0)),
            (2, bet("trade", 0)),
        ],
    );
    let Progress::Finished(o) = Malacca::progress(&out.state) else {
        panic!("finished")
    };
    assert_eq!(o.winners(), vec![0, 1]);
    let v = view_json(&out.state, Viewer::Spectator);
    assert_eq!(
        v["ranking"],
        json!([{"seat":0,"coins":5,"rank":1},{"seat":1,"coins":5,"rank":1},{"seat":2,"coins":3,"rank":3}])
    );
}

#[test]
fn the_ledger_splits_loot_into_players_stakes_first_and_cargo_after() {
    // Pool 7 + 3 = 10 over 3 attackers: 4, 3, 3. The 3 stake coins go one each.
    let s = plain(&[5, 5, 5, 5], 0, &[7], &[], &[]);
    let out = run(
        &s,
        &[
            (0, bet("attack", 0)),
            (1, bet("attack", 0)),
            (2, bet("attack", 0)),
            (3, bet("trade", 3)),
        ],
    );
    let r = &out.rounds[0];
    for seat in 0..3 {
        assert_eq!(ledger_sum(r, seat, "loot_share"), 1);
    }
    assert_eq!(ledger_sum(r, 0, "cargo"), 3);
    assert_eq!(ledger_sum(r, 1, "cargo"), 2);
    assert_eq!(ledger_sum(r, 3, "stake_lost"), -3);
    assert_eq!(ledger_sum(r, 3, "stake_placed"), 0);
    assert_eq!(coins(&out.state), vec![9, 8, 8, 2]);
}

#[test]
fn a_returned_stake_appears_as_placed_and_returned() {
    let s = plain(&[5, 5], 0, &[7], &[], &[]);
    let out = run(&s, &[(0, bet("trade", 2)), (1, bet("defense", 1))]);
    let r = &out.rounds[0];
    assert_eq!(ledger_sum(r, 0, "stake_placed"), -2);
    assert_eq!(ledger_sum(r, 0, "stake_returned"), 2);
    assert_eq!(ledger_sum(r, 0, "trade_profit"), 2);
    assert_eq!(ledger_sum(r, 1, "stake_placed"), -1);
    assert_eq!(ledger_sum(r, 1, "stake_returned"), 1);
}

#[test]
fn actions_refuse_unknown_fields_and_unknown_ids() {
    for bad in [
        json!({"type": "play", "card": "attack", "stake": 1, "x": 1}),
        json!({"type": "play", "card": "attack3", "stake": 1}),
        json!({"type": "choose", "kind": "trade2"}),
        json!({"type": "buy", "kind": "better_luck"}),
        json!({"type": "discard"}),
        json!({"type": "pass", "x": 1}),
        json!({"type": "keep", "card": "trade2", "stake": 0}),
    ] {
        assert!(
            serde_json::from_value::<Action>(bad.clone()).is_err(),
            "{bad}"
        );
    }
    assert_eq!(
        serde_json::from_value::<Action>(json!({"type": "pass"})).expect("as the test sets up"),
        Action::Pass {}
    );
}

#[test]
fn the_error_messages_name_the_action_and_the_rule() {
    let s = plain(&[5, 5], 0, &[5], &[], &[]);
    let e = Malacca::validate(
        &s,
        0,
        &Action::Play {
            card: Card::Trade2,
            stake: 0,
        },
    )
    .expect_err("must be refused");
    assert_eq!(
        e.message,
        "You cannot play trade2: it is not in your hand (rules §4.3)."
    );
    let e = Malacca::validate(
        &s,
        0,
        &Action::Play {
            card: Card::Trade,
            stake: 6,
        },
    )
    .expect_err("must be refused");
    assert!(
        e.message.contains("You cannot stake 6 coins"),
        "{}",
        e.message
    );
    let e = Malacca::validate(&s, 0, &Action::Pass {}).expect_err("must be refused");
    assert!(e.message.contains("You cannot pass now"), "{}", e.message);
    let e = Malacca::validate(&s, 7, &Action::Pass {}).expect_err("must be refused");
    assert!(e.message.contains("no seat 7"), "{}", e.message);
}

#[test]
fn the_ship_data_is_marked_provisional_and_the_components_are_sourced() {
    let ships: Value = serde_json::from_str(include_str!("../../../data/malacca/ships.json"))
        .expect("as the test sets up");
    assert_eq!(ships["placeholder"], true);
    assert!(
        ships["note"]
            .as_str()
            .expect("as the test sets up")
            .contains("component-data.md §1.3")
    );
    assert_eq!(
        ships["ships"],
        json!([3, 4, 5, 6, 7, 8, 8, 9, 10, 11, 12, 13])
    );
    let comp: Value = serde_json::from_str(include_str!("../../../data/malacca/components.json"))
        .expect("as the test sets up");
    assert_eq!(comp["placeholder"], false);
    let d = data();
    let total: u32 = d.rules.special_cards.iter().map(|c| c.count).sum();
    assert_eq!(total, 16);
    // A broken file is refused.
    let broken =
        include_str!("../../../data/malacca/components.json").replace("\"trade2\"", "\"trade\"");
    assert!(
        Malacca::load_data(&[
            (
                "ships.json",
                include_str!("../../../data/malacca/ships.json")
            ),
            ("components.json", &broken)
        ])
        .is_err()
    );
}

#[test]
fn the_engine_source_uses_no_io_clock_or_global_randomness() {
    let sources = [
        include_str!("mod.rs"),
        include_str!("rules.rs"),
        include_str!("view.rs"),
        include_str!("position.rs"),
        include_str!("data.rs"),
    ];
    let forbidden = [
        "actix",
        "sea_orm",
        "tokio",
        "chrono",
        "Utc::now",
        "thread_rng",
        "std::fs",
        "SystemTime",
    ];
    for src in sources {
        for word in forbidden {
            assert!(!src.contains(word), "engine source mentions {word}");
        }
    }
}

#[test]
fn setup_from_the_same_seed_deals_the_same_decks_and_the_deal_is_pinned() {
    let d = data();
    let options = MalaccaOptions::default();
    let seed = [42u8; 32];
    let a = Malacca::setup(&d, 4, &options, &mut GameRng::for_setup(&seed))
        .expect("as the test sets up");
    let b = Malacca::setup(&d, 4, &options, &mut GameRng::for_setup(&seed))
        .expect("as the test sets up");
    assert_eq!(a, b);
    let c = Malacca::setup(&d, 4, &options, &mut GameRng::for_setup(&[43u8; 32]))
        .expect("as the test sets up");
    assert_ne!(
        (
            a.ships_revealed.clone(),
            a.ship_deck.clone(),
            a.special_deck.clone()
        ),
        (
            c.ships_revealed.clone(),
            c.ship_deck.clone(),
            c.special_deck.clone()
        )
    );
    let mut ships = a.ships_revealed.clone();
    ships.extend(a.ship_deck.iter().copied());
    let pinned: Value = json!({
        "ships": ships,
        "special_deck": a.special_deck,
        "captain": a.captain,
    });
    assert_eq!(
        pinned,
        PINNED_DEAL.clone(),
        "the deal for seed [42; 32] changed"
    );
}

static PINNED_DEAL: std::sync::LazyLock<Value> = std::sync::LazyLock::new(|| {
    json!({
        "captain": 3,
        "ships": [10, 11, 12, 8, 9, 7, 3, 4, 5, 13, 8, 6],
        "special_deck": [
            "trade2", "trade2", "wait_attack_defense", "wait_attack_defense", "attack2",
            "defense2", "defense2", "trade2", "wait_defense_trade", "attack2", "attack2",
            "defense2", "defense2", "attack2", "trade2", "wait_defense_trade"
        ]
    })
});

#[test]
fn statistics_get_the_variant_label_and_each_seats_character() {
    let o = opts(json!({"characters": true, "equipment": true, "stakes": "sealed"}));
    assert_eq!(Malacca::variant(4, &o), "sealed+characters+equipment");
    assert_eq!(
        Malacca::variant(4, &MalaccaOptions::default()),
        "open_sequential"
    );
    let s = with_chars(&[5, 5], &["zheng_he", "laskarina"], 0, &[5], &[], &[]);
    assert_eq!(
        Malacca::roles(&s),
        vec![Some("zheng_he".to_owned()), Some("laskarina".to_owned())]
    );
}

#[test]
fn the_box_limit_counts_the_deck_and_every_hand_together() {
    let e = try_start(
        json!({}),
        json!({"round": 1, "captain": 0, "ships": [5],
               "special_deck": ["trade2", "trade2", "trade2"],
               "players": [{"coins": 5, "specials": ["trade2"]}, {"coins": 5, "specials": ["trade2"]}]}),
    )
    .expect_err("must be refused");
    assert_eq!(e.code, "invalid_position");
    assert!(e.message.contains("5 trade2 cards"), "{}", e.message);
}

#[test]
fn standings_count_a_stake_on_the_table_as_its_owners_and_end_as_the_final_coins() {
    let s = plain(&[5, 7], 0, &[8, 8], &[], &[]);
    assert_eq!(Malacca::standings(&s), vec![5, 7]);
    let s = run(&s, &[(0, bet("trade", 3))]).state;
    assert_eq!(coins(&s), vec![2, 7]);
    assert_eq!(Malacca::standings(&s), vec![5, 7]);
    // Defended, nobody attacked: the trade pays its stake.
    let s = run(&s, &[(1, bet("defense", 4))]).state;
    assert_eq!(Malacca::standings(&s), vec![8, 7]);
    for (along, scores) in crate::games::checks::standings_along::<Malacca>(
        &data(),
        4,
        &opts(json!({"characters": true, "equipment": true})),
        3,
    ) {
        assert!(along.iter().flatten().all(|c| *c >= 0));
        assert_eq!(along.last(), Some(&scores));
    }
}
