use actix_web::{HttpResponse, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::errors::{ApiError, Problem};
use crate::service::Service;
use crate::service::models::TokenResponse;

/// A name and a password.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    #[schema(example = "alice")]
    pub name: String,
    #[schema(example = "correct horse")]
    pub password: String,
}

/// Issues an access token.
#[utoipa::path(tag = "auth", operation_id = "create_token",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "A bearer token.", body = TokenResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Wrong name or password.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The body lacks a field.", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/auth/token")]
pub async fn create_token(
    service: web::Data<Service>,
    body: web::Json<TokenRequest>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(service.login(&body.name, &body.password).await?))
}
