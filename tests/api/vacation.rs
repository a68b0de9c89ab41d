//! Vacations: every clock of the player's seats stands while it is away, the
//! other seats are told, the lobby does not seat it, and coming back early
//! runs the clocks again and returns the days not taken. Tests move the
//! service's clock.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app_with, spawn_app_with_manual_clock};
use crate::timed::{at, events_of_kind, move_first};

async fn vacation(app: &TestApp, p: &Player, days: Value) -> crate::helpers::Reply {
    app.post(
        "/api/v1/players/me/vacation",
        Some(&p.token),
        &json!({ "days": days }),
    )
    .await
}

async fn come_back(app: &TestApp, p: &Player) -> crate::helpers::Reply {
    app.send(
        reqwest::Method::DELETE,
        "/api/v1/players/me/vacation",
        Some(&p.token),
        None,
    )
    .await
}

#[tokio::test]
async fn a_vacation_stops_every_clock_of_the_player_until_it_comes_back() {
    // The players' tokens outlive the days the clock is moved on.
    let (app, clock) = spawn_app_with(|s| {
        s.deadline_poll_ms = 20;
        s.jwt_ttl_seconds = 7 * 24 * 3600;
    })
    .await;
    let players = app.players(3).await;
    let t0 = clock.now_utc();
    let banked = app
        .started_match(
            &players,
            "heretics",
            json!({"time_control": {"kind": "bank", "initial_seconds": 600}}),
        )
        .await;
    let per_move = app
        .started_match(&players, "heretics", json!({"move_time_limit": 300}))
        .await;
    for id in [&banked, &per_move] {
        move_first(&app, id, &players[0]).await;
        move_first(&app, id, &players[1]).await;
    }
    let day = chrono::Duration::days(1);

    // 100 s into the step, seat 2's player leaves for two days.
    clock.advance(chrono::Duration::seconds(100));
    let left_at = clock.now_utc();
    let v = vacation(&app, &players[2], json!(2)).await.expect(200);
    assert_eq!(at(&v["current"]["ends_at"]), left_at + day * 2);
    assert_eq!(v["days_per_year"], 30);
    assert_eq!(v["days_used"], 2);
    assert_eq!(v["days_left"], 28);
    let m = app.match_as(&banked, None).await;
    assert_eq!(at(&m["seats"][2]["away_until"]), left_at + day * 2);
    assert_eq!(
        m["seats"][2]["bank_seconds"], 500,
        "100 s thought, the rest stands"
    );
    assert_eq!(
        at(&m["seats"][2]["deadline"]),
        t0 + chrono::Duration::seconds(600) + day * 2
    );
    assert_eq!(m["seats"][0]["away_until"], Value::Null);
    let m = app.match_as(&per_move, None).await;
    assert_eq!(
        at(&m["seats"][2]["deadline"]),
        t0 + chrono::Duration::seconds(300) + day * 2
    );
    for id in [&banked, &per_move] {
        let told = events_of_kind(&app, id, "seat_on_vacation").await;
        assert_eq!(told.len(), 1, "{told:?}");
        assert_eq!(told[0]["data"]["seat"], 2);
        assert_eq!(at(&told[0]["data"]["until"]), left_at + day * 2);
    }

    // A day on, nothing timed out and the bank stands.
    clock.advance(day);
    tokio::time::sleep(Duration::from_millis(150)).await;
    let m = app.match_as(&banked, None).await;
    assert_eq!(m["step"], 0);
    assert_eq!(m["seats"][2]["bank_seconds"], 500);
    assert_eq!(m["seats"][2]["presence"], "present");
    assert_eq!(app.match_as(&per_move, None).await["step"], 0);

    // While away: no new match seats the player, and no second vacation.
    let waiting = app
        .create_match(&players[0], &json!({"game": "heretics", "seats": 3}))
        .await;
    let version = app.match_as(&waiting, None).await["version"].clone();
    app.post(
        &format!("/api/v1/matches/{waiting}/join"),
        Some(&players[2].token),
        &json!({}),
    )
    .await
    .problem(409, "on_vacation");
    assert_eq!(app.match_as(&waiting, None).await["version"], version);
    vacation(&app, &players[2], json!(1))
        .await
        .problem(409, "on_vacation");

    // Back after a day: a day taken, the rest returned; the clocks run again
    // from where they stood.
    let back_at = clock.now_utc();
    let v = come_back(&app, &players[2]).await.expect(200);
    assert_eq!(v["current"], Value::Null);
    assert_eq!(v["days_used"], 1);
    assert_eq!(v["days_left"], 29);
    let m = app.match_as(&banked, None).await;
    assert_eq!(m["seats"][2]["away_until"], Value::Null);
    assert_eq!(m["seats"][2]["bank_seconds"], 500);
    assert_eq!(
        at(&m["seats"][2]["deadline"]),
        back_at + chrono::Duration::seconds(500)
    );
    let m = app.match_as(&per_move, None).await;
    assert_eq!(
        at(&m["seats"][2]["deadline"]),
        back_at + chrono::Duration::seconds(200)
    );
    for id in [&banked, &per_move] {
        assert_eq!(
            events_of_kind(&app, id, "seat_back_from_vacation")
                .await
                .len(),
            1
        );
    }
    come_back(&app, &players[2])
        .await
        .problem(409, "not_on_vacation");

    // It thinks 50 s more: charged 150 s in all.
    clock.advance(chrono::Duration::seconds(50));
    move_first(&app, &banked, &players[2]).await;
    let m = app.match_as(&banked, None).await;
    assert_eq!(m["step"], 1);
    assert_eq!(m["seats"][2]["bank_seconds"], 450);
    let turns = app
        .get("/api/v1/players/me/turns", Some(&players[2].token))
        .await
        .expect(200);
    let owed: Vec<&Value> = turns["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|t| t["match_id"] == json!(per_move))
        .collect();
    assert!(!owed.is_empty(), "the per-move match is a turn: {turns}");
    assert_eq!(
        at(&owed[0]["deadline"]),
        back_at + chrono::Duration::seconds(200)
    );
}

#[tokio::test]
async fn a_vacation_is_a_whole_number_of_days_within_the_allowance() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let p = app.player("traveller").await;
    let v = app
        .get("/api/v1/players/me/vacation", Some(&p.token))
        .await
        .expect(200);
    assert_eq!(
        v,
        json!({"current": null, "days_per_year": 30, "days_used": 0, "days_left": 30})
    );
    for days in [json!(0), json!(-1), json!(31), json!(100000)] {
        vacation(&app, &p, days)
            .await
            .problem(422, "invalid_vacation");
    }
    for body in [
        json!({"days": "3"}),
        json!({"days": 1.5}),
        json!({}),
        json!({"days": 1, "from": "now"}),
    ] {
        app.post("/api/v1/players/me/vacation", Some(&p.token), &body)
            .await
            .problem(422, "invalid_body");
    }
    app.post("/api/v1/players/me/vacation", None, &json!({"days": 1}))
        .await
        .problem(401, "unauthorized");
    come_back(&app, &p).await.problem(409, "not_on_vacation");
    let v = app
        .get("/api/v1/players/me/vacation", Some(&p.token))
        .await
        .expect(200);
    assert_eq!(v["days_used"], 0, "nothing was taken");
    vacation(&app, &p, json!(30)).await.expect(200);
}

/// The clocks issue's walk: a banked match with sealed steps, played through
/// two replicas that read one moved clock, with an extension and a vacation;
/// every seat's bank after each step against the sums worked by hand.
#[tokio::test]
async fn a_banked_match_with_an_extension_and_a_vacation_through_two_replicas() {
    let (a, clock) = spawn_app_with(|s| {
        s.deadline_poll_ms = 20;
        s.jwt_ttl_seconds = 7 * 24 * 3600;
        // Two replicas: each reads through the database, not what it keeps.
        s.replica_silence_ms = 30_000;
    })
    .await;
    if a.settings.database_schema.is_none() {
        eprintln!("skipped: two replicas need Postgres (TEST_DATABASE_URL)");
        return;
    }
    let b = crate::helpers::another_replica_with_clock(&a, clock.clone()).await;
    let players = a.players(3).await;
    let id = a
        .started_match(
            &players,
            "heretics",
            json!({"time_control": {"kind": "bank", "initial_seconds": 3600, "increment_seconds": 600, "cap_seconds": 10000}}),
        )
        .await;
    let replicas = [&a, &b];
    let at_offset = |start: DateTime<Utc>, secs: i64| {
        let now = clock.now_utc();
        clock.advance(start + chrono::Duration::seconds(secs) - now);
    };
    let banks_on_both = |step: i64, expected: [i64; 3]| {
        let id = id.clone();
        async move {
            for app in replicas {
                let m = app.match_as(&id, None).await;
                assert_eq!(m["step"], step, "{m}");
                let banks: Vec<i64> = m["seats"]
                    .as_array()
                    .expect("seats")
                    .iter()
                    .map(|s| s["bank_seconds"].as_i64().expect("a bank"))
                    .collect();
                assert_eq!(banks, expected.to_vec(), "on {}", app.address);
            }
        }
    };

    // Step 0: each seat charged its own thinking time, plus 600.
    let t0 = clock.now_utc();
    at_offset(t0, 100);
    move_first(&a, &id, &players[0]).await;
    at_offset(t0, 300);
    move_first(&b, &id, &players[1]).await;
    at_offset(t0, 500);
    move_first(&a, &id, &players[2]).await;
    banks_on_both(1, [3600 - 100 + 600, 3600 - 300 + 600, 3600 - 500 + 600]).await;

    // Step 1: seat 1 gives seat 2 1,000 s (into its bank); seats 0 and 1 move;
    // seat 2's player leaves at 200 s for a day and comes back after 12 h;
    // it moves 300 s later: 500 s charged.
    let t1 = clock.now_utc();
    b.post(
        &format!("/api/v1/matches/{id}/extensions"),
        Some(&players[1].token),
        &json!({"seat": 2, "seconds": 1000}),
    )
    .await
    .expect(200);
    at_offset(t1, 50);
    move_first(&a, &id, &players[0]).await;
    at_offset(t1, 100);
    move_first(&b, &id, &players[1]).await;
    at_offset(t1, 200);
    vacation(&a, &players[2], json!(1)).await.expect(200);
    at_offset(t1, 200 + 12 * 3600);
    tokio::time::sleep(Duration::from_millis(150)).await;
    for app in replicas {
        let m = app.match_as(&id, None).await;
        assert_eq!(m["step"], 1, "no replica played for the seat on vacation");
        assert_eq!(m["seats"][2]["bank_seconds"], 3700 + 1000 - 200);
        assert_eq!(
            at(&m["seats"][2]["away_until"]),
            t1 + chrono::Duration::seconds(200) + chrono::Duration::days(1)
        );
    }
    come_back(&b, &players[2]).await.expect(200);
    at_offset(t1, 200 + 12 * 3600 + 300);
    move_first(&b, &id, &players[2]).await;
    banks_on_both(
        2,
        [4100 - 50 + 600, 3900 - 100 + 600, 3700 + 1000 - 500 + 600],
    )
    .await;

    // Step 2: the deadlines both replicas derive are the banks from now.
    let t2 = clock.now_utc();
    for app in replicas {
        let m = app.match_as(&id, None).await;
        for (seat, bank) in [4650, 4400, 4800].into_iter().enumerate() {
            assert_eq!(
                at(&m["seats"][seat]["deadline"]),
                t2 + chrono::Duration::seconds(bank),
                "seat {seat} on {}",
                app.address
            );
        }
    }
    for (kind, n) in [
        ("seat_extended", 1),
        ("seat_on_vacation", 1),
        ("seat_back_from_vacation", 1),
        ("seat_timed_out", 0),
    ] {
        assert_eq!(events_of_kind(&a, &id, kind).await.len(), n, "{kind}");
    }
}
