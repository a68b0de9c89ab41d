use crate::service::replay::Replays;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use uuid::Uuid;

use crate::errors::{ApiError, Problem};
use crate::ratelimit::{RateLimits, TooManyRequests};
use crate::service::replay::{MAX_BUNDLE_MOVES, ReplayBundle, VerifyReport};

/// The largest bundle accepted for verification.
pub const MAX_BUNDLE_BYTES: usize = 1024 * 1024;

/// A self-contained replay bundle of the match; complete once it is over.
#[utoipa::path(tag = "replays", operation_id = "export_match",
    security((), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    responses(
        (status = 200, description = "The bundle.", body = ReplayBundle),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The match is played without spectators (`spectators_not_allowed`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one the caller is not part of).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}/export")]
pub async fn export_match(
    replays: web::Data<Replays>,
    caller: crate::auth::MaybePlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(replays.export_match(caller.0.map(|p| p.id), *id).await?))
}

/// Replays a bundle with the engines and reports whether the seed matches its
/// published hash and the replay reproduces every round and the result.
#[utoipa::path(tag = "replays", operation_id = "verify_replay",
    request_body = ReplayBundle,
    responses(
        (status = 200, description = "The verification report (`valid` says whether everything held).", body = VerifyReport,
            headers(("RateLimit-Limit" = u32, description = "Verifications allowed per minute."),
                    ("RateLimit-Remaining" = u32, description = "Verifications left now."),
                    ("RateLimit-Reset" = u64, description = "Seconds until the allowance is whole again."))),
        (status = 422, description = "The bundle is not one (or has too many moves).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/replays/verify")]
pub async fn verify_replay(
    req: HttpRequest,
    replays: web::Data<Replays>,
    limits: web::Data<RateLimits>,
    body: web::Json<ReplayBundle>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.verify(&req)?;
    if body.moves.len() > MAX_BUNDLE_MOVES {
        return Err(ApiError::unprocessable(
            "bundle_too_large",
            format!("A bundle holds at most {MAX_BUNDLE_MOVES} moves."),
        )
        .arg("max", MAX_BUNDLE_MOVES));
    }
    let bundle = body.into_inner();
    let replays = replays.clone();
    let report = web::block(move || replays.verify_bundle(&bundle))
        .await
        .map_err(ApiError::internal)?;
    Ok(quota.headers(HttpResponse::Ok()).json(report))
}
