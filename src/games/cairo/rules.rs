//! The turn sequence of Cairo (spec §4–§8): setup, the automatic steps (roll,
//! move, eliminations, end of turn, end of game) and the application of every
//! decision.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use super::data::{CairoData, Finger, SpaceAction};
use super::model::{Material, resolve_flick, roll_die};
use super::report;
use super::scoring;
use super::state::{
    AttemptLog, Holding, ParcelStones, Phase, Pyramid, ReportResult, ReportState, ReportSubject,
    SealedVote, State, Submitted, Supply, TieBreak, TurnState, Vote,
};
use super::{CairoAction, CairoOptions, DiceSource, Mode, OccupiedRule, ReporterRule};
use crate::games::rng::GameRng;
use crate::games::{
    Event, Outcome, Progress, Prompt, RoundRecord, RuleError, Seat, SeatRecord, Transition,
};

/// Automatic chains (turns without decisions) never run longer than this.
const AUTO_LIMIT: usize = 10_000;

/// What an applied move produced besides the state.
#[derive(Default)]
pub struct Out {
    pub events: Vec<Event>,
    pub rounds: Vec<RoundRecord>,
}

impl Out {
    fn public(&mut self, kind: &str, data: serde_json::Value) {
        self.events.push(Event::public(kind, data));
    }
}

/// What happens after a step of the turn.
pub enum Flow {
    /// A decision is awaited.
    Wait,
    EndTurn,
    StartTurn(Seat),
    EndGame,
}

/// Checks the options against the seat count and the data.
pub fn check_options(
    data: &CairoData,
    seats: usize,
    options: &CairoOptions,
) -> Result<Option<super::FlickModel>, RuleError> {
    if !(2..=5).contains(&seats) {
        return Err(RuleError::options(format!(
            "Cairo is played by 2 to 5 seats, not {seats} (rules §1.1)."
        )));
    }
    if seats > data.pieces.colours.len() {
        return Err(RuleError::options(format!(
            "The data names only {} colours for {seats} seats.",
            data.pieces.colours.len()
        )));
    }
    if options.report_confirm_seconds == 0 {
        return Err(RuleError::options(
            "report_confirm_seconds must be at least 1.",
        ));
    }
    match options.mode {
        Mode::Reported => {
            if options.model.is_some() {
                return Err(RuleError::options(
                    "The option model applies to simulated mode only (rules §2).",
                ));
            }
            Ok(None)
        }
        Mode::Simulated => {
            if options.dice_source == DiceSource::Reported {
                return Err(RuleError::options(
                    "dice_source = reported is allowed only in reported mode (rules §2).",
                ));
            }
            if options.reporter != ReporterRule::Actor {
                return Err(RuleError::options(
                    "The option reporter applies to reported mode only (rules §2).",
                ));
            }
            let mut m = data.model.clone();
            if let Some(o) = &options.model {
                if let Some(v) = &o.finger_base {
                    m.finger_base = v.clone();
                }
                if let Some(v) = &o.material_factor {
                    m.material_factor = v.clone();
                }
                if let Some(v) = o.zone_penalty {
                    m.zone_penalty = v;
                }
                if let Some(v) = o.p_min {
                    m.p_min = v;
                }
                if let Some(v) = o.p_max {
                    m.p_max = v;
                }
                if let Some(v) = &o.miss_weights {
                    m.miss_weights = v.clone();
                }
            }
            m.check()
                .map_err(|e| RuleError::options(format!("The option model is not valid: {e}.")))?;
            Ok(Some(m))
        }
    }
}

/// An empty board and full supplies (spec §3), before any turn.
pub fn initial_state(
    data: &CairoData,
    seats: usize,
    options: &CairoOptions,
) -> Result<State, RuleError> {
    let model = check_options(data, seats, options)?;
    let full = Supply {
        small: data.pieces.small_cubes,
        large: data.pieces.large_cubes,
        dice: data.pieces.dice,
    };
    let empty = vec![Holding::default(); seats];
    Ok(State {
        seats,
        options: options.clone(),
        model,
        board: data.board.clone(),
        pieces: data.pieces.clone(),
        pyramid_shapes: data.shapes.clone(),
        colours: data.pieces.colours.iter().take(seats).cloned().collect(),
        boats: vec![Some(data.board.start.clone()); seats],
        eliminated: vec![false; seats],
        supply: vec![full; seats],
        lost: vec![Supply::default(); seats],
        parcels: data
            .board
            .parcels
            .iter()
            .map(|p| {
                (
                    p.id.clone(),
                    ParcelStones {
                        loose: empty.clone(),
                        pyramids: vec![],
                    },
                )
            })
            .collect(),
        desert: data
            .board
            .zones
            .iter()
            .map(|z| (z.id.clone(), empty.clone()))
            .collect(),
        turn: 0,
        active: 0,
        final_turn_seat: None,
        phase: Phase::Roll,
        turn_state: TurnState::default(),
        report: None,
        tiebreak: None,
        next_pyramid: 1,
        records: 0,
        result: None,
    })
}

/// Setup: seat 0 starts; its roll is drawn from the setup RNG so the first
/// decision can be shown.
pub fn setup(
    data: &CairoData,
    seats: usize,
    options: &CairoOptions,
    rng: &mut GameRng,
) -> Result<State, RuleError> {
    let mut s = initial_state(data, seats, options)?;
    let mut out = Out::default();
    settle(&mut s, &mut out, rng, Flow::StartTurn(0))?;
    Ok(s)
}

/// Runs automatic steps until a decision is awaited or the game is over.
pub fn settle(
    s: &mut State,
    out: &mut Out,
    rng: &mut GameRng,
    mut flow: Flow,
) -> Result<(), RuleError> {
    for _ in 0..AUTO_LIMIT {
        flow = match flow {
            Flow::Wait => return Ok(()),
            Flow::EndTurn => end_turn(s, out),
            Flow::StartTurn(seat) => start_turn(s, out, rng, seat)?,
            Flow::EndGame => end_game(s, out)?,
        };
    }
    Err(RuleError::illegal(
        "The game made no decision for too long; this is a data error.",
    ))
}

fn start_turn(
    s: &mut State,
    out: &mut Out,
    rng: &mut GameRng,
    seat: Seat,
) -> Result<Flow, RuleError> {
    s.active = seat;
    s.turn_state = TurnState::default();
    s.report = None;
    match s.options.dice_source {
        DiceSource::Server => {
            let roll = roll_die(rng, s.pieces.movement_die_faces);
            out.public(
                "roll",
                json!({"seat": seat, "turn": s.turn + 1, "value": roll, "source": "server"}),
            );
            s.turn_state.roll = Some(roll);
            move_boat(s, out)
        }
        DiceSource::Reported => {
            s.phase = Phase::Roll;
            Ok(Flow::Wait)
        }
    }
}

/// The destination of a move, the spaces passed and the occupied spaces skipped.
pub fn compute_move(s: &State, seat: Seat, roll: u8) -> Option<(String, Vec<String>, Vec<String>)> {
    let from = s.boats.get(seat)?.as_ref()?;
    let n = s.board.track.len();
    if n == 0 {
        return None;
    }
    let occupied: BTreeSet<&str> = s
        .boats
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != seat)
        .filter_map(|(_, b)| b.as_deref())
        .filter(|b| *b != s.board.start)
        .collect();
    let mut pos: Option<usize> = s.board.track.iter().position(|t| &t.id == from);
    let step = |p: Option<usize>| p.map(|i| (i + 1) % n).unwrap_or(0);
    let id = |p: usize| {
        s.board
            .track
            .get(p)
            .map(|t| t.id.clone())
            .unwrap_or_default()
    };
    let mut passed = Vec::new();
    let mut skipped = Vec::new();
    let mut guard = 0usize;
    match s.options.occupied_rule {
        OccupiedRule::NextFree => {
            for _ in 0..roll {
                let p = step(pos);
                pos = Some(p);
                passed.push(id(p));
            }
            while let Some(p) = pos {
                if !occupied.contains(id(p).as_str()) {
                    break;
                }
                guard += 1;
                if guard > n {
                    return None;
                }
                skipped.push(id(p));
                let q = step(pos);
                pos = Some(q);
                passed.push(id(q));
            }
        }
        OccupiedRule::Skip => {
            let mut counted = 0u8;
            while counted < roll {
                guard += 1;
                if guard > n * (usize::from(roll) + 1) {
                    return None;
                }
                let p = step(pos);
                pos = Some(p);
                passed.push(id(p));
                if occupied.contains(id(p).as_str()) {
                    skipped.push(id(p));
                } else {
                    counted += 1;
                }
            }
        }
    }
    pos.map(|p| (id(p), passed, skipped))
}

/// The finger a roll fixes; None for an `any` roll (spec §5).
pub fn finger_for_roll(s: &State, roll: u8) -> Option<Finger> {
    s.pieces
        .fingers_by_roll
        .get(usize::from(roll).wrapping_sub(1))
        .and_then(|f| f.finger())
}

fn move_boat(s: &mut State, out: &mut Out) -> Result<Flow, RuleError> {
    let seat = s.active;
    let roll = s
        .turn_state
        .roll
        .ok_or_else(|| RuleError::illegal("There is no roll to move by."))?;
    let from = s.boats.get(seat).cloned().flatten().unwrap_or_default();
    let (to, passed, skipped) = compute_move(s, seat, roll)
        .ok_or_else(|| RuleError::illegal("The boat cannot move: no free space."))?;
    if let Some(b) = s.boats.get_mut(seat) {
        *b = Some(to.clone());
    }
    s.turn_state.moved_from = Some(from.clone());
    s.turn_state.finger = finger_for_roll(s, roll);
    let action = s.boat_action(seat);
    out.public(
        "move",
        json!({
            "seat": seat, "from": from, "to": to, "roll": roll, "passed": passed,
            "skipped": skipped,
            "finger": s.turn_state.finger.map(|f| f.name()).unwrap_or("any"),
            "action": action,
        }),
    );
    after_move(s, out)
}

fn after_move(s: &mut State, out: &mut Out) -> Result<Flow, RuleError> {
    let seat = s.active;
    match s.boat_action(seat) {
        Some(SpaceAction::Deliver) => {
            let empty = s.supply.get(seat).map(|x| x.total() == 0).unwrap_or(true);
            if empty {
                eliminate(s, out, seat, "empty_supply");
                Ok(Flow::EndTurn)
            } else {
                s.phase = Phase::ChooseMaterial;
                Ok(Flow::Wait)
            }
        }
        Some(SpaceAction::Retrieve) => {
            if s.retrievable(seat).is_empty() {
                out.public(
                    "retrieve",
                    json!({"seat": seat, "stones": [], "automatic": true}),
                );
                Ok(Flow::EndTurn)
            } else {
                s.phase = Phase::Retrieve;
                Ok(Flow::Wait)
            }
        }
        None => Err(RuleError::illegal("The boat is not on a track space.")),
    }
}

fn eliminate(s: &mut State, out: &mut Out, seat: Seat, reason: &str) {
    if let Some(b) = s.boats.get_mut(seat) {
        *b = None;
    }
    if let Some(e) = s.eliminated.get_mut(seat) {
        *e = true;
    }
    out.public("eliminated", json!({"seat": seat, "reason": reason}));
}

fn end_turn(s: &mut State, out: &mut Out) -> Flow {
    out.public("turn_end", json!({"seat": s.active, "turn": s.turn + 1}));
    s.turn += 1;
    s.report = None;
    if s.final_turn_seat.is_some() {
        return Flow::EndGame;
    }
    let alive = s.alive();
    match alive.as_slice() {
        [] => Flow::EndGame,
        [last] => {
            s.final_turn_seat = Some(*last);
            out.public("final_turn", json!({"seat": last}));
            Flow::StartTurn(*last)
        }
        _ => {
            let next = (1..=s.seats)
                .map(|k| (s.active + k) % s.seats)
                .find(|x| alive.contains(x))
                .unwrap_or(s.active);
            Flow::StartTurn(next)
        }
    }
}

fn end_game(s: &mut State, out: &mut Out) -> Result<Flow, RuleError> {
    s.report = None;
    if s.mode() == Mode::Reported {
        let ties = scoring::ties_to_order(s);
        if !ties.is_empty() {
            out.public(
                "tie_breaks",
                json!({"ties": ties.iter().map(|t| json!({
                    "parcel": t.parcel, "tied": t.tied, "influence": t.influence,
                    "first_place": t.start + 1,
                })).collect::<Vec<_>>()}),
            );
            s.tiebreak = Some(TieBreak {
                ties,
                ..TieBreak::default()
            });
            begin_tie(s);
            return Ok(Flow::Wait);
        }
    }
    finish(s, out)?;
    Ok(Flow::Wait)
}

fn tie_reporter(s: &State) -> Seat {
    match s.options.reporter {
        ReporterRule::Actor => s.active,
        ReporterRule::Host => 0,
    }
}

fn flick_reporter(s: &State) -> Seat {
    match s.options.reporter {
        ReporterRule::Actor => s.active,
        ReporterRule::Host => 0,
    }
}

fn begin_tie(s: &mut State) {
    let parcel = s
        .tiebreak
        .as_ref()
        .and_then(|t| t.ties.get(t.current))
        .map(|t| t.parcel.clone())
        .unwrap_or_default();
    if let Some(t) = s.tiebreak.as_mut() {
        t.groups.clear();
    }
    s.report = Some(new_report(
        tie_reporter(s),
        ReportSubject::Tie { parcel },
        1,
        vec![],
    ));
    s.phase = Phase::OrderTie;
}

fn new_report(
    reporter: Seat,
    subject: ReportSubject,
    attempt: u32,
    attempts: Vec<AttemptLog>,
) -> ReportState {
    ReportState {
        reporter,
        subject,
        attempt,
        displaced: vec![],
        toppled_pyramids: vec![],
        submitted: None,
        confirmers: vec![],
        votes: vec![],
        attempts,
    }
}

fn finish(s: &mut State, out: &mut Out) -> Result<(), RuleError> {
    let result = scoring::score(s)?;
    let outcome = Outcome::from_scores(&result.scores);
    let winners = outcome.winners();
    s.records += 1;
    let mut ledger = Vec::new();
    let mut parcels_json = Vec::new();
    for p in &result.parcels {
        let mut place = 0usize;
        for g in &p.groups {
            let k = g.len();
            for seat in g {
                let pts = p.points.get(*seat).copied().unwrap_or(0);
                if pts > 0 {
                    let reason = if k == 1 {
                        format!("{} place {}", p.parcel, place + 1)
                    } else {
                        format!("{} places {}-{} tied", p.parcel, place + 1, place + k)
                    };
                    ledger.push(crate::games::LedgerEntry {
                        seat: *seat,
                        amount: pts,
                        reason,
                    });
                }
            }
            place += k;
        }
        parcels_json.push(json!({
            "parcel": p.parcel, "influence": p.influence,
            "groups": p.groups.iter().map(|g| g.iter().map(|x| s.colour(*x)).collect::<Vec<_>>()).collect::<Vec<_>>(),
            "points": p.points,
        }));
    }
    let ties_ordered = s.tiebreak.as_ref().map(|t| t.orders.len()).unwrap_or(0);
    let seats = (0..s.seats)
        .map(|seat| SeatRecord {
            seat,
            card: Some(s.colour(seat)),
            kind: Some(
                if s.eliminated.get(seat).copied().unwrap_or(false) {
                    "eliminated"
                } else {
                    "in_game"
                }
                .to_owned(),
            ),
            stake: None,
            choice: None,
            success: Some(winners.contains(&seat)),
            delta: result.scores.get(seat).copied().unwrap_or(0),
            drew: 0,
        })
        .collect();
    out.rounds.push(RoundRecord {
        round: s.records,
        value: None,
        outcome: "scoring".into(),
        total_a: Some(result.scores.iter().sum()),
        total_b: Some(ties_ordered as i64),
        lead_seat: if winners.len() == 1 {
            winners.first().copied()
        } else {
            None
        },
        subject: Some("final_scoring".into()),
        seats,
        ledger,
    });
    out.public(
        "scoring",
        json!({"parcels": parcels_json, "scores": result.scores, "winners": winners}),
    );
    s.result = Some(result);
    s.phase = Phase::Finished;
    s.report = None;
    Ok(())
}

/// The seats that owe a move now.
pub fn awaiting(s: &State) -> Vec<Seat> {
    match s.phase {
        Phase::Finished => vec![],
        Phase::ReportFlick | Phase::OrderTie => s
            .report
            .as_ref()
            .map(|r| vec![r.reporter])
            .unwrap_or_default(),
        Phase::ConfirmReport => s
            .report
            .as_ref()
            .map(|r| {
                r.confirmers
                    .iter()
                    .copied()
                    .filter(|c| !r.votes.iter().any(|v| v.seat == *c))
                    .collect()
            })
            .unwrap_or_default(),
        _ => vec![s.active],
    }
}

pub fn progress(s: &State) -> Progress {
    if s.phase == Phase::Finished {
        let scores = s
            .result
            .as_ref()
            .map(|r| r.scores.clone())
            .unwrap_or_else(|| vec![0; s.seats]);
        return Progress::Finished(Outcome::from_scores(&scores));
    }
    Progress::Active(Prompt {
        kind: s.phase.kind().to_owned(),
        round: Some(s.turn + 1),
        sealed: s.phase == Phase::ConfirmReport,
        awaiting: awaiting(s),
    })
}

/// Whether another flick follows in this delivery (spec §6.1, D4).
fn more_flicks(s: &State) -> bool {
    s.turn_state.material == Some(Material::Small)
        && s.turn_state.flicks_done < s.pieces.small_per_delivery
        && s.supply.get(s.active).map(|x| x.small > 0).unwrap_or(false)
}

fn begin_flick(s: &mut State) -> Flow {
    match s.mode() {
        Mode::Simulated => s.phase = Phase::AimFlick,
        Mode::Reported => {
            let subject = ReportSubject::Flick {
                seat: s.active,
                flick: s.turn_state.flicks_done + 1,
                material: s.turn_state.material.unwrap_or(Material::Small),
            };
            s.report = Some(new_report(flick_reporter(s), subject, 1, vec![]));
            s.phase = Phase::ReportFlick;
        }
    }
    Flow::Wait
}

fn after_flick(s: &mut State, out: &mut Out, knocked: bool) -> Flow {
    let seat = s.active;
    if knocked {
        let empty = s.supply.get(seat).map(|x| x.total() == 0).unwrap_or(true);
        if empty {
            eliminate(s, out, seat, "boat_knocked_over");
            return Flow::EndTurn;
        }
        s.phase = Phase::Discard;
        return Flow::Wait;
    }
    after_discard(s)
}

fn after_discard(s: &mut State) -> Flow {
    if s.any_build() {
        s.phase = Phase::Build;
        Flow::Wait
    } else {
        continue_flicks(s)
    }
}

fn continue_flicks(s: &mut State) -> Flow {
    if more_flicks(s) {
        begin_flick(s)
    } else {
        Flow::EndTurn
    }
}

fn landing_class(s: &State, landing: &str) -> &'static str {
    if s.is_parcel(landing) {
        "parcel"
    } else if s.is_zone(landing) {
        "desert"
    } else if landing == "nile" {
        "nile"
    } else {
        "off_board"
    }
}

/// Moves the flicked stone from the supply to its landing place.
fn land_flicked_stone(
    s: &mut State,
    seat: Seat,
    m: Material,
    landing: &str,
    face: Option<u8>,
) -> Result<(), RuleError> {
    let sup = s
        .supply
        .get_mut(seat)
        .ok_or_else(|| RuleError::illegal("Unknown seat."))?;
    let slot = sup.slot(m);
    if *slot == 0 {
        return Err(RuleError::illegal(format!(
            "Your supply has no {} stone to flick (rules §6.1).",
            m.name()
        )));
    }
    *slot -= 1;
    s.place(seat, m, landing, face)?;
    if s.is_parcel(landing)
        && !s
            .turn_state
            .delivered_this_turn
            .iter()
            .any(|p| p == landing)
    {
        s.turn_state.delivered_this_turn.push(landing.to_owned());
    }
    Ok(())
}

fn not_now(s: &State, a: &CairoAction) -> RuleError {
    RuleError::illegal(format!(
        "You cannot {} now: the game waits for {} (rules §4).",
        a.type_name(),
        s.phase.kind()
    ))
}

/// Checks a move against the rules; agrees exactly with `moves::legal`.
pub fn validate(s: &State, seat: Seat, a: &CairoAction) -> Result<(), RuleError> {
    if s.phase == Phase::Finished {
        return Err(RuleError::illegal(format!(
            "You cannot {}: the game is over.",
            a.type_name()
        )));
    }
    let waiting = awaiting(s);
    if !waiting.contains(&seat) {
        return Err(RuleError::illegal(format!(
            "You cannot {}: seat {seat} owes no move now (the game waits for {} from seats {:?}).",
            a.type_name(),
            s.phase.kind(),
            waiting
        )));
    }
    match (s.phase, a) {
        (Phase::Roll, CairoAction::Roll { value }) => {
            if (1..=s.pieces.movement_die_faces).contains(value) {
                Ok(())
            } else {
                Err(RuleError::illegal(format!(
                    "You cannot roll {value}: the movement die shows 1 to {} (rules §4 T1).",
                    s.pieces.movement_die_faces
                )))
            }
        }
        (Phase::ChooseMaterial, CairoAction::ChooseMaterial { material, finger }) => {
            let have = s.supply.get(seat).map(|x| x.get(*material)).unwrap_or(0);
            if have == 0 {
                return Err(RuleError::illegal(format!(
                    "You cannot choose {}: your supply has none (rules §6.1).",
                    material.name()
                )));
            }
            let choose = s.mode() == Mode::Simulated && s.turn_state.finger.is_none();
            match (choose, finger) {
                (true, None) => Err(RuleError::illegal(format!(
                    "You cannot choose {} without a finger: your roll lets you choose the finger and the simulation needs it (rules §4 T3.1).",
                    material.name()
                ))),
                (false, Some(f)) => Err(RuleError::illegal(format!(
                    "You cannot choose the finger {}: {} (rules §5).",
                    f.name(),
                    if s.mode() == Mode::Reported {
                        "the finger is not reported in reported mode"
                    } else {
                        "your roll fixes the finger"
                    }
                ))),
                _ => Ok(()),
            }
        }
        (Phase::AimFlick, CairoAction::Aim { parcel }) => {
            if s.is_parcel(parcel) {
                Ok(())
            } else {
                Err(RuleError::illegal(format!(
                    "You cannot aim at {parcel}: it is not a parcel of the board (rules §4 T3.2)."
                )))
            }
        }
        (Phase::ReportFlick, CairoAction::Displace { .. })
        | (Phase::ReportFlick, CairoAction::Topple { .. })
        | (Phase::ReportFlick, CairoAction::ClearReport)
        | (Phase::ReportFlick, CairoAction::Report { .. }) => report::check_draft_action(s, a),
        (Phase::ConfirmReport, CairoAction::Confirm | CairoAction::Dispute) => Ok(()),
        (Phase::Discard, CairoAction::Discard { stone }) => {
            let have = s.supply.get(seat).map(|x| x.get(*stone)).unwrap_or(0);
            if have == 0 {
                Err(RuleError::illegal(format!(
                    "You cannot discard a {} stone: your supply has none (rules §6.3).",
                    stone.name()
                )))
            } else {
                Ok(())
            }
        }
        (
            Phase::Build,
            CairoAction::Build {
                parcel,
                size,
                cubes,
            },
        ) => check_build(s, parcel, *size, cubes).map(|_| ()),
        (Phase::Build, CairoAction::EndBuild) => Ok(()),
        (Phase::Retrieve, CairoAction::Retrieve { stones }) => {
            check_retrieve(s, seat, stones).map(|_| ())
        }
        (Phase::OrderTie, CairoAction::OrderTie { parcel, group }) => {
            check_tie_group(s, parcel, group).map(|_| ())
        }
        _ => Err(not_now(s, a)),
    }
}

/// The floors (owners per floor) a legal build makes.
pub fn check_build(
    s: &State,
    parcel: &str,
    size: u32,
    cubes: &[String],
) -> Result<Vec<Vec<Seat>>, RuleError> {
    if !s.turn_state.delivered_this_turn.iter().any(|p| p == parcel) {
        return Err(RuleError::illegal(format!(
            "You cannot build on {parcel}: you have not flicked a stone onto it this turn (rules §7.1)."
        )));
    }
    let Some(shape) = s.pyramid_shapes.get(&size) else {
        let sizes: Vec<String> = s.pyramid_shapes.keys().map(|k| k.to_string()).collect();
        return Err(RuleError::illegal(format!(
            "You cannot build a pyramid of {size} cubes: the legal sizes are {} (rules §7.2).",
            sizes.join(", ")
        )));
    };
    if cubes.len() != size as usize {
        return Err(RuleError::illegal(format!(
            "You cannot build a pyramid of {size} cubes from {} cubes (rules §7.3).",
            cubes.len()
        )));
    }
    let loose = s.loose_small(parcel);
    let mut seen = BTreeSet::new();
    let mut owners = Vec::with_capacity(cubes.len());
    for id in cubes {
        if !seen.insert(id.as_str()) {
            return Err(RuleError::illegal(format!(
                "You cannot use the cube {id} twice in one pyramid (rules §7.4)."
            )));
        }
        let parsed = id.rsplit_once('-').and_then(|(colour, n)| {
            let seat = s.seat_of(colour)?;
            let n: u32 = n.parse().ok()?;
            (n >= 1 && n <= loose.get(seat).copied().unwrap_or(0)).then_some(seat)
        });
        match parsed {
            Some(seat) => owners.push(seat),
            None => {
                return Err(RuleError::illegal(format!(
                    "You cannot use the cube {id}: it is not a loose small cube on {parcel} (cubes are named <colour>-<n>, n up to that colour's loose small cubes there; rules §7.4)."
                )));
            }
        }
    }
    let mut floors = Vec::with_capacity(shape.len());
    let mut it = owners.into_iter();
    for width in shape {
        floors.push(it.by_ref().take(*width as usize).collect());
    }
    Ok(floors)
}

/// Desert stones by zone and type that a retrieval takes: (zone, type, indices).
type Retrieval = BTreeMap<(String, Material), BTreeSet<u32>>;

pub fn check_retrieve(s: &State, seat: Seat, stones: &[String]) -> Result<Retrieval, RuleError> {
    let available: BTreeMap<String, Holding> = s.retrievable(seat).into_iter().collect();
    let mut out: Retrieval = BTreeMap::new();
    for id in stones {
        let parsed = id.split_once(':').and_then(|(zone, rest)| {
            let (kind, n) = rest.rsplit_once('-')?;
            let m = match kind {
                "small" => Material::Small,
                "large" => Material::Large,
                "die" => Material::Die,
                _ => return None,
            };
            let n: u32 = n.parse().ok()?;
            let h = available.get(zone)?;
            (n >= 1 && n <= h.count(m)).then(|| (zone.to_owned(), m, n))
        });
        let Some((zone, m, n)) = parsed else {
            return Err(RuleError::illegal(format!(
                "You cannot retrieve {id}: it is not one of your desert stones in the zones of this space (stones are named <zone>:<small|large|die>-<n>; rules §8.1)."
            )));
        };
        if !out.entry((zone, m)).or_default().insert(n) {
            return Err(RuleError::illegal(format!(
                "You cannot retrieve {id} twice (rules §8.1)."
            )));
        }
    }
    Ok(out)
}

/// The seats of a legal next tie group.
pub fn check_tie_group(s: &State, parcel: &str, group: &[String]) -> Result<Vec<Seat>, RuleError> {
    let Some(tb) = s.tiebreak.as_ref() else {
        return Err(RuleError::illegal("There is no tie to order."));
    };
    let Some(tie) = tb.ties.get(tb.current) else {
        return Err(RuleError::illegal("There is no tie to order."));
    };
    if tie.parcel != parcel {
        return Err(RuleError::illegal(format!(
            "You cannot order the tie on {parcel}: the tie being ordered is on {} (rules §8.3).",
            tie.parcel
        )));
    }
    if group.is_empty() {
        return Err(RuleError::illegal(
            "You cannot order an empty group: name at least one tied player (rules §8.3).",
        ));
    }
    let placed: BTreeSet<Seat> = tb.groups.iter().flatten().copied().collect();
    let mut seats = Vec::new();
    for c in group {
        let seat = s
            .seat_of(c)
            .filter(|x| tie.tied.contains(x) && !placed.contains(x));
        match seat {
            Some(x) if !seats.contains(&x) => seats.push(x),
            _ => {
                return Err(RuleError::illegal(format!(
                    "You cannot put {c} in this group: it is not a tied player on {parcel} still to be ordered, or it is named twice (rules §8.3)."
                )));
            }
        }
    }
    Ok(seats)
}

/// Applies a validated move.
pub fn apply(
    state: &State,
    seat: Seat,
    a: &CairoAction,
    rng: &mut GameRng,
) -> Result<Transition<State>, RuleError> {
    validate(state, seat, a)?;
    let mut s = state.clone();
    let mut out = Out::default();
    let mut completes_step = true;
    let mut reveal = false;
    let flow = match a {
        CairoAction::Roll { value } => {
            out.public(
                "roll",
                json!({"seat": seat, "turn": s.turn + 1, "value": value, "source": "reported"}),
            );
            s.turn_state.roll = Some(*value);
            move_boat(&mut s, &mut out)?
        }
        CairoAction::ChooseMaterial { material, finger } => {
            if let Some(f) = finger {
                s.turn_state.finger = Some(*f);
            }
            s.turn_state.material = Some(*material);
            let planned = match material {
                Material::Small => s
                    .supply
                    .get(seat)
                    .map(|x| x.small.min(s.pieces.small_per_delivery))
                    .unwrap_or(0),
                _ => 1,
            };
            out.public(
                "material",
                json!({"seat": seat, "material": material, "flicks": planned,
                       "finger": s.turn_state.finger.map(|f| f.name())}),
            );
            begin_flick(&mut s)
        }
        CairoAction::Aim { parcel } => simulated_flick(&mut s, &mut out, parcel, rng)?,
        CairoAction::Displace { .. } | CairoAction::Topple { .. } | CairoAction::ClearReport => {
            report::draft(&mut s, &mut out, a)?;
            Flow::Wait
        }
        CairoAction::Report {
            landing,
            face,
            boat_knocked_over,
        } => {
            let r = s
                .report
                .as_ref()
                .ok_or_else(|| RuleError::illegal("There is no report under way."))?;
            let rep = super::state::FlickReport {
                landing: landing.clone(),
                face: *face,
                boat_knocked_over: *boat_knocked_over,
                displaced: r.displaced.clone(),
                toppled_pyramids: r.toppled_pyramids.clone(),
            };
            submit(&mut s, &mut out, Submitted::Flick(rep))?
        }
        CairoAction::Confirm | CairoAction::Dispute => {
            let vote = if *a == CairoAction::Confirm {
                Vote::Confirm
            } else {
                Vote::Dispute
            };
            let r = s
                .report
                .as_mut()
                .ok_or_else(|| RuleError::illegal("There is no report to vote on."))?;
            r.votes.push(SealedVote { seat, vote });
            if r.votes.len() < r.confirmers.len() {
                completes_step = false;
                Flow::Wait
            } else {
                reveal = true;
                resolve_votes(&mut s, &mut out)?
            }
        }
        CairoAction::Discard { stone } => {
            if let Some(x) = s.supply.get_mut(seat) {
                *x.slot(*stone) -= 1;
            }
            if let Some(x) = s.lost.get_mut(seat) {
                *x.slot(*stone) += 1;
            }
            out.public("discard", json!({"seat": seat, "stone": stone}));
            after_discard(&mut s)
        }
        CairoAction::Build {
            parcel,
            size,
            cubes,
        } => {
            let floors = check_build(&s, parcel, *size, cubes)?;
            let id = format!("P{}", s.next_pyramid);
            s.next_pyramid += 1;
            let p = s
                .parcels
                .get_mut(parcel)
                .ok_or_else(|| RuleError::illegal("Unknown parcel."))?;
            for owner in floors.iter().flatten() {
                if let Some(h) = p.loose.get_mut(*owner) {
                    h.small = h.small.saturating_sub(1);
                }
            }
            p.pyramids.push(Pyramid {
                id: id.clone(),
                size: *size,
                floors: floors.clone(),
            });
            out.public(
                "build",
                json!({"seat": seat, "parcel": parcel, "size": size, "pyramid_id": id,
                       "floors": floors.iter().map(|f| f.iter().map(|o| s.colour(*o)).collect::<Vec<_>>()).collect::<Vec<_>>()}),
            );
            if s.any_build() {
                Flow::Wait
            } else {
                continue_flicks(&mut s)
            }
        }
        CairoAction::EndBuild => continue_flicks(&mut s),
        CairoAction::Retrieve { stones } => {
            let take = check_retrieve(&s, seat, stones)?;
            let mut moved = Vec::new();
            for ((zone, m), idx) in take {
                if let Some(h) = s.desert_mut(&zone, seat) {
                    match m {
                        Material::Die => {
                            for i in idx.iter().rev() {
                                let i = *i as usize - 1;
                                if i < h.dice.len() {
                                    h.dice.remove(i);
                                }
                            }
                        }
                        Material::Small => h.small = h.small.saturating_sub(idx.len() as u32),
                        Material::Large => h.large = h.large.saturating_sub(idx.len() as u32),
                    }
                }
                if let Some(x) = s.supply.get_mut(seat) {
                    *x.slot(m) += idx.len() as u32;
                }
                moved.push(json!({"zone": zone, "stone": m, "count": idx.len()}));
            }
            out.public(
                "retrieve",
                json!({"seat": seat, "stones": moved, "automatic": false}),
            );
            Flow::EndTurn
        }
        CairoAction::OrderTie { parcel, group } => {
            let seats = check_tie_group(&s, parcel, group)?;
            order_tie_group(&mut s, &mut out, seats)?
        }
    };
    settle(&mut s, &mut out, rng, flow)?;
    Ok(Transition {
        state: s,
        completes_step,
        reveal,
        events: out.events,
        rounds: out.rounds,
    })
}

fn simulated_flick(
    s: &mut State,
    out: &mut Out,
    target: &str,
    rng: &mut GameRng,
) -> Result<Flow, RuleError> {
    let seat = s.active;
    let model = s
        .model
        .clone()
        .ok_or_else(|| RuleError::illegal("The simulated model is missing."))?;
    let material = s
        .turn_state
        .material
        .ok_or_else(|| RuleError::illegal("No material was chosen."))?;
    let finger = s
        .turn_state
        .finger
        .ok_or_else(|| RuleError::illegal("No finger is set."))?;
    let zone = s.boat_zone(seat).unwrap_or_default();
    let f = resolve_flick(
        &model,
        &s.board,
        &zone,
        target,
        finger,
        material,
        s.pieces.die_faces,
        rng,
    );
    land_flicked_stone(s, seat, material, &f.landing, f.face)?;
    s.turn_state.flicks_done += 1;
    let flick_no = s.turn_state.flicks_done;
    let mut ev = serde_json::to_value(&f).unwrap_or_else(|_| json!({}));
    if let Some(o) = ev.as_object_mut() {
        o.insert("seat".into(), json!(seat));
        o.insert("flick".into(), json!(flick_no));
        o.insert("boat_zone".into(), json!(zone));
    }
    out.public("flick", ev);
    let outcome = match f.miss {
        None => "hit",
        Some(super::model::MissKind::Near) => "near",
        Some(super::model::MissKind::Desert) => "desert",
        Some(super::model::MissKind::Nile) => "nile",
        Some(super::model::MissKind::OffBoard) => "off_board",
    };
    s.records += 1;
    out.rounds.push(RoundRecord {
        round: s.records,
        value: s.turn_state.roll.map(i64::from),
        outcome: outcome.into(),
        total_a: Some(i64::from(s.turn) + 1),
        total_b: Some(i64::from(flick_no)),
        lead_seat: Some(seat),
        subject: Some(format!("parcel:{target}")),
        seats: vec![SeatRecord {
            seat,
            card: Some(material.name().into()),
            kind: Some(landing_class(s, &f.landing).into()),
            stake: Some((f.p * 1000.0).round() as i64),
            choice: Some(target.to_owned()),
            success: Some(f.hit),
            delta: 0,
            drew: 0,
        }],
        ledger: vec![],
    });
    Ok(after_flick(s, out, false))
}

/// A closed report: asks the confirmers, or applies it at once when nobody is asked.
fn submit(s: &mut State, out: &mut Out, sub: Submitted) -> Result<Flow, RuleError> {
    let seats = s.seats;
    let alive = s.alive();
    let r = s
        .report
        .as_mut()
        .ok_or_else(|| RuleError::illegal("There is no report under way."))?;
    let confirmers: Vec<Seat> = match r.subject {
        // Issue 10: every other player still in the game.
        ReportSubject::Flick { .. } => alive.into_iter().filter(|x| *x != r.reporter).collect(),
        // Decision: at the end every seat is scored, so every other seat is asked.
        ReportSubject::Tie { .. } => (0..seats).filter(|x| *x != r.reporter).collect(),
    };
    r.submitted = Some(sub.clone());
    r.confirmers = confirmers.clone();
    r.votes.clear();
    out.public(
        "report_submitted",
        json!({"reporter": r.reporter, "subject": r.subject, "attempt": r.attempt,
               "report": sub, "confirmers": confirmers}),
    );
    if confirmers.is_empty() {
        accept(s, out, ReportResult::Accepted)
    } else {
        s.phase = Phase::ConfirmReport;
        Ok(Flow::Wait)
    }
}

fn resolve_votes(s: &mut State, out: &mut Out) -> Result<Flow, RuleError> {
    let r = s
        .report
        .as_ref()
        .ok_or_else(|| RuleError::illegal("There is no report to resolve."))?;
    let disputes = r.votes.iter().filter(|v| v.vote == Vote::Dispute).count();
    let majority = 2 * disputes > r.confirmers.len();
    if !majority {
        return accept(s, out, ReportResult::Accepted);
    }
    if r.attempt >= 2 {
        return accept(s, out, ReportResult::Disputed);
    }
    // Discard the first report: the reporter reports again.
    let log = attempt_log(r, ReportResult::Discarded);
    out.public(
        "report_resolved",
        serde_json::to_value(&log).unwrap_or_default(),
    );
    let mut attempts = r.attempts.clone();
    attempts.push(log);
    let subject = r.subject.clone();
    let reporter = r.reporter;
    s.report = Some(new_report(reporter, subject.clone(), 2, attempts));
    match subject {
        ReportSubject::Flick { .. } => s.phase = Phase::ReportFlick,
        ReportSubject::Tie { .. } => {
            if let Some(t) = s.tiebreak.as_mut() {
                t.groups.clear();
            }
            s.phase = Phase::OrderTie;
        }
    }
    Ok(Flow::Wait)
}

fn attempt_log(r: &ReportState, result: ReportResult) -> AttemptLog {
    let by = |v: Vote| -> Vec<Seat> {
        let mut x: Vec<Seat> = r
            .votes
            .iter()
            .filter(|x| x.vote == v)
            .map(|x| x.seat)
            .collect();
        x.sort();
        x
    };
    AttemptLog {
        attempt: r.attempt,
        reporter: r.reporter,
        report: r
            .submitted
            .clone()
            .unwrap_or(Submitted::Tie { groups: vec![] }),
        confirmed_by: by(Vote::Confirm),
        disputed_by: by(Vote::Dispute),
        result,
    }
}

/// Applies a report that stands.
fn accept(s: &mut State, out: &mut Out, result: ReportResult) -> Result<Flow, RuleError> {
    let r = s
        .report
        .clone()
        .ok_or_else(|| RuleError::illegal("There is no report to apply."))?;
    let log = attempt_log(&r, result);
    out.public(
        "report_resolved",
        serde_json::to_value(&log).unwrap_or_default(),
    );
    match (&r.subject, &r.submitted) {
        (
            ReportSubject::Flick {
                seat,
                flick,
                material,
            },
            Some(Submitted::Flick(rep)),
        ) => {
            let displaced_count = report::apply_flick_report(s, *seat, *material, rep)?;
            s.turn_state.flicks_done += 1;
            out.public(
                "flick",
                json!({"seat": seat, "flick": flick, "material": material,
                       "landing": rep.landing, "face": rep.face,
                       "boat_knocked_over": rep.boat_knocked_over,
                       "displaced": rep.displaced, "toppled_pyramids": rep.toppled_pyramids,
                       "reporter": r.reporter, "status": result}),
            );
            let status = if r.confirmers.is_empty() {
                "unchecked"
            } else if result == ReportResult::Disputed {
                "disputed"
            } else {
                "accepted"
            };
            let mut seats = vec![SeatRecord {
                seat: *seat,
                card: Some(material.name().into()),
                kind: Some(landing_class(s, &rep.landing).into()),
                stake: Some(displaced_count),
                choice: Some(rep.landing.clone()),
                success: Some(s.is_parcel(&rep.landing)),
                delta: 0,
                drew: u32::from(rep.boat_knocked_over),
            }];
            if r.reporter != *seat {
                seats.push(SeatRecord {
                    seat: r.reporter,
                    card: None,
                    kind: Some("reporter".into()),
                    stake: None,
                    choice: Some(rep.landing.clone()),
                    success: None,
                    delta: 0,
                    drew: 0,
                });
            }
            for v in &r.votes {
                if v.seat != *seat && v.seat != r.reporter {
                    seats.push(SeatRecord {
                        seat: v.seat,
                        card: None,
                        kind: Some("confirmer".into()),
                        stake: None,
                        choice: Some(
                            match v.vote {
                                Vote::Confirm => "confirm",
                                Vote::Dispute => "dispute",
                            }
                            .into(),
                        ),
                        success: None,
                        delta: 0,
                        drew: 0,
                    });
                }
            }
            seats.sort_by_key(|x| x.seat);
            s.records += 1;
            out.rounds.push(RoundRecord {
                round: s.records,
                value: s.turn_state.roll.map(i64::from),
                outcome: status.into(),
                total_a: Some(i64::from(s.turn) + 1),
                total_b: Some(i64::from(*flick)),
                lead_seat: Some(*seat),
                subject: Some(format!("landing:{}", rep.landing)),
                seats,
                ledger: vec![],
            });
            s.report = None;
            Ok(after_flick(s, out, rep.boat_knocked_over))
        }
        (ReportSubject::Tie { parcel }, Some(Submitted::Tie { groups })) => {
            let groups: Vec<Vec<Seat>> = groups
                .iter()
                .map(|g| g.iter().filter_map(|c| s.seat_of(c)).collect())
                .collect();
            if let Some(t) = s.tiebreak.as_mut() {
                t.orders.insert(parcel.clone(), groups);
                t.current += 1;
                t.groups.clear();
            }
            let more = s
                .tiebreak
                .as_ref()
                .map(|t| t.current < t.ties.len())
                .unwrap_or(false);
            s.report = None;
            if more {
                begin_tie(s);
            } else {
                finish(s, out)?;
            }
            Ok(Flow::Wait)
        }
        _ => Err(RuleError::illegal("The report does not match its subject.")),
    }
}

fn order_tie_group(s: &mut State, out: &mut Out, group: Vec<Seat>) -> Result<Flow, RuleError> {
    let tb = s
        .tiebreak
        .as_mut()
        .ok_or_else(|| RuleError::illegal("There is no tie to order."))?;
    let tie = tb
        .ties
        .get(tb.current)
        .cloned()
        .ok_or_else(|| RuleError::illegal("There is no tie to order."))?;
    tb.groups.push(group);
    let placed: BTreeSet<Seat> = tb.groups.iter().flatten().copied().collect();
    let remaining: Vec<Seat> = tie
        .tied
        .iter()
        .copied()
        .filter(|x| !placed.contains(x))
        .collect();
    let next_place = tie.start + placed.len();
    if !remaining.is_empty() && remaining.len() > 1 && next_place < 2 {
        return Ok(Flow::Wait);
    }
    if !remaining.is_empty() {
        tb.groups.push(remaining);
    }
    let chosen = tb.groups.clone();
    let groups: Vec<Vec<String>> = chosen
        .iter()
        .map(|g| {
            let mut g = g.clone();
            g.sort();
            g.iter().map(|x| s.colour(*x)).collect()
        })
        .collect();
    submit(s, out, Submitted::Tie { groups })
}
