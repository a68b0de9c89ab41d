//! Invitations to matches: sent by a match's owner, answered by the invited.

use crate::service::invitations::Invitations;
use crate::service::lobby::Lobby;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::{AuthenticatedPlayer, MaybePlayer};
use crate::errors::{ApiError, Problem};
use crate::ratelimit::{Creation, RateLimits, TooManyRequests};
use crate::service::caps::Caps;
use crate::service::invitations::{InvitationList, MyInvitations};
use crate::service::models::MatchResponse;

/// More players to invite to a waiting match.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct InviteRequest {
    /// Names of the players to invite (1 to 16, at most the match's seats). A
    /// player invited before is invited again (a new expiry, pending again).
    #[schema(example = json!(["alice", "bob"]))]
    pub players: Vec<String>,
    /// Seconds the invitations stay open: 60 to 2592000 (30 days); the
    /// server's `INVITATION_HOURS` (a week) when not given.
    #[schema(minimum = 60, maximum = 2592000)]
    pub expires_in: Option<i64>,
}

/// Invites players to a waiting match (its owner only). Each invitee finds it
/// under `GET /players/me/invitations` and gets an `invitation_sent` event on
/// its feed, stream and webhooks; it may see the match even if private.
#[utoipa::path(tag = "invitations", operation_id = "invite_players",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    request_body = InviteRequest,
    responses(
        (status = 200, description = "Every invitation of the match.", body = InvitationList),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the match's owner.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The match is not waiting, an invitee already holds a seat, or you would have more invitations waiting for an answer than one account may (`too_many_invitations`, `MAX_PENDING_INVITATIONS`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An unknown player, yourself, a name twice, too many, or a bad expiry.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches/{id}/invitations")]
pub async fn invite_players(
    req: HttpRequest,
    invitations: web::Data<Invitations>,
    limits: web::Data<RateLimits>,
    caps: web::Data<Caps>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Json<InviteRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = super::creation_quota(&limits, &caps, &req, &me, Creation::Invitations).await?;
    let list = invitations
        .invite_players(&me, *id, &body.players, body.expires_in)
        .await?;
    Ok(quota.headers(HttpResponse::Ok()).json(list))
}

/// Who was invited to the match and how each answered (for whoever may read
/// the match).
#[utoipa::path(tag = "invitations", operation_id = "list_invitations",
    security((), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    responses(
        (status = 200, description = "The invitations, oldest first.", body = InvitationList),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The match is played without spectators (`spectators_not_allowed`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one the caller is not part of).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}/invitations")]
pub async fn list_invitations(
    invitations: web::Data<Invitations>,
    caller: MaybePlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(
        invitations
            .invitations_of(caller.0.map(|p| p.id), *id)
            .await?,
    ))
}

/// Accepting: a seat, optionally chosen.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptInvitationRequest {
    /// The seat to take (0-based); the lowest free one when not given.
    pub seat: Option<i64>,
}

/// Accepts your invitation: takes a seat, as `POST /matches/{id}/join` does
/// (which accepts it as well).
#[utoipa::path(tag = "invitations", operation_id = "accept_invitation",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    request_body(content = AcceptInvitationRequest, description = "A JSON object: `{}`, or the seat wanted. An empty body counts as `{}`."),
    responses(
        (status = 200, description = "The match joined.", body = MatchResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match, or no invitation of yours (`invitation_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already answered, the match not waiting or full, the seat taken, or your reliability is below the match's `min_reliability` (`reliability_too_low`, with your `ratio` and the `minimum`), or you are on vacation (`on_vacation`).", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The invitation expired (`invitation_expired`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "No such seat, or unknown fields.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches/{id}/invitations/accept")]
pub async fn accept_invitation(
    req: HttpRequest,
    lobby: web::Data<Lobby>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let how: AcceptInvitationRequest = super::matches::optional_body(&body)?;
    let quota = limits.moves(&req, me.id)?;
    let m = lobby.accept_invitation(&me, *id, how.seat).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(m))
}

/// Declines your invitation; the match's players see it in its invitations
/// and an `invitation_declined` event.
#[utoipa::path(tag = "invitations", operation_id = "decline_invitation",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    responses(
        (status = 200, description = "Your invitation, declined.", body = InvitationList),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match, or no invitation of yours (`invitation_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already answered (`invitation_answered`).", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "The invitation expired (`invitation_expired`).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches/{id}/invitations/decline")]
pub async fn decline_invitation(
    req: HttpRequest,
    invitations: web::Data<Invitations>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let list = invitations.decline_invitation(&me, *id).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(list))
}

/// Your open invitations: pending, not expired, to matches still waiting;
/// soonest expiry first (at most 200).
#[utoipa::path(tag = "invitations", operation_id = "get_my_invitations",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your invitations.", body = MyInvitations),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/invitations")]
pub async fn get_my_invitations(
    invitations: web::Data<Invitations>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(invitations.my_invitations(&me).await?))
}

/// "Play again": the first seated player of a finished match to ask creates a
/// new match with the same game, options and visibility and a new seed,
/// keeping its seat (bots keep theirs); every other player is invited. Each
/// other player accepts by asking too (or by accepting the invitation), which
/// seats it in the same rematch.
#[utoipa::path(tag = "invitations", operation_id = "rematch",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The finished match's id.")),
    responses(
        (status = 201, description = "The rematch, just created, waiting for the others.", body = MatchResponse,
            headers(("Location" = String, description = "The new match."))),
        (status = 200, description = "The rematch another player created, now joined (or already).", body = MatchResponse),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "You did not play in this match (`not_seated`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The match is not finished, the rematch is full or started, or you declined it; or making it would pass a cap of yours (`too_many_waiting_matches`, `too_many_invitations`).", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "Your invitation to the rematch expired.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches/{id}/rematch")]
pub async fn rematch(
    req: HttpRequest,
    lobby: web::Data<Lobby>,
    limits: web::Data<RateLimits>,
    caps: web::Data<Caps>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let quota = super::creation_quota(&limits, &caps, &req, &me, Creation::Matches).await?;
    let (m, created) = lobby.rematch(&me, *id).await?;
    Ok(if created {
        quota
            .headers(HttpResponse::Created())
            .insert_header(("Location", format!("/api/v1/matches/{}", m.id)))
            .json(m)
    } else {
        quota.headers(HttpResponse::Ok()).json(m)
    })
}
