//! Tests of the Heretics engine: every worked example of rules §11, the
//! decisions of rules §10 and this engine's own, and property tests over random
//! legal games. Tests build their own component values; only the tests named
//! `the_embedded_data…` read the data files.

use serde_json::{Value, json};

use super::*;
use crate::games::legal::{is_listed, sample};
use crate::games::{DynGame, Erased, RoundRecord};

// ---------------------------------------------------------------- helpers

const FACTIONS: [(&str, &str); 4] = [
    ("hussites", "Hussite"),
    ("reformers", "Reformer"),
    ("catholics", "Catholic"),
    ("radicals", "Radical"),
];

fn city(id: &str, resistance: u32, significance: u32, abilities: Vec<Ability>) -> City {
    City {
        id: id.to_owned(),
        name: id.to_owned(),
        name_cs: None,
        resistance,
        significance,
        abilities,
    }
}

fn test_data(cities: Vec<City>) -> HereticsData {
    let factions = FACTIONS
        .iter()
        .map(|(id, _)| Faction {
            id: (*id).to_owned(),
            name: (*id).to_owned(),
            name_cs: None,
            placeholder: false,
        })
        .collect();
    let personalities = FACTIONS
        .iter()
        .flat_map(|(id, single)| {
            (1..=11).map(move |s| Personality {
                id: format!("{id}:{s}"),
                faction: (*id).to_owned(),
                strength: s,
                name: format!("{single} {s}"),
            })
        })
        .collect();
    HereticsData {
        factions,
        personalities,
        cities,
        placeholder: false,
    }
}

/// Ten plain filler cities, so a deck never runs out by accident.
fn fillers() -> Vec<City> {
    (0..10)
        .map(|i| city(&format!("filler{i}"), 5, 1, vec![]))
        .collect()
}

fn full_hand(faction: &str) -> Vec<String> {
    (1..=11).map(|s| format!("{faction}:{s}")).collect()
}

fn faction_of(letter: char) -> &'static str {
    match letter {
        'H' => "hussites",
        'R' => "reformers",
        'C' => "catholics",
        _ => "radicals",
    }
}

/// `"H7"` → `"hussites:7"` (the spec's notation, rules §11).
fn card(short: &str) -> String {
    let mut chars = short.chars();
    let letter = chars.next().unwrap_or('X');
    format!("{}:{}", faction_of(letter), chars.as_str())
}

fn opts(special: bool) -> HereticsOptions {
    HereticsOptions {
        special_cities: special,
    }
}

/// A wave-1 match at its first round with full hands and `the_city` on top.
fn duel_state(factions: &[&str], the_city: City) -> HereticsState {
    let mut cities = vec![the_city.clone()];
    cities.extend(fillers());
    let data = test_data(cities.clone());
    let position = HereticsPosition {
        factions: Some(factions.iter().map(|f| (*f).to_owned()).collect()),
        hand: factions.iter().map(|f| full_hand(f)).collect(),
        temple: None,
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: cities.iter().map(|c| c.id.clone()).collect(),
        cities: vec![],
        wave: 1,
    };
    Heretics::from_position(&data, factions.len(), &opts(true), position).expect("valid position")
}

fn rng() -> GameRng {
    GameRng::from_key([0; 32])
}

fn play(state: &HereticsState, seat: Seat, card_id: &str) -> Transition<HereticsState> {
    let action = HereticsAction::Play {
        card: card_id.to_owned(),
    };
    Heretics::apply(state, seat, &action, &mut rng()).expect("legal move")
}

/// Plays one card per seat (None: the seat is absent) and returns the last
/// transition, which resolves the round.
fn play_round(state: &HereticsState, cards: &[Option<&str>]) -> Transition<HereticsState> {
    let mut s = state.clone();
    let mut last = None;
    for (seat, c) in cards.iter().enumerate() {
        if let Some(c) = c {
            let t = play(&s, seat, &card(c));
            s = t.state.clone();
            last = Some(t);
        }
    }
    let t = last.expect("at least one card");
    assert!(
        t.completes_step && t.reveal,
        "the round resolves on the last card"
    );
    t
}

fn last(state: &HereticsState) -> &RoundSummary {
    state.history.last().expect("a resolved round")
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|c| card(c)).collect()
}

// ------------------------------------------------- worked examples (rules §11)

#[test]
fn example_1_both_cards_below_the_resistance_go_to_the_cemetery_and_the_city_is_unclaimed() {
    let s = duel_state(&["catholics", "reformers"], city("x", 8, 3, vec![]));
    let t = play_round(&s, &[Some("C6"), Some("R7")]);
    let r = last(&t.state);
    assert_eq!(r.outcome_label, "a");
    assert_eq!(r.per_seat[0].status, Status::Failed);
    assert_eq!(r.per_seat[1].status, Status::Failed);
    assert_eq!(t.state.cemetery, ids(&["C6", "R7"]));
    assert_eq!(t.state.unclaimed, vec!["x".to_owned()]);
    assert_eq!(t.state.scores, vec![0, 0]);
    assert!(t.state.temple.iter().all(Vec::is_empty));
}

#[test]
fn example_2_a_card_equal_to_the_resistance_wins_the_city() {
    let s = duel_state(&["hussites", "catholics"], city("x", 6, 2, vec![]));
    let t = play_round(&s, &[Some("H6"), Some("C4")]);
    assert_eq!(last(&t.state).outcome_label, "b");
    assert_eq!(t.state.temple[0], ids(&["H6"]));
    assert_eq!(t.state.cemetery, ids(&["C4"]));
    assert_eq!(t.state.won_cities[0], vec!["x".to_owned()]);
    assert_eq!(t.state.scores, vec![2, 0]);
}

#[test]
fn example_3c_two_equal_qualified_cards_neutralise_each_other() {
    let s = duel_state(&["reformers", "catholics"], city("x", 5, 4, vec![]));
    let t = play_round(&s, &[Some("R9"), Some("C9")]);
    assert_eq!(last(&t.state).outcome_label, "c");
    assert_eq!(t.state.cemetery, ids(&["R9", "C9"]));
    assert_eq!(t.state.unclaimed, vec!["x".to_owned()]);
    assert_eq!(t.state.scores, vec![0, 0]);
}

#[test]
fn example_3d_the_stronger_of_two_qualified_cards_wins() {
    let s = duel_state(&["reformers", "catholics"], city("x", 5, 4, vec![]));
    let t = play_round(&s, &[Some("R5"), Some("C10")]);
    assert_eq!(last(&t.state).outcome_label, "d");
    assert_eq!(last(&t.state).winner_seat, Some(1));
    assert_eq!(t.state.temple[1], ids(&["C10"]));
    assert_eq!(t.state.cemetery, ids(&["R5"]));
    assert_eq!(t.state.scores, vec![0, 4]);
}

#[test]
fn example_4_the_hussite_bonus_makes_h7_equal_to_c8_and_h8_win() {
    let tabor = || {
        city(
            "x",
            8,
            3,
            vec![Ability::FactionBonus {
                faction: "hussites".into(),
                bonus: 1,
            }],
        )
    };
    let s = duel_state(&["hussites", "catholics"], tabor());
    let t = play_round(&s, &[Some("H7"), Some("C8")]);
    let r = last(&t.state);
    assert_eq!(r.per_seat[0].eff, Some(8));
    assert_eq!(r.per_seat[1].eff, Some(8));
    assert_eq!(r.outcome_label, "c");
    assert_eq!(r.abilities_applied, vec!["faction_bonus".to_owned()]);
    assert_eq!(t.state.cemetery, ids(&["H7", "C8"]));
    assert_eq!(t.state.unclaimed, vec!["x".to_owned()]);

    let t = play_round(&s, &[Some("H8"), Some("C8")]);
    let r = last(&t.state);
    assert_eq!(r.per_seat[0].eff, Some(9));
    assert_eq!(r.winner_seat, Some(0));
    assert_eq!(t.state.scores, vec![3, 0]);
}

#[test]
fn example_5_in_a_three_player_battle_the_tied_top_neutralises_and_c6_wins() {
    let s = duel_state(
        &["hussites", "reformers", "catholics"],
        city("x", 5, 3, vec![]),
    );
    let t = play_round(&s, &[Some("H9"), Some("R9"), Some("C6")]);
    let r = last(&t.state);
    assert_eq!(r.outcome_label, "battle");
    assert_eq!(r.winner_seat, Some(2));
    assert_eq!(t.state.cemetery, ids(&["H9", "R9"]));
    assert_eq!(t.state.temple[2], ids(&["C6"]));
    assert_eq!(t.state.scores, vec![0, 0, 3]);
}

#[test]
fn example_6_four_equal_cards_all_lose_and_the_city_is_unclaimed() {
    let s = duel_state(
        &["hussites", "reformers", "catholics", "radicals"],
        city("x", 4, 2, vec![]),
    );
    let t = play_round(&s, &[Some("H8"), Some("R8"), Some("C8"), Some("X8")]);
    let r = last(&t.state);
    assert_eq!(r.outcome_label, "battle");
    assert_eq!(r.winner_seat, None);
    assert_eq!(t.state.cemetery, ids(&["H8", "R8", "C8", "X8"]));
    assert_eq!(t.state.unclaimed, vec!["x".to_owned()]);
    assert_eq!(t.state.scores, vec![0; 4]);
}

#[test]
fn example_7_two_tie_groups_both_neutralise_but_a_lone_seven_below_them_wins() {
    let four = ["hussites", "reformers", "catholics", "radicals"];
    let s = duel_state(&four, city("x", 6, 2, vec![]));
    let t = play_round(&s, &[Some("H10"), Some("R10"), Some("C7"), Some("X7")]);
    assert_eq!(last(&t.state).winner_seat, None);
    assert_eq!(last(&t.state).outcome_label, "battle");
    assert_eq!(t.state.cemetery, ids(&["H10", "R10", "C7", "X7"]));

    let t = play_round(&s, &[Some("H10"), Some("R10"), Some("C7"), Some("X3")]);
    let r = last(&t.state);
    assert_eq!(r.per_seat[3].status, Status::Failed);
    assert_eq!(r.winner_seat, Some(2));
    assert_eq!(t.state.temple[2], ids(&["C7"]));
    assert_eq!(t.state.cemetery, ids(&["H10", "R10", "X3"]));
    assert_eq!(t.state.scores, vec![0, 0, 2, 0]);
}

fn constance() -> City {
    city(
        "x",
        7,
        4,
        vec![Ability::Cross {
            cards: vec![
                CardMatcher {
                    faction: None,
                    strength: Some(11),
                },
                CardMatcher {
                    faction: Some("hussites".into()),
                    strength: Some(10),
                },
            ],
        }],
    )
}

#[test]
fn example_8_the_crossed_hussite_ten_fails_and_r8_wins() {
    let s = duel_state(&["hussites", "reformers"], constance());
    let t = play_round(&s, &[Some("H10"), Some("R8")]);
    let r = last(&t.state);
    assert_eq!(r.per_seat[0].status, Status::Failed);
    assert!(r.per_seat[0].crossed);
    assert_eq!(r.outcome_label, "b");
    assert_eq!(r.winner_seat, Some(1));
    assert_eq!(t.state.cemetery, ids(&["H10"]));
    assert_eq!(t.state.temple[1], ids(&["R8"]));
    assert_eq!(t.state.scores, vec![0, 4]);
}

fn kutna_hora() -> City {
    city("x", 2, 3, vec![Ability::Sacrifice { max_strength: 3 }])
}

#[test]
fn example_9_a_sacrificed_three_goes_to_the_temple_and_r4_wins() {
    let s = duel_state(&["hussites", "reformers"], kutna_hora());
    let t = play_round(&s, &[Some("H3"), Some("R4")]);
    let r = last(&t.state);
    assert_eq!(r.per_seat[0].status, Status::Sacrificed);
    assert_eq!(r.per_seat[0].role, Role::Sacrificed);
    assert_eq!(r.winner_seat, Some(1));
    assert_eq!(t.state.temple[0], ids(&["H3"]));
    assert_eq!(t.state.temple[1], ids(&["R4"]));
    assert!(t.state.cemetery.is_empty());
    assert_eq!(t.state.scores, vec![0, 3]);

    let t = play_round(&s, &[Some("H3"), Some("R2")]);
    let r = last(&t.state);
    assert_eq!(r.per_seat[1].status, Status::Sacrificed);
    assert_eq!(r.outcome_label, "a");
    assert_eq!(t.state.temple[0], ids(&["H3"]));
    assert_eq!(t.state.temple[1], ids(&["R2"]));
    assert_eq!(t.state.unclaimed, vec!["x".to_owned()]);
    assert_eq!(t.state.scores, vec![0, 0]);
}

fn seven() -> Ability {
    Ability::Seven {
        number: 7,
        count_2p: 1,
        count_multi: 2,
    }
}

fn losers_to_temple() -> Ability {
    Ability::LosersToTemple {
        factions: vec!["hussites".into(), "reformers".into()],
    }
}

#[test]
fn example_10_one_seven_in_a_two_player_game_makes_both_cards_lose() {
    let s = duel_state(&["catholics", "reformers"], city("x", 5, 5, vec![seven()]));
    let t = play_round(&s, &[Some("C7"), Some("R11")]);
    let r = last(&t.state);
    assert_eq!(r.outcome_label, "seven");
    assert_eq!(r.winner_seat, None);
    assert_eq!(t.state.cemetery, ids(&["C7", "R11"]));
    assert_eq!(t.state.unclaimed, vec!["x".to_owned()]);

    let both = city("x", 5, 5, vec![seven(), losers_to_temple()]);
    let s = duel_state(&["catholics", "reformers"], both);
    let t = play_round(&s, &[Some("C7"), Some("R11")]);
    assert_eq!(t.state.cemetery, ids(&["C7"]));
    assert_eq!(t.state.temple[1], ids(&["R11"]));
    assert_eq!(
        last(&t.state).abilities_applied,
        vec!["seven".to_owned(), "losers_to_temple".to_owned()]
    );
}

#[test]
fn example_11_in_wave_2_a_seat_with_an_empty_hand_is_absent_and_a_lone_card_must_meet_the_resistance()
 {
    let cities = vec![city("r10", 10, 3, vec![]), city("r2", 2, 2, vec![])];
    let data = test_data(cities);
    // The end of wave 1: every hand empty, A's Temple holds H2 and H9.
    let position = HereticsPosition {
        factions: Some(vec!["hussites".into(), "reformers".into()]),
        hand: vec![vec![], vec![]],
        temple: Some(vec![ids(&["H2", "H9"]), vec![]]),
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: vec!["r10".into(), "r2".into()],
        cities: vec![],
        wave: 1,
    };
    let s = Heretics::from_position(&data, 2, &opts(true), position).expect("valid");
    assert_eq!(s.wave, 2);
    assert_eq!(s.hand[0], ids(&["H2", "H9"]));
    assert!(s.temple.iter().all(Vec::is_empty));
    assert_eq!(s.wave_round, 1);
    assert_eq!(s.awaiting(), vec![0]);
    assert_eq!(Heretics::legal(&s, 1), None);

    let t = play(&s, 0, &card("H9"));
    assert!(t.completes_step && t.reveal);
    let record = &t.rounds[0];
    assert_eq!(record.seats[1].card, None);
    assert_eq!(record.seats[1].kind.as_deref(), Some("absent"));
    assert_eq!(record.seats[1].success, Some(false));
    assert_eq!(record.seats[1].choice, None);
    let r = last(&t.state);
    assert_eq!(r.per_seat[1].status, Status::Absent);
    assert_eq!(r.per_seat[1].role, Role::Absent);
    assert_eq!(r.outcome_label, "a");
    assert!(t.state.cemetery.contains(&card("H9")));
    assert_eq!(t.state.unclaimed, vec!["r10".to_owned()]);

    assert_eq!(t.state.wave_round, 2);
    let t = play(&t.state, 0, &card("H2"));
    let r = last(&t.state);
    assert_eq!(r.outcome_label, "b");
    assert_eq!(r.winner_seat, Some(0));
    assert_eq!(t.state.won_cities[0], vec!["r2".to_owned()]);
    assert!(t.state.finished);
    match Heretics::progress(&t.state) {
        Progress::Finished(o) => {
            assert_eq!(o.winners(), vec![0]);
            assert_eq!(o.placings[0].score, 2);
        }
        Progress::Active(_) => panic!("the game must be over"),
    }
}

// ---------------------------------------------- decisions of rules §10

#[test]
fn decision_1_a_card_exactly_at_the_resistance_qualifies_in_case_d() {
    let s = duel_state(&["hussites", "reformers"], city("x", 6, 2, vec![]));
    let t = play_round(&s, &[Some("H6"), Some("R8")]);
    let r = last(&t.state);
    assert_eq!(r.per_seat[0].status, Status::Qualified);
    assert_eq!(r.outcome_label, "d");
    assert_eq!(r.winner_seat, Some(1));
}

#[test]
fn decision_7_a_sacrificed_card_never_contests_even_alone_and_above_the_resistance() {
    let s = duel_state(&["hussites", "reformers"], kutna_hora());
    let t = play_round(&s, &[Some("H1"), Some("R3")]);
    assert_eq!(last(&t.state).winner_seat, None);
    assert_eq!(t.state.temple, vec![ids(&["H1"]), ids(&["R3"])]);
}

#[test]
fn decision_8_a_crossed_card_cannot_neutralise_an_equal_card() {
    let s = duel_state(&["hussites", "catholics"], constance());
    let t = play_round(&s, &[Some("H10"), Some("C10")]);
    let r = last(&t.state);
    assert_eq!(r.winner_seat, Some(1));
    assert_eq!(r.outcome_label, "b");
    assert_eq!(r.abilities_applied, vec!["cross".to_owned()]);
}

#[test]
fn decision_8_any_printed_eleven_is_crossed() {
    let s = duel_state(&["radicals", "catholics"], constance());
    let t = play_round(&s, &[Some("X11"), Some("C11")]);
    let r = last(&t.state);
    assert!(r.per_seat.iter().all(|p| p.crossed));
    assert_eq!(r.outcome_label, "a");
    assert_eq!(t.state.cemetery, ids(&["X11", "C11"]));
}

#[test]
fn decision_9_losers_to_temple_covers_neutralisation_and_failing() {
    let basel = city("x", 7, 3, vec![losers_to_temple()]);
    let s = duel_state(&["hussites", "reformers", "catholics"], basel);
    let t = play_round(&s, &[Some("H9"), Some("R9"), Some("C5")]);
    assert_eq!(last(&t.state).winner_seat, None);
    assert_eq!(t.state.temple[0], ids(&["H9"]));
    assert_eq!(t.state.temple[1], ids(&["R9"]));
    assert_eq!(t.state.cemetery, ids(&["C5"]));
}

#[test]
fn decision_10_with_three_or_four_seats_one_seven_is_not_enough_but_two_are() {
    let three = ["hussites", "reformers", "catholics"];
    let s = duel_state(&three, city("x", 5, 5, vec![seven()]));
    let t = play_round(&s, &[Some("H7"), Some("R9"), Some("C2")]);
    assert_eq!(last(&t.state).outcome_label, "d");
    assert_eq!(last(&t.state).winner_seat, Some(1));
    let t = play_round(&s, &[Some("H7"), Some("R9"), Some("C7")]);
    assert_eq!(last(&t.state).outcome_label, "seven");
    assert_eq!(t.state.cemetery, ids(&["H7", "R9", "C7"]));
}

#[test]
fn decision_10_the_seven_threshold_follows_the_match_size_not_the_seats_present() {
    let data = test_data(vec![city("x", 5, 5, vec![seven()])]);
    let position = HereticsPosition {
        factions: Some(vec![
            "hussites".into(),
            "reformers".into(),
            "catholics".into(),
        ]),
        hand: vec![ids(&["H7"]), ids(&["R9"]), vec![]],
        temple: None,
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: vec!["x".into()],
        cities: vec![],
        wave: 2,
    };
    let s = Heretics::from_position(&data, 3, &opts(true), position).expect("valid");
    let t = play_round(&s, &[Some("H7"), Some("R9"), None]);
    assert_eq!(last(&t.state).outcome_label, "d");
    assert_eq!(last(&t.state).winner_seat, Some(1));
}

#[test]
fn decision_10_a_sacrificed_seven_counts_for_the_seven_and_still_goes_to_the_temple() {
    let c = city(
        "x",
        5,
        5,
        vec![Ability::Sacrifice { max_strength: 7 }, seven()],
    );
    let s = duel_state(&["hussites", "catholics"], c);
    let t = play_round(&s, &[Some("H7"), Some("C10")]);
    assert_eq!(last(&t.state).outcome_label, "seven");
    assert_eq!(t.state.temple[0], ids(&["H7"]));
    assert_eq!(t.state.cemetery, ids(&["C10"]));
}

#[test]
fn decision_11_several_abilities_on_one_city_all_apply_in_order() {
    let c = city(
        "x",
        8,
        4,
        vec![
            Ability::FactionBonus {
                faction: "hussites".into(),
                bonus: 1,
            },
            Ability::Sacrifice { max_strength: 3 },
            losers_to_temple(),
        ],
    );
    let s = duel_state(&["hussites", "reformers", "catholics"], c);
    let t = play_round(&s, &[Some("H9"), Some("R10"), Some("C2")]);
    let r = last(&t.state);
    // H9 has eff 10 and ties R10: both neutralised, both saved by Basel's rule.
    assert_eq!(r.per_seat[0].eff, Some(10));
    assert_eq!(r.winner_seat, None);
    assert_eq!(r.per_seat[2].status, Status::Sacrificed);
    assert_eq!(
        t.state.temple,
        vec![ids(&["H9"]), ids(&["R10"]), ids(&["C2"])]
    );
    assert_eq!(
        r.abilities_applied,
        vec![
            "faction_bonus".to_owned(),
            "sacrifice".to_owned(),
            "losers_to_temple".to_owned()
        ]
    );
}

#[test]
fn decision_13_a_tie_on_the_final_score_is_a_shared_win() {
    let data = test_data(vec![city("x", 1, 2, vec![]), city("y", 1, 2, vec![])]);
    let position = HereticsPosition {
        factions: Some(vec!["hussites".into(), "reformers".into()]),
        hand: vec![ids(&["H5"]), ids(&["R4"])],
        temple: None,
        cemetery: None,
        won_cities: Some(vec![vec![], vec!["y".into()]]),
        unclaimed: vec![],
        city_deck: vec!["x".into()],
        cities: vec![],
        wave: 2,
    };
    let s = Heretics::from_position(&data, 2, &opts(true), position).expect("valid");
    assert_eq!(s.scores, vec![0, 2]);
    let t = play_round(&s, &[Some("H5"), Some("R4")]);
    let Progress::Finished(o) = Heretics::progress(&t.state) else {
        panic!("over")
    };
    assert_eq!(o.winners(), vec![0, 1]);
    assert!(o.placings.iter().all(|p| p.rank == 1 && p.score == 2));
}

#[test]
fn decision_15_the_game_ends_when_the_city_deck_runs_out() {
    let data = test_data(vec![city("x", 3, 2, vec![])]);
    let position = HereticsPosition {
        factions: Some(vec!["hussites".into(), "reformers".into()]),
        hand: vec![ids(&["H1", "H5"]), ids(&["R1", "R2"])],
        temple: None,
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: vec!["x".into()],
        cities: vec![],
        wave: 1,
    };
    let s = Heretics::from_position(&data, 2, &opts(true), position).expect("valid");
    let t = play_round(&s, &[Some("H5"), Some("R2")]);
    assert!(t.state.finished);
    assert_eq!(t.state.hand, vec![ids(&["H1"]), ids(&["R1"])]);
    let view = Heretics::view(&t.state, Viewer::Spectator);
    assert_eq!(view.final_hands, Some(vec![ids(&["H1"]), ids(&["R1"])]));
    assert!(t.events.iter().any(|e| e.kind == "game_finished"));
}

#[test]
fn special_cities_off_ignores_every_ability_and_hides_them_in_views() {
    let c = city(
        "x",
        8,
        3,
        vec![Ability::FactionBonus {
            faction: "hussites".into(),
            bonus: 1,
        }],
    );
    let mut cities = vec![c];
    cities.extend(fillers());
    let data = test_data(cities.clone());
    let position = HereticsPosition {
        factions: Some(vec!["hussites".into(), "catholics".into()]),
        hand: vec![full_hand("hussites"), full_hand("catholics")],
        temple: None,
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: cities.iter().map(|c| c.id.clone()).collect(),
        cities: vec![],
        wave: 1,
    };
    let s = Heretics::from_position(&data, 2, &opts(false), position).expect("valid");
    let v = Heretics::view(&s, Viewer::Spectator);
    assert!(v.current_city.expect("a city").abilities.is_empty());
    assert!(v.cities.iter().all(|c| c.abilities.is_empty()));
    let t = play_round(&s, &[Some("H7"), Some("C3")]);
    let r = last(&t.state);
    assert_eq!(r.per_seat[0].eff, Some(7));
    assert_eq!(r.outcome_label, "a");
    assert!(r.abilities_applied.is_empty());
}

// ------------------------------------------------------------ waves

#[test]
fn after_eleven_rounds_the_temples_return_to_the_hands_and_wave_2_lasts_as_long_as_the_largest_hand()
 {
    let cities: Vec<City> = (0..30)
        .map(|i| city(&format!("c{i}"), 6, 1, vec![]))
        .collect();
    let data = test_data(cities.clone());
    let position = HereticsPosition {
        factions: Some(vec!["hussites".into(), "reformers".into()]),
        hand: vec![full_hand("hussites"), full_hand("reformers")],
        temple: None,
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: cities.iter().map(|c| c.id.clone()).collect(),
        cities: vec![],
        wave: 1,
    };
    let mut s = Heretics::from_position(&data, 2, &opts(true), position).expect("valid");
    // Hussites play 1..11 in order, reformers 11..1 (resistance 6).
    for k in 1..=11u32 {
        assert_eq!(s.wave, 1);
        assert_eq!(s.round, k);
        let h = format!("hussites:{k}");
        let r = format!("reformers:{}", 12 - k);
        s = play(&s, 0, &h).state;
        s = play(&s, 1, &r).state;
    }
    assert_eq!(s.wave, 2);
    assert_eq!(s.round, 12);
    assert_eq!(s.wave_round, 1);
    assert!(s.temple.iter().all(Vec::is_empty));
    // Winners of wave 1 went to the Temples and are now back in hand.
    let sizes: Vec<usize> = s.hand.iter().map(Vec::len).collect();
    let total: usize = sizes.iter().sum();
    assert_eq!(total + s.cemetery.len(), 22);
    let largest = sizes.iter().copied().max().unwrap_or(0);
    while !s.finished {
        let seat = s.awaiting()[0];
        let action = Heretics::null_move(&s, seat).expect("a move");
        s = Heretics::apply(&s, seat, &action, &mut rng())
            .expect("legal")
            .state;
    }
    assert_eq!(s.round as usize, 11 + largest);
    // Cards that went to the Temple in wave 2 stay there.
    assert!(s.hand.iter().all(Vec::is_empty));
}

#[test]
fn when_every_temple_is_empty_after_wave_1_the_game_ends_at_once() {
    let data = test_data(vec![city("x", 11, 2, vec![]), city("y", 1, 1, vec![])]);
    let position = HereticsPosition {
        factions: Some(vec!["hussites".into(), "reformers".into()]),
        hand: vec![ids(&["H3"]), ids(&["R3"])],
        temple: None,
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: vec!["x".into(), "y".into()],
        cities: vec![],
        wave: 1,
    };
    let s = Heretics::from_position(&data, 2, &opts(true), position).expect("valid");
    let t = play_round(&s, &[Some("H3"), Some("R3")]);
    assert!(t.state.finished);
    assert_eq!(t.state.wave, 2);
    assert_eq!(t.state.city_deck, vec!["y".to_owned()]);
    assert!(t.events.iter().any(|e| e.kind == "wave_started"));
    assert!(matches!(
        Heretics::progress(&t.state),
        Progress::Finished(_)
    ));
}

#[test]
fn when_wave_1_ends_with_an_empty_deck_wave_2_starts_and_the_game_ends_at_once() {
    let data = test_data(vec![city("x", 1, 2, vec![])]);
    let position = HereticsPosition {
        factions: Some(vec!["hussites".into(), "reformers".into()]),
        hand: vec![ids(&["H3"]), ids(&["R2"])],
        temple: None,
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: vec!["x".into()],
        cities: vec![],
        wave: 1,
    };
    let s = Heretics::from_position(&data, 2, &opts(true), position).expect("valid");
    let t = play_round(&s, &[Some("H3"), Some("R2")]);
    let kinds: Vec<&str> = t.events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds[kinds.len() - 2..], ["wave_started", "game_finished"]);
    assert!(t.state.finished);
    assert_eq!(t.state.wave, 2);
    assert_eq!(t.state.hand[0], ids(&["H3"]));
    assert_eq!(t.state.scores, vec![2, 0]);
}

#[test]
fn cards_won_in_wave_2_stay_in_the_temple() {
    let data = test_data(vec![city("x", 1, 1, vec![]), city("y", 1, 1, vec![])]);
    let position = HereticsPosition {
        factions: Some(vec!["hussites".into(), "reformers".into()]),
        hand: vec![ids(&["H5"]), vec![]],
        temple: None,
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: vec!["x".into(), "y".into()],
        cities: vec![],
        wave: 2,
    };
    let s = Heretics::from_position(&data, 2, &opts(true), position).expect("valid");
    let t = play(&s, 0, &card("H5"));
    assert!(t.state.finished);
    assert_eq!(t.state.temple[0], ids(&["H5"]));
    assert!(t.state.hand[0].is_empty());
}

// ------------------------------------------------------- setup and data

fn embedded() -> HereticsData {
    let files: Vec<(&str, &str)> = Heretics::data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    Heretics::load_data(&files).expect("the embedded data loads")
}

#[test]
fn the_embedded_data_loads_and_is_marked_as_placeholder() {
    let d = embedded();
    assert!(d.placeholder);
    assert_eq!(d.factions.len(), 4);
    assert_eq!(d.personalities.len(), 44);
    assert!(d.personalities.iter().any(|p| p.id == "hussites:10"));
    assert_eq!(d.cities.len(), 36);
    let specials: Vec<&City> = d
        .cities
        .iter()
        .filter(|c| !c.abilities.is_empty())
        .collect();
    assert_eq!(specials.len(), 5);
    let mut types: Vec<&str> = specials
        .iter()
        .flat_map(|c| c.abilities.iter().map(Ability::type_id))
        .collect();
    types.sort_unstable();
    assert_eq!(
        types,
        vec![
            "cross",
            "faction_bonus",
            "losers_to_temple",
            "sacrifice",
            "seven"
        ]
    );
    for f in Heretics::data_files() {
        let v: Value = serde_json::from_str(f.embedded).expect("json");
        assert_eq!(v["placeholder"], json!(true), "{}", f.name);
        assert!(
            v["source"].is_string() && v["note"].is_string(),
            "{}",
            f.name
        );
    }
}

#[test]
fn data_that_names_an_unknown_faction_or_lacks_a_strength_is_rejected() {
    let mut d = test_data(vec![city(
        "x",
        5,
        1,
        vec![Ability::FactionBonus {
            faction: "cathars".into(),
            bonus: 1,
        }],
    )]);
    assert!(data::check(&d).is_err());
    d.cities = vec![city("x", 5, 1, vec![])];
    assert!(data::check(&d).is_ok());
    d.personalities.retain(|p| p.id != "hussites:10");
    assert!(data::check(&d).is_err());
    let defaults: Ability =
        serde_json::from_value(json!({"type": "seven"})).expect("defaults fill in");
    assert_eq!(defaults, seven());
    assert!(serde_json::from_value::<Ability>(json!({"type": "seven", "x": 1})).is_err());
}

#[test]
fn setup_deals_distinct_factions_full_hands_and_reveals_the_first_city() {
    let d = embedded();
    for seats in 2..=4 {
        let mut r = GameRng::for_setup(&[seats as u8; 32]);
        let s = Heretics::setup(&d, seats, &HereticsOptions::default(), &mut r).expect("setup");
        let mut f = s.factions.clone();
        f.sort();
        f.dedup();
        assert_eq!(f.len(), seats);
        for (seat, hand) in s.hand.iter().enumerate() {
            assert_eq!(hand.len(), 11);
            assert_eq!(hand[0], format!("{}:1", s.factions[seat]));
            assert_eq!(hand[10], format!("{}:11", s.factions[seat]));
        }
        assert_eq!(s.city_deck.len(), 35);
        assert!(s.current_city.is_some());
        assert_eq!((s.wave, s.round, s.wave_round), (1, 1, 1));
        assert_eq!(s.awaiting(), (0..seats).collect::<Vec<_>>());
        assert_eq!(s.personalities.len(), 11 * seats);
    }
}

#[test]
fn setup_refuses_one_or_five_seats() {
    let d = embedded();
    for seats in [0, 1, 5] {
        let e = Heretics::setup(&d, seats, &HereticsOptions::default(), &mut rng());
        assert_eq!(e.expect_err("refused").code, "invalid_options");
    }
}

#[test]
fn options_default_to_special_cities_and_reject_unknown_fields_like_players() {
    let g = Erased::<Heretics>::new();
    assert_eq!(
        g.normalize_options(&json!({})).expect("ok"),
        json!({"special_cities": true})
    );
    assert_eq!(Heretics::info().options, json!({"special_cities": true}));
    assert_eq!(Heretics::info().seats, vec![2, 3, 4]);
    assert!(g.normalize_options(&json!({"players": 2})).is_err());
}

// ------------------------------------------------------------ positions

fn base_position() -> HereticsPosition {
    HereticsPosition {
        factions: Some(vec!["hussites".into(), "reformers".into()]),
        hand: vec![full_hand("hussites"), full_hand("reformers")],
        temple: None,
        cemetery: None,
        won_cities: None,
        unclaimed: vec![],
        city_deck: vec!["filler0".into(), "filler1".into()],
        cities: vec![],
        wave: 1,
    }
}

fn position_error(p: HereticsPosition) -> String {
    let e = Heretics::from_position(&test_data(fillers()), 2, &opts(true), p)
        .expect_err("invalid position");
    assert_eq!(e.code, "invalid_position");
    e.message
}

#[test]
fn positions_with_impossible_situations_are_rejected_with_a_reason() {
    let mut p = base_position();
    p.temple = Some(vec![vec!["hussites:1".into()], vec![]]);
    assert!(position_error(p).contains("twice"));

    let mut p = base_position();
    p.hand[0].push("reformers:1".into());
    p.hand[1].retain(|c| c != "reformers:1");
    assert!(position_error(p).contains("own faction"));

    let mut p = base_position();
    p.city_deck.push("atlantis".into());
    assert!(position_error(p).contains("atlantis"));

    let mut p = base_position();
    p.unclaimed = vec!["filler0".into()];
    assert!(position_error(p).contains("twice"));

    let mut p = base_position();
    p.wave = 3;
    assert!(position_error(p).contains("wave"));

    let mut p = base_position();
    p.hand[0].pop();
    assert!(position_error(p).contains("same size"));

    let mut p = base_position();
    p.hand[0].pop();
    p.hand[1].pop();
    p.cemetery = Some(vec!["hussites:11".into()]);
    assert!(position_error(p).contains("reformers:11"));

    let mut p = base_position();
    p.hand.push(vec![]);
    assert!(position_error(p).contains("seats"));

    let mut p = base_position();
    p.factions = Some(vec!["hussites".into(), "hussites".into()]);
    assert!(position_error(p).contains("two seats"));

    let p: Result<HereticsPosition, _> =
        serde_json::from_value(json!({"hand": [[], []], "city_deck": [], "score": 3}));
    assert!(p.is_err());
}

#[test]
fn a_position_derives_scores_rounds_and_the_cemetery() {
    let mut p = base_position();
    p.hand = vec![ids(&["H1", "H2"]), ids(&["R3", "R4"])];
    p.temple = Some(vec![ids(&["H9"]), vec![]]);
    p.won_cities = Some(vec![vec!["filler2".into(), "filler3".into()], vec![]]);
    p.unclaimed = vec!["filler4".into()];
    let s = Heretics::from_position(&test_data(fillers()), 2, &opts(true), p).expect("valid");
    assert_eq!(s.scores, vec![2, 0]);
    assert_eq!(s.round, 4);
    assert_eq!(s.cemetery.len(), 22 - 5);
    assert_eq!(s.current_city.as_deref(), Some("filler0"));
    assert_eq!(s.cities.len(), 5);
    check_invariants(&s);
}

#[test]
fn a_position_is_accepted_as_json_with_defaults() {
    let g = Erased::<Heretics>::new();
    let data: crate::games::AnyData = std::sync::Arc::new(test_data(fillers()));
    let state = g
        .from_position(
            &data,
            2,
            &json!({}),
            &json!({"hand": [["hussites:3"], ["reformers:8"]], "city_deck": ["filler0"]}),
        )
        .expect("valid");
    let state = g.state_value(&state).expect("state");
    assert_eq!(state["factions"], json!(["hussites", "reformers"]));
    assert_eq!(state["wave"], json!(1));
}

// ---------------------------------------------- moves, errors, views

#[test]
fn illegal_moves_are_refused_with_the_rule_named() {
    let s = duel_state(&["hussites", "reformers"], city("x", 5, 1, vec![]));
    let bad = |state: &HereticsState, seat: Seat, c: &str| {
        let e = Heretics::validate(state, seat, &HereticsAction::Play { card: c.into() })
            .expect_err("illegal");
        assert_eq!(e.code, "illegal_move");
        assert!(e.message.contains(c));
        assert!(e.message.contains("(rules §"), "{}", e.message);
        e.message
    };
    assert!(bad(&s, 0, "reformers:3").contains("not your personality"));
    assert!(bad(&s, 0, "hussites:12").contains("no such"));
    let t = play(&s, 0, "hussites:3");
    assert!(bad(&t.state, 0, "hussites:4").contains("already chosen"));
    let t = play(&t.state, 1, "reformers:9");
    assert!(bad(&t.state, 0, "hussites:3").contains("Cemetery"));
    let t2 = play_round(&t.state, &[Some("H9"), Some("R1")]);
    assert!(bad(&t2.state, 0, "hussites:9").contains("Temple"));
    let e = Heretics::validate(&s, 7, &HereticsAction::Play { card: "x".into() });
    assert!(e.is_err());
    assert!(
        Heretics::apply(
            &s,
            0,
            &HereticsAction::Play {
                card: "reformers:1".into()
            },
            &mut rng()
        )
        .is_err()
    );
}

#[test]
fn a_seat_with_an_empty_hand_gets_no_prompt_and_no_legal_moves() {
    let data = test_data(fillers());
    let mut p = base_position();
    p.wave = 2;
    p.hand = vec![ids(&["H4"]), vec![]];
    let s = Heretics::from_position(&data, 2, &opts(true), p).expect("valid");
    assert_eq!(Heretics::legal(&s, 1), None);
    assert_eq!(Heretics::null_move(&s, 1), None);
    let e = Heretics::validate(
        &s,
        1,
        &HereticsAction::Play {
            card: "reformers:1".into(),
        },
    )
    .expect_err("absent");
    assert!(e.message.contains("§6.2"));
    match Heretics::progress(&s) {
        Progress::Active(p) => {
            assert_eq!(p.kind, "choose_personality");
            assert!(p.sealed);
            assert_eq!(p.awaiting, vec![0]);
        }
        Progress::Finished(_) => panic!("active"),
    }
}

#[test]
fn legal_lists_every_card_in_hand_and_the_null_move_is_the_weakest() {
    let s = duel_state(&["hussites", "reformers"], city("x", 5, 1, vec![]));
    let legal = Heretics::legal(&s, 0).expect("owes a move");
    assert_eq!(legal.len(), 11);
    assert_eq!(legal[0], json!({"type": "play", "card": "hussites:1"}));
    assert_eq!(
        Heretics::null_move(&s, 1),
        Some(HereticsAction::Play {
            card: "reformers:1".into()
        })
    );
    let t = play(&s, 0, "hussites:1");
    assert_eq!(Heretics::legal(&t.state, 0), None);
    assert_eq!(Heretics::null_move(&t.state, 0), None);
}

#[test]
fn a_sealed_card_is_hidden_from_others_until_every_seat_has_played() {
    let s = duel_state(
        &["hussites", "reformers", "catholics"],
        city("x", 5, 1, vec![]),
    );
    let t = play(&s, 0, "hussites:7");
    assert!(!t.completes_step && !t.reveal);
    assert!(t.rounds.is_empty());
    for e in &t.events {
        let text = e.data.to_string();
        if e.audience == crate::games::Audience::Public {
            assert!(!text.contains("hussites:7"), "public event leaks: {text}");
        } else {
            assert_eq!(e.audience, crate::games::Audience::Seat(0));
        }
    }
    assert_eq!(
        Heretics::public_part(
            &t.state,
            0,
            &HereticsAction::Play {
                card: "hussites:7".into()
            }
        ),
        Some(json!({"type": "play"}))
    );
    let own = Heretics::view(&t.state, Viewer::Seat(0));
    assert_eq!(own.choice.as_deref(), Some("hussites:7"));
    assert_eq!(own.hand.as_ref().map(Vec::len), Some(10));
    assert_eq!(own.hand_sizes, vec![11, 11, 11]);
    for viewer in [Viewer::Seat(1), Viewer::Seat(2), Viewer::Spectator] {
        let v = Heretics::view(&t.state, viewer);
        assert_eq!(v.choice, None);
        assert_eq!(v.hand_sizes, vec![11, 11, 11]);
        assert_eq!(v.submitted, vec![true, false, false]);
        let text = serde_json::to_value(&v).expect("json");
        assert!(text.get("hand").is_some());
        if viewer == Viewer::Spectator {
            assert_eq!(text["hand"], Value::Null);
        }
    }
    assert_views_hide_sealed_cards(&t.state);
    let t = play(&t.state, 1, "reformers:2");
    let t = play(&t.state, 2, "catholics:3");
    assert!(t.reveal);
    let v = Heretics::view(&t.state, Viewer::Spectator);
    assert_eq!(
        v.history[0].plays,
        vec![
            Some("hussites:7".to_owned()),
            Some("reformers:2".to_owned()),
            Some("catholics:3".to_owned())
        ]
    );
    assert_eq!(v.hand_sizes, vec![10, 10, 10]);
}

#[test]
fn the_round_record_maps_the_duel_onto_the_generic_history_fields() {
    let s = duel_state(&["reformers", "catholics"], city("x", 5, 4, vec![]));
    let mut s1 = play(&s, 0, "reformers:5").state;
    let t = Heretics::apply(
        &s1,
        1,
        &HereticsAction::Play {
            card: "catholics:10".into(),
        },
        &mut rng(),
    )
    .expect("legal");
    s1 = t.state;
    assert_eq!(s1.round, 2);
    let r: &RoundRecord = &t.rounds[0];
    assert_eq!(r.round, 1);
    assert_eq!(r.value, Some(4));
    assert_eq!(r.outcome, "d");
    assert_eq!(r.total_a, Some(5));
    assert_eq!(r.total_b, Some(10));
    assert_eq!(r.lead_seat, Some(1));
    assert_eq!(r.seats[0].card.as_deref(), Some("reformers:5"));
    assert_eq!(r.seats[0].kind.as_deref(), Some("qualified"));
    assert_eq!(r.seats[0].choice.as_deref(), Some("cemetery"));
    assert_eq!(r.seats[0].success, Some(false));
    assert_eq!(r.seats[0].stake, Some(5));
    assert_eq!(r.seats[1].choice.as_deref(), Some("temple"));
    assert_eq!(r.seats[1].success, Some(true));
    assert_eq!(r.seats[1].delta, 4);
    assert_eq!(r.ledger.len(), 1);
    assert_eq!(r.ledger[0].amount, 4);
    assert_eq!(r.ledger[0].reason, "city_won:x");
    let kinds: Vec<&str> = t.events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(
        kinds,
        vec![
            "personality_placed",
            "personality_chosen",
            "round_resolved",
            "city_revealed"
        ]
    );
}

#[test]
fn the_engine_source_uses_no_io_clock_or_framework() {
    let sources = [
        include_str!("mod.rs"),
        include_str!("rules.rs"),
        include_str!("data.rs"),
    ];
    let banned = [
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
        for word in banned {
            assert!(!src.contains(word), "engine source mentions {word}");
        }
    }
}

// ------------------------------------------------------- property tests

/// Every card and every city is in exactly one place; scores match the won
/// cities; public hand sizes in wave 1 are equal.
fn check_invariants(s: &HereticsState) {
    let mut cards: Vec<&String> = s
        .hand
        .iter()
        .flatten()
        .chain(s.played.iter().flatten())
        .chain(s.temple.iter().flatten())
        .chain(s.cemetery.iter())
        .collect();
    cards.sort();
    let mut all: Vec<&String> = s.personalities.iter().map(|p| &p.id).collect();
    all.sort();
    assert_eq!(cards, all, "every card is in exactly one place");
    for (seat, zone) in s.hand.iter().chain(s.temple.iter()).enumerate() {
        for c in zone {
            assert_eq!(s.owner(c), Some(seat % s.seats));
        }
    }
    let mut cities: Vec<&String> = s
        .city_deck
        .iter()
        .chain(s.current_city.iter())
        .chain(s.won_cities.iter().flatten())
        .chain(s.unclaimed.iter())
        .collect();
    cities.sort();
    let mut all: Vec<&String> = s.cities.iter().map(|c| &c.id).collect();
    all.sort();
    assert_eq!(cities, all, "every city is in exactly one place");
    for (seat, won) in s.won_cities.iter().enumerate() {
        let sum: i64 = won
            .iter()
            .filter_map(|c| s.city(c))
            .map(|c| i64::from(c.significance))
            .sum();
        assert_eq!(s.scores[seat], sum);
        assert!(s.scores[seat] >= 0);
    }
    if s.wave == 1 && !s.finished {
        let sizes: Vec<usize> = (0..s.seats).map(|x| s.public_hand_size(x)).collect();
        assert!(sizes.windows(2).all(|w| w[0] == w[1]), "{sizes:?}");
    }
    assert!(s.round <= 22);
}

/// For every seat with a face-down card, every other viewer's view is the same
/// whatever card it chose, and whatever the deck order below the top.
fn assert_views_hide_sealed_cards(s: &HereticsState) {
    let viewers: Vec<Viewer> = (0..s.seats)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator])
        .collect();
    for seat in 0..s.seats {
        let Some(chosen) = s.played[seat].clone() else {
            continue;
        };
        // The weakest and the strongest alternative are enough to tell.
        let hand = &s.hand[seat];
        let alternatives: Vec<String> = hand
            .first()
            .into_iter()
            .chain(hand.last())
            .cloned()
            .collect();
        for other in alternatives {
            let mut alt = s.clone();
            alt.played[seat] = Some(other.clone());
            alt.hand[seat].retain(|c| *c != other);
            alt.hand[seat].push(chosen.clone());
            alt.sort_hands();
            for v in &viewers {
                if *v == Viewer::Seat(seat) {
                    continue;
                }
                let a = serde_json::to_string(&Heretics::view(s, *v)).expect("json");
                let b = serde_json::to_string(&Heretics::view(&alt, *v)).expect("json");
                assert_eq!(
                    a, b,
                    "the view of {v:?} depends on seat {seat}'s sealed card"
                );
            }
        }
    }
    let mut alt = s.clone();
    alt.city_deck.reverse();
    for v in &viewers {
        assert_eq!(Heretics::view(s, *v), Heretics::view(&alt, *v));
    }
    // Another seat's hand never appears in a view.
    for v in &viewers {
        let view = Heretics::view(s, *v);
        match v {
            Viewer::Seat(x) => assert_eq!(view.hand.as_ref(), Some(&s.hand[*x])),
            Viewer::Spectator => assert_eq!(view.hand, None),
        }
    }
}

type Moves = Vec<(Seat, HereticsAction)>;

/// Plays a random legal game and checks every property on the way; answers
/// the final state and the moves played.
fn random_game(seats: usize, special: bool, seed: u8) -> (HereticsState, Moves, Vec<RoundRecord>) {
    let data = embedded();
    let match_seed = [seed; 32];
    let mut setup_rng = GameRng::for_setup(&match_seed);
    let mut state = Heretics::setup(&data, seats, &opts(special), &mut setup_rng).expect("setup");
    let mut chooser = GameRng::from_key([seed.wrapping_add(101); 32]);
    let mut moves = Vec::new();
    let mut records = Vec::new();
    let mut step: u64 = 0;
    let mut guard = 0;
    check_invariants(&state);
    while let Progress::Active(prompt) = Heretics::progress(&state) {
        guard += 1;
        assert!(guard < 200, "the game must end");
        assert!(!prompt.awaiting.is_empty());
        // legal and validate agree, for every seat and every card of the match.
        for seat in 0..seats {
            let legal = Heretics::legal(&state, seat).unwrap_or_default();
            assert_eq!(legal.is_empty(), !prompt.awaiting.contains(&seat));
            for p in &state.personalities {
                let action = HereticsAction::Play { card: p.id.clone() };
                let listed = is_listed(&legal, &serde_json::to_value(&action).expect("json"));
                let valid = Heretics::validate(&state, seat, &action).is_ok();
                assert_eq!(listed, valid, "seat {seat} {}", p.id);
            }
        }
        let pick = prompt.awaiting[chooser.index(prompt.awaiting.len())];
        let legal = Heretics::legal(&state, pick).expect("awaited seat");
        let raw = sample(&legal, &mut chooser).expect("a legal move");
        let action: HereticsAction = serde_json::from_value(raw).expect("an action");
        let mut step_rng = GameRng::for_step(&match_seed, step);
        let t = Heretics::apply(&state, pick, &action, &mut step_rng).expect("legal move");
        if t.completes_step {
            step += 1;
            assert_eq!(t.rounds.len(), 1);
        } else {
            assert!(t.rounds.is_empty());
            for e in &t.events {
                if e.audience == crate::games::Audience::Public {
                    let HereticsAction::Play { card } = &action;
                    assert!(!e.data.to_string().contains(&format!("\"{card}\"")));
                }
            }
        }
        records.extend(t.rounds);
        // The state survives its JSON round trip unchanged.
        let stored = serde_json::to_value(&t.state).expect("json");
        state = serde_json::from_value(stored).expect("state parses");
        assert_eq!(state, t.state);
        moves.push((pick, action));
        check_invariants(&state);
        assert_eq!(
            state.round as usize,
            state.history.len() + usize::from(state.current_city.is_some())
        );
        assert_views_hide_sealed_cards(&state);
    }
    assert!(state.finished);
    assert_eq!(records.len(), state.history.len());
    (state, moves, records)
}

fn replay(seats: usize, special: bool, seed: u8, moves: &Moves) -> HereticsState {
    let data = embedded();
    let match_seed = [seed; 32];
    let mut state = Heretics::setup(
        &data,
        seats,
        &opts(special),
        &mut GameRng::for_setup(&match_seed),
    )
    .expect("setup");
    let mut step = 0;
    for (seat, action) in moves {
        let t = Heretics::apply(
            &state,
            *seat,
            action,
            &mut GameRng::for_step(&match_seed, step),
        )
        .expect("replayed move");
        if t.completes_step {
            step += 1;
        }
        state = t.state;
    }
    state
}

#[test]
fn random_legal_games_of_two_three_and_four_players_finish_and_keep_every_invariant() {
    for seats in 2..=4 {
        for special in [true, false] {
            for seed in 0..8u8 {
                let (end, moves, records) = random_game(seats, special, seed);
                let Progress::Finished(outcome) = Heretics::progress(&end) else {
                    panic!("finished")
                };
                assert_eq!(outcome.placings.len(), seats);
                let best = end.scores.iter().copied().max().unwrap_or(0);
                for p in &outcome.placings {
                    assert_eq!(p.rank == 1, p.score == best);
                }
                // wave 1 always has exactly 11 rounds.
                assert_eq!(end.history.iter().filter(|h| h.wave == 1).count(), 11);
                let ledger: i64 = records
                    .iter()
                    .flat_map(|r| r.ledger.iter().map(|l| l.amount))
                    .sum();
                assert_eq!(ledger, end.scores.iter().sum::<i64>());
                if !special {
                    assert!(end.history.iter().all(|h| h.abilities_applied.is_empty()));
                }
                let labels_ok = end.history.iter().all(|h| match seats {
                    2 => ["a", "b", "c", "d", "seven"].contains(&h.outcome_label.as_str()),
                    _ => ["a", "b", "d", "battle", "seven"].contains(&h.outcome_label.as_str()),
                });
                assert!(labels_ok);
                assert_eq!(replay(seats, special, seed, &moves), end, "replay is exact");
            }
        }
    }
}

#[test]
fn a_full_game_plays_through_the_type_erased_json_interface_with_null_moves() {
    let g = Erased::<Heretics>::new();
    let files: Vec<(&str, &str)> = g
        .data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    let data = g.load_data(&files).expect("data");
    let seed = [42u8; 32];
    let mut state = g
        .setup(&data, 3, &json!({}), &mut GameRng::for_setup(&seed))
        .expect("setup");
    let mut step = 0;
    let mut rounds = 0;
    while let Progress::Active(p) = g.progress(&state).expect("progress") {
        let seat = p.awaiting[0];
        let action = g.null_move(&state, seat).expect("ok").expect("a null move");
        g.validate(&state, seat, &action)
            .expect("the null move is legal");
        assert_eq!(
            g.public_part(&state, seat, &action).expect("ok"),
            Some(json!({"type": "play"}))
        );
        let t = g
            .apply(&state, seat, &action, &mut GameRng::for_step(&seed, step))
            .expect("apply")
            .transition;
        if t.completes_step {
            step += 1;
        }
        rounds += t.rounds.len();
        state = t.state;
        let view = g.view(&state, Viewer::Spectator).expect("view");
        assert!(view.get("city_deck").is_none());
    }
    assert!(rounds >= 11);
    let bad = g.validate(&state, 0, &json!({"type": "pass"}));
    assert!(bad.is_err());
}

#[test]
fn the_openapi_schemas_of_action_view_options_and_position_build() {
    let schemas = Erased::<Heretics>::new().schemas();
    let names: Vec<&str> = schemas.components.iter().map(|(n, _)| n.as_str()).collect();
    for wanted in [
        "HereticsAction",
        "HereticsView",
        "HereticsOptions",
        "HereticsPosition",
    ] {
        assert!(names.contains(&wanted), "{wanted} missing from {names:?}");
    }
    let text = serde_json::to_string(&schemas.components).expect("json");
    assert!(text.contains("special_cities"));
    assert!(text.contains("won_cities"));
    assert!(!names.contains(&"usize"), "seat fields are plain integers");
}

#[test]
fn standings_are_the_cities_won_so_far_and_end_as_the_final_scores() {
    let data = crate::games::checks::embedded_data::<Heretics>();
    for (along, scores) in
        crate::games::checks::standings_along::<Heretics>(&data, 3, &HereticsOptions::default(), 3)
    {
        assert_eq!(along.first(), Some(&vec![0, 0, 0]));
        // Cities are never lost: each seat's score only grows.
        for w in along.windows(2) {
            assert!(w[0].iter().zip(&w[1]).all(|(a, b)| a <= b), "{w:?}");
        }
        assert_eq!(along.last(), Some(&scores));
    }
}

// ---------------------------------------------- cities stated in a position

#[test]
fn a_position_plays_with_the_cities_it_states_inline() {
    // A city no data has: resistance 3, significance 9, a faction bonus.
    let mut p = base_position();
    p.cities = vec![city(
        "puzzle",
        3,
        9,
        vec![Ability::FactionBonus {
            faction: "hussites".into(),
            bonus: 2,
        }],
    )];
    p.city_deck = vec!["puzzle".into(), "filler0".into()];
    let s = Heretics::from_position(&test_data(fillers()), 2, &opts(true), p).expect("valid");
    assert_eq!(s.current_city.as_deref(), Some("puzzle"));
    let stated = s.city("puzzle").expect("the stated city is in the match");
    assert_eq!((stated.resistance, stated.significance), (3, 9));
    // Hussites 2 (+2 bonus = 4) beat resistance 3 and reformers 1.
    let t = play(&s, 0, &card("H2"));
    let t = play(&t.state, 1, &card("R1"));
    let record = &t.rounds[0];
    assert_eq!(record.subject.as_deref(), Some("city:puzzle"));
    assert_eq!(record.lead_seat, Some(0));
    assert_eq!(t.state.scores, vec![9, 0]);
}

#[test]
fn a_stated_city_replaces_the_datas_city_of_its_id() {
    let mut p = base_position();
    p.cities = vec![city("filler0", 1, 7, vec![])];
    p.won_cities = Some(vec![vec!["filler0".into()], vec![]]);
    p.city_deck = vec!["filler1".into()];
    let s = Heretics::from_position(&test_data(fillers()), 2, &opts(true), p).expect("valid");
    assert_eq!(s.scores, vec![7, 0], "the stated significance counts");
    assert_eq!(s.city("filler0").map(|c| c.resistance), Some(1));
    assert_eq!(s.cities.len(), 2);
}

#[test]
fn stated_cities_are_checked_like_the_data() {
    let mut p = base_position();
    p.cities = vec![city("bad", 0, 1, vec![])];
    p.city_deck = vec!["bad".into()];
    assert!(position_error(p).contains("resistance 0"));

    let mut p = base_position();
    p.cities = vec![city(
        "bad",
        2,
        1,
        vec![Ability::FactionBonus {
            faction: "templars".into(),
            bonus: 1,
        }],
    )];
    p.city_deck = vec!["bad".into()];
    let e = position_error(p);
    assert!(e.contains("templars") && e.contains("position"), "{e}");

    let mut p = base_position();
    p.cities = vec![city("twin", 2, 1, vec![]), city("twin", 3, 1, vec![])];
    p.city_deck = vec!["twin".into()];
    assert!(position_error(p).contains("twice"));

    let mut p = base_position();
    p.city_deck = vec!["nowhere".into()];
    assert!(position_error(p).contains("neither"));
}
