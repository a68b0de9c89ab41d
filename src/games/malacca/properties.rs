//! Property tests over random legal games: 2–8 players, every option combination.

use serde_json::{Value, json};

use super::rules::{Phase, State};
use super::test_support::*;
use super::*;
use crate::games::rng::GameRng;
use crate::games::{Audience, Event, Game, Progress, RoundRecord, Viewer, legal as legal_fmt};

// ----- property tests ---------------------------------------------------------------

struct GameLog {
    state: State,
    moves: Vec<(Seat, Action)>,
    events: Vec<Event>,
    rounds: Vec<RoundRecord>,
}

fn key(seed: u64, salt: u8) -> [u8; 32] {
    let mut k = [salt; 32];
    k[..8].copy_from_slice(&seed.to_le_bytes());
    k
}

fn random_options(seed: u64, rng: &mut GameRng) -> MalaccaOptions {
    let combo = seed / 7;
    MalaccaOptions {
        characters: combo & 1 == 1,
        equipment: combo & 2 == 2,
        equipment_purchase: if combo & 4 == 4 {
            EquipmentPurchase::CaptainOnly
        } else {
            EquipmentPurchase::EachPlayer
        },
        stakes: if combo & 8 == 8 {
            Stakes::Sealed
        } else {
            Stakes::OpenSequential
        },
        ships: if rng.chance(1, 3) {
            let len = 1 + rng.index(15);
            Some((0..len).map(|_| rng.below(14) as i64).collect())
        } else {
            None
        },
        characters_by_seat: None,
    }
}

fn special_counts(s: &State) -> Vec<usize> {
    let mut all: Vec<Card> = s.special_deck.clone();
    for p in &s.players {
        all.extend(p.hand.iter().copied().filter(|c| !c.is_normal()));
        if let Some(play) = p.play.filter(|play| !play.card.is_normal()) {
            all.push(play.card);
        }
    }
    if let Phase::SayyidaKeep { cards, .. } = &s.phase {
        all.extend(cards.iter().copied());
    }
    Card::ALL
        .iter()
        .map(|c| all.iter().filter(|x| *x == c).count())
        .collect()
}

fn check_invariants(s: &State, box_specials: &[usize]) {
    for p in &s.players {
        assert!(p.coins >= 0, "negative coins: {p:?}");
        let mut normal: Vec<Card> = p.hand.iter().copied().filter(|c| c.is_normal()).collect();
        if let Some(play) = p.play.filter(|play| play.card.is_normal()) {
            normal.push(play.card);
        }
        normal.sort();
        assert_eq!(
            normal,
            Card::NORMAL.to_vec(),
            "normal cards of seat {}",
            p.seat
        );
    }
    assert_eq!(
        special_counts(s),
        box_specials,
        "special cards not accounted for"
    );
    for kind in EquipmentKind::ALL {
        let owned: u32 = s.players.iter().map(|p| p.equipment.get(kind)).sum();
        let expect = if s.options.equipment { 4 } else { 0 };
        assert_eq!(owned + s.equipment_supply.get(kind), expect);
    }
}

fn viewers(n: usize) -> Vec<Viewer> {
    let mut v: Vec<Viewer> = (0..n).map(Viewer::Seat).collect();
    v.push(Viewer::Spectator);
    v
}

/// Random actions, legal or not, to check that validate agrees with legal.
fn probe(s: &State, seat: Seat, legal: &[Value], rng: &mut GameRng) {
    let coins = s.players[seat].coins;
    for _ in 0..6 {
        let a = match rng.below(5) {
            0 => Action::Play {
                card: Card::ALL[rng.index(8)],
                stake: rng.below(coins as u64 + 3) as i64 - 1,
            },
            1 => Action::Choose {
                kind: Kind::ALL[rng.index(3)],
            },
            2 => Action::Buy {
                kind: EquipmentKind::ALL[rng.index(3)],
            },
            3 => Action::Pass {},
            _ => Action::Keep {
                card: Card::ALL[rng.index(8)],
            },
        };
        let listed = legal_fmt::is_listed(
            legal,
            &serde_json::to_value(&a).expect("as the test sets up"),
        );
        assert_eq!(
            Malacca::validate(s, seat, &a).is_ok(),
            listed,
            "validate and legal disagree on {a:?} in {legal:?}"
        );
    }
}

/// The views other viewers get may change only in the author's public entries.
fn check_no_leak(before: &State, after: &State, author: Seat) {
    let sealed = before.options.stakes == Stakes::Sealed;
    let n = before.players.len();
    for viewer in viewers(n) {
        if viewer == Viewer::Seat(author) {
            continue;
        }
        let b = view_json(before, viewer);
        let mut a = view_json(after, viewer);
        let entry = &mut a["players"][author];
        assert_eq!(entry["card"], Value::Null);
        entry["has_played"] = b["players"][author]["has_played"].clone();
        if !sealed {
            entry["stake"] = b["players"][author]["stake"].clone();
            entry["coins"] = b["players"][author]["coins"].clone();
            a["ranking"] = b["ranking"].clone();
        }
        assert_eq!(a, b, "a face-down card changed what {viewer:?} sees");
    }
}

fn check_views(s: &State) {
    let n = s.players.len();
    let betting = matches!(s.phase, Phase::Bet { .. });
    for viewer in viewers(n) {
        let v = view_json(s, viewer);
        for j in 0..n {
            if betting {
                assert_eq!(v["players"][j]["card"], Value::Null);
                if viewer != Viewer::Seat(j) {
                    assert_eq!(
                        v["players"][j]["special_count"],
                        json!(s.players[j].special_count_at_bet)
                    );
                }
            }
        }
        match viewer {
            Viewer::Seat(me) => {
                let mine = matches!(&s.phase, Phase::SayyidaKeep { seat, .. } if *seat == me);
                assert_eq!(v["pending_keep"].is_null(), !mine);
                assert_eq!(v["hand"], json!(s.players[me].hand));
            }
            Viewer::Spectator => {
                assert!(
                    v["pending_keep"].is_null() && v["hand"].is_null() && v["my_play"].is_null()
                );
            }
        }
    }
}

fn check_round(r: &RoundRecord, before: &[i64], after: &[i64]) {
    let mut transfers = 0;
    for seat in r.seats.iter().map(|x| x.seat) {
        let sum: i64 = r
            .ledger
            .iter()
            .filter(|l| l.seat == seat)
            .map(|l| l.amount)
            .sum();
        assert_eq!(sum, r.seats[seat].delta, "ledger of seat {seat} in {r:?}");
        assert_eq!(after[seat] - before[seat], r.seats[seat].delta);
    }
    let (mut inflow, mut outflow) = (0, 0);
    for l in &r.ledger {
        let reason: Reason = serde_json::from_value(json!(l.reason)).expect("known reason");
        assert_ne!(l.amount, 0);
        if reason.is_transfer() {
            transfers += l.amount;
        } else if reason.is_from_bank() {
            assert!(l.amount > 0);
            inflow += l.amount;
        } else {
            assert!(l.amount < 0);
            outflow -= l.amount;
        }
    }
    assert_eq!(
        transfers, 0,
        "transfers between players do not balance: {r:?}"
    );
    let total: i64 = r.seats.iter().map(|x| x.delta).sum();
    assert_eq!(total, inflow - outflow, "bank flows");
    let drawn: u32 = r.seats.iter().map(|x| x.drew).sum();
    assert!(drawn as usize <= r.seats.len());
}

fn play_random_game(seed: u64) -> GameLog {
    let d = data();
    let n = 2 + (seed % 7) as usize;
    let mut chooser = GameRng::from_key(key(seed, 1));
    let options = random_options(seed, &mut chooser);
    let mut state =
        Malacca::setup(&d, n, &options, &mut GameRng::for_setup(&key(seed, 0))).expect("setup");
    let box_specials = special_counts(&state);
    assert_eq!(box_specials.iter().sum::<usize>(), 16);
    let rounds_total = state.rounds_total;
    let mut log = GameLog {
        state: state.clone(),
        moves: Vec::new(),
        events: Vec::new(),
        rounds: Vec::new(),
    };
    let mut coins_before = coins(&state);
    let mut guard = 0;
    loop {
        guard += 1;
        assert!(guard < 10_000, "the game does not end");
        check_invariants(&state, &box_specials);
        check_views(&state);
        let p = match Malacca::progress(&state) {
            Progress::Finished(_) => break,
            Progress::Active(p) => p,
        };
        assert!(!p.awaiting.is_empty());
        for seat in 0..n {
            assert_eq!(
                Malacca::legal(&state, seat).is_some(),
                p.awaiting.contains(&seat)
            );
            if !p.awaiting.contains(&seat) {
                assert!(Malacca::validate(&state, seat, &Action::Pass {}).is_err());
                assert_eq!(Malacca::null_move(&state, seat), None);
            }
        }
        let seat = p.awaiting[chooser.index(p.awaiting.len())];
        let legal = Malacca::legal(&state, seat).expect("legal");
        assert!(!legal.is_empty());
        probe(&state, seat, &legal, &mut chooser);
        let action = if chooser.chance(1, 8) {
            Malacca::null_move(&state, seat).expect("null move")
        } else {
            serde_json::from_value(legal_fmt::sample(&legal, &mut chooser).expect("sample"))
                .expect("sampled action parses")
        };
        assert!(legal_fmt::is_listed(
            &legal,
            &serde_json::to_value(&action).expect("as the test sets up")
        ));
        Malacca::validate(&state, seat, &action).expect("legal action validates");
        let t = Malacca::apply(&state, seat, &action, &mut GameRng::from_key(key(seed, 2)))
            .expect("apply");
        let was_bet = p.kind == "bet";
        if was_bet {
            let last = state.players.iter().filter(|p| p.play.is_none()).count() == 1;
            assert_eq!(t.reveal, last);
            if !t.reveal {
                check_no_leak(&state, &t.state, seat);
                for e in &t.events {
                    assert!(
                        e.data.get("card").is_none(),
                        "sealed card in an event: {e:?}"
                    );
                }
            }
            assert_eq!(t.completes_step, !p.sealed || t.reveal);
        } else {
            assert!(t.completes_step && !t.reveal);
        }
        for e in &t.events {
            if matches!(e.kind.as_str(), "special_drawn" | "sayyida_draw") {
                assert_eq!(
                    e.audience,
                    Audience::Seat(e.data["seat"].as_u64().expect("as the test sets up") as usize)
                );
            } else {
                assert_eq!(e.audience, Audience::Public, "{e:?}");
            }
        }
        for r in &t.rounds {
            let after: Vec<i64> = t
                .events
                .iter()
                .find(|e| e.kind == "round_resolved")
                .map(|e| {
                    serde_json::from_value(e.data["coins"].clone()).expect("as the test sets up")
                })
                .expect("round_resolved event");
            check_round(r, &coins_before, &after);
            coins_before = after;
        }
        log.moves.push((seat, action));
        log.events.extend(t.events);
        log.rounds.extend(t.rounds);
        state = t.state;
    }
    assert_eq!(log.rounds.len() as u32, rounds_total);
    let numbers: Vec<u32> = log.rounds.iter().map(|r| r.round).collect();
    assert_eq!(numbers, (1..=rounds_total).collect::<Vec<_>>());
    let final_json = serde_json::to_value(&state).expect("as the test sets up");
    assert!(final_json["special_deck"].is_array() && final_json["ship_deck"].is_array());
    assert!(final_json["players"][0]["hand"].is_array());
    log.state = state;
    log
}

fn replay(seed: u64, moves: &[(Seat, Action)]) -> (State, Vec<Event>, Vec<RoundRecord>) {
    let d = data();
    let n = 2 + (seed % 7) as usize;
    let mut chooser = GameRng::from_key(key(seed, 1));
    let options = random_options(seed, &mut chooser);
    let mut s = Malacca::setup(&d, n, &options, &mut GameRng::for_setup(&key(seed, 0)))
        .expect("as the test sets up");
    let mut events = Vec::new();
    let mut rounds = Vec::new();
    for (seat, a) in moves {
        let t = Malacca::apply(&s, *seat, a, &mut GameRng::from_key(key(seed, 2)))
            .expect("as the test sets up");
        events.extend(t.events);
        rounds.extend(t.rounds);
        s = t.state;
    }
    (s, events, rounds)
}

#[test]
fn random_legal_games_keep_every_invariant_for_every_player_count_and_option() {
    // 7 player counts × 16 option combinations.
    for seed in 0..112 {
        let log = play_random_game(seed);
        if seed % 8 == 0 {
            let (s, events, rounds) = replay(seed, &log.moves);
            assert_eq!(s, log.state, "replay of seed {seed}");
            assert_eq!(events, log.events);
            assert_eq!(rounds, log.rounds);
        }
    }
}

#[test]
fn the_state_round_trips_through_json() {
    let log = play_random_game(7 * 15 + 3);
    let text = serde_json::to_string(&log.state).expect("as the test sets up");
    // The stored text leaves the component data out; parsing gives it back.
    assert!(!text.contains("\"rules\""), "{text}");
    let mut back: State = serde_json::from_str(&text).expect("as the test sets up");
    assert_ne!(
        back, log.state,
        "the rules come from the data, not the text"
    );
    super::Malacca::attach_data(&mut back, &data());
    assert_eq!(back, log.state);
    // A state stored with its rules (before they were left out) keeps them.
    let whole = super::Malacca::published_state(&log.state).expect("as the test sets up");
    assert!(whole.get("rules").is_some());
    let old: State = serde_json::from_value(whole).expect("as the test sets up");
    assert_eq!(old, log.state);
}
