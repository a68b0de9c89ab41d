//! Sealed Orders: a play-by-API server for board games played with sealed moves.

pub mod games;
