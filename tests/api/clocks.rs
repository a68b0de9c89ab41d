//! Time banks: each seat's bank is charged its own thinking time (in a sealed
//! step too), earns its increment up to the cap, and runs out into the match's
//! timeout policy; everything is derived from stored instants, so it survives a
//! restart. Tests move the service's clock instead of sleeping.

use std::time::Duration;

use chrono::Utc;
use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, restart_process, spawn_app_with, spawn_app_with_manual_clock, spawn_process,
};
use crate::timed::{at, wait_for};

fn bank(initial: i64, increment: i64, cap: i64) -> Value {
    json!({"kind": "bank", "initial_seconds": initial, "increment_seconds": increment, "cap_seconds": cap})
}

fn with_hours(hours: Value) -> Value {
    let mut tc = bank(3600, 600, 7200);
    tc["playing_hours"] = hours;
    tc
}

/// Every seat's `bank_seconds` as the match read shows them.
fn banks(m: &Value) -> Vec<i64> {
    m["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["bank_seconds"].as_i64().expect("bank_seconds"))
        .collect()
}

/// The `n`-th legal move of `p`'s seat, with the step to submit it at.
async fn legal_move(app: &TestApp, id: &str, p: &Player, n: usize) -> (i64, Value) {
    let m = app.match_as(id, Some(p)).await;
    let prompt = &m["prompt"];
    assert_eq!(prompt["your_turn"], true, "{m}");
    let legal = prompt["legal"].as_array().expect("legal");
    (
        prompt["step"].as_i64().expect("step"),
        legal[n % legal.len()].clone(),
    )
}

async fn move_now(app: &TestApp, id: &str, p: &Player, n: usize) {
    let (step, action) = legal_move(app, id, p, n).await;
    app.submit(id, p, step, action).await.expect(200);
}

async fn events_of(app: &TestApp, id: &str) -> Vec<Value> {
    app.get(&format!("/api/v1/matches/{id}/events?limit=200"), None)
        .await
        .expect(200)["items"]
        .as_array()
        .expect("events")
        .clone()
}

#[tokio::test]
async fn each_seat_is_charged_its_own_thinking_time_in_sealed_steps() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    // Short enough that the players' one-hour tokens outlive the match's clock.
    let (initial, increment, cap) = (360, 60, 400);
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"time_control": bank(initial, increment, cap)}),
        )
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(
        m["options"]["time_control"],
        bank(initial, increment, cap),
        "the options show the time control as given"
    );
    assert_eq!(m["prompt"]["sealed"], true);
    assert_eq!(banks(&m), vec![initial; 3]);
    for s in 0..3 {
        assert_eq!(m["seats"][s]["seconds_remaining"], initial);
        assert_eq!(
            at(&m["seats"][s]["deadline"]),
            clock.now_utc() + chrono::Duration::seconds(initial)
        );
        assert_eq!(m["prompt"]["deadlines"][s]["bank_seconds"], initial);
        assert_eq!(m["prompt"]["deadlines"][s]["seconds_remaining"], initial);
    }

    // Seconds each seat thinks, counted from the start of the step, step by step.
    let plan: [[i64; 3]; 4] = [[80, 25, 90], [120, 3, 40], [1, 300, 6], [70, 70, 1]];
    let mut expected = [initial; 3];
    for (step, thinking) in plan.iter().enumerate() {
        let start = clock.now_utc();
        let before = expected;
        let mut order: Vec<usize> = (0..3).collect();
        order.sort_by_key(|s| thinking[*s]);
        let mut replacement = None;
        if step == 0 {
            // Seat 0 moves at 10 s, then replaces its sealed move at 80 s: it
            // is charged up to the replacement.
            replacement = Some(legal_move(&app, &id, &players[0], 1).await);
            clock.advance(chrono::Duration::seconds(10));
            move_now(&app, &id, &players[0], 0).await;
            let m = app.match_as(&id, None).await;
            assert_eq!(
                m["seats"][0]["bank_seconds"],
                (initial - 10 + increment).min(cap),
                "a seat that moved in an open sealed step shows what its move leaves it"
            );
            assert_eq!(m["seats"][0]["deadline"], Value::Null);
            assert_eq!(m["seats"][0]["seconds_remaining"], Value::Null);
            assert_eq!(
                m["seats"][1]["bank_seconds"],
                initial - 10,
                "an owing seat's bank runs"
            );
            assert_eq!(m["seats"][1]["seconds_remaining"], initial - 10);
            assert_eq!(
                at(&m["seats"][1]["deadline"]),
                start + chrono::Duration::seconds(initial)
            );
        }
        for s in order {
            let now = clock.now_utc();
            clock.advance(start + chrono::Duration::seconds(thinking[s]) - now);
            match (s, &replacement) {
                (0, Some((at_step, action))) => {
                    let replaced = app.submit(&id, &players[0], *at_step, action.clone()).await;
                    replaced.expect(200);
                }
                _ => move_now(&app, &id, &players[s], 0).await,
            }
        }
        for s in 0..3 {
            expected[s] = (before[s] - thinking[s] + increment).min(cap);
        }
        let m = app.match_as(&id, None).await;
        assert_eq!(m["step"], step as i64 + 1, "{m}");
        assert_eq!(banks(&m), expected.to_vec(), "after step {step}");
        let now = clock.now_utc();
        for s in 0..3 {
            assert_eq!(
                at(&m["seats"][s]["deadline"]),
                now + chrono::Duration::seconds(expected[s]),
                "seat {s} is due its bank from now"
            );
            assert_eq!(m["seats"][s]["seconds_remaining"], expected[s]);
        }
    }
    let mine = app.match_as(&id, Some(&players[1])).await;
    let turns = app
        .get("/api/v1/players/me/turns", Some(&players[1].token))
        .await
        .expect(200);
    assert_eq!(turns["items"][0]["bank_seconds"], expected[1]);
    assert_eq!(turns["items"][0]["deadline"], mine["seats"][1]["deadline"]);
}

#[tokio::test]
async fn an_empty_bank_brings_the_bot_once_and_its_increment() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"time_control": {"kind": "bank", "initial_seconds": 60, "increment_seconds": 10}}),
        )
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(
        m["options"]["time_control"]["cap_seconds"],
        90 * 24 * 3600,
        "the default cap is shown"
    );
    move_now(&app, &id, &players[0], 0).await;
    move_now(&app, &id, &players[1], 0).await;
    clock.advance(chrono::Duration::seconds(59));
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(app.match_as(&id, None).await["step"], 0, "the bank holds");

    clock.advance(chrono::Duration::seconds(2));
    let m = wait_for(&app, &id, "the bot's move", |m| m["step"] == 1).await;
    assert_eq!(m["seats"][2]["presence"], "absent");
    // Seats 0 and 1 moved at once; seat 2 was played for at 61 s: its bank
    // is spent, and the move earns the increment.
    assert_eq!(banks(&m), vec![70, 70, 10]);

    // Absent, seat 2 gets its bank or the absent limit (10 s), whichever is
    // shorter; the policy is not applied again.
    move_now(&app, &id, &players[0], 0).await;
    move_now(&app, &id, &players[1], 0).await;
    clock.advance(chrono::Duration::seconds(11));
    let m = wait_for(&app, &id, "the bot's second move", |m| m["step"] == 2).await;
    assert_eq!(banks(&m), vec![80, 80, 10]);
    let timed_out: Vec<Value> = events_of(&app, &id)
        .await
        .into_iter()
        .filter(|e| e["kind"] == "seat_timed_out")
        .collect();
    assert_eq!(timed_out.len(), 1, "{timed_out:?}");
    assert_eq!(timed_out[0]["data"]["seat"], 2);
    assert_eq!(timed_out[0]["data"]["policy"], "bot");
}

#[tokio::test]
async fn an_empty_bank_forfeits_the_seat_once_under_the_forfeit_policy() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"time_control": bank(60, 10, 600), "timeout_policy": "forfeit"}),
        )
        .await;
    move_now(&app, &id, &players[0], 0).await;
    move_now(&app, &id, &players[1], 0).await;
    clock.advance(chrono::Duration::seconds(61));
    let m = wait_for(&app, &id, "the forfeit", |m| m["step"] == 1).await;
    assert_eq!(m["seats"][2]["presence"], "forfeited");
    assert_eq!(m["status"], "active", "two seats play on");
    // A forfeited seat's null move is played at once: the next step resolves
    // on the others' moves alone.
    move_now(&app, &id, &players[0], 0).await;
    move_now(&app, &id, &players[1], 0).await;
    wait_for(&app, &id, "the next step", |m| m["step"] == 2).await;
    let kinds: Vec<Value> = events_of(&app, &id)
        .await
        .into_iter()
        .map(|e| e["kind"].clone())
        .collect();
    for kind in ["seat_timed_out", "seat_forfeited"] {
        assert_eq!(
            kinds.iter().filter(|k| **k == kind).count(),
            1,
            "{kind} once: {kinds:?}"
        );
    }
}

#[tokio::test]
async fn a_per_move_time_control_is_move_time_limit() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"time_control": {"kind": "per_move", "seconds": 300}}),
        )
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(
        m["options"]["time_control"],
        json!({"kind": "per_move", "seconds": 300})
    );
    assert_eq!(m["options"]["timeout_policy"], "bot");
    assert_eq!(m["seats"][0]["bank_seconds"], Value::Null, "no bank");
    assert_eq!(
        at(&m["seats"][0]["deadline"]),
        clock.now_utc() + chrono::Duration::seconds(300)
    );
    // Thinking long in one step takes nothing from the next.
    clock.advance(chrono::Duration::seconds(290));
    for p in &players {
        move_now(&app, &id, p, 0).await;
    }
    let m = app.match_as(&id, None).await;
    assert_eq!(m["seats"][1]["seconds_remaining"], 300);
}

#[tokio::test]
async fn bad_time_controls_are_refused_and_store_nothing() {
    let (app, _clock) = spawn_app_with(|s| {
        s.rate_limit_matches_per_min = 0;
        s.rate_limit_tournaments_per_min = 0;
    })
    .await;
    let p = app.player("alice").await;
    let bad = [
        json!({"time_control": "3d+1d"}),
        json!({"time_control": {"kind": "hourglass", "initial_seconds": 60}}),
        json!({"time_control": {"initial_seconds": 60}}),
        json!({"time_control": {"kind": "bank"}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": 0}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": -5}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": 60.5}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": "60"}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": 60, "increment_seconds": -1}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": 600, "cap_seconds": 599}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": 7_776_001}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": 1_000_000_000_000_i64}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": 60, "increment_seconds": 2_592_001}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": 60, "cap_seconds": 99_999_999}}),
        json!({"time_control": {"kind": "bank", "initial_seconds": 60, "seconds": 5}}),
        json!({"time_control": {"kind": "per_move"}}),
        json!({"time_control": {"kind": "per_move", "seconds": 0}}),
        json!({"time_control": {"kind": "per_move", "seconds": 60, "cap_seconds": 90}}),
        json!({"time_control": bank(60, 10, 600), "move_time_limit": 60}),
        json!({"time_control": {"kind": "per_move", "seconds": 60}, "move_time_limit": 60}),
        json!({"time_control": {"kind": "per_move", "seconds": 60, "playing_hours": {"time_zone": "UTC", "from": "08:00", "to": "22:00"}}}),
        json!({"time_control": with_hours(json!("08:00-22:00"))}),
        json!({"time_control": with_hours(json!({"time_zone": "Mars/Olympus", "from": "08:00", "to": "22:00"}))}),
        json!({"time_control": with_hours(json!({"time_zone": "Europe/Prague", "from": "8:00", "to": "22:00"}))}),
        json!({"time_control": with_hours(json!({"time_zone": "Europe/Prague", "from": "08:00", "to": "25:00"}))}),
        json!({"time_control": with_hours(json!({"time_zone": "Europe/Prague", "from": "08:00", "to": "08:30"}))}),
        json!({"time_control": with_hours(json!({"time_zone": "Europe/Prague", "from": "08:00", "to": "07:00"}))}),
        json!({"time_control": with_hours(json!({"time_zone": "Europe/Prague", "from": "08:00", "to": "08:00"}))}),
        json!({"time_control": with_hours(json!({"time_zone": "Europe/Prague", "from": "08:00"}))}),
        json!({"time_control": with_hours(json!({"time_zone": "Europe/Prague", "from": "08:00", "to": "22:00", "days": 5}))}),
    ];
    for options in &bad {
        let problem = app
            .post(
                "/api/v1/matches",
                Some(&p.token),
                &json!({"game": "heretics", "seats": 3, "options": options}),
            )
            .await
            .problem(422, "invalid_options");
        assert!(
            problem["detail"]
                .as_str()
                .is_some_and(|d| d.contains("time_control") || d.contains("move_time_limit")),
            "the detail names the option: {problem}"
        );
        app.post(
            "/api/v1/tournaments",
            Some(&p.token),
            &json!({"name": "T", "game": "heretics", "format": "swiss", "table_size": 3, "options": options}),
        )
        .await
        .problem(422, "invalid_options");
    }
    let lobby = app
        .get(&format!("/api/v1/matches?player={}", p.name), None)
        .await
        .expect(200);
    assert_eq!(lobby["items"], json!([]), "no match was stored");
    let tournaments = app.get("/api/v1/tournaments", None).await.expect(200);
    assert_eq!(tournaments["items"], json!([]), "no tournament was stored");

    // A tournament keeps a good time control for the matches it makes.
    let t = app
        .post(
            "/api/v1/tournaments",
            Some(&p.token),
            &json!({"name": "T", "game": "heretics", "format": "swiss", "table_size": 3,
                "options": {"time_control": bank(86400, 3600, 172800)}}),
        )
        .await
        .expect(201);
    assert_eq!(
        t["options"]["time_control"],
        bank(86400, 3600, 172800),
        "{t}"
    );
    // Playing hours are written back in one form: midnight as the end of a day.
    let given = with_hours(json!({"time_zone": "Europe/Prague", "from": "18:00", "to": "00:00"}));
    let t = app
        .post(
            "/api/v1/tournaments",
            Some(&p.token),
            &json!({"name": "T", "game": "heretics", "format": "swiss", "table_size": 3,
                "options": {"time_control": given}}),
        )
        .await
        .expect(201);
    assert_eq!(
        t["options"]["time_control"]["playing_hours"],
        json!({"time_zone": "Europe/Prague", "from": "18:00", "to": "24:00"}),
        "{t}"
    );
}

#[tokio::test]
async fn banks_and_deadlines_survive_a_restart() {
    let (app, mut process) = spawn_process(&[]).await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"time_control": bank(3600, 60, 7200)}),
        )
        .await;
    for p in &players {
        move_now(&app, &id, p, 0).await;
    }
    // Seat 0 moves in the second (sealed) step; the others still owe theirs.
    move_now(&app, &id, &players[0], 0).await;
    let before = app.match_as(&id, None).await;
    assert_eq!(before["step"], 1);
    let settled = before["seats"][0]["bank_seconds"].as_i64().expect("bank");
    // The real clock ran a little: two increments and almost nothing spent.
    assert!((3600..=3720).contains(&settled), "{before}");
    process.kill();
    let _process = restart_process(&app, &[]).await;

    let after = app.match_as(&id, None).await;
    assert_eq!(after["seats"][0]["bank_seconds"], settled);
    assert_eq!(after["seats"][0]["deadline"], Value::Null);
    for s in 1..3 {
        assert_eq!(
            after["seats"][s]["deadline"], before["seats"][s]["deadline"],
            "seat {s}'s deadline is where it was"
        );
        let left = (at(&after["seats"][s]["deadline"]) - Utc::now()).num_seconds();
        let shown = after["seats"][s]["bank_seconds"].as_i64().expect("bank");
        assert!((shown - left).abs() <= 2, "{after}");
    }
    // The step resolves after the restart, and seat 0 keeps what its move
    // before the restart left it.
    move_now(&app, &id, &players[1], 0).await;
    move_now(&app, &id, &players[2], 0).await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["step"], 2);
    let left = (at(&m["seats"][0]["deadline"]) - Utc::now()).num_seconds();
    assert!((settled - left).abs() <= 2, "{m}");
}

#[tokio::test]
async fn each_open_move_is_charged_to_its_seat_alone_from_when_it_was_asked() {
    // Malacca with its default open betting: every step is one seat's move;
    // the seats not on move keep their banks.
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let (initial, increment, cap) = (300, 20, 330);
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"time_control": bank(initial, increment, cap)}),
        )
        .await;
    let mut expected = [initial; 3];
    let mut step_start = clock.now_utc();
    let mut step = 0;
    let mut kinds = std::collections::HashSet::new();
    for (k, delay) in [7, 31, 2, 45, 13, 1, 24, 9, 16, 3, 40, 5]
        .iter()
        .enumerate()
    {
        let m = app.match_as(&id, None).await;
        if m["status"] != "active" {
            break;
        }
        kinds.insert(m["prompt"]["sealed"].as_bool().expect("sealed"));
        let s = m["prompt"]["awaiting"][0].as_u64().expect("a seat") as usize;
        clock.advance(chrono::Duration::seconds(*delay));
        let mine = app.match_as(&id, Some(&players[s])).await;
        let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
        let mut rng = sealed_orders::games::rng::GameRng::from_key([k as u8; 32]);
        let action = sealed_orders::games::legal::sample(&legal, &mut rng).expect("a move");
        app.submit(&id, &players[s], step, action).await.expect(200);
        let now = clock.now_utc();
        // Its own thinking time: from the start of the step to its move.
        expected[s] = (expected[s] - (now - step_start).num_seconds() + increment).min(cap);
        let m = app.match_as(&id, None).await;
        if m["step"] != step {
            step = m["step"].as_i64().expect("step");
            step_start = now;
            assert_eq!(banks(&m), expected.to_vec(), "after move {k}: {m}");
            for d in m["prompt"]["deadlines"].as_array().expect("deadlines") {
                let seat = d["seat"].as_u64().expect("seat") as usize;
                assert_eq!(
                    at(&d["at"]),
                    now + chrono::Duration::seconds(expected[seat]),
                    "seat {seat} is due its bank from the step's start"
                );
            }
        }
    }
    assert_eq!(kinds, [false].into(), "open steps only");
}

#[tokio::test]
async fn banks_that_run_out_are_played_for_once_by_two_replicas() {
    use crate::replicas::{call, replicas};
    let (settings, _guard) = crate::helpers::test_settings().await;
    if settings.database_schema.is_none() {
        // Several processes share one Postgres; SQLite is one process's database.
        eprintln!("skipped: two replicas need Postgres (TEST_DATABASE_URL)");
        return;
    }
    let (servers, apis) = replicas(&settings, 2, &[("DEADLINE_POLL_MS", "50")]).await;
    let client = reqwest::Client::new();
    let (get, post) = (reqwest::Method::GET, reqwest::Method::POST);
    let mut tokens = Vec::new();
    for (i, name) in ["cyd", "dot"].iter().enumerate() {
        let body = json!({"name": name, "password": "password1"});
        call(
            &client,
            post.clone(),
            format!("{}/players", apis[i]),
            None,
            body.clone(),
        )
        .await;
        let t = call(
            &client,
            post.clone(),
            format!("{}/auth/token", apis[1 - i]),
            None,
            body,
        )
        .await;
        tokens.push(t["access_token"].as_str().expect("token").to_owned());
    }
    let m = call(
        &client,
        post.clone(),
        format!("{}/matches", apis[1]),
        Some(&tokens[0]),
        json!({"game": "malacca", "seats": 2, "options": {"stakes": "sealed",
            "time_control": bank(1, 60, 600)}}),
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
    // Both seats owe a sealed bet with a one-second bank; neither moves. Both
    // replicas poll: each seat times out once, and is played for once.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let events = call(
        &client,
        get.clone(),
        format!("{}/matches/{id}/events?limit=200", apis[1]),
        None,
        Value::Null,
    )
    .await;
    let mut timed_out: Vec<u64> = events["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|e| e["kind"] == "seat_timed_out")
        .map(|e| e["data"]["seat"].as_u64().expect("seat"))
        .collect();
    timed_out.sort_unstable();
    assert_eq!(timed_out, vec![0, 1], "each seat once: {events}");
    let moves = call(
        &client,
        get.clone(),
        format!("{}/matches/{id}/moves?limit=200", apis[0]),
        None,
        Value::Null,
    )
    .await;
    let mut first_step: Vec<i64> = moves["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|mv| mv["step"] == 0)
        .map(|mv| mv["seat"].as_i64().expect("seat"))
        .collect();
    first_step.sort_unstable();
    assert_eq!(first_step, vec![0, 1], "one move per seat: {moves}");
    // The bots' moves earned the increment: both banks are a minute, less
    // what the later steps took.
    let m = call(
        &client,
        get,
        format!("{}/matches/{id}", apis[0]),
        None,
        Value::Null,
    )
    .await;
    for s in banks(&m) {
        assert!((50..=60).contains(&s), "{m}");
    }
    drop(servers);
}

#[tokio::test]
async fn a_poller_keeps_its_304_while_only_the_countdown_runs() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"time_control": bank(600, 60, 900)}),
        )
        .await;
    let path = format!("/api/v1/matches/{id}");
    let read = |tag: Option<String>| {
        let (app, path) = (&app, path.clone());
        async move {
            let headers: Vec<(&str, &str)> = tag
                .as_deref()
                .map(|t| ("If-None-Match", t))
                .into_iter()
                .collect();
            app.send_with_headers(reqwest::Method::GET, &path, None, None, &headers)
                .await
        }
    };
    let first = read(None).await;
    assert_eq!(first.status, 200);
    let tag = first.headers["etag"].to_str().expect("ascii").to_owned();
    assert_eq!(first.json()["seats"][0]["seconds_remaining"], 600);

    // Ten seconds on, the countdown has run but nothing happened: 304.
    clock.advance(chrono::Duration::seconds(10));
    let later = read(Some(tag.clone())).await;
    assert_eq!(later.status, 304, "{}", later.text);
    let fresh = read(None).await;
    let doc = fresh.json();
    assert_eq!(doc["seats"][0]["seconds_remaining"], 590);
    assert_eq!(doc["seats"][0]["bank_seconds"], 590);
    assert_eq!(fresh.headers["etag"].to_str().expect("ascii"), tag);

    // A move changes the document beyond its countdown: a new tag.
    move_now(&app, &id, &players[0], 0).await;
    let moved = read(Some(tag.clone())).await;
    assert_eq!(moved.status, 200);
    assert_ne!(moved.headers["etag"].to_str().expect("ascii"), tag);
}

#[tokio::test]
async fn a_bank_with_playing_hours_stands_at_night() {
    // Tokyo keeps no summer time, so the local hours below are the same
    // instants whenever the test runs.
    let tokyo: chrono_tz::Tz = "Asia/Tokyo".parse().expect("zone");
    let (app, clock) = spawn_app_with(|s| {
        s.deadline_poll_ms = 20;
        s.jwt_ttl_seconds = 7 * 24 * 3600;
    })
    .await;
    let today = clock.now_utc().with_timezone(&tokyo).date_naive();
    let local = |day: i64, h: u32, m: u32| {
        use chrono::TimeZone;
        let date = today + chrono::Duration::days(day);
        tokyo
            .from_local_datetime(&date.and_hms_opt(h, m, 0).expect("time"))
            .single()
            .expect("no clock change in Tokyo")
            .with_timezone(&Utc)
    };
    // Day 1 and day 2 are tomorrow and the day after, in Tokyo.
    let go = |to: chrono::DateTime<Utc>| {
        let now = clock.now_utc();
        assert!(to >= now);
        clock.advance(to - now);
    };
    go(local(1, 20, 30));
    let players = app.players(3).await;
    let hours = json!({"time_zone": "Asia/Tokyo", "from": "08:00", "to": "22:00"});
    let mut tc = bank(3 * 3600, 3600, 5 * 3600);
    tc["playing_hours"] = hours.clone();
    let id = app
        .started_match(&players, "heretics", json!({"time_control": tc}))
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(
        m["options"]["time_control"], tc,
        "the options show the hours"
    );
    // Three hours of bank at 20:30: an hour and a half tonight, the rest from
    // eight in the morning.
    for s in 0..3 {
        assert_eq!(at(&m["seats"][s]["deadline"]), local(2, 9, 30), "{m}");
        assert_eq!(m["seats"][s]["seconds_remaining"], 13 * 3600);
        assert_eq!(m["seats"][s]["bank_seconds"], 3 * 3600);
    }

    // 23:30: the banks stopped at 22:00.
    go(local(1, 23, 30));
    tokio::time::sleep(Duration::from_millis(150)).await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["step"], 0);
    assert_eq!(banks(&m), vec![5400; 3], "only 20:30 to 22:00 was charged");
    assert_eq!(m["seats"][0]["seconds_remaining"], 10 * 3600);
    move_now(&app, &id, &players[0], 0).await;
    move_now(&app, &id, &players[1], 0).await;

    // 08:20 the next morning: seat 2 thought 1 h 30 min at night and 20 min now.
    go(local(2, 8, 20));
    let m = app.match_as(&id, None).await;
    assert_eq!(m["seats"][2]["bank_seconds"], 3 * 3600 - 5400 - 1200);
    move_now(&app, &id, &players[2], 0).await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["step"], 1);
    assert_eq!(
        banks(&m),
        vec![9000, 9000, 7800],
        "charged, then the increment"
    );
    assert_eq!(at(&m["seats"][0]["deadline"]), local(2, 10, 50));
    assert_eq!(at(&m["seats"][1]["deadline"]), local(2, 10, 50));
    assert_eq!(at(&m["seats"][2]["deadline"]), local(2, 10, 30));

    go(local(2, 10, 29));
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(
        crate::timed::events_of_kind(&app, &id, "seat_timed_out")
            .await
            .len(),
        0
    );
    go(local(2, 10, 31));
    let m = wait_for(&app, &id, "seat 2 out of time", |m| {
        m["seats"][2]["presence"] == "absent"
    })
    .await;
    assert_eq!(m["seats"][0]["presence"], "present");
    assert_eq!(m["seats"][0]["bank_seconds"], 9000 - (2 * 3600 + 11 * 60));
    let timed_out = crate::timed::events_of_kind(&app, &id, "seat_timed_out").await;
    assert_eq!(timed_out.len(), 1, "{timed_out:?}");
    assert_eq!(timed_out[0]["data"]["seat"], 2);
}
