use crate::service::accounts::Accounts;
use crate::service::deletion::Deletion;
use crate::service::reads::Reads;
use crate::service::reliability::Reliability;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::auth::{AuthenticatedPlayer, PasswordSession};
use crate::errors::{ApiError, Problem};
use crate::ratelimit::{RateLimits, TooManyRequests};
use crate::service::models::{PlayerResponse, TokenResponse};

/// A new account.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreatePlayerRequest {
    /// 3 to 32 characters: letters, digits, `_`, `-`; unique regardless of case.
    #[schema(pattern = "^[A-Za-z0-9_-]{3,32}$", example = "alice")]
    pub name: String,
    /// At least 8 characters.
    #[schema(min_length = 8, example = "correct horse")]
    pub password: String,
}

/// Registers a player. Rate-limited per address.
#[utoipa::path(tag = "players", operation_id = "create_player",
    request_body = CreatePlayerRequest,
    responses(
        (status = 201, description = "The player was created.", body = PlayerResponse,
            headers(("RateLimit-Limit" = u32, description = "Authentication requests allowed per minute."),
                    ("RateLimit-Remaining" = u32, description = "Requests left now."),
                    ("RateLimit-Reset" = u64, description = "Seconds until the allowance is whole again."))),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The name is taken.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The name or password is not acceptable.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/players")]
pub async fn create_player(
    req: HttpRequest,
    accounts: web::Data<Accounts>,
    limits: web::Data<RateLimits>,
    body: web::Json<CreatePlayerRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.auth(&req, None)?;
    let p = accounts.register(&body.name, &body.password).await?;
    Ok(quota
        .headers(HttpResponse::Created())
        .insert_header(("Location", format!("/api/v1/players/{}", p.name)))
        .json(p))
}

/// A new password for the caller.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChangePasswordRequest {
    #[schema(example = "correct horse")]
    pub current_password: String,
    /// At least 8 characters.
    #[schema(min_length = 8, example = "battery staple")]
    pub new_password: String,
    /// Also revoke every API token (after a suspected compromise). Default
    /// false: bots keep running through a routine change.
    #[serde(default)]
    pub revoke_api_tokens: bool,
}

/// Changes your password. Every access token issued before is refused from
/// then on; the answer is a fresh one. Needs a password-issued token, not an
/// API token. Rate-limited per address and per account.
#[utoipa::path(tag = "players", operation_id = "change_password",
    security(("bearer" = [])),
    request_body = ChangePasswordRequest,
    responses(
        (status = 200, description = "The password was changed; a fresh access token.", body = TokenResponse,
            headers(("RateLimit-Limit" = u32, description = "Authentication requests allowed per minute."),
                    ("RateLimit-Remaining" = u32, description = "Requests left now."),
                    ("RateLimit-Reset" = u64, description = "Seconds until the allowance is whole again."))),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`), or the current password is wrong (`wrong_password`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The password was changed by another request meanwhile.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The new password is not acceptable.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/players/me/password")]
pub async fn change_password(
    req: HttpRequest,
    accounts: web::Data<Accounts>,
    limits: web::Data<RateLimits>,
    me: PasswordSession,
    body: web::Json<ChangePasswordRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.auth(&req, Some(&me.name))?;
    let token = accounts
        .change_password(
            &me,
            &body.current_password,
            &body.new_password,
            body.revoke_api_tokens,
        )
        .await?;
    Ok(quota.headers(HttpResponse::Ok()).json(token))
}

/// The password, once more, to delete the account.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteAccountRequest {
    #[schema(example = "correct horse")]
    pub password: String,
}

/// Deletes your account. Your seats in active matches are resigned and your
/// waiting matches left (one you own with nobody else seated is cancelled);
/// then the account is anonymised: the matches you played keep your seats,
/// moves and results under the name `deleted.<12 hex digits>`, your chat
/// messages lose their text, your API tokens, webhooks, mutes, pending
/// invitations and ratings go, and every credential of yours is refused from
/// then on. Your old name stays reserved: nobody can register it. Needs a
/// password-issued token and the password. Rate-limited as logins are.
#[utoipa::path(tag = "players", operation_id = "delete_account",
    security(("bearer" = [])),
    request_body = DeleteAccountRequest,
    responses(
        (status = 204, description = "The account is deleted.",
            headers(("RateLimit-Limit" = u32, description = "Authentication requests allowed per minute."),
                    ("RateLimit-Remaining" = u32, description = "Requests left now."),
                    ("RateLimit-Reset" = u64, description = "Seconds until the allowance is whole again."))),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`), or the password is wrong (`wrong_password`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The body lacks the password (`invalid_body`).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/players/me/delete")]
pub async fn delete_account(
    req: HttpRequest,
    deletion: web::Data<Deletion>,
    limits: web::Data<RateLimits>,
    me: PasswordSession,
    body: web::Json<DeleteAccountRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.auth(&req, Some(&me.name))?;
    deletion.delete_account(&me, &body.password).await?;
    Ok(quota.headers(HttpResponse::NoContent()).finish())
}

/// The authenticated player's profile, with their settings (`locale`).
#[utoipa::path(tag = "players", operation_id = "get_me",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your profile.", body = crate::service::models::MyProfileResponse),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me")]
pub async fn get_me(
    accounts: web::Data<Accounts>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(accounts.my_profile(me.id).await?))
}

/// A player's public profile, with its record of deadlines met against
/// deadlines owed (`reliability`).
#[utoipa::path(tag = "players", operation_id = "get_player",
    params(("name" = String, Path, description = "The player's name (any case).")),
    responses(
        (status = 200, description = "The player.", body = crate::service::models::PlayerProfileResponse),
        (status = 404, description = "No such player.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/{name}")]
pub async fn get_player(
    reliability: web::Data<Reliability>,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(reliability.profile(&name).await?))
}

/// Every active match where you owe a move: soonest deadline first, then the
/// longest owed.
#[utoipa::path(tag = "players", operation_id = "get_my_turns",
    security(("bearer" = [])),
    params(TurnsQuery),
    responses(
        (status = 200, description = "Your turns.", body = crate::service::models::TurnsResponse),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/turns")]
pub async fn get_my_turns(
    reads: web::Data<Reads>,
    me: AuthenticatedPlayer,
    query: web::Query<TurnsQuery>,
) -> Result<HttpResponse, ApiError> {
    let with_prompts = query.prompts.unwrap_or(false);
    Ok(HttpResponse::Ok().json(reads.my_turns(&me, with_prompts).await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct TurnsQuery {
    /// Each turn also carries your `prompt` in its match (with `legal`), so a
    /// bot moves in every match listed without reading it first.
    pub prompts: Option<bool>,
}
