use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn registering_a_player_answers_201_with_the_profile() {
    let app = spawn_app().await;
    let body = app
        .post(
            "/api/v1/players",
            None,
            &json!({"name": "Alice_1", "password": "password1"}),
        )
        .await
        .expect(201);
    assert_eq!(body["name"], "Alice_1");
    assert!(body.get("password_hash").is_none());
    let found = app.get("/api/v1/players/alice_1", None).await.expect(200);
    assert_eq!(found["id"], body["id"]);
}

#[tokio::test]
async fn a_name_taken_in_another_case_is_a_409() {
    let app = spawn_app().await;
    app.player("alice").await;
    app.post(
        "/api/v1/players",
        None,
        &json!({"name": "ALICE", "password": "password1"}),
    )
    .await
    .problem(409, "name_taken");
}

#[tokio::test]
async fn bad_names_and_short_passwords_are_422() {
    let app = spawn_app().await;
    for name in ["ab", "has space", "ünïcode", &"x".repeat(33)] {
        app.post(
            "/api/v1/players",
            None,
            &json!({"name": name, "password": "password1"}),
        )
        .await
        .problem(422, "invalid_name");
    }
    app.post(
        "/api/v1/players",
        None,
        &json!({"name": "bob", "password": "short"}),
    )
    .await
    .problem(422, "weak_password");
    app.post("/api/v1/players", None, &json!({"name": "bob"}))
        .await
        .problem(422, "invalid_body");
}

#[tokio::test]
async fn a_token_is_issued_for_the_right_password_only() {
    let app = spawn_app().await;
    let p = app.player("carol").await;
    let t = app
        .post(
            "/api/v1/auth/token",
            None,
            &json!({"name": "carol", "password": "password1"}),
        )
        .await
        .expect(200);
    assert_eq!(t["token_type"], "Bearer");
    assert!(t["expires_at"].is_string());
    app.post(
        "/api/v1/auth/token",
        None,
        &json!({"name": "carol", "password": "wrong-password"}),
    )
    .await
    .problem(401, "invalid_credentials");
    app.post(
        "/api/v1/auth/token",
        None,
        &json!({"name": "nobody", "password": "password1"}),
    )
    .await
    .problem(401, "invalid_credentials");
    let me = app
        .get("/api/v1/players/me", Some(&p.token))
        .await
        .expect(200);
    assert_eq!(me["name"], "carol");
    app.get("/api/v1/players/me", None)
        .await
        .problem(401, "unauthorized");
    app.get("/api/v1/players/nobody", None)
        .await
        .problem(404, "player_not_found");
}

#[tokio::test]
async fn a_token_signed_with_another_algorithm_or_key_is_refused() {
    let app = spawn_app().await;
    app.player("dave").await;
    // alg=none token for the same claims.
    let none = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIwMDAwMDAwMC0wMDAwLTAwMDAtMDAwMC0wMDAwMDAwMDAwMDAiLCJuYW1lIjoiZGF2ZSIsImlhdCI6MCwiZXhwIjo5OTk5OTk5OTk5fQ.";
    app.get("/api/v1/players/me", Some(none))
        .await
        .problem(401, "invalid_token");
    let other = sealed_orders::auth::JwtKeys::new(&[9; 32], 60)
        .issue(uuid::Uuid::nil(), "dave", 0, chrono::Utc::now())
        .expect("issue");
    app.get("/api/v1/players/me", Some(&other.token))
        .await
        .problem(401, "invalid_token");
}
