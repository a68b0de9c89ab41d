//! Moderation: the first admin from the command line, disabled accounts,
//! matches cancelled by an admin, and the audit log.

use std::process::{Command, Stdio};
use std::time::Duration;

use reqwest::Method;
use secrecy::ExposeSecret;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app, test_settings};
use crate::replicas::{call, read_until_closed, replicas};

/// Runs `sealed-orders <command> <name>` against the test's database.
fn cli(app: &TestApp, command: &str, name: &str) -> std::process::Output {
    cli_on(&app.settings, command, name)
}

fn cli_on(s: &sealed_orders::config::Settings, command: &str, name: &str) -> std::process::Output {
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

/// A player made an admin from the command line.
pub(crate) async fn admin(app: &TestApp, name: &str) -> Player {
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

#[tokio::test]
async fn an_account_disabled_on_one_replica_is_refused_on_another_once_it_hears() {
    let (settings, _guard) = test_settings().await;
    if settings.database_schema.is_none() {
        eprintln!("skipped: two replicas need Postgres (TEST_DATABASE_URL)");
        return;
    }
    let (_servers, apis) = replicas(&settings, 2, &[]).await;
    let client = reqwest::Client::new();
    let post = reqwest::Method::POST;
    let mut jwts = Vec::new();
    for name in ["ann", "mal"] {
        let body = json!({"name": name, "password": "password1"});
        call(
            &client,
            post.clone(),
            format!("{}/players", apis[0]),
            None,
            body.clone(),
        )
        .await;
        let t = call(
            &client,
            post.clone(),
            format!("{}/auth/token", apis[0]),
            None,
            body,
        )
        .await;
        jwts.push(t["access_token"].as_str().expect("jwt").to_owned());
    }
    assert!(cli_on(&settings, "grant-admin", "ann").status.success());
    // Mal's JWT is checked (and cached) on the second replica, and a stream is open there.
    call(
        &client,
        reqwest::Method::GET,
        format!("{}/players/me", apis[1]),
        Some(&jwts[1]),
        json!(null),
    )
    .await;
    let mut resp = client
        .get(format!("{}/players/me/events", apis[1]))
        .bearer_auth(&jwts[1])
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("stream");
    assert_eq!(resp.status(), 200);
    let mut text = String::new();
    while !text.contains("retry:") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), resp.chunk()).await;
        text.push_str(&String::from_utf8_lossy(
            &chunk
                .expect("the stream starts")
                .expect("a chunk")
                .expect("data"),
        ));
    }
    call(
        &client,
        post,
        format!("{}/admin/players/mal/disable", apis[0]),
        Some(&jwts[0]),
        json!({"reason": "spam"}),
    )
    .await;
    // The stream on the other replica ends within a few seconds.
    read_until_closed(&mut resp, &mut text).await;
    assert!(
        text.contains("event: credential_ended") && text.contains(r#""reason":"account_disabled""#),
        "{text}"
    );
    // Once the other replica has heard of it (its stream ended), it refuses the
    // account's token, its credential cache notwithstanding.
    let r = client
        .get(format!("{}/players/me", apis[1]))
        .bearer_auth(&jwts[1])
        .send()
        .await
        .expect("read");
    assert_eq!(r.status(), 403);
    assert!(r.text().await.expect("body").contains("account_disabled"));
}

#[tokio::test]
async fn an_admin_deletes_a_chat_message_in_any_match_and_the_audit_log_says_so() {
    let app = spawn_app().await;
    let root = admin(&app, "root").await;
    let players = app.players(2).await;
    let id = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "cairo", "seats": 2, "visibility": "private"}),
        )
        .await
        .expect(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let said = app
        .post(
            &format!("/api/v1/matches/{id}/messages"),
            Some(&players[0].token),
            &json!({"text": "something nobody should keep reading"}),
        )
        .await
        .expect(201);
    let path = format!("/api/v1/matches/{id}/messages/{}", said["id"]);
    // Another player may not, and learns nothing of the private match.
    app.send(Method::DELETE, &path, Some(&players[1].token), None)
        .await
        .problem(404, "match_not_found");
    let by_admin = app
        .send(Method::DELETE, &path, Some(&root.token), None)
        .await;
    assert_eq!(by_admin.status.as_u16(), 204, "{}", by_admin.text);
    let read = app
        .get(
            &format!("/api/v1/matches/{id}/messages"),
            Some(&players[0].token),
        )
        .await
        .expect(200);
    let gone = &read["items"][0];
    assert!(gone["text"].is_null(), "{read}");
    assert_eq!(gone["deleted_by"]["name"], "root", "{read}");
    let audit = app
        .get("/api/v1/admin/audit", Some(&root.token))
        .await
        .expect(200);
    let entry = &audit["items"][0];
    assert_eq!(entry["action"], "delete_chat_message", "{audit}");
    assert_eq!(entry["actor"], "root");
    assert_eq!(entry["target"], format!("{id}/{}", said["id"]));
    // The author deleting their own message is no moderation: nothing audited.
    let own = app
        .post(
            &format!("/api/v1/matches/{id}/messages"),
            Some(&players[0].token),
            &json!({"text": "second thoughts"}),
        )
        .await
        .expect(201);
    let by_author = app
        .send(
            Method::DELETE,
            &format!("/api/v1/matches/{id}/messages/{}", own["id"]),
            Some(&players[0].token),
            None,
        )
        .await;
    assert_eq!(by_author.status.as_u16(), 204, "{}", by_author.text);
    let after = app
        .get("/api/v1/admin/audit", Some(&root.token))
        .await
        .expect(200);
    assert_eq!(
        after["items"].as_array().map(Vec::len),
        audit["items"].as_array().map(Vec::len)
    );
}
