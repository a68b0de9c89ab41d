//! Complete games and positions over HTTP.

use serde_json::{Value, json};

use crate::helpers::spawn_app;

fn sorted(v: &Value) -> Vec<u64> {
    let mut out: Vec<u64> = v
        .as_array()
        .expect("array")
        .iter()
        .filter_map(Value::as_u64)
        .collect();
    out.sort();
    out
}

fn ships(n: usize) -> Value {
    json!((0..n).map(|i| 3 + (i % 11) as i64).collect::<Vec<_>>())
}

async fn complete_game(seats: usize, options: Value, seed: u8) {
    let app = spawn_app().await;
    let players = app.players(seats).await;
    let id = app.started_match(&players, "malacca", options).await;
    let (m, moves) = app.play_to_end(&id, &players, seed).await;
    assert_eq!(m["status"], "finished");
    assert!(
        moves >= 12 * seats,
        "every seat bets every round: {moves} moves"
    );
    let result = m["result"].as_array().expect("result");
    assert_eq!(result.len(), seats);
    assert!(result.iter().any(|p| p["rank"] == 1));
    assert!(
        m["seed"].as_str().is_some_and(|s| s.len() == 64),
        "the seed is published"
    );
    assert!(m["final_state"]["players"][0]["hand"].is_array());
    assert!(m["final_state"]["special_deck"].is_array());
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    let items = rounds["items"].as_array().expect("items");
    assert_eq!(items.len(), 12);
    // Every seat's coin change in a round is explained by its ledger.
    for r in items {
        for s in r["seats"].as_array().expect("seats") {
            let seat = &s["seat"];
            let sum: i64 = r["ledger"]
                .as_array()
                .expect("ledger")
                .iter()
                .filter(|l| &l["seat"] == seat)
                .map(|l| l["amount"].as_i64().expect("amount"))
                .sum();
            assert_eq!(
                sum,
                s["delta"].as_i64().expect("delta"),
                "round {}",
                r["round"]
            );
        }
    }
    // The scores are the final coins.
    let final_coins: Vec<i64> = m["final_state"]["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["coins"].as_i64().expect("coins"))
        .collect();
    for p in result {
        let seat = p["seat"].as_u64().expect("seat") as usize;
        assert_eq!(p["score"].as_i64(), Some(final_coins[seat]));
    }
}

#[tokio::test]
async fn a_complete_game_of_two_players_finishes_with_a_ranking() {
    complete_game(2, json!({"ships": ships(12)}), 2).await;
}

#[tokio::test]
async fn a_complete_game_of_five_players_finishes_with_a_ranking() {
    complete_game(5, json!({}), 5).await;
}

#[tokio::test]
async fn a_complete_game_of_eight_players_finishes_with_a_ranking() {
    complete_game(8, json!({"ships": ships(12)}), 8).await;
}

#[tokio::test]
async fn a_complete_game_in_the_sealed_stakes_variant_finishes() {
    complete_game(4, json!({"stakes": "sealed", "ships": ships(12)}), 4).await;
}

#[tokio::test]
async fn a_sealed_betting_step_takes_every_seat_in_any_order_under_one_step() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"stakes": "sealed", "ships": [9, 9]}),
        )
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["prompt"]["sealed"], true);
    assert_eq!(sorted(&m["prompt"]["awaiting"]), vec![0, 1, 2]);
    let r = app
        .submit(
            &id,
            &players[2],
            0,
            json!({"type": "play", "card": "trade", "stake": 2}),
        )
        .await
        .expect(200);
    assert_eq!(r["completes_step"], false);
    let m = app.match_as(&id, Some(&players[0])).await;
    assert_eq!(sorted(&m["prompt"]["awaiting"]), vec![0, 1]);
    assert_eq!(m["step"], 0);
    // Others see that seat 2 played, but neither its stake nor a reduced balance.
    let p2 = &m["view"]["players"][2];
    assert_eq!(p2["has_played"], true);
    assert_eq!(p2["stake"], Value::Null);
    assert_eq!(p2["coins"], 5);
    // Its own view is live.
    let mine = app.match_as(&id, Some(&players[2])).await;
    assert_eq!(mine["view"]["players"][2]["coins"], 3);
    app.submit(
        &id,
        &players[0],
        0,
        json!({"type": "play", "card": "trade", "stake": 1}),
    )
    .await
    .expect(200);
    let last = app
        .submit(
            &id,
            &players[1],
            0,
            json!({"type": "play", "card": "trade", "stake": 0}),
        )
        .await
        .expect(200);
    assert_eq!(last["completes_step"], true);
    let m = app.match_as(&id, None).await;
    assert_eq!(m["step"], 1);
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    assert_eq!(rounds["items"][0]["outcome"], "defended");
}

/// Rules §11 example 3: a failed attack, defenders split, draws in order.
#[tokio::test]
async fn a_position_resolves_a_round_to_the_coins_the_rules_give() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let position = json!({
        "round": 1, "captain": 1, "ships": [12],
        "special_deck": ["trade2", "wait_attack_defense"],
        "players": [
            {"coins": 9, "specials": ["defense2"]},
            {"coins": 6, "specials": []},
            {"coins": 14, "specials": []},
            {"coins": 4, "specials": []}
        ]
    });
    let id = app
        .started_match(&players, "malacca", json!({"position": position}))
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["options"]["position"], json!({"redacted": true}));
    assert_eq!(m["rated"], false);
    let bets = [
        (1, json!({"type": "play", "card": "defense", "stake": 0})),
        (2, json!({"type": "play", "card": "attack", "stake": 3})),
        (3, json!({"type": "play", "card": "trade", "stake": 4})),
        (0, json!({"type": "play", "card": "defense2", "stake": 1})),
    ];
    for (step, (seat, action)) in bets.into_iter().enumerate() {
        app.submit(&id, &players[seat], step as i64, action)
            .await
            .expect(200);
    }
    let m = app.match_as(&id, None).await;
    assert_eq!(m["status"], "finished");
    let coins: Vec<i64> = m["final_state"]["players"]
        .as_array()
        .expect("players")
        .iter()
        .map(|p| p["coins"].as_i64().expect("coins"))
        .collect();
    assert_eq!(coins, vec![10, 8, 6, 8]);
    assert_eq!(
        m["options"]["position"]["captain"], 1,
        "the position is public once over"
    );
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    let r = &rounds["items"][0];
    assert_eq!(r["outcome"], "defended");
    assert_eq!(r["total_a"], 1);
    assert_eq!(r["total_b"], 3);
    assert_eq!(r["value"], 12);
    assert_eq!(r["lead_seat"], 1);
    let drew: Vec<i64> = r["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["drew"].as_i64().expect("drew"))
        .collect();
    assert_eq!(drew, vec![1, 1, 0, 0]);
    let penalty: Vec<&Value> = r["ledger"]
        .as_array()
        .expect("ledger")
        .iter()
        .filter(|l| l["reason"] == "caught_penalty")
        .collect();
    assert_eq!(penalty.len(), 1);
    assert_eq!(penalty[0]["seat"], 2);
    assert_eq!(penalty[0]["amount"], -5);
}

#[tokio::test]
async fn a_position_that_breaks_the_box_is_refused_with_422() {
    let app = spawn_app().await;
    let p = app.player("alice").await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [5],
        "special_deck": ["attack2", "attack2", "attack2"],
        "players": [{"coins": 5, "specials": ["attack2", "attack2"]}, {"coins": 5, "specials": []}]
    });
    app.post(
        "/api/v1/matches",
        Some(&p.token),
        &json!({"game": "malacca", "seats": 2, "options": {"position": position}}),
    )
    .await
    .problem(422, "invalid_position");
    let negative = json!({
        "round": 1, "captain": 0, "ships": [5], "special_deck": [],
        "players": [{"coins": -1, "specials": []}, {"coins": 5, "specials": []}]
    });
    app.post(
        "/api/v1/matches",
        Some(&p.token),
        &json!({"game": "malacca", "seats": 2, "options": {"position": negative}}),
    )
    .await
    .problem(422, "invalid_position");
    let listed = app.get("/api/v1/matches", None).await.expect(200);
    assert_eq!(listed["items"], json!([]), "nothing was stored");
}

#[tokio::test]
async fn resending_a_move_answers_the_original_and_a_different_one_conflicts() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [5, 6], "special_deck": [],
        "players": [{"coins": 5, "specials": []}, {"coins": 5, "specials": []}]
    });
    let id = app
        .started_match(&players, "malacca", json!({"position": position}))
        .await;
    let bet = json!({"type": "play", "card": "attack", "stake": 2});
    let first = app
        .submit(&id, &players[0], 0, bet.clone())
        .await
        .expect(200);
    // Seat 1 moves too, so the step has moved on when seat 0 retries.
    app.submit(
        &id,
        &players[1],
        1,
        json!({"type": "play", "card": "trade", "stake": 0}),
    )
    .await
    .expect(200);
    let again = app.submit(&id, &players[0], 0, bet).await.expect(200);
    assert_eq!(first, again);
    app.submit(
        &id,
        &players[0],
        0,
        json!({"type": "play", "card": "trade", "stake": 1}),
    )
    .await
    .problem(409, "already_moved");
    let stale = app
        .submit(
            &id,
            &players[1],
            0,
            json!({"type": "play", "card": "trade", "stake": 1}),
        )
        .await
        .problem(409, "stale_step");
    assert_eq!(stale["current_step"], 2);
    let moves = app
        .get(&format!("/api/v1/matches/{id}/moves"), None)
        .await
        .expect(200);
    assert_eq!(moves["items"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn every_move_error_class_answers_its_problem_and_stores_nothing() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let outsider = app.player("outsider").await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [5], "special_deck": [],
        "players": [{"coins": 5, "specials": []}, {"coins": 5, "specials": []}, {"coins": 5, "specials": []}]
    });
    let id = app
        .started_match(&players, "malacca", json!({"position": position}))
        .await;
    let bet = json!({"type": "play", "card": "attack", "stake": 1});
    let path = format!("/api/v1/matches/{id}/moves");
    app.post(&path, None, &json!({"step": 0, "action": bet}))
        .await
        .problem(401, "unauthorized");
    app.post(&path, Some("garbage"), &json!({"step": 0, "action": bet}))
        .await
        .problem(401, "invalid_token");
    app.submit(&id, &outsider, 0, bet.clone())
        .await
        .problem(403, "not_seated");
    app.submit(&id, &players[1], 0, bet.clone())
        .await
        .problem(409, "not_your_turn");
    app.submit(&id, &players[0], 3, bet.clone())
        .await
        .problem(409, "stale_step");
    let too_much = app
        .submit(
            &id,
            &players[0],
            0,
            json!({"type": "play", "card": "attack", "stake": 6}),
        )
        .await
        .problem(422, "illegal_move");
    assert!(too_much["detail"].as_str().is_some_and(|d| d.len() > 10));
    app.submit(
        &id,
        &players[0],
        0,
        json!({"type": "play", "card": "attack2", "stake": 0}),
    )
    .await
    .problem(422, "illegal_move");
    app.submit(&id, &players[0], 0, json!({"type": "fly"}))
        .await
        .problem(422, "invalid_action");
    app.submit(
        &id,
        &players[0],
        0,
        json!({"type": "choose", "kind": "attack"}),
    )
    .await
    .problem(422, "illegal_move");
    app.post(&path, Some(&players[0].token), &json!({"step": "zero"}))
        .await
        .problem(422, "invalid_body");
    app.post(
        &format!("/api/v1/matches/{}/moves", uuid::Uuid::now_v7()),
        Some(&players[0].token),
        &json!({"step": 0, "action": bet}),
    )
    .await
    .problem(404, "match_not_found");
    let m = app.match_as(&id, None).await;
    assert_eq!(
        m["version"], 4,
        "only the three seatings and the start changed the match"
    );
    let moves = app
        .get(&format!("/api/v1/matches/{id}/moves"), None)
        .await
        .expect(200);
    assert_eq!(moves["items"], json!([]));
}

async fn complete_heretics_game(seats: usize, special_cities: bool, seed: u8) {
    let app = spawn_app().await;
    let players = app.players(seats).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"special_cities": special_cities}),
        )
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["prompt"]["kind"], "choose_personality");
    assert_eq!(m["prompt"]["sealed"], true);
    let (m, moves) = app.play_to_end(&id, &players, seed).await;
    assert_eq!(m["status"], "finished");
    assert!(moves >= 11 * seats, "{moves} moves");
    assert_eq!(m["result"].as_array().map(Vec::len), Some(seats));
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    let items = rounds["items"].as_array().expect("items");
    assert!(items.len() >= 11);
    for r in items {
        // Every seat's revealed personality and where it went.
        for s in r["seats"].as_array().expect("seats") {
            assert!(s["choice"].is_string() || s["card"].is_null(), "{s}");
        }
    }
}

#[tokio::test]
async fn heretics_complete_games_of_two_three_and_four_players_finish() {
    complete_heretics_game(2, true, 21).await;
    complete_heretics_game(3, false, 31).await;
    complete_heretics_game(4, true, 41).await;
}

#[tokio::test]
async fn heretics_complete_games_with_and_without_special_cities_finish() {
    complete_heretics_game(2, false, 22).await;
    complete_heretics_game(4, false, 42).await;
    complete_heretics_game(3, true, 32).await;
}

async fn complete_cairo_game(seats: usize, mode: &str, seed: u8) {
    let app = spawn_app().await;
    let players = app.players(seats).await;
    let id = app
        .started_match(&players, "cairo", json!({"mode": mode}))
        .await;
    let (m, moves) = app.play_to_end(&id, &players, seed).await;
    assert_eq!(m["status"], "finished", "after {moves} moves");
    assert_eq!(m["result"].as_array().map(Vec::len), Some(seats));
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    let items = rounds["items"].as_array().expect("items");
    assert!(!items.is_empty());
    assert_eq!(
        items.last().map(|r| r["outcome"].clone()),
        Some(json!("scoring"))
    );
}

#[tokio::test]
async fn cairo_complete_games_in_reported_mode_with_two_and_five_players_finish() {
    complete_cairo_game(2, "reported", 12).await;
    complete_cairo_game(5, "reported", 15).await;
}

#[tokio::test]
async fn cairo_complete_games_in_simulated_mode_with_two_and_five_players_finish() {
    complete_cairo_game(2, "simulated", 22).await;
    complete_cairo_game(5, "simulated", 25).await;
}

#[tokio::test]
async fn an_idempotency_key_replays_the_original_answer_and_refuses_another_move() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [5, 6], "special_deck": [],
        "players": [{"coins": 5, "specials": []}, {"coins": 5, "specials": []}]
    });
    let id = app
        .started_match(&players, "malacca", json!({"position": position}))
        .await;
    let send = |key: &'static str, body: Value| {
        let app = &app;
        let token = players[0].token.clone();
        let url = app.url(&format!("/api/v1/matches/{id}/moves"));
        async move {
            app.client
                .post(url)
                .bearer_auth(token)
                .header("Idempotency-Key", key)
                .json(&body)
                .send()
                .await
                .expect("send")
        }
    };
    let bet = json!({"step": 0, "action": {"type": "play", "card": "attack", "stake": 2}});
    let first = send("k-1", bet.clone()).await;
    assert_eq!(first.status().as_u16(), 200);
    assert!(first.headers().get("idempotent-replay").is_none());
    let first: Value = first.json().await.expect("json");
    let again = send("k-1", bet.clone()).await;
    assert_eq!(again.status().as_u16(), 200);
    assert_eq!(again.headers()["idempotent-replay"], "true");
    assert_eq!(again.json::<Value>().await.expect("json"), first);
    let other = send(
        "k-1",
        json!({"step": 0, "action": {"type": "play", "card": "trade", "stake": 0}}),
    )
    .await;
    assert_eq!(other.status().as_u16(), 409);
    assert_eq!(
        other.json::<Value>().await.expect("json")["code"],
        "idempotency_key_reused"
    );
    let moves = app
        .get(&format!("/api/v1/matches/{id}/moves"), None)
        .await
        .expect(200);
    assert_eq!(moves["items"].as_array().map(Vec::len), Some(1));
}

async fn complete_kontor_game(seats: usize, variant: &str, seed: u8) {
    let app = spawn_app().await;
    let players = app.players(seats).await;
    let id = app
        .started_match(&players, "kontor", json!({"variant": variant}))
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["prompt"]["kind"], "choose");
    assert_eq!(m["prompt"]["sealed"], true);
    let (m, moves) = app.play_to_end(&id, &players, seed).await;
    assert_eq!(m["status"], "finished", "after {moves} moves");
    assert_eq!(m["result"].as_array().map(Vec::len), Some(seats));
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    assert!(!rounds["items"].as_array().expect("items").is_empty());
    assert!(
        m["view"]["board"]["cells"].is_array(),
        "the board is drawable"
    );
}

#[tokio::test]
async fn kontor_complete_basic_duel_and_team_games_finish() {
    complete_kontor_game(2, "basic", 51).await;
    complete_kontor_game(2, "duel", 52).await;
    complete_kontor_game(4, "team", 54).await;
}

#[tokio::test]
async fn kontor_variant_follows_the_seats_and_a_misfit_is_422() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let two = app.started_match(&players[..2], "kontor", json!({})).await;
    assert_eq!(app.match_as(&two, None).await["view"]["variant"], "basic");
    let four = app.started_match(&players, "kontor", json!({})).await;
    assert_eq!(app.match_as(&four, None).await["view"]["variant"], "team");
    let p = &players[0];
    app.post(
        "/api/v1/matches",
        Some(&p.token),
        &json!({"game": "kontor", "seats": 4, "options": {"variant": "duel"}}),
    )
    .await
    .problem(422, "invalid_options");
    app.post(
        "/api/v1/matches",
        Some(&p.token),
        &json!({"game": "kontor", "seats": 3}),
    )
    .await
    .problem(422, "invalid_seats");
}

/// The move statement's other list form (multi-row `VALUES`, what a Citus
/// cluster gets) on this database: whole games of every game, whose bundles
/// replay, so the rows it wrote are the rows the engines recorded.
#[tokio::test]
async fn complete_games_written_with_values_lists_replay_from_their_bundles() {
    let (app, _clock) = crate::helpers::spawn_app_with(|s| s.move_lists = "values".into()).await;
    let everybody = app.players(4).await;
    for (game, seats, options) in [
        ("malacca", 4, json!({"stakes": "sealed"})),
        ("heretics", 3, json!({})),
        ("kontor", 2, json!({"variant": "duel"})),
        ("cairo", 2, json!({})),
    ] {
        let players = &everybody[..seats];
        let id = app.started_match(players, game, options).await;
        let (m, _) = app.play_to_end(&id, players, 7).await;
        assert_eq!(m["status"], "finished", "{game}");
        let bundle = app
            .get(&format!("/api/v1/matches/{id}/export"), None)
            .await
            .expect(200);
        let report = app
            .post("/api/v1/replays/verify", None, &bundle)
            .await
            .expect(200);
        assert_eq!(report["valid"], true, "{game}: {report}");
    }
}

#[tokio::test]
async fn each_game_gives_its_options_as_a_schema_whose_references_all_resolve() {
    let app = crate::helpers::spawn_app().await;
    for game in ["malacca", "heretics", "kontor", "cairo"] {
        let g = app
            .get(&format!("/api/v1/games/{game}"), None)
            .await
            .expect(200);
        let schema = &g["options_schema"];
        let root = schema["$ref"].as_str().expect("a root reference");
        let defs = schema["$defs"].as_object().expect("$defs");
        let text = schema.to_string();
        let mut refs = vec![root.to_owned()];
        refs.extend(
            text.split("\"$ref\":\"")
                .skip(1)
                .filter_map(|r| r.split('"').next().map(str::to_owned)),
        );
        for r in refs {
            let name = r
                .strip_prefix("#/$defs/")
                .unwrap_or_else(|| panic!("{game}: {r}"));
            assert!(defs.contains_key(name), "{game}: {r} resolves to nothing");
        }
        let root = &defs[root.trim_start_matches("#/$defs/")];
        for key in ["rated", "position", "move_time_limit", "timeout_policy"] {
            assert!(root["properties"].get(key).is_some(), "{game}: {key}");
        }
        for key in g["options"].as_object().expect("options").keys() {
            assert!(root["properties"].get(key).is_some(), "{game}: {key}");
        }
        assert_eq!(root["additionalProperties"], false, "{game}");
    }
}
