use sea_orm::SqlErr;
use uuid::Uuid;

use super::models::{PlayerRef, PlayerResponse, TokenResponse};
use super::{Service, with_retry};
use crate::auth::{
    API_TOKEN_PREFIX, AuthenticatedPlayer, Credential, Scopes, api_token_hash, hash_password,
    verify_password,
};
use crate::errors::ApiError;
use crate::store::{self, entities::players};

/// An API token's last use is recorded at most this often (a write per request
/// would contend with moves for SQLite's write lock).
const LAST_USED_GRANULARITY_SECONDS: i64 = 60;

fn valid_name(name: &str) -> bool {
    (3..=32).contains(&name.len())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// A real hash to verify against when the name is unknown, so that such a login
/// costs as much as one for a known name and its timing does not reveal which
/// names exist.
fn dummy_hash() -> String {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY
        .get_or_init(|| hash_password("not a password of anybody").unwrap_or_default())
        .clone()
}

pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(ApiError::internal)
}

impl Service {
    pub async fn register(&self, name: &str, password: &str) -> Result<PlayerResponse, ApiError> {
        if !valid_name(name) {
            return Err(ApiError::unprocessable(
                "invalid_name",
                "A name has 3 to 32 characters: letters, digits, '_' and '-'.",
            ));
        }
        check_password(password)?;
        if store::player_by_name(&self.db, name).await?.is_some() {
            return Err(name_taken());
        }
        let pw = password.to_owned();
        let hash = blocking(move || hash_password(&pw))
            .await?
            .map_err(ApiError::internal)?;
        let row = players::Model {
            id: Uuid::now_v7(),
            name: name.to_owned(),
            name_key: name.to_lowercase(),
            password_hash: hash,
            is_bot: false,
            created_at: self.clock.now(),
        };
        match store::insert_player(&self.db, row.clone()).await {
            Ok(()) => Ok(profile(&row)),
            Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
                Err(name_taken())
            }
            Err(e) => Err(e.into()),
        }
    }

    pub async fn login(&self, name: &str, password: &str) -> Result<TokenResponse, ApiError> {
        let found = if valid_name(name) {
            store::credentials_by_name(&self.db, name).await?
        } else {
            None
        };
        let hash = found.as_ref().map(|p| p.password_hash.clone());
        let pw = password.to_owned();
        let ok = blocking(move || verify_password(&pw, &hash.unwrap_or_else(dummy_hash))).await?;
        let player = match found {
            Some(p) if ok && !p.is_bot => p,
            _ => {
                return Err(ApiError::unauthorized(
                    "invalid_credentials",
                    "The name or the password is wrong.",
                ));
            }
        };
        self.issue_jwt(player.id, player.name, player.password_version)
    }

    fn issue_jwt(
        &self,
        id: Uuid,
        name: String,
        password_version: i64,
    ) -> Result<TokenResponse, ApiError> {
        let issued = self
            .jwt
            .issue(id, &name, password_version, self.clock.now())
            .map_err(ApiError::internal)?;
        Ok(TokenResponse {
            access_token: issued.token,
            token_type: "Bearer".into(),
            expires_at: issued.expires_at,
            player: PlayerRef { id, name },
        })
    }

    /// Replaces the password after checking the current one; every JWT issued
    /// before is refused from then on, and the answer is a fresh one. API tokens
    /// keep working unless `revoke_api_tokens` (see the README for why).
    pub async fn change_password(
        &self,
        me: &AuthenticatedPlayer,
        current: &str,
        new: &str,
        revoke_api_tokens: bool,
    ) -> Result<TokenResponse, ApiError> {
        check_password(new)?;
        let found = store::credentials_by_id(&self.db, me.id)
            .await?
            .ok_or_else(|| ApiError::unauthorized("invalid_token", "The player does not exist."))?;
        let (pw, hash) = (current.to_owned(), found.password_hash.clone());
        if !blocking(move || verify_password(&pw, &hash)).await? {
            return Err(ApiError::forbidden(
                "wrong_password",
                "The current password is wrong.",
            ));
        }
        let pw = new.to_owned();
        let hash = blocking(move || hash_password(&pw))
            .await?
            .map_err(ApiError::internal)?;
        let now = self.clock.now();
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            if !store::change_password(&tx, me.id, found.password_version, &hash).await? {
                return Err(ApiError::conflict(
                    "password_changed_concurrently",
                    "The password was changed by another request meanwhile; log in again.",
                ));
            }
            if revoke_api_tokens {
                store::revoke_all_api_tokens(&tx, me.id, now).await?;
            }
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
        tracing::info!(player.id = %me.id, revoke_api_tokens, "password changed");
        self.issue_jwt(found.id, found.name, found.password_version + 1)
    }

    /// Who a bearer credential belongs to: an API token (by the hash of its
    /// secret, one unique-index lookup joined to its owner) or a JWT (checked
    /// against its player's password version, one primary-key lookup). Neither
    /// query takes a lock.
    pub async fn authenticate(&self, token: &str) -> Result<AuthenticatedPlayer, ApiError> {
        let refuse = |why: &str| ApiError::unauthorized("invalid_token", why.to_owned());
        let now = self.clock.now();
        if token.starts_with(API_TOKEN_PREFIX) {
            let Some((row, Some(owner))) =
                store::api_token_by_hash(&self.db, &api_token_hash(token)).await?
            else {
                return Err(refuse("The API token is not valid."));
            };
            if row.revoked_at.is_some() {
                return Err(refuse("The API token was revoked."));
            }
            if row.expires_at.is_some_and(|at| at <= now) {
                return Err(refuse("The API token has expired."));
            }
            if owner.is_bot {
                return Err(refuse("The API token is not valid."));
            }
            let stale = now - chrono::Duration::seconds(LAST_USED_GRANULARITY_SECONDS);
            if row.last_used_at.is_none_or(|at| at < stale) {
                // Off the request's path: the answer never waits for this write.
                let db = self.db.clone();
                tokio::spawn(async move {
                    if let Err(e) = store::touch_api_token(&db, row.id, now, stale).await {
                        tracing::warn!(error = %e, "recording an API token's use failed");
                    }
                });
            }
            return Ok(AuthenticatedPlayer {
                id: owner.id,
                name: owner.name,
                credential: Credential::ApiToken {
                    id: row.id,
                    scopes: Scopes::parse(&row.scopes),
                },
            });
        }
        let claims = self
            .jwt
            .verify(token, now)
            .ok_or_else(|| refuse("The access token is not valid or has expired."))?;
        let player = store::credentials_by_id(&self.db, claims.sub)
            .await?
            .filter(|p| !p.is_bot)
            .ok_or_else(|| refuse("The access token names a player that does not exist."))?;
        if player.password_version != claims.pwv {
            return Err(refuse(
                "The access token was issued before the last password change; log in again.",
            ));
        }
        Ok(AuthenticatedPlayer {
            id: player.id,
            name: player.name,
            credential: Credential::Password,
        })
    }

    pub async fn player_by_name(&self, name: &str) -> Result<PlayerResponse, ApiError> {
        // Bot accounts (`bot.random.1`) have names no person may take.
        if name.is_empty() || name.len() > 64 {
            return Err(player_not_found());
        }
        store::player_by_name(&self.db, name)
            .await?
            .map(|p| profile(&p))
            .ok_or_else(player_not_found)
    }

    pub async fn player_by_id(&self, id: Uuid) -> Result<PlayerResponse, ApiError> {
        store::player_by_id(&self.db, id)
            .await?
            .map(|p| profile(&p))
            .ok_or_else(player_not_found)
    }
}

fn profile(p: &players::Model) -> PlayerResponse {
    PlayerResponse {
        id: p.id,
        name: p.name.clone(),
        is_bot: p.is_bot,
        created_at: p.created_at,
    }
}

fn check_password(password: &str) -> Result<(), ApiError> {
    if password.chars().count() < 8 || password.len() > 1024 {
        return Err(ApiError::unprocessable(
            "weak_password",
            "A password has at least 8 characters (and at most 1024 bytes).",
        ));
    }
    Ok(())
}

fn name_taken() -> ApiError {
    ApiError::conflict("name_taken", "That name is already taken.")
}

pub(super) fn player_not_found() -> ApiError {
    ApiError::not_found("player_not_found", "No player has that name.")
}
