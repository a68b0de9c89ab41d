use reqwest::Method;
use serde_json::json;

use crate::helpers::{Reply, TestApp, spawn_app};

#[tokio::test]
async fn the_creator_takes_seat_0_and_the_match_waits_for_players() {
    let app = spawn_app().await;
    let p = app.player("alice").await;
    let m = app
        .post(
            "/api/v1/matches",
            Some(&p.token),
            &json!({"game": "malacca", "seats": 3}),
        )
        .await
        .expect(201);
    assert_eq!(m["status"], "waiting");
    assert_eq!(m["your_seat"], 0);
    assert_eq!(m["seats"][0]["player"]["name"], "alice");
    assert_eq!(m["seats"][1]["player"], json!(null));
    assert_eq!(m["seed_sha256"].as_str().map(str::len), Some(64));
    assert_eq!(m["seed"], json!(null));
    assert_eq!(m["view"], json!(null));
    assert_eq!(m["prompt"], json!(null));
}

#[tokio::test]
async fn the_match_starts_when_the_last_seat_is_taken() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let m = app.match_as(&id, Some(&players[1])).await;
    assert_eq!(m["status"], "active");
    assert_eq!(m["your_seat"], 1);
    assert_eq!(m["step"], 0);
    assert_eq!(m["prompt"]["kind"], "bet");
    let captain = m["view"]["captain"].as_u64().expect("captain");
    assert_eq!(m["prompt"]["awaiting"], json!([captain]));
    // Only the awaited seat gets legal moves, in the contract's template format.
    for (seat, p) in players.iter().enumerate() {
        let mine = app.match_as(&id, Some(p)).await;
        if seat as u64 == captain {
            assert_eq!(mine["prompt"]["your_turn"], true);
            let legal = &mine["prompt"]["legal"][0];
            assert_eq!(legal["type"], "play");
            assert_eq!(legal["template"], true);
            assert_eq!(legal["cards"], json!(["attack", "defense", "trade"]));
            assert_eq!(legal["stake"], json!({"min": 0, "max": 5}));
        } else {
            assert_eq!(mine["prompt"]["legal"], json!(null));
        }
    }
}

#[tokio::test]
async fn joining_twice_or_a_full_match_is_a_409() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let m = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "malacca", "seats": 2}),
        )
        .await
        .expect(201);
    let id = m["id"].as_str().expect("id");
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[0].token),
        &json!({}),
    )
    .await
    .problem(409, "already_seated");
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[2].token),
        &json!({}),
    )
    .await
    .problem(409, "match_not_waiting");
}

#[tokio::test]
async fn the_owner_may_start_early_with_at_least_the_minimum_and_seats_are_compacted() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let m = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "malacca", "seats": 5}),
        )
        .await
        .expect(201);
    let id = m["id"].as_str().expect("id");
    app.post(
        &format!("/api/v1/matches/{id}/start"),
        Some(&players[0].token),
        &json!({}),
    )
    .await
    .problem(409, "not_enough_players");
    for p in &players[1..] {
        app.post(
            &format!("/api/v1/matches/{id}/join"),
            Some(&p.token),
            &json!({}),
        )
        .await
        .expect(200);
    }
    // Seat 1 leaves, leaving a gap.
    app.post(
        &format!("/api/v1/matches/{id}/leave"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{id}/start"),
        Some(&players[2].token),
        &json!({}),
    )
    .await
    .problem(403, "not_owner");
    let m = app
        .post(
            &format!("/api/v1/matches/{id}/start"),
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(m["status"], "active");
    assert_eq!(m["seat_count"], 2);
    assert_eq!(m["seats"][1]["player"]["name"], players[2].name);
    assert_eq!(m["view"]["players"].as_array().map(Vec::len), Some(2));
}

#[tokio::test]
async fn leaving_passes_ownership_and_the_last_one_out_aborts() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let m = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "malacca", "seats": 3}),
        )
        .await
        .expect(201);
    let id = m["id"].as_str().expect("id");
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    let m = app
        .post(
            &format!("/api/v1/matches/{id}/leave"),
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(m["owner"]["name"], players[1].name);
    let m = app
        .post(
            &format!("/api/v1/matches/{id}/leave"),
            Some(&players[1].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(m["status"], "aborted");
    assert!(m["seed"].is_string(), "an aborted match publishes its seed");
}

#[tokio::test]
async fn only_the_owner_may_cancel_a_waiting_match() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let m = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "malacca", "seats": 3}),
        )
        .await
        .expect(201);
    let id = m["id"].as_str().expect("id");
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{id}/cancel"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .problem(403, "not_owner");
    let m = app
        .post(
            &format!("/api/v1/matches/{id}/cancel"),
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(m["status"], "aborted");
    app.post(
        &format!("/api/v1/matches/{id}/cancel"),
        Some(&players[0].token),
        &json!({}),
    )
    .await
    .problem(409, "match_not_waiting");
}

#[tokio::test]
async fn bad_creation_requests_are_422_and_store_nothing() {
    let app = spawn_app().await;
    let p = app.player("alice").await;
    let create = |body: serde_json::Value| {
        let app = &app;
        let token = p.token.clone();
        async move { app.post("/api/v1/matches", Some(&token), &body).await }
    };
    create(json!({"game": "chess", "seats": 2}))
        .await
        .problem(422, "unknown_game");
    create(json!({"game": "malacca", "seats": 9}))
        .await
        .problem(422, "invalid_seats");
    create(json!({"game": "malacca", "seats": 1}))
        .await
        .problem(422, "invalid_seats");
    create(json!({"game": "malacca", "seats": -3}))
        .await
        .problem(422, "invalid_seats");
    create(json!({"game": "malacca", "seats": 2, "options": {"colour": "red"}}))
        .await
        .problem(422, "invalid_options");
    create(json!({"game": "malacca", "seats": 2, "options": {"stakes": "loud"}}))
        .await
        .problem(422, "invalid_options");
    create(json!({"game": "malacca", "seats": 2, "options": [1]}))
        .await
        .problem(422, "invalid_options");
    create(json!({"game": "malacca", "seats": 2, "options": {"rated": "yes"}}))
        .await
        .problem(422, "invalid_options");
    app.post(
        "/api/v1/matches",
        None,
        &json!({"game": "malacca", "seats": 2}),
    )
    .await
    .problem(401, "unauthorized");
    let listed = app.get("/api/v1/matches", None).await.expect(200);
    assert_eq!(listed["items"], json!([]));
}

#[tokio::test]
async fn the_match_list_filters_and_pages_with_an_opaque_cursor() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    for _ in 0..3 {
        app.post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "malacca", "seats": 2}),
        )
        .await
        .expect(201);
    }
    app.post(
        "/api/v1/matches",
        Some(&players[1].token),
        &json!({"game": "malacca", "seats": 3}),
    )
    .await
    .expect(201);
    let page1 = app.get("/api/v1/matches?limit=2", None).await.expect(200);
    assert_eq!(page1["items"].as_array().map(Vec::len), Some(2));
    let cursor = page1["next_cursor"].as_str().expect("a next page");
    let page2 = app
        .get(&format!("/api/v1/matches?limit=2&cursor={cursor}"), None)
        .await
        .expect(200);
    assert_eq!(page2["items"].as_array().map(Vec::len), Some(2));
    assert_eq!(page2["next_cursor"], json!(null));
    assert_ne!(page1["items"][0]["id"], page2["items"][0]["id"]);
    let mine = app
        .get(&format!("/api/v1/matches?player={}", players[1].name), None)
        .await
        .expect(200);
    assert_eq!(mine["items"].as_array().map(Vec::len), Some(1));
    let waiting = app
        .get("/api/v1/matches?status=waiting&game=malacca", None)
        .await
        .expect(200);
    assert_eq!(waiting["items"].as_array().map(Vec::len), Some(4));
    app.get("/api/v1/matches?status=sleeping", None)
        .await
        .problem(400, "invalid_status");
    app.get("/api/v1/matches?cursor=%%%", None)
        .await
        .problem(400, "invalid_cursor");
    app.get("/api/v1/matches?cursor=bm90LWEtdXVpZA", None)
        .await
        .problem(400, "invalid_cursor");
    app.get("/api/v1/matches?limit=0", None)
        .await
        .problem(400, "invalid_limit");
    app.get("/api/v1/matches?limit=201", None)
        .await
        .problem(400, "invalid_limit");
}

#[tokio::test]
async fn the_catalogue_lists_malacca_with_its_seats_and_options() {
    let app = spawn_app().await;
    let games = app.get("/api/v1/games", None).await.expect(200);
    let malacca = games
        .as_array()
        .expect("list")
        .iter()
        .find(|g| g["id"] == "malacca")
        .expect("malacca")
        .clone();
    assert_eq!(malacca["seats"], json!([2, 3, 4, 5, 6, 7, 8]));
    assert_eq!(malacca["options"]["stakes"], "open_sequential");
    assert_eq!(malacca["data_placeholder"], true);
    app.get("/api/v1/games/malacca", None).await.expect(200);
    app.get("/api/v1/games/go", None)
        .await
        .problem(404, "game_not_found");
}

#[tokio::test]
async fn your_turns_lists_the_matches_where_you_owe_a_move() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let position = |captain: usize| {
        json!({"round": 1, "captain": captain, "ships": [5], "special_deck": [],
               "players": [{"coins": 5}, {"coins": 5}]})
    };
    let mine = app
        .started_match(&players, "malacca", json!({"position": position(0)}))
        .await;
    let theirs = app
        .started_match(&players, "malacca", json!({"position": position(1)}))
        .await;
    let sealed = app
        .started_match(
            &players,
            "malacca",
            json!({"stakes": "sealed", "ships": [5]}),
        )
        .await;
    let turns = app
        .get("/api/v1/players/me/turns", Some(&players[0].token))
        .await
        .expect(200);
    let ids: Vec<&str> = turns["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|t| t["match_id"].as_str())
        .collect();
    assert!(ids.contains(&mine.as_str()) && ids.contains(&sealed.as_str()));
    assert!(!ids.contains(&theirs.as_str()));
    assert_eq!(turns["items"][0]["kind"], "bet");
    // Once seat 0 has moved in the sealed match, it owes nothing there.
    app.submit(
        &sealed,
        &players[0],
        0,
        json!({"type": "play", "card": "trade", "stake": 0}),
    )
    .await
    .expect(200);
    let turns = app
        .get("/api/v1/players/me/turns", Some(&players[0].token))
        .await
        .expect(200);
    assert_eq!(turns["items"].as_array().map(Vec::len), Some(1));
    app.get("/api/v1/players/me/turns", None)
        .await
        .problem(401, "unauthorized");
}

#[tokio::test]
async fn a_waiting_match_nobody_joins_for_the_lobby_time_is_cancelled_by_the_server() {
    let (app, clock) = crate::helpers::spawn_app_with_manual_clock().await;
    let alice = app.player("alice").await;
    let bob = app.player("bob").await;
    let create = |seats: u32| json!({"game": "malacca", "seats": seats});
    let idle = app
        .post("/api/v1/matches", Some(&alice.token), &create(2))
        .await
        .expect(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let busy = app
        .post("/api/v1/matches", Some(&alice.token), &create(3))
        .await
        .expect(201)["id"]
        .as_str()
        .expect("id")
        .to_owned();
    clock.advance(chrono::Duration::days(13));
    // JWTs live a day: log in again after the days passed.
    let login = |name: &str| {
        let app = &app;
        let body = json!({"name": name, "password": "password1"});
        async move {
            app.post("/api/v1/auth/token", None, &body)
                .await
                .expect(200)["access_token"]
                .as_str()
                .expect("token")
                .to_owned()
        }
    };
    let bob_token = login(&bob.name).await;
    // A join is lobby activity: the busy match's time starts again.
    app.post(
        &format!("/api/v1/matches/{busy}/join"),
        Some(&bob_token),
        &json!({}),
    )
    .await
    .expect(200);
    clock.advance(chrono::Duration::days(1) + chrono::Duration::minutes(5));
    let status = |id: String| {
        let app = &app;
        async move { app.match_as(&id, None).await["status"].clone() }
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while status(idle.clone()).await != "aborted" {
        assert!(
            std::time::Instant::now() < deadline,
            "the stale match was not cancelled"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(status(busy.clone()).await, "waiting");
    let events = app
        .get(&format!("/api/v1/matches/{idle}/events"), None)
        .await
        .expect(200);
    let last = events["items"]
        .as_array()
        .and_then(|e| e.last())
        .cloned()
        .expect("events");
    assert_eq!(last["kind"], "match_aborted");
    assert_eq!(last["data"], json!({"reason": "stale"}));
    // An owner's own cancellation says so.
    let alice_token = login(&alice.name).await;
    let r = app
        .post(
            &format!("/api/v1/matches/{busy}/cancel"),
            Some(&alice_token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(r["status"], "aborted");
    let events = app
        .get(&format!("/api/v1/matches/{busy}/events"), None)
        .await
        .expect(200);
    let last = events["items"].as_array().and_then(|e| e.last()).cloned();
    assert_eq!(
        last.expect("events")["data"],
        json!({"reason": "cancelled"})
    );
}

#[tokio::test]
async fn a_poller_with_the_etag_gets_304_until_what_it_sees_changes() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let path = format!("/api/v1/matches/{id}");
    let first = read_tagged(&app, &path, Some(&players[0].token), None).await;
    assert_eq!(first.status, 200);
    let tag = first.headers["etag"].to_str().expect("ascii").to_owned();
    assert!(tag.starts_with("W/\"") && tag.ends_with('"'), "{tag}");
    assert_eq!(first.headers["vary"], "Authorization");

    let again = read_tagged(&app, &path, Some(&players[0].token), Some(&tag)).await;
    assert_eq!(again.status, 304);
    assert!(again.text.is_empty());
    assert_eq!(again.headers["etag"].to_str().expect("ascii"), tag);
    // A list of tags, its opaque part alone, and `*` match too.
    let opaque = tag.trim_start_matches("W/").to_owned();
    for sent in [format!("\"x\", {tag}"), opaque, "*".to_owned()] {
        assert_eq!(
            read_tagged(&app, &path, Some(&players[0].token), Some(&sent))
                .await
                .status,
            304
        );
    }
    // Another caller sees another view, so the tag does not fit it.
    assert_eq!(read_tagged(&app, &path, None, Some(&tag)).await.status, 200);
    assert_eq!(
        read_tagged(&app, &path, Some(&players[1].token), Some(&tag))
            .await
            .status,
        200
    );

    // A move changes what everybody sees.
    for p in &players {
        let mine = app.match_as(&id, Some(p)).await;
        if mine["prompt"]["your_turn"] == true {
            let step = mine["prompt"]["step"].as_i64().expect("step");
            app.submit(
                &id,
                p,
                step,
                json!({"type": "play", "card": "trade", "stake": 0}),
            )
            .await
            .expect(200);
            break;
        }
    }
    let after = read_tagged(&app, &path, Some(&players[0].token), Some(&tag)).await;
    assert_eq!(after.status, 200);
    assert_ne!(after.headers["etag"].to_str().expect("ascii"), tag);
}

async fn read_tagged(app: &TestApp, path: &str, token: Option<&str>, tag: Option<&str>) -> Reply {
    let headers: Vec<(&str, &str)> = tag.map(|t| ("If-None-Match", t)).into_iter().collect();
    app.send_with_headers(Method::GET, path, token, None, &headers)
        .await
}

/// A move sent with `Prefer: return=representation` answers the mover's next
/// prompt, the one `GET /matches/{id}` gives it right after; played so to the
/// end, the last answer's prompt is null. Without the preference the answer is
/// as it always was.
#[tokio::test]
async fn a_move_answers_the_movers_next_prompt_when_it_prefers_so() {
    use sealed_orders::games::{legal, rng::GameRng};
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "heretics", json!({})).await;
    let mut rng = GameRng::from_key([5; 32]);
    let moves = format!("/api/v1/matches/{id}/moves");
    let mut plain_seen = false;
    let mut last = serde_json::Value::Null;
    for _ in 0..2000 {
        let m = app.match_as(&id, None).await;
        if m["status"] != "active" {
            break;
        }
        let seat = m["prompt"]["awaiting"][0].as_u64().expect("awaiting") as usize;
        let p = &players[seat];
        let prompt = app.match_as(&id, Some(p)).await["prompt"].clone();
        let legal_moves = prompt["legal"].as_array().expect("legal").clone();
        let body = json!({"step": prompt["step"], "action": legal::sample(&legal_moves, &mut rng).expect("a move")});
        if !plain_seen {
            plain_seen = true;
            let r = app.post(&moves, Some(&p.token), &body).await;
            let receipt = r.expect(200);
            assert!(receipt.get("prompt").is_none(), "{receipt}");
            assert!(r.headers.get("preference-applied").is_none());
            continue;
        }
        let r = app
            .send_with_headers(
                Method::POST,
                &moves,
                Some(&p.token),
                Some(&body),
                &[("Prefer", "respond-async, Return = \"representation\"; x=1")],
            )
            .await;
        let receipt = r.expect(200);
        assert_eq!(
            r.headers
                .get("preference-applied")
                .and_then(|v| v.to_str().ok()),
            Some("return=representation")
        );
        let read = app.match_as(&id, Some(p)).await;
        if read["status"] == "active" {
            assert_eq!(
                receipt["prompt"], read["prompt"],
                "the answer's prompt is the read's"
            );
        }
        last = receipt;
    }
    assert_eq!(app.match_as(&id, None).await["status"], "finished");
    assert!(
        last.get("prompt").is_some_and(serde_json::Value::is_null),
        "the match is over: {last}"
    );
}

/// `/players/me/turns?prompts=true` carries, for each owed move, the prompt a
/// read of its match gives (with `legal`); without it, none.
#[tokio::test]
async fn the_turns_list_carries_each_prompt_when_asked() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let a = app.started_match(&players, "malacca", json!({})).await;
    let b = app.started_match(&players, "kontor", json!({})).await;
    for p in &players {
        let turns = app
            .get("/api/v1/players/me/turns?prompts=true", Some(&p.token))
            .await
            .expect(200);
        let items = turns["items"].as_array().expect("items");
        assert!(
            !items.is_empty(),
            "Kontor's first choice is owed by both: {turns}"
        );
        for item in items {
            let id = item["match_id"].as_str().expect("id");
            assert!(id == a || id == b);
            let read = app.match_as(id, Some(p)).await;
            assert_eq!(item["prompt"], read["prompt"], "{item}");
            assert_eq!(item["prompt"]["your_turn"], true);
            assert!(item["prompt"]["legal"].is_array());
        }
        let plain = app
            .get("/api/v1/players/me/turns", Some(&p.token))
            .await
            .expect(200);
        assert_eq!(plain["items"].as_array().map(Vec::len), Some(items.len()));
        assert!(
            plain["items"]
                .as_array()
                .expect("items")
                .iter()
                .all(|i| i.get("prompt").is_none())
        );
    }
    app.get(
        "/api/v1/players/me/turns?prompts=maybe",
        Some(&players[0].token),
    )
    .await
    .problem(400, "invalid_query");
}
