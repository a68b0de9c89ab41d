use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, put, web};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::auth::PasswordSession;
use crate::errors::{ApiError, Problem};
use crate::i18n::Locale;
use crate::ratelimit::{RateLimits, TooManyRequests};
use crate::service::notifications::mail::tr;
use crate::service::notifications::{
    NotificationSettingsRequest, NotificationSettingsResponse, Notifications, UnsubscribeResponse,
};

/// An address to be mailed at.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EmailRequest {
    #[schema(example = "alice@example.org")]
    pub address: String,
}

/// The token of a mailed link.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MailTokenRequest {
    pub token: String,
}

/// Who forgot their password: an account name or a confirmed address.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PasswordResetRequest {
    #[schema(example = "alice")]
    pub login: String,
}

/// A new password, with the token of the reset link.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewPasswordRequest {
    pub token: String,
    #[schema(example = "a new long passphrase")]
    pub password: String,
}

/// The token of an unsubscribe link.
#[derive(Debug, Deserialize, IntoParams)]
pub struct UnsubscribeQuery {
    /// As the link carries it.
    pub token: String,
}

/// Your address and what you are told by mail. Needs a password-issued token.
#[utoipa::path(tag = "notifications", operation_id = "get_my_notifications",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "Your address (yours alone) and mail settings.", body = NotificationSettingsResponse),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/players/me/notifications")]
pub async fn get_my_notifications(
    notifications: web::Data<Notifications>,
    me: PasswordSession,
) -> Result<HttpResponse, ApiError> {
    Ok(HttpResponse::Ok().json(notifications.my_settings(&me).await?))
}

/// Replaces your mail settings (every field). Needs a password-issued token.
#[utoipa::path(tag = "notifications", operation_id = "update_my_notifications",
    security(("bearer" = [])),
    request_body = NotificationSettingsRequest,
    responses(
        (status = 200, description = "The settings now.", body = NotificationSettingsResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "A value out of range (`invalid_notification_settings`) or an unknown time zone (`invalid_time_zone`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[put("/players/me/notifications")]
pub async fn update_my_notifications(
    notifications: web::Data<Notifications>,
    me: PasswordSession,
    body: web::Json<NotificationSettingsRequest>,
) -> Result<HttpResponse, ApiError> {
    let s = notifications
        .set_my_settings(&me, body.into_inner())
        .await?;
    Ok(HttpResponse::Ok().json(s))
}

/// Sets your address and mails it a confirmation link (single use, 48 h);
/// nothing else is mailed to it until the link is opened. Needs a
/// password-issued token.
#[utoipa::path(tag = "notifications", operation_id = "set_my_email",
    security(("bearer" = [])),
    request_body = EmailRequest,
    responses(
        (status = 202, description = "The address is set, unconfirmed, and a confirmation is on its way.", body = NotificationSettingsResponse),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "Too many confirmation mails in the last hour (`too_many_confirmations`).", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Not an address (`invalid_email`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[put("/players/me/email")]
pub async fn set_my_email(
    notifications: web::Data<Notifications>,
    me: PasswordSession,
    body: web::Json<EmailRequest>,
) -> Result<HttpResponse, ApiError> {
    let s = notifications.set_my_email(&me, &body.address).await?;
    Ok(HttpResponse::Accepted().json(s))
}

/// Removes your address: nothing is mailed from now on (password resets
/// included). Needs a password-issued token.
#[utoipa::path(tag = "notifications", operation_id = "delete_my_email",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "The address is gone."),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[delete("/players/me/email")]
pub async fn delete_my_email(
    notifications: web::Data<Notifications>,
    me: PasswordSession,
) -> Result<HttpResponse, ApiError> {
    notifications.remove_my_email(&me).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Confirms an address with the token of its confirmation link (no login
/// needed: the link may be opened anywhere).
#[utoipa::path(tag = "notifications", operation_id = "confirm_email",
    request_body = MailTokenRequest,
    responses(
        (status = 204, description = "The address is confirmed."),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The link was used, expired, or replaced by a newer one (`invalid_mail_token`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/email-confirmations")]
pub async fn confirm_email(
    notifications: web::Data<Notifications>,
    body: web::Json<MailTokenRequest>,
) -> Result<HttpResponse, ApiError> {
    notifications.confirm_email(&body.token).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// Mails a password reset link (single use, 30 minutes) to the account with
/// this name or confirmed address, if it has a confirmed address. Always
/// 202, whether or not there is such an account. Rate-limited per address and
/// per account, and at most three reset mails an hour per account.
#[utoipa::path(tag = "auth", operation_id = "request_password_reset",
    request_body = PasswordResetRequest,
    responses(
        (status = 202, description = "If there is such an account with a confirmed address, a link is on its way."),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The body lacks a field.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/auth/password-reset")]
pub async fn request_password_reset(
    req: HttpRequest,
    notifications: web::Data<Notifications>,
    limits: web::Data<RateLimits>,
    body: web::Json<PasswordResetRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.auth(&req, Some(&body.login))?;
    notifications.request_password_reset(&body.login).await?;
    Ok(quota.headers(HttpResponse::Accepted()).finish())
}

/// Sets a new password with the token of a reset link. As a password change
/// does, this ends every session, API token, stream ticket and open stream of
/// the account: log in again.
#[utoipa::path(tag = "auth", operation_id = "reset_password",
    request_body = NewPasswordRequest,
    responses(
        (status = 204, description = "The password is set; log in with it."),
        (status = 400, description = "The body is not JSON.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "The account is disabled (`account_disabled`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "The password was changed meanwhile.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "The link was used, expired or replaced (`invalid_mail_token`), or the password is not acceptable.", body = Problem, content_type = "application/problem+json"),
        TooManyRequests,
    ))]
#[post("/auth/password-reset/confirm")]
pub async fn reset_password(
    req: HttpRequest,
    notifications: web::Data<Notifications>,
    limits: web::Data<RateLimits>,
    body: web::Json<NewPasswordRequest>,
) -> Result<HttpResponse, ApiError> {
    let quota = limits.auth(&req, None)?;
    notifications
        .reset_password(&body.token, &body.password)
        .await?;
    Ok(quota.headers(HttpResponse::NoContent()).finish())
}

fn page(locale: Locale, title: &str, body: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((header::CONTENT_LANGUAGE, locale.tag()))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header(("Referrer-Policy", "no-referrer"))
        .body(format!(
            "<!DOCTYPE html><html lang=\"{}\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width\"><title>{title}</title></head>\
             <body style=\"font-family:sans-serif;max-width:32em;margin:3em auto\">\
             <h1>{title}</h1>{body}</body></html>",
            locale.tag()
        ))
}

fn html_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The page an unsubscribe link opens: it asks, and changes nothing (link
/// scanners fetch links; RFC 8058 has the change made by POST only).
#[utoipa::path(tag = "notifications", operation_id = "get_unsubscribe",
    params(UnsubscribeQuery),
    responses(
        (status = 200, description = "A page asking to confirm, in the player's language.", content_type = "text/html"),
        (status = 404, description = "Not a valid link (`unsubscribe_link_invalid`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/unsubscribe")]
pub async fn get_unsubscribe(
    notifications: web::Data<Notifications>,
    query: web::Query<UnsubscribeQuery>,
) -> Result<HttpResponse, ApiError> {
    let (player, topic) = notifications.read_unsubscribe(&query.token)?;
    let locale = notifications.locale_of(player).await?;
    let form = format!(
        "<p>{}</p><form method=\"post\" action=\"?token={}\">\
         <button type=\"submit\">{}</button></form>",
        html_escape(&tr(
            locale,
            &format!("unsubscribe-confirm-{}", topic.name()),
            &[]
        )),
        html_escape(&url_encode(&query.token)),
        html_escape(&tr(locale, "unsubscribe-button", &[])),
    );
    Ok(page(
        locale,
        &html_escape(&tr(locale, "unsubscribe-title", &[])),
        &form,
    ))
}

fn url_encode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// Turns off what an unsubscribe link names: RFC 8058 one-click (a mail
/// client posts `List-Unsubscribe=One-Click`; the body is not read). Answers
/// a page to a browser (which asks for `text/html`), JSON otherwise.
#[utoipa::path(tag = "notifications", operation_id = "unsubscribe",
    params(UnsubscribeQuery),
    responses(
        (status = 200, description = "Unsubscribed: what was turned off.", body = UnsubscribeResponse),
        (status = 404, description = "Not a valid link (`unsubscribe_link_invalid`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/unsubscribe")]
pub async fn unsubscribe(
    req: HttpRequest,
    notifications: web::Data<Notifications>,
    query: web::Query<UnsubscribeQuery>,
) -> Result<HttpResponse, ApiError> {
    let done = notifications.unsubscribe(&query.token).await?;
    let wants_html = req
        .headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| a.contains("text/html"));
    if wants_html {
        let (player, _) = notifications.read_unsubscribe(&query.token)?;
        let locale = notifications.locale_of(player).await?;
        return Ok(page(
            locale,
            &html_escape(&tr(locale, "unsubscribe-title", &[])),
            &format!(
                "<p>{}</p>",
                html_escape(&tr(locale, "unsubscribe-done", &[]))
            ),
        ));
    }
    Ok(HttpResponse::Ok().json(done))
}
