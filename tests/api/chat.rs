//! Match chat: who writes and who reads, limits, mutes, deleting, the stream
//! and the export.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app, spawn_app_with};

async fn create(app: &TestApp, owner: &Player, body: Value) -> String {
    app.create_match(owner, &body).await
}

async fn say(app: &TestApp, id: &str, p: &Player, text: &str) -> crate::helpers::Reply {
    app.post(
        &format!("/api/v1/matches/{id}/messages"),
        Some(&p.token),
        &json!({ "text": text }),
    )
    .await
}

async fn texts(app: &TestApp, id: &str, reader: Option<&str>) -> Vec<Value> {
    let page = app
        .get(&format!("/api/v1/matches/{id}/messages"), reader)
        .await
        .expect(200);
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| m["text"].clone())
        .collect()
}

#[tokio::test]
async fn seated_players_write_and_whoever_may_read_the_match_reads_without_moving_its_version() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let id = app.started_match(&players[..3], "malacca", json!({})).await;
    let before = app.match_as(&id, None).await;
    let m = say(&app, &id, &players[1], "  good luck, have fun  ")
        .await
        .expect(201);
    assert_eq!(m["text"], "good luck, have fun");
    assert_eq!(m["author"]["name"], players[1].name);
    assert_eq!(m["match_id"], id.as_str());
    for reader in [
        None,
        Some(players[0].token.as_str()),
        Some(players[3].token.as_str()),
    ] {
        assert_eq!(
            texts(&app, &id, reader).await,
            vec![json!("good luck, have fun")]
        );
    }
    // A spectator does not write by default; nor does anybody anonymous.
    say(&app, &id, &players[3], "hello")
        .await
        .problem(403, "chat_players_only");
    app.post(
        &format!("/api/v1/matches/{id}/messages"),
        None,
        &json!({"text": "hello"}),
    )
    .await
    .problem(401, "unauthorized");
    // The chat takes no event and leaves the match's version alone.
    let after = app.match_as(&id, None).await;
    assert_eq!(after["version"], before["version"]);
    let events = app
        .get(&format!("/api/v1/matches/{id}/events"), None)
        .await
        .expect(200);
    assert!(!events.to_string().contains("good luck"), "{events}");
    // A move still goes through at the version it expects.
    assert_eq!(texts(&app, &id, None).await.len(), 1);
}

#[tokio::test]
async fn everyone_lets_signed_in_spectators_write_and_off_has_no_chat() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let open = create(
        &app,
        &players[0],
        json!({"game": "malacca", "seats": 3, "chat": "everyone"}),
    )
    .await;
    assert_eq!(app.match_as(&open, None).await["chat"], "everyone");
    say(&app, &open, &players[2], "watching").await.expect(201);
    let off = create(
        &app,
        &players[0],
        json!({"game": "malacca", "seats": 3, "chat": "off"}),
    )
    .await;
    say(&app, &off, &players[0], "hi")
        .await
        .problem(403, "chat_off");
    assert!(texts(&app, &off, None).await.is_empty());
    app.post(
        "/api/v1/matches",
        Some(&players[0].token),
        &json!({"game": "malacca", "seats": 3, "chat": "loud"}),
    )
    .await
    .problem(422, "invalid_chat");
    // The owner of a waiting match writes before anybody else sits.
    let plain = create(&app, &players[0], json!({"game": "malacca", "seats": 3})).await;
    assert_eq!(app.match_as(&plain, None).await["chat"], "players");
    say(&app, &plain, &players[0], "anyone?").await.expect(201);
}

#[tokio::test]
async fn a_private_match_chat_does_not_exist_for_outsiders_and_a_closed_one_is_not_watched() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let id = create(
        &app,
        &players[0],
        json!({"game": "malacca", "seats": 3, "visibility": "private"}),
    )
    .await;
    say(&app, &id, &players[0], "secret plans")
        .await
        .expect(201);
    let unknown = app
        .get(
            "/api/v1/matches/00000000-0000-7000-8000-000000000000/messages",
            Some(&players[3].token),
        )
        .await
        .problem(404, "match_not_found");
    for reader in [None, Some(players[3].token.as_str())] {
        let read = app
            .get(&format!("/api/v1/matches/{id}/messages"), reader)
            .await
            .problem(404, "match_not_found");
        assert_eq!(read["detail"], unknown["detail"]);
    }
    say(&app, &id, &players[3], "let me in")
        .await
        .problem(404, "match_not_found");
    app.send(
        Method::DELETE,
        &format!("/api/v1/matches/{id}/messages/1"),
        Some(&players[3].token),
        None,
    )
    .await
    .problem(404, "match_not_found");
    assert_eq!(
        texts(&app, &id, Some(&players[0].token)).await,
        vec![json!("secret plans")]
    );
    // Played without spectators: outsiders may not read it while it is played.
    let closed = create(
        &app,
        &players[0],
        json!({"game": "malacca", "seats": 3, "spectators": false, "chat": "everyone"}),
    )
    .await;
    for p in &players[1..3] {
        app.post(
            &format!("/api/v1/matches/{closed}/join"),
            Some(&p.token),
            &json!({}),
        )
        .await
        .expect(200);
    }
    for reader in [None, Some(players[3].token.as_str())] {
        app.get(&format!("/api/v1/matches/{closed}/messages"), reader)
            .await
            .problem(403, "spectators_not_allowed");
    }
    say(&app, &closed, &players[3], "hi")
        .await
        .problem(403, "spectators_not_allowed");
    say(&app, &closed, &players[2], "gl").await.expect(201);
}

#[tokio::test]
async fn bad_messages_are_refused_as_problems_and_change_nothing() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let long = "x".repeat(501);
    for text in ["", "   ", long.as_str(), "two\nlines", "a\ttab"] {
        say(&app, &id, &players[0], text)
            .await
            .problem(422, "invalid_chat_message");
    }
    // Other control characters are refused in any request text.
    say(&app, &id, &players[0], "bell\u{7}")
        .await
        .problem(400, "invalid_characters");
    app.post(
        &format!("/api/v1/matches/{id}/messages"),
        Some(&players[0].token),
        &json!({"text": "hi", "colour": "red"}),
    )
    .await
    .problem(422, "invalid_body");
    assert!(texts(&app, &id, None).await.is_empty());
    let most = format!("  {}  ", "é".repeat(500));
    say(&app, &id, &players[0], &most).await.expect(201);
    app.get(&format!("/api/v1/matches/{id}/messages?limit=0"), None)
        .await
        .problem(400, "invalid_limit");
}

#[tokio::test]
async fn messages_are_paged_with_a_cursor() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    for i in 0..5 {
        say(&app, &id, &players[i % 3], &format!("m{i}"))
            .await
            .expect(201);
    }
    let first = app
        .get(&format!("/api/v1/matches/{id}/messages?limit=3"), None)
        .await
        .expect(200);
    assert_eq!(first["items"].as_array().expect("items").len(), 3);
    let cursor = first["next_cursor"].as_str().expect("a cursor");
    let rest = app
        .get(
            &format!("/api/v1/matches/{id}/messages?limit=3&cursor={cursor}"),
            None,
        )
        .await
        .expect(200);
    assert_eq!(rest["items"][0]["text"], "m3");
    assert_eq!(rest["items"][1]["text"], "m4");
    assert!(rest["next_cursor"].is_null());
}

#[tokio::test]
async fn chat_is_rate_limited_per_player() {
    let (app, _clock) = spawn_app_with(|s| s.rate_limit_chat_per_min = 3).await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    for i in 0..3 {
        let r = say(&app, &id, &players[0], &format!("spam {i}")).await;
        r.expect(201);
        assert!(
            r.headers.get("ratelimit-policy").is_some(),
            "{:?}",
            r.headers
        );
    }
    let refused = say(&app, &id, &players[0], "spam 3").await;
    refused.problem(429, "rate_limited");
    assert!(refused.headers.get("retry-after").is_some());
    assert_eq!(texts(&app, &id, None).await.len(), 3);
    // Another player, and the same player's moves, count apart.
    say(&app, &id, &players[1], "calm down").await.expect(201);
}

#[tokio::test]
async fn a_muted_player_is_left_out_for_the_muter_alone_in_every_match() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    say(&app, &id, &players[1], "noise").await.expect(201);
    say(&app, &id, &players[2], "signal").await.expect(201);
    let mute = format!(
        "/api/v1/players/me/mutes/{}",
        players[1].name.to_uppercase()
    );
    let list = app
        .send(Method::PUT, &mute, Some(&players[0].token), None)
        .await
        .expect(200);
    assert_eq!(list["items"][0]["player"]["name"], players[1].name);
    // Again: no change.
    app.send(Method::PUT, &mute, Some(&players[0].token), None)
        .await
        .expect(200);
    let mine = app
        .get("/api/v1/players/me/mutes", Some(&players[0].token))
        .await
        .expect(200);
    assert_eq!(mine["items"].as_array().expect("items").len(), 1);
    assert_eq!(
        texts(&app, &id, Some(&players[0].token)).await,
        vec![json!("signal")]
    );
    assert_eq!(texts(&app, &id, Some(&players[2].token)).await.len(), 2);
    assert_eq!(texts(&app, &id, None).await.len(), 2);
    // The muter's stream leaves it out too.
    say(&app, &id, &players[1], "more noise").await.expect(201);
    let url = format!("/api/v1/matches/{id}/events");
    let (_, text) = app
        .stream(
            &url,
            Some(&players[0].token),
            None,
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert!(text.contains("signal") && !text.contains("noise"), "{text}");
    // In another match as well.
    let other = app.started_match(&players, "malacca", json!({})).await;
    say(&app, &other, &players[1], "noise elsewhere")
        .await
        .expect(201);
    assert!(
        texts(&app, &other, Some(&players[0].token))
            .await
            .is_empty()
    );
    app.send(
        Method::PUT,
        &format!("/api/v1/players/me/mutes/{}", players[0].name),
        Some(&players[0].token),
        None,
    )
    .await
    .problem(422, "cannot_mute_yourself");
    app.send(
        Method::PUT,
        "/api/v1/players/me/mutes/nobody-at-all",
        Some(&players[0].token),
        None,
    )
    .await
    .problem(404, "player_not_found");
    app.send(Method::DELETE, &mute, Some(&players[0].token), None)
        .await
        .expect(200);
    assert_eq!(texts(&app, &id, Some(&players[0].token)).await.len(), 3);
}

#[tokio::test]
async fn the_author_and_the_owner_delete_a_message_and_nobody_else() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let id = app.started_match(&players[..3], "malacca", json!({})).await;
    let a = say(&app, &id, &players[1], "oops").await.expect(201)["id"].clone();
    let b = say(&app, &id, &players[2], "rude").await.expect(201)["id"].clone();
    let path = |m: &Value| format!("/api/v1/matches/{id}/messages/{m}");
    for p in [&players[2], &players[3]] {
        app.send(Method::DELETE, &path(&a), Some(&p.token), None)
            .await
            .problem(403, "not_chat_moderator");
    }
    assert_eq!(
        texts(&app, &id, None).await,
        vec![json!("oops"), json!("rude")]
    );
    let deleted = app
        .send(Method::DELETE, &path(&a), Some(&players[1].token), None)
        .await;
    assert_eq!(deleted.status.as_u16(), 204, "{}", deleted.text);
    let by_owner = app
        .send(Method::DELETE, &path(&b), Some(&players[0].token), None)
        .await;
    assert_eq!(by_owner.status.as_u16(), 204, "{}", by_owner.text);
    let page = app
        .get(&format!("/api/v1/matches/{id}/messages"), None)
        .await
        .expect(200);
    assert!(!page.to_string().contains("oops") && !page.to_string().contains("rude"));
    assert!(page["items"][0]["text"].is_null());
    assert_eq!(page["items"][0]["deleted_by"]["name"], players[1].name);
    assert_eq!(page["items"][1]["deleted_by"]["name"], players[0].name);
    assert!(page["items"][1]["deleted_at"].is_string());
    app.send(
        Method::DELETE,
        &path(&json!(99)),
        Some(&players[0].token),
        None,
    )
    .await
    .problem(404, "chat_message_not_found");
}

fn frames(text: &str) -> Vec<(String, String, String)> {
    text.split("\n\n")
        .filter_map(|f| {
            let mut id = String::new();
            let mut kind = String::new();
            let mut data = String::new();
            for line in f.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = v.to_owned();
                } else if let Some(v) = line.strip_prefix("event: ") {
                    kind = v.to_owned();
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = v.to_owned();
                }
            }
            (!kind.is_empty()).then_some((id, kind, data))
        })
        .collect()
}

#[tokio::test]
async fn the_match_stream_carries_the_chat_among_its_events_and_resumes_it() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let owner = create(&app, &players[0], json!({"game": "malacca", "seats": 3})).await;
    let id = owner;
    say(&app, &id, &players[0], "first").await.expect(201);
    for p in &players[1..] {
        app.post(
            &format!("/api/v1/matches/{id}/join"),
            Some(&p.token),
            &json!({}),
        )
        .await
        .expect(200);
    }
    say(&app, &id, &players[1], "second").await.expect(201);
    let url = format!("/api/v1/matches/{id}/events");
    let (_, text) = app
        .stream(&url, None, None, Duration::from_millis(1000), |_| false)
        .await;
    let all = frames(&text);
    let kinds: Vec<&str> = all.iter().map(|f| f.1.as_str()).collect();
    let first = kinds
        .iter()
        .position(|k| *k == "chat_message")
        .expect("chat");
    // The owner's seat came before the message, the others' after it.
    let joined = kinds
        .iter()
        .rposition(|k| *k == "player_joined")
        .expect("joins");
    assert_eq!(kinds[..first], ["player_joined"], "{kinds:?}");
    assert!(first < joined, "{kinds:?}");
    assert!(all[first].2.contains("\"first\""));
    let second = kinds
        .iter()
        .rposition(|k| *k == "chat_message")
        .expect("chat");
    let started = kinds
        .iter()
        .position(|k| *k == "match_started")
        .expect("start");
    assert!(second > started, "{kinds:?}");
    assert!(all[second].2.contains("\"second\""));
    // A chat frame's id is "<event>.<message>"; resuming from it repeats nothing.
    let (event, seq) = all[second].0.split_once('.').expect("a chat position");
    assert!(event.parse::<i64>().is_ok() && seq.parse::<i64>().is_ok());
    let (_, resumed) = app
        .stream(
            &url,
            None,
            Some(&all[second].0),
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert!(!resumed.contains("chat_message"), "{resumed}");
    // Resuming from an event frame gives the chat written after it.
    let (_, from_start) = app
        .stream(
            &url,
            None,
            Some(&all[joined].0),
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert!(from_start.contains("\"second\"") && !from_start.contains("\"first\""));
    // Live: a message and its deletion.
    let live = {
        let app = &app;
        let url = url.clone();
        let last = all.last().expect("frames").0.clone();
        async move {
            app.stream(&url, None, Some(&last), Duration::from_secs(3), |t| {
                t.contains("chat_message_deleted")
            })
            .await
        }
    };
    let writer = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let m = say(&app, &id, &players[2], "live one").await.expect(201);
        tokio::time::sleep(Duration::from_millis(500)).await;
        app.send(
            Method::DELETE,
            &format!("/api/v1/matches/{id}/messages/{}", m["id"]),
            Some(&players[2].token),
            None,
        )
        .await;
    };
    let ((_, text), ()) = tokio::join!(live, writer);
    // The message came live (on a slow database it may be read only once it
    // was deleted: then without its text), then the notice.
    let live = frames(&text);
    let message = live
        .iter()
        .position(|f| f.1 == "chat_message")
        .expect("the message");
    assert!(
        live[message].2.contains("live one") || live[message].2.contains("\"text\":null"),
        "{text}"
    );
    let notice = live
        .iter()
        .position(|f| f.1 == "chat_message_deleted")
        .expect("the notice");
    assert!(message < notice, "{text}");
}

#[tokio::test]
async fn the_export_keeps_the_chat_without_deleted_texts_and_still_verifies() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    say(&app, &id, &players[0], "gl hf").await.expect(201);
    let gone = say(&app, &id, &players[1], "regret").await.expect(201);
    app.send(
        Method::DELETE,
        &format!("/api/v1/matches/{id}/messages/{}", gone["id"]),
        Some(&players[1].token),
        None,
    )
    .await;
    app.play_to_end(&id, &players, 3).await;
    say(&app, &id, &players[2], "gg").await.expect(201);
    let bundle = app
        .get(&format!("/api/v1/matches/{id}/export"), None)
        .await
        .expect(200);
    let chat = bundle["chat"].as_array().expect("chat");
    assert_eq!(chat.len(), 3, "{bundle}");
    assert_eq!(chat[0]["text"], "gl hf");
    assert_eq!(chat[0]["author"], players[0].name);
    assert!(chat[1]["text"].is_null());
    assert_eq!(chat[1]["deleted_by"], players[1].id.as_str());
    assert!(!bundle.to_string().contains("regret"));
    assert_eq!(chat[2]["text"], "gg");
    let report = app
        .post("/api/v1/replays/verify", None, &bundle)
        .await
        .expect(200);
    assert_eq!(report["valid"], true, "{report}");
    // A bundle from before chat (no `chat` field) still verifies.
    let mut old = bundle.clone();
    old.as_object_mut().expect("object").remove("chat");
    let report = app
        .post("/api/v1/replays/verify", None, &old)
        .await
        .expect(200);
    assert_eq!(report["valid"], true, "{report}");
}
