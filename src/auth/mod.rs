//! Passwords (argon2id), access tokens (JWT, HS256 pinned), API tokens (SHA-256
//! of a 256-bit secret) and the extractors that authenticate a request.

mod credential;
mod extract;
mod jwt;
mod password;

pub use credential::{API_TOKEN_PREFIX, Credential, Scope, Scopes, api_token_hash, new_api_token};
pub use extract::{
    AuthenticatedPlayer, ChatAuthor, Checked, MaybePlayer, PasswordSession, checked_credential,
};
pub use jwt::{Claims, IssuedToken, JwtKeys};
pub use password::{HashError, PasswordPool};
