//! What integrators rely on beyond the bodies: where created things are, HEAD,
//! the rate-limit and webhook headers in their standard forms, round records
//! that say what each round was about, and positions that state their own
//! components and still replay.

use std::time::Duration;

use reqwest::Method;
use sealed_orders::service::webhooks::sign;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::helpers::{spawn_app, spawn_app_with};

#[tokio::test]
async fn created_resources_answer_201_with_their_location() {
    let app = spawn_app().await;
    let made = app
        .post(
            "/api/v1/players",
            None,
            &json!({"name": "locus", "password": "password1"}),
        )
        .await;
    assert_eq!(made.status, 201);
    let at = made.headers["location"].to_str().expect("ascii");
    assert_eq!(at, "/api/v1/players/locus");
    assert_eq!(app.get(at, None).await.expect(200)["name"], "locus");

    let players = app.players(2).await;
    let created = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "malacca", "seats": 2}),
        )
        .await;
    let body = created.expect(201);
    let at = created.headers["location"].to_str().expect("ascii");
    assert_eq!(
        at,
        format!("/api/v1/matches/{}", body["id"].as_str().expect("id"))
    );
    assert_eq!(app.get(at, None).await.expect(200)["id"], body["id"]);

    let token = app
        .post(
            "/api/v1/players/me/tokens",
            Some(&players[0].token),
            &json!({"name": "bot", "scopes": ["read"]}),
        )
        .await;
    let body = token.expect(201);
    let at = token.headers["location"].to_str().expect("ascii");
    assert_eq!(
        at,
        format!(
            "/api/v1/players/me/tokens/{}",
            body["api_token"]["id"].as_str().expect("id")
        )
    );
    // The token is revoked where the Location says.
    let revoked = app
        .send(Method::DELETE, at, Some(&players[0].token), None)
        .await;
    assert!(revoked.status.is_success(), "{}", revoked.text);
}

#[tokio::test]
async fn head_is_answered_wherever_get_is_and_docs_lead_to_the_browser() {
    let app = spawn_app().await;
    let get = app.get("/api/v1/games", None).await;
    let head = app.send(Method::HEAD, "/api/v1/games", None, None).await;
    assert_eq!(head.status, 200);
    assert!(head.text.is_empty(), "HEAD has no body");
    assert_eq!(head.content_type, get.content_type);

    let missing = app
        .send(Method::HEAD, "/api/v1/matches/not-a-uuid", None, None)
        .await;
    assert_eq!(missing.status, 400);

    // A path with POST only: HEAD is refused like GET, and Allow says so.
    let refused = app
        .send(Method::HEAD, "/api/v1/auth/token", None, None)
        .await;
    assert_eq!(refused.status, 405);
    assert_eq!(refused.headers["allow"], "POST");
    let allowed = app.send(Method::PUT, "/api/v1/games", None, None).await;
    assert_eq!(allowed.status, 405);
    assert_eq!(allowed.headers["allow"], "GET, HEAD");

    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client");
    let docs = client.get(app.url("/docs")).send().await.expect("request");
    assert_eq!(docs.status(), 308);
    assert_eq!(docs.headers()["location"], "/docs/");
    let page = client.get(app.url("/docs/")).send().await.expect("request");
    assert_eq!(page.status(), 200);
}

#[tokio::test]
async fn a_long_poll_waits_1_to_60_seconds_as_documented() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    for wait in [0, 61] {
        app.get(
            &format!("/api/v1/matches/{id}?after_version=0&wait={wait}"),
            None,
        )
        .await
        .problem(400, "invalid_wait");
    }
    let spec = sealed_orders::openapi::spec_json(&sealed_orders::service::registry::all_games());
    let params = spec["paths"]["/api/v1/matches/{id}"]["get"]["parameters"]
        .as_array()
        .expect("parameters");
    let wait = params
        .iter()
        .find(|p| p["name"] == "wait")
        .expect("wait is documented");
    assert_eq!(wait["schema"]["minimum"], 1);
    assert_eq!(wait["schema"]["maximum"], 60);
}

#[tokio::test]
async fn limited_answers_carry_the_ietf_ratelimit_fields_and_the_older_ones() {
    let (app, _) = spawn_app_with(|s| s.rate_limit_auth_per_min = 2).await;
    let login = |name: &str| json!({"name": name, "password": "password1"});
    let first = app.post("/api/v1/players", None, &login("quota")).await;
    assert_eq!(first.status, 201);
    assert_eq!(first.headers["ratelimit-policy"], "\"auth\";q=2;w=60");
    assert_eq!(
        first.headers["ratelimit"]
            .to_str()
            .expect("ascii")
            .split(';')
            .nth(1),
        Some("r=1")
    );
    assert_eq!(first.headers["ratelimit-limit"], "2");
    assert_eq!(first.headers["ratelimit-remaining"], "1");
    app.post("/api/v1/auth/token", None, &login("quota"))
        .await
        .expect(200);
    let refused = app.post("/api/v1/auth/token", None, &login("quota")).await;
    refused.problem(429, "rate_limited");
    let fields = refused.headers["ratelimit"].to_str().expect("ascii");
    assert!(fields.starts_with("\"auth\";r=0;t="), "{fields}");
    assert_eq!(refused.headers["ratelimit-policy"], "\"auth\";q=2;w=60");
    assert!(refused.headers.contains_key("retry-after"));
}

#[tokio::test]
async fn a_match_from_a_position_says_it_is_unrated_everywhere() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let position = json!({
        "hand": [["hussites:3", "hussites:9"], ["reformers:4", "reformers:8"]],
        "city_deck": ["brno", "olomouc"],
    });
    let id = app
        .started_match(&players, "heretics", json!({"position": position}))
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["rated"], false);
    assert_eq!(m["options"]["rated"], false);
    let events = app
        .get(&format!("/api/v1/matches/{id}/events"), None)
        .await
        .expect(200);
    let started = events["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|e| e["kind"] == "match_started")
        .expect("match_started");
    assert_eq!(started["data"]["rated"], false);
}

#[tokio::test]
async fn a_position_with_cities_of_its_own_plays_names_them_in_its_rounds_and_replays() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    // Two cities no data has; the second cannot be won (resistance 99), so its
    // round ends unclaimed, and still says which city it was.
    let position = json!({
        "hand": [["hussites:3", "hussites:9"], ["reformers:4", "reformers:8"]],
        "cities": [
            {"id": "atlantis", "name": "Atlantis", "resistance": 2, "significance": 7},
            {"id": "avalon", "name": "Avalon", "resistance": 99, "significance": 5},
        ],
        "city_deck": ["atlantis", "avalon"],
    });
    let id = app
        .started_match(&players, "heretics", json!({"position": position}))
        .await;
    let (m, _) = app.play_to_end(&id, &players, 3).await;
    assert_eq!(m["status"], "finished");
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    let items = rounds["items"].as_array().expect("items");
    let subjects: Vec<&Value> = items.iter().map(|r| &r["subject"]).collect();
    assert_eq!(subjects, [&json!("city:atlantis"), &json!("city:avalon")]);
    assert_eq!(items[1]["lead_seat"], Value::Null, "nobody took Avalon");
    assert_eq!(items[0]["value"], 7, "the stated significance");

    let bundle = app
        .get(&format!("/api/v1/matches/{id}/export"), None)
        .await
        .expect(200);
    let report = app
        .post("/api/v1/replays/verify", None, &bundle)
        .await
        .expect(200);
    assert_eq!(report["valid"], true, "{report}");
}

#[tokio::test]
async fn a_position_stating_a_bad_city_is_refused_with_the_reason() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let position = json!({
        "hand": [["hussites:3"], ["reformers:4"]],
        "cities": [{"id": "nowhere", "name": "Nowhere", "resistance": 0, "significance": 1}],
        "city_deck": ["nowhere"],
    });
    let refused = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "heretics", "seats": 2, "options": {"position": position}}),
        )
        .await;
    let problem = refused.problem(422, "invalid_position");
    let detail = problem["detail"].as_str().expect("detail");
    assert!(
        detail.contains("nowhere") && detail.contains("resistance 0"),
        "{detail}"
    );
}

/// Accepts one HTTP request on loopback and answers 200; gives its head and body.
async fn receive_one(listener: tokio::net::TcpListener) -> (String, String) {
    let (mut socket, _) = listener.accept().await.expect("a delivery");
    let mut read = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        let n = socket.read(&mut chunk).await.expect("read");
        read.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&read).into_owned();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if body.len() >= length || n == 0 {
                socket
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .await
                    .expect("answer");
                return (head.to_owned(), body.to_owned());
            }
        }
        assert!(n > 0, "the connection closed mid-request");
    }
}

#[tokio::test]
async fn webhook_deliveries_carry_standard_webhooks_headers_that_verify() {
    let (app, _) = spawn_app_with(|s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_ms = 20;
    })
    .await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let port = listener.local_addr().expect("address").port();
    let players = app.players(2).await;
    let created = app
        .post(
            "/api/v1/players/me/webhooks",
            Some(&players[0].token),
            &json!({"url": format!("http://127.0.0.1:{port}/hook"), "events": ["match_started"]}),
        )
        .await
        .expect(201);
    let secret = created["secret"].as_str().expect("secret").to_owned();
    app.started_match(&players, "malacca", json!({})).await;
    let (head, body) = tokio::time::timeout(Duration::from_secs(30), receive_one(listener))
        .await
        .expect("a delivery arrives");
    let header = |name: &str| {
        head.lines()
            .find_map(|l| {
                let (n, v) = l.split_once(':')?;
                n.trim()
                    .eq_ignore_ascii_case(name)
                    .then(|| v.trim().to_owned())
            })
            .unwrap_or_else(|| panic!("no {name} header in {head}"))
    };
    let (id, timestamp) = (header("webhook-id"), header("webhook-timestamp"));
    let unix: i64 = timestamp.parse().expect("unix seconds");
    assert_eq!(
        header("webhook-signature"),
        sign::standard_signature(&secret, &id, unix, body.as_bytes())
    );
    assert_eq!(id, header("sealed-orders-delivery"), "one id in both forms");
    let payload: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(payload["delivery_id"], id);
    assert!(sign::verify(
        &secret,
        &header("sealed-orders-signature"),
        body.as_bytes()
    ));
}
