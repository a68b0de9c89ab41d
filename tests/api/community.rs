//! Playing with people one chooses: visibility (public, unlisted, private),
//! spectators, join codes and seat choice.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app};

async fn create(app: &TestApp, owner: &Player, body: Value) -> Value {
    app.post("/api/v1/matches", Some(&owner.token), &body)
        .await
        .expect(201)
}

fn id_of(m: &Value) -> String {
    m["id"].as_str().expect("id").to_owned()
}

fn listed_ids(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| m["id"].as_str().expect("id").to_owned())
        .collect()
}

#[tokio::test]
async fn a_match_created_without_visibility_is_public_and_watchable_with_no_join_code() {
    let app = spawn_app().await;
    let players = app.players(1).await;
    let m = create(&app, &players[0], json!({"game": "malacca", "seats": 3})).await;
    assert_eq!(m["visibility"], "public");
    assert_eq!(m["spectators"], true);
    assert!(m["join_code"].is_null());
    let lobby = app.get("/api/v1/matches", None).await.expect(200);
    assert!(listed_ids(&lobby).contains(&id_of(&m)));
}

#[tokio::test]
async fn an_unlisted_match_is_left_out_of_lists_but_read_and_joined_by_id() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let m = create(
        &app,
        &players[0],
        json!({"game": "malacca", "seats": 3, "visibility": "unlisted"}),
    )
    .await;
    let id = id_of(&m);
    assert_eq!(m["visibility"], "unlisted");
    let code = m["join_code"].as_str().expect("the owner sees the code");
    assert_eq!(code.len(), 10);
    for reader in [None, Some(players[1].token.as_str())] {
        for list in [
            "/api/v1/matches".to_owned(),
            format!("/api/v1/matches?player={}", players[0].name),
        ] {
            let page = app.get(&list, reader).await.expect(200);
            assert!(!listed_ids(&page).contains(&id), "{list} lists it");
        }
        let read = app.get(&format!("/api/v1/matches/{id}"), reader).await;
        let read = read.expect(200);
        assert!(read["join_code"].is_null(), "only the owner sees the code");
    }
    // Its owner finds it among its own.
    let own = app
        .get("/api/v1/matches", Some(&players[0].token))
        .await
        .expect(200);
    assert!(listed_ids(&own).contains(&id));
    // Anyone with the id may join it.
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
}

#[tokio::test]
async fn a_private_match_is_joined_with_its_code_and_is_not_found_without_it() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let m = create(
        &app,
        &players[0],
        json!({"game": "malacca", "seats": 3, "visibility": "private"}),
    )
    .await;
    let id = id_of(&m);
    assert_eq!(m["rated"], false, "a private match is never rated");
    assert_eq!(m["spectators"], false, "private: no spectators by default");
    let code = m["join_code"].as_str().expect("code").to_owned();
    let outsider = &players[2];
    // Without the code the match does not exist, for reads and for every action.
    let unknown = uuid::Uuid::now_v7();
    for path in [
        format!("/api/v1/matches/{id}"),
        format!("/api/v1/matches/{unknown}"),
    ] {
        app.get(&path, Some(&outsider.token))
            .await
            .problem(404, "match_not_found");
    }
    for action in ["join", "leave", "start", "cancel", "resign", "return"] {
        app.post(
            &format!("/api/v1/matches/{id}/{action}"),
            Some(&outsider.token),
            &json!({}),
        )
        .await
        .problem(404, "match_not_found");
    }
    app.post(
        &format!("/api/v1/matches/{id}/bots"),
        Some(&outsider.token),
        &json!({"kind": "random"}),
    )
    .await
    .problem(404, "match_not_found");
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&outsider.token),
        &json!({"code": "ABCDEFGHJK"}),
    )
    .await
    .problem(404, "match_not_found");
    // With the code (typed loosely), by id or by the code alone.
    let loose = format!("{}-{}", &code[..5], &code[5..]).to_lowercase();
    let joined = app
        .post(
            &format!("/api/v1/matches/{id}/join"),
            Some(&players[1].token),
            &json!({"code": loose}),
        )
        .await
        .expect(200);
    assert_eq!(joined["your_seat"], 1);
    assert!(joined["join_code"].is_null());
    let joined = app
        .post(
            "/api/v1/matches/join",
            Some(&outsider.token),
            &json!({"code": code}),
        )
        .await
        .expect(200);
    assert_eq!(joined["id"], id.as_str());
    assert_eq!(joined["status"], "active");
    // Seated players read it; an anonymous reader still does not.
    app.get(&format!("/api/v1/matches/{id}"), Some(&players[1].token))
        .await
        .expect(200);
    app.get(&format!("/api/v1/matches/{id}"), None)
        .await
        .problem(404, "match_not_found");
    // The lobby shows it to its players only.
    let mine = app
        .get("/api/v1/matches", Some(&players[1].token))
        .await
        .expect(200);
    assert!(listed_ids(&mine).contains(&id));
    let lobby = app.get("/api/v1/matches", None).await.expect(200);
    assert!(!listed_ids(&lobby).contains(&id));
}

#[tokio::test]
async fn join_by_code_refuses_unknown_and_malformed_codes() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let m = create(
        &app,
        &players[0],
        json!({"game": "malacca", "seats": 3, "visibility": "private"}),
    )
    .await;
    let code = m["join_code"].as_str().expect("code");
    let other = if code.starts_with('A') { "B" } else { "A" };
    let wrong = format!("{other}{}", &code[1..]);
    app.post(
        "/api/v1/matches/join",
        Some(&players[1].token),
        &json!({"code": wrong}),
    )
    .await
    .problem(404, "join_code_not_found");
    for bad in ["", "short", "0000000000", "ABCDEFGHJKX"] {
        app.post(
            "/api/v1/matches/join",
            Some(&players[1].token),
            &json!({"code": bad}),
        )
        .await
        .problem(422, "invalid_join_code");
    }
    app.post("/api/v1/matches/join", None, &json!({"code": code}))
        .await
        .problem(401, "unauthorized");
    // Nothing changed.
    let after = app.match_as(&id_of(&m), Some(&players[0])).await;
    assert_eq!(after["version"], m["version"]);
}

#[tokio::test]
async fn a_player_chooses_a_free_seat_and_bad_choices_change_nothing() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let m = create(&app, &players[0], json!({"game": "malacca", "seats": 3})).await;
    let id = id_of(&m);
    let join = format!("/api/v1/matches/{id}/join");
    let joined = app
        .post(&join, Some(&players[1].token), &json!({"seat": 2}))
        .await
        .expect(200);
    assert_eq!(joined["your_seat"], 2);
    assert_eq!(
        joined["seats"][2]["player"]["name"],
        players[1].name.as_str()
    );
    let version = joined["version"].clone();
    for (body, status, code) in [
        (json!({"seat": 2}), 409, "seat_taken"),
        (json!({"seat": 3}), 422, "invalid_seat"),
        (json!({"seat": -1}), 422, "invalid_seat"),
        (json!({"seat": "one"}), 422, "invalid_body"),
        (json!({"chair": 1}), 422, "invalid_body"),
    ] {
        app.post(&join, Some(&players[2].token), &body)
            .await
            .problem(status, code);
    }
    let r = app
        .send_with_headers(
            Method::POST,
            &join,
            Some(&players[2].token),
            None,
            &[("content-type", "application/json")],
        )
        .await;
    // An empty body is no choice at all: the lowest free seat.
    let joined = r.expect(200);
    assert_eq!(joined["your_seat"], 1);
    assert_eq!(joined["status"], "active");
    assert_eq!(
        joined["version"].as_i64().expect("version"),
        version.as_i64().expect("version") + 2,
        "one join and the start, nothing from the refusals"
    );
}

#[tokio::test]
async fn a_match_without_spectators_is_closed_to_outsiders_until_it_is_over() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let m = create(
        &app,
        &players[0],
        json!({"game": "cairo", "seats": 2, "spectators": false}),
    )
    .await;
    let id = id_of(&m);
    assert_eq!(m["visibility"], "public");
    assert_eq!(m["spectators"], false);
    // Waiting: the lobby shows it, and it may be read before joining.
    app.get(&format!("/api/v1/matches/{id}"), None)
        .await
        .expect(200);
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    for path in ["", "/moves", "/events", "/rounds", "/export"] {
        let url = format!("/api/v1/matches/{id}{path}");
        for reader in [None, Some(players[2].token.as_str())] {
            app.get(&url, reader)
                .await
                .problem(403, "spectators_not_allowed");
        }
        app.get(&url, Some(&players[1].token)).await.expect(200);
    }
    let (status, _) = app
        .stream(
            &format!("/api/v1/matches/{id}/events"),
            None,
            None,
            std::time::Duration::from_millis(200),
            |_| true,
        )
        .await;
    assert_eq!(status.as_u16(), 403);
    // Over: everybody may read it.
    app.post(
        &format!("/api/v1/matches/{id}/resign"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    let over = app.match_as(&id, None).await;
    assert_eq!(over["status"], "finished");
}

#[tokio::test]
async fn bad_visibility_options_are_refused_and_create_nothing() {
    let app = spawn_app().await;
    let players = app.players(1).await;
    for (body, status, code) in [
        (
            json!({"game": "malacca", "seats": 3, "visibility": "secret"}),
            422,
            "invalid_visibility",
        ),
        (
            json!({"game": "malacca", "seats": 3, "visibility": 1}),
            422,
            "invalid_body",
        ),
        (
            json!({"game": "malacca", "seats": 3, "spectators": "no"}),
            422,
            "invalid_body",
        ),
    ] {
        app.post("/api/v1/matches", Some(&players[0].token), &body)
            .await
            .problem(status, code);
    }
    let mine = app
        .get("/api/v1/matches", Some(&players[0].token))
        .await
        .expect(200);
    assert!(listed_ids(&mine).is_empty());
}

#[tokio::test]
async fn a_private_match_counts_in_no_public_statistics() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let m = create(
        &app,
        &players[0],
        json!({"game": "cairo", "seats": 2, "visibility": "private"}),
    )
    .await;
    let id = id_of(&m);
    let code = m["join_code"].as_str().expect("code");
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({"code": code}),
    )
    .await
    .expect(200);
    let stats = format!("/api/v1/players/{}/stats", players[0].name);
    let active = app.get(&stats, None).await.expect(200);
    assert_eq!(active["games"], json!([]), "{active}");
    app.post(
        &format!("/api/v1/matches/{id}/resign"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    let finished = app.get(&stats, None).await.expect(200);
    assert_eq!(finished["games"], json!([]), "{finished}");
    let game = app.get("/api/v1/games/cairo/stats", None).await.expect(200);
    assert_eq!(game["matches"], json!([]), "{game}");
    // Its players still read it whole, and its export.
    app.get(
        &format!("/api/v1/matches/{id}/export"),
        Some(&players[0].token),
    )
    .await
    .expect(200);
    app.get(&format!("/api/v1/matches/{id}/export"), None)
        .await
        .problem(404, "match_not_found");
    let exported = app.get("/api/v1/exports/matches", None).await;
    assert!(!exported.text.contains(&id), "bulk export lists it");
}
