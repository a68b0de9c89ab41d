//! Rate limits: token buckets per client address and per account, kept in this
//! process's memory (each replica counts for itself). A handler attaches a limit
//! with one call before doing the work, and copies the quota onto its answer:
//!
//! ```ignore
//! let quota = limits.moves(&req, me.id)?;
//! Ok(quota.headers(HttpResponse::Ok()).json(receipt))
//! ```

mod address;
mod bucket;

use std::net::IpAddr;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponseBuilder};
use uuid::Uuid;

pub use crate::network::Network;
pub use address::{bucket_address, client_address};
pub use bucket::{Key, Limiter, Quota};

use crate::config::Settings;
use crate::errors::{ApiError, Problem};
use crate::service::clock::Clock;

/// Replay verifications allowed per address per minute: each replays a whole match.
const VERIFY_PER_MINUTE: u32 = 30;

/// Every limit of the server, with the proxies whose X-Forwarded-For counts.
pub struct RateLimits {
    buckets: Limiter,
    auth_per_min: u32,
    moves_per_min: u32,
    moves_per_min_per_address: u32,
    chat_per_min: u32,
    matches_per_min: u32,
    invitations_per_min: u32,
    clubs_per_min: u32,
    tournaments_per_min: u32,
    trusted_proxies: Vec<Network>,
    clock: Arc<dyn Clock>,
}

/// What a limited operation answers when a bucket is empty (for the spec).
#[derive(utoipa::IntoResponses)]
#[response(
    status = 429,
    description = "Too many requests from this address or account (`rate_limited`); retry after the Retry-After header.",
    content_type = "application/problem+json",
    headers(
        ("RateLimit" = String, description = "The limit as it stands (IETF RateLimit header fields): `\"<policy>\";r=<requests left: 0>;t=<seconds until the allowance is whole again>`."),
        ("RateLimit-Policy" = String, description = "The limit's policy: `\"<policy>\";q=<requests a minute, and in a burst>;w=60`; policies are `auth`, `moves`, `chat`, `verify`, and for what a player creates `matches`, `invitations`, `clubs` and `tournaments`."),
        ("RateLimit-Limit" = u32, description = "Requests allowed per minute (and in a burst)."),
        ("RateLimit-Remaining" = u32, description = "Requests left now: 0."),
        ("RateLimit-Reset" = u64, description = "Seconds until the allowance is whole again."),
        ("Retry-After" = u64, description = "Seconds until the next request is allowed."),
    )
)]
pub struct TooManyRequests(#[allow(dead_code)] Problem);

/// What a creation limit counts; each kind has a bucket of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Creation {
    /// New matches and rematches (`matches`).
    Matches,
    /// Requests that invite players to a match or a club (`invitations`).
    Invitations,
    /// New clubs (`clubs`).
    Clubs,
    /// New tournaments (`tournaments`).
    Tournaments,
}

impl Creation {
    /// The policy's name in the RateLimit header fields.
    pub fn policy(self) -> &'static str {
        match self {
            Creation::Matches => "matches",
            Creation::Invitations => "invitations",
            Creation::Clubs => "clubs",
            Creation::Tournaments => "tournaments",
        }
    }
}

/// The answer's rate-limit headers; nothing when the limit is off.
#[derive(Debug, Clone, Copy, Default)]
#[must_use = "a quota's headers belong on the answer"]
pub struct Granted(Option<(Quota, &'static str)>);

/// The headers saying where a quota stands: `RateLimit` and `RateLimit-Policy`
/// as the IETF's RateLimit header fields define them (structured fields: the
/// policy's name, its quota `q` per window `w` in seconds; what is left `r` and
/// the seconds `t` until the allowance is whole again), and the older draft's
/// `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`, kept for
/// clients written against them until they are withdrawn (see the README).
pub fn quota_headers(q: &Quota, policy: &str) -> [(&'static str, String); 5] {
    [
        (
            "RateLimit",
            format!("\"{policy}\";r={};t={}", q.remaining, q.reset),
        ),
        (
            "RateLimit-Policy",
            format!("\"{policy}\";q={};w=60", q.limit),
        ),
        ("RateLimit-Limit", q.limit.to_string()),
        ("RateLimit-Remaining", q.remaining.to_string()),
        ("RateLimit-Reset", q.reset.to_string()),
    ]
}

impl Granted {
    /// Adds the quota's headers (see [`quota_headers`]).
    pub fn headers(self, mut resp: HttpResponseBuilder) -> HttpResponseBuilder {
        if let Some((q, policy)) = self.0 {
            for header in quota_headers(&q, policy) {
                resp.insert_header(header);
            }
        }
        resp
    }
}

impl RateLimits {
    pub fn new(settings: &Settings, clock: Arc<dyn Clock>) -> Self {
        Self {
            buckets: Limiter::default(),
            auth_per_min: settings.rate_limit_auth_per_min,
            moves_per_min: settings.rate_limit_moves_per_min,
            moves_per_min_per_address: settings.rate_limit_moves_per_min_per_address,
            chat_per_min: settings.rate_limit_chat_per_min,
            matches_per_min: settings.rate_limit_matches_per_min,
            invitations_per_min: settings.rate_limit_invitations_per_min,
            clubs_per_min: settings.rate_limit_clubs_per_min,
            tournaments_per_min: settings.rate_limit_tournaments_per_min,
            trusted_proxies: settings.trusted_proxies.clone(),
            clock,
        }
    }

    /// The request's client address (see [`client_address`]).
    pub fn client(&self, req: &HttpRequest) -> IpAddr {
        let peer = req
            .peer_addr()
            .map_or(IpAddr::from([0, 0, 0, 0]), |a| a.ip());
        let forwarded = req
            .headers()
            .get_all("x-forwarded-for")
            .filter_map(|v| v.to_str().ok());
        client_address(peer, forwarded, &self.trusted_proxies)
    }

    /// The client's bucket for one kind of request.
    fn address(&self, kind: &'static str, req: &HttpRequest) -> Key {
        Key::Address(kind, bucket_address(self.client(req)))
    }

    /// Registration, login and password changes: per address, and per account
    /// (by name, whether it exists or not) when there is one.
    pub fn auth(&self, req: &HttpRequest, account: Option<&str>) -> Result<Granted, ApiError> {
        let mut keys = vec![(self.address("auth", req), self.auth_per_min)];
        if let Some(name) = account {
            // No name is longer; a longer one is no account, and must not make
            // a megabyte key.
            let name: String = name.chars().take(32).collect();
            keys.push((Key::Account(name.to_lowercase()), self.auth_per_min));
        }
        self.check(&keys, "auth", "authentication attempts")
    }

    /// Moves (and anything else a player does to a match at a move's pace): per
    /// player, and per address with a larger allowance, since every seat of a
    /// match may play from one host.
    pub fn moves(&self, req: &HttpRequest, player: Uuid) -> Result<Granted, ApiError> {
        let keys = [
            (Key::Player(player), self.moves_per_min),
            (self.address("moves", req), self.moves_per_min_per_address),
        ];
        self.check(&keys, "moves", "moves")
    }

    /// Chat messages: per player (a person types; a flood is refused), and
    /// per address with five times the allowance.
    pub fn chat(&self, req: &HttpRequest, player: Uuid) -> Result<Granted, ApiError> {
        let keys = [
            (Key::PlayerFor("chat", player), self.chat_per_min),
            (
                self.address("chat", req),
                self.chat_per_min.saturating_mul(5),
            ),
        ];
        self.check(&keys, "chat", "chat messages")
    }

    /// Creating what others read (matches, rematches, clubs, tournaments) and
    /// sending invitations: per player, and per address with five times the
    /// allowance (a household or a classroom behind one address). The caller
    /// exempts admins (see `api::creation_quota`).
    pub fn creations(
        &self,
        req: &HttpRequest,
        kind: Creation,
        player: Uuid,
    ) -> Result<Granted, ApiError> {
        let per_min = match kind {
            Creation::Matches => self.matches_per_min,
            Creation::Invitations => self.invitations_per_min,
            Creation::Clubs => self.clubs_per_min,
            Creation::Tournaments => self.tournaments_per_min,
        };
        let policy = kind.policy();
        let keys = [
            (Key::PlayerFor(policy, player), per_min),
            (self.address(policy, req), per_min.saturating_mul(5)),
        ];
        let what = match kind {
            Creation::Matches => "new matches",
            Creation::Invitations => "invitations",
            Creation::Clubs => "new clubs",
            Creation::Tournaments => "new tournaments",
        };
        self.check(&keys, policy, what)
    }

    /// Replay verification: per address.
    pub fn verify(&self, req: &HttpRequest) -> Result<Granted, ApiError> {
        let keys = [(self.address("verify", req), VERIFY_PER_MINUTE)];
        self.check(&keys, "verify", "verifications")
    }

    fn check(
        &self,
        keys: &[(Key, u32)],
        policy: &'static str,
        what: &str,
    ) -> Result<Granted, ApiError> {
        match self.buckets.take(keys, self.clock.now()) {
            None => Ok(Granted(None)),
            Some(Ok(q)) => Ok(Granted(Some((q, policy)))),
            Some(Err(q)) => {
                let wait = q.retry_after.unwrap_or(1);
                let mut e = ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    "rate_limited",
                    format!(
                        "Too many {what} from this address or account ({} a minute); retry in {wait} s.",
                        q.limit
                    ),
                )
                .retry_after(u32::try_from(wait).unwrap_or(u32::MAX))
                .arg("limit", q.limit)
                .arg("wait", wait);
                for (name, value) in quota_headers(&q, policy) {
                    e = e.with_header(name, value);
                }
                Err(e)
            }
        }
    }
}
