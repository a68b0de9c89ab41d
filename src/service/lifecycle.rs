//! What every step of a match's life shares: its statuses, its forfeited seats, its
//! seed, and the recording of its events. Creation, moves, deadlines, absences and
//! replays all use these; none of them owns them.

use chrono::{DateTime, Utc};
use sea_orm::DatabaseTransaction;

use crate::games::rng::Seed;
use crate::games::{Audience, Event};
use crate::service::error::{Error, Result};
use crate::service::timing::FORFEITED;
use crate::store;
use crate::store::entities::{match_seats, matches};
use crate::store::move_write::NewEvent;

pub const WAITING: &str = "waiting";
pub const ACTIVE: &str = "active";
pub const FINISHED: &str = "finished";
pub const ABORTED: &str = "aborted";

pub(super) fn forfeited_seats(seats: &[match_seats::Model]) -> Vec<usize> {
    seats
        .iter()
        .filter(|s| s.presence == FORFEITED)
        .map(|s| s.seat as usize)
        .collect()
}

pub(super) fn not_found() -> Error {
    Error::not_found("match_not_found", "No match has that id.")
}

pub(super) fn seed_of(m: &matches::Model) -> Result<Seed, Error> {
    m.seed
        .as_slice()
        .try_into()
        .map_err(|_| Error::internal("stored seed is not 32 bytes"))
}

/// Stores events of a match at its current version.
pub(super) async fn record_events(
    tx: &DatabaseTransaction,
    m: &matches::Model,
    events: &[Event],
    now: DateTime<Utc>,
) -> Result<(), Error> {
    Ok(store::moves::insert_events(tx, &event_rows(m, events, now)).await?)
}

/// The rows of events of a match at its current version.
pub(super) fn event_rows(
    m: &matches::Model,
    events: &[Event],
    now: DateTime<Utc>,
) -> Vec<NewEvent> {
    events
        .iter()
        .map(|e| NewEvent {
            match_id: m.id,
            version: m.version,
            audience_seat: match e.audience {
                Audience::Public => None,
                Audience::Seat(s) => Some(s as i32),
            },
            kind: e.kind.clone(),
            data: e.data.to_string(),
            created_at: now,
        })
        .collect()
}
