//! Tests: the worked examples of rules §13 (with their own cards), unit tests of
//! the geometry and scoring, one test per decision, and property tests over
//! random legal games in every variant.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::board::{Candidate, Coord, DecidingRule, Fault, decide, select_top};
use super::cards::{BoardSizes, Card, CardKind, CellType, Goods, KontorData, Params, SpecialKind, Team};
use super::rules::{EndReason, Phase, SeatResult, State};
use super::*;
use crate::games::legal::{is_listed, sample};
use crate::games::rng::GameRng;
use crate::games::{Audience, Game, Progress, Transition, Viewer};

// ---------------------------------------------------------------------------
// Test data: cards named by the tests themselves.

fn params() -> Params {
    Params {
        coins: 20,
        start_money: 4,
        board_size: BoardSizes {
            basic: 6,
            duel: 7,
            team: 8,
        },
        hand_harbour: 3,
        hand_water: 2,
        top_regions: 5,
        team_min_region_cards: 2,
    }
}

fn card(id: &str, number: Option<i64>, kind: CardKind) -> Card {
    Card {
        id: id.into(),
        number,
        kind,
        colour: None,
        goods: Goods::default(),
        crane: false,
        tavern: false,
        coin: false,
        ship: false,
        special: None,
    }
}

/// A harbour card with goods (wine, spice, tea).
fn harbour(id: &str, number: i64, team: Team, (wine, spice, tea): (u32, u32, u32)) -> Card {
    Card {
        colour: Some(team),
        goods: Goods { wine, spice, tea },
        ..card(id, Some(number), CardKind::Harbour)
    }
}

fn crane(id: &str, number: i64, team: Team) -> Card {
    Card {
        crane: true,
        ..harbour(id, number, team, (0, 0, 0))
    }
}

fn water(id: &str, number: i64) -> Card {
    card(id, Some(number), CardKind::Water)
}

fn special(id: &str, number: Option<i64>, kind: SpecialKind) -> Card {
    Card {
        special: Some(kind),
        ..card(id, number, CardKind::Special)
    }
}

fn with_coin(mut c: Card) -> Card {
    c.coin = true;
    c
}

fn with_ship(mut c: Card) -> Card {
    c.ship = true;
    c
}

const CROSS_IDS: [&str; 8] = ["x1", "x2", "x3", "x4", "x5", "x6", "x7", "x8"];

/// The centre and the eight water cards of the starting cross.
fn cross_cards() -> Vec<Card> {
    let mut v = vec![card("centre", None, CardKind::Centre)];
    for (i, id) in CROSS_IDS.iter().enumerate() {
        v.push(water(id, 100 + i as i64));
    }
    v
}

/// Position cells of the starting cross.
fn cross_cells() -> Vec<Value> {
    let mut v = vec![json!({"x": 0, "y": 0, "card": "centre"})];
    for (id, (x, y)) in CROSS_IDS.iter().zip(rules::CROSS) {
        v.push(json!({"x": x, "y": y, "card": id}));
    }
    v
}

fn data_with(extra: Vec<Card>) -> KontorData {
    let mut cards = cross_cards();
    cards.extend(extra);
    KontorData {
        cards,
        params: params(),
    }
}

fn options(variant: Variant) -> Options {
    Options {
        variant: Some(variant),
        all_pass_policy: AllPassPolicy::NoRepeat,
    }
}

fn load(data: &KontorData, variant: Variant, position: Value) -> State {
    let position: Position = serde_json::from_value(position).expect("position parses");
    Kontor::from_position(data, variant.seats(), &options(variant), position)
        .expect("position is valid")
}

fn rng() -> GameRng {
    GameRng::from_key([0; 32])
}

fn try_act(state: &State, seat: usize, action: Value) -> Result<Transition<State>, RuleError> {
    let action: Action = serde_json::from_value(action).expect("action parses");
    Kontor::validate(state, seat, &action)?;
    Kontor::apply(state, seat, &action, &mut rng())
}

fn act(state: &State, seat: usize, action: Value) -> Transition<State> {
    match try_act(state, seat, action.clone()) {
        Ok(t) => t,
        Err(e) => panic!("seat {seat} {action}: {}", e.message),
    }
}

fn reject(state: &State, seat: usize, action: Value) -> String {
    let parsed: Action = serde_json::from_value(action.clone()).expect("action parses");
    match Kontor::validate(state, seat, &parsed) {
        Ok(()) => panic!("seat {seat} {action} was accepted"),
        Err(e) => {
            assert_eq!(e.code, "illegal_move");
            e.message
        }
    }
}

fn place(x: i32, y: i32) -> Value {
    json!({"type": "place", "cell": {"x": x, "y": y}})
}

fn choose(id: &str) -> Value {
    json!({"type": "choose", "card": id})
}

fn pass() -> Value {
    json!({"type": "pass"})
}

fn money(state: &State) -> Vec<u32> {
    state.players.iter().map(|p| p.money).collect()
}

fn hand_ids(state: &State, seat: usize) -> Vec<String> {
    state.players[seat].hand.iter().map(|c| c.id.clone()).collect()
}

fn order(state: &State) -> Vec<usize> {
    state.turn.as_ref().map(|t| t.order.clone()).unwrap_or_default()
}

fn at(x: i32, y: i32) -> Coord {
    Coord::new(x, y)
}

fn goods(wine: u32, spice: u32, tea: u32) -> Goods {
    Goods { wine, spice, tea }
}

fn players(money: &[u32]) -> Vec<Value> {
    money
        .iter()
        .map(|m| json!({"hand": [], "money": m}))
        .collect()
}

// ---------------------------------------------------------------------------
// Worked examples (rules §13), each with its own cards.

#[test]
fn example_1_fixing_the_bound_in_basic() {
    let data = data_with(vec![
        harbour("r20", 20, Team::Red, (0, 0, 1)),
        water("w10", 10),
        water("w11", 11),
    ]);
    let mut p = players(&[4, 4]);
    p[0]["hand"] = json!(["w11"]);
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": cross_cells(), "players": p,
               "turn": [{"seat": 0, "card": "r20"}, {"seat": 1, "card": "w10"}]}),
    );
    assert_eq!(order(&s), vec![0, 1]);
    assert_eq!((s.fixed_x, s.fixed_y), (None, None));
    let s = act(&s, 0, place(-3, 0)).state;
    assert_eq!(s.fixed_x, Some([-3, 2]));
    assert_eq!(s.fixed_y, None);
    let why = reject(&s, 1, place(3, 0));
    assert!(why.contains("out of bounds") && why.contains("-3..2"), "{why}");
    let legal = Kontor::legal(&s, 1).expect("black acts");
    assert!(is_listed(&legal, &place(0, 3)));
    let s = act(&s, 1, place(0, 3)).state;
    assert_eq!(s.fixed_y, Some([-2, 3]));
    let w = water("probe", 1);
    assert!(matches!(
        s.layout().check(&w, CellType::Water, Team::Red, at(0, -3), None),
        Err(Fault::OutOfBounds(_))
    ));
    let (fx, fy) = s.layout().final_rect().expect("both axes fixed");
    let cells = (fx[1] - fx[0] + 1) * (fy[1] - fy[0] + 1);
    assert_eq!((fx, fy), ([-3, 2], [-2, 3]));
    assert_eq!(cells, 36);
    assert_eq!(s.board.len(), 11);
    assert_eq!(cells as usize - s.board.len(), 25);
}

#[test]
fn example_2_cranes_block_harbour_cards_of_the_other_team() {
    let data = data_with(vec![
        crane("rc", 29, Team::Red),
        water("w30", 30),
        crane("bc", 28, Team::Black),
        harbour("rh", 5, Team::Red, (1, 0, 0)),
        harbour("bh", 6, Team::Black, (1, 0, 0)),
    ]);
    let mut board = cross_cells();
    board.push(json!({"x": 1, "y": 1, "card": "rc", "played_by": 0}));
    board.push(json!({"x": 2, "y": 1, "card": "w30", "played_by": 1}));
    // (2,2) was legal for Black's crane: only diagonal to the red crane.
    let before = load(
        &data,
        Variant::Basic,
        json!({"board": board.clone(), "players": players(&[4, 4])}),
    );
    let bc = crane("bc", 28, Team::Black);
    assert_eq!(
        before
            .layout()
            .check(&bc, CellType::Harbour, Team::Black, at(2, 2), None),
        Ok(())
    );
    board.push(json!({"x": 2, "y": 2, "card": "bc", "played_by": 1}));
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": board, "players": players(&[4, 4]),
               "turn": [{"seat": 0, "card": "rh"}]}),
    );
    let layout = s.layout();
    let rh = harbour("rh", 5, Team::Red, (1, 0, 0));
    let bh = harbour("bh", 6, Team::Black, (1, 0, 0));
    let w = water("probe", 1);
    let check = |c: &Card, ty, team, x, y| layout.check(c, ty, team, at(x, y), None);
    // (1,2): next to both cranes.
    assert!(matches!(check(&rh, CellType::Harbour, Team::Red, 1, 2), Err(Fault::CraneBlocked(Team::Black, _))));
    assert!(matches!(check(&bh, CellType::Harbour, Team::Black, 1, 2), Err(Fault::CraneBlocked(Team::Red, _))));
    assert_eq!(check(&w, CellType::Water, Team::Red, 1, 2), Ok(()));
    assert_eq!(check(&w, CellType::Water, Team::Black, 1, 2), Ok(()));
    // (3,1): next to water only.
    assert_eq!(check(&rh, CellType::Harbour, Team::Red, 3, 1), Ok(()));
    assert_eq!(check(&bh, CellType::Harbour, Team::Black, 3, 1), Ok(()));
    assert_eq!(check(&w, CellType::Water, Team::Red, 3, 1), Ok(()));
    // (2,3): next to the black crane.
    assert!(matches!(check(&rh, CellType::Harbour, Team::Red, 2, 3), Err(Fault::CraneBlocked(Team::Black, _))));
    assert_eq!(check(&bh, CellType::Harbour, Team::Black, 2, 3), Ok(()));
    assert_eq!(check(&w, CellType::Water, Team::Red, 2, 3), Ok(()));
    // (1,3): no occupied neighbour.
    for (c, ty) in [(&rh, CellType::Harbour), (&bh, CellType::Harbour), (&w, CellType::Water)] {
        assert_eq!(check(c, ty, Team::Red, 1, 3), Err(Fault::NotAdjacent));
    }
    // Through the engine, the error names the rule.
    let why = reject(&s, 0, place(2, 3));
    assert!(why.contains("crane-blocked") && why.contains("(2,2)"), "{why}");
    let why = reject(&s, 0, place(1, 3));
    assert!(why.contains("not orthogonally adjacent"), "{why}");
    let why = reject(&s, 0, place(1, 1));
    assert!(why.contains("already occupied"), "{why}");
}

#[test]
fn example_3_the_largest_advantage_wins_even_against_two_advantages() {
    let v = decide(&goods(1, 2, 3), &goods(4, 0, 1));
    assert_eq!(v.diff, [-3, 2, 2]);
    assert_eq!(v.winner, Some(Team::Black));
    assert_eq!(v.rule, DecidingRule::LargestAdvantage);
}

#[test]
fn example_4_more_advantages_win_when_the_largest_are_equal() {
    let v = decide(&goods(2, 0, 1), &goods(1, 1, 0));
    assert_eq!(v.diff, [1, -1, 1]);
    assert_eq!(v.winner, Some(Team::Red));
    assert_eq!(v.rule, DecidingRule::MoreAdvantages);
}

#[test]
fn example_5_the_value_cycle_decides_single_equal_advantages() {
    // (i) Red spice +1 against Black tea +1: spice beats tea.
    let v = decide(&goods(1, 1, 0), &goods(1, 0, 1));
    assert_eq!((v.winner, v.rule), (Some(Team::Red), DecidingRule::CommodityValue));
    // (ii) Red wine +2 against Black tea +2: tea beats wine.
    let v = decide(&goods(2, 0, 0), &goods(0, 0, 2));
    assert_eq!((v.winner, v.rule), (Some(Team::Black), DecidingRule::CommodityValue));
    // (iii) Everything equal: not won.
    let v = decide(&goods(1, 0, 1), &goods(1, 0, 1));
    assert_eq!((v.winner, v.rule), (None, DecidingRule::NoAdvantage));
}

#[test]
fn example_5_iii_an_equal_region_is_frozen_without_a_marker() {
    let data = data_with(vec![
        harbour("r1", 1, Team::Red, (1, 0, 1)),
        harbour("b1", 2, Team::Black, (1, 0, 1)),
        water("w1", 50),
        water("w2", 52),
        water("w3", 54),
    ]);
    let mut board = cross_cells();
    board.push(json!({"x": 1, "y": 1, "card": "r1", "played_by": 0}));
    board.push(json!({"x": 1, "y": 2, "card": "b1", "played_by": 1}));
    board.push(json!({"x": 2, "y": 1, "card": "w1", "played_by": 0}));
    board.push(json!({"x": 2, "y": 2, "card": "w2", "played_by": 1}));
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": board, "players": players(&[4, 4]), "turn": [{"seat": 1, "card": "w3"}]}),
    );
    assert!(s.scored_regions.is_empty());
    let s = act(&s, 1, place(1, 3)).state;
    assert_eq!(s.scored_regions.len(), 1);
    let r = &s.scored_regions[0];
    assert_eq!(r.cells, vec![at(1, 1), at(1, 2)]);
    assert_eq!((r.winner, r.rule, r.value), (None, DecidingRule::NoAdvantage, 0));
    assert!(s.board.iter().filter(|c| c.cell_type == CellType::Harbour).all(|c| c.frozen()));
    assert_eq!(s.markers(), rules::TeamTotals { red: 0, black: 0 });
}

/// Example 6's cards: Red's 14 has a coin, Black's 52 has none, 61 has a coin.
fn tax_data() -> KontorData {
    data_with(vec![
        with_coin(harbour("r14", 14, Team::Red, (0, 0, 1))),
        harbour("b52", 52, Team::Black, (1, 0, 0)),
        with_coin(water("w61", 61)),
    ])
}

fn tax_position(money: [u32; 2], red: &[&str], black: &[&str]) -> State {
    load(
        &tax_data(),
        Variant::Basic,
        json!({"board": cross_cells(), "players": [
            {"hand": red, "money": money[0]},
            {"hand": black, "money": money[1]}]}),
    )
}

#[test]
fn example_6_i_the_opponent_of_a_coin_card_pays_tax() {
    let s = tax_position([1, 2], &["r14"], &["b52"]);
    assert_eq!(s.bank, 17);
    let s = act(&s, 0, choose("r14")).state;
    let t = act(&s, 1, choose("b52"));
    assert!(t.reveal && t.completes_step);
    let s = t.state;
    assert_eq!(money(&s), vec![1, 1]);
    assert_eq!(s.bank, 18);
    assert!(!s.round_log.seats[0].owed_tax);
    assert!(s.round_log.seats[1].owed_tax);
    assert_eq!(order(&s), vec![1, 0]);
    assert!(t.events.iter().any(|e| e.kind == "tax" && e.data["paid"] == json!([1])));
}

#[test]
fn example_6_ii_a_seat_that_cannot_pay_is_sent_back_and_withdraws_its_coin() {
    let s = tax_position([0, 2], &["r14"], &["w61"]);
    assert_eq!(s.bank, 18);
    let s = act(&s, 0, choose("r14")).state;
    let s = act(&s, 1, choose("w61")).state;
    assert_eq!(money(&s), vec![0, 2]);
    assert_eq!(s.bank, 18);
    assert_eq!(hand_ids(&s, 0), vec!["r14"]);
    assert!(s.round_log.seats[0].sent_back);
    assert_eq!(s.round_log.seats[1].tax_paid, 0);
    assert_eq!(order(&s), vec![1]);
    assert_eq!(s.phase, Phase::Place);
}

#[test]
fn example_6_iii_when_neither_can_pay_both_are_sent_back_and_take_a_coin() {
    let s = tax_position([0, 0], &["r14"], &["w61"]);
    assert_eq!(s.bank, 20);
    let s = act(&s, 0, choose("r14")).state;
    let t = act(&s, 1, choose("w61"));
    let s = t.state;
    assert_eq!(money(&s), vec![1, 1]);
    assert_eq!(s.bank, 18);
    assert_eq!(hand_ids(&s, 0), vec!["r14"]);
    assert_eq!(hand_ids(&s, 1), vec!["w61"]);
    assert_eq!(s.board.len(), 9, "nobody places a card");
    assert_eq!((s.phase, s.round), (Phase::Choose, 2));
    let record = &t.rounds[0];
    assert_eq!(record.outcome, "none_placed");
    let reasons: Vec<&str> = record.ledger.iter().map(|l| l.reason.as_str()).collect();
    assert_eq!(reasons, vec!["tax_relief", "tax_relief"]);
}

#[test]
fn example_6_iv_a_passer_pays_no_tax_and_takes_a_coin() {
    let s = tax_position([0, 1], &["r14"], &["w61"]);
    assert_eq!(s.bank, 19);
    let s = act(&s, 0, pass()).state;
    let s = act(&s, 1, choose("w61")).state;
    assert_eq!(money(&s), vec![1, 1]);
    assert_eq!(s.bank, 18);
    assert_eq!(order(&s), vec![1]);
    assert!(!s.round_log.seats[0].owed_tax && !s.round_log.seats[1].owed_tax);
}

#[test]
fn example_6_iv_if_both_pass_each_takes_a_coin_and_neither_may_pass_next_round() {
    let s = tax_position([0, 1], &["r14"], &["w61"]);
    let s = act(&s, 0, pass()).state;
    let t = act(&s, 1, pass());
    let s = t.state;
    assert_eq!(money(&s), vec![1, 2]);
    assert_eq!(s.bank, 17);
    assert!(s.last_round_all_passed);
    assert_eq!(t.rounds[0].outcome, "none_placed");
    for seat in 0..2 {
        let legal = Kontor::legal(&s, seat).expect("choosing");
        assert!(!is_listed(&legal, &pass()));
        let why = reject(&s, seat, pass());
        assert!(why.contains("decision 5"), "{why}");
    }
}

#[test]
fn example_7_play_order_in_the_team_game_counts_a_null_number_as_zero() {
    let data = data_with(vec![
        harbour("r17", 17, Team::Red, (0, 0, 1)),
        water("w61", 61),
        harbour("b40", 40, Team::Black, (0, 1, 0)),
        special("customs", None, SpecialKind::Customs),
    ]);
    let s = load(
        &data,
        Variant::Team,
        json!({"board": cross_cells(), "players": [
            {"hand": ["r17"], "money": 4}, {"hand": ["w61"], "money": 4},
            {"hand": ["b40"], "money": 4}, {"hand": ["customs"], "money": 4}]}),
    );
    let mut s = s;
    for (seat, id) in ["r17", "w61", "b40", "customs"].iter().enumerate() {
        s = act(&s, seat, choose(id)).state;
    }
    assert_eq!(order(&s), vec![1, 2, 0, 3]);
}

#[test]
fn example_8_the_second_axis_closes_a_region_at_the_edge() {
    let data = data_with(vec![
        harbour("rw", 27, Team::Red, (1, 0, 0)),
        water("a", 50),
        water("b", 52),
        water("c", 54),
        water("d", 63),
    ]);
    let mut board = cross_cells();
    board.push(json!({"x": -3, "y": -1, "card": "rw", "played_by": 0}));
    board.push(json!({"x": -3, "y": -2, "card": "a", "played_by": 0}));
    board.push(json!({"x": -3, "y": 0, "card": "b", "played_by": 1}));
    board.push(json!({"x": -2, "y": -1, "card": "c", "played_by": 1}));
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": board, "players": players(&[4, 4]), "turn": [{"seat": 1, "card": "d"}]}),
    );
    assert_eq!(s.fixed_x, Some([-3, 2]));
    assert_eq!(s.fixed_y, None);
    assert!(s.scored_regions.is_empty(), "the edge closes nothing before y is fixed");
    assert!(!s.layout().is_closed(&[at(-3, -1)]));
    let t = act(&s, 1, place(0, 3));
    let s = t.state;
    assert_eq!(s.fixed_y, Some([-2, 3]));
    assert_eq!(s.scored_regions.len(), 1);
    let r = &s.scored_regions[0];
    assert_eq!(r.cells, vec![at(-3, -1)]);
    assert_eq!(r.red, goods(1, 0, 0));
    assert_eq!(r.diff, [1, 0, 0]);
    assert_eq!((r.winner, r.value), (Some(Team::Red), 1));
    assert_eq!(r.rule, DecidingRule::LargestAdvantage);
    assert!(t.events.iter().any(|e| e.kind == "region_scored"));
    assert_eq!(t.rounds[0].total_a, Some(1));
}

#[test]
fn example_9_top_5_skips_an_equal_distance_group_that_does_not_fit() {
    // (name, size, distance)
    let regions = [
        ("A", 6, 1),
        ("B", 5, 2),
        ("C", 4, 1),
        ("H", 4, 3),
        ("D", 3, 2),
        ("E", 3, 2),
        ("F", 3, 3),
        ("G", 2, 1),
    ];
    let candidates: Vec<Candidate> = regions
        .iter()
        .enumerate()
        .map(|(index, (_, size, distance))| Candidate {
            index,
            size: *size,
            distance: *distance,
        })
        .collect();
    let selected = select_top(&candidates, 5);
    let names: BTreeSet<&str> = selected.iter().map(|i| regions[*i].0).collect();
    assert_eq!(names, BTreeSet::from(["A", "B", "C", "H", "F"]));
    let red = ["A", "C", "E", "G"];
    let red_points = names.iter().filter(|n| red.contains(n)).count();
    assert_eq!((red_points, names.len() - red_points), (2, 3));
}
