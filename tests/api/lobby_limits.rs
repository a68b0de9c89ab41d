//! What one account may hold open at once (waiting matches, tournaments, clubs,
//! invitations) and how fast it may create them: the caps are counted in the
//! database, the rates in each replica's buckets; admins are exempt.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, Reply, TestApp, another_replica, spawn_app_with};

/// Caps and rates out of the way, so that a test meets only the one it sets.
fn unlimited(s: &mut sealed_orders::config::Settings) {
    s.rate_limit_matches_per_min = 0;
    s.rate_limit_invitations_per_min = 0;
    s.rate_limit_clubs_per_min = 0;
    s.rate_limit_tournaments_per_min = 0;
    s.caps = sealed_orders::config::Caps {
        waiting_matches: 0,
        open_tournaments: 0,
        clubs_owned: 0,
        pending_invitations: 0,
    };
}

/// A two-seat Malacca match that waits for its second player.
async fn new_match(app: &TestApp, p: &Player, extra: Value) -> Reply {
    let mut body = json!({"game": "malacca", "seats": 2});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        b.extend(e.clone());
    }
    app.post("/api/v1/matches", Some(&p.token), &body).await
}

async fn new_tournament(app: &TestApp, p: &Player, name: &str) -> Reply {
    app.post(
        "/api/v1/tournaments",
        Some(&p.token),
        &json!({"name": name, "game": "malacca", "format": "swiss", "rounds": 1}),
    )
    .await
}

async fn new_club(app: &TestApp, p: &Player, name: &str) -> Reply {
    app.post(
        "/api/v1/clubs",
        Some(&p.token),
        &json!({"name": name, "join_policy": "invitation"}),
    )
    .await
}

fn id_of(v: &Value) -> String {
    v["id"].as_str().expect("id").to_owned()
}

/// How many matches `p` owns that wait for players, as the lobby lists them.
async fn waiting_of(app: &TestApp, p: &Player) -> usize {
    let page = app
        .get(
            &format!("/api/v1/matches?status=waiting&player={}", p.name),
            None,
        )
        .await
        .expect(200);
    page["items"].as_array().expect("items").len()
}

/// Asserts a refusal by a cap: a 409 with its code, the cap in the detail, and
/// no Retry-After (waiting frees nothing).
fn assert_capped(r: &Reply, code: &str, cap: u32) {
    let p = r.problem(409, code);
    let detail = p["detail"].as_str().expect("detail");
    assert!(detail.contains(&format!("at most {cap} ")), "{detail}");
    assert!(r.headers.get("retry-after").is_none(), "{:?}", r.headers);
}

/// A POST with an empty body, as `p`.
async fn act(app: &TestApp, p: &Player, path: &str) -> Reply {
    app.post(&format!("/api/v1{path}"), Some(&p.token), &json!({}))
        .await
}

fn header<'a>(r: &'a Reply, name: &str) -> &'a str {
    r.headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no {name} header: {:?}", r.headers))
}

#[tokio::test]
async fn the_waiting_match_past_the_cap_is_refused_and_nothing_is_created() {
    let (app, _clock) = spawn_app_with(|s| {
        unlimited(s);
        s.caps.waiting_matches = 3;
    })
    .await;
    let alice = app.player("alice").await;
    let bob = app.player("bob").await;
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(id_of(&new_match(&app, &alice, json!({})).await.expect(201)));
    }
    assert_capped(
        &new_match(&app, &alice, json!({})).await,
        "too_many_waiting_matches",
        3,
    );
    assert_eq!(waiting_of(&app, &alice).await, 3);
    // In the player's language, with the cap in it.
    let cs = app
        .send_with_headers(
            Method::POST,
            "/api/v1/matches",
            Some(&alice.token),
            Some(&json!({"game": "malacca", "seats": 2})),
            &[("accept-language", "cs")],
        )
        .await;
    let p = cs.problem(409, "too_many_waiting_matches");
    assert_eq!(header(&cs, "content-language"), "cs");
    assert!(
        p["detail"].as_str().expect("detail").contains("nejvýše 3"),
        "{p}"
    );
    // A match its bots fill starts at once: it stands in no lobby.
    let with_bots = new_match(&app, &alice, json!({"bots": ["random"]}))
        .await
        .expect(201);
    assert_eq!(with_bots["status"], "active");
    // The cap is the account's: another player is not held to alice's.
    new_match(&app, &bob, json!({})).await.expect(201);
    // A match that starts leaves room for another.
    act(&app, &bob, &format!("/matches/{}/join", ids[0]))
        .await
        .expect(200);
    new_match(&app, &alice, json!({})).await.expect(201);
    new_match(&app, &alice, json!({}))
        .await
        .problem(409, "too_many_waiting_matches");
    // So does a cancelled one.
    act(&app, &alice, &format!("/matches/{}/cancel", ids[1]))
        .await
        .expect(200);
    new_match(&app, &alice, json!({})).await.expect(201);
    assert_eq!(waiting_of(&app, &alice).await, 3);
}

#[tokio::test]
async fn the_tournament_past_the_cap_is_refused_and_server_rounds_count_for_nobody() {
    let (app, _clock) = spawn_app_with(|s| {
        unlimited(s);
        s.caps.open_tournaments = 2;
        s.caps.waiting_matches = 1;
    })
    .await;
    let alice = app.player("alice").await;
    let first = id_of(&new_tournament(&app, &alice, "One").await.expect(201));
    new_tournament(&app, &alice, "Two").await.expect(201);
    assert_capped(
        &new_tournament(&app, &alice, "Three").await,
        "too_many_tournaments",
        2,
    );
    let list = app.get("/api/v1/tournaments", None).await.expect(200);
    assert_eq!(list["items"].as_array().expect("items").len(), 2);
    // Alice's one waiting match fills her cap of those; the round the server
    // makes for her tournament (alice against a bot, which waits for her
    // move) is not hers to count.
    new_match(&app, &alice, json!({})).await.expect(201);
    app.post(
        &format!("/api/v1/tournaments/{first}/bots"),
        Some(&alice.token),
        &json!({"kind": "random", "count": 1}),
    )
    .await
    .expect(200);
    let t = app
        .post(
            &format!("/api/v1/tournaments/{first}/start"),
            Some(&alice.token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(t["status"], "running", "{t}");
    // Running, it still counts; cancelled, it no longer does.
    new_tournament(&app, &alice, "Three")
        .await
        .problem(409, "too_many_tournaments");
    act(&app, &alice, &format!("/tournaments/{first}/cancel"))
        .await
        .expect(200);
    new_tournament(&app, &alice, "Three").await.expect(201);
}

#[tokio::test]
async fn the_club_past_the_cap_is_refused_and_nothing_is_created() {
    let (app, _clock) = spawn_app_with(|s| {
        unlimited(s);
        s.caps.clubs_owned = 2;
    })
    .await;
    let alice = app.player("alice").await;
    new_club(&app, &alice, "First club").await.expect(201);
    new_club(&app, &alice, "Second club").await.expect(201);
    assert_capped(
        &new_club(&app, &alice, "Third club").await,
        "too_many_clubs",
        2,
    );
    let found = app.get("/api/v1/clubs?q=Third", None).await.expect(200);
    assert_eq!(found["items"], json!([]), "{found}");
    let bob = app.player("bob").await;
    new_club(&app, &bob, "Third club").await.expect(201);
}

#[tokio::test]
async fn invitations_to_matches_and_clubs_share_one_cap_and_expired_ones_free_it() {
    let (app, clock) = spawn_app_with(|s| {
        unlimited(s);
        s.caps.pending_invitations = 3;
        // The test moves the clock past a week: the session must outlive it.
        s.jwt_ttl_seconds = 30 * 24 * 3600;
    })
    .await;
    let alice = app.player("alice").await;
    let others = [
        app.player("bob").await,
        app.player("carol").await,
        app.player("dave").await,
        app.player("erin").await,
    ];
    let [bob, carol, dave, erin] = &others;
    // Two standing invitations to a match.
    let m = new_match(
        &app,
        &alice,
        json!({"seats": 5, "invite": [bob.name, carol.name]}),
    )
    .await
    .expect(201);
    let mid = id_of(&m);
    // A third, to a club.
    let club = id_of(&new_club(&app, &alice, "Alice's").await.expect(201));
    app.post(
        &format!("/api/v1/clubs/{club}/invitations"),
        Some(&alice.token),
        &json!({"player": dave.name}),
    )
    .await
    .expect(200);
    // A fourth is refused, to a match or to a club, and nothing is written.
    let invite = |names: Vec<String>| {
        let path = format!("/api/v1/matches/{mid}/invitations");
        let token = alice.token.clone();
        let app = &app;
        async move {
            app.post(&path, Some(&token), &json!({"players": names}))
                .await
        }
    };
    assert_capped(
        &invite(vec![erin.name.clone()]).await,
        "too_many_invitations",
        3,
    );
    app.post(
        &format!("/api/v1/clubs/{club}/invitations"),
        Some(&alice.token),
        &json!({"player": erin.name}),
    )
    .await
    .problem(409, "too_many_invitations");
    new_match(&app, &alice, json!({"invite": [erin.name]}))
        .await
        .problem(409, "too_many_invitations");
    assert_eq!(waiting_of(&app, &alice).await, 1);
    let listed = app
        .get(&format!("/api/v1/matches/{mid}/invitations"), None)
        .await
        .expect(200);
    assert_eq!(listed["items"].as_array().expect("items").len(), 2);
    // Inviting again whom one invited renews the invitation: it adds none.
    invite(vec![bob.name.clone()]).await.expect(200);
    app.post(
        &format!("/api/v1/clubs/{club}/invitations"),
        Some(&alice.token),
        &json!({"player": dave.name}),
    )
    .await
    .expect(200);
    // An answer frees a place.
    act(&app, carol, &format!("/matches/{mid}/invitations/decline"))
        .await
        .expect(200);
    invite(vec![erin.name.clone()]).await.expect(200);
    invite(vec![carol.name.clone()])
        .await
        .problem(409, "too_many_invitations");
    // Expired invitations to matches stand no more (the club's do not expire).
    clock.advance(chrono::Duration::hours(169));
    invite(vec![carol.name.clone(), bob.name.clone()])
        .await
        .expect(200);
    invite(vec![erin.name.clone()])
        .await
        .problem(409, "too_many_invitations");
}

#[tokio::test]
async fn two_replicas_creating_at_once_never_pass_a_cap() {
    let (app, _clock) = spawn_app_with(|s| {
        unlimited(s);
        s.caps.waiting_matches = 2;
    })
    .await;
    let other = another_replica(&app).await;
    let alice = app.player("alice").await;
    new_match(&app, &alice, json!({})).await.expect(201);
    // One place is left: of two requests at once, one takes it.
    for expected in [[201, 409], [409, 409], [409, 409]] {
        let (a, b) = tokio::join!(
            new_match(&app, &alice, json!({})),
            new_match(&other, &alice, json!({}))
        );
        let mut statuses = [a.status.as_u16(), b.status.as_u16()];
        statuses.sort_unstable();
        assert_eq!(statuses, expected, "{} / {}", a.text, b.text);
        assert_eq!(waiting_of(&app, &alice).await, 2);
    }
}

/// Asserts a creation refused by its rate, with the policy's headers.
fn assert_rate_limited(r: &Reply, policy: &str, per_min: u32) {
    r.problem(429, "rate_limited");
    assert_eq!(
        header(r, "ratelimit-policy"),
        format!("\"{policy}\";q={per_min};w=60")
    );
    assert!(
        header(r, "ratelimit").starts_with(&format!("\"{policy}\";r=0;")),
        "{:?}",
        r.headers
    );
    assert_eq!(header(r, "retry-after"), (60 / per_min).to_string());
}

#[tokio::test]
async fn every_creation_has_a_rate_per_account_with_its_headers() {
    let (app, clock) = spawn_app_with(|s| {
        unlimited(s);
        s.rate_limit_matches_per_min = 2;
        s.rate_limit_invitations_per_min = 2;
        s.rate_limit_clubs_per_min = 2;
        s.rate_limit_tournaments_per_min = 2;
    })
    .await;
    let alice = app.player("alice").await;
    let bob = app.player("bob").await;
    let carol = app.player("carol").await;

    // Matches: a creation and a rematch asked for take from one bucket.
    let first = new_match(&app, &alice, json!({})).await;
    let m = first.expect(201);
    assert_eq!(header(&first, "ratelimit-policy"), "\"matches\";q=2;w=60");
    assert!(header(&first, "ratelimit").starts_with("\"matches\";r=1;"));
    app.post(
        &format!("/api/v1/matches/{}/rematch", id_of(&m)),
        Some(&alice.token),
        &json!({}),
    )
    .await
    .problem(409, "match_not_finished");
    assert_rate_limited(&new_match(&app, &alice, json!({})).await, "matches", 2);
    assert_eq!(waiting_of(&app, &alice).await, 1);
    // Per account: bob's bucket is his own.
    new_match(&app, &bob, json!({})).await.expect(201);

    // Invitations, to matches and clubs alike.
    let invite = |who: &Player| {
        let path = format!("/api/v1/matches/{}/invitations", id_of(&m));
        let body = json!({"players": [who.name]});
        let token = alice.token.clone();
        let app = &app;
        async move { app.post(&path, Some(&token), &body).await }
    };
    invite(&bob).await.expect(200);
    let club = id_of(&new_club(&app, &alice, "Rated").await.expect(201));
    app.post(
        &format!("/api/v1/clubs/{club}/invitations"),
        Some(&alice.token),
        &json!({"player": carol.name}),
    )
    .await
    .expect(200);
    assert_rate_limited(&invite(&carol).await, "invitations", 2);

    // Clubs (one made above) and tournaments.
    new_club(&app, &alice, "Second").await.expect(201);
    assert_rate_limited(&new_club(&app, &alice, "Third").await, "clubs", 2);
    new_tournament(&app, &alice, "One").await.expect(201);
    new_tournament(&app, &alice, "Two").await.expect(201);
    assert_rate_limited(
        &new_tournament(&app, &alice, "Three").await,
        "tournaments",
        2,
    );

    // A token comes back every 30 seconds.
    clock.advance(chrono::Duration::seconds(31));
    new_tournament(&app, &alice, "Three").await.expect(201);
    new_match(&app, &alice, json!({})).await.expect(201);
    new_match(&app, &alice, json!({}))
        .await
        .problem(429, "rate_limited");
}

#[tokio::test]
async fn an_address_may_create_five_times_an_accounts_rate() {
    let (app, _clock) = spawn_app_with(|s| {
        unlimited(s);
        s.rate_limit_clubs_per_min = 1;
        s.trusted_proxies = vec!["127.0.0.1/32".parse().expect("network")];
    })
    .await;
    let players = app.players(6).await;
    let club = |p: &Player, n: usize, client: &'static str| {
        let body = json!({"name": format!("Club {n}")});
        let token = p.token.clone();
        let app = &app;
        async move {
            app.send_with_headers(
                Method::POST,
                "/api/v1/clubs",
                Some(&token),
                Some(&body),
                &[("x-forwarded-for", client)],
            )
            .await
        }
    };
    for (n, p) in players.iter().take(5).enumerate() {
        club(p, n, "192.0.2.1").await.expect(201);
    }
    // Five accounts' worth from one address: the sixth account is refused there…
    let r = club(&players[5], 5, "192.0.2.1").await;
    assert_rate_limited(&r, "clubs", 5);
    // …and not elsewhere.
    club(&players[5], 5, "192.0.2.2").await.expect(201);
}

#[tokio::test]
async fn an_admin_is_held_to_no_cap_and_no_creation_rate() {
    let (app, _clock) = spawn_app_with(|s| {
        unlimited(s);
        s.caps.waiting_matches = 1;
        s.caps.open_tournaments = 1;
        s.rate_limit_matches_per_min = 1;
        s.rate_limit_tournaments_per_min = 1;
    })
    .await;
    let admin = crate::moderation::admin(&app, "root").await;
    for _ in 0..3 {
        new_match(&app, &admin, json!({})).await.expect(201);
    }
    for n in 0..3 {
        new_tournament(&app, &admin, &format!("Open {n}"))
            .await
            .expect(201);
    }
    assert_eq!(waiting_of(&app, &admin).await, 3);
    // The same settings hold a player.
    let alice = app.player("alice").await;
    new_match(&app, &alice, json!({})).await.expect(201);
    assert_rate_limited(&new_match(&app, &alice, json!({})).await, "matches", 1);
}

#[test]
fn the_defaults_are_far_above_what_a_person_keeps_open() {
    let c = sealed_orders::config::Caps::default();
    assert_eq!(
        (
            c.waiting_matches,
            c.open_tournaments,
            c.clubs_owned,
            c.pending_invitations
        ),
        (20, 5, 10, 100)
    );
}
