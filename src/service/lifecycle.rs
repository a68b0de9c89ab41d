//! What every step of a match's life shares: its statuses, its forfeited seats, its
//! seed, and the recording of its events. Creation, moves, deadlines, absences and
//! replays all use these; none of them owns them.

use chrono::{DateTime, Utc};
use sea_orm::ActiveValue::{NotSet, Set};
use sea_orm::DatabaseTransaction;

use super::timing::FORFEITED;
use crate::errors::ApiError;
use crate::games::rng::Seed;
use crate::games::{Audience, Event};
use crate::store;
use crate::store::entities::{events, match_seats, matches};

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

pub(super) fn not_found() -> ApiError {
    ApiError::not_found("match_not_found", "No match has that id.")
}

pub(super) fn seed_of(m: &matches::Model) -> Result<Seed, ApiError> {
    m.seed
        .as_slice()
        .try_into()
        .map_err(|_| ApiError::internal("stored seed is not 32 bytes"))
}

/// Stores events of a match at its current version.
pub(super) async fn record_events(
    tx: &DatabaseTransaction,
    m: &matches::Model,
    events: &[Event],
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    Ok(store::insert_events(tx, event_rows(m, events, now)).await?)
}

/// The rows of events of a match at its current version.
pub(super) fn event_rows(
    m: &matches::Model,
    events: &[Event],
    now: DateTime<Utc>,
) -> Vec<events::ActiveModel> {
    events
        .iter()
        .map(|e| events::ActiveModel {
            id: NotSet,
            match_id: Set(m.id),
            version: Set(m.version),
            audience_seat: Set(match e.audience {
                Audience::Public => None,
                Audience::Seat(s) => Some(s as i32),
            }),
            kind: Set(e.kind.clone()),
            data: Set(e.data.to_string()),
            created_at: Set(now),
            tx: NotSet,
        })
        .collect()
}
