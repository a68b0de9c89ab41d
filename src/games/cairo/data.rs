//! Component data of Cairo: the board, the pieces, the pyramid shapes and the
//! default parameters of the simulated flick model. Everything here is read from
//! the JSON files under `data/cairo/` and checked once; the state copies what the
//! rest of the game needs.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// What ending a move on a track space means (spec §1.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpaceAction {
    /// A right-bank space: flicking is mandatory.
    Deliver,
    /// A left-bank space: the seat may take back its own desert stones.
    Retrieve,
}

/// One space of the Nile track.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackSpace {
    pub id: String,
    /// `upstream` or `downstream` (informative only).
    pub lane: String,
    pub action: SpaceAction,
    /// The zone this space faces.
    pub zone: String,
    /// For a retrieve space: the zones whose desert stones may be taken back
    /// (defaults to the space's own zone).
    #[serde(default)]
    pub retrieve_zones: Vec<String>,
}

/// A strip of land across both banks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Zone {
    pub id: String,
    /// Position along the river; zone distances are differences of indices.
    pub index: i64,
}

/// A building parcel with its two place values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Parcel {
    pub id: String,
    /// `left` or `right` (informative only).
    pub bank: String,
    pub zone: String,
    /// Points for the first place.
    pub high: i64,
    /// Points for the second place.
    pub low: i64,
}

/// The board: the track cycle, its zones and parcels.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Board {
    /// The start space, outside the cycle.
    pub start: String,
    /// The track cycle, in loop order: after the last entry comes the first.
    pub track: Vec<TrackSpace>,
    pub zones: Vec<Zone>,
    pub parcels: Vec<Parcel>,
    /// Neighbour parcels of every parcel, ascending ids (simulated misses, §9.3).
    pub parcel_neighbours: BTreeMap<String, Vec<String>>,
}

/// A finger, or `any` for the roll that lets the player choose (spec §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Finger {
    Thumb,
    Index,
    Middle,
    Ring,
    Little,
}

impl Finger {
    pub const ALL: [Finger; 5] = [
        Finger::Thumb,
        Finger::Index,
        Finger::Middle,
        Finger::Ring,
        Finger::Little,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Finger::Thumb => "thumb",
            Finger::Index => "index",
            Finger::Middle => "middle",
            Finger::Ring => "ring",
            Finger::Little => "little",
        }
    }
}

/// The finger fixed by a roll: a finger, or the player's choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RollFinger {
    Thumb,
    Index,
    Middle,
    Ring,
    Little,
    Any,
}

impl RollFinger {
    pub fn finger(self) -> Option<Finger> {
        match self {
            RollFinger::Thumb => Some(Finger::Thumb),
            RollFinger::Index => Some(Finger::Index),
            RollFinger::Middle => Some(Finger::Middle),
            RollFinger::Ring => Some(Finger::Ring),
            RollFinger::Little => Some(Finger::Little),
            RollFinger::Any => None,
        }
    }
}

/// The pieces and the rule numbers that come with them (`pieces.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Pieces {
    /// Seat `i` plays colour `colours[i]`.
    pub colours: Vec<String>,
    pub small_cubes: u32,
    pub large_cubes: u32,
    pub dice: u32,
    pub small_influence: i64,
    pub large_influence: i64,
    /// Faces of a player's die (its influence is the face up).
    pub die_faces: u8,
    /// Faces of the neutral movement die.
    pub movement_die_faces: u8,
    /// The finger for each roll, roll 1 first; `any` lets the player choose.
    pub fingers_by_roll: Vec<RollFinger>,
    /// How many small cubes one delivery flicks at most.
    pub small_per_delivery: u32,
}

/// Hit probability base per finger (spec §9.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FingerTable {
    pub thumb: f64,
    pub index: f64,
    pub middle: f64,
    pub ring: f64,
    pub little: f64,
}

impl FingerTable {
    pub fn get(&self, f: Finger) -> f64 {
        match f {
            Finger::Thumb => self.thumb,
            Finger::Index => self.index,
            Finger::Middle => self.middle,
            Finger::Ring => self.ring,
            Finger::Little => self.little,
        }
    }
}

/// Hit probability factor per material (spec §9.2).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MaterialTable {
    pub small: f64,
    pub large: f64,
    pub die: f64,
}

/// Where a miss lands, as weights compared cumulatively in this order (spec §9.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MissWeights {
    pub near: f64,
    pub desert: f64,
    pub nile: f64,
    pub off_board: f64,
}

/// The parameters of the simulated flick model (spec §9; `model.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FlickModel {
    pub finger_base: FingerTable,
    pub material_factor: MaterialTable,
    /// Subtracted from the hit probability per zone step between boat and target.
    pub zone_penalty: f64,
    pub p_min: f64,
    pub p_max: f64,
    pub miss_weights: MissWeights,
}

impl FlickModel {
    /// Checks every parameter: finite, probabilities in [0, 1], weights summing to 1.
    pub fn check(&self) -> Result<(), String> {
        let f = &self.finger_base;
        let m = &self.material_factor;
        let w = &self.miss_weights;
        let all = [
            ("finger_base.thumb", f.thumb),
            ("finger_base.index", f.index),
            ("finger_base.middle", f.middle),
            ("finger_base.ring", f.ring),
            ("finger_base.little", f.little),
            ("material_factor.small", m.small),
            ("material_factor.large", m.large),
            ("material_factor.die", m.die),
            ("zone_penalty", self.zone_penalty),
            ("p_min", self.p_min),
            ("p_max", self.p_max),
            ("miss_weights.near", w.near),
            ("miss_weights.desert", w.desert),
            ("miss_weights.nile", w.nile),
            ("miss_weights.off_board", w.off_board),
        ];
        for (name, v) in all {
            if !v.is_finite() || v < 0.0 {
                return Err(format!(
                    "model parameter {name} must be a finite number of at least 0"
                ));
            }
        }
        for (name, v) in [("p_min", self.p_min), ("p_max", self.p_max)] {
            if v > 1.0 {
                return Err(format!("model parameter {name} must be at most 1"));
            }
        }
        if self.p_min > self.p_max {
            return Err("model parameter p_min must not exceed p_max".into());
        }
        let sum = w.near + w.desert + w.nile + w.off_board;
        if (sum - 1.0).abs() > 1e-9 {
            return Err(format!("the miss_weights must sum to 1, not {sum}"));
        }
        Ok(())
    }
}

/// Everything the engine reads from `data/cairo/`.
#[derive(Debug, Clone, PartialEq)]
pub struct CairoData {
    pub board: Board,
    pub pieces: Pieces,
    /// Pyramid size (small cubes) → cubes per floor, bottom first.
    pub shapes: BTreeMap<u32, Vec<u32>>,
    /// The default simulated model.
    pub model: FlickModel,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BoardFile {
    #[allow(dead_code)]
    placeholder: bool,
    #[allow(dead_code)]
    source: String,
    #[allow(dead_code)]
    note: String,
    start: String,
    track: Vec<TrackSpace>,
    zones: Vec<Zone>,
    parcels: Vec<Parcel>,
    #[serde(default)]
    parcel_neighbours: Option<BTreeMap<String, Vec<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PiecesFile {
    #[allow(dead_code)]
    placeholder: bool,
    #[allow(dead_code)]
    source: String,
    #[allow(dead_code)]
    note: String,
    colours: Vec<String>,
    small_cubes: u32,
    large_cubes: u32,
    dice: u32,
    small_influence: i64,
    large_influence: i64,
    die_faces: u8,
    movement_die_faces: u8,
    fingers_by_roll: Vec<RollFinger>,
    small_per_delivery: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PyramidsFile {
    #[allow(dead_code)]
    placeholder: bool,
    #[allow(dead_code)]
    source: String,
    #[allow(dead_code)]
    note: String,
    shapes: BTreeMap<String, Vec<u32>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ModelFile {
    #[allow(dead_code)]
    placeholder: bool,
    #[allow(dead_code)]
    source: String,
    #[allow(dead_code)]
    note: String,
    finger_base: FingerTable,
    material_factor: MaterialTable,
    zone_penalty: f64,
    p_min: f64,
    p_max: f64,
    miss_weights: MissWeights,
}

/// Words an id may not take, because landings and locations are named by id.
pub const RESERVED_IDS: [&str; 2] = ["nile", "off_board"];

fn parse<T: for<'de> Deserialize<'de>>(name: &str, text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| format!("cairo/{name} does not parse: {e}"))
}

fn file<'a>(files: &[(&'a str, &'a str)], name: &str) -> Result<&'a str, String> {
    files
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, c)| *c)
        .ok_or_else(|| format!("cairo/{name} is missing"))
}

/// Parses and checks the four data files.
pub fn load(files: &[(&str, &str)]) -> Result<CairoData, String> {
    let board: BoardFile = parse("board.json", file(files, "board.json")?)?;
    let pieces: PiecesFile = parse("pieces.json", file(files, "pieces.json")?)?;
    let pyramids: PyramidsFile = parse("pyramids.json", file(files, "pyramids.json")?)?;
    let model: ModelFile = parse("model.json", file(files, "model.json")?)?;

    let board = check_board(board)?;
    let p = pieces;
    let pieces = Pieces {
        colours: p.colours,
        small_cubes: p.small_cubes,
        large_cubes: p.large_cubes,
        dice: p.dice,
        small_influence: p.small_influence,
        large_influence: p.large_influence,
        die_faces: p.die_faces,
        movement_die_faces: p.movement_die_faces,
        fingers_by_roll: p.fingers_by_roll,
        small_per_delivery: p.small_per_delivery,
    };
    check_pieces(&pieces, "cairo/pieces.json", 5)?;

    let mut shapes = BTreeMap::new();
    for (key, floors) in pyramids.shapes {
        let size: u32 = key
            .parse()
            .map_err(|_| format!("cairo/pyramids.json: size {key:?} is not a number"))?;
        shapes.insert(size, floors);
    }
    check_shapes(&shapes, "cairo/pyramids.json")?;

    let model = FlickModel {
        finger_base: model.finger_base,
        material_factor: model.material_factor,
        zone_penalty: model.zone_penalty,
        p_min: model.p_min,
        p_max: model.p_max,
        miss_weights: model.miss_weights,
    };
    model
        .check()
        .map_err(|e| format!("cairo/model.json: {e}"))?;
    Ok(CairoData {
        board,
        pieces,
        shapes,
        model,
    })
}

/// Checks pyramid shapes (size → cubes per floor, bottom first); `source` says
/// where they were given, for the message.
pub fn check_shapes(shapes: &BTreeMap<u32, Vec<u32>>, source: &str) -> Result<(), String> {
    for (size, floors) in shapes {
        let sum: u32 = floors.iter().sum();
        if *size == 0 || sum != *size || floors.contains(&0) {
            return Err(format!(
                "{source}: the floors of size {size} must be positive and sum to {size}"
            ));
        }
    }
    if shapes.is_empty() {
        return Err(format!("{source}: no pyramid shape"));
    }
    Ok(())
}

/// Checks the pieces, with colours for at least `seats` seats; `source` says
/// where they were given, for the message.
pub fn check_pieces(p: &Pieces, source: &str, seats: usize) -> Result<(), String> {
    let err = |m: &str| Err(format!("{source}: {m}"));
    if p.colours.len() < seats {
        return err(&format!(
            "at least {seats} colours are needed (one per seat)"
        ));
    }
    let distinct: BTreeSet<&String> = p.colours.iter().collect();
    if distinct.len() != p.colours.len() || p.colours.iter().any(|c| c.is_empty()) {
        return err("colours must be distinct and non-empty");
    }
    if p.colours.iter().any(|c| c.contains('-') || c.contains(':')) {
        return err("a colour may not contain '-' or ':'");
    }
    if p.small_cubes + p.large_cubes + p.dice == 0 {
        return err("a player needs at least one stone");
    }
    if p.die_faces == 0 || p.movement_die_faces == 0 {
        return err("dice need at least one face");
    }
    if p.fingers_by_roll.len() != usize::from(p.movement_die_faces) {
        return err("fingers_by_roll needs one entry per face of the movement die");
    }
    if p.small_per_delivery == 0 {
        return err("small_per_delivery must be at least 1");
    }
    if p.small_influence < 0 || p.large_influence < 0 {
        return err("influences must not be negative");
    }
    Ok(())
}

fn check_board(b: BoardFile) -> Result<Board, String> {
    let err = |m: String| Err(format!("cairo/board.json: {m}"));
    let mut ids: BTreeSet<String> = RESERVED_IDS.iter().map(|s| s.to_string()).collect();
    let mut claim = |id: &str| -> Result<(), String> {
        if id.is_empty() || id.len() > 12 || id.contains(':') {
            return Err(format!(
                "cairo/board.json: id {id:?} must have 1 to 12 characters and no ':'"
            ));
        }
        if !ids.insert(id.to_owned()) {
            return Err(format!(
                "cairo/board.json: id {id:?} is used twice or is reserved"
            ));
        }
        Ok(())
    };
    claim(&b.start)?;
    for z in &b.zones {
        claim(&z.id)?;
    }
    for t in &b.track {
        claim(&t.id)?;
    }
    for p in &b.parcels {
        claim(&p.id)?;
    }
    let zone_ids: BTreeSet<&str> = b.zones.iter().map(|z| z.id.as_str()).collect();
    if zone_ids.is_empty() {
        return err("no zone".into());
    }
    // Up to five boats: the cycle needs room for all of them and more.
    if b.track.len() < 6 {
        return err("the track needs at least 6 spaces".into());
    }
    if !b.track.iter().any(|t| t.action == SpaceAction::Deliver) {
        return err("the track needs a deliver space".into());
    }
    let mut track = b.track;
    for t in &mut track {
        if !zone_ids.contains(t.zone.as_str()) {
            return err(format!("space {} faces unknown zone {}", t.id, t.zone));
        }
        match t.action {
            SpaceAction::Retrieve => {
                if t.retrieve_zones.is_empty() {
                    t.retrieve_zones = vec![t.zone.clone()];
                }
                for z in &t.retrieve_zones {
                    if !zone_ids.contains(z.as_str()) {
                        return err(format!("space {} retrieves from unknown zone {z}", t.id));
                    }
                }
            }
            SpaceAction::Deliver => {
                if !t.retrieve_zones.is_empty() {
                    return err(format!("deliver space {} has retrieve_zones", t.id));
                }
            }
        }
    }
    if b.parcels.is_empty() {
        return err("no parcel".into());
    }
    for p in &b.parcels {
        if !zone_ids.contains(p.zone.as_str()) {
            return err(format!("parcel {} lies in unknown zone {}", p.id, p.zone));
        }
        if p.high < 0 || p.low < 0 {
            return err(format!("parcel {} has a negative value", p.id));
        }
    }
    let parcel_ids: BTreeSet<&str> = b.parcels.iter().map(|p| p.id.as_str()).collect();
    let zone_index: BTreeMap<&str, i64> =
        b.zones.iter().map(|z| (z.id.as_str(), z.index)).collect();
    let mut neighbours = BTreeMap::new();
    match b.parcel_neighbours {
        Some(given) => {
            for (id, list) in &given {
                if !parcel_ids.contains(id.as_str()) {
                    return err(format!("parcel_neighbours names unknown parcel {id}"));
                }
                for n in list {
                    if !parcel_ids.contains(n.as_str()) || n == id {
                        return err(format!("parcel_neighbours of {id} names {n}"));
                    }
                }
            }
            for p in &b.parcels {
                let mut list: Vec<String> = given.get(&p.id).cloned().unwrap_or_default();
                list.sort();
                list.dedup();
                neighbours.insert(p.id.clone(), list);
            }
        }
        None => {
            for p in &b.parcels {
                let zi = zone_index.get(p.zone.as_str()).copied().unwrap_or(0);
                let mut list: Vec<String> = b
                    .parcels
                    .iter()
                    .filter(|q| q.id != p.id)
                    .filter(|q| {
                        let qi = zone_index.get(q.zone.as_str()).copied().unwrap_or(0);
                        (qi - zi).abs() <= 1
                    })
                    .map(|q| q.id.clone())
                    .collect();
                list.sort();
                neighbours.insert(p.id.clone(), list);
            }
        }
    }
    Ok(Board {
        start: b.start,
        track,
        zones: b.zones,
        parcels: b.parcels,
        parcel_neighbours: neighbours,
    })
}
