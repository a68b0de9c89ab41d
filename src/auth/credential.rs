//! What authenticated a request: a password-issued JWT, or an API token with its
//! scopes. The scope rule lives here, so the extractors apply it to every handler.

use actix_web::http::Method;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;
use uuid::Uuid;

/// What an API token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Every request that changes something (any method but GET and HEAD):
    /// create, join, start, leave or cancel a match, move, resign, return. Implies
    /// `read`, because a player must see a match to play it.
    Play,
    /// GET and HEAD requests only.
    Read,
    /// Writing in a match's chat, deleting one's own messages, muting and
    /// unmuting players: speaking in the player's name to other people, which a
    /// person may want to keep from a program that plays for them. Does not
    /// imply `read`.
    Chat,
}

impl Scope {
    fn word(self) -> &'static str {
        match self {
            Scope::Play => "play",
            Scope::Read => "read",
            Scope::Chat => "chat",
        }
    }

    /// Every scope, in the order they are listed and stored.
    pub const ALL: [Scope; 3] = [Scope::Play, Scope::Read, Scope::Chat];

    /// The scope a word of OAuth's `scope` names.
    pub fn from_word(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.word() == word)
    }

    /// The word of OAuth's `scope` and of the stored form.
    pub fn as_str(self) -> &'static str {
        self.word()
    }
}

/// A set of scopes, stored space-separated as OAuth's `scope` is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Scopes {
    play: bool,
    read: bool,
    chat: bool,
}

impl Scopes {
    pub fn from_list(list: &[Scope]) -> Self {
        Self {
            play: list.contains(&Scope::Play),
            read: list.contains(&Scope::Read),
            chat: list.contains(&Scope::Chat),
        }
    }

    /// Reads the stored form; a word this version does not know grants nothing.
    pub fn parse(stored: &str) -> Self {
        let mut s = Self::default();
        for word in stored.split_whitespace() {
            match Scope::from_word(word) {
                Some(Scope::Play) => s.play = true,
                Some(Scope::Read) => s.read = true,
                Some(Scope::Chat) => s.chat = true,
                None => {}
            }
        }
        s
    }

    /// The scopes as granted (not as implied), in a fixed order.
    pub fn list(&self) -> Vec<Scope> {
        [
            (self.play, Scope::Play),
            (self.read, Scope::Read),
            (self.chat, Scope::Chat),
        ]
        .into_iter()
        .filter_map(|(has, s)| has.then_some(s))
        .collect()
    }

    pub fn stored(&self) -> String {
        self.list()
            .iter()
            .map(|s| s.word())
            .collect::<Vec<_>>()
            .join(" ")
    }

    pub fn is_empty(&self) -> bool {
        !self.play && !self.read && !self.chat
    }

    /// GET and HEAD need `read` (or `play`, which implies it); every other
    /// method needs `play`.
    pub fn permit(&self, method: &Method) -> bool {
        if method == Method::GET || method == Method::HEAD {
            self.read || self.play
        } else {
            self.play
        }
    }

    /// Whether the player may speak: write in chats, mute and unmute.
    pub fn chat(&self) -> bool {
        self.chat
    }
}

/// How a request was authenticated, with what it takes to tell later whether
/// that credential still holds (an event stream outlives the request that
/// opened it, and must end with its credential).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// A JWT from `POST /auth/token` (or a password change): may do anything
    /// until it expires or the password changes.
    Password {
        /// The player's password version the JWT was issued under.
        version: i64,
        expires_at: DateTime<Utc>,
    },
    /// An API token, with what it may do, until revoked or expired.
    ApiToken {
        id: Uuid,
        scopes: Scopes,
        expires_at: Option<DateTime<Utc>>,
    },
    /// The server acting for a player of its own accord (bots, simulations):
    /// never the result of a request's credentials.
    Server,
}

impl Credential {
    pub fn permits(&self, method: &Method) -> bool {
        match self {
            Credential::ApiToken { scopes, .. } => scopes.permit(method),
            Credential::Password { .. } | Credential::Server => true,
        }
    }

    /// Whether the credential may speak for the player (the `chat` scope).
    pub fn may_chat(&self) -> bool {
        match self {
            Credential::ApiToken { scopes, .. } => scopes.chat(),
            Credential::Password { .. } | Credential::Server => true,
        }
    }

    pub fn is_password(&self) -> bool {
        matches!(self, Credential::Password { .. })
    }

    /// When the credential stops being valid of itself, if ever.
    pub fn expires_at(&self) -> Option<DateTime<Utc>> {
        match self {
            Credential::Password { expires_at, .. } => Some(*expires_at),
            Credential::ApiToken { expires_at, .. } => *expires_at,
            Credential::Server => None,
        }
    }
}

/// What every API token begins with, so that a leaked one is recognisable (by
/// people and by secret scanners) and the extractor tells it from a JWT.
pub const API_TOKEN_PREFIX: &str = "sot_";

/// A fresh API token: the prefix and 256 random bits, base64url.
pub fn new_api_token() -> Result<String, getrandom::Error> {
    use base64::Engine;
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret)?;
    Ok(format!(
        "{API_TOKEN_PREFIX}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(secret)
    ))
}

/// The stored form of an API token: hex SHA-256. A fast hash suffices because
/// the secret has 256 random bits, so no guessing can invert it, and it lets the
/// extractor find the token with one unique-index lookup (a salted password hash
/// could only be checked row by row).
pub fn api_token_hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_allows_only_safe_methods_and_play_allows_everything() {
        let read = Scopes::from_list(&[Scope::Read]);
        let play = Scopes::from_list(&[Scope::Play]);
        assert!(read.permit(&Method::GET) && read.permit(&Method::HEAD));
        assert!(!read.permit(&Method::POST) && !read.permit(&Method::DELETE));
        for m in [Method::GET, Method::POST, Method::DELETE, Method::PUT] {
            assert!(play.permit(&m), "{m}");
        }
        assert!(!Scopes::default().permit(&Method::GET));
    }

    #[test]
    fn scopes_survive_their_stored_form_and_unknown_words_grant_nothing() {
        let both = Scopes::from_list(&[Scope::Read, Scope::Play, Scope::Read]);
        assert_eq!(both.stored(), "play read");
        assert_eq!(Scopes::parse(&both.stored()), both);
        assert!(Scopes::parse("admin everything").is_empty());
        let all = Scopes::from_list(&Scope::ALL);
        assert_eq!(all.stored(), "play read chat");
        assert_eq!(Scopes::parse("chat read play"), all);
    }

    #[test]
    fn chat_is_a_scope_of_its_own_that_play_does_not_carry() {
        let play = Credential::ApiToken {
            id: Uuid::nil(),
            scopes: Scopes::from_list(&[Scope::Play]),
            expires_at: None,
        };
        let chat = Credential::ApiToken {
            id: Uuid::nil(),
            scopes: Scopes::from_list(&[Scope::Chat]),
            expires_at: None,
        };
        assert!(!play.may_chat() && chat.may_chat());
        assert!(!chat.permits(&Method::GET) && !chat.permits(&Method::POST));
    }

    #[test]
    fn api_tokens_are_prefixed_random_and_hashed_to_hex() {
        let a = new_api_token().expect("randomness");
        let b = new_api_token().expect("randomness");
        assert!(a.starts_with(API_TOKEN_PREFIX) && a.len() == API_TOKEN_PREFIX.len() + 43);
        assert_ne!(a, b);
        assert_eq!(api_token_hash(&a).len(), 64);
        assert_ne!(api_token_hash(&a), api_token_hash(&b));
    }
}
