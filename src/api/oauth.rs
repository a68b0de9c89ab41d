//! OAuth 2 with PKCE for third-party front ends (RFC 6749, 7636, 7009, 8414,
//! 9700). The consent is a page of the web client (`GET /oauth/authorize`)
//! that asks two API operations (`/api/v1/oauth/authorization`); the token and
//! revocation endpoints and the metadata are the RFCs' own, outside `/api/v1`
//! and outside the OpenAPI document, and answer the RFCs' JSON errors rather
//! than problem documents.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, ContentType};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, ResponseError, get, post, web};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use crate::auth::{PasswordSession, Scope};
use crate::errors::{ApiError, OAuthError, Problem};
use crate::service::oauth::{AuthorizationParams, OAuth, Refusal, TokenParams};

/// What the consent page shows of a valid authorization request.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuthorizationResponse {
    pub client_id: String,
    pub redirect_uri: String,
    /// Where the person will be sent: the origin of the redirect URI, or an
    /// app's private-use scheme.
    #[schema(example = "https://app.example")]
    pub redirect_origin: String,
    pub scopes: Vec<Scope>,
}

/// The person's answer to an authorization request.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ConsentRequest {
    #[serde(flatten)]
    pub request: AuthorizationParams,
    /// True to allow, false to deny (the client is told `access_denied`).
    pub allow: bool,
}

/// Where to send the person's browser: the client's redirect URI with `code`
/// (or `error`), `state` and `iss`.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConsentResponse {
    pub redirect_to: String,
}

/// This server's origin, as the client reached it: the `iss` of RFC 9207 and
/// the base of the metadata's endpoints.
fn issuer(req: &HttpRequest) -> String {
    let info = req.connection_info();
    format!("{}://{}", info.scheme(), info.host())
}

fn shown_or_redirect(refusal: Refusal) -> ApiError {
    match refusal {
        Refusal::Shown(e) => e.into(),
        Refusal::Redirect(to) => ApiError::bad_request(
            "invalid_authorization_request",
            "The authorization request is not valid; the client is told why at its redirect_uri.",
        )
        .with("redirect_to", to),
    }
}

/// Checks an authorization request and says what the consent page shows.
#[utoipa::path(tag = "auth", operation_id = "get_oauth_authorization",
    params(AuthorizationParams),
    responses(
        (status = 200, description = "A valid request: the app, where it sends you, and the scopes it asks.", body = AuthorizationResponse),
        (status = 400, description = "A client_id or redirect_uri that cannot be trusted (`invalid_client_id`, `invalid_redirect_uri`): shown, never redirected to; or another fault the client is told of at its redirect URI (`invalid_authorization_request`, with `redirect_to`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[get("/oauth/authorization")]
pub async fn get_oauth_authorization(
    req: HttpRequest,
    oauth: web::Data<OAuth>,
    query: web::Query<AuthorizationParams>,
) -> Result<HttpResponse, ApiError> {
    let a = oauth
        .check(&query.into_inner(), &issuer(&req))
        .map_err(shown_or_redirect)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(AuthorizationResponse {
            client_id: a.client_id,
            redirect_uri: a.redirect_uri,
            redirect_origin: a.redirect_origin,
            scopes: a.scopes.list(),
        }))
}

/// Answers an authorization request as the signed-in person: allowed, a code
/// for the client (single use, valid a minute, bound to its client_id,
/// redirect_uri and challenge); denied, `access_denied`. Needs a password
/// session: an API token cannot grant tokens.
#[utoipa::path(tag = "auth", operation_id = "answer_oauth_authorization",
    security(("bearer" = [])),
    request_body = ConsentRequest,
    responses(
        (status = 200, description = "Where to send the browser.", body = ConsentResponse),
        (status = 400, description = "A request that cannot be answered (`invalid_client_id`, `invalid_redirect_uri`, `invalid_authorization_request`).", body = Problem, content_type = "application/problem+json"),
        (status = 401, description = "No valid token.", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "An API token was used (`password_session_required`).", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "You hold the most live tokens allowed (`too_many_tokens`).", body = Problem, content_type = "application/problem+json"),
    ))]
#[post("/oauth/authorization")]
pub async fn answer_oauth_authorization(
    req: HttpRequest,
    oauth: web::Data<OAuth>,
    me: PasswordSession,
    body: web::Json<ConsentRequest>,
) -> Result<HttpResponse, ApiError> {
    let body = body.into_inner();
    let to = oauth
        .decide(me.id, &body.request, body.allow, &issuer(&req))
        .await
        .map_err(shown_or_redirect)?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(ConsentResponse { redirect_to: to }))
}

/// `GET /oauth/authorize`: a fault the client can be told of goes back to its
/// redirect URI at once (302); anything else is the web client's consent page,
/// which signs the person in if need be and asks them (a request that cannot
/// be trusted gets the page with status 400, which shows the error).
pub async fn authorize(req: HttpRequest, oauth: web::Data<OAuth>) -> HttpResponse {
    let query = web::Query::<AuthorizationParams>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .ok();
    let Some(query) = query else {
        return crate::api::web::consent_page(&req, StatusCode::BAD_REQUEST);
    };
    match oauth.check(&query, &issuer(&req)) {
        Ok(_) => crate::api::web::consent_page(&req, StatusCode::OK),
        Err(Refusal::Shown(_)) => crate::api::web::consent_page(&req, StatusCode::BAD_REQUEST),
        Err(Refusal::Redirect(to)) => HttpResponse::Found()
            .insert_header((header::LOCATION, to))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish(),
    }
}

/// The fields of a token or revocation request: a form (as the RFCs say) or
/// a JSON object of strings. A field given twice is refused (RFC 6749 §3.2).
fn fields(req: &HttpRequest, body: &Bytes) -> Result<Vec<(String, String)>, OAuthError> {
    let bad = || OAuthError::of("invalid_request", "the body is not a form of unique fields");
    let json = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim_start().starts_with("application/json"));
    let pairs: Vec<(String, String)> = if json {
        let map: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(body).map_err(|_| bad())?;
        map.into_iter()
            .filter_map(|(k, v)| v.as_str().map(|s| (k, s.to_owned())))
            .collect()
    } else {
        url::form_urlencoded::parse(body)
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    };
    let mut names: Vec<&str> = pairs.iter().map(|(k, _)| k.as_str()).collect();
    names.sort_unstable();
    if names.windows(2).any(|w| w[0] == w[1]) {
        return Err(bad());
    }
    Ok(pairs)
}

fn field(pairs: &[(String, String)], name: &str) -> Option<String> {
    pairs
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.clone())
}

/// Any origin may call the token and revocation endpoints: they take no
/// cookie and no ambient credential, only what the request carries.
fn any_origin(mut res: HttpResponse) -> HttpResponse {
    res.headers_mut().insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        header::HeaderValue::from_static("*"),
    );
    res
}

/// `POST /oauth/token`: a code and its verifier for an access token.
pub async fn token(req: HttpRequest, oauth: web::Data<OAuth>, body: Bytes) -> HttpResponse {
    let pairs = match fields(&req, &body) {
        Ok(p) => p,
        Err(e) => return any_origin(e.error_response()),
    };
    let params = TokenParams {
        grant_type: field(&pairs, "grant_type"),
        code: field(&pairs, "code"),
        code_verifier: field(&pairs, "code_verifier"),
        redirect_uri: field(&pairs, "redirect_uri"),
        client_id: field(&pairs, "client_id"),
    };
    any_origin(match oauth.exchange(&params).await {
        Ok(Ok(grant)) => HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(json!({
                "access_token": grant.access_token,
                "token_type": "Bearer",
                "expires_in": grant.expires_in,
                "scope": grant.scopes.stored(),
            })),
        Ok(Err(refused)) => OAuthError::of(refused.error, refused.description).error_response(),
        Err(e) => ApiError::from(e).error_response(),
    })
}

/// `POST /oauth/revoke` (RFC 7009): the token named is refused from then on;
/// an unknown or already revoked token is answered the same, 200.
pub async fn revoke(req: HttpRequest, oauth: web::Data<OAuth>, body: Bytes) -> HttpResponse {
    let pairs = match fields(&req, &body) {
        Ok(p) => p,
        Err(e) => return any_origin(e.error_response()),
    };
    let Some(token) = field(&pairs, "token") else {
        return any_origin(
            OAuthError::of("invalid_request", "the token to revoke is missing").error_response(),
        );
    };
    any_origin(match oauth.revoke(&token).await {
        Ok(()) => HttpResponse::Ok().finish(),
        Err(e) => ApiError::from(e).error_response(),
    })
}

/// A browser's preflight for a JSON token or revocation request.
pub async fn preflight() -> HttpResponse {
    any_origin(
        HttpResponse::NoContent()
            .insert_header((header::ACCESS_CONTROL_ALLOW_METHODS, "POST"))
            .insert_header((header::ACCESS_CONTROL_ALLOW_HEADERS, "Content-Type"))
            .insert_header((header::ACCESS_CONTROL_MAX_AGE, "3600"))
            .finish(),
    )
}

/// `GET /.well-known/oauth-authorization-server` (RFC 8414).
pub async fn metadata(req: HttpRequest) -> HttpResponse {
    let issuer = issuer(&req);
    let scopes: Vec<&str> = Scope::ALL.iter().map(|s| s.as_str()).collect();
    any_origin(
        HttpResponse::Ok()
            .content_type(ContentType::json())
            .insert_header((header::CACHE_CONTROL, "max-age=3600"))
            .json(json!({
                "issuer": issuer,
                "authorization_endpoint": format!("{issuer}/oauth/authorize"),
                "token_endpoint": format!("{issuer}/oauth/token"),
                "revocation_endpoint": format!("{issuer}/oauth/revoke"),
                "scopes_supported": scopes,
                "response_types_supported": ["code"],
                "response_modes_supported": ["query"],
                "grant_types_supported": ["authorization_code"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
                "revocation_endpoint_auth_methods_supported": ["none"],
                "authorization_response_iss_parameter_supported": true,
                "service_documentation": format!("{issuer}/docs/"),
            })),
    )
}
