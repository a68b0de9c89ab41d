//! OAuth 2 for third-party front ends: the authorization code grant with PKCE
//! (S256 only), written on the API tokens (docs/decisions.md, "OAuth 2 with
//! PKCE"). A person consents on a page of the web client; the client exchanges
//! the code for an API token with the scopes granted. No client registration:
//! `client_id` is the app's own name, shown to the person, and the redirect URI
//! is checked by its form instead (RFC 9700, RFC 8252).

use std::sync::Arc;

use base64::Engine;
use chrono::Duration;
use sea_orm::DatabaseConnection;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use url::Url;
use utoipa::{IntoParams, ToSchema};

use crate::auth::{Scope, Scopes};
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::tokens::{self, MAX_LIVE_TOKENS, Tokens};
use crate::service::tx::transaction;
use crate::store;
use crate::store::entities::oauth_codes;

/// How long a code may wait for its exchange: RFC 9700 asks for a short life,
/// and a client exchanges at once.
pub const CODE_TTL: Duration = Duration::seconds(60);
/// How long a spent code is kept after its expiry, so that its replay still
/// finds the token to revoke.
const SPENT_KEPT: Duration = Duration::minutes(10);
/// The life of a token issued through OAuth: a year, as Lichess's; no refresh
/// tokens, the person signs in again after it.
pub const TOKEN_TTL: Duration = Duration::days(365);
/// A client id is a token's name, so it has a token name's bounds.
pub const MAX_CLIENT_ID: usize = 64;
const MAX_REDIRECT_URI: usize = 2000;
const MAX_STATE: usize = 1000;

/// An authorization request's parameters, as the client sent them (RFC 6749
/// §4.1.1, RFC 7636 §4.3).
#[derive(Debug, Clone, Default, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
pub struct AuthorizationParams {
    /// `code`: the only flow offered.
    pub response_type: Option<String>,
    /// The app's name, of its choosing (no registration): shown to the person.
    pub client_id: Option<String>,
    /// `https`, `http` on localhost or 127.0.0.1 (any port), or a private-use
    /// scheme (`com.example.app:/callback`); matched exactly at the exchange.
    pub redirect_uri: Option<String>,
    /// Base64url SHA-256 of the client's `code_verifier`.
    pub code_challenge: Option<String>,
    /// `S256`: the only method offered.
    pub code_challenge_method: Option<String>,
    /// Space-separated: `read`, `play`, `chat`; none asked is `read`.
    pub scope: Option<String>,
    /// Sent back as it came, with the code or the error.
    pub state: Option<String>,
}

/// A valid authorization request: what the consent page shows.
#[derive(Debug, Clone)]
pub struct Authorization {
    pub client_id: String,
    pub redirect_uri: String,
    /// What the person is shown of where they will be sent: the origin of an
    /// `https` or loopback URI, or the private-use scheme of an app's.
    pub redirect_origin: String,
    pub scopes: Scopes,
    code_challenge: String,
    state: Option<String>,
}

/// Why an authorization request was refused.
#[derive(Debug)]
pub enum Refusal {
    /// The client or its redirect URI cannot be trusted: the person is shown the
    /// error, and nobody is redirected (RFC 6749 §4.1.2.1).
    Shown(Error),
    /// Told to the client at its (valid) redirect URI: the URI with `error`,
    /// `state` and `iss`.
    Redirect(String),
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Self {
        Refusal::Shown(e)
    }
}

/// What the client gets for a code.
#[derive(Debug, Clone)]
pub struct Grant {
    pub access_token: String,
    pub expires_in: i64,
    pub scopes: Scopes,
}

/// A token request, as sent (form or JSON fields).
#[derive(Debug, Clone, Default)]
pub struct TokenParams {
    pub grant_type: Option<String>,
    pub code: Option<String>,
    pub code_verifier: Option<String>,
    pub redirect_uri: Option<String>,
    pub client_id: Option<String>,
}

/// A refused token request, in the RFC's words (RFC 6749 §5.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenRefusal {
    pub error: &'static str,
    pub description: &'static str,
}

fn refusal(error: &'static str, description: &'static str) -> TokenRefusal {
    TokenRefusal { error, description }
}

/// OAuth 2: consent, codes, their exchange and revocation.
pub struct OAuth {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    tokens: Arc<Tokens>,
}

impl OAuth {
    pub fn new(db: DatabaseConnection, clock: Arc<dyn Clock>, tokens: Arc<Tokens>) -> Self {
        Self { db, clock, tokens }
    }

    /// Checks an authorization request; `issuer` is this server's origin, sent
    /// back as `iss` (RFC 9207) with any error.
    pub fn check(
        &self,
        p: &AuthorizationParams,
        issuer: &str,
    ) -> std::result::Result<Authorization, Refusal> {
        let client_id = valid_client_id(p.client_id.as_deref())?;
        let (redirect_uri, redirect_origin) = valid_redirect_uri(p.redirect_uri.as_deref())?;
        let state = p.state.clone();
        let back = |error: &str, description: &str| {
            Refusal::Redirect(redirect(
                &redirect_uri,
                &[
                    ("error", Some(error)),
                    ("error_description", Some(description)),
                    ("state", state.as_deref()),
                    ("iss", Some(issuer)),
                ],
            ))
        };
        match p.response_type.as_deref() {
            Some("code") => {}
            None => return Err(back("invalid_request", "response_type is missing")),
            Some(_) => {
                return Err(back(
                    "unsupported_response_type",
                    "only the code flow is offered (response_type=code)",
                ));
            }
        }
        if state.as_ref().is_some_and(|s| s.len() > MAX_STATE) {
            return Err(back("invalid_request", "state is too long"));
        }
        if p.code_challenge_method.as_deref() != Some("S256") {
            return Err(back(
                "invalid_request",
                "PKCE is required: code_challenge_method=S256",
            ));
        }
        let challenge = p.code_challenge.clone().unwrap_or_default();
        if challenge.len() != 43 || !challenge.chars().all(is_base64url) {
            return Err(back(
                "invalid_request",
                "code_challenge must be the base64url SHA-256 of the verifier (43 characters)",
            ));
        }
        let scopes = match parse_scope(p.scope.as_deref()) {
            Some(s) => s,
            None => {
                return Err(back(
                    "invalid_scope",
                    "a scope is not one this server offers",
                ));
            }
        };
        Ok(Authorization {
            client_id,
            redirect_uri,
            redirect_origin,
            scopes,
            code_challenge: challenge,
            state,
        })
    }

    /// The person's answer to a valid request: a code for the client, or
    /// `access_denied`; either way the URI to send the person's browser to.
    pub async fn decide(
        &self,
        player: uuid::Uuid,
        p: &AuthorizationParams,
        allow: bool,
        issuer: &str,
    ) -> std::result::Result<String, Refusal> {
        let a = self.check(p, issuer)?;
        if !allow {
            return Ok(redirect(
                &a.redirect_uri,
                &[
                    ("error", Some("access_denied")),
                    ("error_description", Some("the person declined")),
                    ("state", a.state.as_deref()),
                    ("iss", Some(issuer)),
                ],
            ));
        }
        let now = self.clock.now();
        // Told on the consent page rather than as a failed exchange later.
        if store::auth::count_live_api_tokens(&self.db, player, now)
            .await
            .map_err(Error::from)?
            >= MAX_LIVE_TOKENS
        {
            return Err(Refusal::Shown(
                Error::conflict(
                    "too_many_tokens",
                    format!(
                        "A player holds at most {MAX_LIVE_TOKENS} live tokens; revoke one first."
                    ),
                )
                .arg("max", MAX_LIVE_TOKENS),
            ));
        }
        let code = random_secret().map_err(Error::internal)?;
        let row = oauth_codes::Model {
            code_hash: hash(&code),
            player_id: player,
            client_id: a.client_id.clone(),
            redirect_uri: a.redirect_uri.clone(),
            code_challenge: a.code_challenge.clone(),
            scopes: a.scopes.stored(),
            created_at: now,
            expires_at: now + CODE_TTL,
            token_id: None,
        };
        store::oauth::insert_code(&self.db, row, now - SPENT_KEPT)
            .await
            .map_err(Error::from)?;
        tracing::info!(player.id = %player, client_id = %a.client_id, "OAuth code issued");
        Ok(redirect(
            &a.redirect_uri,
            &[
                ("code", Some(&code)),
                ("state", a.state.as_deref()),
                ("iss", Some(issuer)),
            ],
        ))
    }

    /// Exchanges a code for a token. A refusal stores nothing, but for a code
    /// presented again after its exchange: the token it became is revoked
    /// (RFC 6749 §4.1.2), since one of the two presenters stole it.
    pub async fn exchange(
        &self,
        p: &TokenParams,
    ) -> Result<std::result::Result<Grant, TokenRefusal>> {
        match p.grant_type.as_deref() {
            Some("authorization_code") => {}
            None => return Ok(Err(refusal("invalid_request", "grant_type is missing"))),
            Some(_) => {
                return Ok(Err(refusal(
                    "unsupported_grant_type",
                    "only grant_type=authorization_code is offered",
                )));
            }
        }
        let (Some(code), Some(verifier), Some(redirect_uri), Some(client_id)) = (
            p.code.as_deref(),
            p.code_verifier.as_deref(),
            p.redirect_uri.as_deref(),
            p.client_id.as_deref(),
        ) else {
            return Ok(Err(refusal(
                "invalid_request",
                "code, code_verifier, redirect_uri and client_id are required",
            )));
        };
        // RFC 7636 §4.1: 43 to 128 unreserved characters.
        if !(43..=128).contains(&verifier.len())
            || !verifier
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
        {
            return Ok(Err(refusal(
                "invalid_request",
                "code_verifier must be 43 to 128 unreserved characters",
            )));
        }
        let invalid = Ok(Err(refusal(
            "invalid_grant",
            "the code is unknown, expired, spent, or was issued for another client, redirect_uri or verifier",
        )));
        let code_hash = hash(code);
        let Some(row) = store::oauth::code_by_hash(&self.db, &code_hash).await? else {
            return invalid;
        };
        let now = self.clock.now();
        if row.client_id != client_id
            || row.redirect_uri != redirect_uri
            || row.code_challenge != challenge_of(verifier)
        {
            return invalid;
        }
        if let Some(token) = row.token_id {
            self.tokens.revoke_of(row.player_id, token).await?;
            tracing::warn!(player.id = %row.player_id, client_id = %row.client_id,
                "OAuth code replayed: the token it was exchanged for is revoked");
            return invalid;
        }
        if row.expires_at <= now {
            return invalid;
        }
        let Some(owner) = store::auth::credentials_by_id(&self.db, row.player_id).await? else {
            return invalid;
        };
        if owner.is_bot || owner.disabled_at.is_some() || owner.deleted_at.is_some() {
            return invalid;
        }
        let scopes = Scopes::parse(&row.scopes);
        let expires_at = now + TOKEN_TTL;
        let issued = transaction!(&self.db, |tx| {
            let (token, made) = tokens::issue(
                tx,
                row.player_id,
                &row.client_id,
                scopes,
                now,
                Some(expires_at),
            )
            .await?;
            if !store::oauth::claim_code(tx, &code_hash, made.id).await? {
                // Exchanged meanwhile by another request: this one's token
                // is rolled back with the transaction.
                return Ok(None);
            }
            Ok(Some((token, made.id)))
        });
        let (token, id) = match issued {
            Ok(Some(done)) => done,
            Ok(None) => {
                if let Some(spent) = store::oauth::code_by_hash(&self.db, &code_hash).await?
                    && let Some(token) = spent.token_id
                {
                    self.tokens.revoke_of(spent.player_id, token).await?;
                }
                return invalid;
            }
            Err(Error::Refused(e)) if e.code == "too_many_tokens" => {
                return Ok(Err(refusal(
                    "invalid_grant",
                    "the player holds the most live tokens allowed and must revoke one",
                )));
            }
            Err(e) => return Err(e),
        };
        tracing::info!(player.id = %row.player_id, token.id = %id, client_id = %row.client_id,
            scopes = %row.scopes, "OAuth token issued");
        Ok(Ok(Grant {
            access_token: token,
            expires_in: TOKEN_TTL.num_seconds(),
            scopes,
        }))
    }

    /// Revokes a token by its secret (RFC 7009): one that is not a token of
    /// this server, or was revoked already, is answered as revoked too.
    pub async fn revoke(&self, token: &str) -> Result<()> {
        self.tokens.revoke_secret(token).await
    }
}

fn is_base64url(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

fn hash(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The S256 challenge of a verifier (RFC 7636 §4.2).
pub fn challenge_of(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

fn random_secret() -> std::result::Result<String, getrandom::Error> {
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret))
}

/// The scopes asked; none asked is `read` (RFC 6749 §3.3 lets the server pick a
/// default). `None` when a word is not a scope of this server.
fn parse_scope(scope: Option<&str>) -> Option<Scopes> {
    let words: Vec<&str> = scope.unwrap_or("").split_whitespace().collect();
    if words.is_empty() {
        return Some(Scopes::from_list(&[Scope::Read]));
    }
    let list: Option<Vec<Scope>> = words.into_iter().map(Scope::from_word).collect();
    list.map(|l| Scopes::from_list(&l))
}

fn shown(code: &'static str, detail: &'static str) -> Refusal {
    Refusal::Shown(Error::bad_request(code, detail))
}

fn valid_client_id(client_id: Option<&str>) -> std::result::Result<String, Refusal> {
    let id = client_id.map(str::trim).unwrap_or("");
    if id.is_empty() || id.chars().count() > MAX_CLIENT_ID || id.chars().any(char::is_control) {
        return Err(shown(
            "invalid_client_id",
            "client_id is the app's name: 1 to 64 characters, none of them control characters.",
        ));
    }
    Ok(id.to_owned())
}

/// A redirect URI this server sends codes to, and the origin shown for it:
/// `https`, `http` on a loopback host (any port: RFC 8252 §7.3), or a
/// private-use scheme of reverse-domain form (RFC 8252 §7.1). Never with a
/// fragment (RFC 6749 §3.1.2) or user information, which could make the origin
/// shown to the person lie.
fn valid_redirect_uri(uri: Option<&str>) -> std::result::Result<(String, String), Refusal> {
    let bad = || {
        shown(
            "invalid_redirect_uri",
            "redirect_uri must be https, http on localhost or 127.0.0.1, or an app's private-use scheme (com.example.app:/callback), with no fragment.",
        )
    };
    let uri = uri.unwrap_or("");
    if uri.is_empty() || uri.len() > MAX_REDIRECT_URI {
        return Err(bad());
    }
    let url = Url::parse(uri).map_err(|_| bad())?;
    if url.fragment().is_some() || !url.username().is_empty() || url.password().is_some() {
        return Err(bad());
    }
    let origin = match url.scheme() {
        "https" if url.host_str().is_some_and(|h| !h.is_empty()) => {
            url.origin().ascii_serialization()
        }
        "http"
            if matches!(
                url.host_str(),
                Some("localhost") | Some("127.0.0.1") | Some("[::1]")
            ) =>
        {
            url.origin().ascii_serialization()
        }
        scheme if scheme.contains('.') => format!("{scheme}:"),
        _ => return Err(bad()),
    };
    Ok((uri.to_owned(), origin))
}

/// The redirect URI with parameters added to its query (those it has kept).
fn redirect(uri: &str, params: &[(&str, Option<&str>)]) -> String {
    let Ok(mut url) = Url::parse(uri) else {
        return uri.to_owned();
    };
    {
        let mut q = url.query_pairs_mut();
        for (k, v) in params {
            if let Some(v) = v {
                q.append_pair(k, v);
            }
        }
    }
    url.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_loopback_or_private_use_and_nothing_else() {
        let ok = |u: &str| valid_redirect_uri(Some(u)).map(|(_, o)| o).ok();
        assert_eq!(
            ok("https://app.example/cb?x=1").as_deref(),
            Some("https://app.example")
        );
        assert_eq!(
            ok("http://localhost:5173/cb").as_deref(),
            Some("http://localhost:5173")
        );
        assert_eq!(
            ok("http://127.0.0.1:9/cb").as_deref(),
            Some("http://127.0.0.1:9")
        );
        assert_eq!(
            ok("com.example.app:/cb").as_deref(),
            Some("com.example.app:")
        );
        for bad in [
            "http://app.example/cb",
            "http://localhost.evil.example/cb",
            "javascript:alert(1)",
            "data:text/html,hi",
            "https://app.example/cb#frag",
            "https://localhost@evil.example/cb",
            "/relative",
            "",
        ] {
            assert!(ok(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn the_s256_challenge_is_the_unpadded_base64url_sha256_of_the_verifier() {
        // Computed apart: Python's hashlib and base64.urlsafe_b64encode, "=" dropped.
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWjVXjXs"),
            "1weCmkwi6SCXy39BcGDSIiwJwkm5uzqGg03NDnQ2U4w"
        );
    }

    #[test]
    fn parameters_are_added_encoded_so_state_cannot_inject_any() {
        let to = redirect(
            "https://app.example/cb?keep=1",
            &[
                ("code", Some("c")),
                ("state", Some("a&code=evil")),
                ("none", None),
            ],
        );
        assert_eq!(
            to,
            "https://app.example/cb?keep=1&code=c&state=a%26code%3Devil"
        );
    }

    #[test]
    fn no_scope_is_read_and_an_unknown_one_is_refused() {
        assert_eq!(parse_scope(None), Some(Scopes::from_list(&[Scope::Read])));
        assert_eq!(
            parse_scope(Some("play chat")),
            Some(Scopes::from_list(&[Scope::Play, Scope::Chat]))
        );
        assert_eq!(parse_scope(Some("read admin")), None);
    }
}
