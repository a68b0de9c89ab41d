//! Several server processes on one fresh database: startup is replica-safe.

use std::time::{Duration, Instant};

use crate::helpers::{on_citus, start_process, test_settings};

pub(crate) use crate::helpers::Process as Server;

#[tokio::test]
async fn two_replicas_started_at_once_on_a_fresh_database_both_come_up_healthy() {
    let (settings, _guard) = test_settings().await;
    let (servers, apis) = replicas(&settings, 2, &[]).await;
    let client = reqwest::Client::new();
    // Both serve the same data: a player made on one logs in on the other.
    let body = serde_json::json!({"name": "replicated", "password": "password1"});
    let r = client
        .post(format!("{}/players", apis[0]))
        .json(&body)
        .send()
        .await
        .expect("register");
    assert_eq!(r.status().as_u16(), 201);
    let r = client
        .post(format!("{}/auth/token", apis[1]))
        .json(&body)
        .send()
        .await
        .expect("login");
    assert_eq!(r.status().as_u16(), 200);
    drop(servers);
}

/// Starts `n` replicas at the same instant on one fresh database; answers them
/// once every one is ready.
///
/// Each binds a port of its own choosing (`PORT=0`) and the test reads it from
/// the log: a port picked here and released would stay free only until the
/// replica binds it, after its migrations, while the tests beside this one keep
/// binding ports of their own (a webhook receiver answering 500 on it would
/// look like a replica that never gets ready).
pub(crate) async fn replicas(
    settings: &sealed_orders::config::Settings,
    n: usize,
    env: &[(&str, &str)],
) -> (Vec<Server>, Vec<String>) {
    let mut servers: Vec<Server> = (0..n).map(|_| start_process(settings, "0", env)).collect();
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut apis = Vec::new();
    for server in &mut servers {
        loop {
            let ready = match server.logged_port() {
                Some(port) => client
                    .get(format!("http://127.0.0.1:{port}/readyz"))
                    .send()
                    .await
                    .is_ok_and(|r| r.status().is_success())
                    .then_some(port),
                None => None,
            };
            if let Some(port) = ready {
                apis.push(format!("http://127.0.0.1:{port}/api/v1"));
                break;
            }
            if Instant::now() >= deadline {
                panic!("a replica never became ready: {}", server.post_mortem());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    (servers, apis)
}

pub(crate) async fn call(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: String,
    token: Option<&str>,
    body: serde_json::Value,
) -> serde_json::Value {
    let mut req = client.request(method.clone(), &url).json(&body);
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let r = req.send().await.expect("request");
    let status = r.status();
    let text = r.text().await.expect("body");
    assert!(status.is_success(), "{method} {url}: {status} {text}");
    serde_json::from_str(&text).expect("JSON")
}

/// Two replicas on a fresh Postgres database, with `env`; `None` on SQLite,
/// which is one process's database (the test is then skipped). The guard
/// keeps the database until the test ends.
async fn two_replicas(
    env: &[(&str, &str)],
) -> Option<(crate::helpers::DbGuardHandle, Vec<Server>, Vec<String>)> {
    let (settings, guard) = test_settings().await;
    if settings.database_schema.is_none() {
        eprintln!("skipped: two replicas need Postgres (TEST_DATABASE_URL)");
        return None;
    }
    let (servers, apis) = replicas(&settings, 2, env).await;
    Some((guard, servers, apis))
}

/// Accounts made on one replica, each logged in on the other: their tokens.
async fn accounts_across(client: &reqwest::Client, apis: &[String], names: &[&str]) -> Vec<String> {
    let mut tokens = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let body = serde_json::json!({"name": name, "password": "password1"});
        let (made, used) = (&apis[i % apis.len()], &apis[(i + 1) % apis.len()]);
        let post = reqwest::Method::POST;
        call(
            client,
            post.clone(),
            format!("{made}/players"),
            None,
            body.clone(),
        )
        .await;
        let t = call(client, post, format!("{used}/auth/token"), None, body).await;
        tokens.push(t["access_token"].as_str().expect("token").to_owned());
    }
    tokens
}

/// `n` two-seat Malacca matches with `options`, each made by the first token's
/// player on replica 0 and joined by the second's on replica 1: their ids.
async fn matches_across(
    client: &reqwest::Client,
    apis: &[String],
    tokens: &[String],
    n: usize,
    options: serde_json::Value,
) -> Vec<String> {
    let post = reqwest::Method::POST;
    let mut ids = Vec::new();
    for _ in 0..n {
        let body = serde_json::json!({"game": "malacca", "seats": 2, "options": options});
        let m = call(
            client,
            post.clone(),
            format!("{}/matches", apis[0]),
            Some(&tokens[0]),
            body,
        )
        .await;
        let id = m["id"].as_str().expect("id").to_owned();
        let join = format!("{}/matches/{id}/join", apis[1]);
        call(
            client,
            post.clone(),
            join,
            Some(&tokens[1]),
            serde_json::json!({}),
        )
        .await;
        ids.push(id);
    }
    ids
}

#[tokio::test]
async fn two_replicas_share_a_match_its_events_and_its_deadlines() {
    use serde_json::{Value, json};
    let Some((_guard, servers, apis)) = two_replicas(&[("DEADLINE_POLL_MS", "50")]).await else {
        return;
    };
    let client = reqwest::Client::new();
    let get = reqwest::Method::GET;
    let post = reqwest::Method::POST;
    // Accounts made on one replica log in on the other.
    let tokens = accounts_across(&client, &apis, &["ann", "ben"]).await;
    let m = call(
        &client,
        post.clone(),
        format!("{}/matches", apis[0]),
        Some(&tokens[0]),
        json!({"game": "malacca", "seats": 2}),
    )
    .await;
    let id = m["id"].as_str().expect("id").to_owned();
    // A subscriber on replica 1 from before the start.
    let stream = {
        let url = format!("{}/matches/{id}/events", apis[1]);
        let (client, token) = (client.clone(), tokens[1].clone());
        tokio::spawn(async move {
            let mut resp = client
                .get(url)
                .bearer_auth(token)
                .header("accept", "text/event-stream")
                .send()
                .await
                .expect("stream");
            let mut text = String::new();
            // The stream ends by itself once the match is over.
            while let Ok(Ok(Some(b))) =
                tokio::time::timeout(Duration::from_secs(30), resp.chunk()).await
            {
                text.push_str(&String::from_utf8_lossy(&b));
            }
            text
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    call(
        &client,
        post.clone(),
        format!("{}/matches/{id}/join", apis[0]),
        Some(&tokens[1]),
        json!({}),
    )
    .await;
    // Play to the end, every request to the other replica than the last.
    let mut rng = sealed_orders::games::rng::GameRng::from_key([8; 32]);
    let mut turn = 0usize;
    let mut said = 0;
    for i in 0..500 {
        let api = &apis[turn % 2];
        turn += 1;
        let view = call(
            &client,
            get.clone(),
            format!("{api}/matches/{id}"),
            None,
            Value::Null,
        )
        .await;
        if view["status"] != "active" {
            break;
        }
        // Now and then a line in the chat, on the replica without the stream.
        if i % 5 == 0 {
            call(
                &client,
                post.clone(),
                format!("{}/matches/{id}/messages", apis[0]),
                Some(&tokens[0]),
                json!({"text": format!("line {said}")}),
            )
            .await;
            said += 1;
        }
        let seat = view["prompt"]["awaiting"][0].as_u64().expect("seat") as usize;
        let api = &apis[turn % 2];
        turn += 1;
        let mine = call(
            &client,
            get.clone(),
            format!("{api}/matches/{id}"),
            Some(&tokens[seat]),
            Value::Null,
        )
        .await;
        let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
        let action = sealed_orders::games::legal::sample(&legal, &mut rng).expect("a move");
        let step = mine["prompt"]["step"].clone();
        let api = &apis[turn % 2];
        turn += 1;
        call(
            &client,
            post.clone(),
            format!("{api}/matches/{id}/moves"),
            Some(&tokens[seat]),
            json!({"step": step, "action": action}),
        )
        .await;
    }
    let text = stream.await.expect("stream task");
    // A chat frame's id is `<event>.<message>`.
    let streamed: Vec<i64> = text
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .filter(|v| !v.contains('.'))
        .map(|v| v.parse().expect("an event id"))
        .collect();
    let lines: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter_map(|d| d["text"].as_str().map(str::to_owned))
        .collect();
    let expected: Vec<String> = (0..said).map(|n| format!("line {n}")).collect();
    assert!(said > 2);
    assert_eq!(
        lines, expected,
        "the chat written on one replica reached the stream on the other"
    );
    // Live, not only in the read that ends the stream (the first line may
    // come with the read after the start).
    let (line, finished) = (text.find("\"line 1\""), text.find("event: match_finished"));
    assert!(line < finished && line.is_some(), "{text}");
    let page = call(
        &client,
        get.clone(),
        format!("{}/matches/{id}/events?limit=200", apis[0]),
        Some(&tokens[1]),
        Value::Null,
    )
    .await;
    // The page and the stream agree event for event: the public events and
    // seat 1's own, the match over or not (an event's audience never changes).
    let all: Vec<i64> = page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|e| {
            assert!(
                e["audience_seat"].is_null() || e["audience_seat"] == 1,
                "another seat's event in seat 1's page: {e}"
            );
            e["id"].as_i64().expect("id")
        })
        .collect();
    assert!(all.len() > 10, "a whole match of events");
    assert_eq!(
        streamed, all,
        "the subscriber on one replica saw every event caused on both, and only those"
    );

    // A deadline both replicas poll for is handled once.
    let m = call(
        &client,
        post.clone(),
        format!("{}/matches", apis[1]),
        Some(&tokens[0]),
        json!({"game": "malacca", "seats": 2, "options": {"move_time_limit": 1, "stakes": "sealed"}}),
    )
    .await;
    let id = m["id"].as_str().expect("id").to_owned();
    call(
        &client,
        post.clone(),
        format!("{}/matches/{id}/join", apis[0]),
        Some(&tokens[1]),
        json!({}),
    )
    .await;
    // Both seats owe a sealed bet; neither moves. After the second both are
    // absent, and bots keep moving for them, on whichever replica claims them.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let events = call(
        &client,
        get.clone(),
        format!("{}/matches/{id}/events?limit=200", apis[1]),
        None,
        Value::Null,
    )
    .await;
    let timed_out: Vec<u64> = events["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|e| e["kind"] == "seat_timed_out")
        .map(|e| e["data"]["seat"].as_u64().expect("seat"))
        .collect();
    assert_eq!(
        timed_out.len(),
        2,
        "each seat timed out exactly once: {events}"
    );
    assert!(timed_out.contains(&0) && timed_out.contains(&1));
    let moves = call(
        &client,
        get.clone(),
        format!("{}/matches/{id}/moves?limit=200", apis[0]),
        None,
        Value::Null,
    )
    .await;
    let first_step: Vec<&Value> = moves["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|mv| mv["step"] == 0)
        .collect();
    assert_eq!(
        first_step.len(),
        2,
        "one move per seat for the step, never two"
    );
    drop(servers);
}

/// The last two sealed moves of a step sent at the same instant to two replicas,
/// in many matches at once: every step resolves exactly once, whichever replica
/// takes which move, and no move, round or event is doubled.
#[tokio::test]
async fn last_moves_racing_on_two_replicas_resolve_each_step_exactly_once() {
    use serde_json::{Value, json};
    let Some((_guard, servers, apis)) = two_replicas(&[("RATE_LIMIT_MATCHES_PER_MIN", "0")]).await
    else {
        return;
    };
    let client = reqwest::Client::new();
    let get = reqwest::Method::GET;
    let tokens = accounts_across(&client, &apis, &["rae", "sid"]).await;
    let options = json!({"stakes": "sealed", "ships": [9, 6, 11]});
    let ids = matches_across(&client, &apis, &tokens, 12, options).await;
    let mut rng = sealed_orders::games::rng::GameRng::from_key([9; 32]);
    let mut races = 0;
    for _ in 0..200 {
        let mut sends = Vec::new();
        let mut active = 0;
        for id in &ids {
            let view = call(
                &client,
                get.clone(),
                format!("{}/matches/{id}", apis[0]),
                None,
                Value::Null,
            )
            .await;
            if view["status"] != "active" {
                continue;
            }
            active += 1;
            let awaiting: Vec<usize> = view["prompt"]["awaiting"]
                .as_array()
                .expect("awaiting")
                .iter()
                .map(|s| s.as_u64().expect("seat") as usize)
                .collect();
            // Each awaited seat's move, to the replica of its own index.
            for seat in awaiting.iter().copied() {
                let mine = call(
                    &client,
                    get.clone(),
                    format!("{}/matches/{id}", apis[seat]),
                    Some(&tokens[seat]),
                    Value::Null,
                )
                .await;
                let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
                let action = sealed_orders::games::legal::sample(&legal, &mut rng).expect("a move");
                let step = mine["prompt"]["step"].clone();
                let req = client
                    .post(format!("{}/matches/{id}/moves", apis[seat]))
                    .bearer_auth(&tokens[seat])
                    .json(&json!({"step": step, "action": action}));
                sends.push(req.send());
            }
            if awaiting.len() == 2 {
                races += 1;
            }
        }
        if active == 0 {
            break;
        }
        for r in futures_util::future::join_all(sends).await {
            let r = r.expect("response");
            let status = r.status();
            let text = r.text().await.expect("body");
            assert!(status.is_success(), "a racing move: {status} {text}");
        }
    }
    assert!(races >= 24, "the matches raced {races} times");
    for id in &ids {
        let m = call(
            &client,
            get.clone(),
            format!("{}/matches/{id}", apis[1]),
            None,
            Value::Null,
        )
        .await;
        assert_eq!(m["status"], "finished", "{m}");
        let events = call(
            &client,
            get.clone(),
            format!("{}/matches/{id}/events?limit=200", apis[0]),
            None,
            Value::Null,
        )
        .await;
        let mut resolved: Vec<i64> = events["items"]
            .as_array()
            .expect("items")
            .iter()
            .filter(|e| e["kind"] == "step_resolved")
            .map(|e| e["data"]["step"].as_i64().expect("step"))
            .collect();
        let n = resolved.len();
        resolved.dedup();
        assert_eq!(resolved.len(), n, "a step resolved twice in {id}: {events}");
        let moves = call(
            &client,
            get.clone(),
            format!("{}/matches/{id}/moves?limit=200", apis[1]),
            None,
            Value::Null,
        )
        .await;
        let mut keys: Vec<(i64, i64)> = moves["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|mv| {
                (
                    mv["step"].as_i64().expect("step"),
                    mv["seat"].as_i64().expect("seat"),
                )
            })
            .collect();
        let n = keys.len();
        keys.sort();
        keys.dedup();
        assert_eq!(keys.len(), n, "a seat moved twice in a step of {id}");
        let rounds = call(
            &client,
            get.clone(),
            format!("{}/matches/{id}/rounds", apis[0]),
            None,
            Value::Null,
        )
        .await;
        let numbers: Vec<i64> = rounds["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|r| r["round"].as_i64().expect("round"))
            .collect();
        assert_eq!(
            numbers,
            (1..=numbers.len() as i64).collect::<Vec<_>>(),
            "rounds of {id}"
        );
    }
    drop(servers);
}

#[tokio::test]
async fn a_stream_on_one_replica_ends_when_its_token_is_revoked_on_another() {
    use serde_json::json;
    let Some((_guard, _servers, apis)) = two_replicas(&[]).await else {
        return;
    };
    let client = reqwest::Client::new();
    let post = reqwest::Method::POST;
    let body = json!({"name": "ann", "password": "password1"});
    call(
        &client,
        post.clone(),
        format!("{}/players", apis[0]),
        None,
        body.clone(),
    )
    .await;
    let jwt = call(
        &client,
        post.clone(),
        format!("{}/auth/token", apis[0]),
        None,
        body,
    )
    .await;
    let jwt = jwt["access_token"].as_str().expect("jwt").to_owned();
    let created = call(
        &client,
        post,
        format!("{}/players/me/tokens", apis[0]),
        Some(&jwt),
        json!({"name": "watcher", "scopes": ["read"]}),
    )
    .await;
    let token = created["token"].as_str().expect("token");
    let token_id = created["api_token"]["id"].as_str().expect("id");
    let mut resp = client
        .get(format!("{}/players/me/events", apis[1]))
        .bearer_auth(token)
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
    let r = client
        .delete(format!("{}/players/me/tokens/{token_id}", apis[0]))
        .bearer_auth(&jwt)
        .send()
        .await
        .expect("revoke");
    assert_eq!(r.status(), 204);
    // Ended within a few seconds, well before the 15-s keepalive check.
    read_until_closed(&mut resp, &mut text).await;
    assert!(
        text.contains("event: credential_ended") && text.contains(r#""reason":"revoked""#),
        "{text}"
    );
    // And the other replica refuses the token at once, its credential cache notwithstanding.
    let r = client
        .get(format!("{}/players/me", apis[1]))
        .bearer_auth(token)
        .send()
        .await
        .expect("read");
    assert_eq!(r.status(), 401);
}

/// Reads a stream into `text` until the server closes it, which must happen
/// within a few seconds (well before a keepalive would notice).
pub(crate) async fn read_until_closed(resp: &mut reqwest::Response, text: &mut String) {
    let started = Instant::now();
    let mut closed = false;
    while started.elapsed() < Duration::from_secs(8) {
        match tokio::time::timeout(Duration::from_secs(8), resp.chunk()).await {
            Ok(Ok(Some(b))) => text.push_str(&String::from_utf8_lossy(&b)),
            Ok(_) => {
                closed = true;
                break;
            }
            Err(_) => break,
        }
    }
    assert!(
        closed,
        "the stream on the other replica was not closed: {text}"
    );
}

/// Reads of many matches at once on one replica, each after a move the other
/// replica acknowledged: every read shows the move, however soon after the
/// move's answer it comes (the notification of the change may not have
/// reached the reading replica yet; its kept snapshot is older).
#[tokio::test]
async fn reads_of_many_matches_at_once_on_one_replica_show_every_move_the_other_acknowledged() {
    use serde_json::{Value, json};
    let Some((_guard, servers, apis)) = two_replicas(&[("RATE_LIMIT_MATCHES_PER_MIN", "0")]).await
    else {
        return;
    };
    let client = reqwest::Client::new();
    let (get, post) = (reqwest::Method::GET, reqwest::Method::POST);
    let tokens = accounts_across(&client, &apis, &["uma", "vic"]).await;
    let ids = matches_across(&client, &apis, &tokens, 16, json!({})).await;
    let plays = ids.iter().enumerate().map(|(n, id)| {
        let (client, apis, tokens) = (client.clone(), apis.clone(), tokens.clone());
        let (get, post, id) = (get.clone(), post.clone(), id.clone());
        async move {
            let mut rng = sealed_orders::games::rng::GameRng::from_key([n as u8; 32]);
            let mut acknowledged = 0;
            let mut reads = 0;
            for _ in 0..30 {
                // Reads on replica 1 of a match whose moves go to replica 0.
                let view = call(
                    &client,
                    get.clone(),
                    format!("{}/matches/{id}", apis[1]),
                    None,
                    Value::Null,
                )
                .await;
                reads += 1;
                let seen = view["version"].as_i64().expect("version");
                assert!(
                    seen >= acknowledged,
                    "{id}: read version {seen} after a move acknowledged at {acknowledged}"
                );
                if view["status"] != "active" {
                    break;
                }
                let seat = view["prompt"]["awaiting"][0].as_u64().expect("seat") as usize;
                let mine = call(
                    &client,
                    get.clone(),
                    format!("{}/matches/{id}", apis[1]),
                    Some(&tokens[seat]),
                    Value::Null,
                )
                .await;
                reads += 1;
                assert!(mine["version"].as_i64().expect("version") >= seen);
                let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
                let action = sealed_orders::games::legal::sample(&legal, &mut rng).expect("a move");
                let receipt = call(
                    &client,
                    post.clone(),
                    format!("{}/matches/{id}/moves", apis[0]),
                    Some(&tokens[seat]),
                    json!({"step": mine["prompt"]["step"], "action": action}),
                )
                .await;
                acknowledged = receipt["version"].as_i64().expect("version");
            }
            reads
        }
    });
    let reads: u64 = futures_util::future::join_all(plays)
        .await
        .into_iter()
        .sum();
    assert!(reads > 100, "{reads} reads");
    drop(servers);
}

/// `match_reads_total{how}` of a replica's /metrics.
async fn match_reads(client: &reqwest::Client, api: &str, how: &str) -> u64 {
    let base = api.trim_end_matches("/api/v1");
    let text = client
        .get(format!("{base}/metrics"))
        .send()
        .await
        .expect("metrics")
        .text()
        .await
        .expect("metrics text");
    let line = format!("sealed_orders_match_reads_total{{how=\"{how}\"}} ");
    text.lines()
        .find_map(|l| l.strip_prefix(line.as_str()))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0)
}

/// One move of `id` through `mover`, as the seat the read through `reader`
/// says is awaited: the version acknowledged, or `None` once the match is over.
async fn one_move(
    client: &reqwest::Client,
    reader: &str,
    mover: &str,
    tokens: &[String],
    id: &str,
    rng: &mut sealed_orders::games::rng::GameRng,
) -> Option<i64> {
    use serde_json::{Value, json};
    let view = call(
        client,
        reqwest::Method::GET,
        format!("{reader}/matches/{id}"),
        None,
        Value::Null,
    )
    .await;
    if view["status"] != "active" {
        return None;
    }
    let seat = view["prompt"]["awaiting"][0].as_u64().expect("seat") as usize;
    let mine = call(
        client,
        reqwest::Method::GET,
        format!("{reader}/matches/{id}"),
        Some(&tokens[seat]),
        Value::Null,
    )
    .await;
    let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
    let action = sealed_orders::games::legal::sample(&legal, rng).expect("a move");
    let receipt = call(
        client,
        reqwest::Method::POST,
        format!("{mover}/matches/{id}/moves"),
        Some(&tokens[seat]),
        json!({"step": mine["prompt"]["step"], "action": action}),
    )
    .await;
    Some(receipt["version"].as_i64().expect("version"))
}

/// The version a read of `id` through `api` shows.
async fn version_read(client: &reqwest::Client, api: &str, id: &str) -> i64 {
    let view = call(
        client,
        reqwest::Method::GET,
        format!("{api}/matches/{id}"),
        None,
        serde_json::Value::Null,
    )
    .await;
    view["version"].as_i64().expect("version")
}

#[tokio::test]
async fn a_home_answers_its_matches_without_asking_yet_never_behind_a_move_made_through_another() {
    if on_citus() {
        // Homes are plain Postgres's: on Citus every read asks, which
        // `reads_of_many_matches_at_once_…` checks there.
        return;
    }
    // A lease of a second: each move through replica 1 waits for what is left.
    let env = [
        ("RATE_LIMIT_MATCHES_PER_MIN", "0"),
        ("HOME_LEASE_MS", "1000"),
    ];
    let Some((_guard, servers, apis)) = two_replicas(&env).await else {
        return;
    };
    let client = reqwest::Client::new();
    let tokens = accounts_across(&client, &apis, &["wes", "xia"]).await;
    let ids = matches_across(&client, &apis, &tokens, 12, serde_json::json!({})).await;
    let mut rngs: Vec<_> = (0..ids.len())
        .map(|n| sealed_orders::games::rng::GameRng::from_key([n as u8 + 7; 32]))
        .collect();
    // Sticky play: every read and move of the matches through replica 0, until
    // it is the home of some (its running share of moves on its own snapshots
    // must first pass nine in ten).
    let mut rounds = 0;
    while match_reads(&client, &apis[0], "home").await < 20 {
        rounds += 1;
        assert!(rounds <= 40, "replica 0 never answered a read as the home");
        for (id, rng) in ids.iter().zip(&mut rngs) {
            one_move(&client, &apis[0], &apis[0], &tokens, id, rng).await;
        }
    }
    let checked_before = match_reads(&client, &apis[0], "checked").await;
    let mut displaced = 0;
    for cycle in 0..4 {
        if cycle > 0 {
            // Replica 0 home again: two moves in a row of its own.
            for _ in 0..2 {
                for (id, rng) in ids.iter().zip(&mut rngs) {
                    one_move(&client, &apis[0], &apis[0], &tokens, id, rng).await;
                }
            }
        }
        displaced += moves_through_another(&client, &apis, &tokens, &ids, &mut rngs).await;
    }
    assert!(displaced >= 12, "only {displaced} moves displaced a home");
    // Replica 0 is no longer home of those: its reads of them ask again.
    assert!(match_reads(&client, &apis[0], "checked").await > checked_before);
    // And replica 1 asked at every read: it never wrote two moves in a row.
    assert_eq!(match_reads(&client, &apis[1], "home").await, 0);
    drop(servers);
}

/// A move of each match through replica 1, each followed at once by reads
/// through replica 0, the home, which must show the move (the writer waited
/// for the lease): how many matches were still active.
async fn moves_through_another(
    client: &reqwest::Client,
    apis: &[String],
    tokens: &[String],
    ids: &[String],
    rngs: &mut [sealed_orders::games::rng::GameRng],
) -> usize {
    let moves = ids.iter().zip(rngs).map(|(id, rng)| async move {
        let acknowledged = one_move(client, &apis[1], &apis[1], tokens, id, rng).await?;
        for _ in 0..3 {
            let seen = version_read(client, &apis[0], id).await;
            assert!(
                seen >= acknowledged,
                "{id}: replica 0 read version {seen} after replica 1 acknowledged {acknowledged}"
            );
        }
        Some(())
    });
    futures_util::future::join_all(moves)
        .await
        .into_iter()
        .flatten()
        .count()
}
