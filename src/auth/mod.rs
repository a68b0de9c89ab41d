//! Passwords (argon2id), access tokens (JWT, HS256 pinned) and the extractors that
//! authenticate a request.

mod extract;
mod jwt;
mod password;

pub use extract::{AuthenticatedPlayer, MaybePlayer};
pub use jwt::{Claims, IssuedToken, JwtKeys};
pub use password::{hash_password, verify_password};
