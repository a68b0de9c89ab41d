//! The stored state of a Cairo match and the bookkeeping of stones.
//!
//! Every stone of a seat is in exactly one place: its supply, loose on a parcel,
//! in a pyramid on a parcel, in the desert of a zone, or lost (spec §6.4). Stones
//! are counted, not named: loose and desert stones per owner as counts (dice with
//! their faces), pyramid cubes as the owner of each cube per floor.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::data::{Board, Finger, FlickModel, Pieces, SpaceAction, TrackSpace};
use super::model::Material;
use super::{CairoOptions, Mode};
use crate::games::{RuleError, Seat};

/// Stones of one seat by type, without faces (supply, lost).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Supply {
    pub small: u32,
    pub large: u32,
    pub dice: u32,
}

impl Supply {
    pub fn total(&self) -> u32 {
        self.small + self.large + self.dice
    }
    pub fn get(&self, m: Material) -> u32 {
        match m {
            Material::Small => self.small,
            Material::Large => self.large,
            Material::Die => self.dice,
        }
    }
    pub fn slot(&mut self, m: Material) -> &mut u32 {
        match m {
            Material::Small => &mut self.small,
            Material::Large => &mut self.large,
            Material::Die => &mut self.dice,
        }
    }
}

/// One seat's stones lying at one place (loose on a parcel, or in a desert).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Holding {
    pub small: u32,
    pub large: u32,
    /// The face up of each die lying here.
    pub dice: Vec<u8>,
}

impl Holding {
    pub fn is_empty(&self) -> bool {
        self.small == 0 && self.large == 0 && self.dice.is_empty()
    }
    pub fn count(&self, m: Material) -> u32 {
        match m {
            Material::Small => self.small,
            Material::Large => self.large,
            Material::Die => self.dice.len() as u32,
        }
    }
    /// Takes one stone of type `m`; a die answers its face.
    pub fn take(&mut self, m: Material) -> Option<Option<u8>> {
        match m {
            Material::Small if self.small > 0 => {
                self.small -= 1;
                Some(None)
            }
            Material::Large if self.large > 0 => {
                self.large -= 1;
                Some(None)
            }
            Material::Die if !self.dice.is_empty() => Some(Some(self.dice.remove(0))),
            _ => None,
        }
    }
    pub fn put(&mut self, m: Material, face: Option<u8>) {
        match m {
            Material::Small => self.small += 1,
            Material::Large => self.large += 1,
            Material::Die => self.dice.push(face.unwrap_or(1)),
        }
    }
}

/// A pyramid: the owner (seat) of every cube, floor by floor, bottom first.
/// After damage a floor may hold fewer cubes than its shape (spec §6.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Pyramid {
    pub id: String,
    /// The size it was built with.
    pub size: u32,
    pub floors: Vec<Vec<Seat>>,
}

impl Pyramid {
    pub fn cubes(&self) -> usize {
        self.floors.iter().map(Vec::len).sum()
    }
}

/// The stones on one parcel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ParcelStones {
    /// Loose stones per seat (index = seat).
    pub loose: Vec<Holding>,
    pub pyramids: Vec<Pyramid>,
}

/// The decision the match waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// `dice_source = reported`: the active seat reports its movement roll.
    Roll,
    ChooseMaterial,
    /// Reported mode: the reporter drafts and submits the outcome of a flick.
    ReportFlick,
    /// Simulated mode: the active seat declares the target parcel.
    AimFlick,
    /// Sealed: the other seats confirm or dispute a submitted report.
    ConfirmReport,
    Discard,
    Build,
    Retrieve,
    /// Reported mode, at the end: the reporter orders a tie.
    OrderTie,
    Finished,
}

impl Phase {
    pub fn kind(self) -> &'static str {
        match self {
            Phase::Roll => "roll",
            Phase::ChooseMaterial => "choose_material",
            Phase::ReportFlick => "report_flick",
            Phase::AimFlick => "aim_flick",
            Phase::ConfirmReport => "confirm_report",
            Phase::Discard => "discard",
            Phase::Build => "build",
            Phase::Retrieve => "retrieve",
            Phase::OrderTie => "order_tie",
            Phase::Finished => "finished",
        }
    }
}

/// The active seat's turn so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TurnState {
    /// The movement roll of this turn (drawn before the turn's first decision).
    pub roll: Option<u8>,
    /// The finger of this turn's flicks (from the roll, or chosen on an `any` roll
    /// in simulated mode; unset in reported mode on an `any` roll).
    pub finger: Option<Finger>,
    /// The boat's space before this turn's move.
    pub moved_from: Option<String>,
    pub material: Option<Material>,
    /// Flicks made this turn.
    pub flicks_done: u32,
    /// Parcels a flicked stone of this turn landed on (pyramids may be built there).
    pub delivered_this_turn: Vec<String>,
}

/// Where a displaced stone was: loose on a parcel (`parcel`), in a pyramid
/// (`parcel`, `pyramid`, `floor` from 1 at the bottom), or in a desert (`zone`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StoneLocation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parcel: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pyramid: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
}

/// A stone already on the board that a reported flick moved (spec §6.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Displacement {
    /// The owner's colour.
    pub owner: String,
    pub stone: Material,
    pub from: StoneLocation,
    /// A parcel id, a zone id (its desert), `nile` or `off_board`.
    pub to: String,
    /// A die's new face, when it stays on land.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face: Option<u8>,
}

/// A complete flick report (reported mode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FlickReport {
    /// Where the flicked stone landed: a parcel id, a zone id (its desert), `nile`
    /// or `off_board`.
    pub landing: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub face: Option<u8>,
    pub boat_knocked_over: bool,
    pub displaced: Vec<Displacement>,
    pub toppled_pyramids: Vec<String>,
}

/// What a report is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ReportSubject {
    /// Flick number `flick` (1-based) of `seat`'s turn.
    Flick {
        seat: Seat,
        flick: u32,
        material: Material,
    },
    /// The tie-break on `parcel` at the end of the game.
    Tie { parcel: String },
}

/// A report submitted for confirmation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Submitted {
    Flick(FlickReport),
    /// The tied seats as groups, nearest first (colours).
    Tie {
        groups: Vec<Vec<String>>,
    },
}

/// A confirmer's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Vote {
    Confirm,
    Dispute,
}

/// A vote in the sealed `confirm_report` step: seen only by its author until the
/// step resolves.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct SealedVote {
    pub seat: Seat,
    pub vote: Vote,
}

/// How a confirmation round ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReportResult {
    /// No majority disputed (or nobody was asked): the report was applied.
    Accepted,
    /// A majority disputed the first report: discarded, the reporter reports again.
    Discarded,
    /// A majority disputed the second report: it stands, marked disputed.
    Disputed,
}

/// One resolved confirmation round, public once resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AttemptLog {
    pub attempt: u32,
    pub reporter: Seat,
    pub report: Submitted,
    pub confirmed_by: Vec<Seat>,
    pub disputed_by: Vec<Seat>,
    pub result: ReportResult,
}

/// A report under way (reported mode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ReportState {
    pub reporter: Seat,
    pub subject: ReportSubject,
    /// 1 for the first report, 2 after a discarded one.
    pub attempt: u32,
    /// Displacements drafted so far (flick reports).
    pub displaced: Vec<Displacement>,
    /// Pyramids reported toppled so far (flick reports).
    pub toppled_pyramids: Vec<String>,
    /// The report awaiting confirmation.
    pub submitted: Option<Submitted>,
    /// The seats asked to confirm it.
    pub confirmers: Vec<Seat>,
    /// Sealed votes so far; views show a seat only its own.
    pub votes: Vec<SealedVote>,
    /// Earlier confirmation rounds of this report (a discarded first attempt).
    pub attempts: Vec<AttemptLog>,
}

/// A tie that affects place 1 or 2 of a parcel (reported mode, spec §8.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Tie {
    pub parcel: String,
    /// The tied seats, ascending.
    pub tied: Vec<Seat>,
    /// Their common influence.
    pub influence: i64,
    /// The index of the first place they share (0 = first place).
    pub start: usize,
}

/// The end-of-game tie-break reports (reported mode).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TieBreak {
    pub ties: Vec<Tie>,
    /// The tie being ordered now (index into `ties`).
    pub current: usize,
    /// Groups chosen so far for the current tie, nearest first.
    pub groups: Vec<Vec<Seat>>,
    /// The accepted orderings, per parcel.
    pub orders: BTreeMap<String, Vec<Vec<Seat>>>,
}

/// The scoring of one parcel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ParcelScore {
    pub parcel: String,
    pub high: i64,
    pub low: i64,
    /// Influence per seat.
    pub influence: Vec<i64>,
    /// The ranked seats after tie-breaks, as groups (a group shares its places).
    pub groups: Vec<Vec<Seat>>,
    /// Points per seat.
    pub points: Vec<i64>,
}

/// The end of the game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FinalResult {
    pub scores: Vec<i64>,
    pub parcels: Vec<ParcelScore>,
}

/// The whole match: self-sufficient, public (only sealed votes are shown to
/// their authors alone until a confirmation round resolves).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub seats: usize,
    pub options: CairoOptions,
    /// The simulated model in force (simulated mode only).
    pub model: Option<FlickModel>,
    pub board: Board,
    pub pieces: Pieces,
    /// Pyramid size → cubes per floor, bottom first.
    pub pyramid_shapes: BTreeMap<u32, Vec<u32>>,
    /// Seat `i` plays `colours[i]`.
    pub colours: Vec<String>,
    /// Each seat's boat: a track space id, the start space, or null once removed.
    pub boats: Vec<Option<String>>,
    pub eliminated: Vec<bool>,
    pub supply: Vec<Supply>,
    pub lost: Vec<Supply>,
    /// Stones on each parcel, by parcel id.
    pub parcels: BTreeMap<String, ParcelStones>,
    /// Desert stones per zone id, per seat.
    pub desert: BTreeMap<String, Vec<Holding>>,
    /// Turns completed.
    pub turn: u32,
    pub active: Seat,
    /// The seat playing the final turn, once only it is left.
    pub final_turn_seat: Option<Seat>,
    pub phase: Phase,
    pub turn_state: TurnState,
    pub report: Option<ReportState>,
    pub tiebreak: Option<TieBreak>,
    /// Number of the next pyramid id (`P1`, `P2`, ...).
    pub next_pyramid: u32,
    /// Round records written so far (their `round` numbers run 1, 2, ...).
    pub records: u32,
    pub result: Option<FinalResult>,
}

impl State {
    pub fn mode(&self) -> Mode {
        self.options.mode
    }

    pub fn seat_of(&self, colour: &str) -> Option<Seat> {
        self.colours.iter().position(|c| c == colour)
    }

    pub fn colour(&self, seat: Seat) -> String {
        self.colours.get(seat).cloned().unwrap_or_default()
    }

    pub fn space(&self, id: &str) -> Option<&TrackSpace> {
        self.board.track.iter().find(|t| t.id == id)
    }

    pub fn is_parcel(&self, id: &str) -> bool {
        self.board.parcels.iter().any(|p| p.id == id)
    }

    pub fn is_zone(&self, id: &str) -> bool {
        self.board.zones.iter().any(|z| z.id == id)
    }

    pub fn zone_index(&self, zone: &str) -> Option<i64> {
        self.board
            .zones
            .iter()
            .find(|z| z.id == zone)
            .map(|z| z.index)
    }

    pub fn parcel_zone(&self, parcel: &str) -> Option<&str> {
        self.board
            .parcels
            .iter()
            .find(|p| p.id == parcel)
            .map(|p| p.zone.as_str())
    }

    /// The zone the active boat faces, when it is on a track space.
    pub fn boat_zone(&self, seat: Seat) -> Option<String> {
        let at = self.boats.get(seat)?.as_ref()?;
        self.space(at).map(|t| t.zone.clone())
    }

    pub fn boat_action(&self, seat: Seat) -> Option<SpaceAction> {
        let at = self.boats.get(seat)?.as_ref()?;
        self.space(at).map(|t| t.action)
    }

    /// Every landing name: parcel ids, zone ids (deserts), `nile`, `off_board`.
    pub fn landings(&self, on_land_only: bool) -> Vec<String> {
        let mut out: Vec<String> = self.board.parcels.iter().map(|p| p.id.clone()).collect();
        out.extend(self.board.zones.iter().map(|z| z.id.clone()));
        if !on_land_only {
            out.push("nile".into());
            out.push("off_board".into());
        }
        out
    }

    pub fn is_landing(&self, id: &str) -> bool {
        self.is_parcel(id) || self.is_zone(id) || id == "nile" || id == "off_board"
    }

    pub fn alive(&self) -> Vec<Seat> {
        (0..self.seats)
            .filter(|s| !self.eliminated.get(*s).copied().unwrap_or(true))
            .collect()
    }

    pub fn loose_mut(&mut self, parcel: &str, seat: Seat) -> Option<&mut Holding> {
        self.parcels.get_mut(parcel)?.loose.get_mut(seat)
    }

    pub fn desert_mut(&mut self, zone: &str, seat: Seat) -> Option<&mut Holding> {
        self.desert.get_mut(zone)?.get_mut(seat)
    }

    /// Puts a stone of `seat` where `landing` says; `nile` / `off_board` lose it.
    pub fn place(
        &mut self,
        seat: Seat,
        m: Material,
        landing: &str,
        face: Option<u8>,
    ) -> Result<(), RuleError> {
        if landing == "nile" || landing == "off_board" {
            let lost = self
                .lost
                .get_mut(seat)
                .ok_or_else(|| RuleError::illegal("Unknown seat."))?;
            *lost.slot(m) += 1;
            return Ok(());
        }
        if let Some(h) = self.loose_mut(landing, seat) {
            h.put(m, face);
            return Ok(());
        }
        if let Some(h) = self.desert_mut(landing, seat) {
            h.put(m, face);
            return Ok(());
        }
        Err(RuleError::illegal(format!(
            "{landing} is not a parcel, a zone, nile or off_board (rules §6.2)."
        )))
    }

    /// Influence of every seat on `parcel` (spec §7).
    pub fn influence(&self, parcel: &str) -> Vec<i64> {
        let mut out = vec![0i64; self.seats];
        let Some(p) = self.parcels.get(parcel) else {
            return out;
        };
        for (seat, h) in p.loose.iter().enumerate() {
            if let Some(v) = out.get_mut(seat) {
                *v += i64::from(h.small) * self.pieces.small_influence
                    + i64::from(h.large) * self.pieces.large_influence
                    + h.dice.iter().map(|f| i64::from(*f)).sum::<i64>();
            }
        }
        for pyr in &p.pyramids {
            for (i, floor) in pyr.floors.iter().enumerate() {
                for owner in floor {
                    if let Some(v) = out.get_mut(*owner) {
                        *v += i as i64 + 1;
                    }
                }
            }
        }
        out
    }

    /// Stones of `seat` by type in every place except the supply and lost.
    pub fn on_board(&self, seat: Seat) -> Supply {
        let mut s = Supply::default();
        let add = |s: &mut Supply, h: &Holding| {
            s.small += h.small;
            s.large += h.large;
            s.dice += h.dice.len() as u32;
        };
        for p in self.parcels.values() {
            if let Some(h) = p.loose.get(seat) {
                add(&mut s, h);
            }
            for pyr in &p.pyramids {
                s.small += pyr.floors.iter().flatten().filter(|o| **o == seat).count() as u32;
            }
        }
        for d in self.desert.values() {
            if let Some(h) = d.get(seat) {
                add(&mut s, h);
            }
        }
        s
    }

    /// The full set of one seat's stones (spec §6.4).
    pub fn full_set(&self) -> Supply {
        Supply {
            small: self.pieces.small_cubes,
            large: self.pieces.large_cubes,
            dice: self.pieces.dice,
        }
    }

    /// Loose small cubes per seat on a parcel.
    pub fn loose_small(&self, parcel: &str) -> Vec<u32> {
        self.parcels
            .get(parcel)
            .map(|p| p.loose.iter().map(|h| h.small).collect())
            .unwrap_or_default()
    }

    /// Own desert stones of `seat` in the zones a retrieve space reaches.
    pub fn retrievable(&self, seat: Seat) -> Vec<(String, Holding)> {
        let Some(at) = self.boats.get(seat).and_then(|b| b.as_ref()) else {
            return vec![];
        };
        let Some(space) = self.space(at) else {
            return vec![];
        };
        if space.action != SpaceAction::Retrieve {
            return vec![];
        }
        let mut zones = space.retrieve_zones.clone();
        zones.dedup();
        zones
            .into_iter()
            .filter_map(|z| {
                let h = self.desert.get(&z)?.get(seat)?.clone();
                (!h.is_empty()).then_some((z, h))
            })
            .collect()
    }

    /// Whether some build is legal now for the active seat (spec §7).
    pub fn any_build(&self) -> bool {
        let Some(min) = self.pyramid_shapes.keys().next().copied() else {
            return false;
        };
        self.turn_state
            .delivered_this_turn
            .iter()
            .any(|p| self.loose_small(p).iter().sum::<u32>() >= min)
    }
}
