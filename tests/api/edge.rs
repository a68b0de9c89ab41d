//! The edge of the API, walked over every operation of the committed spec: one
//! rule for credentials on every endpoint, and no text with a control character
//! reaching a query (NUL is what Postgres refuses and SQLite stores).

use reqwest::header::{AUTHORIZATION, HeaderMap};
use reqwest::{Method, StatusCode};
use serde_json::{Map, Value, json};

use crate::helpers::{TestApp, spawn_app};

fn spec() -> Value {
    serde_json::from_str(include_str!("../../openapi/openapi.json")).expect("the committed spec")
}

struct Operation {
    method: Method,
    template: String,
    id: String,
    op: Value,
}

fn operations(spec: &Value) -> Vec<Operation> {
    let mut out = Vec::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().expect("path item") {
            let Ok(m) = method.to_uppercase().parse::<Method>() else {
                continue;
            };
            out.push(Operation {
                method: m,
                template: path.clone(),
                id: op["operationId"].as_str().unwrap_or(path).to_owned(),
                op: op.clone(),
            });
        }
    }
    assert!(out.len() > 30, "the spec lists the API's operations");
    out
}

/// The path with its parameters filled in: `{id}` a real match, the others
/// plausible values, `bad` (already percent-encoded) in place of `only`.
fn fill(template: &str, match_id: &str, only: Option<(&str, &str)>) -> String {
    let mut path = template.to_owned();
    for (name, value) in [
        ("id", match_id),
        ("game", "malacca"),
        ("name", "alice"),
        ("message_id", "1"),
        ("step", "0"),
    ] {
        let value = match only {
            Some((n, bad)) if n == name => bad,
            _ => value,
        };
        path = path.replace(&format!("{{{name}}}"), value);
    }
    assert!(
        !path.contains('{'),
        "a path parameter this test does not know: {path}"
    );
    path
}

fn percent_encoded(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// A problem document of a 4xx status: never a 5xx, never another body.
fn assert_client_problem(what: &str, status: StatusCode, headers: &HeaderMap, body: &str) -> Value {
    assert!(status.is_client_error(), "{what}: {status} {body}");
    let ct = headers
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    assert_eq!(ct, "application/problem+json", "{what}: {body}");
    serde_json::from_str(body).unwrap_or_else(|_| panic!("{what}: not JSON: {body}"))
}

async fn send(
    app: &TestApp,
    method: Method,
    path: &str,
    auth: &[&str],
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (StatusCode, HeaderMap, String) {
    let mut req = app.client.request(method, app.url(path));
    for a in auth {
        // `header` appends: several calls send several headers.
        req = req.header(AUTHORIZATION, format!("Bearer {a}"));
    }
    for (n, v) in headers {
        req = req.header(*n, *v);
    }
    if let Some(b) = body {
        req = req.json(b);
    }
    let resp = req.send().await.expect("request");
    let (status, headers) = (resp.status(), resp.headers().clone());
    (status, headers, resp.text().await.expect("body"))
}

async fn a_match(app: &TestApp) -> String {
    let alice = app.player("alice").await;
    let m = app
        .post(
            "/api/v1/matches",
            Some(&alice.token),
            &json!({"game": "malacca", "seats": 2}),
        )
        .await
        .expect(201);
    m["id"].as_str().expect("id").to_owned()
}

#[tokio::test]
async fn every_operation_refuses_an_invalid_credential_and_two_of_them() {
    let app = spawn_app().await;
    let id = a_match(&app).await;
    let bob = app.player("bob").await;
    let spec = spec();
    for o in operations(&spec) {
        let path = fill(&o.template, &id, None);
        let body = o.op.get("requestBody").map(|_| json!({}));
        for bad in ["nope", "sot_not-a-token", "eyJhbGciOiJIUzI1NiJ9.e30.c2ln"] {
            let (status, headers, text) =
                send(&app, o.method.clone(), &path, &[bad], &[], body.as_ref()).await;
            let what = format!("{} {path} with token {bad}", o.id);
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}: {text}");
            let p = assert_client_problem(&what, status, &headers, &text);
            assert_eq!(p["code"], "invalid_token", "{what}");
            assert!(
                headers
                    .get("www-authenticate")
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.starts_with("Bearer")),
                "{what}: {headers:?}"
            );
        }
        // Two headers, even two valid ones, are refused before anything is read.
        let (status, headers, text) = send(
            &app,
            o.method.clone(),
            &path,
            &[&bob.token, &bob.token],
            &[],
            body.as_ref(),
        )
        .await;
        let what = format!("{} {path} with two Authorization headers", o.id);
        assert_eq!(status, StatusCode::BAD_REQUEST, "{what}: {text}");
        let p = assert_client_problem(&what, status, &headers, &text);
        assert_eq!(p["code"], "duplicate_authorization", "{what}");
    }
}

/// Control characters of every kind: C0 (NUL first), DEL and C1.
const CONTROLS: [&str; 6] = [
    "a\u{0}b", "\u{0}", "a\u{1}b", "a\u{1f}b", "a\u{7f}b", "a\u{85}b",
];

fn resolve<'a>(spec: &'a Value, schema: &'a Value) -> &'a Value {
    match schema.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.rsplit('/').next().unwrap_or_default();
            &spec["components"]["schemas"][name]
        }
        None => schema,
    }
}

/// Bodies that each put a control character in one string field of the
/// operation's request body (top-level and one level into objects), the other
/// fields left out: nothing of it may be read past the edge.
fn bad_bodies(spec: &Value, op: &Value) -> Vec<(String, Value)> {
    let Some(schema) = op.pointer("/requestBody/content/application~1json/schema") else {
        return Vec::new();
    };
    let schema = resolve(spec, schema);
    let mut names: Vec<String> = schema["properties"]
        .as_object()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    if names.is_empty() {
        // A union (a replay bundle, an action): a field it may hold.
        names.push("type".into());
    }
    let mut out = Vec::new();
    for name in names {
        for bad in CONTROLS {
            out.push((name.clone(), json!({ name.clone(): bad })));
            let mut inner = Map::new();
            inner.insert("type".into(), json!("play"));
            inner.insert("card".into(), json!(bad));
            out.push((format!("{name}.card"), json!({ name.clone(): inner })));
        }
    }
    out
}

#[tokio::test]
async fn no_control_character_reaches_a_query_from_any_parameter_or_field() {
    let app = spawn_app().await;
    let id = a_match(&app).await;
    let carol = app.player("carol").await;
    let token = carol.token.as_str();
    let lobby = app.get("/api/v1/matches", None).await.expect(200);
    let spec = spec();
    let mut checked = 0;
    for o in operations(&spec) {
        let params = o.op["parameters"].as_array().cloned().unwrap_or_default();
        let body = o.op.get("requestBody").map(|_| json!({}));
        for p in &params {
            let name = p["name"].as_str().expect("name");
            let location = p["in"].as_str().expect("in");
            for bad in CONTROLS {
                let encoded = percent_encoded(bad);
                let (path, headers): (String, Vec<(&str, String)>) = match location {
                    "path" => (fill(&o.template, &id, Some((name, &encoded))), vec![]),
                    "query" => (
                        format!("{}?{name}={encoded}", fill(&o.template, &id, None)),
                        vec![],
                    ),
                    // HTTP carries no control character in a header but the tab.
                    "header" => (fill(&o.template, &id, None), vec![(name, "a\tb".into())]),
                    other => panic!("a parameter in {other}"),
                };
                let headers: Vec<(&str, &str)> =
                    headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
                for auth in [&[][..], &[token][..]] {
                    let (status, h, text) =
                        send(&app, o.method.clone(), &path, auth, &headers, body.as_ref()).await;
                    let what = format!("{} {location} {name}={bad:?} at {path}", o.id);
                    let p = assert_client_problem(&what, status, &h, &text);
                    assert_eq!(p["code"], "invalid_characters", "{what}");
                    checked += 1;
                }
            }
        }
        for (field, b) in bad_bodies(&spec, &o.op) {
            let path = fill(&o.template, &id, None);
            let (status, h, text) =
                send(&app, o.method.clone(), &path, &[token], &[], Some(&b)).await;
            let what = format!("{} body field {field}: {b}", o.id);
            let p = assert_client_problem(&what, status, &h, &text);
            assert_eq!(p["code"], "invalid_characters", "{what}");
            checked += 1;
        }
    }
    assert!(checked > 500, "{checked} requests");
    // Nothing was made or changed: the lobby is as it was, no player was named
    // with a control character, and the account still logs in.
    assert_eq!(app.get("/api/v1/matches", None).await.expect(200), lobby);
    app.get("/api/v1/players/a%00b", None)
        .await
        .problem(400, "invalid_characters");
    app.post(
        "/api/v1/auth/token",
        None,
        &json!({"name": "carol", "password": "password1"}),
    )
    .await
    .expect(200);
}

/// The probes that found the holes, as cases of their own.
#[tokio::test]
async fn a_nul_byte_in_names_and_filters_is_a_clear_400_on_every_database() {
    let app = spawn_app().await;
    for path in [
        "/api/v1/players/a%00b",
        "/api/v1/players/a%00b/stats",
        "/api/v1/players/a%00b/ratings",
        "/api/v1/matches?player=a%00b",
        "/api/v1/matches?game=a%00b",
        "/api/v1/exports/matches?game=a%00b",
    ] {
        app.get(path, None).await.problem(400, "invalid_characters");
    }
    app.post(
        "/api/v1/players",
        None,
        &json!({"name": "a\u{0}b", "password": "password1"}),
    )
    .await
    .problem(400, "invalid_characters");
    // An escaped backslash followed by `u0000` is text, not a NUL: the usual
    // refusal of the name's alphabet answers, not this one.
    app.post(
        "/api/v1/players",
        None,
        &json!({"name": "a\\u0000b", "password": "password1"}),
    )
    .await
    .problem(422, "invalid_name");
}

#[tokio::test]
async fn public_reads_refuse_an_invalid_token_instead_of_serving_a_stranger() {
    let app = spawn_app().await;
    let id = a_match(&app).await;
    for path in [
        "/api/v1/games".to_owned(),
        "/api/v1/games/malacca".to_owned(),
        "/api/v1/leaderboards/malacca".to_owned(),
        "/api/v1/matches".to_owned(),
        format!("/api/v1/matches/{id}/export"),
        format!("/api/v1/matches/{id}/rounds"),
        "/api/v1/players/alice".to_owned(),
        "/api/v1/exports/matches".to_owned(),
    ] {
        app.get(&path, Some("nope"))
            .await
            .problem(401, "invalid_token");
        // Without any credential they stay public.
        assert_ne!(
            app.get(&path, None).await.status,
            StatusCode::UNAUTHORIZED,
            "{path}"
        );
    }
}
