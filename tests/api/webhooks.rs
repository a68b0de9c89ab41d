//! Webhooks: subscriptions, signed deliveries, retries, the log, restarts.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use reqwest::Method;
use sealed_orders::service::webhooks::sign;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, restart_process, spawn_app, spawn_app_with, spawn_process};

/// A request the receiver got.
#[derive(Debug, Clone)]
struct Received {
    signature: String,
    delivery: String,
    event: String,
    body: String,
    /// What the receiver answered.
    answered: u16,
}

/// A small HTTP server on loopback that records what it is sent and answers
/// with the status it is told.
struct Receiver {
    url: String,
    got: Arc<Mutex<Vec<Received>>>,
    status: Arc<AtomicU16>,
}

struct ReceiverState {
    got: Arc<Mutex<Vec<Received>>>,
    status: Arc<AtomicU16>,
}

async fn receive(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<ReceiverState>,
) -> HttpResponse {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned()
    };
    let answered = state.status.load(Ordering::SeqCst);
    state.got.lock().expect("lock").push(Received {
        signature: header("sealed-orders-signature"),
        delivery: header("sealed-orders-delivery"),
        event: header("sealed-orders-event"),
        body: String::from_utf8_lossy(&body).into_owned(),
        answered,
    });
    HttpResponse::build(actix_web::http::StatusCode::from_u16(answered).expect("a status")).finish()
}

fn receiver(status: u16) -> Receiver {
    let got = Arc::new(Mutex::new(Vec::new()));
    let status = Arc::new(AtomicU16::new(status));
    let state = web::Data::new(ReceiverState {
        got: got.clone(),
        status: status.clone(),
    });
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("address").port();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .default_service(web::to(receive))
    })
    .workers(1)
    .disable_signals()
    .listen(listener)
    .expect("listen")
    .run();
    tokio::spawn(server);
    Receiver {
        url: format!("http://127.0.0.1:{port}/hook"),
        got,
        status,
    }
}

impl Receiver {
    fn got(&self) -> Vec<Received> {
        self.got.lock().expect("lock").clone()
    }

    /// Waits until `enough` holds of what was received (at most `within`).
    async fn wait_for(
        &self,
        within: Duration,
        enough: impl Fn(&[Received]) -> bool,
    ) -> Vec<Received> {
        let start = std::time::Instant::now();
        loop {
            let got = self.got();
            if enough(&got) {
                return got;
            }
            assert!(
                start.elapsed() < within,
                "the receiver did not get what was expected in time; got {got:#?}"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

async fn create_webhook(app: &TestApp, player: &Player, url: &str, events: Value) -> Value {
    let mut body = json!({"url": url});
    if !events.is_null() {
        body["events"] = events;
    }
    app.post("/api/v1/players/me/webhooks", Some(&player.token), &body)
        .await
        .expect(201)
}

async fn deliveries(app: &TestApp, player: &Player, webhook: &str) -> Vec<Value> {
    app.get(
        &format!("/api/v1/players/me/webhooks/{webhook}/deliveries?limit=200"),
        Some(&player.token),
    )
    .await
    .expect(200)["items"]
        .as_array()
        .expect("items")
        .clone()
}

/// A server that may post to loopback, whose worker looks every 20 ms.
async fn webhook_app(
    adjust: impl FnOnce(&mut sealed_orders::config::Settings),
) -> (TestApp, Arc<sealed_orders::service::clock::ManualClock>) {
    spawn_app_with(|s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_ms = 20;
        adjust(s);
    })
    .await
}

#[tokio::test]
async fn webhooks_are_created_listed_and_deleted_with_a_password_session_only() {
    let (app, _clock) = webhook_app(|_| {}).await;
    let alice = app.player("alice").await;
    let created = create_webhook(
        &app,
        &alice,
        "https://hooks.example/sealed",
        json!(["match_started", "match_finished", "match_started"]),
    )
    .await;
    let secret = created["secret"].as_str().expect("secret");
    assert!(
        secret.starts_with("whsec_") && secret.len() == 70,
        "{secret}"
    );
    assert_eq!(
        created["webhook"]["events"],
        json!(["match_finished", "match_started"])
    );
    let id = created["webhook"]["id"].as_str().expect("id").to_owned();

    let list = app
        .get("/api/v1/players/me/webhooks", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(list["items"].as_array().expect("items").len(), 1);
    assert_eq!(list["items"][0]["id"], id.as_str());
    assert!(
        !list.to_string().contains(secret),
        "the secret is shown once"
    );

    // An API token, even with every scope, cannot manage webhooks.
    let token = app
        .post(
            "/api/v1/players/me/tokens",
            Some(&alice.token),
            &json!({"name": "bot", "scopes": ["play", "read"]}),
        )
        .await
        .expect(201)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    app.post(
        "/api/v1/players/me/webhooks",
        Some(&token),
        &json!({"url": "https://hooks.example/x"}),
    )
    .await
    .problem(403, "password_session_required");
    app.get("/api/v1/players/me/webhooks", Some(&token))
        .await
        .problem(403, "password_session_required");
    app.get(
        &format!("/api/v1/players/me/webhooks/{id}/deliveries"),
        Some(&token),
    )
    .await
    .problem(403, "password_session_required");
    app.send(
        Method::DELETE,
        &format!("/api/v1/players/me/webhooks/{id}"),
        Some(&token),
        None,
    )
    .await
    .problem(403, "password_session_required");

    // Bad input changes nothing.
    for (body, code) in [
        (
            json!({"url": "https://hooks.example/x", "events": []}),
            "invalid_events",
        ),
        (
            json!({"url": "https://hooks.example/x", "events": ["card_drawn"]}),
            "invalid_events",
        ),
        (
            json!({"url": "ftp://hooks.example/x"}),
            "invalid_webhook_url",
        ),
        (json!({"url": "nonsense"}), "invalid_webhook_url"),
    ] {
        app.post("/api/v1/players/me/webhooks", Some(&alice.token), &body)
            .await
            .problem(422, code);
    }
    app.post(
        "/api/v1/players/me/webhooks",
        Some(&alice.token),
        &json!({"url": "https://hooks.example/x", "secret": "mine"}),
    )
    .await
    .problem(422, "invalid_body");

    let path = format!("/api/v1/players/me/webhooks/{id}");
    let r = app
        .send(Method::DELETE, &path, Some(&alice.token), None)
        .await;
    assert_eq!(r.status.as_u16(), 204);
    app.send(Method::DELETE, &path, Some(&alice.token), None)
        .await
        .problem(404, "webhook_not_found");
    let list = app
        .get("/api/v1/players/me/webhooks", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(list["items"], json!([]));
}

#[tokio::test]
async fn a_player_holds_at_most_ten_webhooks() {
    let (app, _clock) = webhook_app(|_| {}).await;
    let alice = app.player("alice").await;
    for i in 0..10 {
        create_webhook(
            &app,
            &alice,
            &format!("https://hooks.example/{i}"),
            Value::Null,
        )
        .await;
    }
    app.post(
        "/api/v1/players/me/webhooks",
        Some(&alice.token),
        &json!({"url": "https://hooks.example/11"}),
    )
    .await
    .problem(409, "too_many_webhooks");
}

#[tokio::test]
async fn a_private_webhook_address_is_refused() {
    // The production default: WEBHOOK_ALLOW_PRIVATE unset.
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    for url in [
        "https://127.0.0.1/hook",
        "https://10.0.0.7/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://[::1]:8443/hook",
        "https://[::ffff:192.168.0.1]/hook",
        "https://localhost/hook",
        "https://0x7f000001/hook",
        "http://hooks.example/plain-http",
    ] {
        app.post(
            "/api/v1/players/me/webhooks",
            Some(&alice.token),
            &json!({"url": url}),
        )
        .await
        .problem(422, "invalid_webhook_url");
    }
    let list = app
        .get("/api/v1/players/me/webhooks", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(list["items"], json!([]));
}

#[tokio::test]
async fn nobody_else_can_read_or_delete_your_webhook() {
    let (app, _clock) = webhook_app(|_| {}).await;
    let alice = app.player("alice").await;
    let bob = app.player("bob").await;
    let id = create_webhook(&app, &alice, "https://hooks.example/a", Value::Null).await["webhook"]
        ["id"]
        .as_str()
        .expect("id")
        .to_owned();
    app.get(
        &format!("/api/v1/players/me/webhooks/{id}/deliveries"),
        Some(&bob.token),
    )
    .await
    .problem(404, "webhook_not_found");
    app.send(
        Method::DELETE,
        &format!("/api/v1/players/me/webhooks/{id}"),
        Some(&bob.token),
        None,
    )
    .await
    .problem(404, "webhook_not_found");
    let list = app
        .get("/api/v1/players/me/webhooks", Some(&bob.token))
        .await
        .expect(200);
    assert_eq!(list["items"], json!([]));
    app.get(
        &format!("/api/v1/players/me/webhooks/{id}/deliveries"),
        None,
    )
    .await
    .problem(401, "unauthorized");
}

#[tokio::test]
async fn signed_events_of_a_played_match_arrive_as_the_feed_shows_them_and_nothing_sealed() {
    let (app, _clock) = webhook_app(|_| {}).await;
    let rx = receiver(200);
    let players = app.players(2).await;
    let created = create_webhook(&app, &players[0], &rx.url, Value::Null).await;
    let secret = created["secret"].as_str().expect("secret").to_owned();
    let webhook = created["webhook"]["id"].as_str().expect("id").to_owned();

    let id = app.started_match(&players, "malacca", json!({})).await;
    app.play_to_end(&id, &players, 7).await;
    // The feed holds events back until older transactions elsewhere (other tests'
    // on Postgres) have settled: read it once it holds the whole match.
    let mut feed = Value::Null;
    for _ in 0..200 {
        feed = app
            .get(
                "/api/v1/players/me/events?limit=200",
                Some(&players[0].token),
            )
            .await
            .expect(200);
        let items = feed["items"].as_array().cloned().unwrap_or_default();
        if items.iter().any(|e| e["kind"] == "match_finished") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let feed_ids: Vec<Value> = feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|e| e["id"].clone())
        .collect();
    assert!(feed_ids.len() > 10 && feed_ids.len() < 200);
    let got = rx
        .wait_for(Duration::from_secs(20), |got| got.len() >= feed_ids.len())
        .await;
    assert!(got.iter().any(|r| r.event == "match_finished"));

    // Every body is signed with the secret shown at creation, and says which
    // delivery it is; the header's kind is the body's.
    let mut ids = std::collections::HashSet::new();
    for r in &got {
        assert!(
            sign::verify(&secret, &r.signature, r.body.as_bytes()),
            "{r:?}"
        );
        assert!(!sign::verify(
            "whsec_wrong",
            &r.signature,
            r.body.as_bytes()
        ));
        let body: Value = serde_json::from_str(&r.body).expect("JSON");
        assert_eq!(body["delivery_id"], r.delivery.as_str());
        assert_eq!(body["webhook_id"], webhook.as_str());
        assert_eq!(body["match_id"], id.as_str());
        assert_eq!(body["event"]["kind"], r.event.as_str());
        assert!(
            ids.insert(r.delivery.clone()),
            "a delivery came twice: {r:?}"
        );
        // Seat 0's own events or public ones; never seat 1's.
        assert!(
            body["event"]["audience_seat"].is_null() || body["event"]["audience_seat"] == 0,
            "{body}"
        );
    }

    // Exactly the player's feed.
    let sent_ids: Vec<Value> = got
        .iter()
        .map(|r| serde_json::from_str::<Value>(&r.body).expect("JSON")["event"]["id"].clone())
        .collect();
    let mut sorted = sent_ids.clone();
    sorted.sort_by_key(|v| v.as_i64());
    assert_eq!(sorted, feed_ids);

    // The log shows each delivered, with one attempt answered 200.
    let mut log = deliveries(&app, &players[0], &webhook).await;
    for _ in 0..200 {
        if log.iter().all(|d| d["status"] == "delivered") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        log = deliveries(&app, &players[0], &webhook).await;
    }
    assert_eq!(log.len(), got.len());
    for d in &log {
        assert_eq!(d["status"], "delivered", "{d}");
        assert_eq!(d["next_attempt_at"], Value::Null);
        assert_eq!(d["attempts"].as_array().expect("attempts").len(), 1);
        assert_eq!(d["attempts"][0]["status_code"], 200);
    }
}

#[tokio::test]
async fn only_the_kinds_subscribed_to_are_sent() {
    let (app, _clock) = webhook_app(|_| {}).await;
    let rx = receiver(200);
    let players = app.players(2).await;
    create_webhook(&app, &players[1], &rx.url, json!(["match_started"])).await;
    app.started_match(&players, "malacca", json!({})).await;
    let got = rx
        .wait_for(Duration::from_secs(10), |got| !got.is_empty())
        .await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    let got = rx.got().into_iter().chain(got).collect::<Vec<_>>();
    assert!(got.iter().all(|r| r.event == "match_started"), "{got:?}");
    assert_eq!(
        got.iter()
            .map(|r| r.delivery.clone())
            .collect::<std::collections::HashSet<_>>()
            .len(),
        1
    );
}

#[tokio::test]
async fn a_failing_receiver_is_retried_with_backoff_until_it_answers_and_an_unreachable_one_fails()
{
    let (app, clock) = webhook_app(|s| {
        s.webhooks.backoff_ms = 60_000;
        s.webhooks.max_attempts = 3;
    })
    .await;
    let rx = receiver(500);
    // A port nobody listens on.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("address").port()
    };
    let players = app.players(2).await;
    let good =
        create_webhook(&app, &players[0], &rx.url, json!(["match_started"])).await["webhook"]["id"]
            .as_str()
            .expect("id")
            .to_owned();
    let dead = create_webhook(
        &app,
        &players[0],
        &format!("http://127.0.0.1:{closed}/hook"),
        json!(["match_started"]),
    )
    .await["webhook"]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    app.started_match(&players, "malacca", json!({})).await;

    rx.wait_for(Duration::from_secs(10), |g| g.len() == 1).await;
    let wait_attempts = |webhook: String, n: usize| {
        let (app, p) = (&app, &players[0]);
        async move {
            for _ in 0..500 {
                let log = deliveries(app, p, &webhook).await;
                if log.len() == 1 && log[0]["attempts"].as_array().expect("attempts").len() == n {
                    return log[0].clone();
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            panic!("{n} attempts were not recorded");
        }
    };
    let first = wait_attempts(good.clone(), 1).await;
    assert_eq!(first["status"], "pending");
    assert_eq!(first["attempts"][0]["status_code"], 500);
    assert!(first["next_attempt_at"].is_string());
    let unreachable = wait_attempts(dead.clone(), 1).await;
    assert_eq!(unreachable["attempts"][0]["status_code"], Value::Null);
    assert!(
        unreachable["attempts"][0]["error"]
            .as_str()
            .expect("error")
            .contains("connect")
    );

    // Nothing is retried before its backoff ends (at least 30 s away).
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rx.got().len(), 1);
    clock.advance(chrono::Duration::seconds(61));
    rx.wait_for(Duration::from_secs(10), |g| g.len() == 2).await;
    wait_attempts(dead.clone(), 2).await;

    // The third attempt (after a backoff of 60 to 120 s) is answered.
    rx.status.store(200, Ordering::SeqCst);
    clock.advance(chrono::Duration::seconds(121));
    let got = rx.wait_for(Duration::from_secs(10), |g| g.len() == 3).await;
    assert!(
        got.iter().all(|r| r.delivery == got[0].delivery),
        "one delivery, retried"
    );
    assert_eq!(
        got.iter().map(|r| r.answered).collect::<Vec<_>>(),
        [500, 500, 200]
    );
    let done = wait_attempts(good, 3).await;
    assert_eq!(done["status"], "delivered");
    let failed = wait_attempts(dead, 3).await;
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["next_attempt_at"], Value::Null);

    // Nothing more comes.
    clock.advance(chrono::Duration::hours(24));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(rx.got().len(), 3);

    let metrics = app.get("/metrics", None).await.text;
    for line in [
        "sealed_orders_webhook_attempts_total{outcome=\"delivered\"} 1",
        "sealed_orders_webhook_attempts_total{outcome=\"retry\"} 4",
        "sealed_orders_webhook_attempts_total{outcome=\"failed\"} 1",
    ] {
        assert!(metrics.contains(line), "{line} not in {metrics}");
    }
}

#[tokio::test]
async fn an_address_allowed_once_is_refused_at_delivery_when_private_addresses_no_longer_are() {
    let allowed = [("WEBHOOK_ALLOW_PRIVATE", "1"), ("WEBHOOK_POLL_MS", "50")];
    let (app, mut process) = spawn_process(&allowed).await;
    let rx = receiver(200);
    let players = app.players(2).await;
    let webhook =
        create_webhook(&app, &players[0], &rx.url, json!(["match_started"])).await["webhook"]["id"]
            .as_str()
            .expect("id")
            .to_owned();
    process.kill();
    // The production default from now on: the stored loopback URL is refused
    // when its delivery is attempted.
    let _process = restart_process(&app, &[("WEBHOOK_POLL_MS", "50")]).await;
    app.started_match(&players, "malacca", json!({})).await;
    let mut log = deliveries(&app, &players[0], &webhook).await;
    for _ in 0..250 {
        if log.len() == 1 && log[0]["attempts"].as_array().is_some_and(|a| !a.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        log = deliveries(&app, &players[0], &webhook).await;
    }
    let attempt = &log[0]["attempts"][0];
    assert_eq!(attempt["status_code"], Value::Null, "{log:?}");
    assert!(
        attempt["error"]
            .as_str()
            .is_some_and(|e| e.contains("127.0.0.1 is not a public address")),
        "{log:?}"
    );
    assert_eq!(log[0]["status"], "pending");
    assert!(rx.got().is_empty());
}

#[tokio::test]
async fn a_delivery_in_backoff_survives_a_crash_and_arrives_once_after_restart() {
    let env = [
        ("WEBHOOK_ALLOW_PRIVATE", "1"),
        ("WEBHOOK_POLL_MS", "50"),
        // The first retry is due 3 to 6 s after the first failure.
        ("WEBHOOK_BACKOFF_MS", "6000"),
    ];
    let (app, mut process) = spawn_process(&env).await;
    let rx = receiver(503);
    let players = app.players(2).await;
    let created = create_webhook(&app, &players[0], &rx.url, json!(["match_started"])).await;
    let secret = created["secret"].as_str().expect("secret").to_owned();
    let webhook = created["webhook"]["id"].as_str().expect("id").to_owned();
    app.started_match(&players, "malacca", json!({})).await;
    rx.wait_for(Duration::from_secs(10), |g| g.len() == 1).await;
    // The failure is recorded: the delivery waits for its retry.
    let mut log = deliveries(&app, &players[0], &webhook).await;
    for _ in 0..250 {
        if log.len() == 1 && log[0]["attempts"].as_array().is_some_and(|a| a.len() == 1) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        log = deliveries(&app, &players[0], &webhook).await;
    }
    assert_eq!(log[0]["status"], "pending", "{log:?}");
    assert_eq!(log[0]["attempts"][0]["status_code"], 503);

    // Killed in the middle of the backoff, as a crash would.
    process.kill();
    rx.status.store(200, Ordering::SeqCst);
    let _process = restart_process(&app, &env).await;

    let got = rx.wait_for(Duration::from_secs(20), |g| g.len() == 2).await;
    // Well past any further retry: nothing else comes.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let got_after = rx.got();
    assert_eq!(got_after.len(), 2, "{got_after:#?}");
    assert_eq!(got[0].delivery, got[1].delivery);
    assert_eq!(got[1].answered, 200);
    assert!(sign::verify(
        &secret,
        &got[1].signature,
        got[1].body.as_bytes()
    ));
    let log = deliveries(&app, &players[0], &webhook).await;
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["status"], "delivered");
    assert_eq!(log[0]["attempts"].as_array().expect("attempts").len(), 2);
}

/// A webhook made on one replica gets the events of a match played on the
/// other: a replica that knows of no webhook skips its fan-out, and the one
/// that made it hears of the match through the other's notifications.
#[tokio::test]
async fn a_webhook_made_on_one_replica_gets_the_events_of_a_match_played_on_another() {
    use crate::replicas::{call, replicas};
    let (settings, _guard) = crate::helpers::test_settings().await;
    if settings.database_schema.is_none() {
        eprintln!("skipped: two replicas need Postgres (TEST_DATABASE_URL)");
        return;
    }
    let (_servers, apis) = replicas(
        &settings,
        2,
        &[("WEBHOOK_ALLOW_PRIVATE", "1"), ("WEBHOOK_POLL_MS", "50")],
    )
    .await;
    let client = reqwest::Client::new();
    let mut tokens = Vec::new();
    for name in ["ann", "ben"] {
        let body = json!({"name": name, "password": "password1"});
        call(
            &client,
            Method::POST,
            format!("{}/players", apis[0]),
            None,
            body.clone(),
        )
        .await;
        let t = call(
            &client,
            Method::POST,
            format!("{}/auth/token", apis[0]),
            None,
            body,
        )
        .await;
        tokens.push(t["access_token"].as_str().expect("token").to_owned());
    }
    let rx = receiver(200);
    call(
        &client,
        Method::POST,
        format!("{}/players/me/webhooks", apis[0]),
        Some(&tokens[0]),
        json!({"url": rx.url, "events": ["match_started"]}),
    )
    .await;
    // Everything about the match goes through the other replica.
    let m = call(
        &client,
        Method::POST,
        format!("{}/matches", apis[1]),
        Some(&tokens[0]),
        json!({"game": "malacca", "seats": 2}),
    )
    .await;
    let id = m["id"].as_str().expect("id").to_owned();
    call(
        &client,
        Method::POST,
        format!("{}/matches/{id}/join", apis[1]),
        Some(&tokens[1]),
        json!({}),
    )
    .await;
    let got = rx
        .wait_for(Duration::from_secs(20), |got| !got.is_empty())
        .await;
    let body: Value = serde_json::from_str(&got[0].body).expect("JSON");
    assert_eq!(body["event"]["kind"], "match_started");
    assert_eq!(body["match_id"], id.as_str());
}
