//! Pure, deterministic rules engines: no database, no clock, no global RNG, no actix.

mod core;
pub mod legal;
pub mod rng;

#[cfg(test)]
mod checks;
#[cfg(test)]
mod contract_tests;

pub use self::core::*;
pub mod cairo;
pub mod heretics;
pub mod kontor;
pub mod malacca;
