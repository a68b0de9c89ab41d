//! Extensions: a seat gives another that owes a move more time (into its bank,
//! or on top of its limit for the step), and a match's grace extensions are
//! taken before its timeout policy applies. Tests move the service's clock.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app_with, spawn_app_with_manual_clock};
use crate::timed::{at, events_of_kind, move_first, wait_for};

async fn extend(
    app: &TestApp,
    id: &str,
    by: &Player,
    seat: i64,
    seconds: i64,
) -> crate::helpers::Reply {
    app.post(
        &format!("/api/v1/matches/{id}/extensions"),
        Some(&by.token),
        &json!({"seat": seat, "seconds": seconds}),
    )
    .await
}

#[tokio::test]
async fn a_seat_gives_a_thinking_seat_time_for_this_step_under_a_per_move_clock() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(&players, "heretics", json!({"move_time_limit": 300}))
        .await;
    let start = clock.now_utc();
    move_first(&app, &id, &players[2]).await;

    let m = extend(&app, &id, &players[1], 0, 3600).await.expect(200);
    assert_eq!(
        at(&m["seats"][0]["deadline"]),
        start + chrono::Duration::seconds(3900),
        "the limit for the step and the time given"
    );
    assert_eq!(
        at(&m["seats"][1]["deadline"]),
        start + chrono::Duration::seconds(300),
        "the giver's own deadline stands"
    );
    let given = events_of_kind(&app, &id, "seat_extended").await;
    assert_eq!(given.len(), 1);
    assert_eq!(given[0]["data"]["seat"], 0);
    assert_eq!(given[0]["data"]["by"], 1);
    assert_eq!(given[0]["data"]["seconds"], 3600);
    assert_eq!(given[0]["data"]["graces_left"], Value::Null);
    assert_eq!(
        at(&given[0]["data"]["deadline"]),
        start + chrono::Duration::seconds(3900)
    );

    // Refused, and nothing changes: one's own seat, a seat that moved, a seat
    // that is not there, out-of-range seconds, a caller who holds no seat.
    let version = app.match_as(&id, None).await["version"].clone();
    extend(&app, &id, &players[0], 0, 60)
        .await
        .problem(409, "own_seat");
    extend(&app, &id, &players[0], 2, 60)
        .await
        .problem(409, "seat_not_awaited");
    extend(&app, &id, &players[0], 7, 60)
        .await
        .problem(422, "invalid_extension");
    extend(&app, &id, &players[0], -1, 60)
        .await
        .problem(422, "invalid_extension");
    for seconds in [0, -5, 604_801] {
        extend(&app, &id, &players[0], 1, seconds)
            .await
            .problem(422, "invalid_extension");
    }
    let outsider = app.player("outsider").await;
    extend(&app, &id, &outsider, 0, 60)
        .await
        .problem(403, "not_seated");
    app.post(
        &format!("/api/v1/matches/{id}/extensions"),
        None,
        &json!({"seat": 0, "seconds": 60}),
    )
    .await
    .problem(401, "unauthorized");
    app.post(
        &format!("/api/v1/matches/{id}/extensions"),
        Some(&players[1].token),
        &json!({"seat": 0, "seconds": 60, "extra": true}),
    )
    .await
    .problem(422, "invalid_body");
    assert_eq!(
        app.match_as(&id, None).await["version"],
        version,
        "nothing changed"
    );

    // Seat 1 would have timed out at 300 s; seat 0 still thinks at 301 s.
    clock.advance(chrono::Duration::seconds(299));
    move_first(&app, &id, &players[1]).await;
    clock.advance(chrono::Duration::seconds(2));
    tokio::time::sleep(Duration::from_millis(150)).await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["step"], 0, "no bot moved for the extended seat: {m}");
    assert_eq!(m["seats"][0]["presence"], "present");

    // The extension was for that step: the next one has the plain limit.
    move_first(&app, &id, &players[0]).await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["step"], 1);
    assert_eq!(
        at(&m["seats"][0]["deadline"]),
        clock.now_utc() + chrono::Duration::seconds(300)
    );
}

#[tokio::test]
async fn time_given_under_a_bank_goes_into_the_bank() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"time_control": {"kind": "bank", "initial_seconds": 600, "increment_seconds": 0, "cap_seconds": 900}}),
        )
        .await;
    clock.advance(chrono::Duration::seconds(100));
    let m = extend(&app, &id, &players[2], 1, 500).await.expect(200);
    assert_eq!(
        m["seats"][1]["bank_seconds"], 1000,
        "600 - 100 + 500: above the cap until the seat's next move"
    );
    assert_eq!(m["seats"][0]["bank_seconds"], 500);
    for p in &players {
        move_first(&app, &id, p).await;
    }
    let m = app.match_as(&id, None).await;
    assert_eq!(m["step"], 1);
    // Its move took 100 s of its 1,100: the cap then cuts what lies above it.
    assert_eq!(m["seats"][1]["bank_seconds"], 900);
    assert_eq!(m["seats"][0]["bank_seconds"], 500);
}

#[tokio::test]
async fn grace_extensions_come_before_the_timeout_policy() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"move_time_limit": 60, "grace_extensions": 2, "grace_seconds": 30}),
        )
        .await;
    let start = clock.now_utc();
    let m = app.match_as(&id, None).await;
    assert_eq!(m["options"]["grace_extensions"], 2);
    assert_eq!(m["options"]["grace_seconds"], 30);
    assert_eq!(m["seats"][2]["graces_left"], 2);
    move_first(&app, &id, &players[0]).await;
    move_first(&app, &id, &players[1]).await;

    // Two graces of 30 s, each counted from the deadline that passed.
    for (n, deadline) in [(1, 90), (2, 120)] {
        let now = clock.now_utc();
        clock.advance(start + chrono::Duration::seconds(deadline - 29) - now);
        let m = wait_for(&app, &id, "a grace", |m| {
            m["seats"][2]["graces_left"] == 2 - n
        })
        .await;
        assert_eq!(m["step"], 0, "no move was played for the seat");
        assert_eq!(m["seats"][2]["presence"], "present");
        assert_eq!(
            at(&m["seats"][2]["deadline"]),
            start + chrono::Duration::seconds(deadline)
        );
    }
    let graces = events_of_kind(&app, &id, "seat_extended").await;
    assert_eq!(graces.len(), 2, "{graces:?}");
    assert_eq!(graces[0]["data"]["by"], Value::Null);
    assert_eq!(graces[0]["data"]["graces_left"], 1);
    assert_eq!(graces[1]["data"]["graces_left"], 0);
    assert!(events_of_kind(&app, &id, "seat_timed_out").await.is_empty());

    // The graces spent, the policy applies: a bot moves for the absent seat.
    clock.advance(chrono::Duration::seconds(31));
    let m = wait_for(&app, &id, "the bot's move", |m| m["step"] == 1).await;
    assert_eq!(m["seats"][2]["presence"], "absent");
    assert_eq!(events_of_kind(&app, &id, "seat_timed_out").await.len(), 1);
    assert_eq!(
        events_of_kind(&app, &id, "seat_extended").await.len(),
        2,
        "graces are per match, not per step"
    );
}

#[tokio::test]
async fn a_grace_under_a_bank_is_one_initial_allowance_by_default() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"time_control": {"kind": "bank", "initial_seconds": 120}, "grace_extensions": 1}),
        )
        .await;
    let m = app.match_as(&id, None).await;
    assert_eq!(m["options"]["grace_seconds"], 120);
    move_first(&app, &id, &players[0]).await;
    move_first(&app, &id, &players[1]).await;
    clock.advance(chrono::Duration::seconds(121));
    let m = wait_for(&app, &id, "the grace", |m| {
        m["seats"][2]["graces_left"] == 0
    })
    .await;
    assert_eq!(m["step"], 0);
    assert_eq!(
        m["seats"][2]["bank_seconds"], 119,
        "its spent bank and the grace, one second run"
    );
}

#[tokio::test]
async fn bad_grace_options_and_extensions_without_a_clock_are_refused() {
    let (app, _clock) = spawn_app_with(|s| s.rate_limit_matches_per_min = 0).await;
    let players = app.players(3).await;
    for options in [
        json!({"grace_extensions": 1}),
        json!({"move_time_limit": 60, "grace_extensions": 11}),
        json!({"move_time_limit": 60, "grace_extensions": -1}),
        json!({"move_time_limit": 60, "grace_extensions": "2"}),
        json!({"move_time_limit": 60, "grace_seconds": 30}),
        json!({"move_time_limit": 60, "grace_extensions": 0, "grace_seconds": 30}),
        json!({"move_time_limit": 60, "grace_extensions": 1, "grace_seconds": 0}),
    ] {
        let problem = app
            .post(
                "/api/v1/matches",
                Some(&players[0].token),
                &json!({"game": "heretics", "seats": 3, "options": options}),
            )
            .await
            .problem(422, "invalid_options");
        assert!(
            problem["detail"]
                .as_str()
                .is_some_and(|d| d.contains("grace")),
            "the detail names the option: {problem}"
        );
    }
    let id = app.started_match(&players, "heretics", json!({})).await;
    extend(&app, &id, &players[1], 0, 60)
        .await
        .problem(409, "no_clock");
}
