use std::ops::Deref;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpMessage, HttpRequest, web};
use futures_util::future::LocalBoxFuture;
use uuid::Uuid;

use super::Credential;
use crate::errors::ApiError;
use crate::service::accounts::Accounts;

/// A request made with a valid bearer credential: a password-issued JWT or an
/// API token. The extractor refuses (403 `insufficient_scope`) an API token whose
/// scopes do not cover the request's method, so no handler has to remember to.
#[derive(Debug, Clone)]
pub struct AuthenticatedPlayer {
    pub id: Uuid,
    pub name: String,
    /// What authenticated the request.
    pub credential: Credential,
}

impl AuthenticatedPlayer {
    /// The server acting for a player (bots, simulations), with no request
    /// credential behind it.
    pub fn server(id: Uuid, name: impl Into<String>) -> Self {
        Self {
            id,
            name: name.into(),
            credential: Credential::Server,
        }
    }
}

/// A request with a valid credential, or with none at all (anonymous reads). A
/// credential that is present but invalid is still refused: silently treating it
/// as anonymous would hide a client's bug. The scope rule applies as for
/// [`AuthenticatedPlayer`].
#[derive(Debug, Clone)]
pub struct MaybePlayer(pub Option<AuthenticatedPlayer>);

/// A request authenticated by a password-issued JWT, never an API token (403
/// `password_session_required`): for managing tokens, webhooks and the password,
/// so that a leaked bot token cannot mint more tokens or take the account over.
#[derive(Debug, Clone)]
pub struct PasswordSession(pub AuthenticatedPlayer);

impl Deref for PasswordSession {
    type Target = AuthenticatedPlayer;
    fn deref(&self) -> &AuthenticatedPlayer {
        &self.0
    }
}

/// A request that speaks for the player (chat, mutes): a password session, or
/// an API token with the `chat` scope whatever the method (403
/// `insufficient_scope` without it). `play` does not carry it: a person may let
/// a program play for them without letting it talk to other people.
#[derive(Debug, Clone)]
pub struct ChatAuthor(pub AuthenticatedPlayer);

impl Deref for ChatAuthor {
    type Target = AuthenticatedPlayer;
    fn deref(&self) -> &AuthenticatedPlayer {
        &self.0
    }
}

/// The bearer credential of the request, if it has an Authorization header.
fn bearer(req: &HttpRequest) -> Result<Option<String>, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|t| {
            t.strip_prefix("Bearer ")
                .or_else(|| t.strip_prefix("bearer "))
        })
        .map(|t| t.trim().to_owned())
        .ok_or_else(|| {
            ApiError::unauthorized(
                "invalid_token",
                "The Authorization header is not `Bearer <token>`.",
            )
            .arg("reason", "header")
        })?;
    Ok(Some(token))
}

/// The credential decided for a request by the gate (`api::gate`), kept in its
/// extensions so that the extractors do not check it again.
#[derive(Debug, Clone)]
pub struct Checked(pub Option<AuthenticatedPlayer>);

/// Checks the request's credential: none is `None`, one that is not valid an error.
pub async fn checked_credential(req: &HttpRequest) -> Result<Checked, ApiError> {
    authenticate(req).await.map(Checked)
}

/// The credential's player, whatever the request's method.
async fn authenticate(req: &HttpRequest) -> Result<Option<AuthenticatedPlayer>, ApiError> {
    if let Some(Checked(player)) = req.extensions().get::<Checked>() {
        return Ok(player.clone());
    }
    let Some(token) = bearer(req)? else {
        return Ok(None);
    };
    let accounts = req
        .app_data::<web::Data<Accounts>>()
        .cloned()
        .ok_or_else(|| ApiError::internal("service missing from app data"))?;
    Ok(Some(accounts.authenticate(&token).await?))
}

/// The credential's player, if its scopes cover the request's method.
async fn authenticate_scoped(req: HttpRequest) -> Result<Option<AuthenticatedPlayer>, ApiError> {
    let player = authenticate(&req).await?;
    if player
        .as_ref()
        .is_some_and(|p| !p.credential.permits(req.method()))
    {
        return Err(ApiError::forbidden(
            "insufficient_scope",
            "This API token lacks the `play` scope, which any request but GET needs.",
        ));
    }
    Ok(player)
}

fn required(p: Option<AuthenticatedPlayer>) -> Result<AuthenticatedPlayer, ApiError> {
    p.ok_or_else(|| {
        ApiError::unauthorized(
            "unauthorized",
            "This request needs an access token: Authorization: Bearer <token>.",
        )
    })
}

impl FromRequest for AuthenticatedPlayer {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { required(authenticate_scoped(req).await?) })
    }
}

impl FromRequest for MaybePlayer {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move { authenticate_scoped(req).await.map(MaybePlayer) })
    }
}

/// The request's player whatever the method, if its credential passes `may`
/// (checked instead of the method's scope); else the refusal.
async fn requiring(
    req: &HttpRequest,
    may: fn(&Credential) -> bool,
    refusal: fn() -> ApiError,
) -> Result<AuthenticatedPlayer, ApiError> {
    let player = required(authenticate(req).await?)?;
    if may(&player.credential) {
        Ok(player)
    } else {
        Err(refusal())
    }
}

impl FromRequest for PasswordSession {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            // Checked instead of the scope: a password session may do anything.
            requiring(&req, Credential::is_password, || {
                ApiError::forbidden(
                    "password_session_required",
                    "This needs a token from POST /api/v1/auth/token (a name and password), not an API token.",
                )
            })
            .await
            .map(PasswordSession)
        })
    }
}

impl FromRequest for ChatAuthor {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let req = req.clone();
        Box::pin(async move {
            requiring(&req, Credential::may_chat, || {
                ApiError::forbidden(
                    "insufficient_scope",
                    "This API token lacks the `chat` scope, which writing in a chat and muting need.",
                )
                .arg("scope", "chat")
            })
            .await
            .map(ChatAuthor)
        })
    }
}
