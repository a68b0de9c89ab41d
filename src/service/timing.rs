//! Deadlines, derived rather than stored per seat: every seat owing a move in the
//! current step must move by `step_started_at` plus its limit — the game's own
//! limit for the step, the match's `move_time_limit` (shorter while the seat is
//! absent), or none. Seats played by a bot or forfeited are due at once. The match
//! row keeps only the earliest of them, which is what the poller looks for.

use chrono::{DateTime, Duration, Utc};

use crate::store::entities::{match_seats, matches};

pub const PRESENT: &str = "present";
pub const ABSENT: &str = "absent";
pub const FORFEITED: &str = "forfeited";

pub const POLICY_BOT: &str = "bot";
pub const POLICY_FORFEIT: &str = "forfeit";

/// The default of `absent_move_time_limit`, in seconds.
pub const DEFAULT_ABSENT_LIMIT: i32 = 10;

/// Why a seat's deadline falls when it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Due {
    /// The game's own limit for the step (Cairo: confirming a report): the seat
    /// plays its null move and is not marked absent.
    Rule,
    /// The seat's own time per move ran out: the match's timeout policy applies.
    Player,
    /// A bot plays the seat, or it forfeited: its move is due at once.
    Now,
}

/// When `seat` must have moved in the current step, and why; None when nothing
/// limits it. `rule_limit` is the game's limit for the step in seconds.
pub fn seat_deadline(
    m: &matches::Model,
    seat: &match_seats::Model,
    rule_limit: Option<u64>,
) -> Option<(DateTime<Utc>, Due)> {
    let start = m.step_started_at?;
    if seat.bot.is_some() || seat.presence == FORFEITED {
        return Some((start, Due::Now));
    }
    let own = m.move_time_limit.map(|limit| {
        if seat.presence == ABSENT {
            limit.min(m.absent_move_time_limit.unwrap_or(DEFAULT_ABSENT_LIMIT))
        } else {
            limit
        }
    });
    let rule = rule_limit.map(|r| i64::try_from(r).unwrap_or(i64::MAX));
    let (secs, due) = match (rule, own) {
        (Some(r), Some(o)) if i64::from(o) < r => (i64::from(o), Due::Player),
        (Some(r), _) => (r, Due::Rule),
        (None, Some(o)) => (i64::from(o), Due::Player),
        (None, None) => return None,
    };
    Some((
        start + Duration::seconds(secs.min(10 * 365 * 24 * 3600)),
        due,
    ))
}

/// The earliest deadline of the seats in `awaiting`: what the match row keeps.
pub fn next_deadline(
    m: &matches::Model,
    seats: &[match_seats::Model],
    awaiting: &[usize],
    rule_limit: Option<u64>,
) -> Option<DateTime<Utc>> {
    awaiting
        .iter()
        .filter_map(|s| seats.iter().find(|row| row.seat as usize == *s))
        .filter_map(|row| seat_deadline(m, row, rule_limit).map(|(at, _)| at))
        .min()
}
