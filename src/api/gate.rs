//! What every request passes before its handler: one decision on its
//! credential, and text that reaches a query checked at the edge.
//!
//! The credential is decided here once for every endpoint, public reads
//! included: no `Authorization` header is anonymous (each handler's extractor
//! then says whether it needs a player), one that is not a valid credential is
//! `401` wherever it is sent, and two are `400`, since which of them should
//! count is anybody's guess. A client whose token went bad learns it on its
//! next request instead of silently reading as a stranger.
//!
//! Text: no path segment, query value or JSON string of a request may hold a
//! control character (C0, DEL or C1; NUL among them), but for the tab and line
//! breaks of multi-line text in a JSON string. Postgres refuses NUL in
//! text, SQLite stores it: refusing them here makes both databases answer alike,
//! and a database error is never the validator. Names, keys and filters have
//! their own rules of length and alphabet in the handlers; this is the floor
//! under all of them.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header;
use actix_web::middleware::Next;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{HttpMessage, ResponseError};
use futures_util::StreamExt;

use crate::auth::checked_credential;
use crate::errors::ApiError;

/// The largest body the gate reads (the JSON extractor's limit too).
pub const MAX_BODY: usize = crate::api::replays::MAX_BUNDLE_BYTES;

pub async fn gate<B: MessageBody>(
    mut req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    if let Err(e) = check_target(&req) {
        return Ok(refuse(req, e));
    }
    if is_json(&req) {
        match read_body(&mut req).await {
            Ok(body) => {
                if let Err(e) = check_json_text(&body) {
                    return Ok(refuse(req, e));
                }
                req.set_payload(Payload::from(body));
            }
            Err(e) => return Ok(refuse(req, e)),
        }
    }
    if req
        .headers()
        .get_all(header::AUTHORIZATION)
        .nth(1)
        .is_some()
    {
        let e = ApiError::bad_request(
            "duplicate_authorization",
            "The request has more than one Authorization header; send one.",
        );
        return Ok(refuse(req, e));
    }
    // OAuth's own endpoints take no bearer credential of ours: a client may
    // send HTTP Basic client authentication, which is not ours to refuse.
    if req.path().starts_with("/oauth/") {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_left_body);
    }
    match checked_credential(req.request()).await {
        Ok(checked) => {
            req.extensions_mut().insert(checked);
            next.call(req)
                .await
                .map(ServiceResponse::map_into_left_body)
        }
        Err(e) => Ok(refuse(req, e)),
    }
}

fn refuse<B>(req: ServiceRequest, e: ApiError) -> ServiceResponse<EitherBody<B>> {
    req.into_response(e.error_response()).map_into_right_body()
}

fn is_json(req: &ServiceRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .is_some_and(|v| v == "application/json" || v.ends_with("+json"))
}

async fn read_body(req: &mut ServiceRequest) -> Result<Bytes, ApiError> {
    let too_large = || {
        ApiError::new(
            actix_web::http::StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            "The request body is too large.",
        )
    };
    let mut payload = req.take_payload();
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        let chunk = chunk.map_err(|e| {
            ApiError::bad_request(
                "malformed_json",
                format!("The request body could not be read: {e}."),
            )
            .arg("reason", e.to_string())
        })?;
        if body.len() + chunk.len() > MAX_BODY {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body.freeze())
}

fn control_characters(what: &str) -> ApiError {
    ApiError::bad_request(
        "invalid_characters",
        format!("The {what} holds a control character (such as NUL); no request text may."),
    )
    .arg("part", what)
}

/// The headers of the API whose text the server reads (the first two reach the
/// database).
const TEXT_HEADERS: [&str; 4] = [
    "idempotency-key",
    "last-event-id",
    "if-none-match",
    "prefer",
];

/// The path and the query string, percent-decoded, and the text headers (where
/// HTTP itself allows a tab).
fn check_target(req: &ServiceRequest) -> Result<(), ApiError> {
    if has_control(&percent_decode(req.path())) {
        return Err(control_characters("path"));
    }
    if has_control(&percent_decode(req.query_string())) {
        return Err(control_characters("query string"));
    }
    for name in TEXT_HEADERS {
        if req
            .headers()
            .get_all(name)
            .any(|v| v.as_bytes().iter().any(|b| b.is_ascii_control()))
        {
            return Err(control_characters(name));
        }
    }
    Ok(())
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(v) = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn has_control(s: &str) -> bool {
    s.chars().any(char::is_control)
}

/// A control character other than the line breaks and tab that multi-line
/// text (a replay bundle's data files) legitimately holds. Fields that must
/// be one line (names, token names, keys) refuse those by their own rules.
fn forbidden_in_body(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
}

/// Every string of a JSON document, escapes included, free of control
/// characters. Not a validator of JSON: what is not JSON is the extractor's to
/// refuse, so this only looks inside what would be strings.
fn check_json_text(body: &[u8]) -> Result<(), ApiError> {
    let refuse = || Err(control_characters("request body"));
    // Raw text first: DEL and C1 are valid unescaped in JSON strings (C0 is not,
    // and the extractor refuses it).
    let text = String::from_utf8_lossy(body);
    if text
        .chars()
        .any(|c| c == '\u{7f}' || ('\u{80}'..='\u{9f}').contains(&c))
    {
        return refuse();
    }
    let mut in_string = false;
    let mut i = 0;
    while i < body.len() {
        match body[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => {
                match body.get(i + 1) {
                    Some(b'b' | b'f') => return refuse(),
                    Some(b'u') => {
                        let code = body
                            .get(i + 2..i + 6)
                            .and_then(|h| std::str::from_utf8(h).ok())
                            .and_then(|h| u32::from_str_radix(h, 16).ok());
                        if code.and_then(char::from_u32).is_some_and(forbidden_in_body) {
                            return refuse();
                        }
                        i += 6;
                        continue;
                    }
                    _ => {}
                }
                // The escaped character (a quote or a backslash among them) is
                // not the end of the string.
                i += 2;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_with_control_characters_are_refused_in_any_spelling() {
        for bad in [
            r#"{"name":"a\u0000b"}"#,
            r#"{"name":"a\u001Fb"}"#,
            r#"{"name":"a\u007fb"}"#,
            r#"{"name":"a\u0085b"}"#,
            r#"{"name":"a\bb"}"#,
            r#"{"name":"a\u000cb"}"#,
            "{\"name\":\"a\u{7f}b\"}",
            "{\"name\":\"a\u{9f}b\"}",
            r#"{"a":["ok", {"deep":"x\\\u0001"}]}"#,
        ] {
            assert!(check_json_text(bad.as_bytes()).is_err(), "{bad}");
        }
    }

    #[test]
    fn ordinary_json_passes_escaped_backslashes_and_quotes_included() {
        for good in [
            r#"{"name":"alice","password":"p\"a\\ss\/w"}"#,
            r#"{"text":"a\\u0000b"}"#,
            r#"{"text":"\\\\n"}"#,
            r#"{"file":"{\n  \"a\": 1\r\n\t}\u000a"}"#,
            r#"{"text":"é ü ß 東京 \u00e9 \ud83d\ude00"}"#,
            r#"[1, 2.5, true, null]"#,
            "",
        ] {
            assert!(check_json_text(good.as_bytes()).is_ok(), "{good}");
        }
    }

    #[test]
    fn percent_encoded_controls_are_found_and_plain_text_is_not() {
        assert!(has_control(&percent_decode("/api/v1/players/a%00b")));
        assert!(has_control(&percent_decode("game=a%1fb")));
        assert!(has_control(&percent_decode("game=a%7F")));
        assert!(has_control(&percent_decode("game=%C2%85")));
        assert!(!has_control(&percent_decode("/api/v1/players/al%20ice")));
        assert!(!has_control(&percent_decode("game=malacca&limit=5&x=%zz%")));
    }
}
