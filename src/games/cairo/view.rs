//! What a viewer sees. Cairo hides nothing on the table (spec §10): boats,
//! supplies, every stone and pyramid, the rolls already made and the reports are
//! public. The only secrets are the future rolls (the match seed, never in the
//! state) and, during a `confirm_report` step, the sealed votes: a seat sees its
//! own vote, nobody sees another's until the step resolves.

use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;

use super::data::{Board, FlickModel, Pieces};
use super::rules::awaiting;
use super::state::{
    AttemptLog, Displacement, FinalResult, Holding, ReportSubject, State, Submitted, Supply,
    TieBreak, TurnState, Vote,
};
use super::{CairoOptions, Phase};
use crate::games::{Seat, Viewer};

/// One seat at a glance.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SeatView {
    pub seat: Seat,
    pub colour: String,
    /// A track space id, the start space, or null once the boat is removed.
    pub boat: Option<String>,
    pub eliminated: bool,
    pub supply: Supply,
    pub lost: Supply,
}

/// Stones of one owner at one place.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct OwnedStones {
    pub seat: Seat,
    pub colour: String,
    pub small: u32,
    pub large: u32,
    /// Faces of the dice lying here.
    pub dice: Vec<u8>,
}

/// A pyramid with its cubes' colours, floor by floor from the bottom.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PyramidView {
    pub id: String,
    pub size: u32,
    pub floors: Vec<Vec<String>>,
}

/// A parcel with its stones and the running influence.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ParcelView {
    pub id: String,
    pub zone: String,
    pub high: i64,
    pub low: i64,
    pub loose: Vec<OwnedStones>,
    pub pyramids: Vec<PyramidView>,
    /// Influence per seat (index = seat).
    pub influence: Vec<i64>,
}

/// The desert stones of one zone.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DesertView {
    pub zone: String,
    pub stones: Vec<OwnedStones>,
}

/// A report under way, with the sealed votes hidden.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ReportView {
    pub reporter: Seat,
    pub subject: ReportSubject,
    pub attempt: u32,
    pub displaced: Vec<Displacement>,
    pub toppled_pyramids: Vec<String>,
    pub submitted: Option<Submitted>,
    pub confirmers: Vec<Seat>,
    /// The viewer's own vote in the current confirmation round, if it voted.
    pub my_vote: Option<Vote>,
    pub attempts: Vec<AttemptLog>,
}

/// Everything a viewer may see of a Cairo match.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CairoView {
    /// The viewing seat, or null for a spectator.
    pub viewer: Option<Seat>,
    pub options: CairoOptions,
    /// The simulated model in force (simulated mode).
    pub model: Option<FlickModel>,
    pub board: Board,
    pub pieces: Pieces,
    pub pyramid_shapes: BTreeMap<u32, Vec<u32>>,
    pub seats: Vec<SeatView>,
    pub parcels: Vec<ParcelView>,
    pub deserts: Vec<DesertView>,
    /// Turns completed.
    pub turn: u32,
    pub active: Seat,
    pub final_turn_seat: Option<Seat>,
    /// The decision awaited (the prompt kind), or `finished`.
    pub phase: Phase,
    pub awaiting: Vec<Seat>,
    /// The active turn: roll, finger, material, flicks made, parcels delivered to.
    pub turn_state: TurnState,
    pub report: Option<ReportView>,
    pub tiebreak: Option<TieBreak>,
    pub result: Option<FinalResult>,
}

fn owned(s: &State, holdings: &[Holding]) -> Vec<OwnedStones> {
    holdings
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.is_empty())
        .map(|(seat, h)| OwnedStones {
            seat,
            colour: s.colour(seat),
            small: h.small,
            large: h.large,
            dice: h.dice.clone(),
        })
        .collect()
}

pub fn view(s: &State, viewer: Viewer) -> CairoView {
    let me = match viewer {
        Viewer::Seat(x) => Some(x),
        Viewer::Spectator => None,
    };
    let seats = (0..s.seats)
        .map(|seat| SeatView {
            seat,
            colour: s.colour(seat),
            boat: s.boats.get(seat).cloned().flatten(),
            eliminated: s.eliminated.get(seat).copied().unwrap_or(false),
            supply: s.supply.get(seat).cloned().unwrap_or_default(),
            lost: s.lost.get(seat).cloned().unwrap_or_default(),
        })
        .collect();
    let parcels = s
        .board
        .parcels
        .iter()
        .map(|p| {
            let stones = s.parcels.get(&p.id);
            ParcelView {
                id: p.id.clone(),
                zone: p.zone.clone(),
                high: p.high,
                low: p.low,
                loose: stones.map(|x| owned(s, &x.loose)).unwrap_or_default(),
                pyramids: stones
                    .map(|x| {
                        x.pyramids
                            .iter()
                            .map(|pyr| PyramidView {
                                id: pyr.id.clone(),
                                size: pyr.size,
                                floors: pyr
                                    .floors
                                    .iter()
                                    .map(|f| f.iter().map(|o| s.colour(*o)).collect())
                                    .collect(),
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                influence: s.influence(&p.id),
            }
        })
        .collect();
    let deserts = s
        .board
        .zones
        .iter()
        .map(|z| DesertView {
            zone: z.id.clone(),
            stones: s.desert.get(&z.id).map(|d| owned(s, d)).unwrap_or_default(),
        })
        .collect();
    let report = s.report.as_ref().map(|r| ReportView {
        reporter: r.reporter,
        subject: r.subject.clone(),
        attempt: r.attempt,
        displaced: r.displaced.clone(),
        toppled_pyramids: r.toppled_pyramids.clone(),
        submitted: r.submitted.clone(),
        confirmers: r.confirmers.clone(),
        my_vote: me.and_then(|m| r.votes.iter().find(|v| v.seat == m).map(|v| v.vote)),
        attempts: r.attempts.clone(),
    });
    CairoView {
        viewer: me,
        options: s.options.clone(),
        model: s.model.clone(),
        board: s.board.clone(),
        pieces: s.pieces.clone(),
        pyramid_shapes: s.pyramid_shapes.clone(),
        seats,
        parcels,
        deserts,
        turn: s.turn,
        active: s.active,
        final_turn_seat: s.final_turn_seat,
        phase: s.phase,
        awaiting: awaiting(s),
        turn_state: s.turn_state.clone(),
        report,
        tiebreak: s.tiebreak.clone(),
        result: s.result.clone(),
    }
}
