use argon2::{Argon2, PasswordHasher, PasswordVerifier};

/// An argon2id PHC string with the crate's default parameters and a random salt.
/// CPU-heavy: call it off the async workers.
pub fn hash_password(password: &str) -> Result<String, String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| e.to_string())
}

/// Whether `password` matches the stored PHC string. CPU-heavy like hashing.
pub fn verify_password(password: &str, phc: &str) -> bool {
    Argon2::default()
        .verify_password(password.as_bytes(), phc)
        .is_ok()
}
