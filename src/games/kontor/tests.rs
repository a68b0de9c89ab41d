//! Tests: the worked examples of rules §13 (with their own cards), unit tests of
//! the geometry and scoring, one test per decision, and property tests over
//! random legal games in every variant.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::board::{Candidate, Coord, DecidingRule, Fault, decide, select_top};
use super::cards::{
    BoardSizes, Card, CardKind, CellType, Goods, KontorData, Params, SpecialKind, Team,
};
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
    state.players[seat]
        .hand
        .iter()
        .map(|c| c.id.clone())
        .collect()
}

fn order(state: &State) -> Vec<usize> {
    state
        .turn
        .as_ref()
        .map(|t| t.order.clone())
        .unwrap_or_default()
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
    assert!(
        why.contains("out of bounds") && why.contains("-3..2"),
        "{why}"
    );
    let legal = Kontor::legal(&s, 1).expect("black acts");
    assert!(is_listed(&legal, &place(0, 3)));
    let s = act(&s, 1, place(0, 3)).state;
    assert_eq!(s.fixed_y, Some([-2, 3]));
    let w = water("probe", 1);
    assert!(matches!(
        s.layout()
            .check(&w, CellType::Water, Team::Red, at(0, -3), None),
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
    assert!(matches!(
        check(&rh, CellType::Harbour, Team::Red, 1, 2),
        Err(Fault::CraneBlocked(Team::Black, _))
    ));
    assert!(matches!(
        check(&bh, CellType::Harbour, Team::Black, 1, 2),
        Err(Fault::CraneBlocked(Team::Red, _))
    ));
    assert_eq!(check(&w, CellType::Water, Team::Red, 1, 2), Ok(()));
    assert_eq!(check(&w, CellType::Water, Team::Black, 1, 2), Ok(()));
    // (3,1): next to water only.
    assert_eq!(check(&rh, CellType::Harbour, Team::Red, 3, 1), Ok(()));
    assert_eq!(check(&bh, CellType::Harbour, Team::Black, 3, 1), Ok(()));
    assert_eq!(check(&w, CellType::Water, Team::Red, 3, 1), Ok(()));
    // (2,3): next to the black crane.
    assert!(matches!(
        check(&rh, CellType::Harbour, Team::Red, 2, 3),
        Err(Fault::CraneBlocked(Team::Black, _))
    ));
    assert_eq!(check(&bh, CellType::Harbour, Team::Black, 2, 3), Ok(()));
    assert_eq!(check(&w, CellType::Water, Team::Red, 2, 3), Ok(()));
    // (1,3): no occupied neighbour.
    for (c, ty) in [
        (&rh, CellType::Harbour),
        (&bh, CellType::Harbour),
        (&w, CellType::Water),
    ] {
        assert_eq!(check(c, ty, Team::Red, 1, 3), Err(Fault::NotAdjacent));
    }
    // Through the engine, the error names the rule.
    let why = reject(&s, 0, place(2, 3));
    assert!(
        why.contains("crane-blocked") && why.contains("(2,2)"),
        "{why}"
    );
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
    assert_eq!(
        (v.winner, v.rule),
        (Some(Team::Red), DecidingRule::CommodityValue)
    );
    // (ii) Red wine +2 against Black tea +2: tea beats wine.
    let v = decide(&goods(2, 0, 0), &goods(0, 0, 2));
    assert_eq!(
        (v.winner, v.rule),
        (Some(Team::Black), DecidingRule::CommodityValue)
    );
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
    assert_eq!(
        (r.winner, r.rule, r.value),
        (None, DecidingRule::NoAdvantage, 0)
    );
    assert!(
        s.board
            .iter()
            .filter(|c| c.cell_type == CellType::Harbour)
            .all(|c| c.frozen())
    );
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
    assert!(
        t.events
            .iter()
            .any(|e| e.kind == "tax" && e.data["paid"] == json!([1]))
    );
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
    assert!(
        s.scored_regions.is_empty(),
        "the edge closes nothing before y is fixed"
    );
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

// ---------------------------------------------------------------------------
// Boards filled with water, for end-of-game and closure situations.

fn data_of(cards: Vec<Card>) -> KontorData {
    KontorData {
        cards,
        params: params(),
    }
}

/// A rectangle full of water (ids `f<x>_<y>`) with the centre at (0,0), except
/// the cells in `skip`; answers its cards (centre included) and position cells.
fn filled(xs: (i32, i32), ys: (i32, i32), skip: &[(i32, i32)]) -> (Vec<Card>, Vec<Value>) {
    let mut cards = vec![card("centre", None, CardKind::Centre)];
    let mut cells = vec![json!({"x": 0, "y": 0, "card": "centre"})];
    let mut n = 200;
    for y in ys.0..=ys.1 {
        for x in xs.0..=xs.1 {
            if (x, y) == (0, 0) || skip.contains(&(x, y)) {
                continue;
            }
            let id = format!("f{x}_{y}");
            n += 1;
            cards.push(water(&id, n));
            cells.push(json!({"x": x, "y": y, "card": id}));
        }
    }
    (cards, cells)
}

fn put(cells: &mut Vec<Value>, x: i32, y: i32, id: &str, seat: usize) {
    cells.push(json!({"x": x, "y": y, "card": id, "played_by": seat}));
}

// ---------------------------------------------------------------------------
// Regions, closure and bounds.

#[test]
fn regions_are_connected_harbour_cards_and_water_separates_them() {
    let data = data_with(vec![
        harbour("a", 1, Team::Red, (1, 0, 0)),
        harbour("b", 2, Team::Black, (0, 1, 0)),
        harbour("c", 3, Team::Red, (0, 0, 1)),
        harbour("d", 4, Team::Black, (1, 0, 0)),
        harbour("e", 5, Team::Red, (1, 0, 0)),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "a", 0);
    put(&mut board, 2, 1, "b", 1);
    put(&mut board, 2, 2, "c", 0);
    put(&mut board, -1, -1, "d", 1);
    put(&mut board, -1, 1, "e", 0); // diagonal neighbours only of nothing harbour
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": board, "players": players(&[4, 4])}),
    );
    let regions = s.layout().regions();
    assert_eq!(
        regions,
        vec![
            vec![at(-1, -1)],
            vec![at(-1, 1)],
            vec![at(1, 1), at(2, 1), at(2, 2)],
        ]
    );
    let t = s.layout().tally(&regions[2]);
    assert_eq!(
        (t.red, t.black, t.size, t.distance),
        (goods(0, 0, 1).tap_add(goods(1, 0, 0)), goods(0, 1, 0), 3, 2)
    );
}

trait TapAdd {
    fn tap_add(self, other: Goods) -> Goods;
}
impl TapAdd for Goods {
    fn tap_add(mut self, other: Goods) -> Goods {
        self.add(&other);
        self
    }
}

#[test]
fn a_new_harbour_card_merges_two_regions_and_their_warehouses() {
    let data = data_with(vec![
        harbour("a", 1, Team::Red, (1, 0, 0)),
        harbour("b", 2, Team::Red, (0, 1, 0)),
        harbour("m", 3, Team::Black, (0, 0, 1)),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "a", 0);
    put(&mut board, 1, 3, "b", 0);
    put(&mut board, 1, 2, "x9", 0);
    let mut cards = data.cards.clone();
    cards.push(water("x9", 300));
    let data = data_of(cards);
    let mut board2 = board.clone();
    board2.pop();
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": board2, "players": players(&[4, 4]),
        "turn": [{"seat": 1, "card": "m"}]}),
    );
    assert_eq!(s.layout().regions().len(), 2);
    let s = act(&s, 1, place(1, 2)).state;
    let regions = s.layout().regions();
    assert_eq!(regions, vec![vec![at(1, 1), at(1, 2), at(1, 3)]]);
    let v = Kontor::view(&s, Viewer::Spectator);
    let r = &v.board.regions[0];
    assert_eq!(r.red.goods, goods(1, 1, 0));
    assert_eq!(r.black.goods, goods(0, 0, 1));
    assert_eq!(
        r.red.centre,
        Some(at(1, 1)),
        "the earliest-placed red goods card"
    );
    assert_eq!(r.black.centre, Some(at(1, 2)));
}

#[test]
fn a_region_with_an_empty_neighbour_is_not_closed_and_water_closes_it() {
    let data = data_with(vec![
        harbour("a", 1, Team::Red, (1, 0, 0)),
        water("w", 60),
        water("v", 61),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "a", 0);
    put(&mut board, 2, 1, "w", 1);
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": board, "players": players(&[4, 4]),
        "turn": [{"seat": 1, "card": "v"}]}),
    );
    assert!(!s.layout().is_closed(&[at(1, 1)]));
    assert!(s.scored_regions.is_empty());
    let s = act(&s, 1, place(1, 2)).state;
    assert!(s.layout().is_closed(&[at(1, 1)]));
    assert_eq!(s.scored_regions.len(), 1);
    assert_eq!(s.scored_regions[0].winner, Some(Team::Red));
}

#[test]
fn the_edge_closes_regions_only_when_both_axes_are_fixed() {
    // A red card in the corner of a fixed x range: closed by water on three sides
    // and by the west edge only once y is fixed too (decision 2).
    let data = data_with(vec![
        harbour("a", 1, Team::Red, (1, 0, 0)),
        water("p", 60),
        water("q", 61),
    ]);
    let mut board = cross_cells();
    put(&mut board, -3, 0, "a", 0);
    put(&mut board, -3, -1, "p", 0);
    put(&mut board, -3, 1, "q", 1);
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": board, "players": players(&[4, 4])}),
    );
    assert_eq!((s.fixed_x, s.fixed_y), (Some([-3, 2]), None));
    assert!(!s.layout().is_closed(&[at(-3, 0)]));
    let mut fixed = s.clone();
    fixed.fixed_y = Some([-2, 3]);
    assert!(fixed.layout().is_closed(&[at(-3, 0)]));
}

#[test]
fn decision_3_a_cell_only_water_could_fill_keeps_a_region_open() {
    // (1,2) is next to cranes of both teams: only water may go there, but the
    // region of the red crane is not closed until it is filled.
    let data = data_with(vec![
        crane("rc", 29, Team::Red),
        crane("bc", 28, Team::Black),
        water("w1", 60),
        water("w2", 61),
        water("w3", 62),
        water("w4", 63),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "rc", 0);
    put(&mut board, 2, 1, "w1", 0);
    put(&mut board, 2, 2, "bc", 1);
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": board, "players": players(&[4, 4])}),
    );
    assert!(!s.layout().is_closed(&[at(1, 1)]));
    assert!(s.scored_regions.is_empty());
}

#[test]
fn decision_1_a_fixed_axis_stays_fixed_after_a_removal_shrinks_the_box() {
    // Duel (N = 7): Black's ship card at (-3,0) and water at (3,0) make x 7 wide.
    let data = data_with(vec![
        with_ship(harbour("edge", 3, Team::Black, (1, 0, 0))),
        with_ship(water("sw", 70)),
        water("east", 71),
    ]);
    let mut board = cross_cells();
    put(&mut board, -3, 0, "edge", 1);
    put(&mut board, 3, 0, "east", 1);
    let s = load(
        &data,
        Variant::Duel,
        json!({"board": board, "players": players(&[4, 4]),
        "turn": [{"seat": 0, "card": "sw"}]}),
    );
    assert_eq!(s.fixed_x, Some([-3, 3]));
    let t = act(
        &s,
        0,
        json!({"type": "place", "cell": {"x": 1, "y": 1},
        "ship_to": {"x": -2, "y": 0}, "remove": {"x": -3, "y": 0}}),
    );
    let s = t.state;
    let b = s.layout().bounds().expect("cards");
    assert_eq!((b.min_x, b.max_x), (-2, 3), "the occupied box shrank");
    assert_eq!(s.fixed_x, Some([-3, 3]), "but the axis stays fixed");
    assert!(hand_ids(&s, 1).contains(&"edge".to_string()));
    let w = water("probe", 1);
    assert!(matches!(
        s.layout()
            .check(&w, CellType::Water, Team::Red, at(4, 0), None),
        Err(Fault::OutOfBounds(_))
    ));
    assert_eq!(
        s.layout()
            .check(&w, CellType::Water, Team::Red, at(-3, 0), None),
        Ok(())
    );
}

// ---------------------------------------------------------------------------
// Scoring tie rules (rules §7.3), each on its own.

#[test]
fn rule_1_no_warehouses_or_all_equal_means_no_winner() {
    assert_eq!(
        decide(&goods(0, 0, 0), &goods(0, 0, 0)).rule,
        DecidingRule::NoAdvantage
    );
    assert_eq!(decide(&goods(2, 1, 3), &goods(2, 1, 3)).winner, None);
}

#[test]
fn rule_2_the_largest_advantage_wins_for_either_team() {
    let v = decide(&goods(3, 0, 0), &goods(0, 2, 0));
    assert_eq!(
        (v.winner, v.rule),
        (Some(Team::Red), DecidingRule::LargestAdvantage)
    );
    let v = decide(&goods(0, 0, 0), &goods(0, 0, 1));
    assert_eq!(
        (v.winner, v.rule),
        (Some(Team::Black), DecidingRule::LargestAdvantage)
    );
}

#[test]
fn rule_3_more_advantages_of_any_size_win() {
    // Red +2 wine, +1 tea; Black +2 spice: both largest 2, Red has 2 advantages.
    let v = decide(&goods(2, 0, 1), &goods(0, 2, 0));
    assert_eq!(
        (v.winner, v.rule),
        (Some(Team::Red), DecidingRule::MoreAdvantages)
    );
    let v = decide(&goods(0, 3, 0), &goods(3, 0, 1));
    assert_eq!(
        (v.winner, v.rule),
        (Some(Team::Black), DecidingRule::MoreAdvantages)
    );
}

#[test]
fn rule_4_wine_beats_spice_spice_beats_tea_tea_beats_wine() {
    let cases = [
        (goods(1, 0, 0), goods(0, 1, 0), Team::Red), // wine vs spice
        (goods(0, 1, 0), goods(1, 0, 0), Team::Black), // spice vs wine
        (goods(0, 1, 0), goods(0, 0, 1), Team::Red), // spice vs tea
        (goods(0, 0, 1), goods(0, 1, 0), Team::Black), // tea vs spice
        (goods(0, 0, 2), goods(2, 0, 0), Team::Red), // tea vs wine
        (goods(2, 0, 0), goods(0, 0, 2), Team::Black), // wine vs tea
    ];
    for (red, black, winner) in cases {
        let v = decide(&red, &black);
        assert_eq!(
            (v.winner, v.rule),
            (Some(winner), DecidingRule::CommodityValue),
            "{red:?} {black:?}"
        );
    }
}

#[test]
fn top_5_takes_whole_size_groups_that_fit_and_stops_at_five() {
    let c = |index, size, distance| Candidate {
        index,
        size,
        distance,
    };
    assert_eq!(select_top(&[c(0, 2, 1), c(1, 1, 1)], 5), vec![0, 1]);
    let six: Vec<Candidate> = (0..6).map(|i| c(i, 7 - i as u32, 1)).collect();
    assert_eq!(select_top(&six, 5), vec![0, 1, 2, 3, 4]);
    // Two regions of size 3 at the same distance for one slot: neither; the next size fills it.
    let v = select_top(
        &[
            c(0, 5, 1),
            c(1, 5, 1),
            c(2, 5, 2),
            c(3, 4, 1),
            c(4, 3, 1),
            c(5, 3, 1),
            c(6, 2, 9),
        ],
        5,
    );
    assert_eq!(v, vec![0, 1, 2, 3, 6]);
}

// ---------------------------------------------------------------------------
// Decisions of rules §12 and of this engine.

#[test]
fn decision_5_allowed_policy_lets_everyone_pass_again() {
    let data = tax_data();
    let position = json!({"board": cross_cells(), "players": [
        {"hand": ["r14"], "money": 4}, {"hand": ["w61"], "money": 4}]});
    let opts = Options {
        variant: None,
        all_pass_policy: AllPassPolicy::Allowed,
    };
    let s = Kontor::from_position(
        &data,
        2,
        &opts,
        serde_json::from_value(position).expect("parses"),
    )
    .expect("valid");
    let s = act(&act(&s, 0, pass()).state, 1, pass()).state;
    assert!(s.last_round_all_passed);
    for seat in 0..2 {
        assert!(is_listed(
            &Kontor::legal(&s, seat).expect("choosing"),
            &pass()
        ));
    }
}

#[test]
fn decision_8_a_card_without_a_legal_placement_at_its_turn_returns_without_draw_or_coin() {
    let (mut cards, mut cells) = filled((-2, 3), (-2, 3), &[(3, 3), (3, -2), (2, -2), (2, 3)]);
    cards.extend([
        crane("bc", 28, Team::Black),
        harbour("rh", 10, Team::Red, (1, 0, 0)),
        harbour("rdeck", 12, Team::Red, (1, 0, 0)),
        water("bw", 60),
        water("bw2", 62),
        water("spare", 64),
        water("late", 66),
    ]);
    put(&mut cells, 2, -2, "bc", 1);
    put(&mut cells, 2, 3, "late", 0);
    let data = data_of(cards);
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": cells,
        "players": [{"hand": [], "harbour_deck": ["rdeck"], "money": 4},
                    {"hand": ["bw2"], "money": 4}],
        "water_deck": ["spare"],
        "turn": [{"seat": 0, "card": "rh"}, {"seat": 1, "card": "bw"}]}),
    );
    assert_eq!(order(&s), vec![1, 0]);
    // Black fills (3,3); Red's harbour card can only go to (3,-2), which is crane-blocked.
    let t = act(&s, 1, place(3, 3));
    let s = t.state;
    assert_eq!(hand_ids(&s, 0), vec!["rh"]);
    assert_eq!(s.players[0].harbour_deck.len(), 1, "no draw");
    assert_eq!(s.players[0].money, 4, "no coin");
    let rec = &t.rounds[0];
    assert_eq!(rec.seats[0].success, Some(false));
    assert!(
        t.events
            .iter()
            .any(|e| e.kind == "card_returned" && e.data["reason"] == "no_legal_placement")
    );
    // Next round Red has no selectable card: it may only pass.
    assert_eq!((s.phase, s.round), (Phase::Choose, 2));
    assert_eq!(Kontor::legal(&s, 0), Some(vec![pass()]));
}

#[test]
fn decision_9_a_card_without_a_legal_placement_cannot_be_chosen() {
    let (mut cards, mut cells) = filled((-2, 3), (-2, 3), &[(3, -2), (2, -2)]);
    cards.extend([
        crane("bc", 28, Team::Black),
        harbour("rh", 10, Team::Red, (1, 0, 0)),
        water("rw", 61),
    ]);
    put(&mut cells, 2, -2, "bc", 1);
    let data = data_of(cards);
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": cells,
        "players": [{"hand": ["rh", "rw"], "money": 4}, {"hand": [], "money": 4}]}),
    );
    let legal = Kontor::legal(&s, 0).expect("choosing");
    assert!(!is_listed(&legal, &choose("rh")));
    assert!(is_listed(&legal, &choose("rw")));
    let why = reject(&s, 0, choose("rh"));
    assert!(why.contains("no legal placement"), "{why}");
    let why = reject(&s, 0, choose("nope"));
    assert!(why.contains("not in your hand"), "{why}");
}

#[test]
fn decision_10_equal_numbers_let_the_lower_seat_go_first() {
    let data = data_with(vec![
        harbour("r5", 5, Team::Red, (1, 0, 0)),
        harbour("b5", 5, Team::Black, (1, 0, 0)),
    ]);
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": cross_cells(), "players": [
        {"hand": ["r5"], "money": 4}, {"hand": ["b5"], "money": 4}]}),
    );
    let s = act(&act(&s, 1, choose("b5")).state, 0, choose("r5")).state;
    assert_eq!(order(&s), vec![0, 1]);
}

fn duel_ship_position() -> (KontorData, Value) {
    // The ship is at the centre. Black's ship card "bs" at (1,1), Red's own ship
    // card "rs" at (-1,-1), Black's plain card "bp" at (-1,1).
    let data = data_with(vec![
        with_ship(harbour("bs", 4, Team::Black, (1, 0, 0))),
        with_ship(harbour("rs", 3, Team::Red, (0, 1, 0))),
        harbour("bp", 6, Team::Black, (0, 0, 1)),
        with_ship(harbour("rplay", 30, Team::Red, (1, 0, 0))),
        harbour("h1", 31, Team::Red, (1, 0, 0)),
        harbour("h2", 33, Team::Red, (1, 0, 0)),
        harbour("h3", 35, Team::Red, (1, 0, 0)),
        water("wa", 60),
        water("wb", 62),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "bs", 1);
    put(&mut board, -1, -1, "rs", 0);
    put(&mut board, -1, 1, "bp", 1);
    let position = json!({"board": board,
        "players": [{"hand": ["h1", "h2", "wa", "wb"], "harbour_deck": ["h3"], "money": 4},
                    {"hand": [], "money": 4}],
        "turn": [{"seat": 0, "card": "rplay"}]});
    (data, position)
}

#[test]
fn decision_11_after_taking_back_an_own_card_the_hand_only_draws_up_to_three() {
    let (data, position) = duel_ship_position();
    let s = load(&data, Variant::Duel, position);
    let t = act(
        &s,
        0,
        json!({"type": "place", "cell": {"x": 2, "y": 1},
        "ship_to": {"x": -1, "y": 0}, "remove": {"x": -1, "y": -1}}),
    );
    let s = t.state;
    let harbour_in_hand = s.players[0]
        .hand
        .iter()
        .filter(|c| c.kind == CardKind::Harbour)
        .count();
    assert_eq!(harbour_in_hand, 3);
    assert!(hand_ids(&s, 0).contains(&"rs".to_string()));
    assert_eq!(
        s.players[0].harbour_deck.len(),
        1,
        "no draw above 3 harbour cards"
    );
    assert_eq!(t.rounds[0].seats[0].drew, 0);
}

#[test]
fn decision_12_the_ship_removes_one_ship_card_of_either_team() {
    let (data, position) = duel_ship_position();
    let s = load(&data, Variant::Duel, position);
    let legal = Kontor::legal(&s, 0).expect("red acts");
    assert!(
        legal
            .iter()
            .any(|v| v.get("template") == Some(&json!(true))),
        "many placements: templates"
    );
    let removal = json!({"type": "place", "cell": {"x": 1, "y": 1},
        "ship_to": {"x": 1, "y": 0}, "remove": {"x": 1, "y": 1}});
    assert!(
        is_listed(&legal, &removal),
        "the emptied cell may take the card"
    );
    let t = act(&s, 0, removal);
    assert!(
        hand_ids(&t.state, 1).contains(&"bs".to_string()),
        "back to Black's hand"
    );
    assert_eq!(t.state.ship, Some(at(1, 0)));
    assert!(t.events.iter().any(|e| e.kind == "card_removed"));
    // Rejections, each naming its rule.
    let cases = [
        (
            json!({"type": "place", "cell": {"x": 2, "y": 1}, "remove": {"x": 1, "y": 1}}),
            "after moving the ship",
        ),
        (
            json!({"type": "place", "cell": {"x": 2, "y": 1}, "ship_to": {"x": 0, "y": 0}}),
            "already stands there",
        ),
        (
            json!({"type": "place", "cell": {"x": 2, "y": 1}, "ship_to": {"x": 1, "y": 1}}),
            "water-type",
        ),
        (
            json!({"type": "place", "cell": {"x": 2, "y": 1}, "ship_to": {"x": 0, "y": 1}, "remove": {"x": -1, "y": 1}}),
            "no ship symbol",
        ),
        (
            json!({"type": "place", "cell": {"x": 2, "y": 1}, "ship_to": {"x": -2, "y": 0}, "remove": {"x": 1, "y": 1}}),
            "not orthogonally adjacent",
        ),
        (
            json!({"type": "place", "cell": {"x": 2, "y": 1}, "ship_to": {"x": 1, "y": 0}, "remove": {"x": 1, "y": 1}, "recipient_seat": 1}),
            "only named in the team game",
        ),
    ];
    for (action, text) in cases {
        let why = reject(&s, 0, action.clone());
        assert!(why.contains(text), "{action}: {why}");
    }
}

#[test]
fn a_ship_move_without_a_removal_is_allowed_and_frozen_cards_cannot_be_removed() {
    let (data, position) = duel_ship_position();
    let mut position = position;
    // Close Black's card at (1,1) by water on (2,1) and (1,2): it is scored and frozen.
    let mut cards = data.cards.clone();
    cards.extend([water("c1", 80), water("c2", 82)]);
    let data = data_of(cards);
    let board = position["board"].as_array_mut().expect("array");
    board.push(json!({"x": 2, "y": 1, "card": "c1"}));
    board.push(json!({"x": 1, "y": 2, "card": "c2"}));
    let s = load(&data, Variant::Duel, position);
    assert_eq!(s.scored_regions.len(), 1);
    assert_eq!(
        s.scored_regions[0].round, 0,
        "scored when the position was loaded"
    );
    let why = reject(
        &s,
        0,
        json!({"type": "place", "cell": {"x": 3, "y": 1},
        "ship_to": {"x": 1, "y": 0}, "remove": {"x": 1, "y": 1}}),
    );
    assert!(why.contains("frozen"), "{why}");
    let t = act(
        &s,
        0,
        json!({"type": "place", "cell": {"x": 3, "y": 1}, "ship_to": {"x": 2, "y": 1}}),
    );
    assert_eq!(t.state.ship, Some(at(2, 1)));
}

#[test]
fn decision_13_unwon_regions_take_top_5_slots() {
    // Duel, 7×7 full board: five two-card pub regions (not won) and one red wine card.
    let pairs = [
        ((-3, -3), (-2, -3)),
        ((0, -3), (1, -3)),
        ((-3, 3), (-2, 3)),
        ((0, 3), (1, 3)),
        ((3, -1), (3, 0)),
    ];
    let mut skip: Vec<(i32, i32)> = pairs.iter().flat_map(|(a, b)| [*a, *b]).collect();
    skip.push((-3, 0));
    let (mut cards, mut cells) = filled((-3, 3), (-3, 3), &skip);
    for (i, (a, b)) in pairs.iter().enumerate() {
        for (j, (x, y)) in [a, b].into_iter().enumerate() {
            let id = format!("pub{i}_{j}");
            let mut c = harbour(&id, 90 + (2 * i + j) as i64, Team::Red, (0, 0, 0));
            c.tavern = true;
            cards.push(c);
            put(&mut cells, *x, *y, &id, 0);
        }
    }
    cards.push(harbour("wine", 7, Team::Red, (1, 0, 0)));
    put(&mut cells, -3, 0, "wine", 0);
    let s = load(
        &data_of(cards),
        Variant::Duel,
        json!({"board": cells, "players": players(&[4, 4])}),
    );
    assert_eq!(s.phase, Phase::Finished);
    let r = s.result.as_ref().expect("finished");
    assert_eq!(r.reason, EndReason::BoardFull);
    assert_eq!(s.scored_regions.len(), 6);
    assert_eq!(r.counted.len(), 5);
    assert!(
        r.counted
            .iter()
            .all(|i| s.scored_regions[*i].winner.is_none())
    );
    assert_eq!((r.points.red, r.points.black), (0, 0));
    assert_eq!((r.winner, r.decided_by.as_str()), (None, "draw"));
    let Progress::Finished(o) = Kontor::progress(&s) else {
        panic!("finished")
    };
    assert!(o.placings.iter().all(|p| p.rank == 1));
}

#[test]
fn decision_14_basic_counts_every_marker_beyond_five() {
    let spots = [(-2, -2), (0, -2), (3, -2), (-2, 3), (1, 3), (3, 1)];
    let (mut cards, mut cells) = filled((-2, 3), (-2, 3), &spots);
    for (i, (x, y)) in spots.iter().enumerate() {
        let id = format!("r{i}");
        cards.push(harbour(&id, i as i64 + 1, Team::Red, (0, 1, 0)));
        put(&mut cells, *x, *y, &id, 0);
    }
    let s = load(
        &data_of(cards),
        Variant::Basic,
        json!({"board": cells, "players": players(&[3, 5])}),
    );
    let r = s.result.as_ref().expect("a full board ends the game");
    assert_eq!((r.points.red, r.points.black), (6, 0));
    assert_eq!(r.winner, Some(Team::Red));
    assert_eq!(r.decided_by, "points");
    let Progress::Finished(o) = Kontor::progress(&s) else {
        panic!("finished")
    };
    assert_eq!(
        (o.placings[0].seat, o.placings[0].rank, o.placings[0].score),
        (0, 1, 6)
    );
    assert_eq!((o.placings[1].seat, o.placings[1].rank), (1, 2));
}

#[test]
fn a_points_tie_goes_to_the_team_with_more_money() {
    let (cards, cells) = filled((-2, 3), (-2, 3), &[]);
    let s = load(
        &data_of(cards),
        Variant::Basic,
        json!({"board": cells, "players": players(&[3, 5])}),
    );
    let r = s.result.as_ref().expect("finished");
    assert_eq!(
        (r.winner, r.decided_by.as_str()),
        (Some(Team::Black), "money")
    );
    assert_eq!(
        Kontor::progress(&s),
        Progress::Finished(crate::games::Outcome {
            placings: vec![
                crate::games::Placing {
                    seat: 1,
                    score: 0,
                    rank: 1
                },
                crate::games::Placing {
                    seat: 0,
                    score: 0,
                    rank: 2
                },
            ]
        })
    );
}

fn team_data(extra: Vec<Card>) -> KontorData {
    data_with(extra)
}

#[test]
fn decision_15_a_customs_as_harbour_adds_one_to_the_marker() {
    let data = team_data(vec![
        harbour("r1", 1, Team::Red, (1, 0, 0)),
        special("cu", Some(92), SpecialKind::Customs),
        water("w1", 60),
        water("w2", 61),
        water("w3", 62),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "r1", 0);
    board.push(json!({"x": 2, "y": 1, "card": "cu", "as": "harbour", "played_by": 3}));
    put(&mut board, 1, 2, "w1", 2);
    put(&mut board, 3, 1, "w2", 2);
    let s = load(
        &data,
        Variant::Team,
        json!({"board": board, "players": players(&[4, 4, 4, 4]),
        "turn": [{"seat": 1, "card": "w3"}]}),
    );
    let s = act(&s, 1, place(2, 2)).state;
    let r = &s.scored_regions[0];
    assert_eq!(
        (r.size, r.customs, r.winner, r.value),
        (2, 1, Some(Team::Red), 2)
    );
    assert_eq!(s.markers().red, 2);
}

#[test]
fn decision_15_a_customs_as_water_gives_no_coin_and_no_draw() {
    let data = team_data(vec![
        special("cu", Some(92), SpecialKind::Customs),
        water("top", 60),
    ]);
    let s = load(
        &data,
        Variant::Team,
        json!({"board": cross_cells(), "players": players(&[4, 4, 4, 4]),
        "water_deck": ["top"], "turn": [{"seat": 2, "card": "cu"}]}),
    );
    let why = reject(&s, 2, place(1, 1));
    assert!(why.contains("declare"), "{why}");
    let why = reject(&s, 0, place(1, 1));
    assert!(why.contains("seat 2's turn"), "{why}");
    let t = act(
        &s,
        2,
        json!({"type": "place", "cell": {"x": 1, "y": 1}, "as": "water"}),
    );
    let s = t.state;
    assert_eq!(s.players[2].money, 4);
    assert_eq!(s.water_deck.len(), 1);
    assert_eq!(s.layout().cell_type(at(1, 1)), Some(CellType::Water));
    assert!(
        s.layout().water_cells().contains(&at(1, 1)),
        "the ship may stand on it"
    );
    assert_eq!(t.rounds[0].seats[2].kind.as_deref(), Some("customs_water"));
}

#[test]
fn decision_16_a_bridge_cannot_cover_the_centre_the_ship_a_frozen_neighbour_or_a_crane_blocked_cell()
 {
    let data = team_data(vec![
        special("br", Some(90), SpecialKind::Bridge),
        harbour("r1", 1, Team::Red, (1, 0, 0)),
        water("w1", 60),
        water("w2", 61),
        crane("bc", 28, Team::Black),
        harbour("two", 2, Team::Red, (1, 1, 0)),
        harbour("r9", 9, Team::Red, (0, 0, 1)),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, -1, "r9", 1);
    // A closed red region at (1,1): frozen when loaded.
    put(&mut board, 1, 1, "r1", 0);
    put(&mut board, 2, 1, "w1", 0);
    put(&mut board, 1, 2, "w2", 0);
    put(&mut board, -2, -1, "bc", 2);
    put(&mut board, -1, -1, "two", 0);
    let s = load(
        &data,
        Variant::Team,
        json!({"board": board, "players": players(&[4, 4, 4, 4]),
        "ship": {"x": -1, "y": 0}, "turn": [{"seat": 0, "card": "br"}]}),
    );
    assert_eq!(s.scored_regions.len(), 1);
    for (x, y, text) in [
        (0, 0, "centre"),
        (-1, 0, "ship"),
        (2, 1, "frozen"),
        (-2, 0, "crane-blocked"),
        (-1, -1, "only cover a water card"),
        (3, 3, "empty"),
    ] {
        let why = reject(&s, 0, place(x, y));
        assert!(why.contains(text), "({x},{y}): {why}");
    }
    // A bridge on (0,-1) joins the region of (-2,-1) and (-1,-1) with (1,-1).
    let t = act(&s, 0, place(0, -1));
    let s = t.state;
    let cell = s
        .board
        .iter()
        .find(|c| c.coord() == at(0, -1))
        .expect("bridged");
    assert_eq!(cell.cell_type, CellType::Harbour);
    assert_eq!(cell.covered.len(), 1);
    assert!(
        s.layout()
            .regions()
            .contains(&vec![at(-2, -1), at(-1, -1), at(0, -1), at(1, -1)])
    );
    assert_eq!(s.players[0].hand.len(), 0, "a special card gives no draw");
}

#[test]
fn a_flood_covers_only_a_one_good_harbour_card_or_a_bridge() {
    let data = team_data(vec![
        special("fl", Some(88), SpecialKind::Flood),
        harbour("one", 1, Team::Black, (0, 0, 1)),
        harbour("two", 2, Team::Black, (1, 0, 1)),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "one", 2);
    put(&mut board, -1, -1, "two", 2);
    let s = load(
        &data,
        Variant::Team,
        json!({"board": board, "players": players(&[4, 4, 4, 4]),
        "turn": [{"seat": 1, "card": "fl"}]}),
    );
    for (x, y, text) in [
        (-1, -1, "exactly one commodity"),
        (1, 0, "exactly one commodity"),
        (2, 2, "empty"),
    ] {
        let why = reject(&s, 1, place(x, y));
        assert!(why.contains(text), "({x},{y}): {why}");
    }
    let s = act(&s, 1, place(1, 1)).state;
    let cell = s
        .board
        .iter()
        .find(|c| c.coord() == at(1, 1))
        .expect("flooded");
    assert_eq!(cell.cell_type, CellType::Water);
    assert_eq!(cell.covered[0].id, "one");
    assert_eq!(s.layout().regions(), vec![vec![at(-1, -1)]]);
}

#[test]
fn decision_18_team_taxes_settle_per_opposite_pair() {
    let data = team_data(vec![
        with_coin(harbour("r0", 10, Team::Red, (1, 0, 0))),
        harbour("r1", 11, Team::Red, (1, 0, 0)),
        harbour("b2", 12, Team::Black, (1, 0, 0)),
        harbour("b3", 14, Team::Black, (1, 0, 0)),
    ]);
    let mut s = load(
        &data,
        Variant::Team,
        json!({"board": cross_cells(), "players": [
        {"hand": ["r0"], "money": 4}, {"hand": ["r1"], "money": 4},
        {"hand": ["b2"], "money": 4}, {"hand": ["b3"], "money": 4}]}),
    );
    assert_eq!(s.bank, 4);
    for (seat, id) in ["r0", "r1", "b2", "b3"].iter().enumerate() {
        s = act(&s, seat, choose(id)).state;
    }
    assert_eq!(
        money(&s),
        vec![4, 4, 3, 4],
        "only seat 2, opposite the coin card, pays"
    );
    assert_eq!(s.bank, 5);
}

#[test]
fn decision_19_the_remover_chooses_which_seat_of_the_owning_team_takes_the_card() {
    let data = team_data(vec![
        with_ship(harbour("bs", 4, Team::Black, (1, 0, 0))),
        with_ship(water("sw", 70)),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "bs", 2);
    let s = load(
        &data,
        Variant::Team,
        json!({"board": board, "players": players(&[4, 4, 4, 4]),
        "turn": [{"seat": 0, "card": "sw"}]}),
    );
    let base = json!({"type": "place", "cell": {"x": 1, "y": 1},
        "ship_to": {"x": 1, "y": 0}, "remove": {"x": 1, "y": 1}});
    let why = reject(&s, 0, base.clone());
    assert!(why.contains("recipient_seat"), "{why}");
    let mut wrong = base.clone();
    wrong["recipient_seat"] = json!(1);
    let why = reject(&s, 0, wrong);
    assert!(why.contains("team black"), "{why}");
    let mut right = base;
    right["recipient_seat"] = json!(3);
    assert!(is_listed(&Kontor::legal(&s, 0).expect("acts"), &right));
    let s = act(&s, 0, right).state;
    assert_eq!(hand_ids(&s, 3), vec!["bs"]);
}

#[test]
fn filling_the_board_ends_the_game_at_once_without_draw_or_water_coin() {
    let (mut cards, cells) = filled((-2, 3), (-2, 3), &[(3, 3)]);
    cards.extend([
        water("last", 60),
        water("top", 61),
        harbour("rh", 10, Team::Red, (1, 0, 0)),
    ]);
    let s = load(
        &data_of(cards),
        Variant::Basic,
        json!({"board": cells, "players": players(&[4, 4]),
        "water_deck": ["top"], "turn": [{"seat": 0, "card": "rh"}, {"seat": 1, "card": "last"}]}),
    );
    assert_eq!(order(&s), vec![1, 0]);
    let t = act(&s, 1, place(3, 3));
    let s = t.state;
    assert_eq!(s.phase, Phase::Finished);
    assert_eq!(
        s.result.as_ref().map(|r| r.reason),
        Some(EndReason::BoardFull)
    );
    assert_eq!(s.players[1].money, 4, "no water grant after the game ended");
    assert_eq!(s.water_deck.len(), 1, "no draw");
    assert_eq!(
        hand_ids(&s, 0),
        vec!["rh"],
        "the later seat takes its card back"
    );
    assert_eq!(t.rounds[0].outcome, "board_full");
    assert_eq!(t.rounds[0].seats[0].success, Some(false));
    assert!(t.events.iter().any(|e| e.kind == "game_ended"));
    assert_eq!(s.round_log.seats.len(), 0, "the round was closed");
    assert_eq!(
        s.previous_round.as_ref().map(|r| r.seats[0].result),
        Some(SeatResult::ReturnedAtEnd)
    );
}

#[test]
fn decision_17_a_game_where_nobody_has_a_selectable_card_ends_blocked() {
    let (mut cards, mut cells) = filled((-2, 3), (-2, 3), &[(3, 3), (3, -2), (2, -2), (2, 3)]);
    cards.extend([
        crane("bc", 28, Team::Black),
        crane("bd", 26, Team::Black),
        harbour("rh", 10, Team::Red, (1, 0, 0)),
    ]);
    put(&mut cells, 2, -2, "bc", 1);
    put(&mut cells, 2, 3, "bd", 1);
    let s = load(
        &data_of(cards),
        Variant::Basic,
        json!({"board": cells,
        "players": [{"hand": ["rh"], "money": 4}, {"hand": [], "money": 4}]}),
    );
    assert_eq!(s.phase, Phase::Finished);
    assert_eq!(
        s.result.as_ref().map(|r| r.reason),
        Some(EndReason::Blocked)
    );
    assert!(
        s.scored_regions.is_empty(),
        "open regions are not scored at a blocked end"
    );
    assert_eq!(Kontor::legal(&s, 0), None);
}

#[test]
fn removing_a_ship_symbol_bridge_empties_its_cell_and_keeps_the_covered_card_out_of_play() {
    // Custom data: a bridge with a ship symbol (the schema allows it).
    let data = team_data(vec![
        with_ship(special("br", Some(90), SpecialKind::Bridge)),
        with_ship(water("sw", 70)),
        water("under", 71),
        with_ship(water("sx", 72)),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "under", 2);
    let mut p = players(&[4, 4, 4, 4]);
    p[0]["hand"] = json!(["sx"]);
    let s = load(
        &data,
        Variant::Team,
        json!({"board": board, "players": p,
        "turn": [{"seat": 2, "card": "br"}, {"seat": 0, "card": "sw"}]}),
    );
    assert_eq!(order(&s), vec![2, 0]);
    let s = act(&s, 2, place(1, 1)).state;
    let s = act(&s, 0, place(2, 1)).state;
    let cell = s
        .board
        .iter()
        .find(|c| c.coord() == at(1, 1))
        .expect("bridge");
    assert_eq!(cell.covered[0].id, "under");
    check_conservation(&s, &data);
    // Next round seat 0 plays a ship card, moves next to the bridge and removes it.
    let mut s = s;
    for seat in 0..4 {
        let a = if seat == 0 { choose("sx") } else { pass() };
        s = act(&s, seat, a).state;
    }
    let t = act(
        &s,
        0,
        json!({"type": "place", "cell": {"x": 3, "y": 1},
        "ship_to": {"x": 1, "y": 0}, "remove": {"x": 1, "y": 1}, "recipient_seat": 3}),
    );
    let s = t.state;
    assert!(s.layout().get(at(1, 1)).is_none(), "the cell is empty");
    assert_eq!(
        hand_ids(&s, 3),
        vec!["br"],
        "the neutral card goes to the team of the seat that played it"
    );
    assert_eq!(
        s.discarded
            .iter()
            .map(|c| c.id.as_str())
            .collect::<Vec<_>>(),
        vec!["under"]
    );
    check_conservation(&s, &data);
}

// ---------------------------------------------------------------------------
// The surface: data, info, options, setup, views, positions, null moves.

fn real_data() -> KontorData {
    let files: Vec<(&str, &str)> = Kontor::data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    Kontor::load_data(&files).expect("embedded data loads")
}

#[test]
fn the_data_files_carry_their_classification_and_the_placeholder_lists() {
    for f in Kontor::data_files() {
        let v: Value = serde_json::from_str(f.embedded).expect("json");
        let placeholder = v["placeholder"].as_bool().expect("placeholder flag");
        assert_eq!(placeholder, f.name != "components.json", "{}", f.name);
        assert!(
            v["source"].is_string() && v["note"].is_string(),
            "{}",
            f.name
        );
    }
    let data = real_data();
    assert_eq!(data.cards.len(), 94);
    let find = |id: &str| data.cards.iter().find(|c| c.id == id).expect(id).clone();
    let r3 = find("red_3");
    assert_eq!(
        (r3.number, r3.colour, r3.ship, r3.goods.total()),
        (Some(3), Some(Team::Red), true, 3)
    );
    let b86 = find("black_86");
    assert!(b86.tavern && b86.colour == Some(Team::Black));
    assert!(find("water_25").coin && find("water_11").ship);
    assert_eq!(find("centre").number, None);
    assert_eq!(find("customs_92").special, Some(SpecialKind::Customs));
    let numbers: BTreeSet<i64> = data.cards.iter().filter_map(|c| c.number).collect();
    assert_eq!(numbers.len(), 93, "placeholder numbers are unique");
}

#[test]
fn broken_data_is_refused() {
    let mut files: Vec<(&str, String)> = Kontor::data_files()
        .iter()
        .map(|f| (f.name, f.embedded.to_string()))
        .collect();
    files[1].1 = files[1]
        .1
        .replacen("\"colour\": \"red\"", "\"colour\": null", 1);
    let refs: Vec<(&str, &str)> = files.iter().map(|(n, c)| (*n, c.as_str())).collect();
    let err = Kontor::load_data(&refs).expect_err("a harbour card without colour");
    assert!(err.contains("no colour"), "{err}");
    let err = Kontor::load_data(&refs[..3]).expect_err("a missing file");
    assert!(err.contains("special_cards.json"), "{err}");
}

#[test]
fn the_catalogue_lists_two_and_four_seats_and_the_default_options() {
    let info = Kontor::info();
    assert_eq!(info.seats, vec![2, 4]);
    assert_eq!(
        info.options,
        serde_json::to_value(Options::default()).expect("json")
    );
    assert!(info.summary.contains("basic (2 seats") && info.summary.contains("team (4 seats"));
}

#[test]
fn without_a_variant_two_seats_play_basic_and_four_play_team() {
    let data = real_data();
    let s = Kontor::setup(&data, 2, &Options::default(), &mut rng()).expect("2 seats");
    assert_eq!((s.variant, s.board_size, s.ship), (Variant::Basic, 6, None));
    let s = Kontor::setup(&data, 4, &Options::default(), &mut rng()).expect("4 seats");
    assert_eq!(
        (s.variant, s.board_size, s.ship),
        (Variant::Team, 8, Some(at(0, 0)))
    );
    for (seats, variant) in [
        (4, Some(Variant::Duel)),
        (4, Some(Variant::Basic)),
        (2, Some(Variant::Team)),
        (3, None),
        (1, None),
    ] {
        let o = Options {
            variant,
            all_pass_policy: AllPassPolicy::NoRepeat,
        };
        let e = Kontor::setup(&data, seats, &o, &mut rng()).expect_err("does not fit");
        assert_eq!(e.code, "invalid_options", "{seats} {variant:?}");
    }
    let bad: Result<Options, _> = serde_json::from_value(json!({"variant": "solo"}));
    assert!(bad.is_err());
    let bad: Result<Options, _> = serde_json::from_value(json!({"players": 3}));
    assert!(bad.is_err());
}

#[test]
fn setup_deals_the_cross_hands_decks_money_ship_and_specials() {
    let data = real_data();
    for (variant, seats, deck, water_left, bank, aside) in [
        (Variant::Basic, 2, 19, 31, 12, 6),
        (Variant::Duel, 2, 19, 31, 12, 6),
        (Variant::Team, 4, 8, 27, 4, 2),
    ] {
        let s = Kontor::setup(
            &data,
            seats,
            &options(variant),
            &mut GameRng::from_key([9; 32]),
        )
        .expect("setup");
        assert_eq!(s.board.len(), 9);
        assert!(s.board.iter().all(|c| c.cell_type == CellType::Water));
        assert_eq!(
            s.board
                .iter()
                .find(|c| c.coord() == at(0, 0))
                .map(|c| c.card.kind),
            Some(CardKind::Centre)
        );
        assert_eq!(s.water_deck.len(), water_left);
        assert_eq!(s.bank, bank);
        assert_eq!(s.set_aside.len(), aside);
        for p in &s.players {
            let count = |k| p.hand.iter().filter(|c| c.kind == k).count();
            assert_eq!((count(CardKind::Harbour), count(CardKind::Water)), (3, 2));
            assert_eq!(
                count(CardKind::Special),
                usize::from(variant == Variant::Team)
            );
            assert_eq!(p.harbour_deck.len(), deck);
            assert!(
                p.hand
                    .iter()
                    .chain(&p.harbour_deck)
                    .filter(|c| c.kind == CardKind::Harbour)
                    .all(|c| c.colour == Some(p.team))
            );
            assert_eq!(p.money, 4);
        }
        assert_eq!(s.ship.is_some(), variant != Variant::Basic);
        assert_eq!((s.phase, s.round), (Phase::Choose, 1));
    }
}

#[test]
fn a_sealed_choice_changes_no_public_count_and_its_public_part_hides_pass_or_card() {
    let data = real_data();
    let s = Kontor::setup(&data, 2, &Options::default(), &mut rng()).expect("setup");
    let card = s.players[0].hand[0].id.clone();
    let before = serde_json::to_value(Kontor::view(&s, Viewer::Seat(1))).expect("json");
    let t = act(&s, 0, choose(&card));
    assert!(!t.completes_step && !t.reveal && t.events.is_empty() && t.rounds.is_empty());
    let mut after = serde_json::to_value(Kontor::view(&t.state, Viewer::Seat(1))).expect("json");
    assert_eq!(after["players"][0]["submitted"], json!(true));
    after["players"][0]["submitted"] = json!(false);
    assert_eq!(before, after);
    let own = Kontor::view(&t.state, Viewer::Seat(0));
    assert_eq!(
        own.my_choice,
        Some(rules::Choice::Card { card: card.clone() })
    );
    assert_eq!(own.players[0].hand_size, 5);
    let a: Action = serde_json::from_value(choose(&card)).expect("parses");
    let p: Action = serde_json::from_value(pass()).expect("parses");
    assert_eq!(Kontor::public_part(&s, 0, &a), Some(json!({})));
    assert_eq!(Kontor::public_part(&s, 0, &p), Some(json!({})));
    let pl: Action = serde_json::from_value(place(1, 1)).expect("parses");
    assert_eq!(Kontor::public_part(&s, 0, &pl), None);
    let why = reject(&t.state, 0, pass());
    assert!(why.contains("already chosen"), "{why}");
    assert_eq!(Kontor::legal(&t.state, 0), None);
    let Progress::Active(prompt) = Kontor::progress(&t.state) else {
        panic!("active")
    };
    assert_eq!(
        (prompt.kind.as_str(), prompt.sealed, prompt.awaiting),
        ("choose", true, vec![1])
    );
}

#[test]
fn the_view_draws_the_board_with_cells_regions_and_bounds() {
    let data = data_with(vec![
        harbour("a", 1, Team::Red, (1, 0, 0)),
        harbour("b", 2, Team::Red, (0, 1, 0)),
        harbour("c", 3, Team::Black, (0, 0, 1)),
        water("top", 60),
    ]);
    let mut board = cross_cells();
    put(&mut board, 1, 1, "a", 0);
    put(&mut board, 2, 1, "b", 0);
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": board, "water_deck": ["top"],
        "players": [{"hand": [], "harbour_deck": [], "money": 4}, {"hand": ["c"], "money": 4}]}),
    );
    let v = serde_json::to_value(Kontor::view(&s, Viewer::Spectator)).expect("json");
    assert_eq!(v["board"]["cells"].as_array().map(Vec::len), Some(11));
    let cell = &v["board"]["cells"][0];
    assert!(
        cell["x"].is_i64()
            && cell["y"].is_i64()
            && cell["card"]["id"].is_string()
            && cell["type"].is_string()
    );
    let bounds = &v["board"]["bounds"];
    assert_eq!(
        (
            bounds["min_x"].as_i64(),
            bounds["max_x"].as_i64(),
            bounds["width"].as_i64()
        ),
        (Some(-2), Some(2), Some(5))
    );
    assert_eq!(bounds["final_board"], json!(false));
    let region = &v["board"]["regions"][0];
    assert_eq!(region["cells"], json!([{"x": 1, "y": 1}, {"x": 2, "y": 1}]));
    assert_eq!(
        region["red"]["goods"],
        json!({"wine": 1, "spice": 1, "tea": 0})
    );
    assert_eq!(region["red"]["centre"], json!({"x": 1, "y": 1}));
    assert_eq!(region["closed"], json!(false));
    assert_eq!(
        v["water_deck"],
        json!({"size": 1, "top": serde_json::to_value(water("top", 60)).expect("json")})
    );
    assert_eq!(v["hand"], Value::Null);
    assert_eq!(v["players"][1]["hand_size"], json!(1));
    let text = v.to_string();
    assert!(!text.contains("\"c\""), "a hand card in the spectator view");
    let own = serde_json::to_value(Kontor::view(&s, Viewer::Seat(1))).expect("json");
    assert_eq!(own["hand"][0]["id"], json!("c"));
}

#[test]
fn the_round_record_holds_cards_taxes_placements_and_money() {
    let s = tax_position([4, 4], &["r14"], &["w61"]);
    let s = act(&act(&s, 0, choose("r14")).state, 1, choose("w61")).state;
    // Both owe (each card has a coin) and both pay; 61 acts first.
    assert_eq!(order(&s), vec![1, 0]);
    let s = act(&s, 1, place(1, 1)).state;
    let t = act(&s, 0, place(-1, 1));
    let r = &t.rounds[0];
    assert_eq!(
        (r.round, r.outcome.as_str(), r.lead_seat),
        (1, "placed", Some(1))
    );
    assert_eq!(r.seats[0].card.as_deref(), Some("r14"));
    assert_eq!(r.seats[0].kind.as_deref(), Some("harbour"));
    assert_eq!(r.seats[0].stake, Some(1));
    assert_eq!(r.seats[0].choice.as_deref(), Some("(-1,1)"));
    assert_eq!(r.seats[0].success, Some(true));
    assert_eq!((r.seats[0].delta, r.seats[1].delta), (-1, 0));
    let ledger: Vec<(usize, i64, &str)> = r
        .ledger
        .iter()
        .map(|l| (l.seat, l.amount, l.reason.as_str()))
        .collect();
    assert_eq!(
        ledger,
        vec![(0, -1, "tax"), (1, -1, "tax"), (1, 1, "water_grant")]
    );
    let kinds: Vec<&str> = t.events.iter().map(|e| e.kind.as_str()).collect();
    assert!(kinds.contains(&"card_placed") && kinds.contains(&"round_ended"));
}

#[test]
fn null_moves_pass_when_allowed_and_place_on_the_first_legal_cell() {
    let s = tax_position([4, 4], &["r14"], &["w61"]);
    assert_eq!(Kontor::null_move(&s, 0), Some(Action::Pass {}));
    let mut no_pass = s.clone();
    no_pass.last_round_all_passed = true;
    assert_eq!(
        Kontor::null_move(&no_pass, 0),
        Some(Action::Choose { card: "r14".into() })
    );
    let s = act(&act(&s, 0, choose("r14")).state, 1, choose("w61")).state;
    assert_eq!(Kontor::null_move(&s, 0), None);
    let Some(Action::Place { cell, .. }) = Kontor::null_move(&s, 1) else {
        panic!("a placement")
    };
    assert_eq!(cell, at(0, -3), "the first frontier cell in reading order");
    let a = Kontor::null_move(&s, 1).expect("move");
    Kontor::validate(&s, 1, &a).expect("the null move is legal");
}

#[test]
fn bad_positions_are_refused_with_a_reason() {
    let data = data_with(vec![
        harbour("r1", 1, Team::Red, (1, 0, 0)),
        harbour("b1", 2, Team::Black, (1, 0, 0)),
        special("fl", Some(88), SpecialKind::Flood),
    ]);
    let good = json!({"board": cross_cells(), "players": players(&[4, 4])});
    let cases: Vec<(Value, &str)> = vec![
        (
            json!({"board": cross_cells(), "players": [{"hand": ["r1", "r1"], "money": 4}, {"hand": [], "money": 4}]}),
            "already somewhere",
        ),
        (
            json!({"board": cross_cells(), "players": [{"hand": ["zz"], "money": 4}, {"hand": [], "money": 4}]}),
            "no card zz",
        ),
        (
            json!({"board": cross_cells(), "players": [{"hand": ["b1"], "money": 4}, {"hand": [], "money": 4}]}),
            "other team",
        ),
        (
            json!({"board": cross_cells(), "players": [{"hand": ["fl"], "money": 4}, {"hand": [], "money": 4}]}),
            "team variant",
        ),
        (
            json!({"board": cross_cells(), "players": players(&[15, 6])}),
            "more than the 20",
        ),
        (
            json!({"board": cross_cells(), "players": players(&[4, 4, 4])}),
            "3 players for 2 seats",
        ),
        (
            json!({"board": cross_cells()[1..].to_vec(), "players": players(&[4, 4])}),
            "centre",
        ),
        (
            json!({"board": cross_cells(), "players": players(&[4, 4]), "ship": {"x": 1, "y": 0}}),
            "no ship",
        ),
        (
            json!({"board": cross_cells(), "players": players(&[4, 4]), "fixed_x": [-2, 2]}),
            "span exactly 6",
        ),
    ];
    for (position, text) in cases {
        let position: Position = serde_json::from_value(position).expect("parses");
        let e =
            Kontor::from_position(&data, 2, &options(Variant::Basic), position).expect_err(text);
        assert_eq!(e.code, "invalid_position");
        assert!(e.message.contains(text), "{text}: {}", e.message);
    }
    let mut wide = cross_cells();
    put(&mut wide, 3, 0, "r1", 0);
    put(&mut wide, -3, 0, "b1", 1);
    let e = Kontor::from_position(
        &data,
        2,
        &options(Variant::Basic),
        serde_json::from_value(json!({"board": wide, "players": players(&[4, 4])}))
            .expect("parses"),
    )
    .expect_err("7 wide");
    assert!(e.message.contains("more than 6"), "{}", e.message);
    let unknown: Result<Position, _> =
        serde_json::from_value(json!({"board": [], "players": [], "bank": 3}));
    assert!(unknown.is_err(), "unknown fields are refused");
    let _ = load(&data, Variant::Basic, good);
}

#[test]
fn the_engine_source_uses_no_io_clock_or_framework() {
    let sources = [
        include_str!("mod.rs"),
        include_str!("rules.rs"),
        include_str!("board.rs"),
        include_str!("cards.rs"),
        include_str!("moves.rs"),
        include_str!("view.rs"),
        include_str!("position.rs"),
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
            assert!(!src.contains(word), "{word} in the engine source");
        }
    }
}

#[test]
fn extreme_coordinates_are_refused_without_panicking() {
    let (data, position) = duel_ship_position();
    let s = load(&data, Variant::Duel, position);
    for v in [i32::MAX, i32::MIN] {
        for action in [
            json!({"type": "place", "cell": {"x": v, "y": v}}),
            json!({"type": "place", "cell": {"x": 1, "y": 1}, "ship_to": {"x": v, "y": 0}}),
            json!({"type": "place", "cell": {"x": v, "y": 0}, "ship_to": {"x": 1, "y": 0}, "remove": {"x": v, "y": v}}),
        ] {
            let a: Action = serde_json::from_value(action).expect("parses");
            assert!(Kontor::validate(&s, 0, &a).is_err());
        }
    }
    let extreme = json!({"board": [{"x": 0, "y": 0, "card": "centre"}, {"x": i32::MAX, "y": i32::MIN, "card": "x1"}],
        "players": players(&[4, 4]), "round": u32::MAX});
    let e = Kontor::from_position(
        &data,
        2,
        &options(Variant::Duel),
        serde_json::from_value(extreme).expect("parses"),
    )
    .expect_err("far too wide");
    assert_eq!(e.code, "invalid_position");
    let last = json!({"board": cross_cells(), "players": players(&[4, 4]), "round": u32::MAX,
        "turn": [{"seat": 0, "card": "h1"}]});
    let s = load(&data, Variant::Duel, last);
    let s = act(&s, 0, place(1, 1)).state;
    assert_eq!(s.round, u32::MAX);
}

// ---------------------------------------------------------------------------
// Property tests: random legal games in every variant.

/// Every card of the catalogue exactly once, wherever it is.
fn check_conservation(state: &State, data: &KontorData) {
    let mut ids: Vec<&str> = Vec::new();
    for c in &state.board {
        ids.push(&c.card.id);
        ids.extend(c.covered.iter().map(|k| k.id.as_str()));
    }
    for p in &state.players {
        ids.extend(p.hand.iter().map(|k| k.id.as_str()));
        ids.extend(p.harbour_deck.iter().map(|k| k.id.as_str()));
    }
    ids.extend(state.water_deck.iter().map(|k| k.id.as_str()));
    ids.extend(state.set_aside.iter().map(|k| k.id.as_str()));
    ids.extend(state.discarded.iter().map(|k| k.id.as_str()));
    if let Some(t) = &state.turn {
        ids.extend(t.cards.iter().flatten().map(|k| k.id.as_str()));
    }
    ids.sort_unstable();
    let mut all: Vec<&str> = data.cards.iter().map(|c| c.id.as_str()).collect();
    all.sort_unstable();
    assert_eq!(ids, all, "cards are conserved");
}

fn check_invariants(state: &State, data: &KontorData) {
    check_conservation(state, data);
    let coins: u32 = state.players.iter().map(|p| p.money).sum::<u32>() + state.bank;
    assert_eq!(coins, 20, "money is conserved");
    let layout = state.layout();
    if let Some(b) = layout.bounds() {
        assert!(b.width() <= state.board_size && b.height() <= state.board_size);
        if let Some([a, z]) = state.fixed_x {
            assert!(a <= b.min_x && b.max_x <= z && z - a + 1 == state.board_size);
        }
        if let Some([a, z]) = state.fixed_y {
            assert!(a <= b.min_y && b.max_y <= z && z - a + 1 == state.board_size);
        }
    }
    if let Some(ship) = state.ship {
        assert_eq!(
            layout.cell_type(ship),
            Some(CellType::Water),
            "the ship is on water"
        );
    }
    for r in &state.scored_regions {
        for c in &r.cells {
            let cell = layout.get(*c).expect("scored cells stay on the board");
            assert_eq!(cell.scored_region, Some(r.index));
        }
    }
    for region in layout.regions() {
        let frozen = region
            .iter()
            .filter(|c| layout.get(**c).is_some_and(|x| x.frozen()))
            .count();
        assert!(
            frozen == 0 || frozen == region.len(),
            "regions are frozen whole"
        );
        if frozen == 0 && state.phase != Phase::Finished {
            assert!(
                !layout.is_closed(&region),
                "a closed region is scored at once"
            );
        }
    }
    assert_eq!(state.phase == Phase::Place, state.current().is_some());
}

/// Ids that may appear in anybody's view although they are in a hand: cards
/// revealed (and sent back or returned) or removed by the ship, as logged.
fn publicly_known(state: &State) -> BTreeSet<String> {
    let mut known = BTreeSet::new();
    let logs = state
        .previous_round
        .iter()
        .chain(std::iter::once(&state.round_log).filter(|_| state.phase == Phase::Place));
    for log in logs {
        for s in &log.seats {
            if let Some(c) = &s.card {
                known.insert(c.id.clone());
            }
            if let Some(r) = s.placement.as_ref().and_then(|p| p.removed.as_ref()) {
                known.insert(r.card.clone());
            }
        }
    }
    known
}

fn strings(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

fn check_views(state: &State) {
    let known = publicly_known(state);
    let viewers: Vec<Viewer> = (0..state.seat_count())
        .map(Viewer::Seat)
        .chain([Viewer::Spectator])
        .collect();
    for viewer in viewers {
        let mut seen = BTreeSet::new();
        strings(
            &serde_json::to_value(Kontor::view(state, viewer)).expect("json"),
            &mut seen,
        );
        for p in &state.players {
            if viewer == Viewer::Seat(p.seat) {
                continue;
            }
            for c in &p.hand {
                assert!(
                    !seen.contains(&c.id) || known.contains(&c.id),
                    "{viewer:?} sees {} in seat {}'s hand",
                    c.id,
                    p.seat
                );
            }
            if let Some(rules::Choice::Card { card }) = &p.choice {
                assert!(
                    !seen.contains(card) || known.contains(card),
                    "{viewer:?} sees a sealed choice"
                );
            }
        }
        for c in &state.set_aside {
            assert!(
                !seen.contains(&c.id),
                "{viewer:?} sees an unused special card"
            );
        }
        for p in &state.players {
            for c in p.harbour_deck.iter().skip(1) {
                assert!(!seen.contains(&c.id), "deck order below the top leaked");
            }
        }
        for c in state.water_deck.iter().skip(1) {
            assert!(!seen.contains(&c.id), "water deck order leaked");
        }
    }
}

fn view_text_without_submitted(state: &State, viewer: Viewer) -> Value {
    let mut v = serde_json::to_value(Kontor::view(state, viewer)).expect("json");
    if let Some(players) = v["players"].as_array_mut() {
        for p in players {
            p["submitted"] = json!(false);
        }
    }
    v
}

/// Random actions near and far from the legal ones, to compare validate with legal.
fn probes(state: &State, legal: &[Value], rng: &mut GameRng) -> Vec<Value> {
    let mut out = Vec::new();
    let n = state.board_size;
    let cell = |rng: &mut GameRng| json!({"x": rng.below(2 * n as u64 + 1) as i64 - n as i64, "y": rng.below(2 * n as u64 + 1) as i64 - n as i64});
    let ids: Vec<String> = state
        .players
        .iter()
        .flat_map(|p| p.hand.iter().map(|c| c.id.clone()))
        .collect();
    for _ in 0..6 {
        if let Some(id) = ids.get(rng.index(ids.len().max(1))) {
            out.push(choose(id));
        }
        out.push(pass());
        let mut a = json!({"type": "place", "cell": cell(rng)});
        if rng.chance(1, 3) {
            a["ship_to"] = cell(rng);
        }
        if rng.chance(1, 4) {
            a["remove"] = cell(rng);
        }
        if rng.chance(1, 5) {
            a["recipient_seat"] = json!(rng.below(5));
        }
        if rng.chance(1, 5) {
            a["as"] = json!(if rng.chance(1, 2) { "water" } else { "harbour" });
        }
        out.push(a);
    }
    for _ in 0..6 {
        let Some(mut a) = sample(legal, rng) else {
            break;
        };
        if a["type"] != "place" {
            continue;
        }
        match rng.below(6) {
            0 => a["cell"] = cell(rng),
            1 => {
                let x = a["cell"]["x"].as_i64().unwrap_or(0) + 1;
                a["cell"]["x"] = json!(x);
            }
            2 => a["ship_to"] = cell(rng),
            3 => {
                if let Some(o) = a.as_object_mut() {
                    o.remove("ship_to");
                }
            }
            4 => a["remove"] = cell(rng),
            _ => a["recipient_seat"] = json!(rng.below(4)),
        }
        out.push(a);
    }
    out
}

struct Played {
    state: State,
    moves: Vec<(usize, Value)>,
    events: Vec<String>,
    rounds: usize,
}

/// Plays one random game; `deep` adds the expensive checks at every step.
fn play(data: &KontorData, seats: usize, opts: &Options, seed: u8, deep: bool) -> Played {
    let mut state =
        Kontor::setup(data, seats, opts, &mut GameRng::from_key([seed; 32])).expect("setup");
    let mut key = [seed; 32];
    key[0] ^= 0x5a;
    let mut rng = GameRng::from_key(key);
    key[1] ^= 0xa5;
    let mut probe_rng = GameRng::from_key(key);
    let mut moves = Vec::new();
    let mut events = Vec::new();
    let mut rounds = 0;
    for _ in 0..5000 {
        check_invariants(&state, data);
        if deep {
            check_views(&state);
        }
        let prompt = match Kontor::progress(&state) {
            Progress::Finished(o) => {
                assert_eq!(o.placings.len(), seats);
                assert!(o.placings.iter().any(|p| p.rank == 1));
                return Played {
                    state,
                    moves,
                    events,
                    rounds,
                };
            }
            Progress::Active(p) => p,
        };
        for s in 0..seats {
            assert_eq!(
                Kontor::legal(&state, s).is_some(),
                prompt.awaiting.contains(&s),
                "legal agrees with awaiting"
            );
        }
        let seat = prompt.awaiting[rng.index(prompt.awaiting.len())];
        let legal = Kontor::legal(&state, seat).expect("awaited");
        assert!(!legal.is_empty());
        if deep {
            for entry in legal.iter().filter(|e| e.get("template").is_none()) {
                let a: Action =
                    serde_json::from_value(entry.clone()).expect("a listed action parses");
                if let Err(e) = Kontor::validate(&state, seat, &a) {
                    panic!("listed {entry} refused: {}", e.message);
                }
            }
            for probe in probes(&state, &legal, &mut probe_rng) {
                let Ok(a) = serde_json::from_value::<Action>(probe.clone()) else {
                    continue;
                };
                let normal = serde_json::to_value(&a).expect("json");
                let ok = Kontor::validate(&state, seat, &a).is_ok();
                assert_eq!(
                    ok,
                    is_listed(&legal, &normal),
                    "validate and legal disagree on {normal}"
                );
            }
            let null = Kontor::null_move(&state, seat).expect("a null move");
            assert!(
                is_listed(&legal, &serde_json::to_value(&null).expect("json")),
                "the null move is legal"
            );
        }
        let chosen = sample(&legal, &mut rng).expect("a legal action");
        assert!(is_listed(&legal, &chosen));
        let action: Action = serde_json::from_value(chosen.clone()).expect("parses");
        if let Err(e) = Kontor::validate(&state, seat, &action) {
            panic!("sampled {chosen} refused: {}", e.message);
        }
        let others_before: Vec<Value> = if deep && prompt.sealed {
            (0..seats)
                .filter(|s| *s != seat)
                .map(Viewer::Seat)
                .chain([Viewer::Spectator])
                .map(|v| view_text_without_submitted(&state, v))
                .collect()
        } else {
            Vec::new()
        };
        let t =
            Kontor::apply(&state, seat, &action, &mut GameRng::from_key([1; 32])).expect("apply");
        let last = prompt.awaiting.len() == 1;
        assert_eq!(t.completes_step, !prompt.sealed || last);
        assert_eq!(t.reveal, prompt.sealed && last);
        if prompt.sealed && !last {
            assert!(
                t.events.is_empty() && t.rounds.is_empty(),
                "nothing is published before the reveal"
            );
            if deep {
                let after: Vec<Value> = (0..seats)
                    .filter(|s| *s != seat)
                    .map(Viewer::Seat)
                    .chain([Viewer::Spectator])
                    .map(|v| view_text_without_submitted(&t.state, v))
                    .collect();
                assert_eq!(
                    others_before, after,
                    "a sealed submission changes no other view"
                );
            }
        }
        for e in &t.events {
            if let Audience::Seat(s) = e.audience {
                assert_eq!(
                    (e.kind.as_str(), s),
                    ("you_drew", seat),
                    "private events go to the drawer"
                );
            }
            events.push(format!("{}:{}", e.kind, e.data));
        }
        for r in &t.rounds {
            let ledger: i64 = r.ledger.iter().map(|l| l.amount).sum();
            let deltas: i64 = r.seats.iter().map(|s| s.delta).sum();
            assert_eq!(ledger, deltas, "the ledger explains every money change");
        }
        rounds += t.rounds.len();
        moves.push((seat, chosen));
        state = t.state;
    }
    panic!("a random game did not finish in 5000 moves");
}

fn replay(
    data: &KontorData,
    seats: usize,
    opts: &Options,
    seed: u8,
    moves: &[(usize, Value)],
) -> State {
    let mut state =
        Kontor::setup(data, seats, opts, &mut GameRng::from_key([seed; 32])).expect("setup");
    for (seat, m) in moves {
        let a: Action = serde_json::from_value(m.clone()).expect("parses");
        state = Kontor::apply(&state, *seat, &a, &mut rng())
            .expect("replays")
            .state;
    }
    state
}

fn random_games(variant: Variant, policy: AllPassPolicy, seeds: std::ops::Range<u8>, deep: bool) {
    let data = real_data();
    let opts = Options {
        variant: Some(variant),
        all_pass_policy: policy,
    };
    for seed in seeds {
        let g = play(&data, variant.seats(), &opts, seed, deep);
        assert!(g.rounds > 0);
        let again = replay(&data, variant.seats(), &opts, seed, &g.moves);
        assert_eq!(
            serde_json::to_value(&again).expect("json"),
            serde_json::to_value(&g.state).expect("json"),
            "replay is exact"
        );
        let twice = play(&data, variant.seats(), &opts, seed, false);
        assert!(twice.events == g.events, "same seed, same events");
    }
}

#[test]
fn random_basic_games_finish_conserve_and_never_leak() {
    random_games(Variant::Basic, AllPassPolicy::NoRepeat, 0..12, true);
    random_games(Variant::Basic, AllPassPolicy::Allowed, 100..106, false);
}

#[test]
fn random_duel_games_finish_conserve_and_never_leak() {
    random_games(Variant::Duel, AllPassPolicy::NoRepeat, 0..12, true);
    random_games(Variant::Duel, AllPassPolicy::Allowed, 100..106, false);
}

#[test]
fn random_team_games_finish_conserve_and_never_leak() {
    random_games(Variant::Team, AllPassPolicy::NoRepeat, 0..10, true);
    random_games(Variant::Team, AllPassPolicy::Allowed, 100..106, false);
}

#[test]
fn games_of_absent_seats_playing_null_moves_finish_in_every_variant_and_policy() {
    let data = real_data();
    for variant in [Variant::Basic, Variant::Duel, Variant::Team] {
        for policy in [AllPassPolicy::NoRepeat, AllPassPolicy::Allowed] {
            let opts = Options {
                variant: Some(variant),
                all_pass_policy: policy,
            };
            let mut s = Kontor::setup(
                &data,
                variant.seats(),
                &opts,
                &mut GameRng::from_key([7; 32]),
            )
            .expect("setup");
            let mut steps = 0;
            while let Progress::Active(p) = Kontor::progress(&s) {
                let seat = p.awaiting[0];
                let a = Kontor::null_move(&s, seat).expect("a null move for an awaited seat");
                s = Kontor::apply(&s, seat, &a, &mut rng())
                    .expect("legal")
                    .state;
                steps += 1;
                assert!(steps < 3000, "{variant:?} {policy:?} does not end");
            }
            check_conservation(&s, &data);
        }
    }
}

#[test]
fn the_documented_position_example_loads() {
    let doc = include_str!("../../../docs/rules/kontor.md");
    let start = doc.find("```json\n{\n  \"round\": 5").expect("the example") + 8;
    let end = start + doc[start..].find("```").expect("its end");
    let position: Value = serde_json::from_str(&doc[start..end]).expect("the example parses");
    let s = load(&real_data(), Variant::Duel, position);
    assert_eq!(
        (s.phase, s.round, s.ship),
        (Phase::Place, 5, Some(at(1, 0)))
    );
    assert_eq!(s.bank, 11);
}

#[test]
fn a_blocked_end_after_a_round_keeps_that_round_number() {
    let data = data_with(vec![water("w", 60)]);
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": cross_cells(), "players": players(&[4, 4]),
        "round": 7, "turn": [{"seat": 0, "card": "w"}]}),
    );
    let t = act(&s, 0, place(1, 1));
    assert_eq!((t.state.phase, t.state.round), (Phase::Finished, 7));
    assert_eq!(
        t.state.result.as_ref().map(|r| r.reason),
        Some(EndReason::Blocked)
    );
    assert_eq!(t.rounds.len(), 1);
    assert_eq!(t.events.last().map(|e| e.kind.as_str()), Some("game_ended"));
}

#[test]
fn standings_are_the_team_markers_won_so_far() {
    let data = crate::games::checks::embedded_data::<Kontor>();
    for (seats, variant) in [(2, Variant::Basic), (4, Variant::Team)] {
        for (along, scores) in
            crate::games::checks::standings_along::<Kontor>(&data, seats, &options(variant), 2)
        {
            assert!(along[0].iter().all(|m| *m == 0));
            for w in along.windows(2) {
                assert!(w[0].iter().zip(&w[1]).all(|(a, b)| a <= b), "{w:?}");
            }
            let last = along.last().expect("standings");
            // Partners share their team's markers.
            if seats == 4 {
                for seat in 0..4 {
                    let partner = (0..4)
                        .find(|o| {
                            *o != seat
                                && super::rules::team_of(4, *o) == super::rules::team_of(4, seat)
                        })
                        .expect("a partner");
                    assert_eq!(last[seat], last[partner]);
                }
            }
            // Every region counts in `basic`, so its final points are the markers.
            if variant == Variant::Basic {
                assert_eq!(last, &scores);
            }
        }
    }
}

// ---------------------------------------------- cards stated in a position

#[test]
fn a_position_plays_with_the_cards_it_states_inline() {
    // The tax example, with its coin card stated by the position instead of
    // shipped in the data: the data knows only the starting cross.
    let data = data_with(vec![]);
    let stated = [
        with_coin(harbour("r14", 14, Team::Red, (0, 0, 1))),
        harbour("b52", 52, Team::Black, (1, 0, 0)),
    ];
    let s = load(
        &data,
        Variant::Basic,
        json!({"board": cross_cells(), "cards": stated, "players": [
            {"hand": ["r14"], "money": 1},
            {"hand": ["b52"], "money": 2}]}),
    );
    let s = act(&s, 0, choose("r14")).state;
    let t = act(&s, 1, choose("b52"));
    assert_eq!(money(&t.state), vec![1, 1], "the stated coin symbol taxes");
    assert_eq!(
        order(&t.state),
        vec![1, 0],
        "the stated numbers order the play"
    );
}

#[test]
fn stated_cards_are_checked_like_the_data() {
    let data = data_with(vec![]);
    let error = |cards: Value| {
        let position: Position = serde_json::from_value(json!({
            "board": cross_cells(), "cards": cards,
            "players": [{"hand": ["x"], "money": 4}, {"hand": [], "money": 4}]}))
        .expect("parses");
        Kontor::from_position(&data, 2, &options(Variant::Basic), position).expect_err("invalid")
    };
    let mut colourless = harbour("x", 3, Team::Red, (1, 0, 0));
    colourless.colour = None;
    let e = error(json!([colourless]));
    assert_eq!(e.code, "invalid_position");
    assert!(
        e.message.contains("position's cards") && e.message.contains("no colour"),
        "{}",
        e.message
    );
    let twice = harbour("x", 3, Team::Red, (1, 0, 0));
    assert!(
        error(json!([twice.clone(), twice]))
            .message
            .contains("twice")
    );
    assert!(error(json!([])).message.contains("no card x"));
}
