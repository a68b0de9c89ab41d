//! Players and their credentials: registration, login, password changes, and
//! the check of every request's bearer credential (a password-issued JWT or an
//! API token), answered from a short-lived cache that every replica empties
//! when an account's credentials change.

use std::sync::Arc;

use sea_orm::{DatabaseConnection, SqlErr};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::auth::{
    API_TOKEN_PREFIX, AuthenticatedPlayer, Credential, HashError, JwtKeys, PasswordPool, Scopes,
    api_token_hash,
};
use crate::i18n::Locale;
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::hub::Hub;
use crate::service::models::{MyProfileResponse, PlayerResponse, TokenResponse};
use crate::service::snapshots::SnapshotCache;
use crate::service::tx::transaction;
use crate::store;
use crate::store::entities::players;

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
/// database read of the caller's account. A revocation or a password change
/// counts here as soon as this replica hears of it (at once when made through
/// this one): every entry checked before it stops counting the moment the
/// hub's credential epoch moves, before any stream is told. Without a
/// notification (a listener down) an entry lasts that time at most; an expiry
/// is checked on every request.
pub(super) struct CredentialCache {
    entries: Option<quick_cache::sync::Cache<CredentialKey, CachedCredential>>,
    ttl: std::time::Duration,
}

#[derive(Clone)]
pub(super) struct CachedCredential {
    checked: std::time::Instant,
    /// The hub's credential epoch when the check began.
    epoch: u64,
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

    /// A check still good: younger than the time-to-live, and made since the
    /// last credential change this replica heard of (`epoch`, read now).
    fn get(
        &self,
        key: &CredentialKey,
        epoch: u64,
    ) -> Option<(AuthenticatedPlayer, Option<chrono::DateTime<chrono::Utc>>)> {
        let e = self.entries.as_ref()?.get(key)?;
        (e.epoch == epoch && e.checked.elapsed() < self.ttl).then_some((e.player, e.expires_at))
    }

    /// Keeps a check that began at `epoch` (read before its database read, so a
    /// change committed meanwhile leaves it stale).
    fn put(
        &self,
        key: CredentialKey,
        epoch: u64,
        player: AuthenticatedPlayer,
        expires_at: Option<chrono::DateTime<chrono::Utc>>,
    ) {
        if let Some(entries) = &self.entries {
            let checked = std::time::Instant::now();
            entries.insert(
                key,
                CachedCredential {
                    checked,
                    epoch,
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

impl From<HashError> for Error {
    fn from(e: HashError) -> Self {
        match e {
            HashError::Busy => Error::Refused(crate::errors::ApiError::unavailable(
                "Too many password checks are running; try again in a moment.",
            )),
            HashError::Failed(cause) => Error::internal(cause),
        }
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

fn check_password(password: &str) -> Result<(), Error> {
    if password.chars().count() < 8 || password.len() > 1024 {
        return Err(Error::unprocessable(
            "weak_password",
            "A password has at least 8 characters (and at most 1024 bytes).",
        ));
    }
    Ok(())
}

/// A disabled account's credentials (and logins) are refused with this, so that
/// its owner learns why rather than retrying.
pub(super) fn account_disabled() -> Error {
    Error::forbidden("account_disabled", "This account was disabled by an admin.")
}

fn name_taken() -> Error {
    Error::conflict("name_taken", "That name is already taken.")
}

pub(super) fn player_not_found() -> Error {
    Error::not_found("player_not_found", "No player has that name.")
}

/// Players and their credentials: registration, login, passwords, and the
/// check of every request's bearer credential.
pub struct Accounts {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    hub: Arc<Hub>,
    jwt: JwtKeys,
    pub(super) passwords: Arc<PasswordPool>,
    pub(super) credentials: CredentialCache,
    snapshots: SnapshotCache,
}

impl Accounts {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        hub: Arc<Hub>,
        jwt: JwtKeys,
        passwords: Arc<PasswordPool>,
        credential_ttl: std::time::Duration,
        snapshots: SnapshotCache,
    ) -> Self {
        Self {
            db,
            clock,
            hub,
            jwt,
            passwords,
            credentials: CredentialCache::new(credential_ttl),
            snapshots,
        }
    }
}

impl Accounts {
    pub fn passwords(&self) -> &PasswordPool {
        &self.passwords
    }

    pub fn jwt(&self) -> &JwtKeys {
        &self.jwt
    }

    pub async fn register(&self, name: &str, password: &str) -> Result<PlayerResponse, Error> {
        if !valid_name(name) {
            return Err(Error::unprocessable(
                "invalid_name",
                "A name has 3 to 32 characters: letters, digits, '_' and '-'.",
            )
            .arg("what", "player"));
        }
        check_password(password)?;
        if store::players::player_by_name(&self.db, name)
            .await?
            .is_some()
            || store::deletion::name_key_retired(&self.db, &retired_key(&name.to_lowercase()))
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
        match store::players::insert_player(&self.db, row.clone()).await {
            Ok(()) => Ok(profile(&row)),
            Err(e) if matches!(e.sql_err(), Some(SqlErr::UniqueConstraintViolation(_))) => {
                Err(name_taken())
            }
            Err(e) => Err(e.into()),
        }
    }

    pub async fn login(&self, name: &str, password: &str) -> Result<TokenResponse, Error> {
        let found = if valid_name(name) {
            store::auth::credentials_by_name(&self.db, name).await?
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
                return Err(Error::unauthorized(
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
    ) -> Result<TokenResponse, Error> {
        let issued = self
            .jwt
            .issue(id, &name, password_version, self.clock.now())
            .map_err(Error::internal)?;
        Ok(TokenResponse {
            access_token: issued.token,
            token_type: "Bearer".into(),
            expires_at: issued.expires_at,
            player: super::models::PlayerRef { id, name },
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
    ) -> Result<TokenResponse, Error> {
        check_password(new)?;
        let found = store::auth::credentials_by_id(&self.db, me.id)
            .await?
            .ok_or_else(|| {
                Error::unauthorized("invalid_token", "The player does not exist.")
                    .arg("reason", "unknown_player")
            })?;
        if !self.passwords.verify(current, &found.password_hash).await? {
            return Err(Error::forbidden(
                "wrong_password",
                "The current password is wrong.",
            ));
        }
        let hash = self.passwords.hash(new).await?;
        let now = self.clock.now();
        transaction!(&self.db, |tx| {
            if !write_password(
                tx,
                me.id,
                found.password_version,
                &hash,
                revoke_api_tokens,
                now,
            )
            .await?
            {
                return Err(Error::conflict(
                    "password_changed_concurrently",
                    "The password was changed by another request meanwhile; log in again.",
                ));
            }
            Ok::<_, Error>(())
        })?;
        self.credentials_replaced(me.id);
        tracing::info!(player.id = %me.id, revoke_api_tokens, "password changed");
        self.issue_jwt(found.id, found.name, found.password_version + 1)
    }

    /// Sets a new password with a single-use mailed token (its hash, of this
    /// purpose): the token is used and the password written in one
    /// transaction, and, as a password change that revokes API tokens, every
    /// session, API token, ticket and stream of the account ends.
    pub async fn reset_password(
        &self,
        token_hash: &str,
        purpose: &str,
        new: &str,
    ) -> Result<(), Error> {
        check_password(new)?;
        let hash = self.passwords.hash(new).await?;
        let now = self.clock.now();
        let invalid = || {
            Error::unprocessable(
                "invalid_mail_token",
                "This link is not valid: it was used already, has expired, or a newer one was sent.",
            )
        };
        let player = transaction!(&self.db, |tx| {
            let Some(t) = store::notifications::redeem_token(tx, token_hash, purpose, now).await?
            else {
                return Err(invalid());
            };
            let found = store::auth::credentials_by_id(tx, t.player_id)
                .await?
                .ok_or_else(invalid)?;
            if found.disabled_at.is_some() {
                return Err(account_disabled());
            }
            if !write_password(tx, found.id, found.password_version, &hash, true, now).await? {
                return Err(Error::conflict(
                    "password_changed_concurrently",
                    "The password was changed by another request meanwhile; log in again.",
                ));
            }
            Ok(found.id)
        })?;
        self.credentials_replaced(player);
        tracing::info!(player.id = %player, "password reset");
        Ok(())
    }

    /// What follows a committed password change: this replica forgets the
    /// credentials it checked, and streams opened with the old JWTs (or the
    /// revoked tokens) end, on every replica.
    fn credentials_replaced(&self, player: Uuid) {
        self.credentials.clear();
        self.hub.credentials_changed(player);
    }

    /// Who a bearer credential belongs to: an API token (by the hash of its
    /// secret, one unique-index lookup joined to its owner) or a JWT (checked
    /// against its player's password version, one primary-key lookup). Neither
    /// query takes a lock.
    pub async fn authenticate(&self, token: &str) -> Result<AuthenticatedPlayer, Error> {
        let refuse = |reason: &'static str, why: &str| {
            Error::unauthorized("invalid_token", why.to_owned()).arg("reason", reason)
        };
        let now = self.clock.now();
        let epoch = self.hub.credential_epoch();
        if token.starts_with(API_TOKEN_PREFIX) {
            let hash = api_token_hash(token);
            let key = CredentialKey::ApiToken(hash.clone());
            if let Some((player, expires_at)) = self.credentials.get(&key, epoch) {
                if expires_at.is_some_and(|at| at <= now) {
                    return Err(refuse("expired", "The API token has expired."));
                }
                return Ok(player);
            }
            let Some((row, Some(owner))) = store::auth::api_token_by_hash(&self.db, &hash).await?
            else {
                return Err(refuse("invalid", "The API token is not valid."));
            };
            if row.revoked_at.is_some() {
                return Err(refuse("revoked", "The API token was revoked."));
            }
            if row.expires_at.is_some_and(|at| at <= now) {
                return Err(refuse("expired", "The API token has expired."));
            }
            if owner.is_bot {
                return Err(refuse("invalid", "The API token is not valid."));
            }
            if owner.disabled_at.is_some() {
                return Err(account_disabled());
            }
            let stale = now - chrono::Duration::seconds(LAST_USED_GRANULARITY_SECONDS);
            if row.last_used_at.is_none_or(|at| at < stale) {
                // Off the request's path: the answer never waits for this write.
                let db = self.db.clone();
                tokio::spawn(async move {
                    if let Err(e) = store::auth::touch_api_token(&db, row.id, now, stale).await {
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
            self.credentials
                .put(key, epoch, player.clone(), row.expires_at);
            return Ok(player);
        }
        let claims = self
            .jwt
            .verify(token, now)
            .ok_or_else(|| refuse("invalid", "The access token is not valid or has expired."))?;
        let key = CredentialKey::Jwt(claims.sub, claims.pwv);
        let credential = Credential::Password {
            version: claims.pwv,
            expires_at: chrono::DateTime::from_timestamp(claims.exp, 0).ok_or_else(|| {
                refuse("invalid", "The access token is not valid or has expired.")
            })?,
        };
        if let Some((mut player, _)) = self.credentials.get(&key, epoch) {
            // The entry may come from another JWT of the same player and
            // password version: this one's expiry is its own.
            player.credential = credential;
            return Ok(player);
        }
        let player = store::auth::credentials_by_id(&self.db, claims.sub)
            .await?
            .filter(|p| !p.is_bot)
            .ok_or_else(|| {
                refuse(
                    "unknown_player",
                    "The access token names a player that does not exist.",
                )
            })?;
        if player.disabled_at.is_some() {
            return Err(account_disabled());
        }
        if player.password_version != claims.pwv {
            return Err(refuse(
                "invalid",
                "The access token was issued before the last password change; log in again.",
            ));
        }
        let player = AuthenticatedPlayer {
            id: player.id,
            name: player.name,
            credential,
        };
        self.credentials.put(key, epoch, player.clone(), None);
        Ok(player)
    }

    /// Forgets every cached credential check when another replica revokes a
    /// token or changes a password, so that the change counts here at once
    /// rather than when the cache's entries age out, and the match snapshots
    /// naming the player (whose account may have been deleted, and so
    /// renamed). Runs until shutdown.
    /// Drops what this process keeps of a player's name (renamed, anonymised).
    pub(super) fn forget_player(&self, id: Option<Uuid>) {
        self.snapshots.forget_player(id);
    }

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

    pub async fn player_by_name(&self, name: &str) -> Result<PlayerResponse, Error> {
        // Bot accounts (`bot.random.1`) have names no person may take.
        if name.is_empty() || name.len() > 64 {
            return Err(player_not_found());
        }
        store::players::player_by_name(&self.db, name)
            .await?
            .map(|p| profile(&p))
            .ok_or_else(player_not_found)
    }

    pub async fn player_by_id(&self, id: Uuid) -> Result<PlayerResponse, Error> {
        store::players::player_by_id(&self.db, id)
            .await?
            .map(|p| profile(&p))
            .ok_or_else(player_not_found)
    }
}

/// The name key a deleted account holds in place of its name's: a character
/// no name has, then the start of the name key's SHA-256 (the column holds 32).
pub fn retired_key(name_key: &str) -> String {
    let digest = hex::encode(Sha256::digest(name_key.as_bytes()));
    format!("~{}", &digest[..31])
}

/// A player's own settings: for now, the language they read the client in.
impl Accounts {
    /// The caller's profile with their settings.
    pub async fn my_profile(&self, id: Uuid) -> Result<MyProfileResponse, Error> {
        let p = self.player_by_id(id).await?;
        let locale = store::players::player_locale(&self.db, id)
            .await?
            .as_deref()
            .and_then(Locale::from_tag);
        Ok(MyProfileResponse {
            id: p.id,
            name: p.name,
            is_bot: p.is_bot,
            created_at: p.created_at,
            locale,
        })
    }

    /// Records the language the caller chose (None: no choice, the client
    /// follows the browser). Only the tags the server speaks are taken, as
    /// they are written (`cs`, not `cs-CZ` or `CS`), so what is stored is what
    /// every client reads back.
    pub async fn set_my_locale(
        &self,
        id: Uuid,
        locale: Option<&str>,
    ) -> Result<MyProfileResponse, Error> {
        let locale = match locale {
            None => None,
            Some(tag) => Some(
                Locale::ALL
                    .into_iter()
                    .find(|l| l.tag() == tag)
                    .ok_or_else(|| {
                        Error::unprocessable(
                            "invalid_locale",
                            "locale is one of en, cs, et, or null.",
                        )
                        .arg("locales", "en, cs, et")
                    })?,
            ),
        };
        store::players::set_player_locale(&self.db, id, locale.map(Locale::tag)).await?;
        self.my_profile(id).await
    }
}

/// Writes a new password hash if the version is still `version` (which ends
/// every JWT issued before), and revokes every API token when asked; answers
/// whether the version was still the same. The one write of both a change
/// and a reset.
async fn write_password(
    tx: &sea_orm::DatabaseTransaction,
    player: Uuid,
    version: i64,
    hash: &str,
    revoke_api_tokens: bool,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<bool, Error> {
    if !store::auth::change_password(tx, player, version, hash).await? {
        return Ok(false);
    }
    if revoke_api_tokens {
        store::auth::revoke_all_api_tokens(tx, player, now).await?;
    }
    Ok(true)
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
