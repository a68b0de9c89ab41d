#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use serde_json::{Value, json};

use super::data::{CairoData, Finger};
use super::model::{Draw, Material, MissKind, Uniform, hit_probability, resolve_flick};
use super::rules::compute_move;
use super::scoring::{award, proxy_order};
use super::state::{Phase, ReportResult, State, Supply};
use super::*;
use crate::games::legal::{is_listed, sample};
use crate::games::rng::GameRng;
use crate::games::{Game, Progress, RoundRecord, Transition, Viewer};

// ---------------------------------------------------------------- helpers

fn data() -> CairoData {
    let files: Vec<(&str, &str)> = Cairo::data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    Cairo::load_data(&files).expect("embedded data loads")
}

fn options(v: Value) -> CairoOptions {
    serde_json::from_value(v).expect("options parse")
}

fn reported() -> CairoOptions {
    CairoOptions::default()
}

fn reported_dice() -> CairoOptions {
    options(json!({"dice_source": "reported"}))
}

fn simulated() -> CairoOptions {
    options(json!({"mode": "simulated"}))
}

fn position(seats: usize, opts: &CairoOptions, p: Value) -> State {
    let p: CairoPosition = serde_json::from_value(p).expect("position parses");
    Cairo::from_position(&data(), seats, opts, p).expect("position is valid")
}

fn position_err(seats: usize, opts: &CairoOptions, p: Value) -> String {
    let p: CairoPosition = serde_json::from_value(p).expect("position parses");
    match Cairo::from_position(&data(), seats, opts, p) {
        Ok(_) => panic!("position should be rejected"),
        Err(e) => {
            assert_eq!(e.code, "invalid_position");
            e.message
        }
    }
}

fn act(v: Value) -> CairoAction {
    serde_json::from_value(v).expect("action parses")
}

fn rng() -> GameRng {
    GameRng::from_key([42; 32])
}

/// Validates and applies, asserting that `legal` lists the action.
fn play(s: &State, seat: usize, a: Value) -> Transition<State> {
    let action = act(a);
    let legal = Cairo::legal(s, seat).expect("the seat owes a move");
    let norm = serde_json::to_value(&action).unwrap();
    assert!(is_listed(&legal, &norm), "{norm} not in {legal:?}");
    Cairo::validate(s, seat, &action).expect("valid");
    Cairo::apply(s, seat, &action, &mut rng()).expect("applies")
}

fn rejected(s: &State, seat: usize, a: Value) -> String {
    let action = act(a);
    let err = Cairo::validate(s, seat, &action).expect_err("must be rejected");
    if let Some(legal) = Cairo::legal(s, seat) {
        assert!(!is_listed(&legal, &serde_json::to_value(&action).unwrap()));
    }
    err.message
}

fn kind(s: &State) -> String {
    match Cairo::progress(s) {
        Progress::Active(p) => p.kind,
        Progress::Finished(_) => "finished".into(),
    }
}

fn awaiting(s: &State) -> Vec<usize> {
    match Cairo::progress(s) {
        Progress::Active(p) => p.awaiting,
        Progress::Finished(_) => vec![],
    }
}

struct Script(Vec<f64>);

impl Uniform for Script {
    fn draw(&mut self) -> Draw {
        assert!(!self.0.is_empty(), "the script ran out of draws");
        Draw::from_unit(self.0.remove(0))
    }
}

fn conserved(s: &State) {
    let full = s.full_set();
    for seat in 0..s.seats {
        let b = s.on_board(seat);
        let sup = &s.supply[seat];
        let lost = &s.lost[seat];
        assert_eq!(
            b.small + sup.small + lost.small,
            full.small,
            "small of seat {seat}"
        );
        assert_eq!(
            b.large + sup.large + lost.large,
            full.large,
            "large of seat {seat}"
        );
        assert_eq!(
            b.dice + sup.dice + lost.dice,
            full.dice,
            "dice of seat {seat}"
        );
    }
}

// ---------------------------------------------------------------- worked examples

#[test]
fn example_1_green_goes_on_to_the_next_free_space_and_skip_counts_only_free_spaces() {
    let mut s = super::rules::initial_state(&data(), 3, &reported()).unwrap();
    s.boats = vec![Some("U3".into()), Some("U5".into()), Some("START".into())];
    let (to, passed, skipped) = compute_move(&s, 2, 5).unwrap();
    assert_eq!(to, "U6");
    assert_eq!(passed, ["U1", "U2", "U3", "U4", "U5", "U6"]);
    assert_eq!(skipped, ["U5"]);
    assert_eq!(
        s.space("U6").unwrap().action,
        super::data::SpaceAction::Deliver
    );
    assert_eq!(super::rules::finger_for_roll(&s, 5), Some(Finger::Little));

    s.options.occupied_rule = OccupiedRule::Skip;
    let (to, _, skipped) = compute_move(&s, 2, 5).unwrap();
    assert_eq!(to, "U7");
    assert_eq!(skipped, ["U3", "U5"]);
}

#[test]
fn example_2_red_wraps_around_from_d5_to_u3_or_to_u4_when_u3_is_occupied() {
    let mut s = super::rules::initial_state(&data(), 2, &reported()).unwrap();
    s.boats = vec![Some("D5".into()), Some("START".into())];
    let (to, passed, _) = compute_move(&s, 0, 4).unwrap();
    assert_eq!(to, "U3");
    assert_eq!(passed, ["D6", "U1", "U2", "U3"]);
    assert_eq!(super::rules::finger_for_roll(&s, 4), Some(Finger::Ring));
    s.boats[1] = Some("U3".into());
    let (to, _, _) = compute_move(&s, 0, 4).unwrap();
    assert_eq!(to, "U4");
}

#[test]
fn example_3_influence_counts_loose_stones_the_die_face_and_pyramid_floors() {
    let s = position(
        2,
        &reported(),
        json!({
            "boats": ["U11", "U1"], "active": 0, "roll": 1, "phase": "choose_material",
            "parcels": {"L1": {
                "loose": [{"owner": "red", "small": 2, "large": 1},
                          {"owner": "blue", "dice": [5]}],
                "pyramids": [{"size": 5, "floors": [["red", "red", "blue", "blue"], ["blue"]]}]
            }}
        }),
    );
    assert_eq!(s.influence("L1"), vec![7, 9]);
}

#[test]
fn example_4_a_five_pyramid_leaves_one_red_cube_loose_and_nothing_more_can_be_built() {
    let s = position(
        3,
        &reported(),
        json!({
            "boats": ["U7", "U1", "U2"], "active": 0, "roll": 1, "phase": "build",
            "material": "small", "flicks_done": 1, "delivered_this_turn": ["L4"],
            "supply": [{"small": 11, "large": 1, "dice": 1},
                       {"small": 13, "large": 1, "dice": 1},
                       {"small": 14, "large": 1, "dice": 1}],
            "parcels": {"L4": {"loose": [{"owner": "red", "small": 3},
                                         {"owner": "blue", "small": 2},
                                         {"owner": "green", "small": 1}]}}
        }),
    );
    assert_eq!(kind(&s), "build");
    let t = play(
        &s,
        0,
        json!({"type": "build", "parcel": "L4", "size": 5,
               "cubes": ["blue-1", "blue-2", "green-1", "red-1", "red-2"]}),
    );
    let s = t.state;
    let l4 = &s.parcels["L4"];
    assert_eq!(l4.loose[0].small, 1);
    assert_eq!(l4.loose[1].small, 0);
    assert_eq!(l4.loose[2].small, 0);
    assert_eq!(l4.pyramids[0].floors, vec![vec![1, 1, 2, 0], vec![0]]);
    assert_eq!(s.influence("L4"), vec![4, 2, 1]);
    // The window closed by itself: only 1 loose cube is left; the delivery goes on.
    assert_eq!(kind(&s), "report_flick");
    let cubes: Vec<String> = vec!["red-1".into(), "red-2".into(), "red-3".into()];
    let three = super::rules::check_build(&s, "L4", 3, &cubes).unwrap_err();
    assert!(three.message.contains("red-2"), "{}", three.message);
    let four = super::rules::check_build(&s, "L4", 4, &[]).unwrap_err();
    assert!(four.message.contains("legal sizes are 3, 5, 6, 10, 14"));
    // Blue on a later turn, without a delivery to L4.
    let mut later = s.clone();
    later.active = 1;
    later.turn_state = Default::default();
    let blue = super::rules::check_build(&later, "L4", 3, &[]).unwrap_err();
    assert!(
        blue.message
            .contains("not flicked a stone onto it this turn")
    );
}

#[test]
fn example_5_tied_places_go_by_the_reported_order_or_are_shared_rounded_down() {
    // R1 16/8: Red 5, Blue 5, Green 2 (seats red 0, blue 1, green 2).
    assert_eq!(
        award(&[vec![1], vec![0], vec![2]], 16, 8, 3),
        vec![8, 16, 0]
    );
    assert_eq!(award(&[vec![1, 0], vec![2]], 16, 8, 3), vec![12, 12, 0]);
    // L1 20/10: Red 7, Blue 3, Green 3, Blue and Green inseparable.
    assert_eq!(award(&[vec![0], vec![1, 2]], 20, 10, 3), vec![20, 5, 5]);
}

#[test]
fn example_5_the_reporter_orders_the_tie_on_r1_and_the_other_seat_confirms() {
    let end = tie_game_position();
    // Red's final turn: U12 + 1 = D1, nothing to retrieve, so the game ends at once.
    let t = play(&end, 0, json!({"type": "roll", "value": 1}));
    let s = t.state;
    assert_eq!(kind(&s), "order_tie");
    assert_eq!(awaiting(&s), vec![0]);
    let legal = Cairo::legal(&s, 0).unwrap();
    assert_eq!(
        legal,
        vec![
            json!({"type": "order_tie", "template": true, "parcel": "R1",
                     "group": {"subset_of": ["red", "blue"], "min": 1, "max": 2}})
        ]
    );
    // [[blue], [red]]: the second group is completed by the engine.
    let t = play(
        &s,
        0,
        json!({"type": "order_tie", "parcel": "R1", "group": ["blue"]}),
    );
    let s2 = t.state;
    assert_eq!(kind(&s2), "confirm_report");
    // Blue is eliminated but still scored, so it is asked (decision).
    assert_eq!(awaiting(&s2), vec![1]);
    let t = play(&s2, 1, json!({"type": "confirm"}));
    assert!(t.reveal);
    let fin = t.state;
    let r1 = fin
        .result
        .as_ref()
        .unwrap()
        .parcels
        .iter()
        .find(|p| p.parcel == "R1")
        .unwrap();
    assert_eq!(r1.groups, vec![vec![1], vec![0]]);
    assert_eq!(r1.points, vec![8, 16]);
    let scoring = t.rounds.last().unwrap();
    assert_eq!(scoring.outcome, "scoring");
    assert!(
        scoring
            .ledger
            .iter()
            .any(|l| l.seat == 1 && l.amount == 16 && l.reason == "R1 place 1")
    );

    // [[blue, red]]: inseparable, 12 each.
    let t = play(
        &s,
        0,
        json!({"type": "order_tie", "parcel": "R1", "group": ["red", "blue"]}),
    );
    let t = play(&t.state, 1, json!({"type": "confirm"}));
    let r1 = t
        .state
        .result
        .as_ref()
        .unwrap()
        .parcels
        .iter()
        .find(|p| p.parcel == "R1")
        .cloned()
        .unwrap();
    assert_eq!(r1.points, vec![12, 12]);
    assert!(
        t.rounds
            .last()
            .unwrap()
            .ledger
            .iter()
            .any(|l| l.amount == 12 && l.reason == "R1 places 1-2 tied")
    );
}

/// Two seats, Blue eliminated, Red on its final turn; Red 5 and Blue 5 on R1.
fn tie_game_position() -> State {
    position(
        2,
        &reported_dice(),
        json!({
            "boats": ["U12", null], "active": 0, "final_turn_seat": 0, "phase": "roll",
            "turn": 30,
            "supply": [{"small": 5, "large": 1, "dice": 1}, {"small": 0, "large": 0, "dice": 0}],
            "parcels": {"R1": {"loose": [{"owner": "red", "small": 5}, {"owner": "blue", "small": 5}]}}
        }),
    )
}

#[test]
fn example_5_blue_and_green_share_second_place_on_l1() {
    let s = position(
        3,
        &reported_dice(),
        json!({
            "boats": ["U12", null, null], "active": 0, "final_turn_seat": 0, "phase": "roll",
            "supply": [{"small": 0, "large": 0, "dice": 0}, {"small": 0, "large": 0, "dice": 0},
                       {"small": 0, "large": 0, "dice": 0}],
            "parcels": {"L1": {"loose": [{"owner": "red", "small": 4, "large": 1},
                                         {"owner": "blue", "small": 3},
                                         {"owner": "green", "small": 3}]}}
        }),
    );
    assert_eq!(s.influence("L1"), vec![7, 3, 3]);
    let t = play(&s, 0, json!({"type": "roll", "value": 1}));
    let s = t.state;
    assert_eq!(kind(&s), "order_tie");
    let t = play(
        &s,
        0,
        json!({"type": "order_tie", "parcel": "L1", "group": ["blue", "green"]}),
    );
    let s = t.state;
    assert_eq!(awaiting(&s), vec![1, 2]);
    let s = play(&s, 1, json!({"type": "confirm"})).state;
    let t = play(&s, 2, json!({"type": "confirm"}));
    let l1 = t.state.result.as_ref().unwrap().parcels[0].clone();
    assert_eq!(l1.parcel, "L1");
    assert_eq!(l1.points, vec![20, 5, 5]);
}

#[test]
fn example_6_blue_and_green_are_eliminated_red_plays_one_more_turn_and_all_are_scored() {
    let s = position(
        3,
        &reported_dice(),
        json!({
            "boats": ["U12", "U4", "U9"], "active": 1, "phase": "roll", "turn": 20,
            "supply": [{"small": 10, "large": 1, "dice": 1},
                       {"small": 0, "large": 0, "dice": 0},
                       {"small": 1, "large": 0, "dice": 0}],
            "parcels": {"L1": {"loose": [{"owner": "blue", "small": 2}]},
                        "L2": {"loose": [{"owner": "red", "small": 1}]},
                        "R1": {"loose": [{"owner": "green", "small": 3}]}}
        }),
    );
    // Blue lands on U8 with an empty supply.
    let t = play(&s, 1, json!({"type": "roll", "value": 4}));
    let s = t.state;
    assert!(s.eliminated[1]);
    assert_eq!(s.boats[1], None);
    assert!(
        t.events
            .iter()
            .any(|e| e.kind == "eliminated" && e.data["reason"] == "empty_supply")
    );
    assert_eq!(s.active, 2);
    assert_eq!(kind(&s), "roll");
    // Green knocks over its own boat with its last stone.
    let s = play(&s, 2, json!({"type": "roll", "value": 1})).state;
    assert_eq!(s.boats[2].as_deref(), Some("U10"));
    let s = play(
        &s,
        2,
        json!({"type": "choose_material", "material": "small"}),
    )
    .state;
    let s = play(
        &s,
        2,
        json!({"type": "report", "landing": "nile", "boat_knocked_over": true}),
    )
    .state;
    assert_eq!(kind(&s), "confirm_report");
    assert_eq!(awaiting(&s), vec![0]); // only players still in the game are asked
    let t = play(&s, 0, json!({"type": "confirm"}));
    let s = t.state;
    assert!(s.eliminated[2]);
    assert!(
        t.events
            .iter()
            .any(|e| e.kind == "eliminated" && e.data["reason"] == "boat_knocked_over")
    );
    assert_eq!(s.final_turn_seat, Some(0));
    assert_eq!(s.active, 0);
    assert_eq!(kind(&s), "roll");
    // Red's extra turn: U12 + 1 = D1 with nothing to retrieve; the game ends.
    let t = play(&s, 0, json!({"type": "roll", "value": 1}));
    let s = t.state;
    assert_eq!(kind(&s), "finished");
    let r = s.result.as_ref().unwrap();
    assert_eq!(r.scores, vec![12, 20, 16]);
    match Cairo::progress(&s) {
        Progress::Finished(o) => assert_eq!(o.winners(), vec![1]),
        _ => panic!("finished"),
    }
    conserved(&s);
}

#[test]
fn example_7_a_ring_finger_large_cube_from_u5_at_l3_hits_with_p_0_35_and_misses_into_the_desert_of_z2()
 {
    let d = data();
    let p = hit_probability(&d.model, Finger::Ring, Material::Large, 2);
    assert!((p - 0.35).abs() < 1e-12, "{p}");
    let mut script = Script(vec![0.41, 0.52]);
    let f = resolve_flick(
        &d.model,
        &d.board,
        "Z4",
        "L3",
        Finger::Ring,
        Material::Large,
        6,
        &mut script,
    );
    assert_eq!(f.dzone, 2);
    assert!(!f.hit);
    assert_eq!(f.miss, Some(MissKind::Desert));
    assert_eq!(f.landing, "Z2");
    assert!(script.0.is_empty(), "exactly two draws");
    let d2 = d.board.track.iter().find(|t| t.id == "D2").unwrap();
    assert_eq!(d2.retrieve_zones, ["Z2"]);

    // The same flick through the engine lands in Z2, from where D2 retrieves it.
    let s = position(
        2,
        &simulated(),
        json!({"boats": ["U5", "U1"], "active": 0, "roll": 4, "phase": "flick",
               "material": "large"}),
    );
    assert_eq!(s.boat_zone(0).as_deref(), Some("Z4"));
}

#[test]
fn example_8_a_reported_flick_topples_a_pyramid_and_loses_its_top_cube() {
    let s = position(
        2,
        &reported(),
        json!({
            "boats": ["U11", "U1"], "active": 0, "roll": 4, "phase": "choose_material",
            "supply": [{"small": 4, "large": 1, "dice": 0}, {"small": 13, "large": 1, "dice": 1}],
            "parcels": {"L1": {"pyramids": [{"id": "P1", "size": 3, "floors": [["blue", "blue"], ["red"]]}]}}
        }),
    );
    assert_eq!(s.influence("L1"), vec![2, 2]);
    let s = play(
        &s,
        0,
        json!({"type": "choose_material", "material": "large"}),
    )
    .state;
    assert_eq!(kind(&s), "report_flick");
    // A stone that is not where the report says is rejected.
    let msg = rejected(
        &s,
        0,
        json!({"type": "displace", "owner": "blue", "stone": "small", "from": {"parcel": "L2"}, "to": "nile"}),
    );
    assert!(
        msg.contains("No small stone of blue is loose on L2"),
        "{msg}"
    );
    let msg = rejected(&s, 0, json!({"type": "report", "landing": "L99"}));
    assert!(msg.contains("L99 is not a parcel"), "{msg}");
    let s = play(&s, 0, json!({"type": "topple", "pyramid_id": "P1"})).state;
    let s = play(
        &s,
        0,
        json!({"type": "displace", "owner": "red", "stone": "small",
               "from": {"parcel": "L1", "pyramid": "P1", "floor": 2}, "to": "nile"}),
    )
    .state;
    // The same cube cannot be displaced twice.
    rejected(
        &s,
        0,
        json!({"type": "displace", "owner": "red", "stone": "small",
               "from": {"parcel": "L1", "pyramid": "P1", "floor": 2}, "to": "Z1"}),
    );
    let s = play(
        &s,
        0,
        json!({"type": "report", "landing": "L1", "boat_knocked_over": false}),
    )
    .state;
    assert_eq!(kind(&s), "confirm_report");
    assert_eq!(
        s.parcels["L1"].pyramids.len(),
        1,
        "nothing applied before confirmation"
    );
    let t = play(&s, 1, json!({"type": "confirm"}));
    let s = t.state;
    let l1 = &s.parcels["L1"];
    assert!(l1.pyramids.is_empty(), "P1 ceases to exist");
    assert_eq!(l1.loose[1].small, 2);
    assert_eq!(l1.loose[0].small, 0);
    assert_eq!(l1.loose[0].large, 1);
    assert_eq!(s.lost[0].small, 15 - 4 - 1 + 1);
    assert_eq!(s.influence("L1"), vec![3, 2]);
    // L1 was delivered to, but 2 loose cubes cannot make a pyramid: no build window,
    // and the large cube was the whole delivery, so Blue's turn begins.
    assert!(t.events.iter().all(|e| e.kind != "build"));
    assert_eq!(s.active, 1);
    let rec = &t.rounds[0];
    assert_eq!(rec.outcome, "accepted");
    assert_eq!(rec.seats[0].kind.as_deref(), Some("parcel"));
    assert_eq!(rec.seats[0].stake, Some(3), "1 displaced + 2 loosened");
    conserved(&s);
}

// ---------------------------------------------------------------- decisions and the issue

/// Two seats, reported mode, Red about to report its first small cube from U11.
fn report_position(seats: usize) -> State {
    let boats: Vec<Value> = ["U11", "U1", "U2", "U3", "U4"]
        .iter()
        .take(seats)
        .map(|b| json!(b))
        .collect();
    position(
        seats,
        &reported(),
        json!({"boats": boats, "active": 0, "roll": 2, "phase": "flick", "material": "small"}),
    )
}

#[test]
fn a_majority_dispute_discards_the_first_report_and_a_second_dispute_lets_it_stand_marked_disputed()
{
    let s = report_position(2);
    let s = play(&s, 0, json!({"type": "report", "landing": "L1"})).state;
    assert_eq!(kind(&s), "confirm_report");
    let t = play(&s, 1, json!({"type": "dispute"}));
    assert!(t.reveal && t.completes_step);
    assert!(t.rounds.is_empty(), "a discarded report writes no record");
    let s = t.state;
    assert_eq!(kind(&s), "report_flick");
    assert_eq!(
        s.parcels["L1"].loose[0].small, 0,
        "the discarded report was not applied"
    );
    let r = s.report.as_ref().unwrap();
    assert_eq!(r.attempt, 2);
    assert_eq!(r.attempts[0].result, ReportResult::Discarded);
    assert_eq!(r.attempts[0].disputed_by, vec![1]);
    let s = play(&s, 0, json!({"type": "report", "landing": "L2"})).state;
    let t = play(&s, 1, json!({"type": "dispute"}));
    let s = t.state;
    assert_eq!(
        s.parcels["L2"].loose[0].small, 1,
        "the second report stands"
    );
    let resolved: Vec<&Value> = t
        .events
        .iter()
        .filter(|e| e.kind == "report_resolved")
        .map(|e| &e.data)
        .collect();
    assert_eq!(resolved[0]["result"], "disputed");
    assert_eq!(resolved[0]["reporter"], 0);
    assert_eq!(resolved[0]["disputed_by"], json!([1]));
    let rec = &t.rounds[0];
    assert_eq!(rec.outcome, "disputed");
    assert_eq!(rec.seats[1].kind.as_deref(), Some("confirmer"));
    assert_eq!(rec.seats[1].choice.as_deref(), Some("dispute"));
    assert_eq!(rec.seats[0].choice.as_deref(), Some("L2"));
}

#[test]
fn one_dispute_among_two_confirmers_is_no_majority_and_the_report_is_accepted() {
    let s = report_position(3);
    let s = play(&s, 0, json!({"type": "report", "landing": "L1"})).state;
    assert_eq!(awaiting(&s), vec![1, 2]);
    let t = play(&s, 2, json!({"type": "dispute"}));
    assert!(!t.completes_step && !t.reveal);
    let t = play(&t.state, 1, json!({"type": "confirm"}));
    assert!(t.completes_step && t.reveal);
    assert_eq!(t.state.parcels["L1"].loose[0].small, 1);
    assert_eq!(t.rounds[0].outcome, "accepted");
    let ev = t
        .events
        .iter()
        .find(|e| e.kind == "report_resolved")
        .unwrap();
    assert_eq!(ev.data["confirmed_by"], json!([1]));
    assert_eq!(ev.data["disputed_by"], json!([2]));
}

#[test]
fn confirm_report_votes_are_sealed_until_the_step_resolves() {
    let s = report_position(3);
    let s = play(&s, 0, json!({"type": "report", "landing": "L1"})).state;
    let prompt = match Cairo::progress(&s) {
        Progress::Active(p) => p,
        _ => panic!("active"),
    };
    assert!(prompt.sealed);
    assert_eq!(prompt.kind, "confirm_report");
    let vote = act(json!({"type": "dispute"}));
    assert_eq!(Cairo::public_part(&s, 1, &vote), Some(json!({})));
    assert_eq!(
        Cairo::public_part(&s, 0, &act(json!({"type": "end_build"}))),
        None
    );
    let t = Cairo::apply(&s, 1, &vote, &mut rng()).unwrap();
    assert!(
        t.events
            .iter()
            .all(|e| !e.data.to_string().contains("dispute"))
    );
    let s = t.state;
    let own = serde_json::to_value(Cairo::view(&s, Viewer::Seat(1))).unwrap();
    assert_eq!(own["report"]["my_vote"], "dispute");
    for v in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let text = serde_json::to_string(&Cairo::view(&s, v)).unwrap();
        assert!(!text.contains("dispute"), "{v:?} sees a sealed vote");
    }
    // Seat 1 has voted and owes nothing more.
    assert_eq!(Cairo::legal(&s, 1), None);
    assert!(Cairo::validate(&s, 1, &act(json!({"type": "confirm"}))).is_err());
}

#[test]
fn the_null_move_of_confirm_report_is_confirm_and_the_window_option_defaults_to_60_seconds() {
    let s = report_position(2);
    let s = play(&s, 0, json!({"type": "report", "landing": "L1"})).state;
    assert_eq!(Cairo::null_move(&s, 1), Some(CairoAction::Confirm));
    assert_eq!(Cairo::null_move(&s, 0), None);
    assert_eq!(CairoOptions::default().report_confirm_seconds, 60);
    assert_eq!(Cairo::info().options["report_confirm_seconds"], 60);
    let err =
        super::rules::check_options(&data(), 2, &options(json!({"report_confirm_seconds": 0})))
            .unwrap_err();
    assert_eq!(err.code, "invalid_options");
}

#[test]
fn the_default_options_are_reported_mode_with_server_dice_and_the_seat_count_is_not_an_option() {
    assert_eq!(
        Cairo::info().options,
        json!({"mode": "reported", "occupied_rule": "next_free", "dice_source": "server",
               "reporter": "actor", "report_confirm_seconds": 60, "model": null})
    );
    assert_eq!(Cairo::info().seats, vec![2, 3, 4, 5]);
    assert!(serde_json::from_value::<CairoOptions>(json!({"players": 3})).is_err());
    for seats in [1, 6] {
        let e = Cairo::setup(&data(), seats, &reported(), &mut rng()).unwrap_err();
        assert_eq!(e.code, "invalid_options");
    }
}

#[test]
fn options_that_do_not_fit_the_mode_are_rejected_and_a_partial_model_override_is_merged() {
    let d = data();
    let bad = [
        json!({"mode": "simulated", "dice_source": "reported"}),
        json!({"mode": "simulated", "reporter": "host"}),
        json!({"model": {"p_min": 0.1}}),
        json!({"mode": "simulated", "model": {"miss_weights": {"near": 0.5, "desert": 0.5, "nile": 0.5, "off_board": 0.0}}}),
        json!({"mode": "simulated", "model": {"p_min": 0.9, "p_max": 0.5}}),
    ];
    for o in bad {
        let e = Cairo::setup(&d, 2, &options(o.clone()), &mut rng()).unwrap_err();
        assert_eq!(e.code, "invalid_options", "{o}");
    }
    let s = Cairo::setup(
        &d,
        2,
        &options(json!({"mode": "simulated", "model": {"zone_penalty": 0.1}})),
        &mut rng(),
    )
    .unwrap();
    let m = s.model.unwrap();
    assert_eq!(m.zone_penalty, 0.1);
    assert_eq!(m.finger_base, d.model.finger_base);
}

#[test]
fn the_first_roll_is_drawn_at_setup_and_each_next_roll_in_the_move_that_ends_the_turn() {
    let seed = [5u8; 32];
    let s = Cairo::setup(&data(), 2, &simulated(), &mut GameRng::for_setup(&seed)).unwrap();
    let roll = s.turn_state.roll.expect("rolled at setup");
    let v = serde_json::to_value(Cairo::view(&s, Viewer::Spectator)).unwrap();
    assert_eq!(v["turn_state"]["roll"], roll);
    assert_eq!(v["seats"][0]["boat"], format!("U{roll}"));
    assert_eq!(kind(&s), "choose_material");
    // Deliver one large cube; that ends the turn and rolls for seat 1 at once.
    let choice = if roll == 6 {
        json!({"type": "choose_material", "material": "large", "finger": "thumb"})
    } else {
        json!({"type": "choose_material", "material": "large"})
    };
    let s = play(&s, 0, choice).state;
    let t = Cairo::apply(
        &s,
        0,
        &act(json!({"type": "aim", "parcel": "L9"})),
        &mut GameRng::for_step(&seed, 1),
    )
    .unwrap();
    let mut s2 = t.state;
    if kind(&s2) == "build" {
        s2 = play(&s2, 0, json!({"type": "end_build"})).state;
    }
    assert_eq!(s2.active, 1);
    let ev = t
        .events
        .iter()
        .find(|e| e.kind == "roll")
        .expect("roll event");
    assert_eq!(ev.data["seat"], 1);
    assert_eq!(
        Some(ev.data["value"].as_u64().unwrap() as u8),
        s2.turn_state.roll
    );
    // The state holds no seed: nothing about future rolls is stored.
    let text = serde_json::to_string(&s2).unwrap();
    assert!(!text.contains("seed"));
}

#[test]
fn the_retrieve_step_is_skipped_when_the_seat_has_no_desert_stones_in_reach() {
    let s = position(
        2,
        &reported_dice(),
        json!({"boats": ["U12", "U1"], "active": 0, "phase": "roll",
               "desert": {"Z2": [{"owner": "red", "small": 2}]}}),
    );
    let t = play(&s, 0, json!({"type": "roll", "value": 1}));
    assert_eq!(t.state.boats[0].as_deref(), Some("D1"));
    assert_eq!(t.state.active, 1, "nothing in Z1, so the turn ended");
    // From D1 a roll of 1 reaches D2, which reaches the Z2 desert.
    let mut s = t.state;
    s.active = 0;
    s.phase = Phase::Roll;
    s.turn_state = Default::default();
    let t = play(&s, 0, json!({"type": "roll", "value": 1}));
    let s = t.state;
    assert_eq!(kind(&s), "retrieve");
    let legal = Cairo::legal(&s, 0).unwrap();
    assert_eq!(
        legal,
        vec![json!({"type": "retrieve", "template": true,
                    "stones": {"subset_of": ["Z2:small-1", "Z2:small-2"], "min": 0, "max": 2}})]
    );
    let t = play(&s, 0, json!({"type": "retrieve", "stones": ["Z2:small-2"]}));
    assert_eq!(t.state.supply[0].small, 14);
    assert_eq!(t.state.desert["Z2"][0].small, 1);
    conserved(&t.state);
}

#[test]
fn a_near_miss_at_a_parcel_without_neighbours_lands_in_its_desert_without_a_u_near_draw() {
    let mut d = data();
    d.board.parcel_neighbours.insert("L3".into(), vec![]);
    let mut script = Script(vec![0.99, 0.10]);
    let f = resolve_flick(
        &d.model,
        &d.board,
        "Z2",
        "L3",
        Finger::Thumb,
        Material::Small,
        6,
        &mut script,
    );
    assert_eq!(f.miss, Some(MissKind::Desert));
    assert_eq!(f.landing, "Z2");
    assert_eq!(f.u_near, None);
    assert!(script.0.is_empty());
    // With neighbours, u_near picks among them in ascending id order.
    let d = data();
    assert_eq!(
        d.board.parcel_neighbours["L3"],
        ["L1", "L2", "L4", "L5", "R1", "R2", "R3", "R4"]
    );
    let mut script = Script(vec![0.99, 0.10, 0.5]);
    let f = resolve_flick(
        &d.model,
        &d.board,
        "Z2",
        "L3",
        Finger::Thumb,
        Material::Small,
        6,
        &mut script,
    );
    assert_eq!(f.miss, Some(MissKind::Near));
    assert_eq!(f.landing, "R1", "floor(0.5 * 8) = 4, the fifth neighbour");
    // A die on land draws its face last.
    let mut script = Script(vec![0.0, 0.999]);
    let f = resolve_flick(
        &d.model,
        &d.board,
        "Z2",
        "L3",
        Finger::Thumb,
        Material::Die,
        6,
        &mut script,
    );
    assert!(f.hit);
    assert_eq!(f.face, Some(6));
}

#[test]
fn a_knocked_over_boat_with_stones_left_makes_the_seat_discard_a_stone_of_its_choice() {
    let s = report_position(2);
    let s = play(
        &s,
        0,
        json!({"type": "report", "landing": "R1", "boat_knocked_over": true}),
    )
    .state;
    let s = play(&s, 1, json!({"type": "confirm"})).state;
    assert_eq!(kind(&s), "discard");
    let legal = Cairo::legal(&s, 0).unwrap();
    assert_eq!(legal.len(), 3);
    assert_eq!(
        Cairo::null_move(&s, 0),
        Some(act(json!({"type": "discard", "stone": "small"})))
    );
    let s = play(&s, 0, json!({"type": "discard", "stone": "die"})).state;
    assert_eq!(s.lost[0].dice, 1);
    assert_eq!(
        s.supply[0],
        Supply {
            small: 14,
            large: 1,
            dice: 0
        }
    );
    assert_eq!(kind(&s), "report_flick", "the second small cube follows");
    conserved(&s);
}

#[test]
fn a_small_cube_delivery_flicks_up_to_three_and_stops_when_the_supply_runs_out() {
    let s = position(
        2,
        &reported(),
        json!({"boats": ["U11", "U1"], "active": 0, "roll": 2, "phase": "choose_material",
               "supply": [{"small": 2, "large": 0, "dice": 0}, {"small": 15, "large": 1, "dice": 1}]}),
    );
    let t = play(
        &s,
        0,
        json!({"type": "choose_material", "material": "small"}),
    );
    let ev = t.events.iter().find(|e| e.kind == "material").unwrap();
    assert_eq!(ev.data["flicks"], 2);
    let mut s = t.state;
    for _ in 0..2 {
        assert_eq!(kind(&s), "report_flick");
        s = play(&s, 0, json!({"type": "report", "landing": "off_board"})).state;
        s = play(&s, 1, json!({"type": "confirm"})).state;
    }
    assert_eq!(s.active, 1, "two cubes, then the turn ended");
    assert_eq!(s.lost[0].small, 15);
}

#[test]
fn the_finger_is_chosen_with_the_material_only_in_simulated_mode_on_an_any_roll() {
    let s = position(
        2,
        &simulated(),
        json!({"boats": ["U6", "U1"], "active": 0, "roll": 6, "phase": "choose_material"}),
    );
    rejected(
        &s,
        0,
        json!({"type": "choose_material", "material": "small"}),
    );
    let s2 = play(
        &s,
        0,
        json!({"type": "choose_material", "material": "small", "finger": "middle"}),
    )
    .state;
    assert_eq!(s2.turn_state.finger, Some(Finger::Middle));
    assert_eq!(
        Cairo::null_move(&s, 0),
        Some(act(
            json!({"type": "choose_material", "material": "small", "finger": "thumb"})
        ))
    );
    let s = position(
        2,
        &reported(),
        json!({"boats": ["U6", "U1"], "active": 0, "roll": 6, "phase": "choose_material"}),
    );
    rejected(
        &s,
        0,
        json!({"type": "choose_material", "material": "small", "finger": "middle"}),
    );
    let s = position(
        2,
        &simulated(),
        json!({"boats": ["U5", "U1"], "active": 0, "roll": 5, "phase": "choose_material"}),
    );
    rejected(
        &s,
        0,
        json!({"type": "choose_material", "material": "small", "finger": "middle"}),
    );
}

#[test]
fn simulated_ties_are_broken_by_the_zone_distance_of_another_own_stone() {
    let s = position(
        3,
        &simulated(),
        json!({
            "boats": ["U1", "U2", "U3"], "active": 0, "roll": 1, "phase": "choose_material",
            "parcels": {"L1": {"loose": [{"owner": "red", "small": 2}, {"owner": "blue", "small": 2},
                                         {"owner": "green", "small": 2}]},
                        "L4": {"loose": [{"owner": "red", "small": 1}]}},
            "desert": {"Z2": [{"owner": "blue", "small": 1}]}
        }),
    );
    // Blue's desert stone is 1 zone away, Red's parcel stone 2, Green has none.
    assert_eq!(
        proxy_order(&s, "L1", &[0, 1, 2]),
        vec![vec![1], vec![0], vec![2]]
    );
    let r = super::scoring::score(&s).unwrap();
    assert_eq!(r.parcels[0].points, vec![10, 20, 0]);
}

#[test]
fn the_host_reports_every_flick_and_the_acting_seat_confirms() {
    let opts = options(json!({"reporter": "host"}));
    let s = position(
        3,
        &opts,
        json!({"boats": ["U1", "U11", "U2"], "active": 1, "roll": 2, "phase": "flick", "material": "large"}),
    );
    assert_eq!(awaiting(&s), vec![0]);
    assert_eq!(Cairo::legal(&s, 1), None);
    let s = play(&s, 0, json!({"type": "report", "landing": "L2"})).state;
    assert_eq!(awaiting(&s), vec![1, 2]);
    let s = play(&s, 1, json!({"type": "confirm"})).state;
    let t = play(&s, 2, json!({"type": "confirm"}));
    assert_eq!(t.state.parcels["L2"].loose[1].large, 1);
    let rec = &t.rounds[0];
    assert_eq!(rec.lead_seat, Some(1));
    let reporter = rec.seats.iter().find(|x| x.seat == 0).unwrap();
    assert_eq!(reporter.kind.as_deref(), Some("reporter"));
}

#[test]
fn the_last_seat_eliminated_during_its_final_turn_ends_the_game_at_once() {
    let s = position(
        2,
        &reported_dice(),
        json!({"boats": ["U2", null], "active": 0, "final_turn_seat": 0, "phase": "roll",
               "supply": [{"small": 0, "large": 0, "dice": 0}, {"small": 0, "large": 0, "dice": 0}],
               "parcels": {"L9": {"loose": [{"owner": "red", "small": 1}]}}}),
    );
    let t = play(&s, 0, json!({"type": "roll", "value": 1}));
    assert!(t.state.eliminated[0]);
    assert_eq!(kind(&t.state), "finished");
    assert_eq!(t.state.result.as_ref().unwrap().scores, vec![14, 0]);
}

#[test]
fn simulated_round_records_carry_the_model_result_and_the_probability_in_per_mille() {
    let s = position(
        2,
        &simulated(),
        json!({"boats": ["U5", "U1"], "active": 0, "roll": 4, "phase": "flick", "material": "large"}),
    );
    let t = Cairo::apply(
        &s,
        0,
        &act(json!({"type": "aim", "parcel": "L3"})),
        &mut rng(),
    )
    .unwrap();
    let rec: &RoundRecord = &t.rounds[0];
    assert_eq!(rec.round, 1);
    assert_eq!(rec.value, Some(4));
    assert!(["hit", "near", "desert", "nile", "off_board"].contains(&rec.outcome.as_str()));
    assert_eq!(rec.total_b, Some(1));
    let me = &rec.seats[0];
    assert_eq!(me.card.as_deref(), Some("large"));
    assert_eq!(me.choice.as_deref(), Some("L3"));
    assert_eq!(me.stake, Some(350));
    assert_eq!(me.success, Some(rec.outcome == "hit"));
    let ev = t.events.iter().find(|e| e.kind == "flick").unwrap();
    assert_eq!(ev.data["target"], "L3");
    assert!(ev.data["u_hit"].is_number());
}

#[test]
fn positions_are_checked_with_a_clear_message_per_problem() {
    let o = reported();
    let cases = [
        (
            json!({"boats": ["U1", "U1"], "active": 0, "roll": 1, "phase": "choose_material"}),
            "Two boats are on U1",
        ),
        (
            json!({"boats": ["U1", "X9"], "active": 0, "roll": 1, "phase": "choose_material"}),
            "not a track space",
        ),
        (
            json!({"boats": ["U1", "U2"], "active": 0, "roll": 1, "phase": "choose_material",
                "parcels": {"L1": {"loose": [{"owner": "red", "small": 16}]}}}),
            "only 15 exist",
        ),
        (
            json!({"boats": ["U1", "U2"], "active": 0, "roll": 1, "phase": "choose_material",
                "parcels": {"L1": {"loose": [{"owner": "red", "dice": [7]}]}}}),
            "shows 7",
        ),
        (
            json!({"boats": ["U1", "U2"], "active": 0, "roll": 1, "phase": "choose_material",
                "parcels": {"L1": {"pyramids": [{"size": 4, "floors": [["red"]]}]}}}),
            "not a pyramid size",
        ),
        (
            json!({"boats": ["D1", "U2"], "active": 0, "roll": 1, "phase": "choose_material"}),
            "deliver space",
        ),
        (
            json!({"boats": ["U1", "U2"], "active": 0, "phase": "roll"}),
            "dice_source = reported",
        ),
        (
            json!({"boats": ["U1", null], "active": 0, "roll": 1, "phase": "choose_material"}),
            "final_turn_seat",
        ),
        (
            json!({"boats": ["U1", "U2"], "active": 0, "roll": 1, "phase": "build", "material": "small",
                "flicks_done": 1, "delivered_this_turn": ["L1"]}),
            "build window",
        ),
        (
            json!({"boats": ["U1", "U2"], "active": 0, "roll": 1, "phase": "choose_material",
                "parcels": {"Q1": {}}}),
            "Q1 is not a parcel",
        ),
    ];
    for (p, needle) in cases {
        let msg = position_err(2, &o, p.clone());
        assert!(msg.contains(needle), "{p}: {msg}");
    }
}

#[test]
fn data_files_carry_their_placeholder_flags_and_sources() {
    for f in Cairo::data_files() {
        let v: Value = serde_json::from_str(f.embedded).unwrap();
        let expected = matches!(f.name, "board.json" | "pyramids.json");
        assert_eq!(v["placeholder"], expected, "{}", f.name);
        assert!(v["source"].as_str().is_some_and(|x| !x.is_empty()));
        assert!(v["note"].as_str().is_some_and(|x| !x.is_empty()));
    }
    let d = data();
    assert_eq!(d.shapes[&10], vec![4, 3, 2, 1]);
    assert_eq!(d.board.track.len(), 18);
    assert_eq!(d.board.parcels.len(), 18);
    let mut broken: Vec<(&str, String)> = Cairo::data_files()
        .iter()
        .map(|f| (f.name, f.embedded.to_owned()))
        .collect();
    let mut pyr: Value = serde_json::from_str(&broken[2].1).unwrap();
    pyr["shapes"]["14"] = json!([9, 4, 2]);
    broken[2].1 = pyr.to_string();
    let files: Vec<(&str, &str)> = broken.iter().map(|(n, c)| (*n, c.as_str())).collect();
    assert!(
        Cairo::load_data(&files)
            .unwrap_err()
            .contains("pyramids.json")
    );
}

#[test]
fn the_engine_source_mentions_no_server_crate_clock_or_global_rng() {
    let sources = [
        include_str!("mod.rs"),
        include_str!("data.rs"),
        include_str!("model.rs"),
        include_str!("moves.rs"),
        include_str!("position.rs"),
        include_str!("report.rs"),
        include_str!("rules.rs"),
        include_str!("scoring.rs"),
        include_str!("state.rs"),
        include_str!("view.rs"),
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
            assert!(!src.contains(word), "{word} found");
        }
    }
}

#[test]
fn decisions_with_at_most_64_actions_are_listed_as_complete_actions() {
    let s = position(
        2,
        &simulated(),
        json!({"boats": ["U5", "U1"], "active": 0, "roll": 4, "phase": "flick", "material": "large"}),
    );
    let legal = Cairo::legal(&s, 0).unwrap();
    assert_eq!(legal.len(), 18);
    assert_eq!(legal[0], json!({"type": "aim", "parcel": "L1"}));
    let s = position(
        2,
        &simulated(),
        json!({"boats": ["U6", "U1"], "active": 0, "roll": 6, "phase": "choose_material"}),
    );
    assert_eq!(Cairo::legal(&s, 0).unwrap().len(), 15);
    // An empty board: 26 landings x knocked over or not.
    let s = report_position(2);
    let legal = Cairo::legal(&s, 0).unwrap();
    assert_eq!(legal.len(), 52);
    assert!(
        legal.contains(&json!({"type": "report", "landing": "Z3", "boat_knocked_over": false}))
    );
    // With stones on the board the displacements make it a list of templates.
    let s = position(
        2,
        &reported(),
        json!({"boats": ["U11", "U1"], "active": 0, "roll": 2, "phase": "flick", "material": "die",
               "parcels": {"L1": {"loose": [{"owner": "blue", "small": 1, "dice": [4]}]}}}),
    );
    let legal = Cairo::legal(&s, 0).unwrap();
    assert!(legal.iter().all(|e| e["template"] == true));
    assert!(legal.contains(
        &json!({"type": "displace", "template": true, "owner": "blue", "stone": "die",
        "from": {"parcel": "L1"}, "tos": ["nile", "off_board"]})
    ));
    let t = play(
        &s,
        0,
        json!({"type": "displace", "owner": "blue", "stone": "die", "from": {"parcel": "L1"}, "to": "Z1", "face": 2}),
    );
    let t = play(
        &t.state,
        0,
        json!({"type": "report", "landing": "L1", "face": 6, "boat_knocked_over": false}),
    );
    let s = play(&t.state, 1, json!({"type": "confirm"})).state;
    assert_eq!(s.parcels["L1"].loose[0].dice, vec![6]);
    assert_eq!(s.desert["Z1"][1].dice, vec![2]);
    assert_eq!(s.influence("L1"), vec![6, 1]);
}

// ---------------------------------------------------------------- property tests

/// One accepted move of a random game, with the step whose RNG it used.
#[derive(Clone)]
struct Played {
    seat: usize,
    action: CairoAction,
    step: u64,
}

struct RandomGame {
    seed: [u8; 32],
    seats: usize,
    opts: CairoOptions,
    moves: Vec<Played>,
    end: State,
    rounds: Vec<RoundRecord>,
    events: Vec<crate::games::Event>,
}

/// Draws an action from `legal` with a bias that keeps reports short.
fn biased(legal: &[Value], bot: &mut GameRng) -> Value {
    let of = |t: &str| -> Vec<Value> { legal.iter().filter(|e| e["type"] == t).cloned().collect() };
    let reports = of("report");
    let pick = if !reports.is_empty() && bot.chance(9, 10) {
        reports
    } else if !of("confirm").is_empty() && bot.chance(3, 4) {
        of("confirm")
    } else {
        legal.to_vec()
    };
    let mut a = sample(&pick, bot).expect("a legal action");
    if a["type"] == "report" {
        a["boat_knocked_over"] = json!(bot.chance(1, 12));
    }
    a
}

/// Actions that are near the legal one: other values for each field, and a
/// fixed pool of every action type.
fn candidates(s: &State, legal_action: &Value, bot: &mut GameRng) -> Vec<Value> {
    let mut out = vec![legal_action.clone()];
    let ids = [
        "L1",
        "L4",
        "R9",
        "Z1",
        "Z6",
        "nile",
        "off_board",
        "X1",
        "P1",
        "P2",
        "P3",
        "START",
    ];
    let colours = ["red", "blue", "green", "yellow", "white", "black"];
    if let Some(obj) = legal_action.as_object() {
        for (k, v) in obj {
            if k == "type" {
                continue;
            }
            let mut alts: Vec<Value> = Vec::new();
            match v {
                Value::String(_) => {
                    alts.extend(ids.iter().map(|x| json!(x)));
                    alts.extend(colours.iter().map(|x| json!(x)));
                    alts.extend(["small", "large", "die"].iter().map(|x| json!(x)));
                }
                Value::Number(n) => {
                    let n = n.as_i64().unwrap_or(0);
                    alts.extend([n - 1, n + 1, 0, 7, 3, 10, 14].iter().map(|x| json!(x)));
                }
                Value::Bool(b) => alts.push(json!(!b)),
                Value::Array(items) => {
                    let mut a = items.clone();
                    a.pop();
                    alts.push(json!(a));
                    if let Some(first) = items.first() {
                        let mut b = items.clone();
                        b.push(first.clone());
                        alts.push(json!(b));
                    }
                    let mut c = items.clone();
                    c.push(json!("red-99"));
                    alts.push(json!(c));
                    let mut d = items.clone();
                    d.push(json!("Z1:small-1"));
                    alts.push(json!(d));
                    alts.push(json!(["red", "blue"]));
                    alts.push(json!([]));
                }
                Value::Object(_) => {
                    alts.push(json!({"parcel": "L1"}));
                    alts.push(json!({"zone": "Z3"}));
                    alts.push(json!({"parcel": "L1", "pyramid": "P1", "floor": 1}));
                    alts.push(json!({"parcel": "L1", "zone": "Z1"}));
                }
                Value::Null => {}
            }
            for alt in alts {
                let mut c = legal_action.clone();
                c[k] = alt;
                out.push(c);
            }
            let mut without = legal_action.clone();
            if let Some(o) = without.as_object_mut() {
                o.remove(k);
            }
            out.push(without);
        }
        let mut with_face = legal_action.clone();
        with_face["face"] = json!(1 + bot.below(6));
        out.push(with_face);
    }
    let colour = s.colour(bot.index(s.seats));
    out.extend([
        json!({"type": "roll", "value": 1 + bot.below(7)}),
        json!({"type": "choose_material", "material": "small"}),
        json!({"type": "choose_material", "material": "die", "finger": "ring"}),
        json!({"type": "aim", "parcel": "L7"}),
        json!({"type": "report", "landing": "R2", "boat_knocked_over": false}),
        json!({"type": "report", "landing": "Z3", "face": 2, "boat_knocked_over": false}),
        json!({"type": "displace", "owner": colour, "stone": "small", "from": {"parcel": "L1"}, "to": "nile"}),
        json!({"type": "topple", "pyramid_id": "P1"}),
        json!({"type": "clear_report"}),
        json!({"type": "confirm"}),
        json!({"type": "dispute"}),
        json!({"type": "discard", "stone": "large"}),
        json!({"type": "build", "parcel": "L1", "size": 3, "cubes": [format!("{colour}-1"), format!("{colour}-2"), format!("{colour}-3")]}),
        json!({"type": "end_build"}),
        json!({"type": "retrieve", "stones": []}),
        json!({"type": "retrieve", "stones": ["Z1:small-1"]}),
        json!({"type": "order_tie", "parcel": "L1", "group": [colour]}),
    ]);
    out
}

/// legal and validate agree on every candidate that parses as an action.
fn agree(s: &State, seat: usize, legal: &[Value], cands: &[Value]) {
    for c in cands {
        let Ok(action) = serde_json::from_value::<CairoAction>(c.clone()) else {
            continue;
        };
        let norm = serde_json::to_value(&action).unwrap();
        let ok = Cairo::validate(s, seat, &action).is_ok();
        assert_eq!(
            ok,
            is_listed(legal, &norm),
            "validate {ok} but listed {} for {norm} in {legal:?}",
            !ok
        );
    }
}

/// Views differ only in the viewer's own sealed vote.
fn views_hide_nothing_but_sealed_votes(s: &State) {
    let strip = |v: Viewer| {
        let mut x = serde_json::to_value(Cairo::view(s, v)).unwrap();
        x["viewer"] = Value::Null;
        if x["report"].is_object() {
            x["report"]["my_vote"] = Value::Null;
        }
        x
    };
    let spectator = strip(Viewer::Spectator);
    for seat in 0..s.seats {
        assert_eq!(strip(Viewer::Seat(seat)), spectator);
        let own = serde_json::to_value(Cairo::view(s, Viewer::Seat(seat))).unwrap();
        let vote = s
            .report
            .as_ref()
            .and_then(|r| r.votes.iter().find(|v| v.seat == seat))
            .map(|v| json!(v.vote))
            .unwrap_or(Value::Null);
        if own["report"].is_object() {
            assert_eq!(own["report"]["my_vote"], vote);
        }
    }
    let text = serde_json::to_string(&Cairo::view(s, Viewer::Spectator)).unwrap();
    assert!(!text.contains("\"votes\""));
}

fn random_game(seats: usize, opts: CairoOptions, key: u8, fuzz: bool) -> RandomGame {
    let mut seed = [key; 32];
    seed[0] = seats as u8;
    seed[1] = matches!(opts.mode, Mode::Simulated) as u8;
    let d = data();
    let mut s = Cairo::setup(&d, seats, &opts, &mut GameRng::for_setup(&seed)).unwrap();
    let mut bot = GameRng::from_key([key.wrapping_add(101); 32]);
    let mut step = 0u64;
    let mut moves = Vec::new();
    let mut rounds = Vec::new();
    let mut events = Vec::new();
    for n in 0..30_000 {
        conserved(&s);
        // The service stores the state as JSON between moves.
        let stored = serde_json::to_value(&s).unwrap();
        assert_eq!(serde_json::from_value::<State>(stored).unwrap(), s);
        if fuzz && n % 7 == 0 {
            views_hide_nothing_but_sealed_votes(&s);
        }
        let waiting = awaiting(&s);
        if waiting.is_empty() {
            assert_eq!(kind(&s), "finished");
            break;
        }
        for other in (0..seats).filter(|x| !waiting.contains(x)) {
            assert_eq!(Cairo::legal(&s, other), None);
            assert_eq!(Cairo::null_move(&s, other), None);
        }
        let seat = waiting[bot.index(waiting.len())];
        let legal = Cairo::legal(&s, seat).expect("an awaited seat has legal moves");
        assert!(!legal.is_empty());
        let action: CairoAction = if bot.chance(1, 10) {
            Cairo::null_move(&s, seat).expect("every decision has a null move")
        } else {
            serde_json::from_value(biased(&legal, &mut bot)).expect("legal actions parse")
        };
        let norm = serde_json::to_value(&action).unwrap();
        assert!(is_listed(&legal, &norm), "{norm} not listed in {legal:?}");
        Cairo::validate(&s, seat, &action).expect("a listed action validates");
        if fuzz {
            agree(&s, seat, &legal, &candidates(&s, &norm, &mut bot));
            if let Some(other) = (0..seats).find(|x| !waiting.contains(x)) {
                assert!(Cairo::validate(&s, other, &action).is_err());
            }
        }
        let t = Cairo::apply(&s, seat, &action, &mut GameRng::for_step(&seed, step)).unwrap();
        moves.push(Played { seat, action, step });
        if t.completes_step {
            step += 1;
        }
        rounds.extend(t.rounds);
        events.extend(t.events);
        s = t.state;
    }
    assert_eq!(
        kind(&s),
        "finished",
        "the game did not end ({seats} seats, key {key})"
    );
    RandomGame {
        seed,
        seats,
        opts,
        moves,
        end: s,
        rounds,
        events,
    }
}

fn replay(g: &RandomGame) -> (State, Vec<RoundRecord>, Vec<crate::games::Event>) {
    let mut s = Cairo::setup(&data(), g.seats, &g.opts, &mut GameRng::for_setup(&g.seed)).unwrap();
    let mut rounds = Vec::new();
    let mut events = Vec::new();
    for m in &g.moves {
        let t = Cairo::apply(
            &s,
            m.seat,
            &m.action,
            &mut GameRng::for_step(&g.seed, m.step),
        )
        .unwrap();
        rounds.extend(t.rounds);
        events.extend(t.events);
        s = t.state;
    }
    (s, rounds, events)
}

fn check_finished_game(g: &RandomGame) {
    let s = &g.end;
    conserved(s);
    let r = s.result.as_ref().expect("a result");
    // Scores are the sums of the parcel points, and the outcome ranks them.
    for seat in 0..g.seats {
        let sum: i64 = r.parcels.iter().map(|p| p.points[seat]).sum();
        assert_eq!(sum, r.scores[seat]);
    }
    // At most one seat was never eliminated, and it played the final turn.
    assert!(s.alive().len() <= 1);
    // Round numbers run 1, 2, ...; the last record is the scoring.
    for (i, rec) in g.rounds.iter().enumerate() {
        assert_eq!(rec.round as usize, i + 1);
        let mut seen: Vec<usize> = rec.seats.iter().map(|x| x.seat).collect();
        seen.dedup();
        assert_eq!(
            seen.len(),
            rec.seats.len(),
            "one seat record per seat and round"
        );
        assert!(rec.outcome.len() <= 32);
        for l in &rec.ledger {
            assert!(l.reason.len() <= 32);
        }
    }
    assert_eq!(g.rounds.last().unwrap().outcome, "scoring");
    let ledger: i64 = g
        .rounds
        .last()
        .unwrap()
        .ledger
        .iter()
        .map(|l| l.amount)
        .sum();
    assert_eq!(ledger, r.scores.iter().sum::<i64>());
    // Every roll and every flick has its event.
    let rolls = g.events.iter().filter(|e| e.kind == "roll").count();
    let moves = g.events.iter().filter(|e| e.kind == "move").count();
    assert_eq!(rolls, moves);
    let flicks = g.events.iter().filter(|e| e.kind == "flick").count();
    assert_eq!(flicks, g.rounds.len() - 1, "one record per flick");
    let (end, rounds, events) = replay(g);
    assert_eq!(
        serde_json::to_value(&end).unwrap(),
        serde_json::to_value(s).unwrap()
    );
    assert_eq!(rounds, g.rounds);
    assert_eq!(events, g.events);
}

#[test]
fn random_simulated_games_for_2_to_5_seats_end_conserve_stones_and_replay_exactly() {
    for seats in 2..=5 {
        for key in 0..3u8 {
            let opts = if key == 1 {
                options(json!({"mode": "simulated", "occupied_rule": "skip"}))
            } else {
                simulated()
            };
            let g = random_game(seats, opts, key, key == 0);
            check_finished_game(&g);
        }
    }
}

#[test]
fn random_reported_games_for_2_to_5_seats_end_conserve_stones_and_replay_exactly() {
    for seats in 2..=5 {
        for key in 0..3u8 {
            let opts = match key {
                1 => options(json!({"dice_source": "reported", "occupied_rule": "skip"})),
                2 => options(json!({"reporter": "host"})),
                _ => reported(),
            };
            let g = random_game(seats, opts, key + 10, key == 0);
            check_finished_game(&g);
        }
    }
}

#[test]
fn random_games_keep_legal_and_validate_in_agreement_on_near_miss_actions() {
    // Fuzzing with perturbed actions at every step, in both modes.
    let g = random_game(3, simulated(), 77, true);
    check_finished_game(&g);
    let g = random_game(
        4,
        options(json!({"reporter": "host", "dice_source": "reported"})),
        78,
        true,
    );
    check_finished_game(&g);
}

// ---------------------------------------------------------------- the model's statistics

#[test]
fn simulated_hit_rates_and_miss_kinds_match_the_model_parameters() {
    let d = data();
    let n = 20_000u32;
    let configs = [
        (Finger::Thumb, Material::Small, "Z1", "L1"),
        (Finger::Ring, Material::Large, "Z4", "L3"),
        (Finger::Little, Material::Die, "Z6", "L1"),
        (Finger::Middle, Material::Small, "Z3", "R6"),
    ];
    for (i, (finger, material, zone, target)) in configs.into_iter().enumerate() {
        let mut g = GameRng::from_key([200 + i as u8; 32]);
        let dz = (d.board.zones.iter().find(|z| z.id == zone).unwrap().index
            - d.board
                .zones
                .iter()
                .find(|z| {
                    Some(z.id.as_str())
                        == d.board
                            .parcels
                            .iter()
                            .find(|p| p.id == target)
                            .map(|p| p.zone.as_str())
                })
                .unwrap()
                .index)
            .abs();
        let p = hit_probability(&d.model, finger, material, dz);
        let mut hits = 0u32;
        let mut kinds = [0u32; 4];
        let mut faces = [0u32; 6];
        for _ in 0..n {
            let f = resolve_flick(
                &d.model, &d.board, zone, target, finger, material, 6, &mut g,
            );
            if f.hit {
                hits += 1;
            }
            match f.miss {
                Some(MissKind::Near) => kinds[0] += 1,
                Some(MissKind::Desert) => kinds[1] += 1,
                Some(MissKind::Nile) => kinds[2] += 1,
                Some(MissKind::OffBoard) => kinds[3] += 1,
                None => {}
            }
            if let Some(face) = f.face {
                faces[face as usize - 1] += 1;
            }
        }
        let within = |observed: u32, trials: u32, q: f64, what: &str| {
            let rate = f64::from(observed) / f64::from(trials);
            let sigma = (q * (1.0 - q) / f64::from(trials)).sqrt();
            assert!(
                (rate - q).abs() <= 5.0 * sigma + 1e-9,
                "{what}: {rate} vs {q} ({finger:?} {material:?})"
            );
        };
        within(hits, n, p, "hit rate");
        let misses = n - hits;
        let w = &d.model.miss_weights;
        for (k, q) in [w.near, w.desert, w.nile, w.off_board]
            .into_iter()
            .enumerate()
        {
            within(kinds[k], misses, q, "miss kind");
        }
        if material == Material::Die {
            let landed: u32 = faces.iter().sum();
            for f in faces {
                within(f, landed, 1.0 / 6.0, "die face");
            }
        }
    }
}

#[test]
fn movement_rolls_are_uniform_and_floor_of_n_u_is_exact() {
    let mut g = GameRng::from_key([9; 32]);
    let mut count = [0u32; 6];
    let n = 30_000;
    for _ in 0..n {
        let r = super::model::roll_die(&mut g, 6);
        count[r as usize - 1] += 1;
    }
    let sigma = (1.0 / 6.0 * 5.0 / 6.0 / f64::from(n)).sqrt();
    for c in count {
        assert!((f64::from(c) / f64::from(n) - 1.0 / 6.0).abs() < 5.0 * sigma);
    }
    // The largest draw below 1 never reaches n; a draw of exactly k/n gives k.
    let top = Draw::from_unit(1.0);
    assert_eq!(top.scale(6), 5);
    assert_eq!(Draw::from_unit(0.5).scale(6), 3);
    assert_eq!(Draw::from_unit(0.0).scale(6), 0);
}

// ---------------------------------------------------------------- stated components

#[test]
fn a_position_plays_with_the_pyramid_shapes_and_pieces_it_states_inline() {
    // A 4-cube pyramid of floors 3 and 1, which the data has no shape for, and
    // colours of the position's own.
    let mut pieces = serde_json::to_value(&data().pieces).expect("pieces");
    pieces["colours"] = json!(["amber", "teal"]);
    let s = position(
        2,
        &reported(),
        json!({
            "boats": ["U7", "U1"], "active": 0, "roll": 1, "phase": "build",
            "material": "small", "flicks_done": 1, "delivered_this_turn": ["L4"],
            "pieces": pieces, "pyramid_shapes": {"4": [3, 1]},
            "supply": [{"small": 12, "large": 1, "dice": 1},
                       {"small": 14, "large": 1, "dice": 1}],
            "parcels": {"L4": {"loose": [{"owner": "amber", "small": 3},
                                         {"owner": "teal", "small": 1}]}}
        }),
    );
    assert_eq!(s.colour(0), "amber");
    let legal = Cairo::legal(&s, 0).expect("the active seat builds");
    assert!(
        legal.iter().any(|m| m["type"] == "build" && m["size"] == 4),
        "{legal:?}"
    );
    let t = play(
        &s,
        0,
        json!({"type": "build", "parcel": "L4", "size": 4,
               "cubes": ["amber-1", "amber-2", "teal-1", "amber-3"]}),
    );
    assert_eq!(t.state.parcels["L4"].pyramids[0].floors.len(), 2);
}

#[test]
fn stated_pieces_and_shapes_are_checked_like_the_data() {
    let base = json!({"boats": ["U1", "U2"], "active": 0, "roll": 1, "phase": "choose_material"});
    let mut p = base.clone();
    p["pyramid_shapes"] = json!({"5": [3, 1]});
    let msg = position_err(2, &reported(), p);
    assert!(
        msg.contains("pyramid_shapes") && msg.contains("sum to 5"),
        "{msg}"
    );

    let mut pieces = serde_json::to_value(&data().pieces).expect("pieces");
    pieces["colours"] = json!(["amber"]);
    let mut p = base.clone();
    p["pieces"] = pieces.clone();
    let msg = position_err(2, &reported(), p);
    assert!(
        msg.contains("position's pieces") && msg.contains("2 colours"),
        "{msg}"
    );

    pieces["colours"] = json!(["amber", "teal"]);
    pieces["fingers_by_roll"] = json!(["thumb"]);
    let mut p = base;
    p["pieces"] = pieces;
    assert!(position_err(2, &reported(), p).contains("fingers_by_roll"));
}
