use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use crate::errors::ApiError;
use crate::service::Service;

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
pub async fn readyz(service: web::Data<Service>) -> Result<HttpResponse, ApiError> {
    if service.ready().await {
        Ok(HttpResponse::Ok().json(Health {
            status: "ok".into(),
        }))
    } else {
        Err(ApiError::unavailable("The database does not answer."))
    }
}
