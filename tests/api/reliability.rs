//! Reliability: each player's public record of deadlines met against deadlines
//! owed in matches with a clock, on its page and in its statistics, and the
//! minimum a match (or a tournament's matches) may ask of a joiner. The clock
//! is moved, never slept on.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app_with_manual_clock};

/// The first legal move of `p`'s seat, submitted at the current step.
async fn move_now(app: &TestApp, id: &str, p: &Player) {
    let m = app.match_as(id, Some(p)).await;
    let prompt = &m["prompt"];
    assert_eq!(prompt["your_turn"], true, "{m}");
    let step = prompt["step"].as_i64().expect("step");
    let action = prompt["legal"][0].clone();
    app.submit(id, p, step, action).await.expect(200);
}

/// Reads the match until its step is `step` (the deadline poller runs every 20 ms).
async fn wait_for_step(app: &TestApp, id: &str, step: i64) -> Value {
    for _ in 0..250 {
        let m = app.match_as(id, None).await;
        if m["step"] == step {
            return m;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the match never reached step {step}");
}

async fn reliability_of(app: &TestApp, name: &str) -> Value {
    app.get(&format!("/api/v1/players/{name}"), None)
        .await
        .expect(200)["reliability"]
        .clone()
}

/// Whether `seat` owes a move now, as `p` reads the match.
async fn awaited(app: &TestApp, id: &str, p: &Player, seat: usize) -> bool {
    let m = app.match_as(id, Some(p)).await;
    m["status"] == "active"
        && m["prompt"]["awaiting"]
            .as_array()
            .is_some_and(|a| a.contains(&json!(seat)))
}

#[tokio::test]
async fn a_player_who_moves_in_time_then_times_out_has_met_one_deadline_of_two() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(&players, "heretics", json!({"move_time_limit": 60}))
        .await;
    assert_eq!(app.match_as(&id, None).await["prompt"]["sealed"], true);

    // Step 0: everybody moves in time.
    for p in &players {
        move_now(&app, &id, p).await;
    }
    wait_for_step(&app, &id, 1).await;
    // Step 1: seat 2 runs out of time; a bot moves for it, and it is absent.
    move_now(&app, &id, &players[0]).await;
    move_now(&app, &id, &players[1]).await;
    clock.advance(chrono::Duration::seconds(61));
    let m = wait_for_step(&app, &id, 2).await;
    assert_eq!(m["seats"][2]["presence"], "absent");
    // Step 2: the bot moves for the absent seat again: nobody's deadline.
    move_now(&app, &id, &players[0]).await;
    move_now(&app, &id, &players[1]).await;
    clock.advance(chrono::Duration::seconds(11));
    wait_for_step(&app, &id, 3).await;

    let r = reliability_of(&app, "player2").await;
    assert_eq!(r["met"], 1, "{r}");
    assert_eq!(r["owed"], 2, "{r}");
    assert_eq!(r["ratio"], 0.5, "{r}");
    assert_eq!(r["window_days"], 180);
    assert_eq!(
        r["by_game"],
        json!([{"game": "heretics", "met": 1, "owed": 2, "ratio": 0.5}])
    );
    let r = reliability_of(&app, "player0").await;
    assert_eq!((r["met"].clone(), r["owed"].clone()), (json!(3), json!(3)));
    assert_eq!(r["ratio"], 1.0);

    // The statistics show the same record.
    let stats = app
        .get("/api/v1/players/player2/stats", None)
        .await
        .expect(200);
    assert_eq!(stats["reliability"], reliability_of(&app, "player2").await);
}

#[tokio::test]
async fn a_match_without_a_clock_counts_for_nothing() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "heretics", json!({})).await;
    for p in &players {
        move_now(&app, &id, p).await;
    }
    wait_for_step(&app, &id, 1).await;
    let r = reliability_of(&app, "player0").await;
    assert_eq!(
        r,
        json!({"met": 0, "owed": 0, "ratio": null, "window_days": 180,
            "provisional_below": 10, "by_game": []})
    );
}

#[tokio::test]
async fn a_bot_seat_and_a_private_match_add_nothing_and_old_deadlines_leave_the_window() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let alice = app.player("alice").await;
    // With a bot seat: only alice's own move counts, for her.
    let id = app
        .create_match(
            &alice,
            &json!({"game": "heretics", "seats": 3, "bots": ["random", "random"],
                "options": {"move_time_limit": 60}}),
        )
        .await;
    let mut moved = 0;
    for _ in 0..3 {
        if awaited(&app, &id, &alice, 0).await {
            move_now(&app, &id, &alice).await;
            moved += 1;
        }
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    assert!(moved > 0, "alice was asked to move");
    let r = reliability_of(&app, "alice").await;
    assert_eq!(r["met"], moved, "{r}");
    assert_eq!(r["owed"], moved, "{r}");
    // A private match counts nowhere public.
    let private = app
        .create_match(
            &alice,
            &json!({"game": "heretics", "seats": 3, "bots": ["random", "random"], "visibility": "private",
                "options": {"move_time_limit": 60}}),
        )
        .await;
    if awaited(&app, &private, &alice, 0).await {
        move_now(&app, &private, &alice).await;
    }
    assert_eq!(reliability_of(&app, "alice").await, r);

    // Half a year and a day on, nothing is in the window any more (alice
    // resigns first, or her open deadlines would time out at once).
    for m in [&id, &private] {
        app.post(
            &format!("/api/v1/matches/{m}/resign"),
            Some(&alice.token),
            &json!({}),
        )
        .await
        .expect(200);
    }
    clock.advance(chrono::Duration::days(181));
    let r = reliability_of(&app, "alice").await;
    assert_eq!((r["met"].clone(), r["owed"].clone()), (json!(0), json!(0)));
    assert_eq!(r["ratio"], Value::Null);
}

#[tokio::test]
async fn a_joiner_below_the_minimum_is_refused_and_nothing_changes() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let newcomer = app.player("newcomer").await;
    // Deadlines until player2 owes ten, one of them missed.
    let mut id = app
        .started_match(&players, "heretics", json!({"move_time_limit": 60}))
        .await;
    loop {
        let owed = reliability_of(&app, "player2").await["owed"]
            .as_i64()
            .expect("owed");
        if owed >= 10 {
            break;
        }
        let m = app.match_as(&id, None).await;
        if m["status"] != "active" {
            id = app
                .started_match(&players, "heretics", json!({"move_time_limit": 60}))
                .await;
            continue;
        }
        let step = m["step"].as_i64().expect("step");
        let awaiting: Vec<usize> = m["prompt"]["awaiting"]
            .as_array()
            .expect("awaiting")
            .iter()
            .map(|s| s.as_u64().expect("seat") as usize)
            .collect();
        let miss = owed == 9 && awaiting.contains(&2);
        for seat in awaiting {
            if !(miss && seat == 2) {
                move_now(&app, &id, &players[seat]).await;
            }
        }
        if miss {
            clock.advance(chrono::Duration::seconds(61));
        }
        wait_for_step(&app, &id, step + 1).await;
    }
    let r = reliability_of(&app, "player2").await;
    assert_eq!(r["owed"], 10, "{r}");
    assert_eq!(r["met"], 9, "{r}");

    let strict = app
        .create_match(
            &players[0],
            &json!({"game": "malacca", "seats": 3, "options": {"min_reliability": 0.95}}),
        )
        .await;
    assert_eq!(
        app.match_as(&strict, None).await["options"]["min_reliability"],
        0.95,
        "the options show the minimum"
    );
    let before = app.match_as(&strict, None).await;
    let problem = app
        .post(
            &format!("/api/v1/matches/{strict}/join"),
            Some(&players[2].token),
            &json!({}),
        )
        .await
        .problem(409, "reliability_too_low");
    assert_eq!(problem["ratio"], 0.9, "{problem}");
    assert_eq!(problem["minimum"], 0.95, "{problem}");
    let after = app.match_as(&strict, None).await;
    assert_eq!(after["version"], before["version"], "nothing changed");
    assert_eq!(after["seats"], before["seats"]);
    // A newcomer's record is too short to judge; player1 met every deadline.
    for p in [&newcomer, &players[1]] {
        app.post(
            &format!("/api/v1/matches/{strict}/join"),
            Some(&p.token),
            &json!({}),
        )
        .await
        .expect(200);
    }
}

#[tokio::test]
async fn a_bad_minimum_is_refused_by_matches_and_tournaments() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("owner").await;
    for bad in [json!(1.5), json!(-0.1), json!("high"), json!(true)] {
        let problem = app
            .post(
                "/api/v1/matches",
                Some(&owner.token),
                &json!({"game": "malacca", "seats": 2, "options": {"min_reliability": bad}}),
            )
            .await
            .problem(422, "invalid_options");
        assert!(
            problem["detail"]
                .as_str()
                .is_some_and(|d| d.contains("min_reliability")),
            "{problem}"
        );
        app.post(
            "/api/v1/tournaments",
            Some(&owner.token),
            &json!({"name": "T", "game": "malacca", "format": "swiss",
                "options": {"min_reliability": bad}}),
        )
        .await
        .problem(422, "invalid_options");
    }
    let lobby = app.get("/api/v1/matches", None).await.expect(200);
    assert_eq!(lobby["items"], json!([]), "nothing was stored");

    // A tournament keeps the minimum for its matches, and asks it at entry.
    let t = app
        .post(
            "/api/v1/tournaments",
            Some(&owner.token),
            &json!({"name": "T", "game": "malacca", "format": "swiss",
                "options": {"min_reliability": 0.8, "move_time_limit": 3600}}),
        )
        .await
        .expect(201);
    assert_eq!(t["options"]["min_reliability"], 0.8, "{t}");
    let id = t["id"].as_str().expect("id");
    let newcomer = app.player("newcomer").await;
    app.post(
        &format!("/api/v1/tournaments/{id}/join"),
        Some(&newcomer.token),
        &json!({}),
    )
    .await
    .expect(200);
}
