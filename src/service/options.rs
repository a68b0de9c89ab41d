//! What a new match is made with, checked once at its creation: the service's
//! options beside the game's own (rated, a starting position, time limits and
//! their policy), who may see it (public, unlisted or private; spectators or
//! not) with its join code, and who writes in its chat.

use serde_json::{Map, Value};

use crate::service::error::{Error, Result};
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
    pub timeout_policy: Option<String>,
    pub absent_move_time_limit: Option<i32>,
}

/// The service options every game accepts, with their defaults.
pub const SERVICE_OPTION_KEYS: [&str; 5] = [
    "rated",
    "position",
    "move_time_limit",
    "timeout_policy",
    "absent_move_time_limit",
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
    if move_time_limit.is_none() && (timeout_policy.is_some() || absent_move_time_limit.is_some()) {
        return Err(invalid_options(
            "timeout_policy and absent_move_time_limit apply only with a move_time_limit.",
        ));
    }
    let timeout_policy = move_time_limit.map(|_| timeout_policy.unwrap_or(POLICY_BOT.into()));
    let absent_move_time_limit = match (&timeout_policy, absent_move_time_limit) {
        (Some(p), limit) if p == POLICY_BOT => Some(limit.unwrap_or(DEFAULT_ABSENT_LIMIT)),
        (_, Some(_)) => {
            return Err(invalid_options(
                "absent_move_time_limit applies only with timeout_policy \"bot\".",
            ));
        }
        _ => None,
    };
    Ok((
        ServiceOptions {
            rated,
            position,
            move_time_limit,
            timeout_policy,
            absent_move_time_limit,
        },
        Value::Object(map),
    ))
}

/// Seated players (and the owner) write; whoever may read the match reads.
pub const CHAT_PLAYERS: &str = "players";
/// Signed-in spectators write too.
pub const CHAT_EVERYONE: &str = "everyone";
/// No chat.
pub const CHAT_OFF: &str = "off";
