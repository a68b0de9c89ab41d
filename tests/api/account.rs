//! Deleting one's own account: the matches it is in, what it leaves behind,
//! and the history that stays.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app};

async fn delete(app: &TestApp, token: &str, password: &str) -> crate::helpers::Reply {
    app.post(
        "/api/v1/players/me/delete",
        Some(token),
        &json!({ "password": password }),
    )
    .await
}

async fn waiting_match(app: &TestApp, owner: &Player, seats: usize) -> String {
    app.post(
        "/api/v1/matches",
        Some(&owner.token),
        &json!({"game": "malacca", "seats": seats}),
    )
    .await
    .expect(201)["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

fn seat_names(m: &Value) -> Vec<String> {
    m["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["player"]["name"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[tokio::test]
async fn a_deleted_account_leaves_its_matches_and_its_history_stays_under_an_anonymous_name() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let (a, b) = (&players[0], &players[1]);

    let finished = app.started_match(&players[..2], "malacca", json!({})).await;
    app.play_to_end(&finished, &players[..2], 7).await;
    let active = app.started_match(&players, "malacca", json!({})).await;
    let mine_alone = waiting_match(&app, a, 3).await;
    let theirs = waiting_match(&app, b, 3).await;
    app.post(
        &format!("/api/v1/matches/{theirs}/join"),
        Some(&a.token),
        &json!({}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{active}/messages"),
        Some(&a.token),
        &json!({"text": "good luck"}),
    )
    .await
    .expect(201);
    app.send(
        Method::PUT,
        &format!("/api/v1/players/me/mutes/{}", a.name),
        Some(&b.token),
        None,
    )
    .await
    .expect(200);
    let api_token = app
        .post(
            "/api/v1/players/me/tokens",
            Some(&a.token),
            &json!({"name": "bot", "scopes": ["play"]}),
        )
        .await
        .expect(201)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let before = app.match_as(&active, None).await;

    // Refusals change nothing.
    delete(&app, &a.token, "not the password")
        .await
        .problem(403, "wrong_password");
    delete(&app, &api_token, "password1")
        .await
        .problem(403, "password_session_required");
    app.post("/api/v1/players/me/delete", Some(&a.token), &json!({}))
        .await
        .problem(422, "invalid_body");
    assert_eq!(
        app.match_as(&active, None).await["version"],
        before["version"]
    );
    app.get("/api/v1/players/me", Some(&a.token))
        .await
        .expect(200);

    assert_eq!(delete(&app, &a.token, "password1").await.status, 204);

    // Every way in is closed, and the name stays reserved.
    for token in [&a.token, &api_token] {
        app.get("/api/v1/players/me", Some(token))
            .await
            .problem(401, "invalid_token");
    }
    app.post(
        "/api/v1/auth/token",
        None,
        &json!({"name": a.name, "password": "password1"}),
    )
    .await
    .problem(401, "invalid_credentials");
    app.get(&format!("/api/v1/players/{}", a.name), None)
        .await
        .problem(404, "player_not_found");
    app.post(
        "/api/v1/players",
        None,
        &json!({"name": a.name.to_uppercase(), "password": "password1"}),
    )
    .await
    .problem(409, "name_taken");

    // The history stays, under the anonymous name.
    let done = app.match_as(&finished, None).await;
    assert_eq!(done["status"], "finished");
    let names = seat_names(&done);
    assert!(names[0].starts_with("deleted."), "{names:?}");
    assert_eq!(names[1], b.name);
    assert_eq!(done["result"].as_array().map(Vec::len), Some(2));
    app.get(&format!("/api/v1/matches/{finished}/moves"), None)
        .await
        .expect(200);

    // The active match goes on without the seat, which forfeited.
    let now = app.match_as(&active, None).await;
    assert_eq!(now["status"], "active");
    assert_eq!(now["seats"][0]["presence"], "forfeited");
    assert_eq!(seat_names(&now)[0], names[0]);
    let events = app
        .get(&format!("/api/v1/matches/{active}/events"), None)
        .await
        .expect(200);
    assert!(
        events["items"]
            .as_array()
            .expect("items")
            .iter()
            .any(|e| e["kind"] == "seat_forfeited" && e["data"]["seat"] == 0)
    );
    // Its chat keeps the message, without its text.
    let chat = app
        .get(
            &format!("/api/v1/matches/{active}/messages"),
            Some(&b.token),
        )
        .await
        .expect(200);
    let said = &chat["items"][0];
    assert_eq!(said["text"], Value::Null, "{chat}");
    assert!(!chat.to_string().contains("good luck"));

    // The waiting match it owned alone is cancelled; it left the other.
    assert_eq!(app.match_as(&mine_alone, None).await["status"], "aborted");
    let other = app.match_as(&theirs, None).await;
    assert_eq!(other["status"], "waiting");
    assert_eq!(
        seat_names(&other),
        vec![b.name.clone(), String::new(), String::new()]
    );

    // What only served the account is gone.
    let mutes = app
        .get("/api/v1/players/me/mutes", Some(&b.token))
        .await
        .expect(200);
    assert_eq!(mutes["items"], json!([]));
    let board = app
        .get("/api/v1/leaderboards/malacca?min_games=0", None)
        .await
        .expect(200);
    assert!(
        !board.to_string().contains(&a.id),
        "the deleted account is off the leaderboard: {board}"
    );
}

#[tokio::test]
async fn an_owner_who_deletes_their_account_hands_a_waiting_match_on_and_others_play_on() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = waiting_match(&app, &players[0], 3).await;
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    assert_eq!(
        delete(&app, &players[0].token, "password1").await.status,
        204
    );
    let m = app.match_as(&id, None).await;
    assert_eq!(m["status"], "waiting");
    assert_eq!(m["owner"]["name"], players[1].name);
    // The freed seat is taken.
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[2].token),
        &json!({}),
    )
    .await
    .expect(200);
    let m = app.match_as(&id, None).await;
    let mut names = seat_names(&m);
    names.retain(|n| !n.is_empty());
    names.sort();
    assert_eq!(
        names,
        vec![players[1].name.clone(), players[2].name.clone()]
    );
}
