//! API tokens, password changes and the lifetime of JWTs.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app, spawn_app_with};

async fn api_token(app: &TestApp, owner: &Player, scopes: Value) -> (String, String) {
    let created = app
        .post(
            "/api/v1/players/me/tokens",
            Some(&owner.token),
            &json!({"name": "my bot", "scopes": scopes}),
        )
        .await
        .expect(201);
    (
        created["token"].as_str().expect("token").to_owned(),
        created["api_token"]["id"].as_str().expect("id").to_owned(),
    )
}

/// The same player, authenticating with another credential.
fn with_token(p: &Player, token: &str) -> Player {
    Player {
        name: p.name.clone(),
        token: token.to_owned(),
        id: p.id.clone(),
    }
}

/// The seat awaited first, its step, and a legal action for it.
async fn awaited_move(app: &TestApp, id: &str, players: &[Player]) -> (usize, i64, Value) {
    let m = app.match_as(id, None).await;
    let seat = m["prompt"]["awaiting"][0].as_u64().expect("awaited") as usize;
    let mine = app.match_as(id, Some(&players[seat])).await;
    let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
    let mut rng = sealed_orders::games::rng::GameRng::from_key([7; 32]);
    let action = sealed_orders::games::legal::sample(&legal, &mut rng).expect("a legal move");
    (seat, mine["prompt"]["step"].as_i64().expect("step"), action)
}

#[tokio::test]
async fn an_api_token_is_shown_once_listed_without_its_secret_and_revoked_by_its_owner() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let bob = app.player("bob").await;
    let (token, id) = api_token(&app, &alice, json!(["play", "read"])).await;
    assert!(token.starts_with("sot_") && token.len() > 40, "{token}");

    let me = app
        .get("/api/v1/players/me", Some(&token))
        .await
        .expect(200);
    assert_eq!(me["name"], "alice");

    let listed = app
        .get("/api/v1/players/me/tokens", Some(&alice.token))
        .await;
    let page = listed.expect(200);
    assert!(!listed.text.contains(&token), "the secret is never listed");
    assert!(!listed.text.contains(&token[4..]), "nor any of it");
    let item = &page["items"][0];
    assert_eq!(item["id"], id.as_str());
    assert_eq!(item["name"], "my bot");
    assert_eq!(item["scopes"], json!(["play", "read"]));
    assert_eq!(item["revoked_at"], Value::Null);
    assert_eq!(item["expires_at"], Value::Null);
    assert!(item["created_at"].is_string());

    // Only the owner sees and revokes it.
    let theirs = app
        .get("/api/v1/players/me/tokens", Some(&bob.token))
        .await
        .expect(200);
    assert_eq!(theirs["items"], json!([]));
    let path = format!("/api/v1/players/me/tokens/{id}");
    app.send(Method::DELETE, &path, Some(&bob.token), None)
        .await
        .problem(404, "token_not_found");
    app.get("/api/v1/players/me", Some(&token))
        .await
        .expect(200);

    for _ in 0..2 {
        let r = app
            .send(Method::DELETE, &path, Some(&alice.token), None)
            .await;
        assert_eq!(r.status.as_u16(), 204, "{}", r.text);
    }
    app.get("/api/v1/players/me", Some(&token))
        .await
        .problem(401, "invalid_token");
    let page = app
        .get("/api/v1/players/me/tokens", Some(&alice.token))
        .await
        .expect(200);
    assert!(page["items"][0]["revoked_at"].is_string());
}

#[tokio::test]
async fn a_read_token_cannot_submit_a_move_and_a_play_token_can() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let (seat, step, action) = awaited_move(&app, &id, &players).await;
    let owner = &players[seat];
    let (read, _) = api_token(&app, owner, json!(["read"])).await;
    let (play, _) = api_token(&app, owner, json!(["play"])).await;

    // `read` sees the match as its owner does.
    let seen = app.match_as(&id, Some(&with_token(owner, &read))).await;
    assert_eq!(seen["your_seat"], seat);
    assert_eq!(seen["prompt"]["your_turn"], true);
    app.submit(&id, &with_token(owner, &read), step, action.clone())
        .await
        .problem(403, "insufficient_scope");
    app.post(
        "/api/v1/matches",
        Some(&read),
        &json!({"game": "malacca", "seats": 3}),
    )
    .await
    .problem(403, "insufficient_scope");
    let untouched = app.match_as(&id, None).await;
    assert_eq!(untouched["step"], step);

    // `play` implies `read`, and plays.
    let as_bot = with_token(owner, &play);
    assert_eq!(app.match_as(&id, Some(&as_bot)).await["your_seat"], seat);
    let receipt = app.submit(&id, &as_bot, step, action).await.expect(200);
    assert_eq!(receipt["seat"], seat);
}

#[tokio::test]
async fn an_api_token_cannot_manage_tokens_or_change_the_password() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let (play, id) = api_token(&app, &alice, json!(["play", "read"])).await;
    app.post(
        "/api/v1/players/me/tokens",
        Some(&play),
        &json!({"name": "another", "scopes": ["play"]}),
    )
    .await
    .problem(403, "password_session_required");
    app.get("/api/v1/players/me/tokens", Some(&play))
        .await
        .problem(403, "password_session_required");
    app.send(
        Method::DELETE,
        &format!("/api/v1/players/me/tokens/{id}"),
        Some(&play),
        None,
    )
    .await
    .problem(403, "password_session_required");
    app.post(
        "/api/v1/players/me/password",
        Some(&play),
        &json!({"current_password": "password1", "new_password": "password2"}),
    )
    .await
    .problem(403, "password_session_required");
    // Nothing changed: the password and the token still work.
    app.post(
        "/api/v1/auth/token",
        None,
        &json!({"name": "alice", "password": "password1"}),
    )
    .await
    .expect(200);
    app.get("/api/v1/players/me", Some(&play)).await.expect(200);
}

#[tokio::test]
async fn a_jwt_issued_before_a_password_change_is_refused_and_one_issued_after_works() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let (bot, _) = api_token(&app, &alice, json!(["play"])).await;
    let change =
        |current: &str, new: &str| json!({"current_password": current, "new_password": new});
    app.post(
        "/api/v1/players/me/password",
        Some(&alice.token),
        &change("wrong-password", "password2"),
    )
    .await
    .problem(403, "wrong_password");
    app.post(
        "/api/v1/players/me/password",
        Some(&alice.token),
        &change("password1", "short"),
    )
    .await
    .problem(422, "weak_password");
    app.get("/api/v1/players/me", Some(&alice.token))
        .await
        .expect(200);

    let fresh = app
        .post(
            "/api/v1/players/me/password",
            Some(&alice.token),
            &change("password1", "password2"),
        )
        .await
        .expect(200);
    let fresh = fresh["access_token"].as_str().expect("a fresh token");
    app.get("/api/v1/players/me", Some(&alice.token))
        .await
        .problem(401, "invalid_token");
    app.get("/api/v1/players/me", Some(fresh)).await.expect(200);
    let login = |pw: &str| json!({"name": "alice", "password": pw});
    app.post("/api/v1/auth/token", None, &login("password1"))
        .await
        .problem(401, "invalid_credentials");
    let relogged = app
        .post("/api/v1/auth/token", None, &login("password2"))
        .await
        .expect(200);
    app.get("/api/v1/players/me", relogged["access_token"].as_str())
        .await
        .expect(200);
    // API tokens survive a routine change…
    app.get("/api/v1/players/me", Some(&bot)).await.expect(200);
    // …and not one made after a suspected compromise.
    let again = app
        .post(
            "/api/v1/players/me/password",
            Some(fresh),
            &json!({"current_password": "password2", "new_password": "password3",
                "revoke_api_tokens": true}),
        )
        .await
        .expect(200);
    app.get("/api/v1/players/me", Some(&bot))
        .await
        .problem(401, "invalid_token");
    app.get("/api/v1/players/me", Some(fresh))
        .await
        .problem(401, "invalid_token");
    app.get("/api/v1/players/me", again["access_token"].as_str())
        .await
        .expect(200);
}

#[tokio::test]
async fn a_jwt_lives_jwt_ttl_by_the_servers_clock() {
    let (app, clock) = spawn_app_with(|s| s.jwt_ttl_seconds = 600).await;
    let alice = app.player("alice").await;
    let issued = app
        .post(
            "/api/v1/auth/token",
            None,
            &json!({"name": "alice", "password": "password1"}),
        )
        .await
        .expect(200);
    let expires: chrono::DateTime<chrono::Utc> = issued["expires_at"]
        .as_str()
        .and_then(|t| t.parse().ok())
        .expect("expires_at");
    assert_eq!(expires - clock.now_utc(), chrono::Duration::seconds(600));
    clock.advance(chrono::Duration::seconds(590));
    app.get("/api/v1/players/me", Some(&alice.token))
        .await
        .expect(200);
    clock.advance(chrono::Duration::seconds(20));
    app.get("/api/v1/players/me", Some(&alice.token))
        .await
        .problem(401, "invalid_token");
}

#[tokio::test]
async fn an_api_token_past_its_expiry_is_refused() {
    let (app, clock) = spawn_app_with(|_| {}).await;
    let alice = app.player("alice").await;
    let at = clock.now_utc() + chrono::Duration::hours(1);
    let created = app
        .post(
            "/api/v1/players/me/tokens",
            Some(&alice.token),
            &json!({"name": "nightly", "scopes": ["read"], "expires_at": at}),
        )
        .await
        .expect(201);
    assert_eq!(
        created["api_token"]["expires_at"]
            .as_str()
            .and_then(|t| t.parse::<chrono::DateTime<chrono::Utc>>().ok()),
        Some(at)
    );
    let token = created["token"].as_str().expect("token");
    app.get("/api/v1/players/me", Some(token)).await.expect(200);
    clock.advance(chrono::Duration::hours(2));
    app.get("/api/v1/players/me", Some(token))
        .await
        .problem(401, "invalid_token");
}

#[tokio::test]
async fn bad_token_requests_are_refused_and_create_nothing() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let past = chrono::Utc::now() - chrono::Duration::minutes(1);
    for (body, code) in [
        (json!({"name": "x", "scopes": []}), "invalid_scopes"),
        (json!({"name": "x", "scopes": ["admin"]}), "invalid_body"),
        (
            json!({"name": " ", "scopes": ["read"]}),
            "invalid_token_name",
        ),
        (
            json!({"name": "x".repeat(65), "scopes": ["read"]}),
            "invalid_token_name",
        ),
        (
            json!({"name": "x", "scopes": ["read"], "expires_at": past}),
            "invalid_expiry",
        ),
    ] {
        app.post("/api/v1/players/me/tokens", Some(&alice.token), &body)
            .await
            .problem(422, code);
    }
    app.post(
        "/api/v1/players/me/tokens",
        None,
        &json!({"name": "x", "scopes": ["read"]}),
    )
    .await
    .problem(401, "unauthorized");
    let page = app
        .get("/api/v1/players/me/tokens", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(page["items"], json!([]));
    for bogus in ["sot_not-a-real-token", "Bearer-less", "eyJ.bogus.jwt"] {
        app.get("/api/v1/players/me", Some(bogus))
            .await
            .problem(401, "invalid_token");
    }
}

#[tokio::test]
async fn a_player_holds_a_bounded_number_of_live_tokens_and_pages_through_them() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    for _ in 0..50 {
        api_token(&app, &alice, json!(["read"])).await;
    }
    app.post(
        "/api/v1/players/me/tokens",
        Some(&alice.token),
        &json!({"name": "one more", "scopes": ["read"]}),
    )
    .await
    .problem(409, "too_many_tokens");
    let mut seen = 0;
    let mut cursor: Option<String> = None;
    loop {
        let path = match &cursor {
            Some(c) => format!("/api/v1/players/me/tokens?limit=20&cursor={c}"),
            None => "/api/v1/players/me/tokens?limit=20".to_owned(),
        };
        let page = app.get(&path, Some(&alice.token)).await.expect(200);
        seen += page["items"].as_array().map_or(0, Vec::len);
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(seen, 50);
    // Revoking one makes room.
    let page = app
        .get("/api/v1/players/me/tokens?limit=1", Some(&alice.token))
        .await
        .expect(200);
    let id = page["items"][0]["id"].as_str().expect("id");
    app.send(
        Method::DELETE,
        &format!("/api/v1/players/me/tokens/{id}"),
        Some(&alice.token),
        None,
    )
    .await;
    api_token(&app, &alice, json!(["read"])).await;
}

#[tokio::test]
async fn an_api_token_records_when_it_was_last_used() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let (token, _) = api_token(&app, &alice, json!(["read"])).await;
    app.get("/api/v1/players/me", Some(&token))
        .await
        .expect(200);
    // The use is recorded off the request's path: wait for it, boundedly.
    for _ in 0..200 {
        let page = app
            .get("/api/v1/players/me/tokens", Some(&alice.token))
            .await
            .expect(200);
        if page["items"][0]["last_used_at"].is_string() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("last_used_at was never recorded");
}

#[tokio::test]
async fn speaking_in_a_chat_needs_the_chat_scope_which_play_does_not_carry() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let owner = &players[0];
    let (play, _) = api_token(&app, owner, json!(["play", "read"])).await;
    let (chat, _) = api_token(&app, owner, json!(["chat"])).await;
    let path = format!("/api/v1/matches/{id}/messages");
    let refused = app
        .post(&path, Some(&play), &json!({"text": "gg"}))
        .await
        .problem(403, "insufficient_scope");
    assert!(
        refused["detail"]
            .as_str()
            .is_some_and(|d| d.contains("chat"))
    );
    let mute = format!("/api/v1/players/me/mutes/{}", players[1].name);
    app.send(Method::PUT, &mute, Some(&play), None)
        .await
        .problem(403, "insufficient_scope");
    // `chat` speaks and mutes, but reads and plays nothing.
    app.post(&path, Some(&chat), &json!({"text": "gg"}))
        .await
        .expect(201);
    app.send(Method::PUT, &mute, Some(&chat), None)
        .await
        .expect(200);
    app.get(&path, Some(&chat))
        .await
        .problem(403, "insufficient_scope");
    // The account page's `play` token carries both.
    let (both, _) = api_token(&app, owner, json!(["play", "chat"])).await;
    app.post(&path, Some(&both), &json!({"text": "again"}))
        .await
        .expect(201);
    let read = app.get(&path, Some(&both)).await.expect(200);
    assert_eq!(read["items"].as_array().map(Vec::len), Some(2));
}
