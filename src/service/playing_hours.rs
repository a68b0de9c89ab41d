//! Playing hours: a bank that runs only within the hours of the day a match
//! keeps, in its own time zone, so that nobody's clock runs while they sleep.
//!
//! Everything here is a pure function of stored instants: how much of a span
//! a clock ran (net of the player's vacation and of the hours outside play),
//! and the instant a clock that starts with some time left runs out. Both are
//! what every replica, and a restarted one, computes again from the same rows.

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;

/// A half-open span of instants, `[start, end)`.
pub type Span = (DateTime<Utc>, DateTime<Utc>);

/// Minutes in a day; `to` may be this (midnight at the day's end).
pub const DAY_MINUTES: i32 = 24 * 60;
/// The shortest playing day, in minutes: a shorter one would stretch a bank of
/// days over years.
pub const SHORTEST: i32 = 60;
/// The longest playing day, in minutes: a longer one could meet the next day's
/// across a clock change, and is no rest at all.
pub const LONGEST: i32 = 22 * 60;

/// How far ahead a clock is followed (ten years): a deadline beyond it is as
/// good as none, and no search runs longer.
const FURTHEST_DAYS: i64 = 3650;

/// The hours of each day a match's clocks run, in its time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlayingHours {
    pub zone: Tz,
    /// Minutes after local midnight the hours begin, 0 to 1439.
    pub from: i32,
    /// Minutes after local midnight they end, 1 to 1440; at or before `from`
    /// they end the next day (an evening league's 18:00 to 01:00).
    pub to: i32,
}

impl PlayingHours {
    /// The hours kept in a match's columns, if they make sense.
    pub fn of(zone: Option<&str>, from: Option<i32>, to: Option<i32>) -> Option<Self> {
        let zone = zone?.parse::<Tz>().ok()?;
        let (from, to) = (from?, to?);
        let hours = PlayingHours { zone, from, to };
        ((0..DAY_MINUTES).contains(&from) && (1..=DAY_MINUTES).contains(&to) && from != to)
            .then_some(hours)
    }

    /// Minutes of play in a day (on a day without a clock change).
    pub fn minutes(&self) -> i32 {
        (self.to - self.from).rem_euclid(DAY_MINUTES)
    }

    /// The instant `minute` minutes after the local midnight that begins
    /// `day`. A local time a clock change skips is read as the first instant
    /// after the gap; one it repeats, as its first occurrence.
    fn at(&self, day: NaiveDate, minute: i32) -> DateTime<Utc> {
        let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
        let local = midnight + Duration::minutes(i64::from(minute));
        // Gaps are an hour, in a few zones half an hour or two: three hours
        // covers every one there is.
        for skip in 0..=180 {
            let t = local + Duration::minutes(skip);
            if let Some(at) = self.zone.from_local_datetime(&t).earliest() {
                return at.with_timezone(&Utc);
            }
        }
        Utc.from_utc_datetime(&local)
    }

    /// The hours that begin on local `day`.
    fn window(&self, day: NaiveDate) -> Span {
        let end_day = if self.to <= self.from {
            day.succ_opt().unwrap_or(day)
        } else {
            day
        };
        (self.at(day, self.from), self.at(end_day, self.to))
    }

    /// Every window of play that may meet `[since, ∞)`, in order.
    fn windows_from(self, since: DateTime<Utc>) -> impl Iterator<Item = Span> {
        // The window that began the day before may still be open.
        let first = since.with_timezone(&self.zone).date_naive().pred_opt();
        first
            .into_iter()
            .flat_map(|d| d.iter_days())
            .take(usize::try_from(FURTHEST_DAYS).unwrap_or(usize::MAX) + 2)
            .map(move |d| self.window(d))
    }
}

/// The spans a clock runs in, from `since` on: within the playing hours (all
/// the time without them), less the player's vacation `away`.
fn running(
    hours: Option<&PlayingHours>,
    away: Option<Span>,
    since: DateTime<Utc>,
) -> impl Iterator<Item = Span> {
    let far = since + Duration::days(FURTHEST_DAYS);
    let windows: Box<dyn Iterator<Item = Span>> = match hours {
        Some(&h) => Box::new(h.windows_from(since)),
        None => Box::new(std::iter::once((since, far))),
    };
    windows
        .map(move |(a, b)| (a.max(since), b))
        .filter(|(a, b)| a < b)
        .flat_map(move |span| without(span, away))
}

/// `span` less `away`: none, one or two pieces.
fn without((a, b): Span, away: Option<Span>) -> impl Iterator<Item = Span> {
    let pieces = match away {
        Some((va, vb)) if va < b && vb > a => [(a, va.max(a)), (vb.min(b), b)],
        _ => [(a, b), (b, b)],
    };
    pieces.into_iter().filter(|(x, y)| x < y)
}

/// Milliseconds a clock ran in `[from, to)`.
pub fn counted_ms(
    hours: Option<&PlayingHours>,
    away: Option<Span>,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> i64 {
    if to <= from {
        return 0;
    }
    running(hours, away, from)
        .take_while(|(a, _)| *a < to)
        .map(|(a, b)| (b.min(to) - a).num_milliseconds())
        .sum()
}

/// When a clock that starts at `since` with `ms` milliseconds left runs out:
/// the instant it has run `ms`. With nothing left, that is the first instant
/// it runs (a clock standing now runs out when it starts again).
pub fn runs_out(
    hours: Option<&PlayingHours>,
    away: Option<Span>,
    since: DateTime<Utc>,
    ms: i64,
) -> DateTime<Utc> {
    let mut left = ms.max(0);
    for (a, b) in running(hours, away, since) {
        let len = (b - a).num_milliseconds();
        if len >= left {
            return a + Duration::milliseconds(left);
        }
        left -= len;
    }
    since + Duration::days(FURTHEST_DAYS)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn t(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    fn prague(from: &str, to: &str) -> PlayingHours {
        let m = |s: &str| {
            let (h, mi) = s.split_once(':').unwrap();
            h.parse::<i32>().unwrap() * 60 + mi.parse::<i32>().unwrap()
        };
        PlayingHours::of(Some("Europe/Prague"), Some(m(from)), Some(m(to))).unwrap()
    }

    const H: i64 = 3_600_000;

    #[test]
    fn without_hours_or_vacation_a_clock_is_wall_time() {
        let a = t("2026-03-01T10:00:00Z");
        assert_eq!(counted_ms(None, None, a, a + Duration::hours(5)), 5 * H);
        assert_eq!(runs_out(None, None, a, 5 * H), a + Duration::hours(5));
        assert_eq!(runs_out(None, None, a, 0), a);
    }

    #[test]
    fn a_vacation_stops_the_clock_and_moves_its_end() {
        let a = t("2026-03-01T10:00:00Z");
        let away = Some((t("2026-03-01T12:00:00Z"), t("2026-03-03T12:00:00Z")));
        assert_eq!(counted_ms(None, away, a, t("2026-03-04T00:00:00Z")), 14 * H);
        assert_eq!(runs_out(None, away, a, 3 * H), t("2026-03-03T13:00:00Z"));
        // Exactly at the vacation's start: ran out before it.
        assert_eq!(runs_out(None, away, a, 2 * H), t("2026-03-01T12:00:00Z"));
        // Asked while away, with nothing left: runs out as the player returns.
        let during = t("2026-03-02T00:00:00Z");
        assert_eq!(runs_out(None, away, during, 0), t("2026-03-03T12:00:00Z"));
    }

    #[test]
    fn only_the_playing_hours_count() {
        // 08:00–22:00 in Prague is 07:00–21:00 UTC in winter.
        let h = prague("08:00", "22:00");
        let asked = t("2026-01-10T20:00:00Z"); // 21:00 local: one hour left today
        assert_eq!(
            counted_ms(Some(&h), None, asked, t("2026-01-11T08:00:00Z")),
            2 * H
        );
        // Three hours of bank: one tonight, two the next morning.
        assert_eq!(
            runs_out(Some(&h), None, asked, 3 * H),
            t("2026-01-11T09:00:00Z")
        );
        // Asked at night: the clock starts at eight.
        let night = t("2026-01-10T23:30:00Z");
        assert_eq!(
            runs_out(Some(&h), None, night, 0),
            t("2026-01-11T07:00:00Z")
        );
        assert_eq!(
            runs_out(Some(&h), None, night, 14 * H),
            t("2026-01-11T21:00:00Z")
        );
        assert_eq!(
            runs_out(Some(&h), None, night, 15 * H),
            t("2026-01-12T08:00:00Z")
        );
    }

    #[test]
    fn hours_past_midnight_and_vacations_together() {
        // An evening league: 18:00 to 01:00 local, 7 hours a day.
        let h = prague("18:00", "01:00");
        assert_eq!(h.minutes(), 7 * 60);
        let asked = t("2026-01-10T23:30:00Z"); // 00:30 local: half an hour left
        assert_eq!(
            counted_ms(Some(&h), None, asked, t("2026-01-11T23:30:00Z")),
            7 * H
        );
        assert_eq!(
            runs_out(Some(&h), None, asked, H),
            t("2026-01-11T17:30:00Z")
        );
        // Away for the whole next evening: that evening does not count.
        let away = Some((t("2026-01-11T12:00:00Z"), t("2026-01-12T12:00:00Z")));
        assert_eq!(
            runs_out(Some(&h), away, asked, H),
            t("2026-01-12T17:30:00Z")
        );
        let ms = counted_ms(Some(&h), away, asked, t("2026-01-12T17:30:00Z"));
        assert_eq!(ms, H);
    }

    #[test]
    fn clock_changes_give_the_local_hours_their_real_length() {
        let h = prague("00:00", "04:00");
        // 29 March 2026: 02:00 becomes 03:00, so that night holds three hours.
        let day = t("2026-03-28T23:00:00Z"); // local midnight, still winter time
        assert_eq!(
            counted_ms(Some(&h), None, day, day + Duration::hours(12)),
            3 * H
        );
        // 25 October 2026: 03:00 goes back to 02:00, so that night holds five.
        let day = t("2026-10-24T22:00:00Z"); // local midnight, summer time
        assert_eq!(
            counted_ms(Some(&h), None, day, day + Duration::hours(12)),
            5 * H
        );
        // A start the change skips is read as the first instant after the gap.
        let h = prague("02:30", "12:00");
        let (start, _) = h.window(NaiveDate::from_ymd_opt(2026, 3, 29).unwrap());
        assert_eq!(start, t("2026-03-29T01:00:00Z"));
    }

    #[test]
    fn counting_and_running_out_agree() {
        let h = prague("09:00", "17:30");
        let away = Some((t("2026-02-03T10:00:00Z"), t("2026-02-05T06:00:00Z")));
        let asked = t("2026-02-01T16:10:00Z");
        for minutes in [0, 1, 20, 80, 510, 511, 1000, 5000, 20_000] {
            let ms = minutes * 60_000;
            for away in [None, away] {
                let end = runs_out(Some(&h), away, asked, ms);
                assert_eq!(counted_ms(Some(&h), away, asked, end), ms, "{minutes} min");
                let just_before = end - Duration::milliseconds(1);
                if ms > 0 {
                    assert!(counted_ms(Some(&h), away, asked, just_before) < ms);
                }
            }
        }
    }

    #[test]
    fn nonsense_hours_are_none() {
        assert!(PlayingHours::of(Some("Mars/Olympus"), Some(0), Some(60)).is_none());
        assert!(PlayingHours::of(Some("UTC"), Some(60), Some(60)).is_none());
        assert!(PlayingHours::of(Some("UTC"), Some(-1), Some(60)).is_none());
        assert!(PlayingHours::of(Some("UTC"), Some(0), Some(1441)).is_none());
        assert!(PlayingHours::of(None, Some(0), Some(60)).is_none());
    }
}
