//! Tournaments: round robin and Swiss, played to the end by the server's bots.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, feed_kinds, spawn_app, spawn_app_with, spawn_app_with_manual_clock,
};

/// The quickest game for bots to play to the end.
const GAME: &str = "malacca";

async fn create(app: &TestApp, owner: &Player, body: Value) -> Value {
    app.post("/api/v1/tournaments", Some(&owner.token), &body)
        .await
        .expect(201)
}

fn id_of(t: &Value) -> String {
    t["id"].as_str().expect("id").to_owned()
}

async fn add_bots(app: &TestApp, owner: &Player, id: &str, count: usize) -> Value {
    app.post(
        &format!("/api/v1/tournaments/{id}/bots"),
        Some(&owner.token),
        &json!({"kind": "random", "count": count}),
    )
    .await
    .expect(200)
}

/// Creates a tournament, enters `bots` random bots and starts it.
async fn started(app: &TestApp, owner: &Player, body: Value, bots: usize) -> (String, Value) {
    let id = id_of(&create(app, owner, body).await);
    add_bots(app, owner, &id, bots).await;
    let t = act(app, owner, &id, "start").await.expect(200);
    (id, t)
}

async fn act(app: &TestApp, who: &Player, id: &str, action: &str) -> crate::helpers::Reply {
    app.post(
        &format!("/api/v1/tournaments/{id}/{action}"),
        Some(&who.token),
        &json!({}),
    )
    .await
}

/// Polls the tournament until `done` holds (generously: the machine is shared).
async fn wait_for(app: &TestApp, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..6000 {
        let t = app
            .get(&format!("/api/v1/tournaments/{id}"), None)
            .await
            .expect(200);
        if done(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("waited in vain for {what}");
}

async fn finished(app: &TestApp, id: &str) -> Value {
    wait_for(app, id, "the tournament to finish", |t| {
        t["status"] == "finished"
    })
    .await
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("array")
        .iter()
        .map(|p| p["name"].as_str().expect("name").to_owned())
        .collect()
}

/// Every table of the tournament, as (round, names in seat order).
fn tables(t: &Value) -> Vec<(i64, Vec<String>)> {
    let mut out = Vec::new();
    for r in t["schedule"].as_array().expect("schedule") {
        for table in r["tables"].as_array().expect("tables") {
            let seats: Vec<String> = table["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .map(|s| s["player"]["name"].as_str().expect("name").to_owned())
                .collect();
            out.push((r["round"].as_i64().expect("round"), seats));
        }
    }
    out
}

fn key(x: &Value) -> i64 {
    (x.as_f64().expect("a number") * 1e6).round() as i64
}

/// Standings are sorted by points, then Buchholz, Sonneborn–Berger, wins.
fn assert_sorted(t: &Value) {
    let lines = t["standings"].as_array().expect("standings");
    for pair in lines.windows(2) {
        let k = |l: &Value| {
            (
                key(&l["points"]),
                key(&l["buchholz"]),
                key(&l["sonneborn_berger"]),
                l["wins"].as_i64().expect("wins"),
            )
        };
        assert!(k(&pair[0]) >= k(&pair[1]), "{} before {}", pair[0], pair[1]);
    }
}

#[tokio::test]
async fn a_swiss_tournament_of_64_bots_runs_to_the_end_without_rematches() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("organiser").await;
    let clock_start = std::time::Instant::now();
    let (id, t) = started(
        &app,
        &owner,
        // Three ships a match: the tournament is what is tested, and the suite
        // runs on three databases.
        json!({"name": "Big Swiss", "game": GAME, "format": "swiss", "join": false,
               "options": {"ships": [7, 4, 9]}}),
        64,
    )
    .await;
    assert_eq!(t["status"], "running");
    assert_eq!(t["rounds"], 6, "log2(64) rounds");
    let t = finished(&app, &id).await;
    eprintln!("64 bots, 6 rounds: {:?}", clock_start.elapsed());

    assert_eq!(t["current_round"], 6);
    let schedule = t["schedule"].as_array().expect("schedule");
    assert_eq!(schedule.len(), 6);
    for r in schedule {
        assert_eq!(r["tables"].as_array().expect("tables").len(), 32);
        assert_eq!(r["byes"], json!([]));
        assert!(
            r["tables"]
                .as_array()
                .expect("tables")
                .iter()
                .all(|x| x["over"] == true)
        );
    }
    let lines = t["standings"].as_array().expect("standings");
    assert_eq!(lines.len(), 64);
    for l in lines {
        assert_eq!(
            l["games"].as_i64().expect("games") + l["byes"].as_i64().expect("byes"),
            6
        );
        assert_eq!(l["bot"], "random");
    }
    assert_sorted(&t);
    let total: f64 = lines
        .iter()
        .map(|l| l["points"].as_f64().expect("points"))
        .sum();
    assert!(
        (total - 32.0 * 6.0).abs() < 1e-6,
        "one point a table: {total}"
    );
    let mut met = HashSet::new();
    for (round, seats) in tables(&t) {
        assert_eq!(seats.len(), 2);
        let pair = (
            seats[0].clone().min(seats[1].clone()),
            seats[0].clone().max(seats[1].clone()),
        );
        assert!(
            met.insert(pair.clone()),
            "a rematch in round {round}: {pair:?}"
        );
    }
    // Every table's match is a finished match of the game, read as any other.
    let first = &schedule[0]["tables"][0];
    let m = match_of(&app, first).await;
    assert_eq!(m["status"], "finished");
    assert_eq!(m["game"], GAME);
}

#[tokio::test]
async fn a_round_robin_of_five_meets_everyone_once_with_one_bye_each() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("organiser").await;
    let (id, t) = started(
        &app,
        &owner,
        json!({"name": "Five", "game": GAME, "format": "round_robin", "join": false}),
        5,
    )
    .await;
    assert_eq!(t["rounds"], 5, "an odd count plays n rounds");
    let t = finished(&app, &id).await;
    let mut met = HashMap::new();
    for (_, seats) in tables(&t) {
        let mut pair = seats.clone();
        pair.sort();
        *met.entry(pair).or_insert(0) += 1;
    }
    assert_eq!(met.len(), 10, "every pair of five: {met:?}");
    assert!(met.values().all(|n| *n == 1));
    for l in t["standings"].as_array().expect("standings") {
        assert_eq!(l["games"], 4);
        assert_eq!(l["byes"], 1);
    }
    for r in t["schedule"].as_array().expect("schedule") {
        assert_eq!(names(&r["byes"]).len(), 1);
    }
    assert_sorted(&t);
}

#[tokio::test]
async fn a_multi_player_swiss_seats_tables_of_n_by_standing() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("organiser").await;
    let (id, _) = started(
        &app,
        &owner,
        json!({"name": "Tables", "game": GAME, "format": "swiss", "table_size": 3,
               "rounds": 2, "join": false}),
        7,
    )
    .await;
    let t = finished(&app, &id).await;
    for r in t["schedule"].as_array().expect("schedule") {
        let sizes: Vec<usize> = r["tables"]
            .as_array()
            .expect("tables")
            .iter()
            .map(|x| x["seats"].as_array().expect("seats").len())
            .collect();
        assert_eq!(sizes, vec![3, 2, 2], "as few and as equal tables as can be");
        assert_eq!(r["byes"], json!([]));
    }
    // Round 2's first table holds the three best after round 1.
    let after_one: Vec<(String, f64)> = {
        let mut points: HashMap<String, f64> = HashMap::new();
        for table in t["schedule"][0]["tables"].as_array().expect("tables") {
            for s in table["seats"].as_array().expect("seats") {
                points.insert(
                    s["player"]["name"].as_str().expect("name").to_owned(),
                    s["points"].as_f64().expect("points"),
                );
            }
        }
        points.into_iter().collect()
    };
    let top = tables(&t)
        .into_iter()
        .find(|(round, _)| *round == 2)
        .expect("round 2")
        .1;
    let worst_on_top = top
        .iter()
        .map(|n| after_one.iter().find(|(m, _)| m == n).expect("entrant").1)
        .fold(f64::INFINITY, f64::min);
    let best_below = after_one
        .iter()
        .filter(|(n, _)| !top.contains(n))
        .map(|(_, p)| *p)
        .fold(f64::NEG_INFINITY, f64::max);
    assert!(worst_on_top >= best_below, "table 1 seats the leaders");
    assert_sorted(&t);
}

#[tokio::test]
async fn a_withdrawn_entrant_resigns_its_match_and_is_not_paired_again() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("organiser").await;
    let (id, t) = started(
        &app,
        &owner,
        json!({"name": "Leaving", "game": GAME, "format": "swiss", "rounds": 3}),
        4,
    )
    .await;
    // Five entrants: the bye goes to the last, so the owner plays round 1.
    assert_eq!(names(&t["schedule"][0]["byes"]), vec!["bot.random.4"]);
    let kinds = feed_kinds(&app, &owner, "tournament_round_started").await;
    assert!(
        kinds.iter().any(|k| k == "tournament_round_started"),
        "{kinds:?}"
    );

    let t = act(&app, &owner, &id, "withdraw").await.expect(200);
    let me = t["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .find(|l| l["player"]["name"] == "organiser")
        .expect("still listed")
        .clone();
    assert_eq!(me["withdrawn"], true);
    act(&app, &owner, &id, "withdraw")
        .await
        .problem(409, "already_withdrawn");
    let t = finished(&app, &id).await;
    let mine: Vec<_> = tables(&t)
        .into_iter()
        .filter(|(_, seats)| seats.contains(&"organiser".to_owned()))
        .collect();
    assert_eq!(mine.len(), 1, "paired in round 1 only");
    let first = t["schedule"][0]["tables"]
        .as_array()
        .expect("tables")
        .iter()
        .find(|x| tables_names(x).contains(&"organiser".to_owned()))
        .expect("the owner's table")
        .clone();
    let m = match_of(&app, &first).await;
    assert_eq!(m["status"], "finished", "resigned");
    let mine = first["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .find(|s| s["player"]["name"] == "organiser")
        .expect("seat")
        .clone();
    assert_eq!(mine["points"], 0.0, "a forfeited seat places last");
    for r in t["schedule"].as_array().expect("schedule").iter().skip(1) {
        assert_eq!(r["tables"].as_array().expect("tables").len(), 2);
        assert_eq!(r["byes"], json!([]), "four left: no bye");
    }
}

/// The match of a table of the schedule.
async fn match_of(app: &TestApp, table: &Value) -> Value {
    let id = table["match_id"].as_str().expect("match id");
    app.get(&format!("/api/v1/matches/{id}"), None)
        .await
        .expect(200)
}

fn tables_names(table: &Value) -> Vec<String> {
    table["seats"]
        .as_array()
        .expect("seats")
        .iter()
        .map(|s| s["player"]["name"].as_str().expect("name").to_owned())
        .collect()
}

#[tokio::test]
async fn a_tournament_starts_by_itself_at_its_time() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("organiser").await;
    let at = clock.now_utc() + chrono::Duration::hours(1);
    let t = create(
        &app,
        &owner,
        json!({"name": "Timed", "game": GAME, "format": "round_robin",
               "starts_at": at.to_rfc3339(), "join": false}),
    )
    .await;
    let id = id_of(&t);
    add_bots(&app, &owner, &id, 2).await;
    clock.advance(chrono::Duration::hours(2));
    let t = finished(&app, &id).await;
    assert_eq!(t["rounds"], 1);
    assert_eq!(tables(&t).len(), 1);
}

#[tokio::test]
async fn with_a_round_interval_the_next_round_waits_for_its_time() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("organiser").await;
    let (id, _) = started(
        &app,
        &owner,
        json!({"name": "Daily", "game": GAME, "format": "round_robin",
               "round_interval": 86400, "join": false}),
        3,
    )
    .await;
    let t = wait_for(&app, &id, "round 1 to be over", |t| {
        t["schedule"][0]["tables"][0]["over"] == true
    })
    .await;
    // Its result was recorded under the same lock that held the next round
    // back: the round is over and the next has not started.
    assert_eq!(t["current_round"], 1);
    assert_eq!(t["status"], "running");
    for round in 2..=3 {
        clock.advance(chrono::Duration::hours(25));
        wait_for(&app, &id, "the next round", |t| t["current_round"] == round).await;
    }
    clock.advance(chrono::Duration::hours(25));
    let t = finished(&app, &id).await;
    assert_eq!(tables(&t).len(), 3);
}

#[tokio::test]
async fn a_timed_tournament_without_entrants_is_cancelled() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("organiser").await;
    let at = clock.now_utc() + chrono::Duration::hours(1);
    let t = create(
        &app,
        &owner,
        json!({"name": "Empty", "game": GAME, "format": "swiss",
               "starts_at": at.to_rfc3339()}),
    )
    .await;
    clock.advance(chrono::Duration::hours(2));
    wait_for(&app, &id_of(&t), "the cancellation", |t| {
        t["status"] == "cancelled"
    })
    .await;
}

#[tokio::test]
async fn bad_tournaments_are_refused_and_change_nothing() {
    // Fourteen refusals in a row: more than the creation rate allows, which
    // counts what is asked for, valid or not.
    let (app, _clock) = spawn_app_with(|s| s.rate_limit_tournaments_per_min = 0).await;
    let owner = app.player("organiser").await;
    let base = json!({"name": "T", "game": GAME, "format": "swiss"});
    let with = |k: &str, v: Value| {
        let mut b = base.clone();
        b[k] = v;
        b
    };
    for (body, code) in [
        (with("game", json!("chess")), "unknown_game"),
        (with("format", json!("knockout")), "invalid_format"),
        (with("name", json!("  ")), "invalid_name"),
        (with("rounds", json!(0)), "invalid_rounds"),
        (with("rounds", json!(51)), "invalid_rounds"),
        (with("table_size", json!(9)), "invalid_seats"),
        (with("max_players", json!(1)), "invalid_max_players"),
        (with("max_players", json!(257)), "invalid_max_players"),
        (
            with("options", json!({"timeout_policy": "forfeit"})),
            "invalid_options",
        ),
        (with("options", json!({"position": {}})), "invalid_options"),
        (
            with("starts_at", json!("2001-01-01T00:00:00Z")),
            "invalid_starts_at",
        ),
        (with("round_interval", json!(59)), "invalid_round_interval"),
        (
            json!({"name": "T", "game": GAME, "format": "round_robin", "table_size": 3}),
            "invalid_table_size",
        ),
        (
            json!({"name": "T", "game": GAME, "format": "round_robin", "rounds": 3}),
            "invalid_rounds",
        ),
    ] {
        app.post("/api/v1/tournaments", Some(&owner.token), &body)
            .await
            .problem(422, code);
    }
    app.post("/api/v1/tournaments", None, &base)
        .await
        .problem(401, "unauthorized");
    let list = app.get("/api/v1/tournaments", None).await.expect(200);
    assert_eq!(list["items"], json!([]));
    app.get(
        "/api/v1/tournaments/01936f3e-8b7a-7c00-9a00-000000000001",
        None,
    )
    .await
    .problem(404, "tournament_not_found");
    app.get("/api/v1/tournaments?status=over", None)
        .await
        .problem(400, "invalid_status");
}

#[tokio::test]
async fn only_the_owner_runs_a_tournament_and_entries_close_at_the_start() {
    let app = spawn_app().await;
    let owner = app.player("organiser").await;
    let other = app.player("other").await;
    let t = create(
        &app,
        &owner,
        json!({"name": "Mine", "game": GAME, "format": "round_robin", "max_players": 3}),
    )
    .await;
    let id = id_of(&t);
    assert_eq!(t["entrants"], 1, "the creator entered");
    act(&app, &owner, &id, "start")
        .await
        .problem(409, "not_enough_players");
    act(&app, &owner, &id, "join")
        .await
        .problem(409, "already_entered");
    for (who, body, status, code) in [
        (&other, json!({"kind": "random"}), 403, "not_owner"),
        (&owner, json!({"kind": "grandmaster"}), 422, "unknown_bot"),
        (
            &owner,
            json!({"kind": "random", "count": 0}),
            422,
            "invalid_count",
        ),
        (
            &owner,
            json!({"kind": "random", "count": 3}),
            409,
            "tournament_full",
        ),
    ] {
        app.post(
            &format!("/api/v1/tournaments/{id}/bots"),
            Some(&who.token),
            &body,
        )
        .await
        .problem(status, code);
    }
    act(&app, &other, &id, "start")
        .await
        .problem(403, "not_owner");
    act(&app, &other, &id, "cancel")
        .await
        .problem(403, "not_owner");
    act(&app, &other, &id, "withdraw")
        .await
        .problem(409, "not_entered");
    let t = act(&app, &other, &id, "join").await.expect(200);
    assert_eq!(t["entrants"], 2);
    let t = act(&app, &other, &id, "withdraw").await.expect(200);
    assert_eq!(t["entrants"], 1, "before the start, withdrawing leaves");
    act(&app, &other, &id, "join").await.expect(200);
    let t = act(&app, &owner, &id, "start").await.expect(200);
    assert_eq!(t["status"], "running");
    let third = app.player("late").await;
    act(&app, &third, &id, "join")
        .await
        .problem(409, "tournament_started");
    let t = act(&app, &owner, &id, "cancel").await.expect(200);
    assert_eq!(t["status"], "cancelled");
    act(&app, &owner, &id, "cancel")
        .await
        .problem(409, "tournament_over");
    let page = app
        .get("/api/v1/tournaments?status=cancelled&limit=1", None)
        .await
        .expect(200);
    assert_eq!(page["items"][0]["id"], id.as_str());
}

#[tokio::test]
async fn a_deleted_account_leaves_the_tournaments_it_entered() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("organiser").await;
    let leaver = app.player("leaver").await;
    let waiting = id_of(
        &create(
            &app,
            &owner,
            json!({"name": "Later", "game": GAME, "format": "swiss"}),
        )
        .await,
    );
    act(&app, &leaver, &waiting, "join").await.expect(200);
    let running = id_of(
        &create(
            &app,
            &owner,
            json!({"name": "Now", "game": GAME, "format": "round_robin", "join": false}),
        )
        .await,
    );
    // Entered after the bots, it plays round 1 (the first entrant has the bye).
    add_bots(&app, &owner, &running, 2).await;
    act(&app, &leaver, &running, "join").await.expect(200);
    act(&app, &owner, &running, "start").await.expect(200);

    let deleted = app
        .post(
            "/api/v1/players/me/delete",
            Some(&leaver.token),
            &json!({"password": "password1"}),
        )
        .await;
    assert_eq!(deleted.status, 204, "{}", deleted.text);

    let t = app
        .get(&format!("/api/v1/tournaments/{waiting}"), None)
        .await
        .expect(200);
    assert_eq!(t["entrants"], 1, "the entry went");
    let t = finished(&app, &running).await;
    let gone = t["standings"]
        .as_array()
        .expect("standings")
        .iter()
        .find(|l| l["bot"].is_null())
        .expect("the deleted entrant's line")
        .clone();
    assert_eq!(gone["withdrawn"], true);
    assert_eq!(gone["games"], 1, "paired in round 1 only");
}
