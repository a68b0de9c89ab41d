//! The templates Cairo's `legal` lists, typed for the API's schema.

use serde::Deserialize;
use utoipa::ToSchema;

use super::{Finger, Material, StoneLocation};
use crate::games::legal::{IntRange, Subset, TemplateMark};

/// A legal move with parameters to fill in: one value from each plural list
/// (`parcels` gives `parcel`), one integer from each range, a subset from each
/// `subset_of`; a singular field is given as it is.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum CairoTemplate {
    /// The movement roll thrown at the table.
    Roll {
        template: TemplateMark,
        value: IntRange,
    },
    /// Simulated mode on an `any` roll: a material and a finger.
    ChooseMaterial {
        template: TemplateMark,
        materials: Vec<Material>,
        fingers: Vec<Finger>,
    },
    /// Simulated mode: the target parcel.
    Aim {
        template: TemplateMark,
        parcels: Vec<String>,
    },
    /// Closing a flick report: the landing, a die's face where it shows one,
    /// and whether the own boat was knocked over.
    Report {
        template: TemplateMark,
        landings: Vec<String>,
        #[serde(default)]
        face: Option<IntRange>,
        boat_knocked_overs: Vec<bool>,
    },
    /// Drafting a report: this stone moved to one of `tos`.
    Displace {
        template: TemplateMark,
        owner: String,
        stone: Material,
        from: StoneLocation,
        tos: Vec<String>,
        #[serde(default)]
        face: Option<IntRange>,
    },
    /// Drafting a report: a standing pyramid toppled.
    Topple {
        template: TemplateMark,
        pyramid_ids: Vec<String>,
    },
    /// Building a pyramid of `size` on `parcel` from loose cubes, bottom floor first.
    Build {
        template: TemplateMark,
        parcel: String,
        size: u32,
        cubes: Subset,
    },
    /// Taking back own desert stones (possibly none).
    Retrieve {
        template: TemplateMark,
        stones: Subset,
    },
    /// The next group of a tie, nearest first.
    OrderTie {
        template: TemplateMark,
        parcel: String,
        group: Subset,
    },
}
