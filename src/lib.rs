//! Sealed Orders: a play-by-API server for board games played with sealed moves.

pub mod api;
#[cfg(test)]
mod architecture;
pub mod auth;
pub mod config;
pub mod cors;
pub mod errors;
pub mod games;
pub mod i18n;
pub mod metrics;
pub mod network;
pub mod openapi;
pub mod ratelimit;
pub mod service;
pub mod simulate;
pub mod startup;
pub mod store;
pub mod telemetry;
