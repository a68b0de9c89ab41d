//! Mail against a real SMTP server (the sink of `mailsink`): the address and
//! its confirmation, turn mails, the daily digest, deadline reminders,
//! one-click unsubscribe, password reset, retries, and two replicas.

use std::sync::Arc;

use reqwest::Method;
use sealed_orders::config::MailSettings;
use sealed_orders::service::clock::ManualClock;
use secrecy::SecretString;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, another_replica, spawn_app_with};
use crate::mailsink::MailSink;

const PUBLIC: &str = "https://play.example.org";

async fn mail_app() -> (TestApp, Arc<ManualClock>, MailSink) {
    let sink = MailSink::start().await;
    let url = sink.url();
    let (app, clock) = spawn_app_with(|s| {
        s.mail = MailSettings {
            smtp_url: Some(SecretString::from(url)),
            from: "Sealed Orders <play@example.org>".into(),
            public_url: PUBLIC.into(),
            poll_ms: 50,
            backoff_ms: 1000,
            max_attempts: 3,
        };
        // Tokens outlive the hours the clock is moved on.
        s.jwt_ttl_seconds = 7 * 24 * 3600;
    })
    .await;
    (app, clock, sink)
}

fn address_of(p: &Player) -> String {
    format!("{}@example.org", p.name)
}

/// Sets the player's address and opens the link of the confirmation mail.
async fn confirmed(app: &TestApp, sink: &MailSink, p: &Player) {
    let to = address_of(p);
    app.send(
        Method::PUT,
        "/api/v1/players/me/email",
        Some(&p.token),
        Some(&json!({"address": to})),
    )
    .await
    .expect(202);
    let mail = sink.wait_for(&to, "Confirm").await;
    let link = mail
        .link(&format!("{PUBLIC}/#/confirm-email?token="))
        .expect("a confirmation link");
    let token = link.rsplit('=').next().expect("a token");
    app.post(
        "/api/v1/email-confirmations",
        None,
        &json!({"token": token}),
    )
    .await
    .expect(204);
}

async fn settings(app: &TestApp, p: &Player) -> Value {
    app.get("/api/v1/players/me/notifications", Some(&p.token))
        .await
        .expect(200)
}

async fn put_settings(app: &TestApp, p: &Player, change: Value) -> Value {
    let mut s = settings(app, p).await;
    let o = s.as_object_mut().expect("object");
    o.remove("email");
    o.remove("mail_enabled");
    for (k, v) in change.as_object().expect("object") {
        o.insert(k.clone(), v.clone());
    }
    app.send(
        Method::PUT,
        "/api/v1/players/me/notifications",
        Some(&p.token),
        Some(&s),
    )
    .await
    .expect(200)
}

/// A Malacca match whose seats move one after another (seat 0 first), with a
/// time limit per move in seconds.
async fn timed_match(app: &TestApp, players: &[Player], limit: u64) -> String {
    let seats: Vec<Value> = players
        .iter()
        .map(|_| json!({"coins": 5, "specials": []}))
        .collect();
    app.started_match(
        players,
        "malacca",
        json!({
            "position": {"round": 1, "captain": 0, "ships": [8, 9], "special_deck": [], "players": seats},
            "stakes": "open_sequential",
            "move_time_limit": limit,
        }),
    )
    .await
}

/// Plays the first legal move of `p`'s prompt.
async fn play_first_legal(app: &TestApp, id: &str, p: &Player) {
    let m = app.match_as(id, Some(p)).await;
    let entry = m["prompt"]["legal"][0].clone();
    let step = m["prompt"]["step"].as_i64().expect("step");
    let action = if entry.get("template").is_some() {
        json!({"type": "play", "card": entry["cards"][0], "stake": entry["stake"]["min"]})
    } else {
        entry
    };
    app.submit(id, p, step, action).await.expect(200);
}

#[tokio::test]
async fn an_address_is_confirmed_once_by_the_link_mailed_to_it() {
    let (app, _, sink) = mail_app().await;
    let p = app.player("alice").await;

    let bad = app
        .send(
            Method::PUT,
            "/api/v1/players/me/email",
            Some(&p.token),
            Some(&json!({"address": "not an address"})),
        )
        .await;
    bad.problem(422, "invalid_email");
    assert!(bad.content_type.starts_with("application/problem+json"));

    let set = app
        .send(
            Method::PUT,
            "/api/v1/players/me/email",
            Some(&p.token),
            Some(&json!({"address": "alice@example.org"})),
        )
        .await
        .expect(202);
    assert_eq!(set["email"]["address"], "alice@example.org");
    assert_eq!(set["email"]["confirmed_at"], Value::Null);
    assert_eq!(set["mail_enabled"], true);

    let mail = sink.wait_for("alice@example.org", "Confirm").await;
    assert_eq!(
        mail.header("From").as_deref(),
        Some("\"Sealed Orders\" <play@example.org>")
    );
    assert!(mail.text().contains("Hello alice"), "{}", mail.text());
    assert!(
        mail.html()
            .contains("<a href=\"https://play.example.org/#/confirm-email?token=")
    );
    // Account mail has nothing to unsubscribe from.
    assert_eq!(mail.header("List-Unsubscribe"), None);
    let link = mail
        .link(&format!("{PUBLIC}/#/confirm-email?token="))
        .expect("a link");
    let token = link.rsplit('=').next().expect("a token").to_owned();

    app.post(
        "/api/v1/email-confirmations",
        None,
        &json!({"token": token}),
    )
    .await
    .expect(204);
    let s = settings(&app, &p).await;
    assert!(s["email"]["confirmed_at"].is_string(), "{s}");
    // Single use.
    app.post(
        "/api/v1/email-confirmations",
        None,
        &json!({"token": token}),
    )
    .await
    .problem(422, "invalid_mail_token");
}

#[tokio::test]
async fn it_is_your_turn_is_mailed_with_a_one_click_unsubscribe_that_only_a_post_uses() {
    let (app, _, sink) = mail_app().await;
    let players = vec![app.player("anna").await, app.player("bert").await];
    for p in &players {
        confirmed(&app, &sink, p).await;
    }
    let id = timed_match(&app, &players, 3600).await;

    // Seat 0 owes the first move.
    let mail = sink.wait_for("anna@example.org", "Your move").await;
    assert!(mail.subject().contains("Malacca"), "{}", mail.subject());
    assert!(
        mail.text().contains(&format!("{PUBLIC}/#/match/{id}")),
        "{}",
        mail.text()
    );
    assert!(
        mail.html()
            .contains(&format!("href=\"{PUBLIC}/#/match/{id}\""))
    );
    assert_eq!(
        mail.header("List-Unsubscribe-Post").as_deref(),
        Some("List-Unsubscribe=One-Click")
    );
    let unsubscribe = mail.header("List-Unsubscribe").expect("List-Unsubscribe");
    let link = unsubscribe
        .trim_start_matches('<')
        .trim_end_matches('>')
        .to_owned();
    assert!(
        link.starts_with(&format!("{PUBLIC}/api/v1/unsubscribe?token=")),
        "{link}"
    );
    assert!(sink.to("bert@example.org", "Your move").is_empty());

    // A GET only asks (link scanners fetch links).
    let path = link.trim_start_matches(PUBLIC);
    let page = app.get(path, None).await;
    assert_eq!(page.status, 200);
    assert!(page.content_type.starts_with("text/html"));
    assert!(page.text.contains("<form method=\"post\""), "{}", page.text);
    assert_eq!(
        settings(&app, &players[0]).await["your_turn"],
        "immediately"
    );

    // The mail client's one-click POST unsubscribes.
    let done = app
        .client
        .post(app.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("List-Unsubscribe=One-Click")
        .send()
        .await
        .expect("post");
    assert_eq!(done.status(), 200);
    let body: Value = done.json().await.expect("json");
    assert_eq!(body["topic"], "your_turn");
    assert_eq!(settings(&app, &players[0]).await["your_turn"], "off");
    app.post("/api/v1/unsubscribe?token=nonsense", None, &json!({}))
        .await
        .problem(404, "unsubscribe_link_invalid");

    // Bert's turn next: mailed to him.
    play_first_legal(&app, &id, &players[0]).await;
    sink.wait_for("bert@example.org", "Your move").await;
}

#[tokio::test]
async fn the_daily_digest_comes_at_the_chosen_hour_of_the_players_time_zone() {
    let (app, clock, sink) = mail_app().await;
    let players = vec![app.player("carl").await, app.player("dora").await];
    confirmed(&app, &sink, &players[0]).await;
    let now = clock.now_utc();
    let tz: chrono_tz::Tz = "Europe/Tallinn".parse().expect("a zone");
    use chrono::Timelike;
    let next_hour = (now + chrono::Duration::hours(1)).with_timezone(&tz).hour();
    put_settings(
        &app,
        &players[0],
        json!({"your_turn": "daily_digest", "time_zone": "Europe/Tallinn", "digest_hour": next_hour}),
    )
    .await;
    let id = timed_match(&app, &players, 3 * 24 * 3600).await;
    // Not at once…
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert!(sink.to("carl@example.org", "Your move").is_empty());
    assert!(sink.to("carl@example.org", "await").is_empty());
    // …but when the hour comes.
    clock.advance(chrono::Duration::hours(1));
    let digest = sink
        .wait_for("carl@example.org", "One match awaits your move")
        .await;
    assert!(
        digest.text().contains(&format!("{PUBLIC}/#/match/{id}")),
        "{}",
        digest.text()
    );
    assert!(
        digest.text().contains("EET") || digest.text().contains("EEST"),
        "{}",
        digest.text()
    );
    // Once a day.
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert_eq!(sink.to("carl@example.org", "await").len(), 1);
}

#[tokio::test]
async fn reminders_come_24_and_1_hours_before_the_deadline_while_the_seat_has_not_moved() {
    let (app, clock, sink) = mail_app().await;
    let players = vec![app.player("emil").await, app.player("fred").await];
    confirmed(&app, &sink, &players[0]).await;
    put_settings(&app, &players[0], json!({"your_turn": "off"})).await;
    timed_match(&app, &players, 48 * 3600).await;

    clock.advance(chrono::Duration::hours(24) + chrono::Duration::minutes(1));
    let first = sink.wait_for("emil@example.org", "24 hours left").await;
    assert!(first.text().contains("due by"), "{}", first.text());
    clock.advance(chrono::Duration::hours(23));
    sink.wait_for("emil@example.org", "One hour left").await;
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(sink.to("emil@example.org", "left").len(), 2);
    assert!(sink.to("emil@example.org", "Your move").is_empty());
}

/// A reminder is due by the seat's real deadline: one moved on by another
/// seat's extension and by the player's vacation comes when that one nears.
#[tokio::test]
async fn reminders_follow_the_deadline_an_extension_and_a_vacation_moved() {
    let (app, clock, sink) = mail_app().await;
    let players = vec![app.player("gina").await, app.player("hugo").await];
    confirmed(&app, &sink, &players[0]).await;
    put_settings(&app, &players[0], json!({"your_turn": "off"})).await;
    let start = clock.now_utc();
    let id = timed_match(&app, &players, 2 * 3600).await;
    // Hugo gives Gina 3 h: due in 5 h. She leaves for a day: due in 29 h.
    app.post(
        &format!("/api/v1/matches/{id}/extensions"),
        Some(&players[1].token),
        &json!({"seat": 0, "seconds": 3 * 3600}),
    )
    .await
    .expect(200);
    app.post(
        "/api/v1/players/me/vacation",
        Some(&players[0].token),
        &json!({"days": 1}),
    )
    .await
    .expect(200);

    // 4 h on: an hour before the deadline she had before leaving, no reminder.
    clock.advance(chrono::Duration::hours(4) + chrono::Duration::minutes(1));
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert!(sink.to("gina@example.org", "left").is_empty());

    // Back then: the 4 h away are not hers, so she is due 9 h after the start.
    app.send(
        Method::DELETE,
        "/api/v1/players/me/vacation",
        Some(&players[0].token),
        None,
    )
    .await
    .expect(200);
    let turns = app
        .get("/api/v1/players/me/turns", Some(&players[0].token))
        .await
        .expect(200);
    let due = crate::timed::at(&turns["items"][0]["deadline"]);
    assert_eq!(
        due,
        start + chrono::Duration::hours(9) + chrono::Duration::minutes(1)
    );
    clock.advance(chrono::Duration::hours(4));
    sink.wait_for("gina@example.org", "One hour left").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert_eq!(sink.to("gina@example.org", "left").len(), 1);
}

#[tokio::test]
async fn a_password_reset_is_answered_202_whoever_asks_and_the_new_password_ends_every_session() {
    let (app, _, sink) = mail_app().await;
    let p = app.player("gina").await;
    confirmed(&app, &sink, &p).await;
    let api_token = app
        .post(
            "/api/v1/players/me/tokens",
            Some(&p.token),
            &json!({"name": "bot", "scopes": ["play"]}),
        )
        .await
        .expect(201)["token"]
        .as_str()
        .expect("token")
        .to_owned();

    for login in ["gina", "nobody", "gina@example.org", "nobody@example.org"] {
        let r = app
            .post(
                "/api/v1/auth/password-reset",
                None,
                &json!({"login": login}),
            )
            .await;
        assert_eq!(r.status, 202, "{login}: {}", r.text);
    }
    // Asked for by name and by address: two mails, and only the newer link works.
    sink.wait_for("gina@example.org", "Reset your password")
        .await;
    for _ in 0..100 {
        if sink.to("gina@example.org", "Reset your password").len() == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let mails = sink.to("gina@example.org", "Reset your password");
    assert_eq!(mails.len(), 2);
    assert!(
        mails[0].text().contains("30 minutes"),
        "{}",
        mails[0].text()
    );
    let mut worked = Vec::new();
    for mail in &mails {
        let token = mail
            .link(&format!("{PUBLIC}/#/reset-password?token="))
            .expect("a link")
            .rsplit('=')
            .next()
            .expect("a token")
            .to_owned();
        let r = app
            .post(
                "/api/v1/auth/password-reset/confirm",
                None,
                &json!({"token": token, "password": "a brand new one"}),
            )
            .await;
        if r.status == 204 {
            worked.push(token);
        } else {
            r.problem(422, "invalid_mail_token");
        }
    }
    assert_eq!(worked.len(), 1);
    // Single use.
    app.post(
        "/api/v1/auth/password-reset/confirm",
        None,
        &json!({"token": worked[0], "password": "yet another one"}),
    )
    .await
    .problem(422, "invalid_mail_token");
    // The old session and the API token are over; the new password works.
    app.get("/api/v1/players/me", Some(&p.token))
        .await
        .problem(401, "invalid_token");
    app.get("/api/v1/players/me", Some(&api_token))
        .await
        .problem(401, "invalid_token");
    app.post(
        "/api/v1/auth/token",
        None,
        &json!({"name": "gina", "password": "a brand new one"}),
    )
    .await
    .expect(200);
}

#[tokio::test]
async fn a_refused_mail_is_tried_again_later_and_sent_once() {
    let (app, clock, sink) = mail_app().await;
    let p = app.player("hana").await;
    sink.refuse_next(1);
    app.send(
        Method::PUT,
        "/api/v1/players/me/email",
        Some(&p.token),
        Some(&json!({"address": "hana@example.org"})),
    )
    .await
    .expect(202);
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    assert!(sink.to("hana@example.org", "Confirm").is_empty());
    // The backoff (1 s, halved at least) passes on the service's clock.
    clock.advance(chrono::Duration::seconds(2));
    sink.wait_for("hana@example.org", "Confirm").await;
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    assert_eq!(sink.to("hana@example.org", "Confirm").len(), 1);
}

#[tokio::test]
async fn mail_is_in_the_readers_language() {
    let (app, _, sink) = mail_app().await;
    let p = app.player("ivan").await;
    app.send(
        Method::PATCH,
        "/api/v1/players/me",
        Some(&p.token),
        Some(&json!({"locale": "cs"})),
    )
    .await
    .expect(200);
    app.send(
        Method::PUT,
        "/api/v1/players/me/email",
        Some(&p.token),
        Some(&json!({"address": "ivan@example.org"})),
    )
    .await
    .expect(202);
    let mail = sink.wait_for("ivan@example.org", "Potvrďte").await;
    assert!(mail.text().contains("Dobrý den, ivan"), "{}", mail.text());
}

#[tokio::test]
async fn two_replicas_send_each_mail_once() {
    let (app, _, sink) = mail_app().await;
    let other = another_replica(&app).await;
    let players = vec![
        app.player("jana").await,
        app.player("karl").await,
        app.player("lena").await,
    ];
    for p in &players {
        confirmed(&app, &sink, p).await;
    }
    for p in &players {
        put_settings(&app, p, json!({"match_started": true, "quiet_minutes": 0})).await;
    }
    // Matches made on both replicas: each replica's worker sees every event.
    let first = timed_match(&app, &players, 3600).await;
    let second = timed_match(&other, &players, 3600).await;
    for p in &players {
        let to = address_of(p);
        for _ in [&first, &second] {
            sink.wait_for(&to, "has started").await;
        }
    }
    sink.wait_for("jana@example.org", "Your move").await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let all = sink.all();
    let mut ids: Vec<String> = all
        .iter()
        .map(|m| m.header("Message-ID").expect("a Message-ID"))
        .collect();
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "a mail was sent twice");
    for p in &players {
        assert_eq!(sink.to(&address_of(p), "has started").len(), 2);
    }
    // Seat 0 of both matches: one turn mail each.
    assert_eq!(sink.to("jana@example.org", "Your move").len(), 2);
}

#[tokio::test]
async fn no_turn_mail_goes_to_a_player_watching_the_match() {
    let (app, _, sink) = mail_app().await;
    let players = vec![
        app.player("mara").await,
        app.player("nils").await,
        app.player("olga").await,
    ];
    for p in &players {
        confirmed(&app, &sink, p).await;
    }
    let id = timed_match(&app, &players, 3600).await;
    sink.wait_for("mara@example.org", "Your move").await;
    // Nils follows the match live while it becomes his turn.
    let stream = app
        .client
        .get(app.url(&format!("/api/v1/matches/{id}/events")))
        .bearer_auth(&players[1].token)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("a stream");
    assert_eq!(stream.status(), 200);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    play_first_legal(&app, &id, &players[0]).await;
    play_first_legal(&app, &id, &players[1]).await;
    // Olga, not watching, is told; Nils never was.
    sink.wait_for("olga@example.org", "Your move").await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(sink.to("nils@example.org", "Your move").is_empty());
    drop(stream);
}

#[tokio::test]
async fn an_invitation_and_the_end_of_a_match_are_mailed_as_the_settings_say() {
    let (app, _, sink) = mail_app().await;
    let players = [app.player("pia").await, app.player("quin").await];
    confirmed(&app, &sink, &players[1]).await;
    let m = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "malacca", "seats": 2, "visibility": "private",
                    "invite": [players[1].name]}),
        )
        .await
        .expect(201);
    let id = m["id"].as_str().expect("id").to_owned();
    let mail = sink
        .wait_for("quin@example.org", "pia invites you to a Malacca match")
        .await;
    assert!(mail.text().contains(&format!("{PUBLIC}/#/match/{id}")));
    assert!(mail.header("List-Unsubscribe").is_some());
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{id}/resign"),
        Some(&players[0].token),
        &json!({}),
    )
    .await
    .expect(200);
    sink.wait_for("quin@example.org", "has ended").await;
    // Starting is off by default: the turn mail says as much.
    assert!(sink.to("quin@example.org", "has started").is_empty());
}
