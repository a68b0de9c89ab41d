//! Rate limits (per address and per account, per process), X-Forwarded-For from
//! trusted proxies only, and CORS.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, Reply, TestApp, spawn_app, spawn_app_with};

/// A request from `client` as a proxy would forward it.
async fn send_via(
    app: &TestApp,
    client: &str,
    path: &str,
    token: Option<&str>,
    body: &Value,
) -> Reply {
    app.send_with_headers(
        Method::POST,
        path,
        token,
        Some(body),
        &[("x-forwarded-for", client)],
    )
    .await
}

/// The statuses of registrations forwarded for these clients.
async fn registrations_via(app: &TestApp, clients: &[&str]) -> Vec<u16> {
    let mut statuses = Vec::new();
    for (i, client) in clients.iter().enumerate() {
        let body = register(&format!("player{i}"));
        let r = send_via(app, client, "/api/v1/players", None, &body).await;
        statuses.push(r.status.as_u16());
    }
    statuses
}

fn header<'a>(r: &'a Reply, name: &str) -> &'a str {
    r.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no {name} header: {:?}", r.headers))
}

/// Asserts a 429 problem with its four headers.
fn assert_limited(r: &Reply, limit: u32, retry_after: u64) {
    r.problem(429, "rate_limited");
    assert_eq!(header(r, "ratelimit-limit"), limit.to_string());
    assert_eq!(header(r, "ratelimit-remaining"), "0");
    assert_eq!(header(r, "retry-after"), retry_after.to_string());
    let reset: u64 = header(r, "ratelimit-reset").parse().expect("a number");
    assert!(reset >= retry_after && reset <= 60, "reset {reset}");
}

fn register(name: &str) -> Value {
    json!({"name": name, "password": "password1"})
}

#[tokio::test]
async fn a_429_carries_its_four_headers_and_a_problem_and_the_bucket_refills() {
    let (app, clock) = spawn_app_with(|s| s.rate_limit_auth_per_min = 3).await;
    for (i, left) in ["2", "1", "0"].into_iter().enumerate() {
        let r = app
            .post("/api/v1/players", None, &register(&format!("player{i}")))
            .await;
        r.expect(201);
        assert_eq!(header(&r, "ratelimit-limit"), "3");
        assert_eq!(header(&r, "ratelimit-remaining"), left);
    }
    let refused = app.post("/api/v1/players", None, &register("late")).await;
    // Three a minute: one every 20 seconds.
    assert_limited(&refused, 3, 20);
    app.get("/api/v1/players/late", None)
        .await
        .problem(404, "player_not_found");
    // Logins share the allowance of the address.
    assert_limited(
        &app.post("/api/v1/auth/token", None, &register("player0"))
            .await,
        3,
        20,
    );

    clock.advance(chrono::Duration::seconds(19));
    assert_limited(
        &app.post("/api/v1/players", None, &register("late")).await,
        3,
        1,
    );
    clock.advance(chrono::Duration::seconds(1));
    let r = app.post("/api/v1/players", None, &register("late")).await;
    r.expect(201);
    assert_eq!(header(&r, "ratelimit-remaining"), "0");
}

#[tokio::test]
async fn logins_are_limited_per_account_whatever_the_address() {
    let (app, clock) = spawn_app_with(|s| {
        s.rate_limit_auth_per_min = 3;
        s.trusted_proxies = vec!["127.0.0.1/32".parse().expect("network")];
    })
    .await;
    send_via(
        &app,
        "192.0.2.1",
        "/api/v1/players",
        None,
        &register("alice"),
    )
    .await
    .expect(201);
    send_via(&app, "192.0.2.1", "/api/v1/players", None, &register("bob"))
        .await
        .expect(201);
    for client in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
        send_via(&app, client, "/api/v1/auth/token", None, &register("alice"))
            .await
            .expect(200);
    }
    // A fresh address, the same account (in any case).
    let r = send_via(
        &app,
        "203.0.113.9",
        "/api/v1/auth/token",
        None,
        &register("ALICE"),
    )
    .await;
    assert_limited(&r, 3, 20);
    // The refusal took nothing from that address: bob logs in from it.
    send_via(
        &app,
        "203.0.113.9",
        "/api/v1/auth/token",
        None,
        &register("bob"),
    )
    .await
    .expect(200);
    clock.advance(chrono::Duration::seconds(20));
    send_via(
        &app,
        "203.0.113.9",
        "/api/v1/auth/token",
        None,
        &register("alice"),
    )
    .await
    .expect(200);
}

#[tokio::test]
async fn moves_are_limited_per_player_and_per_address() {
    let (app, clock) = spawn_app_with(|s| {
        s.rate_limit_moves_per_min = 2;
        s.rate_limit_moves_per_min_per_address = 2;
        s.trusted_proxies = vec!["127.0.0.0/8".parse().expect("network")];
    })
    .await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let path = format!("/api/v1/matches/{id}/moves");
    // A move for a step long gone is refused by the rules, and still counts.
    let stale = json!({"step": 99, "action": {"type": "play", "card": "trade", "stake": 0}});
    let mv = |p: &Player, client: &'static str| {
        let (token, path, stale) = (p.token.clone(), path.clone(), stale.clone());
        let app = &app;
        async move { send_via(app, client, &path, Some(&token), &stale).await }
    };
    mv(&players[0], "192.0.2.1")
        .await
        .problem(409, "stale_step");
    mv(&players[0], "192.0.2.2")
        .await
        .problem(409, "stale_step");
    // Player 0 is out of moves, from any address; resigning is a move too.
    assert_limited(&mv(&players[0], "192.0.2.3").await, 2, 30);
    let resign = format!("/api/v1/matches/{id}/resign");
    let r = send_via(
        &app,
        "192.0.2.5",
        &resign,
        Some(&players[0].token),
        &json!({}),
    )
    .await;
    assert_limited(&r, 2, 30);

    // Address 192.0.2.3 gave nothing to that refusal: two moves, then it is out.
    mv(&players[1], "192.0.2.3")
        .await
        .problem(409, "stale_step");
    mv(&players[2], "192.0.2.3")
        .await
        .problem(409, "stale_step");
    assert_limited(&mv(&players[1], "192.0.2.3").await, 2, 30);

    clock.advance(chrono::Duration::seconds(30));
    mv(&players[0], "192.0.2.4")
        .await
        .problem(409, "stale_step");
}

#[tokio::test]
async fn x_forwarded_for_is_honoured_only_from_a_trusted_proxy() {
    let clients = ["192.0.2.1", "192.0.2.2", "192.0.2.3"];
    let (direct, _clock) = spawn_app_with(|s| s.rate_limit_auth_per_min = 2).await;
    assert_eq!(registrations_via(&direct, &clients).await, [201, 201, 429]);

    let behind_proxy = |s: &mut sealed_orders::config::Settings| {
        s.rate_limit_auth_per_min = 2;
        s.trusted_proxies = vec!["127.0.0.1".parse().expect("network")];
    };
    let (proxied, _clock) = spawn_app_with(behind_proxy).await;
    assert_eq!(registrations_via(&proxied, &clients).await, [201, 201, 201]);

    // What the client wrote itself, left of the address our proxy appended,
    // proves nothing: 192.0.2.9 is counted however it dresses up.
    let (proxied, _clock) = spawn_app_with(behind_proxy).await;
    let spoofed = [
        "1.1.1.1, 192.0.2.9",
        "2.2.2.2, 192.0.2.9",
        "3.3.3.3, 192.0.2.9",
    ];
    assert_eq!(registrations_via(&proxied, &spoofed).await, [201, 201, 429]);
}

#[tokio::test]
async fn a_limit_of_zero_is_off() {
    let (app, _clock) = spawn_app_with(|s| {
        s.rate_limit_auth_per_min = 0;
        s.rate_limit_moves_per_min = 0;
    })
    .await;
    let r = app.post("/api/v1/players", None, &register("alice")).await;
    r.expect(201);
    assert!(!r.headers.contains_key("ratelimit-limit"));
}

#[tokio::test]
async fn a_dozen_players_and_a_full_game_never_meet_the_default_limits() {
    // The clock stands still, so nothing refills: the count below is exact.
    let (app, _clock) = spawn_app_with(|_| {}).await;
    let players = app.players(12).await;
    let last = app
        .post(
            "/api/v1/auth/token",
            None,
            &json!({"name": "player11", "password": "password1"}),
        )
        .await;
    last.expect(200);
    // 12 registrations and 13 logins from one address: 35 of 60 left.
    assert_eq!(header(&last, "ratelimit-remaining"), "35");
    let id = app.started_match(&players[..4], "kontor", json!({})).await;
    let (end, moves) = app.play_to_end(&id, &players[..4], 3).await;
    assert_eq!(end["status"], "finished");
    assert!(moves > 0, "{moves} moves");
}

async fn preflight(app: &TestApp, origin: &str) -> Reply {
    app.send_with_headers(
        Method::OPTIONS,
        "/api/v1/matches",
        None,
        None,
        &[
            ("origin", origin),
            ("access-control-request-method", "POST"),
            (
                "access-control-request-headers",
                "authorization, content-type",
            ),
        ],
    )
    .await
}

#[tokio::test]
async fn cors_preflight_answers_for_an_allowed_origin_and_not_for_another() {
    let allowed = "https://play.example";
    let (app, _clock) = spawn_app_with(|s| s.cors_origins = vec![allowed.to_owned()]).await;
    let ok = preflight(&app, allowed).await;
    assert_eq!(ok.status.as_u16(), 204);
    assert_eq!(header(&ok, "access-control-allow-origin"), allowed);
    let allow_headers = header(&ok, "access-control-allow-headers").to_lowercase();
    for h in [
        "authorization",
        "content-type",
        "idempotency-key",
        "last-event-id",
    ] {
        assert!(allow_headers.contains(h), "{allow_headers}");
    }
    assert!(header(&ok, "access-control-allow-methods").contains("POST"));

    let other = preflight(&app, "https://evil.example").await;
    assert!(!other.headers.contains_key("access-control-allow-origin"));

    // An actual request from the allowed origin may read the headers it needs.
    let r = app
        .send_with_headers(
            Method::POST,
            "/api/v1/players",
            None,
            Some(&register("alice")),
            &[("origin", allowed)],
        )
        .await;
    r.expect(201);
    assert_eq!(header(&r, "access-control-allow-origin"), allowed);
    let exposed = header(&r, "access-control-expose-headers").to_lowercase();
    for h in [
        "ratelimit-remaining",
        "ratelimit-reset",
        "retry-after",
        "x-request-id",
        "idempotent-replay",
        "location",
    ] {
        assert!(exposed.contains(h), "{exposed}");
    }

    // By default there are no CORS headers at all.
    let plain = spawn_app().await;
    let none = preflight(&plain, allowed).await;
    assert!(!none.headers.contains_key("access-control-allow-origin"));
}

/// The `password_hashes{state="…"}` gauge of /metrics.
async fn password_hashes(app: &TestApp, state: &str) -> i64 {
    let text = app.get("/metrics", None).await.text;
    let prefix = format!("sealed_orders_password_hashes{{state=\"{state}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {prefix} in /metrics"))
}

#[tokio::test]
async fn concurrent_failed_logins_never_run_more_hashes_at_once_than_the_pool_has_threads() {
    let (app, _) = spawn_app_with(|s| {
        s.password_hash_threads = 2;
        s.rate_limit_auth_per_min = 0;
    })
    .await;
    app.player("victim").await;
    let attempts: Vec<_> = (0..24)
        .map(|i| {
            let body = json!({"name": if i % 2 == 0 { "victim" } else { "nobody" }, "password": "wrong-password"});
            let app = &app;
            async move { app.post("/api/v1/auth/token", None, &body).await }
        })
        .collect();
    for r in futures_util::future::join_all(attempts).await {
        r.problem(401, "invalid_credentials");
    }
    let peak = password_hashes(&app, "peak").await;
    assert!((1..=2).contains(&peak), "peak {peak}");
    assert_eq!(password_hashes(&app, "running").await, 0);
}

#[tokio::test]
async fn a_login_that_finds_every_hashing_thread_busy_past_its_wait_gets_503_with_retry_after() {
    let (app, _) = spawn_app_with(|s| {
        s.password_hash_threads = 1;
        s.password_hash_wait_ms = 0;
        s.rate_limit_auth_per_min = 0;
    })
    .await;
    app.player("victim").await;
    let attempts: Vec<_> = (0..16)
        .map(|_| {
            let body = json!({"name": "victim", "password": "wrong-password"});
            let app = &app;
            async move { app.post("/api/v1/auth/token", None, &body).await }
        })
        .collect();
    // Which attempts find the thread free depends on timing; what each gets
    // does not: a refusal for the password or a 503 to come back later, never
    // a queue without bound.
    let (mut refused, mut busy) = (0, 0);
    for r in futures_util::future::join_all(attempts).await {
        if r.status.as_u16() == 503 {
            r.problem(503, "busy");
            assert_eq!(header(&r, "retry-after"), "1");
            busy += 1;
        } else {
            r.problem(401, "invalid_credentials");
            refused += 1;
        }
    }
    assert_eq!(refused + busy, 16);
    assert!(refused >= 1);
    assert_eq!(password_hashes(&app, "peak").await, 1);
}
