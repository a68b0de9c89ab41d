use crate::service::accounts::Accounts;
use actix_web::{HttpRequest, HttpResponse, post, web};
use serde::Deserialize;
use utoipa::ToSchema;

use crate::errors::{ApiError, Problem};
use crate::ratelimit::{RateLimits, TooManyRequests};
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

/// Issues an access token (a JWT living `JWT_TTL`). Rate-limited per address and
/// per account name.
#[utoipa::path(tag = "auth", operation_id = "create_token",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "A bearer token.", body = TokenResponse,
            headers(("RateLimit-Limit" = u32, description = "Authentication attempts allowed per minute."),
                    ("RateLimit-Remaining" = u32, description = "Attempts left now."),
                    ("RateLimit-Reset" = u64, description = "Seconds until the allowance is whole again."))),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "Wrong name or password.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The body lacks a field.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/auth/token")]
pub async fn create_token(
    req: HttpRequest,
    accounts: web::Data<Accounts>,
    limits: web::Data<RateLimits>,
    body: web::Json<TokenRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.auth(&req, Some(&body.name))?;
    let token = accounts.login(&body.name, &body.password).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(token))
}
