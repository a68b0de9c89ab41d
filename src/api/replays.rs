use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::Instant;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use uuid::Uuid;

use crate::errors::{ApiError, Problem};
use crate::service::Service;
use crate::service::replay::{MAX_BUNDLE_MOVES, ReplayBundle, VerifyReport};

/// Verifications allowed per address per minute (a token bucket per process).
const VERIFY_PER_MINUTE: f64 = 30.0;
/// The largest bundle accepted for verification.
pub const MAX_BUNDLE_BYTES: usize = 1024 * 1024;

/// Token buckets per client address; replaying a bundle costs real CPU.
#[derive(Default)]
pub struct VerifyLimiter(Mutex<HashMap<IpAddr, (f64, Instant)>>);

impl VerifyLimiter {
    /// Takes a token; answers the seconds to wait when there is none.
    fn take(&self, ip: IpAddr) -> Result<u32, u64> {
        let Ok(mut map) = self.0.lock() else {
            return Ok(0);
        };
        if map.len() > 10_000 {
            map.retain(|_, (_, t)| t.elapsed().as_secs() < 60);
        }
        let now = Instant::now();
        let (tokens, last) = map.entry(ip).or_insert((VERIFY_PER_MINUTE, now));
        *tokens = (*tokens + last.elapsed().as_secs_f64() * VERIFY_PER_MINUTE / 60.0)
            .min(VERIFY_PER_MINUTE);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            Ok(*tokens as u32)
        } else {
            Err(((1.0 - *tokens) * 60.0 / VERIFY_PER_MINUTE).ceil() as u64)
        }
    }
}

/// A self-contained replay bundle of the match; complete once it is over.
#[utoipa::path(tag = "replays", operation_id = "export_match",
    params(("id" = Uuid, Path, description = "The match id.")),
    responses(
        (status = 200, description = "The bundle.", body = ReplayBundle),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}/export")]
pub async fn export_match(
    service: web::Data<Service>,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(service.export_match(*id).await?))
}

/// Replays a bundle with the engines and reports whether the seed matches its
/// published hash and the replay reproduces every round and the result.
#[utoipa::path(tag = "replays", operation_id = "verify_replay",
    request_body = ReplayBundle,
    responses(
        (status = 200, description = "The verification report (`valid` says whether everything held).", body = VerifyReport,
            headers(("RateLimit-Limit" = String, description = "Verifications allowed per minute."),
                    ("RateLimit-Remaining" = String, description = "Verifications left now."))),
        (status = 422, description = "The bundle is not one (or has too many moves).", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "Too many verifications; retry after the Retry-After header.", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/replays/verify")]
pub async fn verify_replay(
    req: HttpRequest,
    service: web::Data<Service>,
    limiter: web::Data<VerifyLimiter>,
    body: web::Json<ReplayBundle>,
) -> Result<HttpResponse, ApiError> {
    let ip = req
        .peer_addr()
        .map(|a| a.ip())
        .unwrap_or(IpAddr::from([0, 0, 0, 0]));
    let remaining = limiter.take(ip).map_err(|wait| {
        ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            "Too many verifications; wait a little.",
        )
        .retry_after(wait as u32)
    })?;
    if body.moves.len() > MAX_BUNDLE_MOVES {
        return Err(ApiError::unprocessable(
            "bundle_too_large",
            format!("A bundle holds at most {MAX_BUNDLE_MOVES} moves."),
        ));
    }
    let bundle = body.into_inner();
    let service = service.clone();
    let report = web::block(move || service.verify_bundle(&bundle))
        .await
        .map_err(ApiError::internal)?;
    Ok(HttpResponse::Ok()
        .insert_header(("RateLimit-Limit", (VERIFY_PER_MINUTE as u32).to_string()))
        .insert_header(("RateLimit-Remaining", remaining.to_string()))
        .json(report))
}
