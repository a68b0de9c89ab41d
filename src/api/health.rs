use crate::service::ops::Ops;
use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use crate::errors::ApiError;

#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
}

/// Liveness: the process answers.
#[utoipa::path(tag = "health", operation_id = "get_healthz",
    responses((status = 200, description = "The server is running.", body = Health)))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().json(Health {
        status: "ok".into(),
    })
}

/// Readiness: the database answers.
#[utoipa::path(tag = "health", operation_id = "get_readyz",
    responses(
        (status = 200, description = "The server can serve requests.", body = Health),
        (status = 503, description = "The database does not answer.", body = crate::errors::Problem,
            content_type = "application/problem+json"),
    ))]
#[get("/readyz")]
pub async fn readyz(ops: web::Data<Ops>) -> Result<HttpResponse, ApiError> {
    if ops.ready().await {
        Ok(HttpResponse::Ok().json(Health {
            status: "ok".into(),
        }))
    } else {
        Err(ApiError::new(
            actix_web::http::StatusCode::SERVICE_UNAVAILABLE,
            "not_ready",
            "The database does not answer.",
        ))
    }
}

/// Prometheus metrics of this process (requests, latency, moves, steps, matches, pool).
#[utoipa::path(tag = "health", operation_id = "get_metrics",
    responses(
        (status = 200, description = "Metrics in the Prometheus text format.", body = String, content_type = "text/plain"),
        (status = 503, description = "The database does not answer.", body = crate::errors::Problem,
            content_type = "application/problem+json"),
    ))]
#[get("/metrics")]
pub async fn metrics(ops: web::Data<Ops>) -> Result<HttpResponse, ApiError> {
    let text = ops.render_metrics().await?;
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
}
