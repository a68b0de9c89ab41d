//! The signatures a receiver checks.
//!
//! Standard Webhooks (what its libraries verify): `webhook-id` (the delivery id,
//! the same at every attempt), `webhook-timestamp` (unix seconds) and
//! `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`,
//! keyed with the secret's part after `whsec_` read as base64, as those
//! libraries read it.
//!
//! Our own, older form, kept while receivers move over: `Sealed-Orders-Signature:
//! t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, keyed with the
//! secret's UTF-8 bytes (`whsec_` included), with `Sealed-Orders-Delivery` and
//! `Sealed-Orders-Event`.
//!
//! The time is in the signed text either way, so a receiver can refuse old replays.

use base64::Engine;
use hmac::{KeyInit, Mac};

pub const SIGNATURE_HEADER: &str = "sealed-orders-signature";
pub const DELIVERY_HEADER: &str = "sealed-orders-delivery";
pub const EVENT_HEADER: &str = "sealed-orders-event";
pub const STANDARD_ID_HEADER: &str = "webhook-id";
pub const STANDARD_TIMESTAMP_HEADER: &str = "webhook-timestamp";
pub const STANDARD_SIGNATURE_HEADER: &str = "webhook-signature";

type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// The header's value for `body` sent at `unix` seconds.
pub fn signature(secret: &str, unix: i64, body: &[u8]) -> String {
    format!("t={unix},v1={}", hex::encode(mac(secret, unix, body)))
}

/// The `webhook-signature` value (Standard Webhooks) for message `id` sent at
/// `unix` seconds.
pub fn standard_signature(secret: &str, id: &str, unix: i64, body: &[u8]) -> String {
    let encoded = secret.strip_prefix("whsec_").unwrap_or(secret);
    // Our secrets are hex digits, which are base64 too: the key is what a
    // Standard Webhooks library decodes them to.
    let key = base64::engine::general_purpose::STANDARD_NO_PAD
        .decode(encoded.trim_end_matches('='))
        .unwrap_or_else(|_| secret.as_bytes().to_vec());
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(&key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    m.update(id.as_bytes());
    m.update(b".");
    m.update(unix.to_string().as_bytes());
    m.update(b".");
    m.update(body);
    let sig = base64::engine::general_purpose::STANDARD.encode(m.finalize().into_bytes());
    format!("v1,{sig}")
}

fn mac(secret: &str, unix: i64, body: &[u8]) -> Vec<u8> {
    // HMAC takes a key of any length.
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    m.update(unix.to_string().as_bytes());
    m.update(b".");
    m.update(body);
    m.finalize().into_bytes().to_vec()
}

/// Whether a header value signs `body` with `secret` (what a receiver does; in
/// constant time).
pub fn verify(secret: &str, header: &str, body: &[u8]) -> bool {
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", x)) => t = x.parse::<i64>().ok(),
            Some(("v1", x)) => v1 = hex::decode(x).ok(),
            _ => {}
        }
    }
    let (Some(t), Some(v1)) = (t, v1) else {
        return false;
    };
    let mut m = <HmacSha256 as KeyInit>::new_from_slice(secret.as_bytes())
        .unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    m.update(t.to_string().as_bytes());
    m.update(b".");
    m.update(body);
    m.verify_slice(&v1).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signature_verifies_and_a_changed_body_does_not() {
        let h = signature("whsec_k", 1_700_000_000, b"{\"a\":1}");
        assert!(h.starts_with("t=1700000000,v1="));
        assert!(verify("whsec_k", &h, b"{\"a\":1}"));
        assert!(!verify("whsec_k", &h, b"{\"a\":2}"));
        assert!(!verify("whsec_other", &h, b"{\"a\":1}"));
    }

    #[test]
    fn the_standard_signature_is_what_a_standard_webhooks_library_makes() {
        // Computed with the `standardwebhooks` Python library (1.1.0),
        // `Webhook(secret).sign(msg_id, timestamp, data)`.
        let secret = format!("whsec_{}", "0123456789abcdef".repeat(4));
        assert_eq!(
            standard_signature(
                &secret,
                "01a211f6-50c6-73a7-b910-5e8d5e4e82a1",
                1_700_000_000,
                b"{\"a\":1}"
            ),
            "v1,LWRFldV3acf2WJXgiD3g4IiWL7ax9bSCiyHMt1RNrHA="
        );
    }

    #[test]
    fn the_signature_is_hmac_sha256_of_time_dot_body() {
        // Computed independently (Python's hmac) over the text "1.body".
        assert_eq!(
            signature("key", 1, b"body"),
            "t=1,v1=91b5374b153842ad05b2c4eab9349b8321b14703165bd3fb8b034dfb8be98ae5"
        );
    }
}
