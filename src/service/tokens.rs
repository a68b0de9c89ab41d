//! API tokens: issued, listed and revoked by their owner (with a password session).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::auth::{AuthenticatedPlayer, Scope, Scopes, api_token_hash, new_api_token};
use crate::service::accounts::Accounts;
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::hub::Hub;
use crate::service::models::{ApiTokenPage, ApiTokenResponse, CreatedApiToken};
use crate::service::pages::{decode_cursor, encode_cursor, page_limit};
use crate::store;
use crate::store::entities::api_tokens;

/// API tokens: issued, listed, revoked.
pub struct Tokens {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    hub: Arc<Hub>,
    accounts: Arc<Accounts>,
}

impl Tokens {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        hub: Arc<Hub>,
        accounts: Arc<Accounts>,
    ) -> Self {
        Self {
            db,
            clock,
            hub,
            accounts,
        }
    }
}

/// Tokens a player may hold that are neither revoked nor expired.
pub const MAX_LIVE_TOKENS: u64 = 50;

/// What a new token is asked for.
pub struct NewApiToken {
    pub name: String,
    pub scopes: Vec<Scope>,
    pub expires_at: Option<DateTime<Utc>>,
}

fn response(row: &api_tokens::Model) -> ApiTokenResponse {
    ApiTokenResponse {
        id: row.id,
        name: row.name.clone(),
        scopes: Scopes::parse(&row.scopes).list(),
        created_at: row.created_at,
        expires_at: row.expires_at,
        last_used_at: row.last_used_at,
        revoked_at: row.revoked_at,
    }
}

impl Tokens {
    pub async fn create_api_token(
        &self,
        me: &AuthenticatedPlayer,
        new: NewApiToken,
    ) -> Result<CreatedApiToken, Error> {
        let name = new.name.trim();
        if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
            return Err(Error::unprocessable(
                "invalid_token_name",
                "A token's name has 1 to 64 characters, none of them control characters.",
            ));
        }
        let scopes = Scopes::from_list(&new.scopes);
        if scopes.is_empty() {
            return Err(Error::unprocessable(
                "invalid_scopes",
                "A token needs at least one scope: play, read, chat.",
            ));
        }
        let now = self.clock.now();
        if new.expires_at.is_some_and(|at| at <= now) {
            return Err(Error::unprocessable(
                "invalid_expiry",
                "expires_at must be in the future.",
            )
            .arg("field", "expires_at"));
        }
        let (token, row) = issue(&self.db, me.id, name, scopes, now, new.expires_at).await?;
        tracing::info!(player.id = %me.id, token.id = %row.id, scopes = %row.scopes, "API token issued");
        Ok(CreatedApiToken {
            token,
            api_token: response(&row),
        })
    }

    pub async fn list_api_tokens(
        &self,
        me: &AuthenticatedPlayer,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<ApiTokenPage, Error> {
        let limit = page_limit(limit)?;
        let before = match cursor {
            Some(c) => Some(decode_cursor(&c)?.parse::<Uuid>().map_err(|_| {
                Error::bad_request(
                    "invalid_cursor",
                    "The cursor is not one this server issued.",
                )
            })?),
            None => None,
        };
        let mut rows = store::auth::list_api_tokens(&self.db, me.id, before, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        Ok(ApiTokenPage {
            next_cursor: more
                .then(|| rows.last().map(|r| encode_cursor(&r.id.to_string())))
                .flatten(),
            items: rows.iter().map(response).collect(),
        })
    }

    /// Revokes one of the caller's tokens; revoking twice is harmless.
    pub async fn revoke_api_token(&self, me: &AuthenticatedPlayer, id: Uuid) -> Result<(), Error> {
        if self.revoke_of(me.id, id).await? {
            Ok(())
        } else {
            Err(Error::not_found(
                "token_not_found",
                "You have no API token with that id.",
            ))
        }
    }
}

impl Tokens {
    /// Revokes a token of `player` by its id; answers whether the player has one.
    pub async fn revoke_of(&self, player: Uuid, id: Uuid) -> Result<bool, Error> {
        if !store::auth::revoke_api_token(&self.db, player, id, self.clock.now()).await? {
            return Ok(false);
        }
        self.forget(player, id);
        Ok(true)
    }

    /// Revokes a token by its secret (OAuth's revocation endpoint, RFC 7009,
    /// which names the token itself and no owner); a token that is not one, or
    /// was revoked already, changes nothing.
    pub async fn revoke_secret(&self, token: &str) -> Result<(), Error> {
        let hash = api_token_hash(token);
        if let Some((id, player)) =
            store::auth::revoke_api_token_by_hash(&self.db, &hash, self.clock.now()).await?
        {
            self.forget(player, id);
        }
        Ok(())
    }

    fn forget(&self, player: Uuid, id: Uuid) {
        self.accounts.credentials.clear();
        // Streams the token opened end, on every replica.
        self.hub.credentials_changed(player);
        tracing::info!(player.id = %player, token.id = %id, "API token revoked");
    }
}

/// Issues a token for `player` on `db` (a pool or a transaction), under the
/// cap of live tokens: the one place a token's secret and row are made, for
/// the account page and for OAuth alike.
pub async fn issue(
    db: &impl sea_orm::ConnectionTrait,
    player: Uuid,
    name: &str,
    scopes: Scopes,
    now: DateTime<Utc>,
    expires_at: Option<DateTime<Utc>>,
) -> Result<(String, api_tokens::Model), Error> {
    if store::auth::count_live_api_tokens(db, player, now).await? >= MAX_LIVE_TOKENS {
        return Err(Error::conflict(
            "too_many_tokens",
            format!("A player holds at most {MAX_LIVE_TOKENS} live tokens; revoke one first."),
        )
        .arg("max", MAX_LIVE_TOKENS));
    }
    let token = new_api_token().map_err(Error::internal)?;
    // Stored to the microsecond, as every time, so the answer equals a later read.
    let expires_at = expires_at.map(|at| chrono::SubsecRound::trunc_subsecs(at, 6));
    let row = api_tokens::Model {
        id: Uuid::now_v7(),
        player_id: player,
        name: name.to_owned(),
        token_hash: api_token_hash(&token),
        scopes: scopes.stored(),
        created_at: now,
        expires_at,
        last_used_at: None,
        revoked_at: None,
    };
    store::auth::insert_api_token(db, row.clone()).await?;
    Ok((token, row))
}
