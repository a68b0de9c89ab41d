use sea_orm::SqlErr;
use uuid::Uuid;

use super::models::{PlayerRef, PlayerResponse, TokenResponse};
use super::{Service, with_retry};
use crate::auth::{
    API_TOKEN_PREFIX, AuthenticatedPlayer, Credential, HashError, Scopes, api_token_hash,
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

/// A real hash (the default parameters) to verify against when the name is
/// unknown, so that such a login costs as much as one for a known name and its
/// timing does not reveal which names exist.
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$bm90IGFueWJvZHkncw$GBg1PiU+uVWVgXjdvYH8zhk4MqhuLLY+1WS1L0N3fGo";

/// What a credential check looked up: a JWT's player at its password version,
/// or an API token by its hash.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) enum CredentialKey {
    Jwt(Uuid, i64),
    ApiToken(String),
}

/// Credential checks answered from memory for a short time (`CREDENTIAL_CACHE_MS`,
/// 2 s by default), so that a move and its read do not each begin with a
/// database read of the caller's account. The trade-off: a revocation or a
/// password change made through another replica takes effect here within that
/// time (at once through this one, which forgets every entry); an expiry is
/// checked on every request.
pub(super) struct CredentialCache {
    entries: Option<quick_cache::sync::Cache<CredentialKey, CachedCredential>>,
    ttl: std::time::Duration,
}

#[derive(Clone)]
pub(super) struct CachedCredential {
    checked: std::time::Instant,
    player: AuthenticatedPlayer,
    expires_at: Option<chrono::DateTime<chrono::Utc>>,
}

/// Enough for every active player of a large server; an entry is a few hundred bytes.
const CREDENTIAL_CACHE_ENTRIES: usize = 16_384;

impl CredentialCache {
    pub(super) fn new(ttl: std::time::Duration) -> Self {
        Self {
            entries: (!ttl.is_zero())
                .then(|| quick_cache::sync::Cache::new(CREDENTIAL_CACHE_ENTRIES)),
            ttl,
        }
    }

    fn get(
        &self,
        key: &CredentialKey,
    ) -> Option<(AuthenticatedPlayer, Option<chrono::DateTime<chrono::Utc>>)> {
        let e = self.entries.as_ref()?.get(key)?;
        (e.checked.elapsed() < self.ttl).then_some((e.player, e.expires_at))
    }

    fn put(
        &self,
        key: CredentialKey,
        player: AuthenticatedPlayer,
        expires_at: Option<chrono::DateTime<chrono::Utc>>,
    ) {
        if let Some(entries) = &self.entries {
            let checked = std::time::Instant::now();
            entries.insert(
                key,
                CachedCredential {
                    checked,
                    player,
                    expires_at,
                },
            );
        }
    }

    /// After a revocation or a password change here: every check reads again.
    pub(super) fn clear(&self) {
        if let Some(entries) = &self.entries {
            entries.clear();
        }
    }
}

impl From<HashError> for ApiError {
    fn from(e: HashError) -> Self {
        match e {
            HashError::Busy => ApiError::unavailable(
                "Too many password checks are running; try again in a moment.",
            ),
            HashError::Failed(cause) => ApiError::internal(cause),
        }
    }
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
        if store::player_by_name(&self.db, name).await?.is_some()
            || store::name_key_retired(&self.db, &super::account::retired_key(&name.to_lowercase()))
                .await?
        {
            return Err(name_taken());
        }
        let hash = self.passwords.hash(password).await?;
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
        let hash = found
            .as_ref()
            .map_or(DUMMY_HASH, |p| p.password_hash.as_str());
        let ok = self.passwords.verify(password, hash).await?;
        let player = match found {
            Some(p) if ok && !p.is_bot => p,
            _ => {
                return Err(ApiError::unauthorized(
                    "invalid_credentials",
                    "The name or the password is wrong.",
                ));
            }
        };
        if player.disabled_at.is_some() {
            return Err(account_disabled());
        }
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
        if !self.passwords.verify(current, &found.password_hash).await? {
            return Err(ApiError::forbidden(
                "wrong_password",
                "The current password is wrong.",
            ));
        }
        let hash = self.passwords.hash(new).await?;
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
        self.credentials.clear();
        // Streams opened with the old JWTs (or the revoked tokens) end, on every replica.
        self.hub.credentials_changed(me.id);
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
            let hash = api_token_hash(token);
            let key = CredentialKey::ApiToken(hash.clone());
            if let Some((player, expires_at)) = self.credentials.get(&key) {
                if expires_at.is_some_and(|at| at <= now) {
                    return Err(refuse("The API token has expired."));
                }
                return Ok(player);
            }
            let Some((row, Some(owner))) = store::api_token_by_hash(&self.db, &hash).await? else {
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
            if owner.disabled_at.is_some() {
                return Err(account_disabled());
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
            let player = AuthenticatedPlayer {
                id: owner.id,
                name: owner.name,
                credential: Credential::ApiToken {
                    id: row.id,
                    scopes: Scopes::parse(&row.scopes),
                    expires_at: row.expires_at,
                },
            };
            self.credentials.put(key, player.clone(), row.expires_at);
            return Ok(player);
        }
        let claims = self
            .jwt
            .verify(token, now)
            .ok_or_else(|| refuse("The access token is not valid or has expired."))?;
        let key = CredentialKey::Jwt(claims.sub, claims.pwv);
        let credential = Credential::Password {
            version: claims.pwv,
            expires_at: chrono::DateTime::from_timestamp(claims.exp, 0)
                .ok_or_else(|| refuse("The access token is not valid or has expired."))?,
        };
        if let Some((mut player, _)) = self.credentials.get(&key) {
            // The entry may come from another JWT of the same player and
            // password version: this one's expiry is its own.
            player.credential = credential;
            return Ok(player);
        }
        let player = store::credentials_by_id(&self.db, claims.sub)
            .await?
            .filter(|p| !p.is_bot)
            .ok_or_else(|| refuse("The access token names a player that does not exist."))?;
        if player.disabled_at.is_some() {
            return Err(account_disabled());
        }
        if player.password_version != claims.pwv {
            return Err(refuse(
                "The access token was issued before the last password change; log in again.",
            ));
        }
        let player = AuthenticatedPlayer {
            id: player.id,
            name: player.name,
            credential,
        };
        self.credentials.put(key, player.clone(), None);
        Ok(player)
    }

    /// Forgets every cached credential check when another replica revokes a
    /// token or changes a password, so that the change counts here at once
    /// rather than when the cache's entries age out, and the match snapshots
    /// naming the player (whose account may have been deleted, and so
    /// renamed). Runs until shutdown.
    pub async fn forget_changed_credentials(&self) {
        let mut changes = self.hub.subscribe_credentials();
        let mut stop = self.hub.shutdown_signal();
        loop {
            tokio::select! {
                c = changes.recv() => match c {
                    // A deleted account changes its name too: the snapshots
                    // that show it are read again.
                    Ok(player) => {
                        self.credentials.clear();
                        self.snapshots.forget_player(Some(player));
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                        self.credentials.clear();
                        self.snapshots.forget_player(None);
                    }
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => return,
                },
                _ = stop.changed() => return,
            }
        }
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

/// A disabled account's credentials (and logins) are refused with this, so that
/// its owner learns why rather than retrying.
pub(super) fn account_disabled() -> ApiError {
    ApiError::forbidden("account_disabled", "This account was disabled by an admin.")
}

fn name_taken() -> ApiError {
    ApiError::conflict("name_taken", "That name is already taken.")
}

pub(super) fn player_not_found() -> ApiError {
    ApiError::not_found("player_not_found", "No player has that name.")
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_dummy_hash_is_a_full_cost_argon2id_hash() {
        let parsed = argon2::PasswordHash::new(super::DUMMY_HASH).expect("a PHC string");
        let params = argon2::Params::try_from(&parsed).expect("argon2 parameters");
        let default = argon2::Params::default();
        assert_eq!(
            (params.m_cost(), params.t_cost(), params.p_cost()),
            (default.m_cost(), default.t_cost(), default.p_cost())
        );
        assert_eq!(parsed.hash.map(|h| h.len()), Some(32));
    }
}
