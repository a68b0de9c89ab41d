//! OAuth 2 with PKCE for third-party front ends: the whole flow with a plain
//! HTTP client, and the attacks of RFC 9700 §4 that apply, each of which fails
//! this file if it works.

use reqwest::Method;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app, spawn_app_with_manual_clock};

const CLIENT: &str = "Turn Tracker";
const REDIRECT: &str = "http://localhost:5173/callback";
const VERIFIER: &str = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWjVXjXs";
/// The S256 challenge of `VERIFIER` (unpadded base64url of its SHA-256).
const CHALLENGE: &str = "1weCmkwi6SCXy39BcGDSIiwJwkm5uzqGg03NDnQ2U4w";

/// A client that does not follow redirects: where the server sends the
/// browser is what these tests read.
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client")
}

/// A valid authorization request's parameters, with `changes` applied
/// (a null value leaves the parameter out).
fn params(changes: Value) -> Vec<(String, String)> {
    let mut p = json!({
        "response_type": "code",
        "client_id": CLIENT,
        "redirect_uri": REDIRECT,
        "code_challenge": CHALLENGE,
        "code_challenge_method": "S256",
        "scope": "read play",
        "state": "xyz-42",
    });
    for (k, v) in changes.as_object().expect("an object") {
        p[k] = v.clone();
    }
    p.as_object()
        .expect("an object")
        .iter()
        .filter_map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_owned())))
        .collect()
}

fn query(p: &[(String, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(p)
        .finish()
}

fn form_body(p: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(p)
        .finish()
}

fn object(p: &[(String, String)]) -> Value {
    Value::Object(
        p.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// The query parameters of a URL the browser is sent to.
fn sent_back(to: &str) -> Vec<(String, String)> {
    url::Url::parse(to)
        .expect("a URL")
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

fn get_param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// The person answers the consent page; answers where their browser goes.
async fn consent(app: &TestApp, who: &Player, p: &[(String, String)], allow: bool) -> String {
    let mut body = object(p);
    body["allow"] = json!(allow);
    let answer = app
        .post("/api/v1/oauth/authorization", Some(&who.token), &body)
        .await
        .expect(200);
    answer["redirect_to"]
        .as_str()
        .expect("redirect_to")
        .to_owned()
}

/// Consents with the default request and answers the code.
async fn code_for(app: &TestApp, who: &Player, changes: Value) -> String {
    let to = consent(app, who, &params(changes), true).await;
    get_param(&sent_back(&to), "code")
        .expect("a code")
        .to_owned()
}

/// A token request as a form; answers the status and the JSON body.
async fn exchange(app: &TestApp, form: &[(&str, &str)]) -> (u16, Value, String) {
    let res = no_redirects()
        .post(app.url("/oauth/token"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(form))
        .send()
        .await
        .expect("request");
    let status = res.status().as_u16();
    let content_type = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let body: Value = serde_json::from_str(&res.text().await.expect("body")).expect("JSON");
    (status, body, content_type)
}

async fn redeem(app: &TestApp, code: &str) -> (u16, Value, String) {
    exchange(
        app,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("code_verifier", VERIFIER),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT),
        ],
    )
    .await
}

/// Asserts an RFC 6749 §5.2 error (not a problem document).
fn assert_refused(reply: &(u16, Value, String), error: &str) {
    assert_eq!(reply.0, 400, "{:?}", reply.1);
    assert_eq!(reply.1["error"], error, "{:?}", reply.1);
    assert!(reply.2.starts_with("application/json"), "{}", reply.2);
    assert!(reply.1.get("access_token").is_none());
}

async fn revoke(app: &TestApp, token: &str) -> u16 {
    no_redirects()
        .post(app.url("/oauth/revoke"))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form_body(&[
            ("token", token),
            ("token_type_hint", "access_token"),
        ]))
        .send()
        .await
        .expect("request")
        .status()
        .as_u16()
}

async fn live_tokens(app: &TestApp, who: &Player) -> Vec<Value> {
    let page = app
        .get("/api/v1/players/me/tokens", Some(&who.token))
        .await
        .expect(200);
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|t| t["revoked_at"].is_null())
        .cloned()
        .collect()
}

/// An authorization request as the browser makes it: the status, and where it
/// is sent if anywhere.
async fn authorize(
    app: &TestApp,
    p: &[(String, String)],
) -> (u16, Option<String>, reqwest::header::HeaderMap) {
    let res = no_redirects()
        .get(app.url(&format!("/oauth/authorize?{}", query(p))))
        .send()
        .await
        .expect("request");
    let location = res
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    (res.status().as_u16(), location, res.headers().clone())
}

#[tokio::test]
async fn a_front_end_signs_a_player_in_with_pkce_plays_for_them_and_its_revoked_token_is_refused() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;

    let meta = app
        .get("/.well-known/oauth-authorization-server", None)
        .await
        .expect(200);
    assert_eq!(meta["issuer"], app.address.as_str());
    assert_eq!(
        meta["authorization_endpoint"],
        format!("{}/oauth/authorize", app.address)
    );
    assert_eq!(meta["code_challenge_methods_supported"], json!(["S256"]));
    assert_eq!(meta["grant_types_supported"], json!(["authorization_code"]));
    assert_eq!(meta["response_types_supported"], json!(["code"]));
    assert_eq!(meta["scopes_supported"], json!(["play", "read", "chat"]));

    // The browser opens the consent page: the web client, never in a frame.
    let (status, location, headers) = authorize(&app, &params(json!({}))).await;
    assert_eq!((status, location), (200, None));
    assert_eq!(headers["x-frame-options"], "DENY");
    let csp = headers["content-security-policy"].to_str().expect("text");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert_eq!(headers["cache-control"], "no-store");

    // What the page shows.
    let shown = app
        .get(
            &format!("/api/v1/oauth/authorization?{}", query(&params(json!({})))),
            None,
        )
        .await
        .expect(200);
    assert_eq!(shown["client_id"], CLIENT);
    assert_eq!(shown["redirect_origin"], "http://localhost:5173");
    assert_eq!(shown["scopes"], json!(["play", "read"]));

    // Alice, signed in, allows it.
    let to = consent(&app, &alice, &params(json!({})), true).await;
    assert!(to.starts_with(&format!("{REDIRECT}?")), "{to}");
    let back = sent_back(&to);
    assert_eq!(get_param(&back, "state"), Some("xyz-42"));
    assert_eq!(get_param(&back, "iss"), Some(app.address.as_str()));
    let code = get_param(&back, "code").expect("a code").to_owned();

    let (status, grant, content_type) = redeem(&app, &code).await;
    assert_eq!(status, 200, "{grant}");
    assert!(content_type.starts_with("application/json"));
    assert_eq!(grant["token_type"], "Bearer");
    assert_eq!(grant["scope"], "play read");
    let year = grant["expires_in"].as_i64().expect("expires_in");
    assert!((364 * 86_400..=366 * 86_400).contains(&year), "{year}");
    let token = grant["access_token"].as_str().expect("a token").to_owned();
    assert!(token.starts_with("sot_"));

    // An API token like any other: it reads and plays as Alice.
    let me = app
        .get("/api/v1/players/me", Some(&token))
        .await
        .expect(200);
    assert_eq!(me["name"], "alice");
    app.get("/api/v1/players/me/turns", Some(&token))
        .await
        .expect(200);
    app.post(
        "/api/v1/matches",
        Some(&token),
        &json!({"game": "malacca", "seats": 3}),
    )
    .await
    .expect(201);
    // But not the account: no tokens minted with it, no consent given with it.
    app.get("/api/v1/players/me/tokens", Some(&token))
        .await
        .problem(403, "password_session_required");
    let mut again = object(&params(json!({})));
    again["allow"] = json!(true);
    app.post("/api/v1/oauth/authorization", Some(&token), &again)
        .await
        .problem(403, "password_session_required");

    // Alice sees it on her account page, named after the app, expiring.
    let listed = live_tokens(&app, &alice).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0]["name"], CLIENT);
    assert!(listed[0]["expires_at"].is_string());

    // The app signs out: revoked (RFC 7009), and refused from then on.
    assert_eq!(revoke(&app, &token).await, 200);
    app.get("/api/v1/players/me", Some(&token))
        .await
        .problem(401, "invalid_token");
    assert!(live_tokens(&app, &alice).await.is_empty());
    // Revoking again, or a token that never was, is answered the same.
    assert_eq!(revoke(&app, &token).await, 200);
    assert_eq!(revoke(&app, "sot_nothing").await, 200);
}

#[tokio::test]
async fn a_token_from_the_account_page_revocation_is_refused_too() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let code = code_for(&app, &alice, json!({})).await;
    let (_, grant, _) = redeem(&app, &code).await;
    let token = grant["access_token"].as_str().expect("a token");
    let id = live_tokens(&app, &alice).await[0]["id"]
        .as_str()
        .expect("id")
        .to_owned();
    app.send(
        Method::DELETE,
        &format!("/api/v1/players/me/tokens/{id}"),
        Some(&alice.token),
        None,
    )
    .await
    .expect(204);
    app.get("/api/v1/players/me", Some(token))
        .await
        .problem(401, "invalid_token");
}

#[tokio::test]
async fn a_replayed_code_is_refused_and_revokes_the_token_it_became() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let code = code_for(&app, &alice, json!({})).await;
    let (status, grant, _) = redeem(&app, &code).await;
    assert_eq!(status, 200);
    let token = grant["access_token"].as_str().expect("a token");

    assert_refused(&redeem(&app, &code).await, "invalid_grant");
    // RFC 6749 §4.1.2: one of the two presenters stole the code.
    app.get("/api/v1/players/me", Some(token))
        .await
        .problem(401, "invalid_token");
    assert!(live_tokens(&app, &alice).await.is_empty());
}

#[tokio::test]
async fn a_code_is_refused_with_a_wrong_verifier_and_stays_good_for_the_right_one() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let code = code_for(&app, &alice, json!({})).await;
    let form = |verifier: &'static str| {
        [
            ("grant_type", "authorization_code"),
            ("code", ""),
            ("code_verifier", verifier),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT),
        ]
    };
    // An attacker who intercepted the code has some verifier, not the client's.
    let mut wrong = form("an-attackers-own-verifier-of-enough-length-0123456789");
    wrong[1].1 = &code;
    assert_refused(&exchange(&app, &wrong).await, "invalid_grant");
    // A verifier of the wrong shape is a bad request.
    let mut short = form("short");
    short[1].1 = &code;
    assert_refused(&exchange(&app, &short).await, "invalid_request");
    // Nothing was stored or spent: the client still gets its token.
    assert!(live_tokens(&app, &alice).await.is_empty());
    let (status, _, _) = redeem(&app, &code).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn the_redirect_uri_and_client_id_must_match_exactly_at_the_exchange() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    let code = code_for(&app, &alice, json!({})).await;
    for (redirect, client) in [
        ("http://localhost:5173/callback/", CLIENT),
        ("http://localhost:5173/callback?x=1", CLIENT),
        ("http://localhost:5174/callback", CLIENT),
        ("https://evil.example/callback", CLIENT),
        (REDIRECT, "Turn Tracker 2"),
        (REDIRECT, "turn tracker"),
    ] {
        let reply = exchange(
            &app,
            &[
                ("grant_type", "authorization_code"),
                ("code", &code),
                ("code_verifier", VERIFIER),
                ("redirect_uri", redirect),
                ("client_id", client),
            ],
        )
        .await;
        assert_refused(&reply, "invalid_grant");
    }
    assert!(live_tokens(&app, &alice).await.is_empty());
    assert_eq!(redeem(&app, &code).await.0, 200);
}

#[tokio::test]
async fn an_untrusted_redirect_uri_or_client_id_is_shown_to_the_person_and_never_redirected_to() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    for changes in [
        json!({"redirect_uri": "http://evil.example/callback"}),
        json!({"redirect_uri": "https://app.example/callback#fragment"}),
        json!({"redirect_uri": "javascript:alert(document.domain)"}),
        json!({"redirect_uri": "data:text/html,<script>alert(1)</script>"}),
        json!({"redirect_uri": "https://localhost@evil.example/callback"}),
        json!({"redirect_uri": "//evil.example/callback"}),
        json!({"redirect_uri": null}),
        // Even a request that is wrong in other ways too.
        json!({"redirect_uri": "http://evil.example/callback", "response_type": "token"}),
    ] {
        let p = params(changes.clone());
        let (status, location, _) = authorize(&app, &p).await;
        assert_eq!((status, location), (400, None), "{changes}");
        app.get(&format!("/api/v1/oauth/authorization?{}", query(&p)), None)
            .await
            .problem(400, "invalid_redirect_uri");
        let mut body = object(&p);
        body["allow"] = json!(true);
        let refused = app
            .post("/api/v1/oauth/authorization", Some(&alice.token), &body)
            .await;
        let problem = refused.problem(400, "invalid_redirect_uri");
        assert!(problem.get("redirect_to").is_none());
    }
    for client in [
        json!(null),
        json!(""),
        json!("x".repeat(65)),
        json!("a\u{7f}b"),
    ] {
        let p = params(json!({ "client_id": client }));
        let (status, location, _) = authorize(&app, &p).await;
        assert_eq!((status, location), (400, None), "{client}");
    }
    // A parameter given twice (RFC 6749 §3.1) is refused, never guessed at.
    let mut twice = params(json!({}));
    twice.push((
        "redirect_uri".into(),
        "https://evil.example/callback".into(),
    ));
    let (status, location, _) = authorize(&app, &twice).await;
    assert_eq!((status, location), (400, None));
    let refused = app
        .get(
            &format!("/api/v1/oauth/authorization?{}", query(&twice)),
            None,
        )
        .await;
    assert_eq!(refused.status.as_u16(), 400, "{}", refused.text);
    // Allowed: https anywhere, loopback http on any port, an app's own scheme.
    for redirect in [
        "https://app.example/callback",
        "http://127.0.0.1:49152/cb",
        "com.example.tracker:/oauth",
    ] {
        let (status, location, _) =
            authorize(&app, &params(json!({ "redirect_uri": redirect }))).await;
        assert_eq!((status, location), (200, None), "{redirect}");
    }
}

#[tokio::test]
async fn faults_of_a_trusted_request_go_back_to_the_client_with_the_rfc_codes_and_its_state() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    for (changes, error) in [
        // No implicit flow.
        (
            json!({"response_type": "token"}),
            "unsupported_response_type",
        ),
        (json!({"response_type": null}), "invalid_request"),
        // PKCE is required, and S256 only.
        (json!({"code_challenge": null}), "invalid_request"),
        (json!({"code_challenge_method": null}), "invalid_request"),
        (json!({"code_challenge_method": "plain"}), "invalid_request"),
        (json!({"code_challenge": "too-short"}), "invalid_request"),
        (json!({"scope": "read admin"}), "invalid_scope"),
    ] {
        let (status, location, _) = authorize(&app, &params(changes.clone())).await;
        assert_eq!(status, 302, "{changes}");
        let location = location.expect("a redirect");
        assert!(location.starts_with(&format!("{REDIRECT}?")), "{location}");
        let back = sent_back(&location);
        assert_eq!(get_param(&back, "error"), Some(error), "{changes}");
        assert_eq!(get_param(&back, "state"), Some("xyz-42"));
        assert_eq!(get_param(&back, "iss"), Some(app.address.as_str()));
        assert!(get_param(&back, "code").is_none());
    }
    // The person says no.
    let to = consent(&app, &alice, &params(json!({})), false).await;
    let back = sent_back(&to);
    assert_eq!(get_param(&back, "error"), Some("access_denied"));
    assert_eq!(get_param(&back, "state"), Some("xyz-42"));
    assert!(get_param(&back, "code").is_none());
    assert!(live_tokens(&app, &alice).await.is_empty());
}

#[tokio::test]
async fn state_comes_back_exactly_as_sent_and_is_left_out_when_the_client_sent_none() {
    let app = spawn_app().await;
    let alice = app.player("alice").await;
    // A state that tries to inject parameters of its own.
    let tricky = "a&code=attacker&state=b #?=";
    let to = consent(&app, &alice, &params(json!({ "state": tricky })), true).await;
    let back = sent_back(&to);
    assert_eq!(get_param(&back, "state"), Some(tricky));
    assert_eq!(back.iter().filter(|(k, _)| k == "code").count(), 1);
    assert_eq!(back.iter().filter(|(k, _)| k == "state").count(), 1);
    assert_ne!(get_param(&back, "code"), Some("attacker"));

    // Without state the client leans on PKCE: no state is invented, and the
    // code is still bound to the verifier.
    let to = consent(&app, &alice, &params(json!({ "state": null })), true).await;
    let back = sent_back(&to);
    assert!(get_param(&back, "state").is_none(), "{to}");
    let code = get_param(&back, "code").expect("a code");
    let reply = exchange(
        &app,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            (
                "code_verifier",
                "another-verifier-that-is-long-enough-to-be-valid-000",
            ),
            ("redirect_uri", REDIRECT),
            ("client_id", CLIENT),
        ],
    )
    .await;
    assert_refused(&reply, "invalid_grant");
    assert_eq!(redeem(&app, code).await.0, 200);
}

#[tokio::test]
async fn bad_token_requests_get_the_rfc_errors_and_store_nothing() {
    let (app, clock) = spawn_app_with_manual_clock().await;
    let alice = app.player("alice").await;
    let code = code_for(&app, &alice, json!({})).await;
    let base = [
        ("grant_type", "authorization_code"),
        ("code", code.as_str()),
        ("code_verifier", VERIFIER),
        ("redirect_uri", REDIRECT),
        ("client_id", CLIENT),
    ];
    // No password grant, no client credentials, no refresh tokens.
    for grant in [
        "password",
        "client_credentials",
        "refresh_token",
        "implicit",
    ] {
        let mut f = base;
        f[0].1 = grant;
        assert_refused(&exchange(&app, &f).await, "unsupported_grant_type");
    }
    for missing in 0..base.len() {
        let f: Vec<(&str, &str)> = base
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != missing)
            .map(|(_, p)| *p)
            .collect();
        assert_refused(&exchange(&app, &f).await, "invalid_request");
    }
    let mut twice = base.to_vec();
    twice.push(("code", "another"));
    assert_refused(&exchange(&app, &twice).await, "invalid_request");
    let mut unknown = base;
    unknown[1].1 = "not-a-code";
    assert_refused(&exchange(&app, &unknown).await, "invalid_grant");
    // Not JSON nor a form of strings.
    let res = no_redirects()
        .post(app.url("/oauth/token"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("request");
    assert_eq!(res.status().as_u16(), 400);
    assert!(live_tokens(&app, &alice).await.is_empty());

    // A code lives about a minute.
    clock.advance(chrono::Duration::seconds(61));
    assert_refused(&redeem(&app, &code).await, "invalid_grant");
    assert!(live_tokens(&app, &alice).await.is_empty());

    // A JSON body is read as the form is.
    let code = code_for(&app, &alice, json!({})).await;
    let res = no_redirects()
        .post(app.url("/oauth/token"))
        .json(&json!({
            "grant_type": "authorization_code", "code": code, "code_verifier": VERIFIER,
            "redirect_uri": REDIRECT, "client_id": CLIENT,
        }))
        .send()
        .await
        .expect("request");
    assert_eq!(res.status().as_u16(), 200);
    assert_eq!(res.headers()["access-control-allow-origin"], "*");
}

#[tokio::test]
async fn a_token_without_the_chat_scope_plays_but_cannot_speak() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    let id = app.started_match(&players, "malacca", json!({})).await;
    let alice = &players[0];
    let quiet = {
        let code = code_for(&app, alice, json!({"scope": "play"})).await;
        redeem(&app, &code).await.1["access_token"]
            .as_str()
            .expect("token")
            .to_owned()
    };
    let talker = {
        let code = code_for(&app, alice, json!({"scope": "chat read"})).await;
        redeem(&app, &code).await.1["access_token"]
            .as_str()
            .expect("token")
            .to_owned()
    };
    let path = format!("/api/v1/matches/{id}/messages");
    app.post(&path, Some(&quiet), &json!({"text": "hello"}))
        .await
        .problem(403, "insufficient_scope");
    app.send(
        Method::PUT,
        &format!("/api/v1/players/me/mutes/{}", players[1].name),
        Some(&quiet),
        None,
    )
    .await
    .problem(403, "insufficient_scope");
    app.post(&path, Some(&talker), &json!({"text": "hello"}))
        .await
        .expect(201);
    let read = app.get(&path, Some(&talker)).await.expect(200);
    assert_eq!(read["items"].as_array().map(Vec::len), Some(1));
}
