//! Deadlines, derived rather than stored per seat: every seat owing a move in the
//! current step must move by `step_started_at` plus its limit — the game's own
//! limit for the step, the match's `move_time_limit` (shorter while the seat is
//! absent), or none. Seats played by a bot or forfeited are due at once. The match
//! row keeps only the earliest of them, which is what the poller looks for.
//!
//! With a bank time control each seat's deadline is when it was asked plus its
//! bank; the bank and the instants it is charged from (asked, moved) are stored
//! on the seat's row, so every replica, and a restarted one, derives the same.

use chrono::{DateTime, Duration, Utc};

use crate::games::Event;
use crate::service::playing_hours::{PlayingHours, Span, counted_ms, runs_out};
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

/// The longest any deadline reaches ahead (ten years): no limit, however
/// large, may overflow the time it is added to.
const FURTHEST: i64 = 10 * 365 * 24 * 3600;

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
    let absent_ms = (seat.presence == ABSENT)
        .then(|| i64::from(m.absent_move_time_limit.unwrap_or(DEFAULT_ABSENT_LIMIT)) * 1000);
    let own = match Bank::of(m) {
        Some(bank) => {
            // The seat's own bank, counted from when it was asked, within the
            // match's playing hours if it keeps any.
            let held = seat.bank_ms.unwrap_or(bank.initial_ms);
            let asked = seat.asked_at.unwrap_or(start);
            let due = runs_out(
                bank.hours.as_ref(),
                away(seat),
                asked,
                held.min(FURTHEST * 1000),
            );
            // An absent seat's limit is a bot's moment to move, not a
            // person's thinking time: it runs at any hour.
            let absent = absent_ms.map(|a| runs_out(None, away(seat), asked, a));
            Some(absent.map_or(due, |a| a.min(due)))
        }
        None => m.move_time_limit.map(|limit| {
            let ms = absent_ms.map_or(i64::from(limit) * 1000, |a| {
                (i64::from(limit) * 1000).min(a)
            });
            let ms = ms.saturating_add(extension_ms(m, seat));
            runs_out(None, away(seat), start, ms.min(FURTHEST * 1000))
        }),
    };
    let rule = rule_limit
        .map(|r| start + Duration::seconds(i64::try_from(r).unwrap_or(i64::MAX).min(FURTHEST)));
    match (rule, own) {
        (Some(r), Some(o)) if o < r => Some((o, Due::Player)),
        (Some(r), _) => Some((r, Due::Rule)),
        (None, Some(o)) => Some((o, Due::Player)),
        (None, None) => None,
    }
}

/// The milliseconds of `[from, to)` the seat's player spent on vacation, when
/// its clock stood.
fn paused_ms(seat: &match_seats::Model, from: DateTime<Utc>, to: DateTime<Utc>) -> i64 {
    match (seat.away_from, seat.away_until) {
        (Some(a), Some(b)) => (b.min(to) - a.max(from)).num_milliseconds().max(0),
        _ => 0,
    }
}

/// The seat's player's vacation, while its clock stands.
fn away(seat: &match_seats::Model) -> Option<Span> {
    seat.away_from.zip(seat.away_until)
}

/// The time given to `seat` for the match's current step (per-move clocks).
fn extension_ms(m: &matches::Model, seat: &match_seats::Model) -> i64 {
    if seat.extension_step == Some(m.step) {
        seat.extension_ms.unwrap_or(0).max(0)
    } else {
        0
    }
}

/// Gives `seat` `ms` more time for the move it owes: into its bank when the
/// match plays with one (a bank is the seat's own time, as on a chess clock;
/// what lies above the cap is cut with its next increment, as any time
/// there), or else on top of the current step's limit.
pub fn extend(m: &matches::Model, seat: &mut match_seats::Model, ms: i64) {
    match Bank::of(m) {
        Some(bank) => {
            let held = seat.bank_ms.unwrap_or(bank.initial_ms);
            seat.bank_ms = Some(held.saturating_add(ms).min(FURTHEST * 1000));
        }
        None => {
            let given = extension_ms(m, seat).saturating_add(ms);
            seat.extension_ms = Some(given.min(FURTHEST * 1000));
            seat.extension_step = Some(m.step);
        }
    }
}

/// Sets the player's vacation `[from, until)` on `seat`, first folding the
/// vacation it replaces into the seat's clock so that none of that time is
/// charged either: a bank's ask moves on by it, a per-move step's limit grows
/// by it.
pub fn set_away(
    m: &matches::Model,
    seat: &mut match_seats::Model,
    from: DateTime<Utc>,
    until: DateTime<Utc>,
) {
    if seat.away_from.is_some() {
        let now = from;
        match Bank::of(m) {
            Some(bank) => {
                // The bank as the clock left it so far, under the vacation
                // being replaced; it runs on from there.
                if let Some(asked) = seat.asked_at {
                    let end = seat.moved_at.unwrap_or(now);
                    let held = seat.bank_ms.unwrap_or(bank.initial_ms);
                    seat.bank_ms = Some(held.saturating_sub(bank.counted(seat, asked, end)).max(0));
                    seat.asked_at = Some(end);
                }
            }
            None => {
                if let Some(start) = m.step_started_at {
                    let ms = paused_ms(seat, start, now);
                    let given = extension_ms(m, seat).saturating_add(ms);
                    seat.extension_ms = Some(given.min(FURTHEST * 1000));
                    seat.extension_step = Some(m.step);
                }
            }
        }
    }
    seat.away_from = Some(from);
    seat.away_until = Some(until);
}

/// The public `seat_extended` event of time given to `seat` (by another
/// seat, or by a grace when `by` is none), with the deadline it has now.
pub fn extended_event(
    m: &matches::Model,
    seat: &match_seats::Model,
    rule_limit: Option<u64>,
    seconds: i64,
    by: Option<i32>,
) -> Event {
    Event::public(
        "seat_extended",
        serde_json::json!({
            "seat": seat.seat,
            "seconds": seconds,
            "by": by,
            "graces_left": m.grace_extensions.is_some().then(|| graces_left(m, seat)),
            "deadline": seat_deadline(m, seat, rule_limit).map(|(at, _)| at),
        }),
    )
}

/// How many of the match's grace extensions `seat` has left.
pub fn graces_left(m: &matches::Model, seat: &match_seats::Model) -> i32 {
    (m.grace_extensions.unwrap_or(0) - seat.graces_used.unwrap_or(0)).max(0)
}

/// A match's bank time control, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bank {
    pub initial_ms: i64,
    pub increment_ms: i64,
    pub cap_ms: i64,
    /// The hours of the day the banks run, if the match keeps any.
    pub hours: Option<PlayingHours>,
}

impl Bank {
    /// The match's bank, if it plays with one.
    pub fn of(m: &matches::Model) -> Option<Bank> {
        let initial = i64::from(m.bank_initial_seconds?) * 1000;
        Some(Bank {
            initial_ms: initial,
            increment_ms: i64::from(m.bank_increment_seconds.unwrap_or(0)) * 1000,
            cap_ms: m
                .bank_cap_seconds
                .map_or(initial, |c| i64::from(c) * 1000)
                .max(initial),
            hours: PlayingHours::of(
                m.playing_hours_zone.as_deref(),
                m.playing_hours_from,
                m.playing_hours_to,
            ),
        })
    }

    /// Milliseconds of `seat`'s thinking time in `[from, to)`: within the
    /// playing hours, and not while its player is on vacation.
    pub fn counted(
        &self,
        seat: &match_seats::Model,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> i64 {
        counted_ms(self.hours.as_ref(), away(seat), from, to)
    }

    /// A bank of `held` after a move that took `spent`: the time taken off (a
    /// bank never goes below nothing, even for a move that came in after its
    /// deadline and before the poller), then the increment, up to the cap.
    pub fn after_move(&self, held: i64, spent: Duration) -> i64 {
        let spent = spent.num_milliseconds().max(0);
        (held.saturating_sub(spent).max(0) + self.increment_ms).min(self.cap_ms)
    }

    /// `seat`'s bank at `now`, in milliseconds: while it owes a move, its bank
    /// less the time since it was asked; once it moved in a step still open
    /// (a sealed step before its reveal), its bank as that move leaves it.
    pub fn remaining(&self, seat: &match_seats::Model, now: DateTime<Utc>) -> i64 {
        let held = seat.bank_ms.unwrap_or(self.initial_ms);
        match (seat.asked_at, seat.moved_at) {
            (Some(asked), Some(moved)) => self.after_move(
                held,
                Duration::milliseconds(self.counted(seat, asked, moved)),
            ),
            (Some(asked), None) => held.saturating_sub(self.counted(seat, asked, now)).max(0),
            (None, _) => held,
        }
    }

    /// Every seat's bank as the match starts at `now`: full, and the seats in
    /// `awaiting` asked.
    pub fn start(&self, seats: &mut [match_seats::Model], awaiting: &[usize], now: DateTime<Utc>) {
        for s in seats.iter_mut() {
            s.bank_ms = Some(self.initial_ms);
            s.moved_at = None;
            s.asked_at = awaiting.contains(&(s.seat as usize)).then_some(now);
        }
    }

    /// Charges the banks for a move of `seat` at `now`, answering the indices
    /// of the seats whose bank columns changed. A move is only noted when its
    /// step goes on (a sealed step awaiting others: a replacement notes its
    /// own time again); when the step is complete every seat that moved in it
    /// is charged its own thinking time, gets the increment, and the seats in
    /// `next` (the next step's awaited seats, if the match goes on) are asked.
    pub fn charge(
        &self,
        seats: &mut [match_seats::Model],
        seat: usize,
        now: DateTime<Utc>,
        next: Option<&[usize]>,
    ) -> Vec<usize> {
        let mut changed = Vec::new();
        if let Some(i) = seats.iter().position(|s| s.seat as usize == seat) {
            let s = &mut seats[i];
            // A seat never asked (a match begun before it had banks) is
            // charged nothing for this move.
            s.asked_at = s.asked_at.or(Some(now));
            s.moved_at = Some(now);
            changed.push(i);
        }
        let Some(next) = next else {
            return changed;
        };
        for (i, s) in seats.iter_mut().enumerate() {
            let asked = s.asked_at.is_some() || next.contains(&(s.seat as usize));
            if asked {
                s.bank_ms = Some(self.remaining(s, now));
                s.moved_at = None;
                s.asked_at = next.contains(&(s.seat as usize)).then_some(now);
                if !changed.contains(&i) {
                    changed.push(i);
                }
            }
        }
        changed
    }
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
