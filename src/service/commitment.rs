//! Sealed-move receipts: a commitment to each accepted move, given to its player
//! at once and shown to everybody, whose nonce is published with the move at
//! its reveal. The commitment binds the server to the move before anybody else
//! may see it; the nonce (32 random bytes the server draws) makes it hiding, so
//! nothing of a sealed move can be learnt from it, even for moves with few
//! possible values. docs/fairness.md gives the encoding and a test vector.

use serde_json::Value;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::service::error::Result;

/// The first line of every committed text, naming what it is and its version.
const DOMAIN: &str = "sealed-orders/move-commitment/v1";

/// A fresh nonce: 32 bytes from the operating system, as 64 hex digits.
pub fn fresh_nonce() -> Result<String, getrandom::Error> {
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw)?;
    Ok(hex::encode(raw))
}

/// JSON with every object's keys in code-point order and no white space:
/// what `JSON.stringify` gives for key-sorted objects, and Python's
/// `json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)`.
pub fn canonical_json(v: &Value) -> String {
    let mut out = String::new();
    write_canonical(v, &mut out);
    out
}

fn write_canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*k).clone()).to_string());
                out.push(':');
                write_canonical(&map[k.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// The text a commitment hashes: five lines joined by `\n` (no final newline):
/// the domain, the match id (lower-case, hyphenated), the step and the seat in
/// decimal, the action as canonical JSON, and the nonce in lower-case hex.
pub fn committed_text(
    match_id: Uuid,
    step: i64,
    seat: usize,
    action: &Value,
    nonce: &str,
) -> String {
    format!(
        "{DOMAIN}\n{match_id}\n{step}\n{seat}\n{}\n{nonce}",
        canonical_json(action)
    )
}

/// The commitment: lower-case hex SHA-256 of [`committed_text`].
pub fn commitment(match_id: Uuid, step: i64, seat: usize, action: &Value, nonce: &str) -> String {
    hex::encode(Sha256::digest(
        committed_text(match_id, step, seat, action, nonce).as_bytes(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The vector docs/fairness.md publishes: a third party recomputes it.
    #[test]
    fn the_published_test_vector_holds() {
        let id: Uuid = "01936f3e-8b7a-7c00-9a00-000000000001"
            .parse()
            .expect("uuid");
        let action = json!({"type": "play", "stake": 2, "card": "trade"});
        let nonce = "00".repeat(31) + "01";
        assert_eq!(
            committed_text(id, 3, 1, &action, &nonce),
            "sealed-orders/move-commitment/v1\n01936f3e-8b7a-7c00-9a00-000000000001\n3\n1\n\
             {\"card\":\"trade\",\"stake\":2,\"type\":\"play\"}\n\
             0000000000000000000000000000000000000000000000000000000000000001"
        );
        assert_eq!(
            commitment(id, 3, 1, &action, &nonce),
            "d898ebca246ce6642c5b29b92b093f17a9df816d791651692d29812abcbbde2f"
        );
    }

    #[test]
    fn canonical_json_sorts_keys_at_every_depth_and_keeps_arrays_in_order() {
        let v = json!({"b": [3, {"z": 1, "a": "é"}], "a": null, "c": true});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":null,"b":[3,{"a":"é","z":1}],"c":true}"#
        );
    }

    #[test]
    fn each_part_changes_the_commitment_and_nonces_are_fresh() {
        let id = Uuid::nil();
        let a = json!({"type": "pass"});
        let n = fresh_nonce().expect("randomness");
        assert_eq!(n.len(), 64);
        assert_ne!(n, fresh_nonce().expect("randomness"));
        let base = commitment(id, 1, 0, &a, &n);
        assert_ne!(base, commitment(Uuid::max(), 1, 0, &a, &n));
        assert_ne!(base, commitment(id, 2, 0, &a, &n));
        assert_ne!(base, commitment(id, 1, 1, &a, &n));
        assert_ne!(base, commitment(id, 1, 0, &json!({"type": "play"}), &n));
        assert_ne!(
            base,
            commitment(id, 1, 0, &a, &fresh_nonce().expect("randomness"))
        );
    }
}
