//! API tokens: issued, listed and revoked by their owner (with a password session).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::models::{ApiTokenPage, ApiTokenResponse, CreatedApiToken};
use super::{Service, decode_cursor, encode_cursor, page_limit};
use crate::auth::{AuthenticatedPlayer, Scope, Scopes, api_token_hash, new_api_token};
use crate::errors::ApiError;
use crate::store::{self, entities::api_tokens};

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

impl Service {
    pub async fn create_api_token(
        &self,
        me: &AuthenticatedPlayer,
        new: NewApiToken,
    ) -> Result<CreatedApiToken, ApiError> {
        let name = new.name.trim();
        if name.is_empty() || name.chars().count() > 64 || name.chars().any(char::is_control) {
            return Err(ApiError::unprocessable(
                "invalid_token_name",
                "A token's name has 1 to 64 characters, none of them control characters.",
            ));
        }
        let scopes = Scopes::from_list(&new.scopes);
        if scopes.is_empty() {
            return Err(ApiError::unprocessable(
                "invalid_scopes",
                "A token needs at least one scope: play, read.",
            ));
        }
        let now = self.clock.now();
        if new.expires_at.is_some_and(|at| at <= now) {
            return Err(ApiError::unprocessable(
                "invalid_expiry",
                "expires_at must be in the future.",
            ));
        }
        if store::count_live_api_tokens(&self.db, me.id, now).await? >= MAX_LIVE_TOKENS {
            return Err(ApiError::conflict(
                "too_many_tokens",
                format!("A player holds at most {MAX_LIVE_TOKENS} live tokens; revoke one first."),
            ));
        }
        let token = new_api_token().map_err(ApiError::internal)?;
        // Stored to the microsecond, as every time, so the answer equals a later read.
        let expires_at = new
            .expires_at
            .map(|at| chrono::SubsecRound::trunc_subsecs(at, 6));
        let row = api_tokens::Model {
            id: Uuid::now_v7(),
            player_id: me.id,
            name: name.to_owned(),
            token_hash: api_token_hash(&token),
            scopes: scopes.stored(),
            created_at: now,
            expires_at,
            last_used_at: None,
            revoked_at: None,
        };
        store::insert_api_token(&self.db, row.clone()).await?;
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
    ) -> Result<ApiTokenPage, ApiError> {
        let limit = page_limit(limit)?;
        let before = match cursor {
            Some(c) => Some(decode_cursor(&c)?.parse::<Uuid>().map_err(|_| {
                ApiError::bad_request(
                    "invalid_cursor",
                    "The cursor is not one this server issued.",
                )
            })?),
            None => None,
        };
        let mut rows = store::list_api_tokens(&self.db, me.id, before, limit + 1).await?;
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
    pub async fn revoke_api_token(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<(), ApiError> {
        if store::revoke_api_token(&self.db, me.id, id, self.clock.now()).await? {
            self.credentials.clear();
            // Streams the token opened end, on every replica.
            self.hub.credentials_changed(me.id);
            tracing::info!(player.id = %me.id, token.id = %id, "API token revoked");
            Ok(())
        } else {
            Err(ApiError::not_found(
                "token_not_found",
                "You have no API token with that id.",
            ))
        }
    }
}
