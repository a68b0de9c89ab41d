//! What the tests of clocks share: instants read from a document, the first
//! legal move played, a match's events of a kind, and waiting for the
//! deadline poller.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::helpers::{Player, TestApp};

/// An RFC 3339 instant of a document.
pub fn at(v: &Value) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(v.as_str().expect("a time"))
        .expect("RFC 3339")
        .with_timezone(&Utc)
}

/// Plays `p`'s first legal move, which must be owed.
pub async fn move_first(app: &TestApp, id: &str, p: &Player) {
    let m = app.match_as(id, Some(p)).await;
    let prompt = &m["prompt"];
    assert_eq!(prompt["your_turn"], true, "{m}");
    let action = prompt["legal"][0].clone();
    let step = prompt["step"].as_i64().expect("step");
    app.submit(id, p, step, action).await.expect(200);
}

/// The match's events of `kind`, oldest first.
pub async fn events_of_kind(app: &TestApp, id: &str, kind: &str) -> Vec<Value> {
    app.get(&format!("/api/v1/matches/{id}/events?limit=200"), None)
        .await
        .expect(200)["items"]
        .as_array()
        .expect("events")
        .iter()
        .filter(|e| e["kind"] == kind)
        .cloned()
        .collect()
}

/// Reads the match until `done` holds (the deadline poller runs every 20 ms).
pub async fn wait_for(app: &TestApp, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..250 {
        let m = app.match_as(id, None).await;
        if done(&m) {
            return m;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never happened: {what}");
}
