//! The simulated flick model of spec §9 (a digital adaptation, not the original
//! game) and the uniform draw `u()` every random number of Cairo comes from.
//!
//! `u()` is `k / 2^53` with `k = rng.below(2^53)`: a uniform number in [0, 1) with
//! 53 bits, exact as an f64. `floor(n · u)` is computed exactly in integers as
//! `(n · k) >> 53`, so a replay never depends on floating-point rounding.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::data::{Board, Finger, FlickModel};
use crate::games::rng::GameRng;

const BITS: u32 = 53;
const SCALE: f64 = (1u64 << BITS) as f64;

/// One uniform draw `u` in [0, 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw(u64);

impl Draw {
    /// The draw as a number in [0, 1).
    pub fn value(self) -> f64 {
        self.0 as f64 / SCALE
    }
    /// `floor(n · u)`, exactly.
    pub fn scale(self, n: u64) -> u64 {
        ((u128::from(self.0) * u128::from(n)) >> BITS) as u64
    }
    /// The draw nearest below `x` (tests and worked examples).
    #[cfg(test)]
    pub fn from_unit(x: f64) -> Self {
        Draw(((x.clamp(0.0, 1.0) * SCALE) as u64).min((1u64 << BITS) - 1))
    }
}

/// A source of uniform draws: the match RNG, or a script in tests.
pub trait Uniform {
    fn draw(&mut self) -> Draw;
}

impl Uniform for GameRng {
    fn draw(&mut self) -> Draw {
        Draw(self.below(1u64 << BITS))
    }
}

/// `1 + floor(faces · u)`: a die roll.
pub fn roll_die(src: &mut impl Uniform, faces: u8) -> u8 {
    let d = src.draw();
    // scale(faces) < faces <= 255, so the sum fits.
    1 + d.scale(u64::from(faces)) as u8
}

/// The material of a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Material {
    Small,
    Large,
    Die,
}

impl Material {
    pub fn name(self) -> &'static str {
        match self {
            Material::Small => "small",
            Material::Large => "large",
            Material::Die => "die",
        }
    }
}

/// Where a simulated miss went (spec §9.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MissKind {
    Near,
    Desert,
    Nile,
    OffBoard,
}

/// Everything a simulated flick drew and decided, for the event and the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SimFlick {
    pub target: String,
    pub finger: Finger,
    pub material: Material,
    pub dzone: i64,
    pub p: f64,
    pub u_hit: f64,
    pub hit: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u_kind: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub miss: Option<MissKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u_near: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub u_face: Option<f64>,
    /// A parcel id, a zone id (its desert), `nile` or `off_board`.
    pub landing: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub face: Option<u8>,
}

/// `p = clamp(finger_base × material_factor − zone_penalty × Δzone, p_min, p_max)`.
pub fn hit_probability(model: &FlickModel, finger: Finger, material: Material, dzone: i64) -> f64 {
    let factor = match material {
        Material::Small => model.material_factor.small,
        Material::Large => model.material_factor.large,
        Material::Die => model.material_factor.die,
    };
    let raw = model.finger_base.get(finger) * factor - model.zone_penalty * dzone as f64;
    raw.max(model.p_min).min(model.p_max)
}

fn zone_index(board: &Board, zone: &str) -> i64 {
    board
        .zones
        .iter()
        .find(|z| z.id == zone)
        .map(|z| z.index)
        .unwrap_or(0)
}

/// Resolves one simulated flick, drawing in the order of spec §9.1:
/// `u_hit`; on a miss `u_kind`; on a near miss `u_near`; for a die that landed on
/// a parcel or in a desert `u_face`. A near miss whose target has no neighbours
/// becomes a desert miss and draws no `u_near`.
#[allow(clippy::too_many_arguments)]
pub fn resolve_flick(
    model: &FlickModel,
    board: &Board,
    boat_zone: &str,
    target: &str,
    finger: Finger,
    material: Material,
    die_faces: u8,
    src: &mut impl Uniform,
) -> SimFlick {
    let target_zone = board
        .parcels
        .iter()
        .find(|p| p.id == target)
        .map(|p| p.zone.clone())
        .unwrap_or_default();
    let dzone = (zone_index(board, boat_zone) - zone_index(board, &target_zone)).abs();
    let p = hit_probability(model, finger, material, dzone);
    let u_hit = src.draw().value();
    let hit = u_hit < p;
    let mut flick = SimFlick {
        target: target.to_owned(),
        finger,
        material,
        dzone,
        p,
        u_hit,
        hit,
        u_kind: None,
        miss: None,
        u_near: None,
        u_face: None,
        landing: target.to_owned(),
        face: None,
    };
    if !hit {
        let u_kind = src.draw().value();
        flick.u_kind = Some(u_kind);
        let w = &model.miss_weights;
        let mut kind = if u_kind < w.near {
            MissKind::Near
        } else if u_kind < w.near + w.desert {
            MissKind::Desert
        } else if u_kind < w.near + w.desert + w.nile {
            MissKind::Nile
        } else {
            MissKind::OffBoard
        };
        let neighbours = board
            .parcel_neighbours
            .get(target)
            .cloned()
            .unwrap_or_default();
        if kind == MissKind::Near && neighbours.is_empty() {
            kind = MissKind::Desert;
        }
        flick.miss = Some(kind);
        flick.landing = match kind {
            MissKind::Near => {
                let d = src.draw();
                flick.u_near = Some(d.value());
                let i = d.scale(neighbours.len() as u64) as usize;
                neighbours.get(i).cloned().unwrap_or_default()
            }
            MissKind::Desert => target_zone.clone(),
            MissKind::Nile => "nile".to_owned(),
            MissKind::OffBoard => "off_board".to_owned(),
        };
    }
    let on_land = !matches!(flick.miss, Some(MissKind::Nile | MissKind::OffBoard));
    if material == Material::Die && on_land {
        let d = src.draw();
        flick.u_face = Some(d.value());
        flick.face = Some(1 + d.scale(u64::from(die_faces)) as u8);
    }
    flick
}
