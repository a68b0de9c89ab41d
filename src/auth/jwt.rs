use chrono::{DateTime, Duration, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, encode};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// What a token says: who, and until when.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// The player's id.
    pub sub: Uuid,
    /// The player's name at issue time (display only; `sub` is authoritative).
    pub name: String,
    pub iat: i64,
    pub exp: i64,
}

/// Signing and verification keys, with the algorithm pinned to HS256 so a token
/// can never choose its own algorithm.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
}

impl std::fmt::Debug for JwtKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("JwtKeys([REDACTED])")
    }
}

pub struct IssuedToken {
    pub token: String,
    pub expires_at: DateTime<Utc>,
}

impl JwtKeys {
    pub fn new(secret: &[u8], ttl_seconds: i64) -> Self {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.algorithms = vec![Algorithm::HS256];
        validation.leeway = 5;
        validation.set_required_spec_claims(&["exp", "sub"]);
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            ttl: Duration::seconds(ttl_seconds),
        }
    }

    pub fn issue(
        &self,
        player: Uuid,
        name: &str,
        now: DateTime<Utc>,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        let expires_at = now + self.ttl;
        let claims = Claims {
            sub: player,
            name: name.to_owned(),
            iat: now.timestamp(),
            exp: expires_at.timestamp(),
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)?;
        Ok(IssuedToken { token, expires_at })
    }

    pub fn verify(&self, token: &str) -> Option<Claims> {
        decode::<Claims>(token, &self.decoding, &self.validation)
            .ok()
            .map(|d| d.claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_verifies_with_its_key_and_not_with_another() {
        let keys = JwtKeys::new(&[1; 32], 60);
        let t = keys.issue(Uuid::nil(), "alice", Utc::now()).expect("issue");
        assert_eq!(keys.verify(&t.token).map(|c| c.name), Some("alice".into()));
        assert!(JwtKeys::new(&[2; 32], 60).verify(&t.token).is_none());
        assert!(keys.verify("not.a.token").is_none());
    }

    #[test]
    fn an_expired_token_is_refused() {
        let keys = JwtKeys::new(&[1; 32], 60);
        let t = keys
            .issue(Uuid::nil(), "a", Utc::now() - Duration::hours(1))
            .expect("issue");
        assert!(keys.verify(&t.token).is_none());
    }
}
