//! The lobby's changes: a page, and a stream that resumes, fed to every
//! stream from one read.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app};

/// The frames of a stream's text: (id, name, data).
fn frames(text: &str) -> Vec<(String, String, Value)> {
    text.split("\n\n")
        .filter_map(|block| {
            let (mut id, mut name, mut data) = (None, None, None);
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = Some(v.to_owned());
                } else if let Some(v) = line.strip_prefix("event: ") {
                    name = Some(v.to_owned());
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data = serde_json::from_str(v).ok();
                }
            }
            Some((id?, name?, data?))
        })
        .collect()
}

/// A Malacca match of `body`'s seats and visibility.
async fn new_match(app: &TestApp, owner: &Player, mut body: Value) -> String {
    body["game"] = json!("malacca");
    body["options"] = json!({});
    app.create_match(owner, &body).await
}

/// Opens the lobby stream and reads it until `done` holds of its text.
fn open(
    app: &TestApp,
    last_event_id: Option<&str>,
    done: impl Fn(&str) -> bool + Send + 'static,
) -> tokio::task::JoinHandle<String> {
    open_stream(app, "/api/v1/lobby/events", None, last_event_id, done)
}

/// Opens the stream at `path` and reads it until `done` holds of its text (or
/// it is quiet for ten seconds).
fn open_stream(
    app: &TestApp,
    path: &str,
    token: Option<&str>,
    last_event_id: Option<&str>,
    done: impl Fn(&str) -> bool + Send + 'static,
) -> tokio::task::JoinHandle<String> {
    let (client, url) = (app.client.clone(), app.url(path));
    let (last, token) = (last_event_id.map(str::to_owned), token.map(str::to_owned));
    tokio::spawn(async move {
        let mut req = client.get(url).header("accept", "text/event-stream");
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(l) = last {
            req = req.header("last-event-id", l);
        }
        let mut resp = req.send().await.expect("stream");
        assert_eq!(resp.status().as_u16(), 200);
        let mut text = String::new();
        while !done(&text) {
            match tokio::time::timeout(Duration::from_secs(10), resp.chunk()).await {
                Ok(Ok(Some(b))) => text.push_str(&String::from_utf8_lossy(&b)),
                _ => break,
            }
        }
        text
    })
}

#[tokio::test]
async fn the_lobby_stream_tells_every_listener_of_public_matches_opening_filling_and_going() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let ends = |t: &str| t.matches("event: match_aborted").count() >= 1;
    let first = open(&app, None, ends);
    let second = open(&app, None, ends);
    // Both streams are open (and the feed listening) before anything happens.
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Unlisted and private matches are nobody's lobby.
    let unlisted = new_match(
        &app,
        &players[3],
        json!({"seats": 2, "visibility": "unlisted"}),
    )
    .await;
    let private = new_match(
        &app,
        &players[3],
        json!({"seats": 2, "visibility": "private"}),
    )
    .await;
    // A public one fills and starts; another opens, gains and loses a
    // player, and is cancelled.
    let started = new_match(&app, &players[0], json!({"seats": 2})).await;
    app.post(
        &format!("/api/v1/matches/{started}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    let cancelled = new_match(&app, &players[2], json!({"seats": 3})).await;
    app.post(
        &format!("/api/v1/matches/{cancelled}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{cancelled}/leave"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{cancelled}/cancel"),
        Some(&players[2].token),
        &json!({}),
    )
    .await
    .expect(200);

    let text = first.await.expect("reader");
    let seen = frames(&text);
    let told: Vec<(String, String)> = seen
        .iter()
        .map(|(_, kind, d)| {
            assert_eq!(d["kind"], *kind);
            assert_eq!(d["match"]["id"], d["match_id"]);
            (d["match_id"].as_str().expect("id").to_owned(), kind.clone())
        })
        .collect();
    let of = |id: &str| -> Vec<&str> {
        told.iter()
            .filter(|(m, _)| m == id)
            .map(|(_, k)| k.as_str())
            .collect()
    };
    assert_eq!(
        of(&started),
        ["player_joined", "player_joined", "match_started"],
        "{text}"
    );
    assert_eq!(
        of(&cancelled),
        [
            "player_joined",
            "player_joined",
            "player_left",
            "match_aborted"
        ],
        "{text}"
    );
    assert!(
        of(&unlisted).is_empty() && of(&private).is_empty(),
        "{text}"
    );
    assert!(!text.contains(&unlisted) && !text.contains(&private));
    // Each frame carries the match as it is now: a client keeps the waiting ones.
    let last_of = |id: &str| {
        seen.iter()
            .rev()
            .find(|(_, _, d)| d["match_id"] == id)
            .map(|(_, _, d)| d["match"]["status"].clone())
    };
    assert_eq!(last_of(&started), Some(json!("active")));
    assert_eq!(last_of(&cancelled), Some(json!("aborted")));

    // Every listener was told the same, frame for frame.
    let other = frames(&second.await.expect("reader"));
    let ids = |f: &[(String, String, Value)]| {
        f.iter()
            .map(|(i, k, _)| (i.clone(), k.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&other), ids(&seen));

    // Resumed after its first frame, a stream tells exactly what came after.
    let (first_id, _, _) = seen.first().expect("frames").clone();
    let resumed = frames(&open(&app, Some(&first_id), ends).await.expect("reader"));
    assert_eq!(ids(&resumed), ids(&seen[1..]));

    // The JSON page tells the same, oldest first, a page at a time.
    let mut page = app
        .get("/api/v1/lobby/events?limit=2", None)
        .await
        .expect(200);
    let mut kinds = Vec::new();
    loop {
        for e in page["items"].as_array().expect("items") {
            kinds.push((
                e["match_id"].as_str().expect("id").to_owned(),
                e["kind"].as_str().expect("kind").to_owned(),
            ));
        }
        let Some(cursor) = page["next_cursor"].as_str() else {
            break;
        };
        page = app
            .get(
                &format!("/api/v1/lobby/events?limit=2&cursor={cursor}"),
                None,
            )
            .await
            .expect(200);
    }
    assert_eq!(kinds, told);
}

#[tokio::test]
async fn a_lobby_stream_refuses_a_position_it_never_gave() {
    let app = spawn_app().await;
    let (status, text) = app
        .stream(
            "/api/v1/lobby/events",
            None,
            Some("yesterday"),
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert_eq!(status.as_u16(), 400, "{text}");
    assert!(text.contains("invalid_last_event_id"), "{text}");
    app.get("/api/v1/lobby/events?cursor=nonsense", None)
        .await
        .problem(400, "invalid_cursor");
}

#[tokio::test]
async fn the_lobby_shares_the_logs_feed_with_player_streams_and_comes_back_after_its_listeners_left()
 {
    let app = spawn_app().await;
    let players = app.players(3).await;
    // A player stream keeps the log's feed reading throughout.
    let player_stream = open_stream(
        &app,
        "/api/v1/players/me/events",
        Some(&players[0].token),
        None,
        |t| t.matches("event: player_joined").count() >= 3,
    );
    let first = open(&app, None, |t| t.contains("event: player_joined"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let one = new_match(&app, &players[0], json!({"seats": 3})).await;
    let text = first.await.expect("reader");
    assert!(text.contains(&one), "{text}");

    // Its only listener gone, the lobby's relay stops at the next batch; a
    // match then joined is no frame for anybody.
    app.post(
        &format!("/api/v1/matches/{one}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    tokio::time::sleep(Duration::from_millis(300)).await;

    // A new stream from now hears what comes next. (On Postgres "now" is the
    // settle watermark, so the join just before may come too: a stream that
    // starts never loses an event, and may carry one committed just before.)
    let second = open(&app, None, |t| t.contains("event: match_started"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    app.post(
        &format!("/api/v1/matches/{one}/join"),
        Some(&players[2].token),
        &json!({}),
    )
    .await
    .expect(200);
    let seen = frames(&second.await.expect("reader"));
    let kinds: Vec<&str> = seen.iter().map(|(_, k, _)| k.as_str()).collect();
    assert!(
        kinds.ends_with(&["player_joined", "match_started"]) && kinds.len() <= 3,
        "{seen:?}"
    );
    assert!(seen.iter().all(|(_, _, d)| d["match_id"] == one.as_str()));

    // The player stream heard all three joins meanwhile.
    let text = player_stream.await.expect("player stream");
    assert_eq!(text.matches("event: player_joined").count(), 3, "{text}");
}
