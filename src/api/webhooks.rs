use crate::service::webhooks::Webhooks;
use actix_web::{HttpResponse, delete, get, post, web};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::PageQuery;
use crate::auth::PasswordSession;
use crate::errors::{ApiError, Problem};
use crate::service::webhooks::{CreatedWebhook, DeliveryPage, WebhookPage};

/// A new webhook: where to post which of your events.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhookRequest {
    /// An `https` URL whose host resolves to public addresses only.
    #[schema(example = "https://bots.example/sealed-orders")]
    pub url: String,
    /// Event kinds to deliver: some of the server's lifecycle kinds
    /// (`player_joined`, `player_left`, `match_started`, `seat_submitted`,
    /// `step_resolved`, `round_resolved`, `match_finished`, `match_aborted`,
    /// `seat_timed_out`, `seat_extended`, `seat_on_vacation`,
    /// `seat_back_from_vacation`, `seat_returned`, `seat_forfeited`, `invitation_sent`,
    /// `invitation_accepted`, `invitation_declined`,
    /// `tournament_round_started`), or `["*"]` for every
    /// kind, each game's own included. Omitted: every kind.
    #[schema(example = json!(["match_started", "match_finished"]))]
    pub events: Option<Vec<String>>,
}

/// Subscribes a URL to your events (those of `GET /players/me/events`, from now
/// on). Each is posted as JSON, signed: `Sealed-Orders-Signature: t=<unix
/// seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the secret>`;
/// `Sealed-Orders-Delivery` names the delivery (the same at every retry),
/// `Sealed-Orders-Event` its kind. A delivery succeeds on a 2xx answer and is
/// otherwise retried with exponential backoff. The secret is shown this once.
/// Needs a password-issued token, not an API token.
#[utoipa::path(tag = "webhooks", operation_id = "create_webhook",
    security(("bearer" = [])),
    request_body = CreateWebhookRequest,
    responses(
        (status = 201, description = "The webhook, with its signing secret (shown this once).", body = CreatedWebhook),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "You hold the most webhooks allowed (`too_many_webhooks`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A bad URL (not https, not public: `invalid_webhook_url`) or an unknown event kind (`invalid_events`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/players/me/webhooks")]
pub async fn create_webhook(
    webhooks: web::Data<Webhooks>,
    me: PasswordSession,
    body: web::Json<CreateWebhookRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let created = webhooks.create_webhook(&me, &body.url, body.events).await?;
    Ok(HttpResponse::Created()
        .insert_header((
            "Location",
            format!("/api/v1/players/me/webhooks/{}", created.webhook.id),
        ))
        .json(created))
}

/// Your webhooks, newest first; never their secrets.
#[utoipa::path(tag = "webhooks", operation_id = "list_webhooks",
    security(("bearer" = [])),
    params(PageQuery),
    responses(
        (status = 200, description = "A page of your webhooks.", body = WebhookPage),
        (status = 400, description = "A bad limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/webhooks")]
pub async fn list_webhooks(
    webhooks: web::Data<Webhooks>,
    me: PasswordSession,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    Ok(HttpResponse::Ok().json(webhooks.list_webhooks(&me, q.limit, q.cursor).await?))
}

/// Deletes one of your webhooks with its pending deliveries and its log.
#[utoipa::path(tag = "webhooks", operation_id = "delete_webhook",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The webhook's id.")),
    responses(
        (status = 204, description = "Deleted."),
        (status = 400, description = "The id is not a UUID.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no webhook with that id (`webhook_not_found`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/players/me/webhooks/{id}")]
pub async fn delete_webhook(
    webhooks: web::Data<Webhooks>,
    me: PasswordSession,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    webhooks.delete_webhook(&me, *id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The delivery log of one of your webhooks: each event's delivery, newest
/// first, with every attempt (when, how long, the receiver's status or the
/// error).
#[utoipa::path(tag = "webhooks", operation_id = "list_webhook_deliveries",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The webhook's id."), PageQuery),
    responses(
        (status = 200, description = "A page of deliveries.", body = DeliveryPage),
        (status = 400, description = "A bad id, limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "You have no webhook with that id (`webhook_not_found`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/webhooks/{id}/deliveries")]
pub async fn list_webhook_deliveries(
    webhooks: web::Data<Webhooks>,
    me: PasswordSession,
    id: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    Ok(HttpResponse::Ok().json(
        webhooks
            .list_webhook_deliveries(&me, *id, q.limit, q.cursor)
            .await?,
    ))
}
