//! Playing with people one chooses: visibility (public, unlisted, private),
//! spectators, join codes and seat choice.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, feed_kinds, spawn_app};

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
    // A long poll answers at once, as for no match, instead of waiting.
    let started = std::time::Instant::now();
    app.get(
        &format!("/api/v1/matches/{id}?after_version=999&wait=5"),
        Some(&outsider.token),
    )
    .await
    .problem(404, "match_not_found");
    assert!(started.elapsed() < std::time::Duration::from_secs(4));
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
    // The operator's rebuild of the totals from the history leaves it out too.
    let db = sealed_orders::store::connect(&app.settings)
        .await
        .expect("connect");
    sealed_orders::store::rebuild_stat_totals(&db, &mut |_, _, _| {})
        .await
        .expect("rebuild");
    let rebuilt = app.get("/api/v1/games/cairo/stats", None).await.expect(200);
    assert_eq!(rebuilt["matches"], json!([]), "{rebuilt}");
    let rebuilt = app.get(&stats, None).await.expect(200);
    assert_eq!(rebuilt["games"], json!([]), "{rebuilt}");
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

// ---------------------------------------------------------------- invitations

fn invitation_of<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|i| i["player"]["name"] == name)
        .unwrap_or_else(|| panic!("no invitation of {name} in {list}"))
}

#[tokio::test]
async fn invitees_find_a_private_match_accept_or_decline_and_the_owner_sees_who_answered() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let (owner, alice, bob, outsider) = (&players[0], &players[1], &players[2], &players[3]);
    let m = create(
        &app,
        owner,
        json!({"game": "malacca", "seats": 3, "visibility": "private",
               "invite": [alice.name, bob.name.to_uppercase()]}),
    )
    .await;
    let id = id_of(&m);
    // Each invitee finds it, may read it, and is told on its feed.
    for p in [alice, bob] {
        let mine = app
            .get("/api/v1/players/me/invitations", Some(&p.token))
            .await
            .expect(200);
        assert_eq!(mine["items"].as_array().expect("items").len(), 1, "{mine}");
        assert_eq!(mine["items"][0]["match_id"], id.as_str());
        assert_eq!(mine["items"][0]["invited_by"]["name"], owner.name.as_str());
        assert_eq!(mine["items"][0]["visibility"], "private");
        app.get(&format!("/api/v1/matches/{id}"), Some(&p.token))
            .await
            .expect(200);
        let kinds = feed_kinds(&app, p, "invitation_sent").await;
        assert!(kinds.iter().any(|k| k == "invitation_sent"), "{kinds:?}");
    }
    let none = app
        .get("/api/v1/players/me/invitations", Some(&outsider.token))
        .await
        .expect(200);
    assert_eq!(none["items"], json!([]));
    // Read once, after the invitees' feeds showed the invitation.
    let feed = app
        .get("/api/v1/players/me/events", Some(&outsider.token))
        .await
        .expect(200);
    assert_eq!(feed["items"], json!([]), "{feed}");
    app.get(
        &format!("/api/v1/matches/{id}/invitations"),
        Some(&outsider.token),
    )
    .await
    .problem(404, "match_not_found");
    // Alice accepts, choosing her seat; Bob declines.
    let joined = app
        .post(
            &format!("/api/v1/matches/{id}/invitations/accept"),
            Some(&alice.token),
            &json!({"seat": 2}),
        )
        .await
        .expect(200);
    assert_eq!(joined["your_seat"], 2);
    let declined = app
        .post(
            &format!("/api/v1/matches/{id}/invitations/decline"),
            Some(&bob.token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(declined["items"][0]["status"], "declined");
    let list = app
        .get(
            &format!("/api/v1/matches/{id}/invitations"),
            Some(&owner.token),
        )
        .await
        .expect(200);
    assert_eq!(invitation_of(&list, &alice.name)["status"], "accepted");
    assert_eq!(invitation_of(&list, &bob.name)["status"], "declined");
    assert!(invitation_of(&list, &bob.name)["answered_at"].is_string());
    let events = app
        .get(&format!("/api/v1/matches/{id}/events"), Some(&owner.token))
        .await
        .expect(200);
    let kinds: Vec<&str> = events["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|e| e["kind"].as_str())
        .collect();
    for k in [
        "invitation_sent",
        "invitation_accepted",
        "invitation_declined",
    ] {
        assert!(kinds.contains(&k), "{kinds:?}");
    }
    // A declined invitation is answered: Bob no longer sees the private match,
    // and can neither accept nor join without the code.
    app.get(&format!("/api/v1/matches/{id}"), Some(&bob.token))
        .await
        .problem(404, "match_not_found");
    app.post(
        &format!("/api/v1/matches/{id}/invitations/accept"),
        Some(&bob.token),
        &json!({}),
    )
    .await
    .problem(409, "invitation_answered");
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&bob.token),
        &json!({}),
    )
    .await
    .problem(409, "invitation_declined");
    // Outsiders answer nothing.
    for answer in ["accept", "decline"] {
        app.post(
            &format!("/api/v1/matches/{id}/invitations/{answer}"),
            Some(&outsider.token),
            &json!({}),
        )
        .await
        .problem(404, "match_not_found");
    }
}

#[tokio::test]
async fn an_expired_invitation_can_be_neither_accepted_nor_declined() {
    let (app, clock) = crate::helpers::spawn_app_with_manual_clock().await;
    let players = app.players(2).await;
    let m = create(
        &app,
        &players[0],
        json!({"game": "malacca", "seats": 3, "visibility": "private",
               "invite": [players[1].name], "invitation_expires_in": 60}),
    )
    .await;
    let id = id_of(&m);
    let list = app
        .get(
            &format!("/api/v1/matches/{id}/invitations"),
            Some(&players[0].token),
        )
        .await
        .expect(200);
    assert_eq!(invitation_of(&list, &players[1].name)["status"], "pending");
    clock.advance(chrono::Duration::seconds(61));
    for answer in ["accept", "decline"] {
        app.post(
            &format!("/api/v1/matches/{id}/invitations/{answer}"),
            Some(&players[1].token),
            &json!({}),
        )
        .await
        .problem(410, "invitation_expired");
    }
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .problem(410, "invitation_expired");
    let mine = app
        .get("/api/v1/players/me/invitations", Some(&players[1].token))
        .await
        .expect(200);
    assert_eq!(mine["items"], json!([]));
    // An expired invitee is an outsider again.
    app.get(&format!("/api/v1/matches/{id}"), Some(&players[1].token))
        .await
        .problem(404, "match_not_found");
    let list = app
        .get(
            &format!("/api/v1/matches/{id}/invitations"),
            Some(&players[0].token),
        )
        .await
        .expect(200);
    assert_eq!(invitation_of(&list, &players[1].name)["status"], "expired");
    // Invited again, it may accept.
    app.post(
        &format!("/api/v1/matches/{id}/invitations"),
        Some(&players[0].token),
        &json!({"players": [players[1].name]}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{id}/invitations/accept"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
}

#[tokio::test]
async fn bad_invitations_are_refused_and_change_nothing() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let owner = &players[0];
    for (invite, extra, code) in [
        (json!(["nobody"]), json!({}), "unknown_invitee"),
        (json!(["bot.random.1"]), json!({}), "unknown_invitee"),
        (json!([owner.name]), json!({}), "invalid_invite"),
        (
            json!([players[1].name, players[1].name]),
            json!({}),
            "invalid_invite",
        ),
        (
            json!([players[1].name, players[2].name]),
            json!({"seats": 2}),
            "invalid_invite",
        ),
        (
            json!([players[1].name]),
            json!({"invitation_expires_in": 10}),
            "invalid_expiry",
        ),
        (
            json!([players[1].name]),
            json!({"invitation_expires_in": 99999999}),
            "invalid_expiry",
        ),
        (json!("alice"), json!({}), "invalid_body"),
    ] {
        let mut body = json!({"game": "cairo", "seats": 3, "invite": invite});
        for (k, v) in extra.as_object().expect("object") {
            body[k] = v.clone();
        }
        app.post("/api/v1/matches", Some(&owner.token), &body)
            .await
            .problem(422, code);
    }
    let mine = app
        .get("/api/v1/matches", Some(&owner.token))
        .await
        .expect(200);
    assert!(listed_ids(&mine).is_empty(), "{mine}");
    for p in &players[1..] {
        let inv = app
            .get("/api/v1/players/me/invitations", Some(&p.token))
            .await
            .expect(200);
        assert_eq!(inv["items"], json!([]));
    }
    // Only the owner invites, and nobody already seated.
    let m = create(&app, owner, json!({"game": "malacca", "seats": 3})).await;
    let id = id_of(&m);
    app.post(
        &format!("/api/v1/matches/{id}/invitations"),
        Some(&players[1].token),
        &json!({"players": [players[2].name]}),
    )
    .await
    .problem(403, "not_owner");
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{id}/invitations"),
        Some(&owner.token),
        &json!({"players": [players[1].name]}),
    )
    .await
    .problem(409, "already_seated");
    app.post(
        &format!("/api/v1/matches/{id}/invitations"),
        Some(&owner.token),
        &json!({"players": []}),
    )
    .await
    .problem(422, "invalid_invite");
    let list = app
        .get(&format!("/api/v1/matches/{id}/invitations"), None)
        .await
        .expect(200);
    assert_eq!(list["items"], json!([]));
    app.post(
        &format!("/api/v1/matches/{id}/invitations/decline"),
        Some(&players[2].token),
        &json!({}),
    )
    .await
    .problem(404, "invitation_not_found");
}

#[tokio::test]
async fn an_invitee_webhook_is_sent_the_invitation() {
    let (app, _clock) = crate::helpers::spawn_app_with(|s| {
        s.webhooks.allow_private = true;
        s.webhooks.poll_ms = 20;
    })
    .await;
    let players = app.players(2).await;
    let hook = app
        .post(
            "/api/v1/players/me/webhooks",
            Some(&players[1].token),
            &json!({"url": "http://127.0.0.1:9/hook", "events": ["invitation_sent"]}),
        )
        .await
        .expect(201);
    let hook_id = hook["webhook"]["id"].as_str().expect("id").to_owned();
    let m = create(
        &app,
        &players[0],
        json!({"game": "malacca", "seats": 3, "visibility": "private",
               "invite": [players[1].name]}),
    )
    .await;
    let id = id_of(&m);
    let mut found = Value::Null;
    for _ in 0..200 {
        let d = app
            .get(
                &format!("/api/v1/players/me/webhooks/{hook_id}/deliveries"),
                Some(&players[1].token),
            )
            .await
            .expect(200);
        if let Some(item) = d["items"].as_array().and_then(|a| a.first()) {
            found = item.clone();
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert_eq!(found["match_id"], id.as_str(), "{found}");
    assert_eq!(found["kind"], "invitation_sent", "{found}");
}

// ---------------------------------------------------------------- rematch

/// A two-seat Cairo match of `players`, finished by the second's resignation.
async fn finished_cairo(app: &TestApp, players: &[Player], body: Value) -> String {
    let mut body = body;
    body["game"] = "cairo".into();
    body["seats"] = 2.into();
    let m = create(app, &players[0], body).await;
    let id = id_of(&m);
    let code = m["join_code"].clone();
    app.post(
        &format!("/api/v1/matches/{id}/join"),
        Some(&players[1].token),
        &json!({"code": code}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{id}/resign"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    assert_eq!(
        app.match_as(&id, Some(&players[0])).await["status"],
        "finished"
    );
    id
}

#[tokio::test]
async fn a_rematch_has_the_same_players_and_options_a_new_seed_and_starts_when_each_accepts() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let old_id = finished_cairo(
        &app,
        &players,
        json!({"options": {"rated": false}, "visibility": "unlisted"}),
    )
    .await;
    let old = app.match_as(&old_id, Some(&players[0])).await;
    // The loser asks first: it owns the rematch and keeps its seat.
    let r = app
        .post(
            &format!("/api/v1/matches/{old_id}/rematch"),
            Some(&players[1].token),
            &json!({}),
        )
        .await;
    let location = r
        .headers
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let new = r.expect(201);
    let new_id = id_of(&new);
    assert_eq!(location, Some(format!("/api/v1/matches/{new_id}")));
    assert_ne!(new_id, old_id);
    assert_eq!(new["rematch_of"], old_id.as_str());
    assert_eq!(new["status"], "waiting");
    assert_eq!(new["owner"]["name"], players[1].name.as_str());
    assert_eq!(new["your_seat"], 1);
    assert_eq!(new["options"], old["options"]);
    assert_eq!(new["visibility"], "unlisted");
    assert_eq!(new["rated"], false);
    assert_ne!(new["seed_sha256"], old["seed_sha256"]);
    assert!(new["join_code"].is_string());
    // The other player is invited, and accepts by asking too.
    let mine = app
        .get("/api/v1/players/me/invitations", Some(&players[0].token))
        .await
        .expect(200);
    assert_eq!(mine["items"][0]["match_id"], new_id.as_str());
    let joined = app
        .post(
            &format!("/api/v1/matches/{old_id}/rematch"),
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(joined["id"], new_id.as_str());
    assert_eq!(joined["your_seat"], 0);
    assert_eq!(joined["status"], "active");
    // Asking again answers the same match.
    let again = app
        .post(
            &format!("/api/v1/matches/{old_id}/rematch"),
            Some(&players[1].token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(again["id"], new_id.as_str());
    // Only players of a finished match ask.
    app.post(
        &format!("/api/v1/matches/{old_id}/rematch"),
        Some(&players[2].token),
        &json!({}),
    )
    .await
    .problem(403, "not_seated");
    app.post(
        &format!("/api/v1/matches/{new_id}/rematch"),
        Some(&players[0].token),
        &json!({}),
    )
    .await
    .problem(409, "match_not_finished");
    app.post(
        &format!("/api/v1/matches/{}/rematch", uuid::Uuid::now_v7()),
        Some(&players[0].token),
        &json!({}),
    )
    .await
    .problem(404, "match_not_found");
}

#[tokio::test]
async fn a_private_rematch_stays_private_and_a_declined_one_cannot_be_joined() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let old_id = finished_cairo(&app, &players, json!({"visibility": "private"})).await;
    app.post(
        &format!("/api/v1/matches/{old_id}/rematch"),
        Some(&players[2].token),
        &json!({}),
    )
    .await
    .problem(404, "match_not_found");
    let new = app
        .post(
            &format!("/api/v1/matches/{old_id}/rematch"),
            Some(&players[0].token),
            &json!({}),
        )
        .await
        .expect(201);
    let new_id = id_of(&new);
    assert_eq!(new["visibility"], "private");
    app.get(
        &format!("/api/v1/matches/{new_id}"),
        Some(&players[2].token),
    )
    .await
    .problem(404, "match_not_found");
    app.get(
        &format!("/api/v1/matches/{new_id}"),
        Some(&players[1].token),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{new_id}/invitations/decline"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .expect(200);
    app.post(
        &format!("/api/v1/matches/{old_id}/rematch"),
        Some(&players[1].token),
        &json!({}),
    )
    .await
    .problem(409, "invitation_declined");
    let still = app.match_as(&new_id, Some(&players[0])).await;
    assert_eq!(still["status"], "waiting");
    assert!(still["seats"][1]["player"].is_null());
}
