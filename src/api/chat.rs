//! Match chat and players' mutes.

use crate::service::chat::Chat;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, put, web};
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::PageQuery;
use crate::auth::{AuthenticatedPlayer, ChatAuthor, MaybePlayer};
use crate::errors::{ApiError, Problem};
use crate::ratelimit::{RateLimits, TooManyRequests};
use crate::service::chat::{ChatMessagePage, ChatMessageResponse, MuteList};

/// A message for a match's chat.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PostChatMessageRequest {
    /// 1 to 500 characters once trimmed; no control characters (one line).
    #[schema(example = "Good luck, have fun!")]
    pub text: String,
}

/// Writes in a match's chat: its seated players and owner, and with `chat:
/// "everyone"` any signed-in player who may read the match. The match's event
/// streams carry it as `event: chat_message`.
#[utoipa::path(tag = "chat", operation_id = "post_chat_message",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id.")),
    request_body = PostChatMessageRequest,
    responses(
        (status = 201, description = "The message, as it is read.", body = ChatMessageResponse),
        (status = 400, description = "The id is not a UUID, or the body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The match has no chat (`chat_off`), only its players write (`chat_players_only`), or it is played without spectators (`spectators_not_allowed`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one the caller is not part of).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The text is empty, too long or holds control characters (`invalid_chat_message`), or unknown fields.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/matches/{id}/messages")]
pub async fn post_chat_message(
    req: HttpRequest,
    chat: web::Data<Chat>,
    limits: web::Data<RateLimits>,
    me: ChatAuthor,
    id: web::Path<Uuid>,
    body: web::Json<PostChatMessageRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.chat(&req, me.id)?;
    let m = chat.post_chat_message(&me.0, *id, &body.text).await?;
    Ok(quota.headers(HttpResponse::Created()).json(m))
}

/// A match's chat, oldest first, for whoever may read the match; the messages
/// of players the caller muted are left out. A deleted message keeps its place
/// with `text` null.
#[utoipa::path(tag = "chat", operation_id = "list_chat_messages",
    security((), ("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id."), PageQuery),
    responses(
        (status = 200, description = "A page of messages.", body = ChatMessagePage),
        (status = 400, description = "A bad id, limit or cursor.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "A token was sent but is not valid.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The match is played without spectators (`spectators_not_allowed`).", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one the caller is not part of).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/matches/{id}/messages")]
pub async fn list_chat_messages(
    chat: web::Data<Chat>,
    caller: MaybePlayer,
    id: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let page = chat
        .chat_messages(caller.0.map(|p| p.id), *id, q.limit, q.cursor)
        .await?;
    Ok(HttpResponse::Ok().json(page))
}

/// Deletes a message: its author, or the match's owner. Its text is gone from
/// every read and export (who deleted it and when are kept); the match's
/// streams get `event: chat_message_deleted`.
#[utoipa::path(tag = "chat", operation_id = "delete_chat_message",
    security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The match id."),
        ("message_id" = i64, Path, description = "The message's id.")),
    responses(
        (status = 204, description = "Deleted (or already)."),
        (status = 400, description = "A bad id.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "Neither the author nor the match's owner (`not_chat_moderator`), or the match is played without spectators.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match, or no such message (`chat_message_not_found`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/matches/{id}/messages/{message_id}")]
pub async fn delete_chat_message(
    chat: web::Data<Chat>,
    me: ChatAuthor,
    path: web::Path<(Uuid, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, message) = path.into_inner();
    chat.delete_chat_message(&me.0, id, message).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// The players you muted: their messages are left out of every chat you read
/// or stream.
#[utoipa::path(tag = "chat", operation_id = "list_mutes",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your mutes, oldest first.", body = MuteList),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/mutes")]
pub async fn list_mutes(
    chat: web::Data<Chat>,
    me: AuthenticatedPlayer,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(chat.mutes(&me).await?))
}

/// Mutes a player in every match's chat, for you alone (muting again changes
/// nothing). It is not told.
#[utoipa::path(tag = "chat", operation_id = "mute_player",
    security(("bearer" = [])),
    params(("name" = String, Path, description = "The player's name (any case).")),
    responses(
        (status = 200, description = "Your mutes.", body = MuteList),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such player.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Yourself (`cannot_mute_yourself`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[put("/players/me/mutes/{name}")]
pub async fn mute_player(
    chat: web::Data<Chat>,
    me: ChatAuthor,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(chat.mute_player(&me.0, &name).await?))
}

/// Unmutes a player (one not muted: no change).
#[utoipa::path(tag = "chat", operation_id = "unmute_player",
    security(("bearer" = [])),
    params(("name" = String, Path, description = "The player's name (any case).")),
    responses(
        (status = 200, description = "Your mutes.", body = MuteList),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such player.", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/players/me/mutes/{name}")]
pub async fn unmute_player(
    chat: web::Data<Chat>,
    me: ChatAuthor,
    name: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(chat.unmute_player(&me.0, &name).await?))
}
