//! Metrics, request ids, and logs that never carry a token or a sealed move.

use serde_json::{Value, json};

use crate::helpers::{spawn_app, spawn_process};

#[tokio::test]
async fn metrics_count_requests_moves_and_matches_in_prometheus_text() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let id = app
        .started_match(&players, "malacca", json!({"ships": [5]}))
        .await;
    app.play_to_end(&id, &players, 1).await;
    let r = app.get("/metrics", None).await;
    assert_eq!(r.status.as_u16(), 200);
    assert!(r.content_type.starts_with("text/plain"));
    for needle in [
        "sealed_orders_http_requests_total{method=\"POST\",route=\"/api/v1/matches/{id}/moves\",status=\"200\"}",
        "sealed_orders_http_request_duration_seconds_bucket",
        "sealed_orders_moves_accepted_total{game=\"malacca\"} 2",
        "sealed_orders_steps_resolved_total{game=\"malacca\"} 2",
        "sealed_orders_matches{status=\"finished\"} 1",
        "sealed_orders_db_pool_connections{state=\"open\"}",
    ] {
        assert!(
            r.text.contains(needle),
            "metrics lack {needle}:\n{}",
            r.text
        );
    }
}

#[tokio::test]
async fn every_response_carries_a_request_id() {
    let app = spawn_app().await;
    let ok = app.get("/healthz", None).await;
    let err = app.get("/api/v1/nothing", None).await;
    let a = ok.headers["x-request-id"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let b = err.headers["x-request-id"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert_eq!(a.len(), 36);
    assert_ne!(a, b);
}

#[tokio::test]
async fn json_logs_carry_request_ids_and_never_a_token_or_a_sealed_card() {
    let (app, process) = spawn_process(&[]).await;
    let players = app.players(3).await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [8], "special_deck": [],
        "players": [
            {"coins": 5, "specials": ["attack2"]},
            {"coins": 5, "specials": ["trade2"]},
            {"coins": 5, "specials": ["defense2"]}
        ]
    });
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"position": position, "stakes": "sealed"}),
        )
        .await;
    for (p, card) in players.iter().zip(["attack2", "trade2", "defense2"]) {
        app.submit(&id, p, 0, json!({"type": "play", "card": card, "stake": 1}))
            .await
            .expect(200);
    }
    let m = app.match_as(&id, None).await;
    assert_eq!(m["status"], "finished");
    let log = std::fs::read_to_string(&process.log).expect("log");
    let lines: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not a JSON log line: {l}")))
        .collect();
    assert!(lines.len() > 10);
    let with_request = lines
        .iter()
        .filter(|l| l.pointer("/span/request_id").is_some())
        .count();
    assert!(with_request > 0, "no log line carries a request id");
    for p in &players {
        assert!(!log.contains(&p.token), "a token is in the logs");
    }
    for card in ["attack2", "trade2", "defense2"] {
        assert!(!log.contains(card), "the sealed card {card} is in the logs");
    }
}
