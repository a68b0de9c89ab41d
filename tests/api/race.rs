//! Exactly-once resolution when the last seats submit at the same instant.

use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn concurrent_final_submissions_resolve_the_step_exactly_once() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let ships: Vec<i64> = vec![7; 6];
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"stakes": "sealed", "ships": ships}),
        )
        .await;
    for round in 0..6i64 {
        let step = round;
        // Everybody submits at once; the pool has several connections.
        let submissions = players.iter().map(|p| {
            app.submit(
                &id,
                p,
                step,
                json!({"type": "play", "card": "trade", "stake": 0}),
            )
        });
        let replies = futures_util::future::join_all(submissions).await;
        let mut completed = 0;
        for r in &replies {
            let body = r.expect(200);
            if body["completes_step"] == true {
                completed += 1;
            }
        }
        assert_eq!(
            completed, 1,
            "round {round}: exactly one submission resolves the step"
        );
        let m = app.match_as(&id, None).await;
        assert_eq!(m["step"], step + 1);
    }
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    assert_eq!(rounds["items"].as_array().map(Vec::len), Some(6));
    let m = app.match_as(&id, None).await;
    assert_eq!(m["status"], "finished");
    // Every seat traded 0 with 5 coins, six times: nobody gained or lost.
    for p in m["result"].as_array().expect("result") {
        assert_eq!(p["score"], 5);
        assert_eq!(p["rank"], 1);
    }
}

/// Many concurrent moves into one match on a pool of several connections: every
/// answer is a 200 or a 503 to retry (never a 500), and no move is lost.
#[tokio::test]
async fn contention_on_one_match_loses_no_move_and_never_answers_500() {
    let app = spawn_app().await;
    let players = app.players(8).await;
    let rounds = 8i64;
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"stakes": "sealed", "ships": vec![6; rounds as usize]}),
        )
        .await;
    let mut busy = 0;
    for step in 0..rounds {
        let submissions = players.iter().map(|p| async {
            let r = app
                .submit(
                    &id,
                    p,
                    step,
                    json!({"type": "play", "card": "defense", "stake": 1}),
                )
                .await;
            match r.status.as_u16() {
                200 => 0,
                503 => {
                    assert!(r.headers.contains_key("retry-after"));
                    1
                }
                other => panic!("answer {other}: {}", r.text),
            }
        });
        busy += futures_util::future::join_all(submissions)
            .await
            .iter()
            .sum::<i32>();
        // A 503 stored nothing: those seats submit again.
        loop {
            let m = app.match_as(&id, None).await;
            if m["step"].as_i64() != Some(step) {
                break;
            }
            let awaiting = m["prompt"]["awaiting"]
                .as_array()
                .expect("awaiting")
                .clone();
            for seat in awaiting {
                let p = &players[seat.as_u64().expect("seat") as usize];
                let r = app
                    .submit(
                        &id,
                        p,
                        step,
                        json!({"type": "play", "card": "defense", "stake": 1}),
                    )
                    .await;
                assert_ne!(r.status.as_u16(), 500, "{}", r.text);
            }
        }
    }
    let moves = app
        .get(&format!("/api/v1/matches/{id}/moves?limit=200"), None)
        .await
        .expect(200);
    assert_eq!(
        moves["items"].as_array().map(Vec::len),
        Some(8 * rounds as usize),
        "{busy} busy answers"
    );
    let m = app.match_as(&id, None).await;
    assert_eq!(m["status"], "finished");
    assert_eq!(m["step"], rounds);
}
