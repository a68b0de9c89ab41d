//! Pages of lists: the limit a client asks for, and cursors that are opaque to
//! clients (so their form may change without breaking anybody).

use crate::service::error::{Error, Result};

/// Encodes a list cursor (opaque to clients).
pub(crate) fn encode_cursor(raw: &str) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw.as_bytes())
}

/// Decodes a list cursor; a bad one is the client's fault (400).
pub(crate) fn decode_cursor(cursor: &str) -> Result<String, Error> {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(cursor.as_bytes())
        .ok()
        .and_then(|b| String::from_utf8(b).ok())
        .ok_or_else(|| {
            Error::bad_request(
                "invalid_cursor",
                "The cursor is not one this server issued.",
            )
        })
}

fn invalid_cursor() -> Error {
    Error::bad_request(
        "invalid_cursor",
        "The cursor is not one this server issued.",
    )
}

/// The id a page of a list ordered by id starts below.
pub(crate) fn uuid_cursor(cursor: Option<String>) -> Result<Option<uuid::Uuid>, Error> {
    cursor
        .map(|c| decode_cursor(&c)?.parse().map_err(|_| invalid_cursor()))
        .transpose()
}

/// The offset a page of a list ordered otherwise starts at.
pub(crate) fn offset_cursor(cursor: Option<String>) -> Result<u64, Error> {
    cursor.map_or(Ok(0), |c| {
        decode_cursor(&c)?.parse().map_err(|_| invalid_cursor())
    })
}

pub(crate) fn page_limit(limit: Option<u64>) -> Result<u64, Error> {
    match limit {
        None => Ok(50),
        Some(l) if (1..=200).contains(&l) => Ok(l),
        Some(_) => Err(
            Error::bad_request("invalid_limit", "limit must be between 1 and 200.").arg("max", 200),
        ),
    }
}
