//! What a new match is made with, checked once at its creation: the service's
//! options beside the game's own (rated, a starting position, time limits and
//! their policy), who may see it (public, unlisted or private; spectators or
//! not) with its join code, and who writes in its chat.

use serde::Serialize;
use serde_json::{Map, Value, json};
use utoipa::ToSchema;

use crate::service::error::{Error, Result};
use crate::service::playing_hours::{DAY_MINUTES, LONGEST, PlayingHours, SHORTEST};
use crate::service::timing::{DEFAULT_ABSENT_LIMIT, POLICY_BOT, POLICY_FORFEIT};
use crate::service::visibility::{PRIVATE, PUBLIC, UNLISTED};

/// Checks a new match's `chat` option.
pub(super) fn chat_mode_of(chat: Option<&str>) -> Result<String, Error> {
    match chat {
        None => Ok(CHAT_PLAYERS.to_owned()),
        Some(c) if [CHAT_PLAYERS, CHAT_EVERYONE, CHAT_OFF].contains(&c) => Ok(c.to_owned()),
        Some(_) => Err(Error::unprocessable(
            "invalid_chat",
            "chat is \"players\", \"everyone\" or \"off\".",
        )),
    }
}

/// How a new match may be seen, as asked for at its creation.
pub(super) struct Visibility {
    pub visibility: String,
    pub spectators: bool,
    pub join_code: Option<String>,
}

/// Checks the visibility options of a new match; the join code of an unlisted
/// or private match is drawn here.
pub(super) fn visibility_of(
    visibility: Option<String>,
    spectators: Option<bool>,
) -> Result<Visibility, Error> {
    let visibility = match visibility.as_deref() {
        None => PUBLIC,
        Some(v) if [PUBLIC, UNLISTED, PRIVATE].contains(&v) => v,
        Some(_) => {
            return Err(Error::unprocessable(
                "invalid_visibility",
                "visibility is \"public\", \"unlisted\" or \"private\".",
            ));
        }
    };
    let join_code = (visibility != PUBLIC).then(new_join_code).transpose()?;
    Ok(Visibility {
        visibility: visibility.to_owned(),
        // A private match has no audience unless its owner asks for one: its
        // invitees may still watch.
        spectators: spectators.unwrap_or(visibility != PRIVATE),
        join_code,
    })
}

/// The letters of join codes: no 0/O, 1/I/L, so a code read aloud is typed right.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// The length of a join code: 10 letters of 31 (about 49 bits), which no
/// rate-limited guesser finds.
pub const JOIN_CODE_LEN: usize = 10;

fn new_join_code() -> Result<String, Error> {
    let n = CODE_ALPHABET.len();
    // Bytes at or above the last whole multiple of the alphabet are drawn again,
    // so every letter is equally likely.
    let cutoff = 256 - 256 % n;
    let mut code = String::with_capacity(JOIN_CODE_LEN);
    while code.len() < JOIN_CODE_LEN {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map_err(|e| Error::internal(format!("no OS randomness: {e}")))?;
        for b in bytes.iter().map(|b| *b as usize).filter(|b| *b < cutoff) {
            if code.len() < JOIN_CODE_LEN {
                code.push(CODE_ALPHABET[b % n] as char);
            }
        }
    }
    Ok(code)
}

/// A code as typed: trimmed, upper case, dashes and spaces left out.
pub(super) fn normalize_code(code: &str) -> Option<String> {
    let code: String = code
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (code.len() == JOIN_CODE_LEN && code.bytes().all(|b| CODE_ALPHABET.contains(&b)))
        .then_some(code)
}

pub(super) fn bad_code() -> Error {
    Error::unprocessable(
        "invalid_join_code",
        format!(
            "A join code is {JOIN_CODE_LEN} letters and digits, as its match's owner was given it."
        ),
    )
    .arg("length", JOIN_CODE_LEN)
}

/// The service options of a match, given in its `options` object beside the
/// game's own, and kept there (`rated`) or in typed columns (the time limits).
pub(super) struct ServiceOptions {
    pub rated: bool,
    pub position: Option<Value>,
    pub move_time_limit: Option<i32>,
    /// The bank time control, if the match has one.
    pub bank: Option<BankControl>,
    /// `time_control` as given, checked and with its defaults: what the match's
    /// options keep (a tournament creates its matches from them again).
    pub time_control: Option<Value>,
    pub timeout_policy: Option<String>,
    pub absent_move_time_limit: Option<i32>,
    /// The grace extensions each seat gets before the timeout policy applies.
    pub grace: Option<Grace>,
    /// The least reliability (deadlines met over owed, 0 to 1) a joiner needs;
    /// kept in the match's options.
    pub min_reliability: Option<f64>,
}

/// A match's grace extensions: how many each seat gets, and how long each is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Grace {
    pub count: i32,
    pub seconds: i32,
}

/// The most grace extensions a match may allow each seat.
pub const MAX_GRACE_EXTENSIONS: i64 = 10;

/// The service options every game accepts, with their defaults.
pub const SERVICE_OPTION_KEYS: [&str; 9] = [
    "rated",
    "position",
    "move_time_limit",
    "time_control",
    "timeout_policy",
    "absent_move_time_limit",
    "grace_extensions",
    "grace_seconds",
    "min_reliability",
];

/// The longest time limit accepted, in seconds (30 days).
const MAX_TIME_LIMIT: i64 = 30 * 24 * 3600;

fn invalid_options(message: impl Into<String>) -> Error {
    let message = message.into();
    Error::unprocessable("invalid_options", message.clone()).arg("reason", message)
}

fn seconds_option(map: &mut Map<String, Value>, key: &str) -> Result<Option<i32>, Error> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .filter(|s| (1..=MAX_TIME_LIMIT).contains(s))
            .map(|s| Some(s as i32))
            .ok_or_else(|| {
                invalid_options(format!(
                    "The option {key} is a whole number of seconds from 1 to {MAX_TIME_LIMIT}."
                ))
            }),
    }
}

/// Separates the service options from the game's own and checks them.
pub(super) fn split_options(options: Option<Value>) -> Result<(ServiceOptions, Value), Error> {
    let mut map = match options {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(invalid_options("options must be a JSON object.")),
    };
    let rated = match map.remove("rated") {
        None => true,
        Some(Value::Bool(b)) => b,
        Some(_) => return Err(invalid_options("The option rated must be true or false.")),
    };
    let position = match map.remove("position") {
        None | Some(Value::Null) => None,
        Some(p) => Some(p),
    };
    let move_time_limit = seconds_option(&mut map, "move_time_limit")?;
    let control = time_control_of(map.remove("time_control"))?;
    if move_time_limit.is_some() && control.is_some() {
        return Err(invalid_options(
            "Give either move_time_limit or time_control, not both (a time_control of kind \"per_move\" is the same as move_time_limit).",
        ));
    }
    let (move_time_limit, bank) = match &control {
        Some(TimeControl::PerMove { seconds }) => (Some(*seconds), None),
        Some(TimeControl::Bank {
            initial_seconds,
            increment_seconds,
            cap_seconds,
            playing_hours,
        }) => (
            None,
            Some(BankControl {
                initial_seconds: *initial_seconds,
                increment_seconds: increment_seconds.unwrap_or(0),
                cap_seconds: cap_seconds.unwrap_or(MAX_BANK),
                hours: playing_hours.as_ref().and_then(PlayingHoursOption::checked),
            }),
        ),
        None => (move_time_limit, None),
    };
    let time_control = control.map(|c| match c {
        TimeControl::PerMove { seconds } => json!({"kind": "per_move", "seconds": seconds}),
        TimeControl::Bank { playing_hours, .. } => {
            let b = bank.unwrap_or_default();
            let mut tc = json!({
                "kind": "bank",
                "initial_seconds": b.initial_seconds,
                "increment_seconds": b.increment_seconds,
                "cap_seconds": b.cap_seconds,
            });
            if let Some(h) = playing_hours {
                tc["playing_hours"] = json!(h);
            }
            tc
        }
    });
    let timed = move_time_limit.is_some() || bank.is_some();
    let absent_move_time_limit = seconds_option(&mut map, "absent_move_time_limit")?;
    let timeout_policy = match map.remove("timeout_policy") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if p == POLICY_BOT || p == POLICY_FORFEIT => Some(p),
        Some(_) => {
            return Err(invalid_options(
                "The option timeout_policy is \"bot\" or \"forfeit\".",
            ));
        }
    };
    if !timed && (timeout_policy.is_some() || absent_move_time_limit.is_some()) {
        return Err(invalid_options(
            "timeout_policy and absent_move_time_limit apply only with a move_time_limit or a time_control.",
        ));
    }
    let grace = grace_of(&mut map, timed, move_time_limit, bank)?;
    let timeout_policy = timed.then(|| timeout_policy.unwrap_or(POLICY_BOT.into()));
    let absent_move_time_limit = match (&timeout_policy, absent_move_time_limit) {
        (Some(p), limit) if p == POLICY_BOT => Some(limit.unwrap_or(DEFAULT_ABSENT_LIMIT)),
        (_, Some(_)) => {
            return Err(invalid_options(
                "absent_move_time_limit applies only with timeout_policy \"bot\".",
            ));
        }
        _ => None,
    };
    let min_reliability = min_reliability_of(map.remove("min_reliability"))?;
    Ok((
        ServiceOptions {
            rated,
            position,
            move_time_limit,
            bank,
            time_control,
            timeout_policy,
            absent_move_time_limit,
            grace,
            min_reliability,
        },
        Value::Object(map),
    ))
}

/// Checks `grace_extensions` and `grace_seconds`. A grace is one clock's
/// worth by default: the per-move limit, or a bank's initial allowance.
fn grace_of(
    map: &mut Map<String, Value>,
    timed: bool,
    move_time_limit: Option<i32>,
    bank: Option<BankControl>,
) -> Result<Option<Grace>, Error> {
    let count = match map.remove("grace_extensions") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            v.as_i64()
                .filter(|n| (0..=MAX_GRACE_EXTENSIONS).contains(n))
                .ok_or_else(|| {
                    invalid_options(format!(
                        "The option grace_extensions is a whole number from 0 to {MAX_GRACE_EXTENSIONS}: how many times each seat's deadline is extended before the timeout policy applies."
                    ))
                })?,
        ),
    };
    let seconds = seconds_option(map, "grace_seconds")?;
    if !timed && (count.is_some() || seconds.is_some()) {
        return Err(invalid_options(
            "grace_extensions and grace_seconds apply only with a move_time_limit or a time_control.",
        ));
    }
    match count {
        None | Some(0) if seconds.is_some() => Err(invalid_options(
            "grace_seconds applies only with grace_extensions of 1 or more.",
        )),
        None | Some(0) => Ok(None),
        Some(n) => {
            let default = move_time_limit
                .or(bank.map(|b| b.initial_seconds.min(MAX_TIME_LIMIT as i32)))
                .unwrap_or(MAX_TIME_LIMIT as i32);
            Ok(Some(Grace {
                count: n as i32,
                seconds: seconds.unwrap_or(default),
            }))
        }
    }
}

/// `min_reliability`: a share of deadlines met, from 0 to 1. A match without a
/// clock may ask for it too: it is the joiner's record elsewhere that counts.
fn min_reliability_of(v: Option<Value>) -> Result<Option<f64>, Error> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_f64()
            .filter(|r| (0.0..=1.0).contains(r))
            .map(Some)
            .ok_or_else(|| {
                invalid_options(
                    "The option min_reliability is a number from 0 to 1 (the share of deadlines a joiner must have met).",
                )
            }),
    }
}

/// Seated players (and the owner) write; whoever may read the match reads.
pub const CHAT_PLAYERS: &str = "players";
/// Signed-in spectators write too.
pub const CHAT_EVERYONE: &str = "everyone";
/// No chat.
pub const CHAT_OFF: &str = "off";

/// The most a bank may start with or hold, in seconds (90 days): a
/// correspondence league's longest "days per move" times a handful of moves.
pub const MAX_BANK: i32 = 90 * 24 * 3600;

/// A match's clock, given as `time_control` in its options.
///
/// `per_move` gives every awaited seat the same seconds for each move (the
/// same as `move_time_limit`). `bank` gives each seat a bank of thinking time,
/// as a chess clock or correspondence chess's "N days plus M per move": a seat
/// owing a move must move before its bank runs out; the time it took (from
/// when it was asked to its own move, in a sealed step too) is taken off its
/// bank, then `increment_seconds` are added, up to `cap_seconds`. A seat whose
/// bank runs out gets the match's `timeout_policy`, as with `per_move`. With
/// `playing_hours` a bank runs only within those hours of each day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schema(examples(
    json!({"kind": "bank", "initial_seconds": 259200, "increment_seconds": 86400, "cap_seconds": 604800}),
    json!({"kind": "bank", "initial_seconds": 86400, "increment_seconds": 28800, "cap_seconds": 172800,
           "playing_hours": {"time_zone": "Europe/Prague", "from": "08:00", "to": "22:00"}}),
    json!({"kind": "per_move", "seconds": 86400})
))]
pub enum TimeControl {
    /// The same time for every move.
    PerMove {
        /// Seconds each awaited seat has for a move, 1 to 2592000 (30 days).
        #[schema(minimum = 1, maximum = 2592000, example = 86400)]
        seconds: i32,
    },
    /// A bank of thinking time per seat.
    Bank {
        /// Seconds each seat's bank starts with, 1 to 7776000 (90 days).
        #[schema(minimum = 1, maximum = 7776000, example = 259200)]
        initial_seconds: i32,
        /// Seconds added to a seat's bank after each of its moves, 0 to
        /// 2592000 (30 days); 0 by default.
        #[schema(minimum = 0, maximum = 2592000, example = 86400)]
        increment_seconds: Option<i32>,
        /// The most a bank may hold, from `initial_seconds` to 7776000 (90
        /// days, the default).
        #[schema(minimum = 1, maximum = 7776000, example = 604800)]
        cap_seconds: Option<i32>,
        /// The hours of each day the banks run; at any hour when absent.
        playing_hours: Option<PlayingHoursOption>,
    },
}

/// The hours of each day a match's banks run, in a time zone of the match's
/// choosing (so that nobody's clock runs at night): outside them every bank
/// stands, and a deadline that would fall outside them moves to when enough
/// of them have passed. 1 to 22 hours a day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
#[schema(example = json!({"time_zone": "Europe/Prague", "from": "08:00", "to": "22:00"}))]
pub struct PlayingHoursOption {
    /// An IANA time zone, such as `Europe/Prague` or `UTC`; its clock changes
    /// are followed.
    #[schema(example = "Europe/Prague")]
    pub time_zone: String,
    /// Local time the hours begin, `HH:MM`.
    #[schema(example = "08:00", pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub from: String,
    /// Local time they end, `HH:MM` (`24:00` for midnight); at or before
    /// `from`, the next day.
    #[schema(example = "22:00", pattern = "^(([01][0-9]|2[0-3]):[0-5][0-9]|24:00)$")]
    pub to: String,
}

impl PlayingHoursOption {
    fn checked(&self) -> Option<PlayingHours> {
        PlayingHours::of(
            Some(&self.time_zone),
            minute_of_day(&self.from),
            minute_of_day(&self.to),
        )
    }
}

/// `HH:MM` as minutes after midnight, `24:00` included.
fn minute_of_day(s: &str) -> Option<i32> {
    let (h, m) = s.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m) = (h.parse::<i32>().ok()?, m.parse::<i32>().ok()?);
    let minute = h * 60 + m;
    ((0..24).contains(&h) && (0..60).contains(&m) || minute == DAY_MINUTES).then_some(minute)
}

/// `HH:MM` of minutes after midnight.
pub fn clock_time(minute: i32) -> String {
    format!("{:02}:{:02}", minute / 60, minute % 60)
}

/// A checked bank time control, in seconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct BankControl {
    pub initial_seconds: i32,
    pub increment_seconds: i32,
    pub cap_seconds: i32,
    pub hours: Option<PlayingHours>,
}

fn whole_seconds(
    o: &Map<String, Value>,
    key: &str,
    range: std::ops::RangeInclusive<i64>,
) -> Result<Option<i32>, Error> {
    match o.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .filter(|s| range.contains(s))
            .and_then(|s| i32::try_from(s).ok())
            .map(Some)
            .ok_or_else(|| {
                invalid_options(format!(
                    "time_control.{key} is a whole number of seconds from {} to {}.",
                    range.start(),
                    range.end()
                ))
            }),
    }
}

/// Checks the `time_control` option; the errors say which part is wrong.
fn time_control_of(v: Option<Value>) -> Result<Option<TimeControl>, Error> {
    let o = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(_) => {
            return Err(invalid_options(
                "time_control is an object with a kind: {\"kind\": \"bank\", \"initial_seconds\": …} or {\"kind\": \"per_move\", \"seconds\": …}.",
            ));
        }
    };
    let kind = o.get("kind").and_then(Value::as_str).unwrap_or_default();
    let allowed: &[&str] = match kind {
        "per_move" => &["kind", "seconds"],
        "bank" => &[
            "kind",
            "initial_seconds",
            "increment_seconds",
            "cap_seconds",
            "playing_hours",
        ],
        _ => {
            return Err(invalid_options(
                "time_control.kind is \"bank\" or \"per_move\".",
            ));
        }
    };
    if let Some(unknown) = o.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(invalid_options(format!(
            "time_control of kind \"{kind}\" takes {}; not {unknown}.",
            allowed[1..].join(", ")
        )));
    }
    let max_move = MAX_TIME_LIMIT;
    let max_bank = i64::from(MAX_BANK);
    if kind == "per_move" {
        let seconds = whole_seconds(&o, "seconds", 1..=max_move)?
            .ok_or_else(|| invalid_options("time_control of kind \"per_move\" needs seconds."))?;
        return Ok(Some(TimeControl::PerMove { seconds }));
    }
    let initial = whole_seconds(&o, "initial_seconds", 1..=max_bank)?
        .ok_or_else(|| invalid_options("time_control of kind \"bank\" needs initial_seconds."))?;
    let increment = whole_seconds(&o, "increment_seconds", 0..=max_move)?;
    let cap = whole_seconds(&o, "cap_seconds", 1..=max_bank)?;
    if cap.is_some_and(|c| c < initial) {
        return Err(invalid_options(
            "time_control.cap_seconds may not be below initial_seconds: a bank would start above its cap.",
        ));
    }
    let playing_hours = playing_hours_of(o.get("playing_hours"))?;
    Ok(Some(TimeControl::Bank {
        initial_seconds: initial,
        increment_seconds: increment,
        cap_seconds: cap,
        playing_hours,
    }))
}

/// Checks `time_control.playing_hours`, and writes it back in its one form
/// (the zone's own spelling, `HH:MM`).
fn playing_hours_of(v: Option<&Value>) -> Result<Option<PlayingHoursOption>, Error> {
    const SHAPE: &str = "time_control.playing_hours is {\"time_zone\": \"Europe/Prague\", \"from\": \"08:00\", \"to\": \"22:00\"}: an IANA time zone and the local times the banks start and stop running each day.";
    let o = match v {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Object(o)) => o,
        Some(_) => return Err(invalid_options(SHAPE)),
    };
    if let Some(unknown) = o
        .keys()
        .find(|k| !["time_zone", "from", "to"].contains(&k.as_str()))
    {
        return Err(invalid_options(format!("{SHAPE} Not {unknown}.")));
    }
    let text = |key: &str| o.get(key).and_then(Value::as_str);
    let zone = text("time_zone")
        .and_then(|z| z.parse::<chrono_tz::Tz>().ok())
        .ok_or_else(|| {
            invalid_options(
                "time_control.playing_hours.time_zone is an IANA time zone, such as Europe/Prague or UTC.",
            )
        })?;
    let time = |key: &str| {
        text(key).and_then(minute_of_day).ok_or_else(|| {
            invalid_options(format!(
                "time_control.playing_hours.{key} is a local time HH:MM, from 00:00 to 23:59 (24:00 for the end of a day)."
            ))
        })
    };
    let (from, to) = (time("from")?, time("to")?);
    if from == DAY_MINUTES {
        return Err(invalid_options(
            "time_control.playing_hours.from is a local time HH:MM, from 00:00 to 23:59.",
        ));
    }
    let hours = PlayingHours {
        zone,
        from,
        to: if to == 0 { DAY_MINUTES } else { to },
    };
    if from == hours.to % DAY_MINUTES || !(SHORTEST..=LONGEST).contains(&hours.minutes()) {
        return Err(invalid_options(format!(
            "time_control.playing_hours must last from {} to {} hours a day: a bank that runs all day needs no playing hours.",
            SHORTEST / 60,
            LONGEST / 60
        )));
    }
    Ok(Some(PlayingHoursOption {
        time_zone: zone.name().to_string(),
        from: clock_time(hours.from),
        to: clock_time(hours.to),
    }))
}
