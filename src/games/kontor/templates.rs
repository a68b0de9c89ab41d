//! The templates Kontor's `legal` lists, typed for the API's schema.

use serde::Deserialize;
use utoipa::ToSchema;

use super::{CellType, Coord};
use crate::games::Seat;
use crate::games::legal::TemplateMark;

/// A legal move with parameters to fill in: one value from each plural list;
/// a singular field is given as it is.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum KontorTemplate {
    /// Placing the revealed card: `cell` one of `cells`, `ship_to` one of
    /// `ship_tos` when listed; `as`, `remove` and `recipient_seat` as given.
    Place {
        template: TemplateMark,
        cells: Vec<Coord>,
        #[serde(rename = "as", default)]
        as_type: Option<CellType>,
        #[serde(default)]
        ship_tos: Option<Vec<Coord>>,
        #[serde(default)]
        remove: Option<Coord>,
        #[serde(default)]
        recipient_seat: Option<Seat>,
    },
}
