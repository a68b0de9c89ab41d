//! Starting a match from a given situation: any decision of the active seat's
//! turn (spec §4), with any board the components allow.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use utoipa::ToSchema;

use super::data::{CairoData, Finger, Pieces, SpaceAction, check_pieces, check_shapes};
use super::model::Material;
use super::rules::{finger_for_roll, initial_state};
use super::state::{Holding, Phase, Pyramid, ReportState, ReportSubject, State, Supply, TurnState};
use super::{CairoOptions, DiceSource, Mode, ReporterRule};
use crate::games::{RuleError, Seat};

/// Stones of one colour at one place.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HoldingPosition {
    pub owner: String,
    #[serde(default)]
    pub small: u32,
    #[serde(default)]
    pub large: u32,
    /// The face up of each die.
    #[serde(default)]
    pub dice: Vec<u8>,
}

/// A standing (possibly damaged) pyramid.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PyramidPosition {
    /// Defaults to `P1`, `P2`, ... in the order given.
    #[serde(default)]
    pub id: Option<String>,
    /// The size it was built with (a key of the shape table).
    pub size: u32,
    /// Owner colours per floor, bottom first; a floor may hold fewer cubes than
    /// its shape after damage.
    pub floors: Vec<Vec<String>>,
}

/// The stones on one parcel.
#[derive(Debug, Clone, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ParcelPosition {
    #[serde(default)]
    pub loose: Vec<HoldingPosition>,
    #[serde(default)]
    pub pyramids: Vec<PyramidPosition>,
}

/// The decision the position starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum PositionPhase {
    /// `dice_source = reported`: before the roll (the boat has not moved).
    Roll,
    /// On a deliver space, before the material is chosen.
    ChooseMaterial,
    /// On a deliver space: the next flick (`aim_flick` or `report_flick`).
    Flick,
    /// After the own boat was knocked over: the discard.
    Discard,
    /// The build window after a flick.
    Build,
    /// On a retrieve space with own desert stones in reach.
    Retrieve,
}

/// A situation at the start of a decision of the active seat.
///
/// Example: `{"boats": ["U5", "U3", "START"], "active": 0, "roll": 4,
/// "phase": "choose_material", "parcels": {"L1": {"loose": [{"owner": "red",
/// "small": 2, "large": 1}]}}}`. Supplies default to every stone not on the board
/// (nothing lost); when given, the stones neither in supply nor on the board are
/// lost.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CairoPosition {
    /// Each seat's boat: a track space id or the start space; null once eliminated.
    pub boats: Vec<Option<String>>,
    #[serde(default)]
    pub supply: Option<Vec<Supply>>,
    #[serde(default)]
    pub parcels: BTreeMap<String, ParcelPosition>,
    /// Desert stones per zone id.
    #[serde(default)]
    pub desert: BTreeMap<String, Vec<HoldingPosition>>,
    /// Turns completed (default 0).
    #[serde(default)]
    pub turn: u32,
    pub active: Seat,
    /// The active seat's roll (required except in the `roll` phase).
    #[serde(default)]
    pub roll: Option<u8>,
    /// Must be the active seat when only it is left.
    #[serde(default)]
    pub final_turn_seat: Option<Seat>,
    pub phase: PositionPhase,
    /// The delivery's material (`flick`, `discard`, `build`).
    #[serde(default)]
    pub material: Option<Material>,
    /// Simulated mode, on an `any` roll, once chosen (`flick`, `discard`, `build`).
    #[serde(default)]
    pub finger: Option<Finger>,
    /// Flicks already made this turn.
    #[serde(default)]
    pub flicks_done: u32,
    /// Parcels a flicked stone landed on this turn.
    #[serde(default)]
    pub delivered_this_turn: Vec<String>,
    /// The pieces stated in full (colours, stones per player, influences,
    /// dice, the fingers of the rolls), in place of the component data's.
    /// Checked as the data is, with a colour for each seat.
    #[serde(default)]
    pub pieces: Option<Pieces>,
    /// The pyramid shapes stated in full (size → cubes per floor, bottom
    /// first), in place of the component data's; `parcels` and the build
    /// moves use these sizes.
    #[serde(default)]
    pub pyramid_shapes: Option<BTreeMap<u32, Vec<u32>>>,
}

fn bad(m: impl Into<String>) -> RuleError {
    RuleError::position(m)
}

fn holding(s: &State, h: &HoldingPosition, place: &str) -> Result<(Seat, Holding), RuleError> {
    let seat = s.seat_of(&h.owner).ok_or_else(|| {
        bad(format!(
            "{place}: {} is not a colour of this match.",
            h.owner
        ))
    })?;
    for f in &h.dice {
        if *f == 0 || *f > s.pieces.die_faces {
            return Err(bad(format!(
                "{place}: a die of {} shows {f}; faces run 1 to {}.",
                h.owner, s.pieces.die_faces
            )));
        }
    }
    Ok((
        seat,
        Holding {
            small: h.small,
            large: h.large,
            dice: h.dice.clone(),
        },
    ))
}

pub fn from_position(
    data: &CairoData,
    seats: usize,
    options: &CairoOptions,
    p: CairoPosition,
) -> Result<State, RuleError> {
    // Components the position states replace the data's for this match; the
    // state keeps them, so the match never reads the data again.
    let stated;
    let data = if p.pieces.is_some() || p.pyramid_shapes.is_some() {
        let mut d = data.clone();
        if let Some(pieces) = &p.pieces {
            check_pieces(pieces, "The position's pieces", seats).map_err(bad)?;
            d.pieces = pieces.clone();
        }
        if let Some(shapes) = &p.pyramid_shapes {
            check_shapes(shapes, "The position's pyramid_shapes").map_err(bad)?;
            d.shapes = shapes.clone();
        }
        stated = d;
        &stated
    } else {
        data
    };
    let mut s = initial_state(data, seats, options)?;
    // Boats.
    if p.boats.len() != seats {
        return Err(bad(format!(
            "boats lists {} seats, not {seats}.",
            p.boats.len()
        )));
    }
    let mut taken = BTreeSet::new();
    for (seat, b) in p.boats.iter().enumerate() {
        if let Some(id) = b.as_ref().filter(|id| **id != s.board.start) {
            if s.space(id).is_none() {
                return Err(bad(format!(
                    "The boat of seat {seat} is on {id}, which is not a track space."
                )));
            }
            if !taken.insert(id.clone()) {
                return Err(bad(format!(
                    "Two boats are on {id}; only the start space holds several."
                )));
            }
        }
    }
    s.boats = p.boats.clone();
    s.eliminated = p.boats.iter().map(Option::is_none).collect();
    // Board stones.
    for (id, parcel) in &p.parcels {
        if !s.is_parcel(id) {
            return Err(bad(format!("{id} is not a parcel of the board.")));
        }
        let mut seen = BTreeSet::new();
        for h in &parcel.loose {
            let (seat, hold) = holding(&s, h, id)?;
            if !seen.insert(seat) {
                return Err(bad(format!(
                    "{id}: the loose stones of {} are listed twice.",
                    h.owner
                )));
            }
            if let Some(x) = s.loose_mut(id, seat) {
                *x = hold;
            }
        }
    }
    let mut ids = BTreeSet::new();
    let mut next = 1u32;
    for (parcel, pp) in &p.parcels {
        for pyr in &pp.pyramids {
            let shape = s.pyramid_shapes.get(&pyr.size).cloned().ok_or_else(|| {
                bad(format!(
                    "{parcel}: {} is not a pyramid size of the shape table.",
                    pyr.size
                ))
            })?;
            if pyr.floors.len() > shape.len()
                || pyr
                    .floors
                    .iter()
                    .zip(&shape)
                    .any(|(f, w)| f.len() > *w as usize)
            {
                return Err(bad(format!(
                    "{parcel}: a pyramid of size {} has floors of at most {shape:?} cubes.",
                    pyr.size
                )));
            }
            let mut floors = Vec::new();
            for f in &pyr.floors {
                let mut floor = Vec::new();
                for c in f {
                    floor.push(s.seat_of(c).ok_or_else(|| {
                        bad(format!("{parcel}: {c} is not a colour of this match."))
                    })?);
                }
                floors.push(floor);
            }
            if floors.iter().all(Vec::is_empty) {
                return Err(bad(format!("{parcel}: a pyramid needs at least one cube.")));
            }
            let id = pyr
                .id
                .clone()
                .unwrap_or_else(|| format!("P{}", ids.len() + 1));
            if !ids.insert(id.clone()) {
                return Err(bad(format!("The pyramid id {id} is used twice.")));
            }
            if let Some(n) = id.strip_prefix('P').and_then(|n| n.parse::<u32>().ok()) {
                next = next.max(n.saturating_add(1));
            }
            if let Some(ps) = s.parcels.get_mut(parcel) {
                ps.pyramids.push(Pyramid {
                    id,
                    size: pyr.size,
                    floors,
                });
            }
        }
    }
    s.next_pyramid = next.max(ids.len() as u32 + 1);
    for (zone, list) in &p.desert {
        if !s.is_zone(zone) {
            return Err(bad(format!("{zone} is not a zone of the board.")));
        }
        let mut seen = BTreeSet::new();
        for h in list {
            let (seat, hold) = holding(&s, h, zone)?;
            if !seen.insert(seat) {
                return Err(bad(format!(
                    "{zone}: the desert stones of {} are listed twice.",
                    h.owner
                )));
            }
            if let Some(x) = s.desert_mut(zone, seat) {
                *x = hold;
            }
        }
    }
    // Supplies and lost stones: every type of every seat adds up to the full set.
    if let Some(sup) = p.supply.as_ref().filter(|x| x.len() != seats) {
        return Err(bad(format!(
            "supply lists {} seats, not {seats}.",
            sup.len()
        )));
    }
    let full = s.full_set();
    for seat in 0..seats {
        let board = s.on_board(seat);
        let supply = match &p.supply {
            Some(list) => list.get(seat).cloned().unwrap_or_default(),
            None => Supply {
                small: full.small.saturating_sub(board.small),
                large: full.large.saturating_sub(board.large),
                dice: full.dice.saturating_sub(board.dice),
            },
        };
        let colour = s.colour(seat);
        for (name, have, on, max) in [
            ("small cubes", supply.small, board.small, full.small),
            ("large cubes", supply.large, board.large, full.large),
            ("dice", supply.dice, board.dice, full.dice),
        ] {
            if have + on > max {
                return Err(bad(format!(
                    "{colour} has {} {name} in supply and on the board, but only {max} exist.",
                    have + on
                )));
            }
        }
        let lost = Supply {
            small: full.small - supply.small - board.small,
            large: full.large - supply.large - board.large,
            dice: full.dice - supply.dice - board.dice,
        };
        if let Some(x) = s.lost.get_mut(seat) {
            *x = lost;
        }
        if let Some(x) = s.supply.get_mut(seat) {
            *x = supply;
        }
    }
    // Turn.
    let alive = s.alive();
    if p.active >= seats {
        return Err(bad(format!("There is no seat {}.", p.active)));
    }
    if !alive.contains(&p.active) {
        return Err(bad(format!(
            "Seat {} is eliminated and cannot be active.",
            p.active
        )));
    }
    match (alive.len(), p.final_turn_seat) {
        (1, Some(x)) if x == p.active => {}
        (1, _) => {
            return Err(bad(
                "Only one seat is left: final_turn_seat must be that seat (rules §8.3).",
            ));
        }
        (_, None) => {}
        (_, Some(_)) => {
            return Err(bad(
                "final_turn_seat is set only when exactly one seat is left (rules §8.3).",
            ));
        }
    }
    s.active = p.active;
    s.turn = p.turn;
    s.final_turn_seat = p.final_turn_seat;
    let seat = p.active;
    let faces = s.pieces.movement_die_faces;
    match (p.phase, p.roll) {
        (PositionPhase::Roll, None) => {
            if options.dice_source != DiceSource::Reported {
                return Err(bad(
                    "The roll phase exists only with dice_source = reported.",
                ));
            }
        }
        (PositionPhase::Roll, Some(_)) => {
            return Err(bad("In the roll phase the roll is not made yet."));
        }
        (_, Some(r)) if (1..=faces).contains(&r) => {}
        (_, _) => {
            return Err(bad(format!(
                "roll must be 1 to {faces} after the roll phase."
            )));
        }
    }
    let roll_finger = p.roll.and_then(|r| finger_for_roll(&s, r));
    let any_roll = p.roll.is_some() && roll_finger.is_none();
    let at_deliver = s.boat_action(seat) == Some(SpaceAction::Deliver);
    let supply = s.supply.get(seat).cloned().unwrap_or_default();
    for d in &p.delivered_this_turn {
        if !s.is_parcel(d) {
            return Err(bad(format!(
                "delivered_this_turn names {d}, which is not a parcel."
            )));
        }
    }
    let distinct: BTreeSet<&String> = p.delivered_this_turn.iter().collect();
    if distinct.len() != p.delivered_this_turn.len() {
        return Err(bad("delivered_this_turn names a parcel twice."));
    }
    let in_delivery = matches!(
        p.phase,
        PositionPhase::Flick | PositionPhase::Discard | PositionPhase::Build
    );
    if !in_delivery
        && (p.material.is_some() || p.flicks_done > 0 || !p.delivered_this_turn.is_empty())
    {
        return Err(bad(
            "material, flicks_done and delivered_this_turn belong to a delivery under way.",
        ));
    }
    if p.delivered_this_turn.len() as u32 > p.flicks_done {
        return Err(bad(
            "delivered_this_turn names more parcels than flicks were made.",
        ));
    }
    let choose_finger = options.mode == Mode::Simulated && any_roll;
    let finger_ok = match (p.phase, p.finger) {
        (PositionPhase::Flick | PositionPhase::Discard | PositionPhase::Build, Some(_)) => {
            choose_finger
        }
        (PositionPhase::Flick | PositionPhase::Discard | PositionPhase::Build, None) => {
            !choose_finger
        }
        (_, f) => f.is_none(),
    };
    if !finger_ok {
        return Err(bad(
            "finger is given exactly when a simulated delivery under way follows a roll that lets the player choose.",
        ));
    }
    let phase = match p.phase {
        PositionPhase::Roll => Phase::Roll,
        PositionPhase::Retrieve => {
            if s.boat_action(seat) != Some(SpaceAction::Retrieve) {
                return Err(bad(
                    "The retrieve phase needs the active boat on a retrieve space.",
                ));
            }
            if s.retrievable(seat).is_empty() {
                return Err(bad(
                    "The retrieve phase needs own desert stones in the zones of the space.",
                ));
            }
            Phase::Retrieve
        }
        other => {
            if !at_deliver {
                return Err(bad("A delivery needs the active boat on a deliver space."));
            }
            match other {
                PositionPhase::ChooseMaterial => {
                    if supply.total() == 0 {
                        return Err(bad(
                            "With an empty supply on a deliver space the seat is eliminated, not asked (rules §8.2).",
                        ));
                    }
                    Phase::ChooseMaterial
                }
                _ => {
                    let m = p
                        .material
                        .ok_or_else(|| bad("A delivery under way needs its material."))?;
                    let limit = if m == Material::Small {
                        s.pieces.small_per_delivery
                    } else {
                        1
                    };
                    match other {
                        PositionPhase::Flick => {
                            if supply.get(m) == 0 || p.flicks_done >= limit {
                                return Err(bad(format!(
                                    "No {} flick is left in this delivery.",
                                    m.name()
                                )));
                            }
                            match options.mode {
                                Mode::Simulated => Phase::AimFlick,
                                Mode::Reported => Phase::ReportFlick,
                            }
                        }
                        PositionPhase::Discard => {
                            if p.flicks_done == 0 || p.flicks_done > limit || supply.total() == 0 {
                                return Err(bad(
                                    "A discard follows a flick and needs a stone in supply.",
                                ));
                            }
                            Phase::Discard
                        }
                        _ => {
                            if p.flicks_done == 0 || p.flicks_done > limit {
                                return Err(bad(
                                    "A build window follows a flick of this delivery.",
                                ));
                            }
                            Phase::Build
                        }
                    }
                }
            }
        }
    };
    s.turn_state = TurnState {
        roll: p.roll,
        finger: roll_finger.or(p.finger),
        moved_from: None,
        material: p.material,
        flicks_done: p.flicks_done,
        delivered_this_turn: p.delivered_this_turn.clone(),
    };
    if phase == Phase::Build && !s.any_build() {
        return Err(bad(
            "The build window opens only when a build is possible on a parcel delivered to this turn.",
        ));
    }
    s.phase = phase;
    if phase == Phase::ReportFlick {
        let reporter = match options.reporter {
            ReporterRule::Actor => seat,
            ReporterRule::Host => 0,
        };
        s.report = Some(ReportState {
            reporter,
            subject: ReportSubject::Flick {
                seat,
                flick: p.flicks_done + 1,
                material: p.material.unwrap_or(Material::Small),
            },
            attempt: 1,
            displaced: vec![],
            toppled_pyramids: vec![],
            submitted: None,
            confirmers: vec![],
            votes: vec![],
            attempts: vec![],
        });
    }
    Ok(s)
}
