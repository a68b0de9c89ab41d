//! Event streams (SSE) with resumption, stream tickets, long polls, and streams
//! closing at once when the server stops.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, read_until, spawn_app, spawn_app_with, spawn_app_with_manual_clock,
    spawn_process,
};

/// The events of a stream's text: (id, kind, data).
fn parse(text: &str) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let (mut id, mut kind, mut data) = (None, None, None);
        for line in block.lines() {
            if let Some(v) = line.strip_prefix("id: ") {
                id = Some(v.to_owned());
            } else if let Some(v) = line.strip_prefix("event: ") {
                kind = Some(v.to_owned());
            } else if let Some(v) = line.strip_prefix("data: ") {
                data = serde_json::from_str(v).ok();
            }
        }
        if let (Some(id), Some(kind), Some(data)) = (id, kind, data) {
            out.push((id, kind, data));
        }
    }
    out
}

/// Plays one legal move for every seat the match awaits (one round of moves).
async fn play_some(
    app: &TestApp,
    id: &str,
    players: &[Player],
    rng: &mut sealed_orders::games::rng::GameRng,
) {
    let m = app.match_as(id, None).await;
    for seat in m["prompt"]["awaiting"]
        .as_array()
        .expect("awaiting")
        .clone()
    {
        let p = &players[seat.as_u64().expect("seat") as usize];
        let mine = app.match_as(id, Some(p)).await;
        let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
        let action = sealed_orders::games::legal::sample(&legal, rng).expect("a move");
        app.submit(
            id,
            p,
            mine["prompt"]["step"].as_i64().expect("step"),
            action,
        )
        .await
        .expect(200);
    }
}

/// Every event of a match's log the viewer may see, page after page.
async fn all_event_ids(app: &TestApp, url: &str, token: Option<&str>) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let page_url = match &cursor {
            Some(c) => format!("{url}?limit=200&cursor={c}"),
            None => format!("{url}?limit=200"),
        };
        let page = app.get(&page_url, token).await.expect(200);
        ids.extend(event_ids(&page));
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => return ids,
        }
    }
}

fn event_ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|e| e["id"].to_string())
        .collect()
}

#[tokio::test]
async fn a_match_stream_resumed_after_a_dropped_connection_loses_no_event() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let mut rng = sealed_orders::games::rng::GameRng::from_key([2; 32]);
    let url = format!("/api/v1/matches/{id}/events");
    let token = Some(players[1].token.as_str());

    // From the start: every event so far, then the connection drops.
    let (status, text) = app
        .stream(&url, token, None, Duration::from_millis(1000), |_| false)
        .await;
    assert_eq!(status.as_u16(), 200);
    assert!(
        text.starts_with("retry: "),
        "a reconnect hint first: {text}"
    );
    let first = parse(&text);
    assert!(first.iter().any(|(_, k, _)| k == "match_started"));
    let last = first.last().expect("events").0.clone();

    // Moves happen while nobody listens.
    play_some(&app, &id, &players, &mut rng).await;
    play_some(&app, &id, &players, &mut rng).await;

    // Resuming from the last id gives exactly what was missed, in order.
    let (_, text) = app
        .stream(&url, token, Some(&last), Duration::from_millis(300), |_| {
            false
        })
        .await;
    let resumed = parse(&text);
    assert!(!resumed.is_empty());
    let page = app
        .get(&format!("{url}?limit=200"), token)
        .await
        .expect(200);
    let all = event_ids(&page);
    let seen: Vec<String> = first
        .iter()
        .chain(&resumed)
        .map(|(id, _, _)| id.clone())
        .collect();
    assert_eq!(
        seen, all,
        "the two connections together saw every event once"
    );
    for (_, kind, data) in &resumed {
        assert_eq!(data["kind"], *kind);
    }
    // A private event reaches only its seat: what seat 1 saw is what its page shows.
    assert!(resumed.iter().any(|(_, k, _)| k == "seat_submitted"));
}

#[tokio::test]
async fn a_live_match_stream_receives_each_event_as_it_happens() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let url = format!("/api/v1/matches/{id}/events");
    let page = app.get(&url, None).await.expect(200);
    let last = event_ids(&page).last().expect("events").clone();
    let reader = {
        let app_url = app.url(&url);
        let client = app.client.clone();
        let last = last.clone();
        tokio::spawn(async move {
            let mut resp = client
                .get(app_url)
                .header("accept", "text/event-stream")
                .header("last-event-id", last)
                .send()
                .await
                .expect("stream");
            let mut text = String::new();
            while !text.contains("event: step_resolved") {
                match tokio::time::timeout(Duration::from_secs(20), resp.chunk()).await {
                    Ok(Ok(Some(b))) => text.push_str(&String::from_utf8_lossy(&b)),
                    _ => break,
                }
            }
            text
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut rng = sealed_orders::games::rng::GameRng::from_key([3; 32]);
    play_some(&app, &id, &players, &mut rng).await;
    let text = reader.await.expect("reader");
    let kinds: Vec<String> = parse(&text).into_iter().map(|(_, k, _)| k).collect();
    assert!(kinds.contains(&"seat_submitted".to_owned()), "{text}");
    assert!(kinds.contains(&"step_resolved".to_owned()), "{text}");
}

/// Live match streams, fed by the process's one read of the log, carry what a
/// read of the database carries: for each seat, a signed-in spectator and an
/// anonymous one, the events each may see in their order, the chat between
/// them where it was written, and the stream ends with the match.
#[tokio::test]
async fn live_match_streams_carry_what_each_viewers_page_carries_and_end_with_the_match() {
    use std::sync::Arc;
    let app = Arc::new(spawn_app().await);
    let players = app.players(3).await;
    let watcher = app.player("watcher").await;
    let id = app
        .started_match(&players, "malacca", json!({"stakes": "sealed"}))
        .await;
    let url = format!("/api/v1/matches/{id}/events");
    let viewers: Vec<Option<String>> = players
        .iter()
        .chain(std::iter::once(&watcher))
        .map(|p| Some(p.token.clone()))
        .chain(std::iter::once(None))
        .collect();
    let readers: Vec<_> = viewers
        .iter()
        .map(|token| {
            let (app, url, token) = (app.clone(), url.clone(), token.clone());
            tokio::spawn(async move {
                // From the start; the server ends the stream when the match is over.
                let (_, text) = app
                    .stream(
                        &url,
                        token.as_deref(),
                        None,
                        Duration::from_secs(20),
                        |_| false,
                    )
                    .await;
                text
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut rng = sealed_orders::games::rng::GameRng::from_key([11; 32]);
    // For each line, the last event each viewer could see when it was said:
    // the one its stream is to send the line after.
    let mut said: Vec<Vec<String>> = Vec::new();
    for turn in 0..200 {
        let m = app.match_as(&id, None).await;
        if m["status"] != "active" {
            break;
        }
        if turn % 2 == 0 {
            let p = &players[turn % players.len()];
            app.post(
                &format!("/api/v1/matches/{id}/messages"),
                Some(&p.token),
                &json!({ "text": format!("line {}", said.len()) }),
            )
            .await
            .expect(201);
            let mut before = Vec::new();
            for token in &viewers {
                let ids = all_event_ids(&app, &url, token.as_deref()).await;
                before.push(ids.last().cloned().unwrap_or_default());
            }
            said.push(before);
        }
        play_some(&app, &id, &players, &mut rng).await;
    }
    assert_eq!(app.match_as(&id, None).await["status"], "finished");
    assert!(said.len() > 2, "{}", said.len());
    for (i, (reader, token)) in readers.into_iter().zip(&viewers).enumerate() {
        let text = reader.await.expect("the stream's task");
        let page = all_event_ids(&app, &url, token.as_deref()).await;
        let frames = parse(&text);
        let events: Vec<String> = frames
            .iter()
            .filter(|(id, _, _)| !id.contains('.'))
            .map(|(id, _, _)| id.clone())
            .collect();
        assert_eq!(events, page, "viewer {i}: the stream and the pages");
        assert_eq!(
            frames.last().map(|f| f.1.as_str()),
            Some("match_finished"),
            "viewer {i}: the stream ends with the match"
        );
        // Each line comes right after the last event its viewer could see
        // when it was said, before the next, once and in order.
        let mut last_event = String::new();
        let mut lines = 0;
        for (fid, kind, data) in &frames {
            if fid.contains('.') {
                assert_eq!(kind, "chat_message");
                assert_eq!(data["text"], format!("line {lines}"), "viewer {i}: {fid}");
                assert_eq!(last_event, said[lines][i], "viewer {i}: line {lines}");
                lines += 1;
            } else {
                last_event = fid.clone();
            }
        }
        assert_eq!(lines, said.len(), "viewer {i}: every line");
    }
}

#[tokio::test]
async fn a_player_stream_carries_every_match_of_the_player_and_resumes() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let token = Some(players[0].token.as_str());
    let (_, text) = app
        .stream(
            "/api/v1/players/me/events",
            token,
            None,
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert!(parse(&text).is_empty(), "a new stream starts from now");
    let a = app.started_match(&players, "malacca", json!({})).await;
    let b = app.started_match(&players, "heretics", json!({})).await;
    // Every event of both matches that this player may see, read per match.
    let mut expected = 0;
    for id in [&a, &b] {
        let log = app
            .get(&format!("/api/v1/matches/{id}/events?limit=200"), token)
            .await
            .expect(200);
        expected += event_ids(&log).len();
    }
    // The page from the beginning: on Postgres an event shows once every older
    // transaction of the database has settled, which other tests (in other schemas
    // of the same database) may delay, so wait until all of them are there.
    let mut page = Value::Null;
    for _ in 0..200 {
        page = app
            .get("/api/v1/players/me/events?limit=200", token)
            .await
            .expect(200);
        if event_ids(&page).len() >= expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(event_ids(&page).len(), expected, "the feed holds both logs");
    let items = page["items"].as_array().expect("items");
    let matches: std::collections::BTreeSet<String> = items
        .iter()
        .map(|e| e["match_id"].as_str().expect("id").to_owned())
        .collect();
    assert_eq!(matches, [a.clone(), b.clone()].into_iter().collect());
    // A stream resumed from before the first event carries the same events as the page.
    let first = items[0]["id"].as_i64().expect("id");
    let page_ids: Vec<i64> = items
        .iter()
        .map(|e| e["id"].as_i64().expect("id"))
        .collect();
    let (_, text) = app
        .stream(
            "/api/v1/players/me/events",
            token,
            Some(&format!("-1.{}", first - 1)),
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    let streamed: Vec<i64> = parse(&text)
        .iter()
        .map(|(_, _, d)| d["id"].as_i64().expect("id"))
        .collect();
    assert_eq!(streamed, page_ids, "the stream and the page agree");
    // Resuming from the position of the third event gives the rest.
    let third = &parse(&text)[2].0;
    let (_, rest) = app
        .stream(
            "/api/v1/players/me/events",
            token,
            Some(third),
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    let rest: Vec<i64> = parse(&rest)
        .iter()
        .map(|(_, _, d)| d["id"].as_i64().expect("id"))
        .collect();
    assert_eq!(rest, page_ids[3..].to_vec());
    // Without a token or ticket there is no stream of one's own.
    let (status, _) = app
        .stream(
            "/api/v1/players/me/events",
            None,
            None,
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert_eq!(status.as_u16(), 401);
    // A bad Last-Event-ID is the client's error.
    let (status, _) = app
        .stream(
            "/api/v1/players/me/events",
            token,
            Some("nonsense"),
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert_eq!(status.as_u16(), 400);
}

/// The player streams of a process share one read of the log and filter it
/// themselves: live, each must carry exactly what the player's page (the
/// database's own filter) carries, its seat's secrets and nobody else's, in
/// order, across matches whose seats are taken while the streams are open.
#[tokio::test]
async fn live_player_streams_carry_what_each_players_page_carries() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let app = Arc::new(spawn_app().await);
    let players = app.players(3).await;
    let outsider = app.player("outsider").await;
    // How many events each stream is to end with, once the play is over.
    let wanted: Arc<Vec<AtomicUsize>> =
        Arc::new((0..4).map(|_| AtomicUsize::new(usize::MAX)).collect());
    let readers: Vec<_> = players
        .iter()
        .chain(std::iter::once(&outsider))
        .enumerate()
        .map(|(i, p)| {
            let (app, token, wanted) = (app.clone(), p.token.clone(), wanted.clone());
            tokio::spawn(async move {
                let (_, text) = app
                    .stream(
                        "/api/v1/players/me/events",
                        Some(&token),
                        None,
                        Duration::from_secs(30),
                        |text| parse(text).len() >= wanted[i].load(Ordering::Acquire),
                    )
                    .await;
                text
            })
        })
        .collect();
    // The streams are open (their first frame is written at once).
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut rng = sealed_orders::games::rng::GameRng::from_key([7; 32]);
    let a = app
        .started_match(&players, "malacca", json!({"stakes": "sealed"}))
        .await;
    let b = app
        .started_match(&players[..2], "heretics", json!({}))
        .await;
    for _ in 0..3 {
        play_some(&app, &a, &players, &mut rng).await;
        play_some(&app, &b, &players[..2], &mut rng).await;
    }
    // Each player's page: the same rule, applied by the database, waited for
    // until it holds every event its matches' logs show the player (on
    // Postgres an event shows once older transactions settled).
    let mut pages = Vec::new();
    for (i, p) in players.iter().chain(std::iter::once(&outsider)).enumerate() {
        let mine: &[&String] = match i {
            0 | 1 => &[&a, &b],
            2 => &[&a],
            _ => &[],
        };
        let mut expected = 0;
        for id in mine {
            let log = app
                .get(
                    &format!("/api/v1/matches/{id}/events?limit=200"),
                    Some(&p.token),
                )
                .await
                .expect(200);
            expected += event_ids(&log).len();
        }
        let mut ids = Vec::new();
        for _ in 0..200 {
            let page = app
                .get("/api/v1/players/me/events?limit=200", Some(&p.token))
                .await
                .expect(200);
            ids = page["items"]
                .as_array()
                .expect("items")
                .iter()
                .map(|e| e["id"].as_i64().expect("id"))
                .collect::<Vec<_>>();
            if ids.len() >= expected {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(
            ids.len(),
            expected,
            "player {i}'s page holds its matches' logs"
        );
        wanted[i].store(ids.len(), Ordering::Release);
        pages.push(ids);
    }
    for (i, reader) in readers.into_iter().enumerate() {
        let text = reader.await.expect("the stream's task");
        let streamed: Vec<i64> = parse(&text)
            .iter()
            .map(|(_, _, d)| d["id"].as_i64().expect("id"))
            .collect();
        assert_eq!(streamed, pages[i], "player {i}'s stream and page agree");
    }
    assert!(
        pages[3].is_empty(),
        "a player of neither match hears nothing"
    );
    assert!(
        pages[0].len() > pages[2].len(),
        "the third seat is not in the second match"
    );
    // Seat-addressed events went to their seat alone: the players' sets differ.
    assert_ne!(pages[0], pages[1]);
}

#[tokio::test]
async fn a_stream_ticket_opens_one_stream_once_within_its_minute() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let ticket = app
        .post(
            "/api/v1/stream-tickets",
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(201);
    let t = ticket["ticket"].as_str().expect("ticket").to_owned();
    let url = format!("/api/v1/players/me/events?ticket={t}");
    let (status, _) = app
        .stream(&url, None, None, Duration::from_millis(1000), |_| false)
        .await;
    assert_eq!(status.as_u16(), 200);
    let (status, _) = app
        .stream(&url, None, None, Duration::from_millis(1000), |_| false)
        .await;
    assert_eq!(status.as_u16(), 401, "a ticket works once");
    // A ticket identifies its player on a match stream too (the private view).
    let t2 = app
        .post(
            "/api/v1/stream-tickets",
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(201)["ticket"]
        .as_str()
        .expect("ticket")
        .to_owned();
    let (status, _) = app
        .stream(
            &format!("/api/v1/matches/{id}/events?ticket={t2}"),
            None,
            None,
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert_eq!(status.as_u16(), 200);
    // An expired ticket is refused.
    let t3 = app
        .post(
            "/api/v1/stream-tickets",
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(201)["ticket"]
        .as_str()
        .expect("ticket")
        .to_owned();
    clock.advance(chrono::Duration::seconds(61));
    let (status, _) = app
        .stream(
            &format!("/api/v1/players/me/events?ticket={t3}"),
            None,
            None,
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert_eq!(status.as_u16(), 401);
    app.post("/api/v1/stream-tickets", None, &json!({}))
        .await
        .problem(401, "unauthorized");
}

#[tokio::test]
async fn a_long_poll_answers_when_the_match_changes_or_when_its_wait_ends() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let m = app.match_as(&id, None).await;
    let version = m["version"].as_i64().expect("version");
    // An old version answers at once.
    let now = app
        .get(
            &format!("/api/v1/matches/{id}?after_version={}&wait=30", version - 1),
            None,
        )
        .await
        .expect(200);
    assert_eq!(now["version"], version);
    // Unchanged, it answers when the wait ends, with the same version.
    let same = app
        .get(
            &format!("/api/v1/matches/{id}?after_version={version}&wait=1"),
            None,
        )
        .await
        .expect(200);
    assert_eq!(same["version"], version);
    // A move while it waits answers it with the new version.
    let poll = {
        let url = app.url(&format!(
            "/api/v1/matches/{id}?after_version={version}&wait=30"
        ));
        let client = app.client.clone();
        tokio::spawn(async move {
            client
                .get(url)
                .send()
                .await
                .expect("poll")
                .json::<Value>()
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut rng = sealed_orders::games::rng::GameRng::from_key([5; 32]);
    play_some(&app, &id, &players, &mut rng).await;
    let changed = poll.await.expect("task").expect("json");
    assert!(changed["version"].as_i64().expect("version") > version);
    for bad in [
        "wait=5",
        &format!("after_version={version}&wait=0"),
        &format!("after_version={version}&wait=61"),
    ] {
        app.get(&format!("/api/v1/matches/{id}?{bad}"), None)
            .await
            .problem(400, "invalid_wait");
    }
}

#[tokio::test]
async fn streams_close_at_once_with_a_retry_hint_when_the_server_stops() {
    let (app, process) = spawn_process(&[]).await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let url = app.url(&format!("/api/v1/matches/{id}/events"));
    let mut resp = app
        .client
        .get(url)
        .header("accept", "text/event-stream")
        .send()
        .await
        .expect("stream");
    let mut text = String::new();
    while !text.contains("match_started") {
        let chunk = tokio::time::timeout(Duration::from_secs(10), resp.chunk()).await;
        text.push_str(&String::from_utf8_lossy(
            &chunk.expect("in time").expect("chunk").expect("open"),
        ));
    }
    process.terminate();
    let ended = loop {
        match tokio::time::timeout(Duration::from_secs(30), resp.chunk()).await {
            Ok(Ok(Some(b))) => text.push_str(&String::from_utf8_lossy(&b)),
            Ok(Ok(None)) => break true,
            _ => break false,
        }
    };
    assert!(ended, "the server ended the stream");
    // Closed by the server's own shutdown (not cut at the drain timeout): the last
    // thing sent tells the client when to reconnect.
    assert!(
        text.trim_end().ends_with("retry: 1000"),
        "a retry hint last: {text}"
    );
}

/// The `prompt` events of a stream's text, in order (they carry no `id:`).
fn prompts(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter(|b| b.lines().any(|l| l == "event: prompt"))
        .map(|b| {
            assert!(!b.lines().any(|l| l.starts_with("id:")), "{b}");
            let data = b
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .expect("data");
            serde_json::from_str(data).expect("JSON")
        })
        .collect()
}

#[tokio::test]
async fn a_seated_stream_can_carry_the_seats_prompt_after_each_batch_of_events() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let url = format!("/api/v1/matches/{id}/events?prompt=true");
    let played = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let open = |token: Option<String>| {
        let (client, url, played) = (app.client.clone(), app.url(&url), played.clone());
        tokio::spawn(async move {
            let seated = token.is_some();
            let mut req = client.get(url).header("accept", "text/event-stream");
            if let Some(t) = token {
                req = req.bearer_auth(t);
            }
            let mut resp = req.send().await.expect("stream");
            // Until the moves are played and then: for the seat, its prompt
            // after the last step's events; for the spectator, those events
            // and a second without frames (a prompt would follow them at once).
            read_until(&mut resp, |text, quiet| {
                played.load(std::sync::atomic::Ordering::Acquire)
                    && text.contains("event: step_resolved")
                    && if seated {
                        text.rsplit("event: step_resolved")
                            .next()
                            .is_some_and(|t| t.contains("event: prompt"))
                    } else {
                        quiet >= Duration::from_secs(1)
                    }
            })
            .await
        })
    };
    let seat0 = open(Some(players[0].token.clone()));
    let spectator = open(None);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut rng = sealed_orders::games::rng::GameRng::from_key([5; 32]);
    play_some(&app, &id, &players, &mut rng).await;
    played.store(true, std::sync::atomic::Ordering::Release);
    let text = seat0.await.expect("reader");
    let seen = prompts(&text);
    assert!(
        seen.len() >= 2,
        "a prompt at the start and after the events: {text}"
    );
    // The last one is what a read gives now.
    let now = app.match_as(&id, Some(&players[0])).await["prompt"].clone();
    assert_eq!(seen.last(), Some(&now), "{text}");
    // A spectator owes nothing and gets no prompts.
    let text = spectator.await.expect("reader");
    assert!(prompts(&text).is_empty(), "{text}");
    assert!(text.contains("event: step_resolved"), "{text}");
}

/// A player's stream with `prompt=true` gives, at the start, the prompt of
/// every match where a move is owed, and after each batch the prompt of every
/// match it touched: a bot in many matches never reads before it moves.
#[tokio::test]
async fn a_players_stream_can_carry_its_prompt_in_each_match_the_events_touch() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    // Kontor opens with a sealed choice of every seat: a move owed at the start.
    let first = app.started_match(&players, "kontor", json!({})).await;
    let second = app.started_match(&players, "malacca", json!({})).await;
    let token = players[0].token.clone();
    let (client, url) = (
        app.client.clone(),
        app.url("/api/v1/players/me/events?prompt=true"),
    );
    let played = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let opened = std::sync::Arc::new(tokio::sync::Notify::new());
    let reader = tokio::spawn({
        let (played, opened) = (played.clone(), opened.clone());
        async move {
            let mut resp = client
                .get(url)
                .header("accept", "text/event-stream")
                .bearer_auth(token)
                .send()
                .await
                .expect("stream");
            // Until the frames go quiet for a second and a half after the
            // moves, however slow the moves were to make; the moves wait
            // for the start's prompts, so they cannot overtake them.
            read_until(&mut resp, |text, quiet| {
                if text.contains("event: prompt") {
                    opened.notify_one();
                }
                played.load(std::sync::atomic::Ordering::Acquire)
                    && quiet >= Duration::from_millis(1500)
            })
            .await
        }
    });
    let owed_at_start: Vec<String> = app
        .get("/api/v1/players/me/turns", Some(&players[0].token))
        .await
        .expect(200)["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|t| t["match_id"].as_str().expect("id").to_owned())
        .collect();
    tokio::time::timeout(Duration::from_secs(60), opened.notified())
        .await
        .expect("the stream's first prompt");
    let mut rng = sealed_orders::games::rng::GameRng::from_key([9; 32]);
    play_some(&app, &second, &players, &mut rng).await;
    played.store(true, std::sync::atomic::Ordering::Release);
    let text = reader.await.expect("reader");
    let seen = prompts(&text);
    let of = |id: &str| -> Vec<Value> {
        seen.iter()
            .filter(|p| p["match_id"] == id)
            .map(|p| p["prompt"].clone())
            .collect()
    };
    // The last prompt of each match the stream named is what a read gives
    // now; the moves touched the second match, so it has one after them.
    for id in [&first, &second] {
        if let Some(last) = of(id).last() {
            let now = app.match_as(id, Some(&players[0])).await["prompt"].clone();
            assert_eq!(last, &now, "{id}: {text}");
        }
    }
    let after_moves = text.rsplit("event: step_resolved").next().unwrap_or("");
    assert!(
        prompts(after_moves)
            .iter()
            .any(|p| p["match_id"] == second.as_str()),
        "a prompt after the moves: {text}"
    );
    // At the start: one for each match where a move was owed then, and for
    // each match of the events that came first (those that settled as the
    // stream opened: "from now" is the position every earlier transaction
    // has settled below), and no other.
    let frames: Vec<&str> = text.split("\n\n").collect();
    let is_prompt = |f: &&str| f.lines().any(|l| l == "event: prompt");
    let is_event = |f: &&str| f.lines().any(|l| l.starts_with("id: "));
    let first_events: Vec<&str> = frames
        .iter()
        .copied()
        .take_while(|f| !is_prompt(f))
        .filter(is_event)
        .collect();
    let start_block = frames
        .iter()
        .copied()
        .skip_while(|f| !is_prompt(f))
        .take_while(is_prompt)
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut at_start: Vec<String> = prompts(&start_block)
        .iter()
        .map(|p| p["match_id"].as_str().expect("id").to_owned())
        .collect();
    let mut expected = owed_at_start.clone();
    assert!(!expected.is_empty());
    for f in first_events {
        let data = f
            .lines()
            .find_map(|l| l.strip_prefix("data: "))
            .expect("data");
        let event: Value = serde_json::from_str(data).expect("JSON");
        expected.push(event["match_id"].as_str().expect("id").to_owned());
    }
    at_start.sort();
    expected.sort();
    expected.dedup();
    assert_eq!(at_start, expected, "{text}");
    // Without the parameter, no prompts.
    let (_, plain) = app
        .stream(
            "/api/v1/players/me/events",
            Some(&players[0].token),
            None,
            Duration::from_millis(1000),
            |_| false,
        )
        .await;
    assert!(!plain.contains("event: prompt"), "{plain}");
}

#[tokio::test]
async fn with_event_names_message_every_frame_of_a_stream_has_the_one_name_and_its_kind_inside() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let token = Some(players[0].token.as_str());
    let by_kind = format!("/api/v1/matches/{id}/events?prompt=true");
    // The seat's prompt follows the events read at the start: each stream is
    // read until it, however slow the start.
    let (_, named) = app
        .stream(&by_kind, token, None, Duration::from_secs(30), |t| {
            t.contains("event: prompt")
        })
        .await;
    let (status, text) = app
        .stream(
            &format!("{by_kind}&event_names=message"),
            token,
            None,
            Duration::from_secs(30),
            |t| t.contains("\"event\":\"prompt\""),
        )
        .await;
    assert_eq!(status.as_u16(), 200);
    let one_name = parse(&text);
    assert!(!one_name.is_empty(), "{text}");
    assert!(one_name.iter().all(|(_, k, _)| k == "message"), "{text}");
    // The same events in the same order, each with its kind and data inside.
    let named = parse(&named);
    assert_eq!(named.len(), one_name.len());
    for ((id_a, kind, data), (id_b, _, envelope)) in named.iter().zip(&one_name) {
        assert_eq!(id_a, id_b);
        assert_eq!(envelope["event"], *kind);
        assert_eq!(envelope["data"], *data);
    }
    // Frames without a position (the prompt) are renamed as well.
    assert!(!text.contains("event: prompt"), "{text}");
    let prompt = text
        .split("\n\n")
        .find(|b| !b.contains("id: ") && b.contains("\"event\":\"prompt\""))
        .expect("the prompt, under the one name");
    assert!(prompt.contains("event: message"), "{prompt}");

    // A player's stream takes it too; an unknown naming is a 400.
    let (_, mine) = app
        .stream(
            "/api/v1/players/me/events?event_names=message",
            token,
            Some("0.0"),
            Duration::from_secs(30),
            |t| t.contains("\"event\":\"match_started\""),
        )
        .await;
    let mine = parse(&mine);
    assert!(mine.iter().any(|(_, _, d)| d["event"] == "match_started"));
    assert!(
        mine.iter()
            .all(|(_, k, d)| k == "message" && d["data"]["kind"] == d["event"])
    );
    app.get(
        &format!("/api/v1/matches/{id}/events?event_names=everything"),
        None,
    )
    .await
    .expect(400);
}

/// A stream's answer is given a header map made for the headers it ends
/// with, since the map is held as long as the stream is open: the answer, the
/// middleware's request id, `Vary` and CORS's headers included, must fit it,
/// or the map grows to twice the room on the first header too many.
#[tokio::test]
async fn a_streams_answer_ends_with_no_more_headers_than_its_map_was_made_for() {
    let origin = "https://client.example";
    let (app, _clock) = spawn_app_with(|s| s.cors_origins = vec![origin.to_owned()]).await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    for (path, token) in [
        (format!("/api/v1/matches/{id}/events"), None),
        (
            format!("/api/v1/matches/{id}/events"),
            Some(players[0].token.as_str()),
        ),
        (
            "/api/v1/players/me/events".to_owned(),
            Some(players[1].token.as_str()),
        ),
    ] {
        let mut req = app
            .client
            .get(app.url(&path))
            .header("accept", "text/event-stream")
            .header("origin", origin);
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        let resp = req.send().await.expect("stream");
        assert_eq!(resp.status(), 200, "{path}");
        let headers = resp.headers();
        assert!(
            headers.contains_key("access-control-allow-origin"),
            "{path}: CORS answered: {headers:?}"
        );
        // reqwest adds none of its own; the transport's (`date`,
        // `transfer-encoding`) are written by actix-http, not kept in the map.
        let kept = headers
            .keys()
            .filter(|k| !matches!(k.as_str(), "date" | "transfer-encoding"))
            .count();
        assert!(
            kept <= sealed_orders::api::streams::STREAM_HEADERS,
            "{path}: {kept} headers: {headers:?}"
        );
    }
}

/// The shared feed's read of the log (`store::streams::log_page`) holds back
/// the events of a transaction that an older one, still open, may yet precede,
/// says that something is pending, and gives them, in order and a page at a
/// time, once the older one ended.
#[tokio::test]
async fn the_feeds_read_holds_back_what_an_older_open_transaction_may_precede() {
    use sea_orm::{ConnectionTrait, TransactionTrait};
    use sealed_orders::store::streams::{StreamPosition, log_page, settled_tx};
    let app = spawn_app().await;
    if app.settings.database_schema.is_none() {
        eprintln!("skipped: on SQLite whatever committed is settled (TEST_DATABASE_URL)");
        return;
    }
    let db = sealed_orders::store::connect(&app.settings)
        .await
        .expect("connect");
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    // Where the log stands once what is written so far settled (other tests'
    // transactions, in other schemas of the database, may hold it a while).
    let mut at = StreamPosition { tx: 0, id: 0 };
    for _ in 0..400 {
        let (page, pending) = log_page(&db, at, settled_tx(&db).await.expect("xmin"), 200)
            .await
            .expect("read");
        if let Some(last) = page.last() {
            at = StreamPosition {
                tx: last.tx,
                id: last.id,
            };
        } else if !pending {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    // A transaction that took its id before the moves below, and stays open.
    let older = db.begin().await.expect("begin");
    older
        .execute_unprepared("SELECT pg_current_xact_id()")
        .await
        .expect("an id");
    let mut rng = sealed_orders::games::rng::GameRng::from_key([5; 32]);
    play_some(&app, &id, &players, &mut rng).await;
    let (page, pending) = log_page(&db, at, settled_tx(&db).await.expect("xmin"), 200)
        .await
        .expect("read");
    assert!(page.is_empty(), "held back: {} events", page.len());
    assert!(pending, "the moves' events are committed and pending");
    older.rollback().await.expect("rollback");
    // Settled now: read two at a time, they come in the log's order.
    let mut read = Vec::new();
    for _ in 0..400 {
        let (page, pending) = log_page(&db, at, settled_tx(&db).await.expect("xmin"), 2)
            .await
            .expect("read");
        assert!(page.len() <= 2);
        if let Some(last) = page.last() {
            at = StreamPosition {
                tx: last.tx,
                id: last.id,
            };
            read.extend(page.iter().map(|e| (e.tx, e.id, e.match_id)));
        } else if !pending {
            break;
        } else {
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
    assert!(read.len() >= 2, "the moves wrote events: {read:?}");
    assert!(read.windows(2).all(|w| (w[0].0, w[0].1) < (w[1].0, w[1].1)));
    assert!(read.iter().all(|e| e.2.to_string() == id));
}
