//! Export bundles verify; tampered ones do not.

use serde_json::{Value, json};

use crate::helpers::spawn_app;

async fn verify(app: &crate::helpers::TestApp, bundle: &Value) -> Value {
    app.post("/api/v1/replays/verify", None, bundle)
        .await
        .expect(200)
}

#[tokio::test]
async fn exported_games_of_every_game_verify_and_tampered_bundles_fail() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let mut bundles = Vec::new();
    for (game, options) in [
        ("malacca", json!({"ships": [8, 5, 11]})),
        (
            "malacca",
            json!({"stakes": "sealed", "characters": true, "equipment": true, "ships": [8, 5]}),
        ),
        ("heretics", json!({})),
        ("cairo", json!({"mode": "simulated"})),
        ("cairo", json!({"mode": "reported"})),
    ] {
        let id = app.started_match(&players, game, options).await;
        // Mid-match: public parts only, no seed, and it cannot verify yet.
        let early = app
            .get(&format!("/api/v1/matches/{id}/export"), None)
            .await
            .expect(200);
        assert_eq!(early["seed"], Value::Null);
        app.play_to_end(&id, &players, 9).await;
        let bundle = app
            .get(&format!("/api/v1/matches/{id}/export"), None)
            .await
            .expect(200);
        assert!(bundle["seed"].is_string());
        let report = verify(&app, &bundle).await;
        assert_eq!(report["valid"], true, "{game}: {report}");
        bundles.push(bundle);
    }
    // Kontor takes 2 or 4 seats.
    let id = app
        .started_match(&players[..2], "kontor", json!({"variant": "duel"}))
        .await;
    app.play_to_end(&id, &players[..2], 9).await;
    let kontor = app
        .get(&format!("/api/v1/matches/{id}/export"), None)
        .await
        .expect(200);
    assert_eq!(verify(&app, &kontor).await["valid"], true);

    let early_report = {
        let id = app.started_match(&players, "malacca", json!({})).await;
        let early = app
            .get(&format!("/api/v1/matches/{id}/export"), None)
            .await
            .expect(200);
        verify(&app, &early).await
    };
    assert_eq!(early_report["valid"], false);

    let bundle = &bundles[0];
    // A different move.
    let mut moved = bundle.clone();
    let stake = moved["moves"][0]["action"]["stake"].as_i64().unwrap_or(0);
    moved["moves"][0]["action"]["stake"] = json!(if stake == 0 { 1 } else { 0 });
    let r = verify(&app, &moved).await;
    assert_eq!(r["valid"], false);
    // Every move of a finished match carries its commitment and nonce.
    for mv in bundle["moves"].as_array().expect("moves") {
        assert!(
            mv["commitment"].is_string() && mv["nonce"].is_string(),
            "{mv}"
        );
    }
    assert_eq!(verify(&app, bundle).await["commitments_match"], true);
    // A move altered after its commitment: the replay may still hold (the move
    // can be as legal as the one committed), the commitment does not.
    let mut recommitted = bundle.clone();
    recommitted["moves"][1]["commitment"] = json!("0".repeat(64));
    let r = verify(&app, &recommitted).await;
    assert_eq!(r["commitments_match"], false, "{r}");
    assert_eq!(r["valid"], false);
    let mut renonced = bundle.clone();
    renonced["moves"][0]["nonce"] = json!("11".repeat(32));
    let r = verify(&app, &renonced).await;
    assert_eq!(r["commitments_match"], false, "{r}");
    assert_eq!(r["valid"], false);
    let r = verify(&app, &moved).await;
    assert_eq!(r["commitments_match"], false, "{r}");
    // A bundle from before receipts (no commitments at all) is judged without them.
    let mut older = bundle.clone();
    for mv in older["moves"].as_array_mut().expect("moves") {
        let mv = mv.as_object_mut().expect("move");
        mv.remove("commitment");
        mv.remove("nonce");
    }
    let r = verify(&app, &older).await;
    assert_eq!(r["valid"], true, "{r}");
    // Another seed.
    let mut reseeded = bundle.clone();
    reseeded["seed"] = json!("00".repeat(32));
    let r = verify(&app, &reseeded).await;
    assert_eq!(r["seed_matches_hash"], false);
    assert_eq!(r["valid"], false);
    // Another result.
    let mut rescored = bundle.clone();
    rescored["result"][0]["score"] = json!(999);
    let r = verify(&app, &rescored).await;
    assert_eq!(r["result_matches"], false);
    assert_eq!(r["valid"], false);
    // Other component data.
    let mut redata = bundle.clone();
    if let Some(files) = redata["data"].as_object_mut()
        && let Some((_, v)) = files.iter_mut().next()
    {
        *v = json!(format!("{} ", v.as_str().unwrap_or("")));
    }
    let r = verify(&app, &redata).await;
    assert_eq!(r["data_matches_hash"], false);

    // The command line agrees.
    let dir = tempfile::tempdir().expect("dir");
    let good = dir.path().join("good.json");
    let bad = dir.path().join("bad.json");
    std::fs::write(&good, bundle.to_string()).expect("write");
    std::fs::write(&bad, rescored.to_string()).expect("write");
    let run = |p: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_sealed-orders"))
            .arg("verify")
            .arg(p)
            .output()
            .expect("run verify")
            .status
            .success()
    };
    assert!(run(&good));
    assert!(!run(&bad));
}

#[tokio::test]
async fn verification_is_rate_limited_with_headers() {
    let app = spawn_app().await;
    let junk = json!({
        "match_id": uuid::Uuid::nil(), "game": "malacca", "status": "finished", "engine_version": "x",
        "data": {}, "data_sha256": "", "options": {}, "seats": 2, "players": [], "seed_sha256": "",
        "seed": null, "moves": [], "rounds": [], "result": null
    });
    let mut limited = None;
    for _ in 0..40 {
        let r = app.post("/api/v1/replays/verify", None, &junk).await;
        if r.status.as_u16() == 429 {
            limited = Some(r);
            break;
        }
        assert_eq!(r.status.as_u16(), 200);
        assert!(r.headers.contains_key("ratelimit-remaining"));
    }
    let r = limited.expect("the limit is met within 40 calls");
    r.problem(429, "rate_limited");
    assert!(r.headers.contains_key("retry-after"));
}

#[tokio::test]
async fn bulk_export_streams_finished_matches_as_ndjson_resumable_by_cursor() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        let id = app
            .started_match(&players, "malacca", json!({"ships": [4]}))
            .await;
        app.play_to_end(&id, &players, 3).await;
        ids.push(id);
    }
    app.started_match(&players, "malacca", json!({})).await; // active: not exported
    let first = app
        .get("/api/v1/exports/matches?game=malacca&limit=2", None)
        .await;
    assert_eq!(first.status.as_u16(), 200);
    assert_eq!(first.content_type, "application/x-ndjson");
    let lines: Vec<Value> = first
        .text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(lines.len(), 2);
    let cursor = first.headers["next-cursor"]
        .to_str()
        .expect("cursor")
        .to_owned();
    let rest = app
        .get(
            &format!("/api/v1/exports/matches?game=malacca&limit=2&cursor={cursor}"),
            None,
        )
        .await;
    let more: Vec<Value> = rest
        .text
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect();
    assert_eq!(more.len(), 1);
    assert!(!rest.headers.contains_key("next-cursor"));
    let exported: Vec<String> = lines
        .iter()
        .chain(&more)
        .map(|b| b["match_id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(exported, ids, "oldest first, each once");
    for b in lines.iter().chain(&more) {
        assert_eq!(verify(&app, b).await["valid"], true);
    }
    app.get("/api/v1/exports/matches?limit=0", None)
        .await
        .problem(400, "invalid_limit");
}
