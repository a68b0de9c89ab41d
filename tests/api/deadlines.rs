//! Deadlines live in the database and are enforced by every replica's poller;
//! tests move the clock instead of sleeping.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::spawn_app_with_manual_clock;

#[tokio::test]
async fn silence_confirms_a_cairo_report_when_its_deadline_passes() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "cairo",
            json!({"mode": "reported", "report_confirm_seconds": 60}),
        )
        .await;
    // Play (null-ish, from `legal`) until a report awaits confirmation.
    let mut rng = sealed_orders::games::rng::GameRng::from_key([4; 32]);
    let mut m: Value;
    let mut guard = 0;
    loop {
        m = app.match_as(&id, None).await;
        if m["prompt"]["kind"] == "confirm_report" {
            break;
        }
        assert!(
            m["prompt"]["deadlines"]
                .as_array()
                .is_some_and(Vec::is_empty),
            "no deadline outside confirmations"
        );
        let seat = m["prompt"]["awaiting"][0].as_u64().expect("seat") as usize;
        let mine = app.match_as(&id, Some(&players[seat])).await;
        let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
        let action = sealed_orders::games::legal::sample(&legal, &mut rng).expect("a move");
        app.submit(
            &id,
            &players[seat],
            mine["prompt"]["step"].as_i64().expect("step"),
            action,
        )
        .await
        .expect(200);
        guard += 1;
        assert!(guard < 200, "no report came up");
    }
    let step = m["step"].as_i64().expect("step");
    let awaiting = m["prompt"]["awaiting"]
        .as_array()
        .expect("awaiting")
        .clone();
    let deadlines = m["prompt"]["deadlines"]
        .as_array()
        .expect("deadlines")
        .clone();
    assert_eq!(
        deadlines.len(),
        awaiting.len(),
        "every awaited seat shows its deadline"
    );
    let at = chrono::DateTime::parse_from_rfc3339(deadlines[0]["at"].as_str().expect("at"))
        .expect("time");
    assert_eq!(
        (at.with_timezone(&chrono::Utc) - clock.now_utc()).num_seconds(),
        60
    );

    // Before the deadline nothing happens, however long the poller runs.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(app.match_as(&id, None).await["step"], step);

    clock.advance(chrono::Duration::seconds(61));
    let mut moved = false;
    for _ in 0..250 {
        if app.match_as(&id, None).await["step"].as_i64() != Some(step) {
            moved = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(moved, "the poller confirmed the report after its deadline");
    // The silent seats confirmed, exactly once each.
    let moves = app
        .get(&format!("/api/v1/matches/{id}/moves?limit=200"), None)
        .await
        .expect(200);
    let votes: Vec<&Value> = moves["items"]
        .as_array()
        .expect("moves")
        .iter()
        .filter(|mv| mv["step"] == step)
        .collect();
    assert_eq!(votes.len(), awaiting.len());
    for v in votes {
        assert_eq!(v["action"], json!({"type": "confirm"}));
    }
}
