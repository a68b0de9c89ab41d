//! Moderation: the first admin from the command line, disabled accounts,
//! matches cancelled by an admin, and the audit log.

use std::process::{Command, Stdio};

use secrecy::ExposeSecret;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app};

/// Runs `sealed-orders <command> <name>` against the test's database.
fn cli(app: &TestApp, command: &str, name: &str) -> std::process::Output {
    let s = &app.settings;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sealed-orders"));
    cmd.args([command, name])
        .env("DATABASE_URL", &s.database_url)
        .env(
            "JWT_SECRET",
            s.jwt_secret.as_ref().expect("secret").expose_secret(),
        )
        .env_remove("DATABASE_SCHEMA")
        .stdin(Stdio::null());
    if let Some(schema) = &s.database_schema {
        cmd.env("DATABASE_SCHEMA", schema);
    }
    cmd.output().expect("run the command")
}

async fn admin(app: &TestApp, name: &str) -> Player {
    let p = app.player(name).await;
    let out = cli(app, "grant-admin", name);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    p
}

async fn api_token(app: &TestApp, owner: &Player) -> String {
    app.post(
        "/api/v1/players/me/tokens",
        Some(&owner.token),
        &json!({"name": "bot", "scopes": ["play"]}),
    )
    .await
    .expect(201)["token"]
        .as_str()
        .expect("token")
        .to_owned()
}

async fn login(app: &TestApp, name: &str) -> crate::helpers::Reply {
    app.post(
        "/api/v1/auth/token",
        None,
        &json!({"name": name, "password": "password1"}),
    )
    .await
}

fn actions(page: &Value) -> Vec<(String, String, String)> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|e| {
            (
                e["actor"].as_str().unwrap_or("").to_owned(),
                e["action"].as_str().unwrap_or("").to_owned(),
                e["target"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn the_command_line_grants_the_first_admin_and_only_admins_moderate() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let bob = app.player("bob").await;
    // Nobody is an admin yet.
    app.get("/api/v1/admin/audit", Some(&alice.token))
        .await
        .problem(403, "not_admin");
    app.get("/api/v1/admin/audit", None)
        .await
        .problem(401, "unauthorized");
    app.post(
        "/api/v1/admin/players/bob/disable",
        Some(&alice.token),
        &json!({}),
    )
    .await
    .problem(403, "not_admin");
    let out = cli(&app, "grant-admin", "nobody");
    assert!(!out.status.success(), "an unknown name fails");

    let out = cli(&app, "grant-admin", "alice");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Alice's existing token works as an admin's at once.
    let log = app
        .get("/api/v1/admin/audit", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(
        actions(&log),
        vec![("cli".into(), "grant_admin".into(), "alice".into())]
    );
    assert!(log["items"][0]["at"].is_string() && log["items"][0]["id"].is_string());
    app.get("/api/v1/admin/audit", Some(&bob.token))
        .await
        .problem(403, "not_admin");

    // Alice makes Bob an admin, then takes it back; she cannot drop her own role.
    app.post(
        "/api/v1/admin/players/bob/grant-admin",
        Some(&alice.token),
        &json!({}),
    )
    .await
    .expect(200);
    app.get("/api/v1/admin/audit", Some(&bob.token))
        .await
        .expect(200);
    app.post(
        "/api/v1/admin/players/alice/revoke-admin",
        Some(&alice.token),
        &json!({}),
    )
    .await
    .problem(409, "own_admin_role");
    app.post(
        "/api/v1/admin/players/bob/revoke-admin",
        Some(&alice.token),
        &json!({"reason": "trial over"}),
    )
    .await
    .expect(200);
    app.get("/api/v1/admin/audit", Some(&bob.token))
        .await
        .problem(403, "not_admin");
    app.post(
        "/api/v1/admin/players/nobody/disable",
        Some(&alice.token),
        &json!({}),
    )
    .await
    .problem(404, "player_not_found");

    // The log, newest first, paginated.
    let page = app
        .get("/api/v1/admin/audit?limit=2", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(
        actions(&page),
        vec![
            ("alice".into(), "revoke_admin".into(), "bob".into()),
            ("alice".into(), "grant_admin".into(), "bob".into()),
        ]
    );
    assert_eq!(page["items"][0]["reason"], "trial over");
    let cursor = page["next_cursor"].as_str().expect("a next page");
    let rest = app
        .get(
            &format!("/api/v1/admin/audit?limit=2&cursor={cursor}"),
            Some(&alice.token),
        )
        .await
        .expect(200);
    assert_eq!(
        actions(&rest),
        vec![("cli".into(), "grant_admin".into(), "alice".into())]
    );
    assert!(rest["next_cursor"].is_null());

    // The command line takes the role back too.
    assert!(cli(&app, "revoke-admin", "alice").status.success());
    app.get("/api/v1/admin/audit", Some(&alice.token))
        .await
        .problem(403, "not_admin");
}

#[tokio::test]
async fn a_disabled_account_is_refused_everywhere_at_once_until_enabled() {
    let app = spawn_app().await;
    let alice = admin(&app, "alice").await;
    let mallory = app.player("mallory").await;
    let token = api_token(&app, &mallory).await;
    // Both credentials are checked (and cached) before the change.
    app.get("/api/v1/players/me", Some(&mallory.token))
        .await
        .expect(200);
    app.get("/api/v1/players/me", Some(&token))
        .await
        .expect(200);

    let done = app
        .post(
            "/api/v1/admin/players/mallory/disable",
            Some(&alice.token),
            &json!({"reason": "spam"}),
        )
        .await
        .expect(200);
    assert_eq!(done["action"], "disable");
    app.get("/api/v1/players/me", Some(&mallory.token))
        .await
        .problem(403, "account_disabled");
    app.get("/api/v1/players/me", Some(&token))
        .await
        .problem(403, "account_disabled");
    login(&app, "mallory")
        .await
        .problem(403, "account_disabled");
    // A wrong password still says only that.
    app.post(
        "/api/v1/auth/token",
        None,
        &json!({"name": "mallory", "password": "wrong password"}),
    )
    .await
    .problem(401, "invalid_credentials");
    // Anonymous reads of the account still work.
    app.get("/api/v1/players/mallory", None).await.expect(200);
    app.post(
        "/api/v1/admin/players/alice/disable",
        Some(&alice.token),
        &json!({}),
    )
    .await
    .problem(409, "own_account");

    app.post(
        "/api/v1/admin/players/mallory/enable",
        Some(&alice.token),
        &json!({}),
    )
    .await
    .expect(200);
    app.get("/api/v1/players/me", Some(&mallory.token))
        .await
        .expect(200);
    app.get("/api/v1/players/me", Some(&token))
        .await
        .expect(200);
    login(&app, "mallory").await.expect(200);

    let log = app
        .get("/api/v1/admin/audit", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(
        actions(&log)[..2],
        [
            ("alice".into(), "enable".into(), "mallory".into()),
            ("alice".into(), "disable".into(), "mallory".into()),
        ]
    );
    assert_eq!(log["items"][1]["reason"], "spam");
}

#[tokio::test]
async fn an_admin_cancels_an_active_match_without_ratings() {
    let app = spawn_app().await;
    let alice = admin(&app, "alice").await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    assert_eq!(
        app.match_as(&id, Some(&players[0])).await["status"],
        "active"
    );
    app.post(
        &format!("/api/v1/admin/matches/{id}/cancel"),
        Some(&players[0].token),
        &json!({}),
    )
    .await
    .problem(403, "not_admin");

    let m = app
        .post(
            &format!("/api/v1/admin/matches/{id}/cancel"),
            Some(&alice.token),
            &json!({"reason": "abusive names"}),
        )
        .await
        .expect(200);
    assert_eq!(m["status"], "aborted");
    let seen = app.match_as(&id, Some(&players[1])).await;
    assert_eq!(seen["status"], "aborted");
    assert!(seen["deadline_at"].is_null());
    let events = app
        .get(
            &format!("/api/v1/matches/{id}/events"),
            Some(&players[1].token),
        )
        .await
        .expect(200);
    let last = events["items"]
        .as_array()
        .and_then(|e| e.last())
        .cloned()
        .expect("events");
    assert_eq!(last["kind"], "match_aborted", "{last}");
    assert_eq!(last["data"]["reason"], "moderated", "{last}");
    // No move is taken any more, and nobody is rated.
    app.submit(&id, &players[0], 0, json!({}))
        .await
        .problem(409, "match_not_active");
    let ratings = app
        .get(
            &format!("/api/v1/players/{}/ratings?game=malacca", players[0].name),
            None,
        )
        .await
        .expect(200);
    assert_eq!(
        ratings["items"].as_array().map(Vec::len),
        Some(0),
        "{ratings}"
    );
    app.post(
        &format!("/api/v1/admin/matches/{id}/cancel"),
        Some(&alice.token),
        &json!({}),
    )
    .await
    .problem(409, "match_over");

    let log = app
        .get("/api/v1/admin/audit", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(
        actions(&log)[0],
        ("alice".into(), "cancel_match".into(), id.clone())
    );
}
