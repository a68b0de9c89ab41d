//! Moderation endpoints, for admins only (403 `not_admin` for anybody else).

use crate::service::moderation::Moderation;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::PageQuery;
use super::matches::optional_body;
use crate::auth::AuthenticatedPlayer;
use crate::errors::{ApiError, Problem};
use crate::ratelimit::{RateLimits, TooManyRequests};
use crate::service::models::{AuditPage, MatchResponse, ModerationResponse};

/// Why, for the audit log.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ModerationRequest {
    /// At most 500 characters; kept in the audit log (and shown nowhere else).
    #[schema(example = "spam in match names")]
    pub reason: Option<String>,
}

macro_rules! player_action {
    ($fn:ident, $path:literal, $op:literal, $doc:literal, $what:literal, $disabled:expr, $admin:expr) => {
        #[doc = $doc]
        #[utoipa::path(tag = "admin", operation_id = $op,
            security(("bearer" = [])),
            params(("name" = String, Path, description = "The player's name.")),
            request_body(content = ModerationRequest, description = "A JSON object: `{}`, or the reason (kept in the audit log). An empty body counts as `{}`."),
            responses(
                (status = 200, description = $what, body = ModerationResponse),
                (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
                (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
                (status = 403, description = "You are not an admin (`not_admin`).", body = Problem, content_type = "application/problem+json"),
                (status = 404, description = "No player has that name.", body = Problem, content_type = "application/problem+json"),
                (status = 409, description = "An admin's own account or role (`own_account`, `own_admin_role`).", body = Problem, content_type = "application/problem+json"),
                (status = 422, description = "The reason is too long, or unknown fields.", body = Problem, content_type = "application/problem+json"),
                TooManyRequests,
            ))]
        #[post($path)]
        pub async fn $fn(
            req: HttpRequest,
            moderation: web::Data<Moderation>,
            limits: web::Data<RateLimits>,
            me: AuthenticatedPlayer,
            name: web::Path<String>,
            body: web::Bytes,
        ) -> Result<HttpResponse, ApiError> {
            let body: ModerationRequest = optional_body(&body)?;
            let quota = limits.moves(&req, me.id)?;
            let done = match ($disabled, $admin) {
                (Some(d), _) => moderation.set_disabled(&me, &name, d, body.reason.as_deref()).await?,
                (None, a) => moderation.set_admin(&me, &name, a, body.reason.as_deref()).await?,
            };
            Ok(quota.headers(HttpResponse::Ok()).json(done))
        }
    };
}

player_action!(
    disable_player,
    "/admin/players/{name}/disable",
    "disable_player",
    "Disables an account: its logins, JWTs and API tokens are refused (403 `account_disabled`) from the next request on, on every replica, and its streams end. Its matches go on under the deadline policies.",
    "Disabled (or already was).",
    Some(true),
    false
);
player_action!(
    enable_player,
    "/admin/players/{name}/enable",
    "enable_player",
    "Enables a disabled account again.",
    "Enabled (or already was).",
    Some(false),
    false
);
player_action!(
    grant_admin,
    "/admin/players/{name}/grant-admin",
    "grant_admin",
    "Makes a player an admin.",
    "Granted (or already was).",
    None::<bool>,
    true
);
player_action!(
    revoke_admin,
    "/admin/players/{name}/revoke-admin",
    "revoke_admin",
    "Takes the admin role from another admin.",
    "Revoked (or was not one).",
    None::<bool>,
    false
);

/// Ends a waiting or active match as aborted (its `match_aborted` event says
/// `moderated`): no results and no ratings; its players and streams see it at once.
#[utoipa::path(tag = "admin", operation_id = "moderate_cancel_match",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    request_body(content = ModerationRequest, description = "A JSON object: `{}`, or the reason (kept in the audit log). An empty body counts as `{}`."),
    responses(
        (status = 200, description = "The match, aborted.", body = MatchResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "You are not an admin (`not_admin`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The match is already over (`match_over`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The reason is too long, or unknown fields.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/admin/matches/{id}/cancel")]
pub async fn moderate_cancel_match(
    req: HttpRequest,
    moderation: web::Data<Moderation>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let body: ModerationRequest = optional_body(&body)?;
    let quota = limits.moves(&req, me.id)?;
    let m = moderation
        .moderate_cancel_match(&me, *id, body.reason.as_deref())
        .await?;
    Ok(quota.headers(HttpResponse::Ok()).json(m))
}

/// The moderation audit log, newest first: every admin action and every
/// grant from the command line.
#[utoipa::path(tag = "admin", operation_id = "get_audit_log",
    security(("bearer" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of the audit log.", body = AuditPage),
        (status = 400, description = "A bad limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "You are not an admin (`not_admin`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/admin/audit")]
pub async fn get_audit_log(
    moderation: web::Data<Moderation>,
    me: AuthenticatedPlayer,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    Ok(HttpResponse::Ok().json(moderation.audit_log(&me, q.limit, q.cursor).await?))
}
