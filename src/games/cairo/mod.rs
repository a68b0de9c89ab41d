//! Cairo (Günter Burkhardt, Schmidt Spiele 2002): a dexterity game played in two
//! modes. In `reported` mode a physical table reports where each flicked stone
//! landed and the server applies every rule; in `simulated` mode the server draws
//! the landing from the seeded model of spec §9 (a digital adaptation).
//!
//! The authority is shared/rules/cairo.md; docs/rules/cairo.md describes how this
//! engine plays it (steps, actions, options, positions, views, null moves, records).

pub mod data;
mod model;
mod moves;
mod position;
mod report;
mod rules;
mod scoring;
mod state;
mod templates;
mod view;

#[cfg(test)]
mod bot_tests;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::games::rng::GameRng;
use crate::games::{DataFile, Game, GameInfo, Progress, RuleError, Seat, Transition, Viewer};

pub use data::{CairoData, Finger, FingerTable, FlickModel, MaterialTable, MissWeights};
pub use model::Material;
pub use position::{
    CairoPosition, HoldingPosition, ParcelPosition, PositionPhase, PyramidPosition,
};
pub use state::{Phase, State as CairoState, StoneLocation};
pub use templates::CairoTemplate;
pub use view::CairoView;

/// The Cairo rules engine.
pub struct Cairo;

/// How flicks are decided.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// A physical table reports each flick's outcome (the original game).
    #[default]
    Reported,
    /// The server draws each flick's outcome from the seeded model (an adaptation).
    Simulated,
}

/// What happens when a boat would end on an occupied space (spec §5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OccupiedRule {
    /// Count every space; from an occupied end space go on to the next free one.
    #[default]
    NextFree,
    /// Occupied spaces are not counted.
    Skip,
}

/// Who rolls the movement die.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiceSource {
    /// The server, from the match's seeded RNG.
    #[default]
    Server,
    /// The active seat reports a physical roll (reported mode only).
    Reported,
}

/// Who submits flick reports and the end tie-break reports (reported mode).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReporterRule {
    /// The seat whose turn it is (at the end: the seat that played the last turn).
    #[default]
    Actor,
    /// Seat 0, the table's host.
    Host,
}

/// A partial override of the simulated model; missing fields keep the values of
/// `data/cairo/model.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct ModelOverride {
    pub finger_base: Option<FingerTable>,
    pub material_factor: Option<MaterialTable>,
    pub zone_penalty: Option<f64>,
    pub p_min: Option<f64>,
    pub p_max: Option<f64>,
    pub miss_weights: Option<MissWeights>,
}

/// Match options (fixed at creation). The seat count (2–5) is the match's seats,
/// not an option.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct CairoOptions {
    /// `reported` (default) or `simulated`.
    pub mode: Mode,
    /// `next_free` (default, the Czech text) or `skip`.
    pub occupied_rule: OccupiedRule,
    /// `server` (default) or `reported` (reported mode only).
    pub dice_source: DiceSource,
    /// `actor` (default) or `host` (seat 0); reported mode only.
    pub reporter: ReporterRule,
    /// Seconds the server waits for `confirm_report` votes before silence counts
    /// as `confirm` (default 60). Enforced by the server, not the engine.
    pub report_confirm_seconds: u32,
    /// Simulated mode only: overrides of the model parameters (default null = the
    /// data file's parameters).
    pub model: Option<ModelOverride>,
}

impl Default for CairoOptions {
    fn default() -> Self {
        Self {
            mode: Mode::Reported,
            occupied_rule: OccupiedRule::NextFree,
            dice_source: DiceSource::Server,
            reporter: ReporterRule::Actor,
            report_confirm_seconds: 60,
            model: None,
        }
    }
}

/// A move. Stone owners are named by colour; landings and locations by the ids of
/// the board data (`nile` and `off_board` for lost stones).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum CairoAction {
    /// `dice_source = reported`: the movement roll thrown at the table.
    Roll { value: u8 },
    /// The material of a delivery; `finger` only in simulated mode on an `any` roll.
    ChooseMaterial {
        material: Material,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        finger: Option<Finger>,
    },
    /// Simulated mode: the declared target parcel of the next flick.
    Aim { parcel: String },
    /// Reported mode, drafting a flick report: a stone already on the board moved.
    Displace {
        owner: String,
        stone: Material,
        from: StoneLocation,
        to: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        face: Option<u8>,
    },
    /// Reported mode, drafting: a pyramid was toppled (its cubes not displaced
    /// otherwise become loose on its parcel).
    Topple { pyramid_id: String },
    /// Reported mode, drafting: forget the displacements and topples drafted so far.
    ClearReport,
    /// Reported mode: where the flicked stone landed; closes the report.
    Report {
        landing: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        face: Option<u8>,
        #[serde(default)]
        boat_knocked_over: bool,
    },
    /// Sealed vote on a submitted report.
    Confirm,
    /// Sealed vote on a submitted report.
    Dispute,
    /// After the own boat was knocked over: the stone type discarded from supply.
    Discard { stone: Material },
    /// Build a pyramid: `cubes` are loose small cubes (`<colour>-<n>`), bottom floor first.
    Build {
        parcel: String,
        size: u32,
        cubes: Vec<String>,
    },
    /// Close the build window.
    EndBuild,
    /// Take back own desert stones (`<zone>:<small|large|die>-<n>`); may be empty.
    Retrieve { stones: Vec<String> },
    /// Reported mode, at the end: the next group of a tie, nearest first.
    OrderTie { parcel: String, group: Vec<String> },
}

impl CairoAction {
    pub fn type_name(&self) -> &'static str {
        match self {
            CairoAction::Roll { .. } => "roll",
            CairoAction::ChooseMaterial { .. } => "choose_material",
            CairoAction::Aim { .. } => "aim",
            CairoAction::Displace { .. } => "displace",
            CairoAction::Topple { .. } => "topple",
            CairoAction::ClearReport => "clear_report",
            CairoAction::Report { .. } => "report",
            CairoAction::Confirm => "confirm",
            CairoAction::Dispute => "dispute",
            CairoAction::Discard { .. } => "discard",
            CairoAction::Build { .. } => "build",
            CairoAction::EndBuild => "end_build",
            CairoAction::Retrieve { .. } => "retrieve",
            CairoAction::OrderTie { .. } => "order_tie",
        }
    }
}

static DATA_FILES: [DataFile; 4] = [
    DataFile {
        name: "board.json",
        embedded: include_str!("../../../data/cairo/board.json"),
    },
    DataFile {
        name: "pieces.json",
        embedded: include_str!("../../../data/cairo/pieces.json"),
    },
    DataFile {
        name: "pyramids.json",
        embedded: include_str!("../../../data/cairo/pyramids.json"),
    },
    DataFile {
        name: "model.json",
        embedded: include_str!("../../../data/cairo/model.json"),
    },
];

impl Game for Cairo {
    type Data = CairoData;
    type Options = CairoOptions;
    type Position = CairoPosition;
    type State = state::State;
    type Action = CairoAction;
    type View = CairoView;
    type Template = CairoTemplate;

    fn prompt_kinds() -> &'static [&'static str] {
        &[
            "roll",
            "choose_material",
            "aim_flick",
            "report_flick",
            "confirm_report",
            "discard",
            "build",
            "retrieve",
            "order_tie",
        ]
    }

    fn example_action() -> CairoAction {
        CairoAction::ChooseMaterial {
            material: Material::Large,
            finger: None,
        }
    }

    fn event_kinds() -> &'static [&'static str] {
        &[
            "build",
            "discard",
            "eliminated",
            "final_turn",
            "flick",
            "material",
            "move",
            "report_draft",
            "report_resolved",
            "report_submitted",
            "retrieve",
            "roll",
            "scoring",
            "tie_breaks",
            "turn_end",
        ]
    }

    fn info() -> GameInfo {
        GameInfo {
            id: "cairo",
            name: "Cairo",
            seats: vec![2, 3, 4, 5],
            options: serde_json::to_value(CairoOptions::default()).unwrap_or_else(|_| json!({})),
            summary: "Sail the Nile and flick building stones onto parcels; pyramids add \
                      influence. Played at a table with reported flicks, or online with a \
                      seeded flick model.",
        }
    }

    fn data_files() -> &'static [DataFile] {
        &DATA_FILES
    }

    fn load_data(files: &[(&str, &str)]) -> Result<CairoData, String> {
        data::load(files)
    }

    fn setup(
        data: &CairoData,
        seats: usize,
        options: &CairoOptions,
        rng: &mut GameRng,
    ) -> Result<state::State, RuleError> {
        rules::setup(data, seats, options, rng)
    }

    fn from_position(
        data: &CairoData,
        seats: usize,
        options: &CairoOptions,
        position: CairoPosition,
    ) -> Result<state::State, RuleError> {
        position::from_position(data, seats, options, position)
    }

    fn progress(state: &state::State) -> Progress {
        rules::progress(state)
    }

    fn legal(state: &state::State, seat: Seat) -> Option<Vec<Value>> {
        moves::legal(state, seat)
    }

    fn validate(state: &state::State, seat: Seat, action: &CairoAction) -> Result<(), RuleError> {
        rules::validate(state, seat, action)
    }

    fn apply(
        state: &state::State,
        seat: Seat,
        action: &CairoAction,
        rng: &mut GameRng,
    ) -> Result<Transition<state::State>, RuleError> {
        rules::apply(state, seat, action, rng)
    }

    fn view(state: &state::State, viewer: Viewer) -> CairoView {
        view::view(state, viewer)
    }

    fn public_part(_state: &state::State, _seat: Seat, action: &CairoAction) -> Option<Value> {
        // Only the votes of the sealed confirm_report step are secret until it
        // resolves (its reveal); every other move is public at once.
        match action {
            CairoAction::Confirm | CairoAction::Dispute => Some(json!({})),
            _ => None,
        }
    }

    fn null_move(state: &state::State, seat: Seat) -> Option<CairoAction> {
        moves::null_move(state, seat)
    }
    fn variant(_seats: usize, options: &Self::Options) -> String {
        serde_json::to_value(options.mode)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "standard".to_owned())
    }

    fn step_time_limit(state: &state::State) -> Option<u64> {
        match rules::progress(state) {
            Progress::Active(p) if p.kind == "confirm_report" => {
                Some(u64::from(state.options.report_confirm_seconds))
            }
            _ => None,
        }
    }
}
