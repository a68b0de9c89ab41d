use chrono::{DateTime, Duration, Utc};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, encode};
use quick_cache::sync::Cache;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use uuid::Uuid;

/// Seconds of clock skew tolerated on `exp`.
const LEEWAY_SECONDS: i64 = 5;

/// What a token says: who, under which password, and until when.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// The player's id.
    pub sub: Uuid,
    /// The player's name at issue time (display only; `sub` is authoritative).
    pub name: String,
    pub iat: i64,
    pub exp: i64,
    /// The player's password version at issue time; a password change raises the
    /// stored version and so refuses every JWT issued before it. Tokens issued
    /// before this claim existed carry none, which is version 0.
    #[serde(default)]
    pub pwv: i64,
}

/// Signing and verification keys, with the algorithm pinned to HS256 so a token
/// can never choose its own algorithm.
#[derive(Clone)]
pub struct JwtKeys {
    encoding: EncodingKey,
    decoding: DecodingKey,
    validation: Validation,
    ttl: Duration,
    /// Tokens whose signature this key already checked, with their claims: a
    /// client sends the same token with every request for an hour, and decoding
    /// and signing it again cost about 3 % of the server's time per move. Only a
    /// token that verified is kept, and its expiry is checked on every use.
    verified: Arc<Cache<String, Claims>>,
}

/// How many verified tokens are kept (a few hundred bytes each).
const VERIFIED_KEPT: usize = 8192;

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
        // Expiry is checked in `verify` against the service's clock, not the
        // system's, so that a test can move time past a token's lifetime.
        validation.validate_exp = false;
        validation.set_required_spec_claims(&["exp", "sub"]);
        Self {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
            validation,
            ttl: Duration::seconds(ttl_seconds),
            verified: Arc::new(Cache::new(VERIFIED_KEPT)),
        }
    }

    pub fn issue(
        &self,
        player: Uuid,
        name: &str,
        password_version: i64,
        now: DateTime<Utc>,
    ) -> Result<IssuedToken, jsonwebtoken::errors::Error> {
        let expires_at = now + self.ttl;
        let claims = Claims {
            sub: player,
            name: name.to_owned(),
            iat: now.timestamp(),
            exp: expires_at.timestamp(),
            pwv: password_version,
        };
        let token = encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)?;
        Ok(IssuedToken { token, expires_at })
    }

    /// The claims of a token signed with our key that has not expired at `now`.
    pub fn verify(&self, token: &str, now: DateTime<Utc>) -> Option<Claims> {
        let claims = match self.verified.get(token) {
            Some(c) => c,
            None => {
                let c = decode::<Claims>(token, &self.decoding, &self.validation)
                    .ok()?
                    .claims;
                self.verified.insert(token.to_owned(), c.clone());
                c
            }
        };
        (claims.exp + LEEWAY_SECONDS > now.timestamp()).then_some(claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_verifies_with_its_key_and_not_with_another() {
        let keys = JwtKeys::new(&[1; 32], 60);
        let now = Utc::now();
        let t = keys.issue(Uuid::nil(), "alice", 3, now).expect("issue");
        let claims = keys.verify(&t.token, now).expect("valid");
        assert_eq!((claims.name.as_str(), claims.pwv), ("alice", 3));
        assert!(JwtKeys::new(&[2; 32], 60).verify(&t.token, now).is_none());
        assert!(keys.verify("not.a.token", now).is_none());
        // Kept after its first check, the token vouches for no other text.
        let mut forged = t.token.clone();
        let last = forged.pop().expect("a token");
        forged.push(if last == 'A' { 'B' } else { 'A' });
        assert!(keys.verify(&forged, now).is_none());
        assert!(keys.verify(&t.token, now).is_some());
    }

    #[test]
    fn a_token_expires_by_the_clock_it_is_checked_with() {
        let keys = JwtKeys::new(&[1; 32], 60);
        let now = Utc::now();
        let t = keys.issue(Uuid::nil(), "a", 0, now).expect("issue");
        assert!(keys.verify(&t.token, now + Duration::seconds(59)).is_some());
        // The second check finds the token kept, and still reads the clock.
        assert!(keys.verify(&t.token, now + Duration::seconds(66)).is_none());
    }

    #[test]
    fn a_token_without_a_password_version_is_version_zero() {
        #[derive(Serialize)]
        struct Old {
            sub: Uuid,
            name: String,
            iat: i64,
            exp: i64,
        }
        let now = Utc::now();
        let old = Old {
            sub: Uuid::nil(),
            name: "a".into(),
            iat: now.timestamp(),
            exp: now.timestamp() + 60,
        };
        let token = encode(
            &Header::new(Algorithm::HS256),
            &old,
            &EncodingKey::from_secret(&[1; 32]),
        )
        .expect("encode");
        let keys = JwtKeys::new(&[1; 32], 60);
        assert_eq!(keys.verify(&token, now).map(|c| c.pwv), Some(0));
    }
}
