use std::future::{Ready, ready};

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, web};
use uuid::Uuid;

use crate::errors::ApiError;
use crate::service::Service;

/// A request made with a valid bearer token.
#[derive(Debug, Clone)]
pub struct AuthenticatedPlayer {
    pub id: Uuid,
    pub name: String,
}

/// A request with a valid token, or with none at all (anonymous reads). A token
/// that is present but invalid is still refused: silently treating it as anonymous
/// would hide a client's bug.
#[derive(Debug, Clone)]
pub struct MaybePlayer(pub Option<AuthenticatedPlayer>);

fn bearer(req: &HttpRequest) -> Result<Option<AuthenticatedPlayer>, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let invalid = || {
        ApiError::unauthorized(
            "invalid_token",
            "The access token is not valid or has expired.",
        )
    };
    let text = value.to_str().map_err(|_| invalid())?;
    let token = text
        .strip_prefix("Bearer ")
        .or_else(|| text.strip_prefix("bearer "))
        .ok_or_else(invalid)?;
    let service = req
        .app_data::<web::Data<Service>>()
        .ok_or_else(|| ApiError::internal("service missing from app data"))?;
    let claims = service.jwt().verify(token.trim()).ok_or_else(invalid)?;
    Ok(Some(AuthenticatedPlayer {
        id: claims.sub,
        name: claims.name,
    }))
}

impl FromRequest for AuthenticatedPlayer {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(bearer(req).and_then(|p| {
            p.ok_or_else(|| {
                ApiError::unauthorized(
                    "unauthorized",
                    "This request needs an access token: Authorization: Bearer <token>.",
                )
            })
        }))
    }
}

impl FromRequest for MaybePlayer {
    type Error = ApiError;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        ready(bearer(req).map(MaybePlayer))
    }
}
