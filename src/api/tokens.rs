use crate::service::tokens::Tokens;
use actix_web::{HttpResponse, delete, get, post, web};
use chrono::{DateTime, Utc};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::PageQuery;
use crate::auth::{PasswordSession, Scope};
use crate::errors::{ApiError, Problem};
use crate::service::models::{ApiTokenPage, CreatedApiToken};
use crate::service::tokens::NewApiToken;

/// A new API token for a bot or another program.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateApiTokenRequest {
    /// What it is for, 1 to 64 characters.
    #[schema(example = "my bot")]
    pub name: String,
    /// `read`: GET requests only. `play`: everything else too (it implies `read`).
    #[schema(example = json!(["play", "read"]))]
    pub scopes: Vec<Scope>,
    /// When it stops working; omitted or null: never (until revoked).
    pub expires_at: Option<DateTime<Utc>>,
}

/// Issues an API token: a long-lived credential for `Authorization: Bearer`,
/// shown once. Needs a password-issued token, not an API token.
#[utoipa::path(tag = "auth", operation_id = "create_api_token",
    security(("bearer" = [])),
    request_body = CreateApiTokenRequest,
    responses(
        (status = 201, description = "The token, with its secret (shown this once).", body = CreatedApiToken),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "You hold the most live tokens allowed (`too_many_tokens`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad name, no scope, an unknown scope, or an expiry in the past.", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/players/me/tokens")]
pub async fn create_api_token(
    tokens: web::Data<Tokens>,
    me: PasswordSession,
    body: web::Json<CreateApiTokenRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let created = tokens
        .create_api_token(
            &me,
            NewApiToken {
                name: body.name,
                scopes: body.scopes,
                expires_at: body.expires_at,
            },
        )
        .await?;
    Ok(HttpResponse::Created()
        .insert_header((
            "Location",
            format!("/api/v1/players/me/tokens/{}", created.api_token.id),
        ))
        .json(created))
}

/// Your API tokens, newest first, revoked and expired ones included; never their secrets.
#[utoipa::path(tag = "auth", operation_id = "list_api_tokens",
    security(("bearer" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of your tokens.", body = ApiTokenPage),
        (status = 400, description = "A bad limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/tokens")]
pub async fn list_api_tokens(
    tokens: web::Data<Tokens>,
    me: PasswordSession,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    Ok(HttpResponse::Ok().json(tokens.list_api_tokens(&me, q.limit, q.cursor).await?))
}

/// Revokes one of your API tokens: it is refused from the next request on.
#[utoipa::path(tag = "auth", operation_id = "revoke_api_token",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The token's id.")),
    responses(
        (status = 204, description = "Revoked (or already was)."),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no token with that id.", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/players/me/tokens/{id}")]
pub async fn revoke_api_token(
    tokens: web::Data<Tokens>,
    me: PasswordSession,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    tokens.revoke_api_token(&me, *id).await?;
    Ok(HttpResponse::NoContent().finish())
}
