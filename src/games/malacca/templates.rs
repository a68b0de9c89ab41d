//! The templates Malacca's `legal` lists, typed for the API's schema.

use serde::Deserialize;
use utoipa::ToSchema;

use super::Card;
use crate::games::legal::{IntRange, TemplateMark};

/// A legal move with parameters to fill in: one value from each plural list,
/// one integer from each range.
#[derive(Debug, Clone, PartialEq, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum MalaccaTemplate {
    /// Betting: `card` one of `cards` (face down), `stake` within the range
    /// (0 to the seat's coins).
    Play {
        template: TemplateMark,
        cards: Vec<Card>,
        stake: IntRange,
    },
}
