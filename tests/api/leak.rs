//! The leak test: while a card lies face down, no GET operation of the API (nor an
//! error body) shows it to anybody but its author, and no public count moves.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app};

/// Every GET operation of the generated spec, with the concrete paths that
/// exercise it in this scenario. An operation without a fixture fails the test.
fn fixtures(id: &str, name: &str) -> BTreeMap<&'static str, Vec<String>> {
    let mut f = BTreeMap::new();
    f.insert("/healthz", vec!["/healthz".to_owned()]);
    f.insert("/readyz", vec!["/readyz".to_owned()]);
    f.insert("/metrics", vec!["/metrics".to_owned()]);
    f.insert("/api/v1/players/me", vec!["/api/v1/players/me".to_owned()]);
    f.insert(
        "/api/v1/players/me/turns",
        vec!["/api/v1/players/me/turns".to_owned()],
    );
    f.insert(
        "/api/v1/players/me/events",
        vec!["/api/v1/players/me/events".to_owned()],
    );
    f.insert(
        "/api/v1/players/me/invitations",
        vec!["/api/v1/players/me/invitations".to_owned()],
    );
    f.insert(
        "/api/v1/matches/{id}/invitations",
        vec![format!("/api/v1/matches/{id}/invitations")],
    );
    f.insert(
        "/api/v1/matches/{id}/messages",
        vec![format!("/api/v1/matches/{id}/messages")],
    );
    f.insert(
        "/api/v1/players/me/mutes",
        vec!["/api/v1/players/me/mutes".to_owned()],
    );
    f.insert(
        "/api/v1/players/me/tokens",
        vec!["/api/v1/players/me/tokens".to_owned()],
    );
    f.insert(
        "/api/v1/players/me/webhooks",
        vec!["/api/v1/players/me/webhooks".to_owned()],
    );
    // Nobody has a webhook here: each reader sees its own (none).
    f.insert(
        "/api/v1/players/me/webhooks/{id}/deliveries",
        vec![format!(
            "/api/v1/players/me/webhooks/{}/deliveries",
            uuid::Uuid::nil()
        )],
    );
    f.insert(
        "/api/v1/players/{name}",
        vec![format!("/api/v1/players/{name}")],
    );
    f.insert("/api/v1/games", vec!["/api/v1/games".to_owned()]);
    f.insert(
        "/api/v1/games/{game}",
        vec!["/api/v1/games/malacca".to_owned()],
    );
    f.insert(
        "/api/v1/matches",
        vec![
            "/api/v1/matches".to_owned(),
            format!("/api/v1/matches?player={name}"),
        ],
    );
    f.insert(
        "/api/v1/matches/{id}",
        vec![format!("/api/v1/matches/{id}")],
    );
    f.insert(
        "/api/v1/matches/{id}/moves",
        vec![format!("/api/v1/matches/{id}/moves")],
    );
    f.insert(
        "/api/v1/matches/{id}/events",
        vec![format!("/api/v1/matches/{id}/events")],
    );
    f.insert(
        "/api/v1/matches/{id}/rounds",
        vec![format!("/api/v1/matches/{id}/rounds")],
    );
    // Every position up to past the current step of the scenarios: the
    // current one holds the sealed moves already played in it.
    f.insert(
        "/api/v1/matches/{id}/positions/{step}",
        (0..8)
            .map(|step| format!("/api/v1/matches/{id}/positions/{step}"))
            .collect(),
    );
    f.insert(
        "/api/v1/leaderboards/{game}",
        vec!["/api/v1/leaderboards/malacca?min_games=0".to_owned()],
    );
    // The lobby tells of public matches as lists show them.
    f.insert(
        "/api/v1/lobby/events",
        vec!["/api/v1/lobby/events?limit=200".to_owned()],
    );
    f.insert(
        "/api/v1/exports/matches",
        vec![
            "/api/v1/exports/matches".to_owned(),
            "/api/v1/exports/matches?positions=true".to_owned(),
        ],
    );
    f.insert(
        "/api/v1/matches/{id}/export",
        vec![format!("/api/v1/matches/{id}/export")],
    );
    f.insert(
        "/api/v1/players/{name}/stats",
        vec![format!("/api/v1/players/{name}/stats?include=positions")],
    );
    f.insert(
        "/api/v1/games/{game}/stats",
        vec!["/api/v1/games/malacca/stats?include=positions".to_owned()],
    );
    f.insert(
        "/api/v1/players/{name}/ratings",
        vec![format!("/api/v1/players/{name}/ratings")],
    );
    // Clubs hold no match contents: their lists, and an unknown club's pages.
    let club = "00000000-0000-7000-8000-000000000000";
    f.insert("/api/v1/clubs", vec!["/api/v1/clubs".to_owned()]);
    f.insert(
        "/api/v1/players/me/clubs",
        vec!["/api/v1/players/me/clubs".to_owned()],
    );
    f.insert("/api/v1/clubs/{id}", vec![format!("/api/v1/clubs/{club}")]);
    f.insert(
        "/api/v1/clubs/{id}/members",
        vec![format!("/api/v1/clubs/{club}/members")],
    );
    f.insert(
        "/api/v1/clubs/{id}/leaderboards/{game}",
        vec![format!("/api/v1/clubs/{club}/leaderboards/malacca")],
    );
    // No tournament here: a tournament shows its matches' ids and results,
    // never their moves.
    f.insert(
        "/api/v1/tournaments",
        vec!["/api/v1/tournaments".to_owned()],
    );
    f.insert(
        "/api/v1/tournaments/{id}",
        vec![format!("/api/v1/tournaments/{}", uuid::Uuid::nil())],
    );
    // Each reader's own settings (the author's address is the author's alone),
    // and an unsubscribe link nobody here holds.
    f.insert(
        "/api/v1/players/me/notifications",
        vec!["/api/v1/players/me/notifications".to_owned()],
    );
    f.insert(
        "/api/v1/players/me/vacation",
        vec!["/api/v1/players/me/vacation".to_owned()],
    );
    f.insert(
        "/api/v1/unsubscribe",
        vec![format!(
            "/api/v1/unsubscribe?token={}.your_turn.{}",
            uuid::Uuid::nil().simple(),
            "0".repeat(32)
        )],
    );
    // The consent page's reading of an authorization request: the request's
    // own words back, nothing of any match.
    f.insert(
        "/api/v1/oauth/authorization",
        vec![
            "/api/v1/oauth/authorization?response_type=code&client_id=leak&scope=read\
             &redirect_uri=https%3A%2F%2Fapp.example%2Fcb&code_challenge_method=S256\
             &code_challenge=1weCmkwi6SCXy39BcGDSIiwJwkm5uzqGg03NDnQ2U4w"
                .to_owned(),
        ],
    );
    // Admins only: anybody else reads a 401 or 403 problem.
    f.insert(
        "/api/v1/admin/audit",
        vec!["/api/v1/admin/audit".to_owned()],
    );
    f
}

/// Every body a non-author can read: every GET operation as `reader` (or
/// anonymously), and the error bodies of moves it may try.
async fn readable(
    app: &TestApp,
    id: &str,
    author: &Player,
    reader: Option<&Player>,
) -> Vec<(String, String)> {
    let spec = sealed_orders::openapi::spec_json(&sealed_orders::service::registry::all_games());
    let fixtures = fixtures(id, &author.name);
    let mut bodies = Vec::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        if item.get("get").is_none() {
            continue;
        }
        let urls = fixtures
            .get(path.as_str())
            .unwrap_or_else(|| panic!("the leak test has no fixture for GET {path}: add one"));
        for url in urls {
            let r = app.get(url, reader.map(|p| p.token.as_str())).await;
            let mut text = r.text;
            // An export carries the public component data, which names every card.
            if url.ends_with("/export")
                && let Ok(mut v) = serde_json::from_str::<Value>(&text)
            {
                v["data"] = Value::Null;
                text = v.to_string();
            }
            // A game's options schema names every card its options may name.
            if url.starts_with("/api/v1/games")
                && !url.contains("/stats")
                && let Ok(mut v) = serde_json::from_str::<Value>(&text)
            {
                match &mut v {
                    Value::Array(games) => games
                        .iter_mut()
                        .for_each(|g| g["options_schema"] = Value::Null),
                    g => g["options_schema"] = Value::Null,
                }
                text = v.to_string();
            }
            bodies.push((format!("GET {url}"), text));
            // The event lists are also streams: read what a stream gives.
            if url.ends_with("/events") && (reader.is_some() || !url.contains("/me/")) {
                let (_, text) = app
                    .stream(
                        url,
                        reader.map(|p| p.token.as_str()),
                        None,
                        std::time::Duration::from_millis(1000),
                        |_| false,
                    )
                    .await;
                bodies.push((format!("STREAM {url}"), sse_normalized(&text)));
            }
        }
    }
    if let Some(p) = reader {
        for action in [
            // Always refused: not in hand, too high a stake, or the wrong phase.
            json!({"type": "play", "card": "trade2", "stake": 9}),
            json!({"type": "play", "card": "attack", "stake": 99}),
            json!({"type": "choose", "kind": "attack"}),
        ] {
            for step in [0, 1, 5] {
                let r = app.submit(id, p, step, action.clone()).await;
                bodies.push((format!("POST moves step {step}"), r.text));
            }
        }
    }
    bodies
}

fn assert_hidden(bodies: &[(String, String)], secret: &str, who: &str) {
    for (what, body) in bodies {
        assert!(
            !body.contains(secret),
            "{who} sees {secret:?} in {what}: {body}"
        );
    }
}

async fn scenario(stakes: &str) -> (TestApp, Vec<Player>, String) {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [8, 9], "special_deck": ["trade2", "defense2"],
        "players": [
            {"coins": 5, "specials": ["attack2"]},
            {"coins": 5, "specials": []},
            {"coins": 5, "specials": []}
        ]
    });
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"position": position, "stakes": stakes}),
        )
        .await;
    (app, players, id)
}

#[tokio::test]
async fn a_face_down_card_is_seen_by_nobody_but_its_author_in_open_betting() {
    let (app, players, id) = scenario("open_sequential").await;
    app.submit(
        &id,
        &players[0],
        0,
        json!({"type": "play", "card": "attack2", "stake": 2}),
    )
    .await
    .expect(200);
    for (who, reader) in [
        ("seat 1", Some(&players[1])),
        ("seat 2", Some(&players[2])),
        ("a spectator", None),
    ] {
        let bodies = readable(&app, &id, &players[0], reader).await;
        assert_hidden(&bodies, "attack2", who);
        let m = app.match_as(&id, reader).await;
        let seat0 = &m["view"]["players"][0];
        assert_eq!(
            seat0["special_count"], 1,
            "{who}: the count of specials does not move"
        );
        assert_eq!(seat0["coins"], 3, "{who}: an open stake is public");
        assert_eq!(seat0["stake"], 2);
        assert_eq!(seat0["has_played"], true);
    }
    // The author sees its own card: the test can see what it looks for.
    let own = app.match_as(&id, Some(&players[0])).await;
    assert!(own.to_string().contains("attack2"));
    // Once the round is revealed, everybody sees the card.
    app.submit(
        &id,
        &players[1],
        1,
        json!({"type": "play", "card": "defense", "stake": 0}),
    )
    .await
    .expect(200);
    app.submit(
        &id,
        &players[2],
        2,
        json!({"type": "play", "card": "defense", "stake": 0}),
    )
    .await
    .expect(200);
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    assert_eq!(rounds["items"][0]["seats"][0]["card"], "attack2");
    // Drawn specials stay private: seats 1 and 2 defended and drew, and nobody else learns which.
    let drawn = app.match_as(&id, Some(&players[2])).await["view"]["hand"].clone();
    let secret = drawn
        .as_array()
        .expect("hand")
        .iter()
        .filter_map(Value::as_str)
        .find(|c| !["attack", "defense", "trade"].contains(c))
        .expect("seat 2 drew a special card")
        .to_owned();
    for (who, reader) in [("seat 1", Some(&players[1])), ("a spectator", None)] {
        let bodies = readable(&app, &id, &players[0], reader).await;
        let leaked: Vec<&String> = bodies
            .iter()
            .filter(|(_, b)| {
                b.contains(&format!(
                    "\"hand\":[\"attack\",\"defense\",\"trade\",\"{secret}\"]"
                ))
            })
            .map(|(w, _)| w)
            .collect();
        assert!(leaked.is_empty(), "{who} sees seat 2's hand in {leaked:?}");
        let m = app.match_as(&id, reader).await;
        assert_eq!(m["view"]["players"][2]["special_count"], 1);
    }
}

#[tokio::test]
async fn a_sealed_stake_moves_no_public_balance_until_the_reveal() {
    let (app, players, id) = scenario("sealed").await;
    app.submit(
        &id,
        &players[0],
        0,
        json!({"type": "play", "card": "attack2", "stake": 4}),
    )
    .await
    .expect(200);
    for (who, reader) in [
        ("seat 1", Some(&players[1])),
        ("seat 2", Some(&players[2])),
        ("a spectator", None),
    ] {
        let bodies = readable(&app, &id, &players[0], reader).await;
        assert_hidden(&bodies, "attack2", who);
        let m = app.match_as(&id, reader).await;
        let seat0 = &m["view"]["players"][0];
        assert_eq!(
            seat0["coins"], 5,
            "{who}: the balance is the start-of-betting one"
        );
        assert_eq!(seat0["stake"], Value::Null);
        assert_eq!(seat0["special_count"], 1);
        assert_eq!(seat0["has_played"], true);
        let moves = app
            .get(
                &format!("/api/v1/matches/{id}/moves"),
                reader.map(|p| p.token.as_str()),
            )
            .await
            .expect(200);
        assert_eq!(moves["items"][0]["sealed"], true);
        assert!(
            !moves.to_string().contains("\"stake\":4"),
            "{who} sees the sealed stake"
        );
    }
    let own = app.match_as(&id, Some(&players[0])).await;
    assert_eq!(own["view"]["players"][0]["coins"], 1);
}

/// Sealed-move receipts: the mover gets the commitment and its nonce at once;
/// everybody else sees the commitment but no nonce until the reveal, when the
/// nonce is published and the two hash to the commitment with the move.
#[tokio::test]
async fn a_sealed_move_is_committed_at_once_and_its_nonce_published_at_the_reveal() {
    use sealed_orders::service::commitment::commitment;
    let (app, players, id) = scenario("sealed").await;
    let action = json!({"type": "play", "card": "attack2", "stake": 4});
    let receipt = app
        .submit(&id, &players[0], 0, action.clone())
        .await
        .expect(200);
    let c = receipt["commitment"]
        .as_str()
        .expect("a commitment")
        .to_owned();
    let nonce = receipt["nonce"]
        .as_str()
        .expect("the mover's nonce")
        .to_owned();
    let match_id: uuid::Uuid = id.parse().expect("uuid");
    assert_eq!(c, commitment(match_id, 0, 0, &action, &nonce));
    for (who, reader) in [("seat 1", Some(&players[1])), ("a spectator", None)] {
        let moves = app
            .get(
                &format!("/api/v1/matches/{id}/moves"),
                reader.map(|p| p.token.as_str()),
            )
            .await
            .expect(200);
        let mv = &moves["items"][0];
        assert_eq!(mv["sealed"], true);
        assert_eq!(mv["commitment"], c.as_str(), "{who} sees the commitment");
        assert!(
            mv["nonce"].is_null(),
            "{who} sees the nonce before the reveal"
        );
        let bodies = readable(&app, &id, &players[0], reader).await;
        assert!(
            bodies.iter().all(|(_, b)| !b.contains(&nonce)),
            "{who} can read the nonce somewhere"
        );
    }
    // The others move; the step resolves and the moves are revealed.
    for p in &players[1..] {
        app.submit(
            &id,
            p,
            0,
            json!({"type": "play", "card": "defense", "stake": 0}),
        )
        .await
        .expect(200);
    }
    let moves = app
        .get(&format!("/api/v1/matches/{id}/moves"), None)
        .await
        .expect(200);
    for mv in moves["items"].as_array().expect("moves") {
        assert_eq!(mv["sealed"], false, "{mv}");
        let n = mv["nonce"].as_str().expect("the nonce, once revealed");
        let seat = mv["seat"].as_u64().expect("seat") as usize;
        let step = mv["step"].as_i64().expect("step");
        assert_eq!(
            mv["commitment"].as_str().expect("commitment"),
            commitment(match_id, step, seat, &mv["action"], n),
            "{mv}"
        );
    }
    assert_eq!(moves["items"][0]["nonce"], nonce.as_str());
}

/// A sealed move replaced before its step's reveal is its author's alone until
/// the match is over: the others and anonymous readers see its commitment (and
/// that it was replaced), never its action or its nonce, on any endpoint, before
/// the reveal and after it; once the match is over it is public, so the export
/// can check it.
#[tokio::test]
async fn a_replaced_sealed_move_is_its_authors_alone_until_the_match_is_over() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let position = json!({
        "round": 1, "captain": 0, "ships": [8, 9], "special_deck": ["trade2", "defense2"],
        "players": [
            {"coins": 5, "specials": ["wait_defense_trade"]},
            {"coins": 5, "specials": []},
            {"coins": 5, "specials": []}
        ]
    });
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"position": position, "stakes": "sealed"}),
        )
        .await;
    let first = json!({"type": "play", "card": "wait_defense_trade", "stake": 3});
    let withdrawn = app
        .submit(&id, &players[0], 0, first.clone())
        .await
        .expect(200);
    let withdrawn_nonce = withdrawn["nonce"].as_str().expect("a nonce").to_owned();
    app.submit(
        &id,
        &players[0],
        0,
        json!({"type": "play", "card": "attack", "stake": 1}),
    )
    .await
    .expect(200);
    let others = [
        ("seat 1", Some(&players[1])),
        ("seat 2", Some(&players[2])),
        ("an anonymous reader", None),
    ];
    for (who, reader) in others {
        let bodies = readable(&app, &id, &players[0], reader).await;
        assert_hidden(&bodies, "wait_defense_trade", who);
        assert_hidden(&bodies, "\"stake\":3", who);
        assert_hidden(&bodies, &withdrawn_nonce, who);
    }
    // The others move: the round is revealed, and the withdrawn move stays
    // its author's.
    for p in &players[1..] {
        app.submit(
            &id,
            p,
            0,
            json!({"type": "play", "card": "defense", "stake": 0}),
        )
        .await
        .expect(200);
    }
    let rounds = app
        .get(&format!("/api/v1/matches/{id}/rounds"), None)
        .await
        .expect(200);
    assert_eq!(rounds["items"][0]["seats"][0]["card"], "attack");
    for (who, reader) in others {
        let bodies = readable(&app, &id, &players[0], reader).await;
        assert_hidden(&bodies, "wait_defense_trade", who);
        assert_hidden(&bodies, &withdrawn_nonce, who);
        let moves = app
            .get(
                &format!("/api/v1/matches/{id}/moves"),
                reader.map(|p| p.token.as_str()),
            )
            .await
            .expect(200);
        let replaced = moves["items"]
            .as_array()
            .expect("moves")
            .iter()
            .find(|m| m["replaced"] == true)
            .expect("the replaced move is listed");
        assert_eq!(replaced["sealed"], true, "{who}: {replaced}");
        assert_eq!(replaced["commitment"], withdrawn["commitment"], "{who}");
        assert!(replaced["nonce"].is_null(), "{who}: {replaced}");
    }
    // Its author reads it whole.
    let own = app
        .get(
            &format!("/api/v1/matches/{id}/moves"),
            Some(&players[0].token),
        )
        .await
        .expect(200);
    assert!(own.to_string().contains("wait_defense_trade"));
    // Once the match is over, everybody reads it, and it hashes to its commitment.
    app.play_to_end(&id, &players, 7).await;
    let moves = app
        .get(&format!("/api/v1/matches/{id}/moves"), None)
        .await
        .expect(200);
    let replaced = moves["items"]
        .as_array()
        .expect("moves")
        .iter()
        .find(|m| m["replaced"] == true)
        .expect("the replaced move is listed")
        .clone();
    assert_eq!(replaced["action"], first);
    assert_eq!(replaced["nonce"], withdrawn_nonce.as_str());
    let export = app
        .get(&format!("/api/v1/matches/{id}/export"), None)
        .await
        .expect(200);
    let in_bundle = export["moves"]
        .as_array()
        .expect("the bundle's moves")
        .iter()
        .find(|m| m["replaced"] == true)
        .expect("the bundle lists the replaced move")
        .clone();
    assert_eq!(in_bundle["action"], first);
    assert_eq!(in_bundle["nonce"], withdrawn_nonce.as_str());
}

/// Replaces what differs between two runs of one scenario for reasons other than
/// the game (ids, times, hashes, cursors).
fn normalize(v: &mut Value) {
    match v {
        Value::String(s) => {
            let uuid = s.len() == 36 && [8, 13, 18, 23].iter().all(|i| s.as_bytes()[*i] == b'-');
            let hex64 = s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
            let time = chrono::DateTime::parse_from_rfc3339(s).is_ok();
            if uuid || hex64 || time {
                *s = "<varies>".into();
            }
        }
        Value::Array(a) => a.iter_mut().for_each(normalize),
        Value::Object(o) => {
            for (k, x) in o.iter_mut() {
                if k == "next_cursor" && !x.is_null() {
                    *x = "<cursor>".into();
                } else {
                    normalize(x);
                }
            }
        }
        _ => {}
    }
}

/// A stream's text with every event's data normalized as a JSON body is, and
/// positions (`id:` lines, which carry transaction ids on Postgres) left out.
fn sse_normalized(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("id:"))
        .map(|l| match l.strip_prefix("data: ") {
            Some(json) => match serde_json::from_str::<Value>(json) {
                Ok(mut v) => {
                    normalize(&mut v);
                    format!("data: {v}")
                }
                Err(_) => l.to_owned(),
            },
            None => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn normalized(bodies: Vec<(String, String)>) -> Vec<(String, String)> {
    bodies
        .into_iter()
        .map(|(what, body)| {
            let what = what
                .split('/')
                .map(|seg| if seg.len() == 36 { "<id>" } else { seg })
                .collect::<Vec<_>>()
                .join("/");
            match serde_json::from_str::<Value>(&body) {
                Ok(mut v) => {
                    normalize(&mut v);
                    (what, v.to_string())
                }
                Err(_) => (what, body),
            }
        })
        .collect()
}

/// Waits until each player's feed holds every public event of the match: on
/// Postgres the feed holds events back while older transactions (other tests')
/// are open, and a feed read a moment too early would differ between the two
/// runs by timing alone.
async fn settle_feeds(app: &TestApp, id: &str, players: &[Player]) {
    let public = app
        .get(&format!("/api/v1/matches/{id}/events"), None)
        .await
        .expect(200)["items"]
        .as_array()
        .map_or(0, Vec::len);
    for p in players {
        for _ in 0..200 {
            let feed = app
                .get("/api/v1/players/me/events", Some(&p.token))
                .await
                .expect(200);
            if feed["items"].as_array().map_or(0, Vec::len) >= public {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
}

/// Plays the same position twice, with seat 0 placing a different sealed move
/// each time: everything every other seat and a spectator can read must be the
/// same in both runs. Game-agnostic, so it covers every game whatever it shows.
async fn differential(game: &str, seats: usize, options: Value, move_a: Value, move_b: Value) {
    let mut runs = Vec::new();
    for action in [move_a, move_b] {
        let app = spawn_app().await;
        let players = app.players(seats).await;
        let id = app.started_match(&players, game, options.clone()).await;
        let step = app.match_as(&id, None).await["step"]
            .as_i64()
            .expect("step");
        app.submit(&id, &players[0], step, action).await.expect(200);
        settle_feeds(&app, &id, &players[1..]).await;
        let mut seen = Vec::new();
        for reader in std::iter::once(None).chain(players[1..].iter().map(Some)) {
            seen.push(normalized(readable(&app, &id, &players[0], reader).await));
        }
        runs.push(seen);
    }
    for (reader, (a, b)) in runs[0].iter().zip(&runs[1]).enumerate() {
        for ((what, x), (_, y)) in a.iter().zip(b) {
            // Metrics hold timings, which differ between any two runs; they count
            // requests and moves per game, never what a move was.
            if what.starts_with("GET /metrics") {
                continue;
            }
            assert_eq!(
                x, y,
                "{game}: reader {reader} can tell seat 0's sealed move apart in {what}"
            );
        }
    }
}

#[tokio::test]
async fn malacca_sealed_moves_are_indistinguishable_to_everybody_else() {
    let position = json!({
        "round": 1, "captain": 0, "ships": [8, 9], "special_deck": ["trade2"],
        "players": [
            {"coins": 5, "specials": ["attack2"]},
            {"coins": 5, "specials": []},
            {"coins": 5, "specials": []}
        ]
    });
    differential(
        "malacca",
        3,
        json!({"position": position, "stakes": "sealed"}),
        json!({"type": "play", "card": "attack2", "stake": 3}),
        json!({"type": "play", "card": "trade", "stake": 0}),
    )
    .await;
}

#[tokio::test]
async fn heretics_sealed_personalities_are_indistinguishable_to_everybody_else() {
    let position = crate::helpers::heretics_position();
    differential(
        "heretics",
        3,
        json!({"position": position}),
        json!({"type": "play", "card": "hussites:1"}),
        json!({"type": "play", "card": "hussites:11"}),
    )
    .await;
}

#[tokio::test]
async fn kontor_sealed_choices_are_indistinguishable_to_everybody_else() {
    let position = json!({
        "round": 5,
        "board": [
            {"x": 0, "y": 0, "card": "centre"},
            {"x": -1, "y": 0, "card": "water_50"},
            {"x": 1, "y": 0, "card": "water_52"},
            {"x": -1, "y": -1, "card": "red_27", "played_by": 0}
        ],
        "ship": {"x": 1, "y": 0},
        "players": [
            {"hand": ["red_1", "water_54"], "harbour_deck": ["red_3"], "money": 3},
            {"hand": ["black_2"], "harbour_deck": [], "money": 6}
        ],
        "water_deck": ["water_56", "water_58"],
        "last_round_all_passed": false
    });
    differential(
        "kontor",
        2,
        json!({"variant": "duel", "position": position}),
        json!({"type": "choose", "card": "red_1"}),
        json!({"type": "pass"}),
    )
    .await;
}

/// A private match does not exist for anybody outside it: every GET operation of
/// the spec (streams and move errors included) reads for an outsider and for an
/// anonymous reader exactly as it did before the match was made, with an id no
/// match has in its place; for one being played (a sealed move down) and for a
/// finished one alike.
#[tokio::test]
async fn a_private_match_reads_as_no_match_at_all_to_everybody_outside_it() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let outsider = app.player("outsider").await;
    let invitee = app.player("invitee").await;
    let readers = [None, Some(&outsider)];
    let ghost = uuid::Uuid::now_v7().to_string();
    let mut before = Vec::new();
    for reader in readers {
        before.push(normalized(
            readable(&app, &ghost, &players[0], reader).await,
        ));
    }
    let position = json!({
        "round": 1, "captain": 0, "ships": [8, 9], "special_deck": ["trade2", "defense2"],
        "players": [
            {"coins": 5, "specials": ["attack2"]},
            {"coins": 5, "specials": []},
            {"coins": 5, "specials": []}
        ]
    });
    let mut ids = Vec::new();
    for (game, seats, options) in [
        (
            "malacca",
            3,
            json!({"position": position, "stakes": "sealed"}),
        ),
        ("cairo", 2, json!({})),
    ] {
        let m = app
            .post(
                "/api/v1/matches",
                Some(&players[0].token),
                &json!({"game": game, "seats": seats, "options": options,
                        "visibility": "private", "spectators": true,
                        "invite": [invitee.name]}),
            )
            .await
            .expect(201);
        let id = m["id"].as_str().expect("id").to_owned();
        let code = m["join_code"].as_str().expect("code").to_owned();
        for p in &players[1..seats] {
            app.post(
                &format!("/api/v1/matches/{id}/join"),
                Some(&p.token),
                &json!({"code": code}),
            )
            .await
            .expect(200);
        }
        // Its chat is as secret as the rest of it.
        app.post(
            &format!("/api/v1/matches/{id}/messages"),
            Some(&players[0].token),
            &json!({"text": "a word among friends"}),
        )
        .await
        .expect(201);
        ids.push(id);
    }
    app.submit(
        &ids[0],
        &players[0],
        0,
        json!({"type": "play", "card": "attack2", "stake": 2}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{}/resign", ids[1]),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    assert_eq!(
        app.match_as(&ids[1], Some(&players[0])).await["status"],
        "finished"
    );
    for id in &ids {
        for (i, reader) in readers.iter().enumerate() {
            let after = normalized(readable(&app, id, &players[0], *reader).await);
            assert_eq!(after.len(), before[i].len());
            for ((what, x), (_, y)) in before[i].iter().zip(&after) {
                // Metrics count requests and matches per game, never one match.
                if what.starts_with("GET /metrics") {
                    continue;
                }
                assert_eq!(
                    x, y,
                    "reader {i} can tell that private match {id} exists from {what}"
                );
            }
        }
    }
    // Its players and its invitee do read it.
    app.match_as(&ids[0], Some(&players[2])).await;
    app.match_as(&ids[0], Some(&invitee)).await;
}

/// A generated client sends a token only to operations that declare `security`;
/// so an operation that declares none must answer a seat as it answers anybody,
/// or a bot reading through such a client would be shown less than it may see.
#[tokio::test]
async fn an_operation_declaring_no_security_answers_a_player_as_it_answers_anybody() {
    let (app, players, id) = scenario("sealed").await;
    let spec = sealed_orders::openapi::spec_json(&sealed_orders::service::registry::all_games());
    let fixtures = fixtures(&id, &players[0].name);
    let mut checked = 0;
    for (path, item) in spec["paths"].as_object().expect("paths") {
        let Some(get) = item.get("get") else { continue };
        if get.get("security").is_some() || path == "/metrics" {
            continue;
        }
        for url in &fixtures[path.as_str()] {
            let body = |text: String| serde_json::from_str(&text).unwrap_or(Value::String(text));
            let mut anybody = body(app.get(url, None).await.text);
            let mut seat = body(app.get(url, Some(&players[0].token)).await.text);
            normalize(&mut anybody);
            normalize(&mut seat);
            assert_eq!(
                seat, anybody,
                "GET {url} declares no security but answers a seat apart"
            );
            checked += 1;
        }
    }
    assert!(checked > 5, "{checked}");
}

/// An address is its owner's alone: no GET operation shows it to another
/// player or anonymously, nor in any export (the owner's own included), while
/// its owner reads it in their settings.
#[tokio::test]
async fn an_address_is_seen_by_nobody_but_its_owner() {
    let (app, players, id) = scenario("open_sequential").await;
    let address = "secret.owner@example.org";
    app.send(
        reqwest::Method::PUT,
        "/api/v1/players/me/email",
        Some(&players[0].token),
        Some(&json!({"address": address})),
    )
    .await
    .expect(202);
    app.play_to_end(&id, &players, 3).await;
    for reader in [Some(&players[1]), Some(&players[2]), None] {
        let bodies = readable(&app, &id, &players[0], reader).await;
        assert_hidden(&bodies, address, "another reader");
    }
    let own = readable(&app, &id, &players[0], Some(&players[0])).await;
    let (mine, rest): (Vec<_>, Vec<_>) = own
        .into_iter()
        .partition(|(what, _)| what == "GET /api/v1/players/me/notifications");
    assert_hidden(&rest, address, "its owner, outside the settings");
    assert!(mine[0].1.contains(address));
}
