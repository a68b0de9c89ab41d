//! A match's position at any step: for every seat and for a spectator, what the
//! match read gave at that step, while the match runs and once it is over.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use sealed_orders::games::legal;
use sealed_orders::games::rng::GameRng;

use crate::helpers::{Player, TestApp, another_replica, spawn_app};

async fn position(app: &TestApp, id: &str, step: i64, who: Option<&Player>) -> Value {
    app.get(
        &format!("/api/v1/matches/{id}/positions/{step}"),
        who.map(|p| p.token.as_str()),
    )
    .await
    .expect(200)
}

/// Views at one step: the spectator's first, then each seat's.
type Views = Vec<Value>;

/// Reads the match as everybody at its current step.
async fn views_now(app: &TestApp, id: &str, players: &[Player]) -> (i64, Views, Value) {
    let anon = app.match_as(id, None).await;
    let mut views = vec![anon["view"].clone()];
    for p in players {
        views.push(app.match_as(id, Some(p)).await["view"].clone());
    }
    (anon["step"].as_i64().expect("step"), views, anon)
}

async fn positions_now(app: &TestApp, id: &str, step: i64, players: &[Player]) -> Views {
    let mut out = vec![position(app, id, step, None).await["view"].clone()];
    for p in players {
        out.push(position(app, id, step, Some(p)).await["view"].clone());
    }
    out
}

/// Plays the match to its end, one move at a time, checking each step's
/// position against the match read while it runs; answers every step's views
/// as they were when the step began (`seen` holds those of steps begun before).
async fn play_checking(
    app: &TestApp,
    id: &str,
    players: &[Player],
    mut seen: BTreeMap<i64, Views>,
) -> BTreeMap<i64, Views> {
    let mut rng = GameRng::from_key([5; 32]);
    for _ in 0..5000 {
        let (step, views, anon) = views_now(app, id, players).await;
        if anon["status"] != "active" {
            return seen;
        }
        // Every read of the step now agrees with its position, sealed moves of
        // the step already played among it (each seat sees only its own).
        assert_eq!(
            positions_now(app, id, step, players).await,
            views,
            "step {step}"
        );
        seen.entry(step).or_insert(views);
        // A step already passed still reads as it did (replayed, not kept).
        if step > 0 {
            let back = step - 1 - (step - 1) % 3;
            if let Some(then) = seen.get(&back) {
                assert_eq!(
                    &positions_now(app, id, back, players).await,
                    then,
                    "back at step {back} from {step}"
                );
            }
        }
        let seat = anon["prompt"]["awaiting"][0].as_u64().expect("awaiting") as usize;
        let mine = app.match_as(id, Some(&players[seat])).await;
        let legal_moves = mine["prompt"]["legal"].as_array().expect("legal").clone();
        let action = legal::sample(&legal_moves, &mut rng).expect("a legal move");
        app.submit(id, &players[seat], step, action)
            .await
            .expect(200);
    }
    panic!("the match does not end");
}

#[tokio::test]
async fn every_step_of_a_match_of_each_game_reads_as_the_match_did_then_for_everyone() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    for (game, seats, options) in [
        (
            "malacca",
            3,
            json!({"stakes": "sealed", "characters": true, "equipment": true, "ships": [8, 5]}),
        ),
        ("heretics", 3, json!({})),
        ("kontor", 2, json!({"variant": "duel"})),
        ("cairo", 2, json!({"mode": "simulated"})),
    ] {
        let players = &players[..seats];
        let id = app.started_match(players, game, options).await;
        let seen = play_checking(&app, &id, players, BTreeMap::new()).await;
        assert!(seen.len() > 3, "{game}: {} steps", seen.len());
        let finished = app.match_as(&id, None).await;
        assert_eq!(finished["status"], "finished", "{game}");
        let last = finished["step"].as_i64().expect("step");
        // Once it is over: each step still reads as it did then, to each viewer,
        // and the whole state is everybody's.
        for (step, views) in &seen {
            assert_eq!(
                &positions_now(&app, &id, *step, players).await,
                views,
                "{game} step {step} after the end"
            );
            let p = position(&app, &id, *step, None).await;
            assert!(p["state"].is_object(), "{game} step {step}: {p}");
            assert_eq!(p["last_step"], last);
            assert!(p["prompt"]["awaiting"].is_array(), "{game} step {step}");
        }
        let end = position(&app, &id, last, None).await;
        assert_eq!(end["view"], finished["view"], "{game}");
        assert_eq!(end["state"], finished["final_state"], "{game}");
        assert_eq!(end["prompt"], Value::Null, "{game}");
        // The lobby's list of finished matches carries the same placings.
        let listed = app
            .get(
                &format!("/api/v1/matches?status=finished&game={game}"),
                None,
            )
            .await
            .expect(200);
        let summary = listed["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|m| m["id"] == id.as_str())
            .expect("listed")
            .clone();
        let mut read = finished["result"].as_array().expect("result").clone();
        read.sort_by_key(|p| (p["rank"].as_u64(), p["seat"].as_u64()));
        assert_eq!(summary["result"], Value::Array(read), "{game}");
        let start = position(&app, &id, 0, Some(&players[0])).await;
        assert_eq!(start["your_seat"], 0);
        assert_eq!(start["step"], 0);
        exported_positions_are_the_positions(&app, game, &id).await;
    }
}

/// The bulk export with `positions=true` carries, for the game's one finished
/// match, every position from 0 to the last as anybody reads it; without it,
/// none.
async fn exported_positions_are_the_positions(app: &TestApp, game: &str, id: &str) {
    let lines = |text: String| -> Vec<Value> {
        assert!(text.ends_with('\n'), "whole lines");
        text.lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect()
    };
    let url = format!("/api/v1/exports/matches?game={game}");
    let plain = lines(app.get(&url, None).await.text);
    assert_eq!(plain.len(), 1, "{game}");
    assert!(plain[0].get("positions").is_none(), "{game}");
    let with = lines(app.get(&format!("{url}&positions=true"), None).await.text);
    assert_eq!(with.len(), 1, "{game}");
    let line = &with[0];
    assert_eq!(line["match_id"], id);
    // The bundle is the same, positions aside.
    let mut bundle = line.clone();
    bundle.as_object_mut().expect("object").remove("positions");
    assert_eq!(bundle, plain[0], "{game}");
    let positions = line["positions"].as_array().expect("positions");
    let last = app.match_as(id, None).await["step"].as_i64().expect("step");
    assert_eq!(positions.len() as i64, last + 1, "{game}: one a step");
    for (step, exported) in positions.iter().enumerate() {
        assert_eq!(
            exported,
            &position(app, id, step as i64, None).await,
            "{game} step {step}"
        );
    }
}

#[tokio::test]
async fn a_step_the_match_has_not_reached_has_no_position() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let waiting = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "malacca", "seats": 3}),
        )
        .await
        .expect(201);
    let w = waiting["id"].as_str().expect("id");
    app.get(&format!("/api/v1/matches/{w}/positions/0"), None)
        .await
        .problem(404, "position_not_found");

    let id = app
        .started_match(&players, "cairo", json!({"mode": "simulated"}))
        .await;
    for step in ["1", "-1", "99999999999"] {
        app.get(&format!("/api/v1/matches/{id}/positions/{step}"), None)
            .await
            .problem(404, "position_not_found");
    }
    app.get(&format!("/api/v1/matches/{id}/positions/first"), None)
        .await
        .expect(400);
    let unknown = "00000000-0000-7000-8000-000000000000";
    app.get(&format!("/api/v1/matches/{unknown}/positions/0"), None)
        .await
        .problem(404, "match_not_found");
}

#[tokio::test]
async fn a_match_from_a_position_with_a_replaced_move_reads_as_it_was_played() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app
        .started_match(
            &players,
            "heretics",
            json!({"position": crate::helpers::heretics_position()}),
        )
        .await;
    let seat_of = |m: &Value| m["your_seat"].as_u64().expect("seated") as usize;
    let mut p = Vec::new();
    for q in &players {
        p.push((seat_of(&app.match_as(&id, Some(q)).await), q.clone()));
    }
    p.sort_by_key(|(s, _)| *s);
    let p: Vec<Player> = p.into_iter().map(|(_, q)| q).collect();

    let (step, start, _) = views_now(&app, &id, &p).await;
    assert_eq!(step, 0);
    let play = |card: &'static str| json!({"type": "play", "card": card});
    app.submit(&id, &p[0], 0, play("hussites:1"))
        .await
        .expect(200);
    app.submit(&id, &p[0], 0, play("hussites:11"))
        .await
        .expect(200);
    // The step now: seat 0 sees its replacement, nobody else sees either card.
    let (_, now, _) = views_now(&app, &id, &p).await;
    assert_eq!(now[1]["choice"], "hussites:11");
    assert_eq!(positions_now(&app, &id, 0, &p).await, now);
    for other in [&now[0], &now[2], &now[3]] {
        assert_eq!(other["choice"], Value::Null, "{other}");
        assert!(!other["hand"].to_string().contains("hussites"), "{other}");
    }

    let seen = play_checking(&app, &id, &p, BTreeMap::from([(0, start)])).await;
    for (step, views) in &seen {
        assert_eq!(
            &positions_now(&app, &id, *step, &p).await,
            views,
            "step {step}"
        );
    }
    // After the reveal, seat 0 holds the card it took back: the replaced move
    // is in no position.
    let after = position(&app, &id, 1, Some(&p[0])).await;
    assert_eq!(after["view"]["hand"], json!(["hussites:1"]), "{after}");
    // The export replays it the same way: from the position, without the
    // replaced move.
    exported_positions_are_the_positions(&app, "heretics", &id).await;
}

/// The positions kept with a match: the first read of a late step replays from
/// the start and keeps every `KEPT_EVERY`-th position it passes with the match;
/// another server, which keeps nothing of the match in its memory yet, then
/// reads every step from the nearest of them exactly as the first server did.
#[tokio::test]
async fn positions_kept_with_the_match_read_alike_in_a_server_that_kept_none() {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
    use sealed_orders::store::entities::match_checkpoints;

    let app = spawn_app().await;
    let players = app.players(2).await;
    // Cairo with reported flicks: a few hundred steps for two seats.
    let id = app.started_match(&players, "cairo", json!({})).await;
    app.play_to_end(&id, &players, 9).await;
    let last = app.match_as(&id, None).await["step"]
        .as_i64()
        .expect("step");
    let every = sealed_orders::service::positions::KEPT_EVERY;
    assert!(last > every + 1, "a match long enough: {last} steps");
    let late = last - 1;
    let first = positions_now(&app, &id, late, &players).await;

    let db = sealed_orders::store::connect(&app.settings)
        .await
        .expect("connect");
    let kept: Vec<i64> = match_checkpoints::Entity::find()
        .filter(match_checkpoints::Column::MatchId.eq(id.parse::<uuid::Uuid>().expect("id")))
        .order_by_asc(match_checkpoints::Column::Step)
        .all(&db)
        .await
        .expect("kept positions")
        .into_iter()
        .map(|c| c.step)
        .collect();
    let expected: Vec<i64> = (1..)
        .map(|k| k * every)
        .take_while(|s| *s <= late)
        .collect();
    assert_eq!(kept, expected, "{last} steps");

    let other = another_replica(&app).await;
    assert_eq!(positions_now(&other, &id, late, &players).await, first);
    for step in [0, 1, every - 1, every, every + 1, late - every, late - 1] {
        assert_eq!(
            positions_now(&other, &id, step, &players).await,
            positions_now(&app, &id, step, &players).await,
            "step {step} of {last}"
        );
    }
    // Reading them changed none of those kept.
    let again = match_checkpoints::Entity::find()
        .filter(match_checkpoints::Column::MatchId.eq(id.parse::<uuid::Uuid>().expect("id")))
        .all(&db)
        .await
        .expect("kept positions");
    assert_eq!(again.len(), expected.len());
}
