//! A player's own settings.

use actix_web::{HttpResponse, patch, web};
use serde::{Deserialize, Deserializer};
use utoipa::ToSchema;

use crate::auth::AuthenticatedPlayer;
use crate::errors::{ApiError, Problem};
use crate::service::accounts::Accounts;
use crate::service::models::MyProfileResponse;

/// Settings to change; a field left out keeps its value.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMeRequest {
    /// The language of the web client (and mail): `en`, `cs` or `et`; null
    /// forgets the choice (clients then follow the browser's languages).
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<crate::i18n::Locale>, example = "cs")]
    pub locale: Option<Option<String>>,
}

/// A field that is present, null or not: `Some(None)` for null, so that it
/// differs from one left out (`None`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// Changes the caller's settings (JSON merge patch: only the fields sent).
#[utoipa::path(tag = "players", operation_id = "update_me",
    security(("bearer" = [])),
    request_body = UpdateMeRequest,
    responses(
        (status = 200, description = "Your profile, as it now is.", body = MyProfileResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A value is not acceptable (`invalid_locale`, `invalid_body`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[patch("/players/me")]
pub async fn update_me(
    accounts: web::Data<Accounts>,
    me: AuthenticatedPlayer,
    body: web::Json<UpdateMeRequest>,
) -> Result<HttpResponse, ApiError> {
    let profile = match &body.locale {
        Some(locale) => accounts.set_my_locale(me.id, locale.as_deref()).await?,
        None => accounts.my_profile(me.id).await?,
    };
    Ok(HttpResponse::Ok().json(profile))
}
