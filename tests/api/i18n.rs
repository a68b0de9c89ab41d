//! Problems in the reader's language, and the language a player chose.

use reqwest::Method;
use serde_json::json;

use crate::helpers::{Reply, TestApp, spawn_app};

const UNKNOWN_MATCH: &str = "/api/v1/matches/00000000-0000-7000-8000-000000000000";

/// An anonymous request that asks for a language.
async fn asking(app: &TestApp, method: Method, path: &str, language: &str) -> Reply {
    app.send_with_headers(method, path, None, None, &[("accept-language", language)])
        .await
}

#[tokio::test]
async fn a_problem_is_in_the_language_accept_language_asks_for() {
    let app = spawn_app().await;
    let r = asking(&app, Method::GET, UNKNOWN_MATCH, "cs-CZ,cs;q=0.9,en;q=0.5").await;
    let body = r.problem(404, "match_not_found");
    assert_eq!(body["title"], "Nenalezeno");
    assert_eq!(body["detail"], "Zápas s tímto id neexistuje.");
    assert_eq!(body["type"], "urn:sealed-orders:problem:match_not_found");
    assert_eq!(r.headers["content-language"], "cs");
    let vary: Vec<_> = r
        .headers
        .get_all("vary")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    assert!(
        vary.iter()
            .any(|v| v.eq_ignore_ascii_case("accept-language")),
        "{vary:?}"
    );

    let r = asking(&app, Method::GET, UNKNOWN_MATCH, "de, et;q=0.8").await;
    let body = r.problem(404, "match_not_found");
    assert_eq!(body["title"], "Ei leitud");
    assert_eq!(body["detail"], "Selle id-ga mängu pole.");
    assert_eq!(r.headers["content-language"], "et");
}

#[tokio::test]
async fn without_a_language_it_asks_for_a_problem_is_english_as_raised() {
    let app = spawn_app().await;
    for header in [None, Some("fr-FR, de;q=0.5"), Some("cs;q=0")] {
        let headers: Vec<(&str, &str)> =
            header.map(|h| ("accept-language", h)).into_iter().collect();
        let r = app
            .send_with_headers(Method::GET, UNKNOWN_MATCH, None, None, &headers)
            .await;
        let body = r.problem(404, "match_not_found");
        assert_eq!(body["title"], "Not Found");
        assert_eq!(body["detail"], "No match has that id.");
        assert_eq!(r.headers["content-language"], "en");
    }
}

#[tokio::test]
async fn a_problem_is_translated_with_the_values_its_error_carries() {
    let app = spawn_app().await;
    let r = asking(&app, Method::GET, "/api/v1/matches?limit=0", "cs").await;
    let body = r.problem(400, "invalid_limit");
    assert_eq!(body["title"], "Chybný požadavek");
    assert_eq!(body["detail"], "limit musí být mezi 1 a 200.");
    assert_eq!(r.headers["content-language"], "cs");
    let r = asking(&app, Method::GET, "/api/v1/nothing/here", "cs").await;
    let body = r.problem(404, "not_found");
    assert_eq!(body["detail"], "Na adrese /api/v1/nothing/here nic není.");
    assert_eq!(r.headers["content-language"], "cs");
    // A selector picks the sentence; the values are the error's own.
    let r = app
        .send_with_headers(
            Method::POST,
            "/api/v1/players",
            None,
            Some(&json!({"name": "x", "password": "long enough"})),
            &[("accept-language", "et")],
        )
        .await;
    let body = r.problem(422, "invalid_name");
    assert_eq!(r.headers["content-language"], "et");
    assert_ne!(
        body["detail"],
        "A name has 3 to 32 characters: letters, digits, '_' and '-'."
    );
    let alice = app.player("alice").await;
    let r = app
        .send_with_headers(
            Method::POST,
            "/api/v1/matches",
            Some(&alice.token),
            Some(&json!({"game": "chess", "seats": 2})),
            &[("accept-language", "cs")],
        )
        .await;
    let body = r.problem(422, "unknown_game");
    assert_eq!(r.headers["content-language"], "cs");
    let detail = body["detail"].as_str().unwrap_or_default();
    assert!(
        detail.starts_with("Hra chess neexistuje; hry jsou: ") && detail.contains("malacca"),
        "{detail}"
    );
}

#[tokio::test]
async fn problems_raised_by_middleware_and_extractors_are_translated_too() {
    let app = spawn_app().await;
    // The gate, before any handler.
    let r = app
        .client
        .get(app.url("/api/v1/players/me/turns"))
        .header("authorization", "Bearer a")
        .header("authorization", "Bearer b")
        .header("accept-language", "et")
        .send()
        .await
        .expect("send");
    assert_eq!(r.status().as_u16(), 400);
    assert_eq!(r.headers()["content-language"], "et");
    let body: serde_json::Value = r.json().await.expect("json");
    assert_eq!(body["code"], "duplicate_authorization");
    assert_eq!(body["title"], "Vigane päring");
    assert!(
        body["detail"]
            .as_str()
            .is_some_and(|d| d.contains("Authorization päis")),
        "{body}"
    );
    // The JSON extractor's content-type check.
    let r = app
        .client
        .post(app.url("/api/v1/players"))
        .header("content-type", "text/plain")
        .header("accept-language", "cs")
        .body("name=alice")
        .send()
        .await
        .expect("send");
    assert_eq!(r.status().as_u16(), 415);
    let body: serde_json::Value = r.json().await.expect("json");
    assert_eq!(
        body["detail"],
        "Tělo požadavku musí být JSON (Content-Type: application/json)."
    );
}

#[tokio::test]
async fn a_head_request_for_a_problem_has_no_body_in_any_language() {
    let app = spawn_app().await;
    let r = asking(&app, Method::HEAD, UNKNOWN_MATCH, "cs").await;
    assert_eq!(r.status.as_u16(), 404);
    assert_eq!(r.text, "");
    assert_eq!(r.headers["content-language"], "cs");
}

#[tokio::test]
async fn a_player_chooses_a_language_reads_it_back_and_forgets_it() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let me = app
        .get("/api/v1/players/me", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(me["locale"], serde_json::Value::Null);
    assert_eq!(me["name"], "alice");

    let me = app
        .send(
            Method::PATCH,
            "/api/v1/players/me",
            Some(&alice.token),
            Some(&json!({"locale": "et"})),
        )
        .await
        .expect(200);
    assert_eq!(me["locale"], "et");
    let me = app
        .get("/api/v1/players/me", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(me["locale"], "et");
    // A field left out keeps its value; null forgets it.
    let me = app
        .send(
            Method::PATCH,
            "/api/v1/players/me",
            Some(&alice.token),
            Some(&json!({})),
        )
        .await
        .expect(200);
    assert_eq!(me["locale"], "et");
    let me = app
        .send(
            Method::PATCH,
            "/api/v1/players/me",
            Some(&alice.token),
            Some(&json!({"locale": null})),
        )
        .await
        .expect(200);
    assert_eq!(me["locale"], serde_json::Value::Null);
    // The public profile does not show it.
    let public = app.get("/api/v1/players/alice", None).await.expect(200);
    assert!(public.get("locale").is_none(), "{public}");
}

#[tokio::test]
async fn a_language_the_server_does_not_speak_is_refused_in_the_readers_language() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    for bad in [
        json!("de"),
        json!("CS"),
        json!("cs-CZ"),
        json!(""),
        json!("e\u{301}t"),
    ] {
        app.send(
            Method::PATCH,
            "/api/v1/players/me",
            Some(&alice.token),
            Some(&json!({"locale": bad})),
        )
        .await
        .problem(422, "invalid_locale");
    }
    for bad in [
        json!({"locale": 3}),
        json!({"locale": ["cs"]}),
        json!({"language": "cs"}),
    ] {
        app.send(
            Method::PATCH,
            "/api/v1/players/me",
            Some(&alice.token),
            Some(&bad),
        )
        .await
        .problem(422, "invalid_body");
    }
    let r = app
        .send_with_headers(
            Method::PATCH,
            "/api/v1/players/me",
            Some(&alice.token),
            Some(&json!({"locale": "de"})),
            &[("accept-language", "cs")],
        )
        .await;
    let body = r.problem(422, "invalid_locale");
    assert_eq!(body["detail"], "locale je jedno z en, cs, et, nebo null.");
    app.send(
        Method::PATCH,
        "/api/v1/players/me",
        None,
        Some(&json!({"locale": "cs"})),
    )
    .await
    .problem(401, "unauthorized");
    let me = app
        .get("/api/v1/players/me", Some(&alice.token))
        .await
        .expect(200);
    assert_eq!(me["locale"], serde_json::Value::Null);
}

#[tokio::test]
async fn the_catalogues_are_served_to_the_browser_from_the_binary() {
    let app = spawn_app().await;
    for lang in ["en", "cs", "et"] {
        for file in ["app.ftl", "games.ftl"] {
            let r = app.get(&format!("/app/locales/{lang}/{file}"), None).await;
            assert_eq!(r.status.as_u16(), 200, "{lang}/{file}");
            assert_eq!(r.content_type, "text/plain; charset=utf-8");
            assert!(r.text.contains(" = "), "{lang}/{file} is empty");
        }
    }
    let r = app.get("/app/vendor/fluent-bundle/index.js", None).await;
    assert_eq!(r.status.as_u16(), 200);
    assert!(r.content_type.starts_with("text/javascript"));
    app.get("/app/locales/de/app.ftl", None)
        .await
        .problem(404, "not_found");
    app.get("/app/locales/../../Cargo.toml", None)
        .await
        .problem(404, "not_found");
}
