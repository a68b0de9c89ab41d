//! actix's own errors go through the one problem+json mapping.

use reqwest::Method;

use crate::helpers::spawn_app;

#[tokio::test]
async fn malformed_json_is_a_400_problem() {
    let app = spawn_app().await;
    let r = app
        .client
        .post(app.url("/api/v1/players"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .expect("send");
    assert_eq!(r.status().as_u16(), 400);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
}

#[tokio::test]
async fn a_body_that_is_not_json_is_a_415_problem() {
    let app = spawn_app().await;
    let r = app
        .client
        .post(app.url("/api/v1/players"))
        .header("content-type", "text/plain")
        .body("name=alice")
        .send()
        .await
        .expect("send");
    assert_eq!(r.status().as_u16(), 415);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
}

#[tokio::test]
async fn an_oversized_body_is_a_413_problem() {
    let app = spawn_app().await;
    let big = serde_json::json!({"name": "a".repeat(1100 * 1024), "password": "password1"});
    app.post("/api/v1/players", None, &big)
        .await
        .problem(413, "payload_too_large");
}

#[tokio::test]
async fn an_unknown_route_is_a_404_problem() {
    let app = spawn_app().await;
    app.get("/api/v1/nothing/here", None)
        .await
        .problem(404, "not_found");
    app.get("/nothing", None).await.problem(404, "not_found");
    app.get("/app/nothing.js", None)
        .await
        .problem(404, "not_found");
}

#[tokio::test]
async fn a_wrong_method_is_a_405_problem_with_allow() {
    let app = spawn_app().await;
    let r = app
        .send(Method::DELETE, "/api/v1/players", None, None)
        .await;
    r.problem(405, "method_not_allowed");
    assert_eq!(r.headers["allow"], "POST");
    let id = uuid::Uuid::now_v7();
    let r = app
        .send(
            Method::PUT,
            &format!("/api/v1/matches/{id}/moves"),
            None,
            None,
        )
        .await;
    r.problem(405, "method_not_allowed");
    assert_eq!(r.headers["allow"], "GET, HEAD, POST");
}

#[tokio::test]
async fn a_bad_path_or_query_is_a_400_problem() {
    let app = spawn_app().await;
    app.get("/api/v1/matches/not-a-uuid", None)
        .await
        .problem(400, "invalid_path");
    app.get("/api/v1/matches?limit=many", None)
        .await
        .problem(400, "invalid_query");
    app.get("/api/v1/matches?unknown=1", None)
        .await
        .problem(400, "invalid_query");
}

#[tokio::test]
async fn health_and_readiness_answer() {
    let app = spawn_app().await;
    assert_eq!(app.get("/healthz", None).await.expect(200)["status"], "ok");
    assert_eq!(app.get("/readyz", None).await.expect(200)["status"], "ok");
    let docs = app.get("/docs/", None).await;
    assert_eq!(docs.status.as_u16(), 200);
    assert!(
        docs.text.contains("swagger"),
        "Swagger UI is served from vendored assets"
    );
}
