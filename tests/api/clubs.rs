//! Clubs: membership by request, invitation or openly; roles; a club's
//! matches and its own leaderboard.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app};

async fn create(app: &TestApp, owner: &Player, name: &str, policy: &str) -> String {
    let c = app
        .post(
            "/api/v1/clubs",
            Some(&owner.token),
            &json!({"name": name, "description": "Weekly games", "join_policy": policy}),
        )
        .await
        .expect(201);
    assert_eq!(c["your_role"], "owner");
    assert_eq!(c["members"], 1);
    c["id"].as_str().expect("id").to_owned()
}

async fn join(app: &TestApp, id: &str, p: &Player) -> crate::helpers::Reply {
    app.post(
        &format!("/api/v1/clubs/{id}/join"),
        Some(&p.token),
        &json!({}),
    )
    .await
}

fn names(page: &Value) -> Vec<String> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| m["player"]["name"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[tokio::test]
async fn a_club_takes_members_by_request_and_invitation_and_its_owner_hands_it_over() {
    let app = spawn_app().await;
    let p = app.players(4).await;
    let (owner, b, c, d) = (&p[0], &p[1], &p[2], &p[3]);
    let id = create(&app, owner, "Tuesday Malacca", "request").await;

    // Bad input changes nothing.
    app.post(
        "/api/v1/clubs",
        Some(&b.token),
        &json!({"name": "TUESDAY malacca"}),
    )
    .await
    .problem(409, "club_name_taken");
    for bad in [
        json!({"name": "x"}),
        json!({"name": "ok name", "join_policy": "closed"}),
        json!({"name": "ok name", "description": "x".repeat(1001)}),
    ] {
        app.post("/api/v1/clubs", Some(&b.token), &bad)
            .await
            .expect(422);
    }
    let all = app.get("/api/v1/clubs?q=TUES", None).await.expect(200);
    assert_eq!(all["items"].as_array().map(Vec::len), Some(1));
    app.get("/api/v1/clubs/not-a-uuid", None).await.expect(400);
    app.get("/api/v1/clubs/00000000-0000-7000-8000-000000000000", None)
        .await
        .problem(404, "club_not_found");

    // A request, answered by the owner.
    assert_eq!(join(&app, &id, b).await.expect(200)["status"], "requested");
    join(&app, &id, b).await.problem(409, "already_requested");
    let requests = format!("/api/v1/clubs/{id}/members?status=requested");
    app.get(&requests, Some(&c.token))
        .await
        .problem(403, "not_club_admin");
    assert_eq!(
        names(&app.get(&requests, Some(&owner.token)).await.expect(200)),
        vec![b.name.clone()]
    );
    let accepted = app
        .post(
            &format!("/api/v1/clubs/{id}/members/{}/accept", b.name),
            Some(&owner.token),
            &json!({}),
        )
        .await
        .expect(200);
    assert_eq!(accepted["status"], "member");
    join(&app, &id, b).await.problem(409, "already_member");

    // An invitation, seen and taken up by the invitee.
    let invite = format!("/api/v1/clubs/{id}/invitations");
    app.post(&invite, Some(&b.token), &json!({"player": c.name}))
        .await
        .problem(403, "not_club_admin");
    let invited = app
        .post(&invite, Some(&owner.token), &json!({"player": c.name}))
        .await
        .expect(200);
    assert_eq!(invited["status"], "invited");
    assert_eq!(invited["invited_by"]["name"], owner.name);
    let mine = app
        .get("/api/v1/players/me/clubs", Some(&c.token))
        .await
        .expect(200);
    assert_eq!(mine["items"][0]["status"], "invited");
    assert_eq!(mine["items"][0]["club"]["name"], "Tuesday Malacca");
    assert_eq!(join(&app, &id, c).await.expect(200)["status"], "member");

    // Invitation only, changed by the owner; a member may not change it.
    let club = format!("/api/v1/clubs/{id}");
    app.send(
        Method::PATCH,
        &club,
        Some(&b.token),
        Some(&json!({"join_policy": "open"})),
    )
    .await
    .problem(403, "not_club_admin");
    let changed = app
        .send(
            Method::PATCH,
            &club,
            Some(&owner.token),
            Some(&json!({"join_policy": "invitation"})),
        )
        .await
        .expect(200);
    assert_eq!(changed["join_policy"], "invitation");
    join(&app, &id, d).await.problem(403, "invitation_required");

    // Roles: an admin runs the club but cannot remove its owner.
    let role = |name: &str| format!("/api/v1/clubs/{id}/members/{name}/role");
    app.send(
        Method::PUT,
        &role(&b.name),
        Some(&b.token),
        Some(&json!({"role": "admin"})),
    )
    .await
    .problem(403, "not_club_owner");
    app.send(
        Method::PUT,
        &role(&b.name),
        Some(&owner.token),
        Some(&json!({"role": "boss"})),
    )
    .await
    .problem(422, "invalid_role");
    assert_eq!(
        app.send(
            Method::PUT,
            &role(&b.name),
            Some(&owner.token),
            Some(&json!({"role": "admin"})),
        )
        .await
        .expect(200)["role"],
        "admin"
    );
    app.post(&invite, Some(&b.token), &json!({"player": d.name}))
        .await
        .expect(200);
    let remove = |name: &str| format!("/api/v1/clubs/{id}/members/{name}");
    let gone = app
        .send(Method::DELETE, &remove(&c.name), Some(&b.token), None)
        .await;
    assert_eq!(gone.status, 204);
    app.send(Method::DELETE, &remove(&owner.name), Some(&b.token), None)
        .await
        .problem(403, "not_club_admin");
    let members = app
        .get(&format!("/api/v1/clubs/{id}/members"), None)
        .await
        .expect(200);
    assert_eq!(names(&members), vec![owner.name.clone(), b.name.clone()]);

    // The owner hands the club over before leaving.
    app.post(
        &format!("/api/v1/clubs/{id}/leave"),
        Some(&owner.token),
        &json!({}),
    )
    .await
    .problem(409, "owner_must_hand_over");
    app.send(
        Method::PUT,
        &role(&b.name),
        Some(&owner.token),
        Some(&json!({"role": "owner"})),
    )
    .await
    .expect(200);
    let now = app.get(&club, Some(&owner.token)).await.expect(200);
    assert_eq!(now["owner"]["name"], b.name);
    assert_eq!(now["your_role"], "admin");
    assert_eq!(
        app.post(
            &format!("/api/v1/clubs/{id}/leave"),
            Some(&owner.token),
            &json!({})
        )
        .await
        .status,
        204
    );
    assert_eq!(app.get(&club, None).await.expect(200)["members"], 1);
}

#[tokio::test]
async fn a_clubs_matches_seat_its_members_only_and_make_its_leaderboard() {
    let app = spawn_app().await;
    let p = app.players(3).await;
    let (a, b, outsider) = (&p[0], &p[1], &p[2]);
    let id = create(&app, a, "Open Table", "open").await;
    assert_eq!(join(&app, &id, b).await.expect(200)["status"], "member");

    let new_match = json!({"game": "malacca", "seats": 2, "club": id});
    app.post("/api/v1/matches", Some(&outsider.token), &new_match)
        .await
        .problem(403, "not_club_member");
    let m = app
        .post("/api/v1/matches", Some(&a.token), &new_match)
        .await
        .expect(201);
    assert_eq!(m["club_id"], json!(id));
    let mid = m["id"].as_str().expect("id").to_owned();
    app.post(
        &format!("/api/v1/matches/{mid}/join"),
        Some(&outsider.token),
        &json!({}),
    )
    .await
    .problem(403, "not_club_member");
    app.post(
        &format!("/api/v1/matches/{mid}/join"),
        Some(&b.token),
        &json!({}),
    )
    .await
    .expect(200);
    // Another match, outside the club, does not count for it.
    let other = app
        .started_match(&[a.clone(), outsider.clone()], "malacca", json!({}))
        .await;
    app.play_to_end(&other, &[a.clone(), outsider.clone()], 3)
        .await;
    let (done, _) = app.play_to_end(&mid, &[a.clone(), b.clone()], 5).await;
    assert_eq!(done["status"], "finished");

    let listed = app
        .get(&format!("/api/v1/matches?club={id}"), None)
        .await
        .expect(200);
    let ids: Vec<&str> = listed["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(ids, vec![mid.as_str()]);

    let board = app
        .get(&format!("/api/v1/clubs/{id}/leaderboards/malacca"), None)
        .await
        .expect(200);
    let items = board["items"].as_array().expect("items");
    assert_eq!(items.len(), 2, "{board}");
    let points: f64 = items.iter().filter_map(|i| i["points"].as_f64()).sum();
    assert!((points - 1.0).abs() < 1e-9, "one match of two: {board}");
    assert!(items.iter().all(|i| i["games"] == 1));
    assert_eq!(items[0]["rank"], 1);
    assert!(items[0]["points"].as_f64() >= items[1]["points"].as_f64());
    app.get(&format!("/api/v1/clubs/{id}/leaderboards/chess"), None)
        .await
        .problem(404, "game_not_found");

    // An owner who deletes their account hands the club to the next member.
    let deleted = app
        .post(
            "/api/v1/players/me/delete",
            Some(&a.token),
            &json!({"password": "password1"}),
        )
        .await;
    assert_eq!(deleted.status, 204);
    let club = app
        .get(&format!("/api/v1/clubs/{id}"), Some(&b.token))
        .await
        .expect(200);
    assert_eq!(club["owner"]["name"], b.name);
    assert_eq!(club["your_role"], "owner");
    assert_eq!(club["members"], 1);
}
