//! Clubs: named groups with an owner, admins and members, their matches and
//! their own leaderboards.

use crate::service::clubs::Clubs;
use actix_web::{HttpRequest, HttpResponse, delete, get, patch, post, put, web};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::auth::{AuthenticatedPlayer, MaybePlayer};
use crate::errors::{ApiError, Problem};
use crate::ratelimit::{Creation, RateLimits, TooManyRequests};
use crate::service::caps::Caps;
use crate::service::clubs::{
    ClubChanges, ClubLeaderboard, ClubPage, ClubResponse, MemberPage, MemberResponse, MyClubs,
};

/// A new club; its creator is its owner.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateClubRequest {
    /// 3 to 48 characters: letters, digits, single spaces and `_ - . ' &`;
    /// unique whatever the case.
    #[schema(example = "Tuesday Malacca")]
    pub name: String,
    /// At most 1000 characters.
    pub description: Option<String>,
    /// `open` (anyone joins at once), `request` (default: an admin accepts
    /// each request) or `invitation` (members come by invitation only).
    #[schema(example = "request")]
    pub join_policy: Option<String>,
}

/// Creates a club, owned by the caller.
#[utoipa::path(tag = "clubs", operation_id = "create_club",
    security(("bearer" = [])),
    request_body = CreateClubRequest,
    responses(
        (status = 201, description = "The club.", body = ClubResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "A club has that name (`club_name_taken`), or you own the most clubs one account may (`too_many_clubs`, `MAX_CLUBS_OWNED`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad name, description or join policy.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/clubs")]
pub async fn create_club(
    req: HttpRequest,
    clubs: web::Data<Clubs>,
    limits: web::Data<RateLimits>,
    caps: web::Data<Caps>,
    me: AuthenticatedPlayer,
    body: web::Json<CreateClubRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = super::creation_quota(&limits, &caps, &req, &me, Creation::Clubs).await?;
    let club = clubs
        .create_club(
            &me,
            &body.name,
            body.description.as_deref(),
            body.join_policy.as_deref(),
        )
        .await?;
    Ok(quota
        .headers(HttpResponse::Created())
        .insert_header(("Location", format!("/api/v1/clubs/{}", club.id)))
        .json(club))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListClubsQuery {
    /// Only clubs whose name starts with this (whatever the case).
    pub q: Option<String>,
    /// Items per page: 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
}

/// Lists clubs, newest first.
#[utoipa::path(tag = "clubs", operation_id = "list_clubs",
    security((), ("bearer" = [])),
    params(ListClubsQuery),
    responses(
        (status = 200, description = "A page of clubs.", body = ClubPage),
        (status = 400, description = "A bad limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/clubs")]
pub async fn list_clubs(
    clubs: web::Data<Clubs>,
    caller: MaybePlayer,
    query: web::Query<ListClubsQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = clubs
        .list_clubs(caller.0.map(|p| p.id), q.q.as_deref(), q.limit, q.cursor)
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// A club, with the caller's standing in it.
#[utoipa::path(tag = "clubs", operation_id = "get_club",
    security((), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "The club id.")),
    responses(
        (status = 200, description = "The club.", body = ClubResponse),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/clubs/{id}")]
pub async fn get_club(
    clubs: web::Data<Clubs>,
    caller: MaybePlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(clubs.get_club(caller.0.map(|p| p.id), *id).await?))
}

/// What to change of a club (fields left out stay as they are).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateClubRequest {
    pub description: Option<String>,
    #[schema(example = "open")]
    pub join_policy: Option<String>,
}

/// Changes a club's description or join policy (its owner and admins).
#[utoipa::path(tag = "clubs", operation_id = "update_club",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The club id.")),
    request_body = UpdateClubRequest,
    responses(
        (status = 200, description = "The club as changed.", body = ClubResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not its owner or an admin (`not_club_admin`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad description or join policy.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[patch("/clubs/{id}")]
pub async fn update_club(
    req: HttpRequest,
    clubs: web::Data<Clubs>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Json<UpdateClubRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let body = body.into_inner();
    let club = clubs
        .update_club(
            &me,
            *id,
            ClubChanges {
                description: body.description,
                join_policy: body.join_policy,
            },
        )
        .await?;
    Ok(quota.headers(HttpResponse::Ok()).json(club))
}

/// Joins a club: at once if it is open or you are invited to it; otherwise
/// as a request an admin accepts (`status` says which).
#[utoipa::path(tag = "clubs", operation_id = "join_club",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The club id.")),
    responses(
        (status = 200, description = "Your place in the club: `member`, or `requested`.", body = MemberResponse),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The club takes members by invitation only (`invitation_required`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Already a member (`already_member`) or asking (`already_requested`).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/clubs/{id}/join")]
pub async fn join_club(
    req: HttpRequest,
    clubs: web::Data<Clubs>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let row = clubs.join_club(&me, *id).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(row))
}

/// Leaves a club, withdraws your request, or declines your invitation. The
/// owner leaves after handing the club over; the last member leaving ends it.
#[utoipa::path(tag = "clubs", operation_id = "leave_club",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The club id.")),
    responses(
        (status = 204, description = "Done."),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club (`club_not_found`), or you have no place in it (`member_not_found`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The owner must hand the club over first (`owner_must_hand_over`).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/clubs/{id}/leave")]
pub async fn leave_club(
    req: HttpRequest,
    clubs: web::Data<Clubs>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    clubs.remove_club_member(&me, *id, None).await?;
    Ok(quota.headers(HttpResponse::NoContent()).finish())
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ClubMembersQuery {
    /// `member` (default; anyone may look), `requested` or `invited` (the
    /// club's owner and admins).
    pub status: Option<String>,
    /// Items per page: 1 to 200 (default 50).
    #[param(minimum = 1, maximum = 200, default = 50)]
    pub limit: Option<u64>,
    pub cursor: Option<String>,
}

/// A club's members, oldest first; or its pending requests or invitations.
#[utoipa::path(tag = "clubs", operation_id = "list_club_members",
    security((), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "The club id."), ClubMembersQuery),
    responses(
        (status = 200, description = "A page of members.", body = MemberPage),
        (status = 400, description = "The id is not a UUID, or a bad status, limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Requests and invitations are for the club's admins (`not_club_admin`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/clubs/{id}/members")]
pub async fn list_club_members(
    clubs: web::Data<Clubs>,
    caller: MaybePlayer,
    id: web::Path<Uuid>,
    query: web::Query<ClubMembersQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = clubs
        .club_members(
            caller.0.map(|p| p.id),
            *id,
            q.status.as_deref(),
            q.limit,
            q.cursor,
        )
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// A player to invite to a club.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClubInviteRequest {
    #[schema(example = "alice")]
    pub player: String,
}

/// Invites a player (the club's owner and admins). A player who asked to
/// join becomes a member at once; an invited one joins with `POST …/join`.
#[utoipa::path(tag = "clubs", operation_id = "invite_to_club",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The club id.")),
    request_body = ClubInviteRequest,
    responses(
        (status = 200, description = "The player's place in the club.", body = MemberResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not its owner or an admin.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club or player.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The player is a member already, or you have the most invitations waiting for an answer one account may (`too_many_invitations`, `MAX_PENDING_INVITATIONS`).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/clubs/{id}/invitations")]
pub async fn invite_to_club(
    req: HttpRequest,
    clubs: web::Data<Clubs>,
    limits: web::Data<RateLimits>,
    caps: web::Data<Caps>,
    me: AuthenticatedPlayer,
    id: web::Path<Uuid>,
    body: web::Json<ClubInviteRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = super::creation_quota(&limits, &caps, &req, &me, Creation::Invitations).await?;
    let row = clubs.invite_to_club(&me, *id, &body.player).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(row))
}

/// Accepts a player's request to join (the club's owner and admins).
#[utoipa::path(tag = "clubs", operation_id = "accept_club_request",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The club id."),
           ("name" = String, Path, description = "The player who asked.")),
    responses(
        (status = 200, description = "The new member.", body = MemberResponse),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not its owner or an admin.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club or player, or no request waiting (`request_not_found`).", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/clubs/{id}/members/{name}/accept")]
pub async fn accept_club_request(
    req: HttpRequest,
    clubs: web::Data<Clubs>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let (id, name) = path.into_inner();
    let row = clubs.accept_club_request(&me, id, &name).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(row))
}

/// Removes a player's place in a club: a member (only the owner removes an
/// admin; nobody removes the owner), a request (declining it) or an
/// invitation (taking it back). Your own name: as `POST …/leave`.
#[utoipa::path(tag = "clubs", operation_id = "remove_club_member",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The club id."),
           ("name" = String, Path, description = "The player.")),
    responses(
        (status = 204, description = "Done."),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not allowed (`not_club_admin`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club or player, or no place of theirs in it.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The owner must hand the club over first.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[delete("/clubs/{id}/members/{name}")]
pub async fn remove_club_member(
    req: HttpRequest,
    clubs: web::Data<Clubs>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let (id, name) = path.into_inner();
    clubs.remove_club_member(&me, id, Some(&name)).await?;
    Ok(quota.headers(HttpResponse::NoContent()).finish())
}

/// A member's new role.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClubRoleRequest {
    /// `admin`, `member`, or `owner` (hands the club over; you stay an admin).
    #[schema(example = "admin")]
    pub role: String,
}

/// Gives a member a role (the club's owner only).
#[utoipa::path(tag = "clubs", operation_id = "set_club_role",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The club id."),
           ("name" = String, Path, description = "The member.")),
    request_body = ClubRoleRequest,
    responses(
        (status = 200, description = "The member with the role.", body = MemberResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Not the owner (`not_club_owner`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club, or the player is not a member.", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Your own role (`own_role`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An unknown role.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[put("/clubs/{id}/members/{name}/role")]
pub async fn set_club_role(
    req: HttpRequest,
    clubs: web::Data<Clubs>,
    limits: web::Data<RateLimits>,
    me: AuthenticatedPlayer,
    path: web::Path<(Uuid, String)>,
    body: web::Json<ClubRoleRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.moves(&req, me.id)?;
    let (id, name) = path.into_inner();
    let row = clubs.set_club_role(&me, id, &name, &body.role).await?;
    Ok(quota.headers(HttpResponse::Ok()).json(row))
}

/// Your clubs, and the requests and invitations waiting.
#[utoipa::path(tag = "clubs", operation_id = "get_my_clubs",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your clubs.", body = MyClubs),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/clubs")]
pub async fn get_my_clubs(
    clubs: web::Data<Clubs>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(clubs.my_clubs(&me).await?))
}

/// A club's own leaderboard for a game: its members ranked by their finished
/// club matches of that game (points, then wins, then fewer games).
#[utoipa::path(tag = "clubs", operation_id = "get_club_leaderboard",
    params(("id" = Uuid, Path, description = "The club id."),
           ("game" = String, Path, description = "A game id.", example = "malacca")),
    responses(
        (status = 200, description = "The leaderboard.", body = ClubLeaderboard),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such club or game.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/clubs/{id}/leaderboards/{game}")]
pub async fn get_club_leaderboard(
    clubs: web::Data<Clubs>,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ApiError> {
    let (id, game) = path.into_inner();
    Ok(HttpResponse::Ok().json(clubs.club_leaderboard(id, &game).await?))
}
