//! Asynchronous play: per-move deadlines under each timeout policy, absence and
//! return, resigning, bots in seats. The clock is moved, never slept on.

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app_with_manual_clock};

/// Polls the match (as a spectator) until `done` holds; the poller runs every
/// 20 ms in these tests.
async fn wait_for(app: &TestApp, id: &str, what: &str, done: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..1500 {
        let m = app.match_as(id, None).await;
        if done(&m) {
            return m;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("waited in vain for {what}");
}

/// Plays legal moves for every awaited seat but 0 until `done` holds.
async fn play_until(
    app: &TestApp,
    id: &str,
    players: &[Player],
    rng: &mut sealed_orders::games::rng::GameRng,
    done: impl Fn(&Value) -> bool,
) -> Value {
    for _ in 0..200 {
        let m = app.match_as(id, None).await;
        if done(&m) {
            return m;
        }
        let awaiting = m["prompt"]["awaiting"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let Some(seat) = awaiting.iter().filter_map(Value::as_u64).find(|s| *s != 0) else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let p = &players[seat as usize];
        let mine = app.match_as(id, Some(p)).await;
        let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
        let action = sealed_orders::games::legal::sample(&legal, rng).expect("a move");
        let step = mine["prompt"]["step"].as_i64().expect("step");
        app.submit(id, p, step, action).await;
    }
    panic!("never got there");
}

async fn moves_of(app: &TestApp, id: &str) -> Vec<Value> {
    app.get(&format!("/api/v1/matches/{id}/moves?limit=200"), None)
        .await
        .expect(200)["items"]
        .as_array()
        .expect("moves")
        .clone()
}

async fn events_of(app: &TestApp, id: &str) -> Vec<Value> {
    app.get(&format!("/api/v1/matches/{id}/events?limit=200"), None)
        .await
        .expect(200)["items"]
        .as_array()
        .expect("events")
        .clone()
}

fn at(v: &Value) -> chrono::DateTime<chrono::Utc> {
    chrono::DateTime::parse_from_rfc3339(v.as_str().expect("a time"))
        .expect("RFC 3339")
        .with_timezone(&chrono::Utc)
}

/// The last (strongest) of a game's bots.
async fn strongest_bot(app: &TestApp, game: &str) -> String {
    let g = app
        .get(&format!("/api/v1/games/{game}"), None)
        .await
        .expect(200);
    g["bots"]
        .as_array()
        .and_then(|b| b.last())
        .and_then(Value::as_str)
        .expect("bots")
        .to_owned()
}

/// A two-round Malacca match from a position, with open betting: seat 0 (the
/// captain) bets first, then seat 1.
async fn timed_match(app: &TestApp, players: &[Player], extra: Value) -> String {
    let mut seats = Vec::new();
    for _ in players {
        seats.push(json!({"coins": 5, "specials": []}));
    }
    let mut options = json!({
        "position": {"round": 1, "captain": 0, "ships": [8, 9], "special_deck": [], "players": seats},
        "stakes": "open_sequential",
        "move_time_limit": 60,
    });
    for (k, v) in extra.as_object().expect("object") {
        options[k] = v.clone();
    }
    app.started_match(players, "malacca", options).await
}

#[tokio::test]
async fn a_seat_that_lets_its_deadline_pass_is_played_by_a_bot_and_is_absent_until_it_returns() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(2).await;
    let id = timed_match(
        &app,
        &players,
        json!({"timeout_policy": "bot", "absent_move_time_limit": 15}),
    )
    .await;

    // Every owing seat shows its deadline: a minute from the start of the step.
    let m = app.match_as(&id, Some(&players[0])).await;
    assert_eq!(m["prompt"]["awaiting"], json!([0]));
    let deadline = &m["prompt"]["deadlines"][0];
    assert_eq!(deadline["seat"], 0);
    assert_eq!((at(&deadline["at"]) - clock.now_utc()).num_seconds(), 60);
    let turns = app
        .get("/api/v1/players/me/turns", Some(&players[0].token))
        .await
        .expect(200);
    assert_eq!(turns["items"][0]["deadline"], deadline["at"]);

    // Nothing happens before the deadline.
    clock.advance(chrono::Duration::seconds(59));
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(app.match_as(&id, None).await["step"], 0);

    // Past it, the built-in bot moves for seat 0, which is now absent.
    clock.advance(chrono::Duration::seconds(2));
    let m = wait_for(&app, &id, "the bot's move", |m| m["step"] == 1).await;
    assert_eq!(m["seats"][0]["presence"], "absent");
    let moves = moves_of(&app, &id).await;
    assert_eq!(moves.len(), 1);
    assert_eq!(moves[0]["seat"], 0);
    assert_eq!(
        moves[0]["author"],
        format!("bot:{}", strongest_bot(&app, "malacca").await),
        "the game's strongest bot stands in"
    );
    let kinds: Vec<Value> = events_of(&app, &id)
        .await
        .iter()
        .map(|e| e["kind"].clone())
        .collect();
    assert!(kinds.contains(&json!("seat_timed_out")), "{kinds:?}");

    // Seat 1 plays on until seat 0 (absent) owes again: with the shorter
    // deadline of an absent seat.
    let mut rng = sealed_orders::games::rng::GameRng::from_key([1; 32]);
    let m = play_until(&app, &id, &players, &mut rng, |m| {
        m["prompt"]["awaiting"] == json!([0])
    })
    .await;
    let deadline = at(&m["prompt"]["deadlines"][0]["at"]);
    assert_eq!((deadline - clock.now_utc()).num_seconds(), 15);
    let turns = app
        .get("/api/v1/players/me/turns", Some(&players[0].token))
        .await
        .expect(200);
    assert_eq!(turns["items"][0]["absent"], true);

    // Returning clears the absence: the full minute applies again.
    let back = app
        .post(
            &format!("/api/v1/matches/{id}/return"),
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(back["seats"][0]["presence"], "present");
    assert_eq!(
        (at(&back["prompt"]["deadlines"][0]["at"]) - clock.now_utc()).num_seconds(),
        60
    );
    // Returning again changes nothing.
    let again = app
        .post(
            &format!("/api/v1/matches/{id}/return"),
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(again["version"], back["version"]);

    // Absent again after another missed deadline; then a move of its own brings it back.
    clock.advance(chrono::Duration::seconds(61));
    wait_for(&app, &id, "the second stand-in move", |m| {
        m["seats"][0]["presence"] == "absent"
    })
    .await;
    let m = play_until(&app, &id, &players, &mut rng, |m| {
        m["status"] != "active" || m["prompt"]["awaiting"] == json!([0])
    })
    .await;
    if m["status"] == "active" {
        let mine = app.match_as(&id, Some(&players[0])).await;
        let step = mine["prompt"]["step"].as_i64().expect("step");
        let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
        let action = sealed_orders::games::legal::sample(&legal, &mut rng).expect("a move");
        app.submit(&id, &players[0], step, action).await.expect(200);
        let m = app.match_as(&id, None).await;
        assert_eq!(
            m["seats"][0]["presence"], "present",
            "a move of its own is a return"
        );
    }
    let events = events_of(&app, &id).await;
    assert!(events.iter().any(|e| e["kind"] == "seat_returned"));
}

#[tokio::test]
async fn under_the_forfeit_policy_a_two_seat_match_ends_at_once_and_the_opponent_wins() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(2).await;
    let id = timed_match(&app, &players, json!({"timeout_policy": "forfeit"})).await;
    clock.advance(chrono::Duration::seconds(61));
    let m = wait_for(&app, &id, "the forfeit", |m| m["status"] == "finished").await;
    assert_eq!(m["seats"][0]["presence"], "forfeited");
    let result = m["result"].as_array().expect("result");
    assert_eq!(result[0]["seat"], 1);
    assert_eq!(result[0]["rank"], 1);
    assert_eq!(result[1]["seat"], 0);
    assert_eq!(result[1]["rank"], 2);
    assert!(
        moves_of(&app, &id).await.is_empty(),
        "the match ended without a move"
    );
    let kinds: Vec<Value> = events_of(&app, &id)
        .await
        .iter()
        .map(|e| e["kind"].clone())
        .collect();
    for k in ["seat_timed_out", "seat_forfeited", "match_finished"] {
        assert!(kinds.contains(&json!(k)), "{k} in {kinds:?}");
    }
    // The finished match's replay verifies, forfeit included.
    let bundle = app
        .get(&format!("/api/v1/matches/{id}/export"), None)
        .await
        .expect(200);
    assert_eq!(bundle["players"][0]["forfeited"], true);
    let report = app
        .post("/api/v1/replays/verify", None, &bundle)
        .await
        .expect(200);
    assert_eq!(report["valid"], true, "{report}");
}

#[tokio::test]
async fn a_forfeited_seat_plays_null_moves_to_the_end_and_ranks_last_whatever_its_score() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let players = app.players(3).await;
    let id = timed_match(&app, &players, json!({"timeout_policy": "forfeit"})).await;
    // Seat 0 lets its time run out: it forfeits, its null move is played.
    clock.advance(chrono::Duration::seconds(61));
    let m = wait_for(&app, &id, "the forfeit", |m| m["step"] == 1).await;
    assert_eq!(m["seats"][0]["presence"], "forfeited");
    assert_eq!(m["status"], "active", "two seats are still in play");
    assert_eq!(moves_of(&app, &id).await[0]["author"], "null");
    let own = app
        .get(
            &format!("/api/v1/matches/{id}/moves"),
            Some(&players[0].token),
        )
        .await
        .expect(200);
    assert_eq!(
        own["items"][0]["action"],
        json!({"type": "play", "card": "trade", "stake": 0}),
        "Malacca's null bet, seen by its seat"
    );
    // A forfeited seat may not move any more.
    let refused = app
        .post(
            &format!("/api/v1/matches/{id}/resign"),
            Some(&players[0].token),
            &json!({}),
        )
        .await;
    refused.problem(409, "seat_forfeited");
    // The others play on (seat 0's turns are played at once) to the end.
    let mut rng = sealed_orders::games::rng::GameRng::from_key([9; 32]);
    play_until(&app, &id, &players, &mut rng, |m| m["status"] == "finished").await;
    let m = wait_for(&app, &id, "the end", |m| m["status"] == "finished").await;
    let result = m["result"].as_array().expect("result");
    let last = result.last().expect("placings");
    assert_eq!(last["seat"], 0, "the forfeited seat ranks last: {result:?}");
    assert_eq!(last["rank"], 3);
    for mv in moves_of(&app, &id)
        .await
        .iter()
        .filter(|mv| mv["seat"] == 0)
    {
        assert_eq!(
            mv["author"], "null",
            "every move of a forfeited seat is its null move"
        );
    }
    let bundle = app
        .get(&format!("/api/v1/matches/{id}/export"), None)
        .await
        .expect(200);
    let report = app
        .post("/api/v1/replays/verify", None, &bundle)
        .await
        .expect(200);
    assert_eq!(report["valid"], true, "{report}");
}

#[tokio::test]
async fn resigning_ends_a_two_seat_match_and_the_opponent_wins_rated() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let players = app.players(2).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let m = app
        .post(
            &format!("/api/v1/matches/{id}/resign"),
            Some(&players[1].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(m["status"], "finished");
    assert_eq!(m["result"][0]["seat"], 0);
    assert_eq!(m["result"][1]["seat"], 1);
    assert_eq!(m["result"][1]["rank"], 2);
    let winner = app
        .get(
            &format!("/api/v1/players/{}/ratings?game=malacca", players[0].name),
            None,
        )
        .await
        .expect(200);
    let loser = app
        .get(
            &format!("/api/v1/players/{}/ratings?game=malacca", players[1].name),
            None,
        )
        .await
        .expect(200);
    let change = |r: &Value| {
        let c = &r["items"][0];
        assert!(c.is_object(), "a rating change: {r}");
        c["mu_after"].as_f64().expect("mu") - c["mu_before"].as_f64().expect("mu")
    };
    assert!(
        change(&winner) > 0.0 && change(&loser) < 0.0,
        "{winner} {loser}"
    );
    // Nothing is left to resign from.
    app.post(
        &format!("/api/v1/matches/{id}/resign"),
        Some(&players[0].token),
        &json!({}),
    )
    .await
    .problem(409, "match_not_active");
}

#[tokio::test]
async fn bad_time_options_are_refused_and_change_nothing() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let p = app.player("alice").await;
    for options in [
        json!({"move_time_limit": 0}),
        json!({"move_time_limit": "soon"}),
        json!({"timeout_policy": "bot"}),
        json!({"move_time_limit": 60, "timeout_policy": "pass"}),
        json!({"move_time_limit": 60, "timeout_policy": "forfeit", "absent_move_time_limit": 5}),
    ] {
        app.post(
            "/api/v1/matches",
            Some(&p.token),
            &json!({"game": "malacca", "seats": 2, "options": options}),
        )
        .await
        .problem(422, "invalid_options");
    }
    app.post(
        "/api/v1/matches",
        Some(&p.token),
        &json!({"game": "malacca", "seats": 2, "bots": ["grandmaster"]}),
    )
    .await
    .problem(422, "unknown_bot");
    let list = app.get("/api/v1/matches", None).await.expect(200);
    assert_eq!(list["items"], json!([]));
}

/// Creates a match owned by `owner` with every seat a bot, and waits for its end.
async fn bots_only(
    app: &TestApp,
    owner: &Player,
    game: &str,
    bots: Vec<&str>,
    options: Value,
) -> Value {
    let m = app
        .post(
            "/api/v1/matches",
            Some(&owner.token),
            &json!({"game": game, "seats": bots.len(), "options": options, "bots": bots, "join": false}),
        )
        .await
        .expect(201);
    assert_eq!(m["status"], "active", "full of bots, it starts at once");
    assert_eq!(m["rated"], false);
    let id = m["id"].as_str().expect("id").to_owned();
    wait_for(app, &id, &format!("the {game} bots to finish"), |m| {
        m["status"] == "finished"
    })
    .await
}

#[tokio::test]
async fn a_full_match_of_bots_only_ends_for_every_game() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let owner = app.player("owner").await;
    let games = app.get("/api/v1/games", None).await.expect(200);
    for g in games.as_array().expect("games") {
        let game = g["id"].as_str().expect("id");
        let kinds: Vec<&str> = g["bots"]
            .as_array()
            .expect("bots")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(kinds[0], "random", "every game has the random bot");
        let seats = g["seats"].as_array().expect("seats")[0]
            .as_u64()
            .expect("n") as usize;
        let bots: Vec<&str> = (0..seats).map(|i| kinds[i % kinds.len()]).collect();
        let m = bots_only(&app, &owner, game, bots.clone(), json!({})).await;
        let id = m["id"].as_str().expect("id");
        for (i, kind) in bots.iter().enumerate() {
            assert_eq!(m["seats"][i]["bot"], *kind);
            assert_eq!(
                m["seats"][i]["player"]["name"],
                format!(
                    "bot.{kind}.{}",
                    bots[..=i].iter().filter(|k| *k == kind).count()
                )
            );
        }
        let moves = moves_of(&app, id).await;
        assert!(!moves.is_empty());
        assert!(
            moves
                .iter()
                .all(|mv| mv["author"].as_str().is_some_and(|a| a.starts_with("bot:")))
        );
        let bundle = app
            .get(&format!("/api/v1/matches/{id}/export"), None)
            .await
            .expect(200);
        let report = app
            .post("/api/v1/replays/verify", None, &bundle)
            .await
            .expect(200);
        assert_eq!(report["valid"], true, "{game}: {report}");
    }
    // Malacca with eight seats, its bots mixed, every option on.
    let best = strongest_bot(&app, "malacca").await;
    let bots: Vec<&str> = (0..8)
        .map(|i| if i % 2 == 0 { best.as_str() } else { "random" })
        .collect();
    bots_only(
        &app,
        &owner,
        "malacca",
        bots,
        json!({"characters": true, "equipment": true}),
    )
    .await;
}

#[tokio::test]
async fn bots_keep_ratings_of_their_own_and_never_move_a_persons() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let alice = app.player("alice").await;
    let best = strongest_bot(&app, "malacca").await;
    let m = app
        .post(
            "/api/v1/matches",
            Some(&alice.token),
            &json!({"game": "malacca", "seats": 3, "bots": [best, "random"]}),
        )
        .await
        .expect(201);
    assert_eq!(m["status"], "active");
    assert_eq!(m["rated"], false, "a match with a bot is not rated");
    let id = m["id"].as_str().expect("id").to_owned();
    // Alice resigns; the two bots play on to the end by themselves.
    app.post(
        &format!("/api/v1/matches/{id}/resign"),
        Some(&alice.token),
        &json!({}),
    )
    .await
    .expect(200);
    let m = wait_for(&app, &id, "the bots to finish", |m| {
        m["status"] == "finished"
    })
    .await;
    assert_eq!(m["result"][2]["seat"], 0, "alice forfeited: last");
    let mine = app
        .get(
            &format!("/api/v1/players/{}/ratings?game=malacca", alice.name),
            None,
        )
        .await
        .expect(200);
    assert_eq!(
        mine["items"],
        json!([]),
        "alice's rating did not move: {mine}"
    );
    let bot = app
        .get(
            &format!("/api/v1/players/bot.{best}.1/ratings?game=malacca"),
            None,
        )
        .await
        .expect(200);
    assert_eq!(bot["items"].as_array().map(Vec::len), Some(1), "{bot}");
    let profile = app
        .get(&format!("/api/v1/players/bot.{best}.1"), None)
        .await
        .expect(200);
    assert_eq!(profile["is_bot"], true);
}

#[tokio::test]
async fn the_owner_seats_bots_before_the_start_and_nobody_else_may() {
    let (app, _clock) = spawn_app_with_manual_clock().await;
    let players = app.players(2).await;
    let m = app
        .post(
            "/api/v1/matches",
            Some(&players[0].token),
            &json!({"game": "heretics", "seats": 3}),
        )
        .await
        .expect(201);
    let id = m["id"].as_str().expect("id").to_owned();
    app.post(
        &format!("/api/v1/matches/{id}/bots"),
        Some(&players[1].token),
        &json!({"kind": "random"}),
    )
    .await
    .problem(403, "not_owner");
    app.post(
        &format!("/api/v1/matches/{id}/bots"),
        Some(&players[0].token),
        &json!({"kind": "heuristic"}),
    )
    .await
    .problem(422, "unknown_bot");
    let m = app
        .post(
            &format!("/api/v1/matches/{id}/bots"),
            Some(&players[0].token),
            &json!({"kind": "random"}),
        )
        .await
        .expect(200);
    assert_eq!(m["status"], "waiting");
    assert_eq!(m["seats"][1]["bot"], "random");
    let m = app
        .post(
            &format!("/api/v1/matches/{id}/join"),
            Some(&players[1].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(m["status"], "active", "the last seat filled starts it");
    app.post(
        &format!("/api/v1/matches/{id}/bots"),
        Some(&players[0].token),
        &json!({"kind": "random"}),
    )
    .await
    .problem(409, "match_not_waiting");
}
