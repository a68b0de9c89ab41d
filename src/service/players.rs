use sea_orm::SqlErr;
use uuid::Uuid;

use super::Service;
use super::models::{PlayerRef, PlayerResponse, TokenResponse};
use crate::auth::{hash_password, verify_password};
use crate::errors::ApiError;
use crate::store::{self, entities::players};

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

async fn blocking<T: Send + 'static>(
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
        if password.chars().count() < 8 || password.len() > 1024 {
            return Err(ApiError::unprocessable(
                "weak_password",
                "A password has at least 8 characters (and at most 1024 bytes).",
            ));
        }
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
            store::player_by_name(&self.db, name).await?
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
        let issued = self
            .jwt
            .issue(player.id, &player.name, self.clock.now())
            .map_err(ApiError::internal)?;
        Ok(TokenResponse {
            access_token: issued.token,
            token_type: "Bearer".into(),
            expires_at: issued.expires_at,
            player: PlayerRef {
                id: player.id,
                name: player.name,
            },
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

fn name_taken() -> ApiError {
    ApiError::conflict("name_taken", "That name is already taken.")
}

pub(super) fn player_not_found() -> ApiError {
    ApiError::not_found("player_not_found", "No player has that name.")
}
