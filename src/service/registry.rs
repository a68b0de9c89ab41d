//! The games this server hosts: one line each. The only game-specific code
//! outside `src/games/`.

use crate::games::{DynGame, Erased};

/// Every hosted game, in catalogue order.
pub fn all_games() -> Vec<Box<dyn DynGame>> {
    vec![Box::new(Erased::<crate::games::malacca::Malacca>::new())]
}
