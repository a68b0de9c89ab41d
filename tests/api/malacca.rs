//! Malacca's expansions over HTTP: characters, equipment, Sayyida's private step.

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app};

fn coins(m: &Value) -> Vec<i64> {
    m["final_state"]["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["coins"].as_i64().expect("coins"))
        .collect()
}

/// Submits for whoever the prompt awaits, asserting the prompt kind.
async fn act(app: &TestApp, id: &str, players: &[Player], kind: &str, seat: usize, action: Value) {
    let m = app.match_as(id, None).await;
    assert_eq!(m["prompt"]["kind"], kind, "{}", m["prompt"]);
    assert_eq!(m["prompt"]["awaiting"], json!([seat]), "{}", m["prompt"]);
    let step = m["prompt"]["step"].as_i64().expect("step");
    app.submit(id, &players[seat], step, action)
        .await
        .expect(200);
}

/// Rules §11 example 14: purchases in order from the captain, then all three bonuses.
#[tokio::test]
async fn equipment_from_a_position_resolves_to_the_coins_of_example_14() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let position = json!({
        "round": 1, "captain": 1, "ships": [8], "special_deck": [],
        "players": [{"coins": 12}, {"coins": 7}, {"coins": 4}],
        "equipment_supply": {"better_attack": 4, "better_defense": 4, "better_trade": 4}
    });
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"equipment": true, "position": position}),
        )
        .await;
    let m = app.match_as(&id, Some(&players[1])).await;
    assert_eq!(
        m["view"]["ship_value"],
        Value::Null,
        "the ship is not known while buying"
    );
    act(
        &app,
        &id,
        &players,
        "equipment_purchase",
        1,
        json!({"type": "buy", "kind": "better_trade"}),
    )
    .await;
    // Seat 2 cannot afford anything: its legal moves are a pass only.
    let mine = app.match_as(&id, Some(&players[2])).await;
    assert_eq!(mine["prompt"]["legal"], json!([{"type": "pass"}]));
    act(
        &app,
        &id,
        &players,
        "equipment_purchase",
        2,
        json!({"type": "pass"}),
    )
    .await;
    act(
        &app,
        &id,
        &players,
        "equipment_purchase",
        0,
        json!({"type": "buy", "kind": "better_defense"}),
    )
    .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["view"]["ship_value"], 8);
    assert_eq!(
        m["view"]["equipment_supply"],
        json!({"better_attack": 4, "better_defense": 3, "better_trade": 3})
    );
    act(
        &app,
        &id,
        &players,
        "bet",
        1,
        json!({"type": "play", "card": "trade", "stake": 2}),
    )
    .await;
    act(
        &app,
        &id,
        &players,
        "bet",
        2,
        json!({"type": "play", "card": "attack", "stake": 1}),
    )
    .await;
    act(
        &app,
        &id,
        &players,
        "bet",
        0,
        json!({"type": "play", "card": "defense", "stake": 0}),
    )
    .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["status"], "finished");
    assert_eq!(coins(&m), vec![12, 9, 2]);
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    let reasons: Vec<&str> = rounds["items"][0]["ledger"]
        .as_array()
        .expect("ledger")
        .iter()
        .filter_map(|l| l["reason"].as_str())
        .collect();
    for r in [
        "equipment_purchase",
        "equipment_bonus",
        "trade_profit",
        "caught_penalty",
    ] {
        assert!(reasons.contains(&r), "no {r} in {reasons:?}");
    }
}

/// Rules §11 example 11, with Sayyida's private keep: nobody else sees her two cards.
#[tokio::test]
async fn characters_resolve_example_11_and_sayyidas_choice_stays_private() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [9],
        "special_deck": ["attack2", "trade2", "defense2"],
        "players": [
            {"coins": 7, "character": "henry_morgan"},
            {"coins": 6, "character": "ingrid_hammar"},
            {"coins": 3, "character": "pierre_le_picard"},
            {"coins": 5, "character": "sayyida_al_hurra", "specials": ["wait_defense_trade"]}
        ]
    });
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"characters": true, "position": position}),
        )
        .await;
    act(
        &app,
        &id,
        &players,
        "bet",
        0,
        json!({"type": "play", "card": "defense", "stake": 1}),
    )
    .await;
    act(
        &app,
        &id,
        &players,
        "bet",
        1,
        json!({"type": "play", "card": "attack", "stake": 2}),
    )
    .await;
    act(
        &app,
        &id,
        &players,
        "bet",
        2,
        json!({"type": "play", "card": "attack", "stake": 0}),
    )
    .await;
    act(
        &app,
        &id,
        &players,
        "bet",
        3,
        json!({"type": "play", "card": "wait_defense_trade", "stake": 0}),
    )
    .await;
    act(
        &app,
        &id,
        &players,
        "waiting_choice",
        3,
        json!({"type": "choose", "kind": "defense"}),
    )
    .await;
    // Now Sayyida has drawn trade2 and defense2 and must keep one.
    let hers = app.match_as(&id, Some(&players[3])).await;
    assert_eq!(hers["prompt"]["kind"], "sayyida_keep");
    let legal = hers["prompt"]["legal"]
        .as_array()
        .expect("her options")
        .clone();
    assert_eq!(legal.len(), 2);
    for (who, reader) in [
        ("seat 0", Some(&players[0])),
        ("seat 1", Some(&players[1])),
        ("a spectator", None),
    ] {
        for path in [
            format!("/api/v1/matches/{id}"),
            format!("/api/v1/matches/{id}/events"),
            format!("/api/v1/matches/{id}/moves"),
            format!("/api/v1/matches/{id}/rounds"),
            format!("/api/v1/matches/{id}/export"),
        ] {
            let body = app.get(&path, reader.map(|p| p.token.as_str())).await.text;
            let body = match serde_json::from_str::<Value>(&body) {
                Ok(mut v) => {
                    v["data"] = Value::Null; // public component data names every card
                    v.to_string()
                }
                Err(_) => body,
            };
            for secret in ["trade2", "defense2"] {
                assert!(
                    !body.contains(secret),
                    "{who} sees {secret} in {path}: {body}"
                );
            }
        }
        let m = app.match_as(&id, reader).await;
        assert_eq!(m["prompt"]["legal"], Value::Null, "{who} gets no options");
    }
    act(
        &app,
        &id,
        &players,
        "sayyida_keep",
        3,
        json!({"type": "keep", "card": "defense2"}),
    )
    .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["status"], "finished");
    assert_eq!(coins(&m), vec![11, 2, 3, 6]);
    let hand = m["final_state"]["players"][3]["hand"].to_string();
    assert!(hand.contains("defense2") && !hand.contains("trade2"));
    let deck = m["final_state"]["special_deck"].as_array().expect("deck");
    assert_eq!(
        deck.first(),
        Some(&json!("trade2")),
        "the card she put back, then the played card"
    );
}

/// The card Sayyida keeps is hers alone until the match ends, though the next
/// round's reveal makes every bet public.
#[tokio::test]
async fn sayyidas_kept_card_stays_private_after_the_next_reveal() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [9, 5, 5],
        "special_deck": ["attack2", "trade2", "defense2"],
        "players": [
            {"coins": 7, "character": "henry_morgan"},
            {"coins": 6, "character": "ingrid_hammar"},
            {"coins": 3, "character": "pierre_le_picard"},
            {"coins": 5, "character": "sayyida_al_hurra", "specials": ["wait_defense_trade"]}
        ]
    });
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"characters": true, "position": position}),
        )
        .await;
    let bet = |card: &str, stake: i64| json!({"type": "play", "card": card, "stake": stake});
    act(&app, &id, &players, "bet", 0, bet("defense", 1)).await;
    act(&app, &id, &players, "bet", 1, bet("attack", 2)).await;
    act(&app, &id, &players, "bet", 2, bet("attack", 0)).await;
    act(&app, &id, &players, "bet", 3, bet("wait_defense_trade", 0)).await;
    act(
        &app,
        &id,
        &players,
        "waiting_choice",
        3,
        json!({"type": "choose", "kind": "defense"}),
    )
    .await;
    act(
        &app,
        &id,
        &players,
        "sayyida_keep",
        3,
        json!({"type": "keep", "card": "defense2"}),
    )
    .await;
    for seat in [1, 2, 3, 0] {
        act(&app, &id, &players, "bet", seat, bet("trade", 0)).await;
    }
    let m = app.match_as(&id, None).await;
    assert_eq!(m["status"], "active");
    assert_eq!(m["view"]["round"], 3);
    for (who, reader) in [("seat 0", Some(&players[0])), ("a spectator", None)] {
        let moves = app
            .get(
                &format!("/api/v1/matches/{id}/moves?limit=200"),
                reader.map(|p| p.token.as_str()),
            )
            .await
            .expect(200);
        let keep = moves["items"]
            .as_array()
            .expect("moves")
            .iter()
            .find(|mv| mv["action"]["type"] == "keep")
            .expect("the keep move is listed")
            .clone();
        assert_eq!(keep["sealed"], true, "{who}");
        assert!(
            !moves.to_string().contains("defense2"),
            "{who} sees the kept card"
        );
        let export = app
            .get(
                &format!("/api/v1/matches/{id}/export"),
                reader.map(|p| p.token.as_str()),
            )
            .await
            .expect(200);
        assert!(
            !export["moves"].to_string().contains("defense2"),
            "{who} sees it in the export"
        );
    }
    let own = app
        .get(
            &format!("/api/v1/matches/{id}/moves?limit=200"),
            Some(&players[3].token),
        )
        .await
        .expect(200);
    assert!(own.to_string().contains("defense2"), "its author sees it");
}
