//! Amending a sealed move: a seat replaces its sealed move until the step's
//! reveal; the first stays in the history as replaced, with its commitment.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, Reply, TestApp, heretics_position, spawn_app};

/// The players in seat order.
async fn by_seat(app: &TestApp, id: &str, players: &[Player]) -> Vec<Player> {
    let mut seated = Vec::new();
    for p in players {
        let seat = app.match_as(id, Some(p)).await["your_seat"]
            .as_u64()
            .expect("seated");
        seated.push((seat, p.clone()));
    }
    seated.sort_by_key(|(s, _)| *s);
    seated.into_iter().map(|(_, p)| p).collect()
}

/// A Heretics card played with an `Idempotency-Key`.
async fn play_keyed(
    app: &TestApp,
    id: &str,
    p: &Player,
    step: i64,
    card: &str,
    key: &str,
) -> Reply {
    app.send_with_headers(
        Method::POST,
        &format!("/api/v1/matches/{id}/moves"),
        Some(&p.token),
        Some(&json!({"step": step, "action": {"type": "play", "card": card}})),
        &[("Idempotency-Key", key)],
    )
    .await
}

async fn bet(app: &TestApp, id: &str, p: &Player, step: i64, card: &str, stake: i64) -> Reply {
    app.submit(
        id,
        p,
        step,
        json!({"type": "play", "card": card, "stake": stake}),
    )
    .await
}

#[tokio::test]
async fn a_sealed_personality_is_replaced_until_the_reveal_and_the_history_keeps_the_first() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"position": heretics_position()}),
        )
        .await;
    let p = by_seat(&app, &id, &players).await;
    let step = app.match_as(&id, None).await["step"]
        .as_i64()
        .expect("step");

    let first = play_keyed(&app, &id, &p[0], step, "hussites:1", "first")
        .await
        .expect(200);
    let second = play_keyed(&app, &id, &p[0], step, "hussites:11", "second")
        .await
        .expect(200);
    assert_eq!(second["action"]["card"], "hussites:11");
    assert_ne!(first["commitment"], second["commitment"]);
    assert!(second["version"].as_i64() > first["version"].as_i64());

    // Retries answer as they did: each key replays its own receipt.
    let again = play_keyed(&app, &id, &p[0], step, "hussites:1", "first")
        .await
        .expect(200);
    assert_eq!(again["commitment"], first["commitment"]);
    let again = play_keyed(&app, &id, &p[0], step, "hussites:11", "second")
        .await
        .expect(200);
    assert_eq!(again["commitment"], second["commitment"]);
    // A key used for one move cannot carry another.
    play_keyed(&app, &id, &p[0], step, "hussites:1", "second")
        .await
        .problem(409, "idempotency_key_reused");

    // The author sees the replacement; the card of the first is back in the hand.
    let mine = app.match_as(&id, Some(&p[0])).await;
    assert_eq!(mine["view"]["choice"], "hussites:11");
    assert_eq!(mine["view"]["hand"], json!(["hussites:1"]));
    assert_eq!(mine["prompt"]["your_turn"], false);

    // The others see that seat 0 replaced a move, never what either was.
    for reader in [Some(&p[1]), None] {
        let token = reader.map(|r| r.token.as_str());
        let moves = app
            .get(&format!("/api/v1/matches/{id}/moves"), token)
            .await
            .expect(200);
        let items = moves["items"].as_array().expect("items");
        assert_eq!(items.len(), 2);
        assert_eq!(items[0]["replaced"], true);
        assert_eq!(items[1]["replaced"], false);
        assert!(
            items
                .iter()
                .all(|m| m["sealed"] == true && m["nonce"].is_null())
        );
        assert_eq!(items[0]["commitment"], first["commitment"]);
        let events = app
            .get(&format!("/api/v1/matches/{id}/events"), token)
            .await
            .expect(200);
        let replaced: Vec<&Value> = events["items"]
            .as_array()
            .expect("items")
            .iter()
            .filter(|e| e["kind"] == "move_replaced")
            .collect();
        assert_eq!(replaced.len(), 1);
        assert_eq!(
            replaced[0]["data"],
            json!({"seat": 0, "step": step, "commitment": first["commitment"]})
        );
        let seen = format!("{moves}{events}");
        assert!(!seen.contains("hussites:1"), "a sealed card shows: {seen}");
        assert!(app.match_as(&id, reader).await["view"]["choice"].is_null());
    }

    // The reveal: the round is fought with the replacement, whose move and
    // nonce are public now; the replaced move stays its author's until the
    // match is over (it would tell the others a card of seat 0's hand).
    app.submit(
        &id,
        &p[1],
        step,
        json!({"type": "play", "card": "reformers:2"}),
    )
    .await
    .expect(200);
    app.submit(
        &id,
        &p[2],
        step,
        json!({"type": "play", "card": "catholics:3"}),
    )
    .await
    .expect(200);
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    assert_eq!(rounds["items"][0]["seats"][0]["card"], "hussites:11");
    let moves = app
        .get(&format!("/api/v1/matches/{id}/moves"), None)
        .await
        .expect(200);
    let items = moves["items"].as_array().expect("items");
    assert_eq!(items[0]["replaced"], true);
    assert_eq!(items[0]["sealed"], true);
    assert!(items[0]["nonce"].is_null());
    assert_eq!(items[0]["commitment"], first["commitment"]);
    assert!(!moves.to_string().contains("hussites:1\""), "{moves}");
    assert!(
        items[1..]
            .iter()
            .all(|m| m["sealed"] == false && m["nonce"].is_string())
    );
    let own = app
        .get(&format!("/api/v1/matches/{id}/moves"), Some(&p[0].token))
        .await
        .expect(200);
    assert_eq!(own["items"][0]["action"]["card"], "hussites:1");

    // The step is over: its move stands.
    app.submit(
        &id,
        &p[0],
        step,
        json!({"type": "play", "card": "hussites:1"}),
    )
    .await
    .problem(409, "already_moved");

    // The finished match's bundle replays without the replaced move and checks
    // its commitment with the rest.
    app.play_to_end(&id, &p, 3).await;
    let bundle = app
        .get(&format!("/api/v1/matches/{id}/export"), None)
        .await
        .expect(200);
    assert_eq!(bundle["moves"][0]["replaced"], true);
    assert_eq!(bundle["moves"][0]["action"]["card"], "hussites:1");
    assert!(bundle["moves"][0]["nonce"].is_string());
    let report = app
        .post("/api/v1/replays/verify", None, &bundle)
        .await
        .expect(200);
    assert_eq!(report["valid"], true, "{report}");
    assert_eq!(report["commitments_match"], true);
    let mut forged = bundle.clone();
    forged["moves"][0]["action"]["card"] = json!("hussites:11");
    let report = app
        .post("/api/v1/replays/verify", None, &forged)
        .await
        .expect(200);
    assert_eq!(report["commitments_match"], false, "{report}");
}

#[tokio::test]
async fn an_open_bet_stands_and_a_sealed_stake_bet_is_replaced_with_another_stake() {
    let app = spawn_app().await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [8, 9], "special_deck": ["trade2"],
        "players": [
            {"coins": 5, "specials": ["attack2"]},
            {"coins": 5, "specials": []},
            {"coins": 5, "specials": []}
        ]
    });
    // Open betting: the stake was on the table for the next seat to see.
    let players = app.players(3).await;
    let id = app
        .started_match(&players, "malacca", json!({"position": position}))
        .await;
    let p = by_seat(&app, &id, &players).await;
    let step = app.match_as(&id, None).await["step"]
        .as_i64()
        .expect("step");
    bet(&app, &id, &p[0], step, "trade", 1).await.expect(200);
    let before = app.match_as(&id, None).await;
    bet(&app, &id, &p[0], step, "attack", 1)
        .await
        .problem(409, "already_moved");
    assert_eq!(app.match_as(&id, None).await["version"], before["version"]);

    // Sealed stakes: nothing of the bet shows, so card and stake may both change.
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"position": position, "stakes": "sealed"}),
        )
        .await;
    let p = by_seat(&app, &id, &players).await;
    let step = app.match_as(&id, None).await["step"]
        .as_i64()
        .expect("step");
    bet(&app, &id, &p[0], step, "attack2", 3).await.expect(200);
    bet(&app, &id, &p[0], step, "trade", 0).await.expect(200);
    // A move that does not validate changes nothing.
    let version = app.match_as(&id, None).await["version"].clone();
    bet(&app, &id, &p[0], step, "trade", 9)
        .await
        .problem(422, "illegal_move");
    assert_eq!(app.match_as(&id, None).await["version"], version);
    bet(&app, &id, &p[1], step, "trade", 0).await.expect(200);
    bet(&app, &id, &p[2], step, "trade", 0).await.expect(200);
    let moves = app
        .get(&format!("/api/v1/matches/{id}/moves"), None)
        .await
        .expect(200);
    let seat0: Vec<&Value> = moves["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|m| m["seat"] == 0 && m["step"] == step)
        .collect();
    assert_eq!(seat0.len(), 2);
    assert_eq!(seat0[0]["replaced"], true);
    assert_eq!(
        seat0[1]["action"],
        json!({"type": "play", "card": "trade", "stake": 0})
    );
}
