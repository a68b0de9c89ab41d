//! The games this server hosts: one line each. The only game-specific code
//! outside `src/games/`.

use crate::games::{DynGame, Erased, cairo, heretics, kontor, malacca};

/// Every hosted game, in catalogue order.
pub fn all_games() -> Vec<Box<dyn DynGame>> {
    vec![
        Box::new(Erased::<malacca::Malacca>::new()),
        Box::new(Erased::<heretics::Heretics>::new()),
        Box::new(Erased::<kontor::Kontor>::new()),
        Box::new(Erased::<cairo::Cairo>::new()),
    ]
}
