//! Playing with people one chooses: who may see a match (its visibility and
//! whether it admits spectators), its join code, and choosing a seat.
//!
//! A private match does not exist for anybody but its owner, its seated players
//! and the players invited to it: every endpoint answers them as it answers for
//! an unknown id (404 `match_not_found`), lists leave it out, and it is never
//! rated (ratings histories name their matches). An unlisted match is left out
//! of every list but may be read by anyone who has its id. A match closed to
//! spectators answers 403 `spectators_not_allowed` to outsiders while it is
//! played; before the start and once it is over it reads as any other.

use sea_orm::ConnectionTrait;
use uuid::Uuid;

use super::Service;
use super::lifecycle::{ACTIVE, not_found};
use crate::errors::ApiError;
use crate::store;
use crate::store::entities::{match_seats, matches};
use sea_orm::DatabaseTransaction;

pub const PUBLIC: &str = "public";
pub const UNLISTED: &str = "unlisted";
pub const PRIVATE: &str = "private";

/// How a new match may be seen, as asked for at its creation.
pub(super) struct Visibility {
    pub visibility: String,
    pub spectators: bool,
    pub join_code: Option<String>,
}

/// Checks the visibility options of a new match; the join code of an unlisted
/// or private match is drawn here.
pub(super) fn visibility_of(
    visibility: Option<String>,
    spectators: Option<bool>,
) -> Result<Visibility, ApiError> {
    let visibility = match visibility.as_deref() {
        None => PUBLIC,
        Some(v) if [PUBLIC, UNLISTED, PRIVATE].contains(&v) => v,
        Some(_) => {
            return Err(ApiError::unprocessable(
                "invalid_visibility",
                "visibility is \"public\", \"unlisted\" or \"private\".",
            ));
        }
    };
    let join_code = (visibility != PUBLIC).then(new_join_code).transpose()?;
    Ok(Visibility {
        visibility: visibility.to_owned(),
        // A private match has no audience unless its owner asks for one: its
        // invitees may still watch.
        spectators: spectators.unwrap_or(visibility != PRIVATE),
        join_code,
    })
}

/// The letters of join codes: no 0/O, 1/I/L, so a code read aloud is typed right.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// The length of a join code: 10 letters of 31 (about 49 bits), which no
/// rate-limited guesser finds.
pub const JOIN_CODE_LEN: usize = 10;

fn new_join_code() -> Result<String, ApiError> {
    let n = CODE_ALPHABET.len();
    // Bytes at or above the last whole multiple of the alphabet are drawn again,
    // so every letter is equally likely.
    let cutoff = 256 - 256 % n;
    let mut code = String::with_capacity(JOIN_CODE_LEN);
    while code.len() < JOIN_CODE_LEN {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)
            .map_err(|e| ApiError::internal(format!("no OS randomness: {e}")))?;
        for b in bytes.iter().map(|b| *b as usize).filter(|b| *b < cutoff) {
            if code.len() < JOIN_CODE_LEN {
                code.push(CODE_ALPHABET[b % n] as char);
            }
        }
    }
    Ok(code)
}

/// A code as typed: trimmed, upper case, dashes and spaces left out.
pub(super) fn normalize_code(code: &str) -> Option<String> {
    let code: String = code
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    (code.len() == JOIN_CODE_LEN && code.bytes().all(|b| CODE_ALPHABET.contains(&b)))
        .then_some(code)
}

/// Who a caller is to a match.
pub(super) struct Standing {
    /// Seated or owner.
    pub member: bool,
    /// Holds an invitation (pending or accepted).
    pub invited: bool,
}

impl Standing {
    pub(super) fn knows(&self) -> bool {
        self.member || self.invited
    }
}

impl Service {
    /// Who `caller` is to `m`. Reads the invitations only when that matters:
    /// for a match that is private or closed to spectators, and a caller who is
    /// neither seated nor its owner.
    pub(super) async fn standing(
        &self,
        db: &impl ConnectionTrait,
        m: &matches::Model,
        seats: &[match_seats::Model],
        caller: Option<Uuid>,
    ) -> Result<Standing, ApiError> {
        let Some(c) = caller else {
            return Ok(Standing {
                member: false,
                invited: false,
            });
        };
        let member = m.owner_id == Some(c) || seats.iter().any(|s| s.player_id == c);
        let invited = if member || (m.visibility != PRIVATE && m.spectators) {
            false
        } else {
            store::live_invitation(db, m.id, c).await?.is_some()
        };
        Ok(Standing { member, invited })
    }

    /// Whether `caller` may read `m`: 404 for a private match it does not know
    /// of, 403 while the match is played without spectators.
    pub(super) async fn require_visible(
        &self,
        db: &impl ConnectionTrait,
        m: &matches::Model,
        seats: &[match_seats::Model],
        caller: Option<Uuid>,
    ) -> Result<(), ApiError> {
        if m.visibility == PUBLIC && m.spectators {
            return Ok(());
        }
        let standing = self.standing(db, m, seats, caller).await?;
        if m.visibility == PRIVATE && !standing.knows() {
            return Err(not_found());
        }
        if !m.spectators && m.status == ACTIVE && !standing.knows() {
            return Err(ApiError::forbidden(
                "spectators_not_allowed",
                "This match is played without spectators; it can be read once it is over.",
            ));
        }
        Ok(())
    }

    /// [`Self::require_visible`] for a match by id, read from the database.
    pub(super) async fn require_visible_id(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
    ) -> Result<matches::Model, ApiError> {
        let m = store::match_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        if m.visibility == PUBLIC && m.spectators {
            return Ok(m);
        }
        let seats = store::seats_of(&self.db, id).await?;
        self.require_visible(&self.db, &m, &seats, caller).await?;
        Ok(m)
    }

    /// Whether the match may be read by `caller`, before a long poll waits on it.
    pub async fn check_match_visible(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
    ) -> Result<(), ApiError> {
        let snap = self.snapshot(id).await?;
        self.require_visible(&self.db, &snap.row, &snap.seats, caller)
            .await
    }

    /// The error for a caller without a seat: `not_seated`, or, for a private
    /// match it does not know of, the unknown match's 404.
    pub(super) async fn not_seated(
        &self,
        db: &impl ConnectionTrait,
        m: &matches::Model,
        seats: &[match_seats::Model],
        me: Uuid,
    ) -> ApiError {
        if m.visibility == PRIVATE {
            match self.standing(db, m, seats, Some(me)).await {
                Ok(s) if s.knows() => {}
                Ok(_) => return not_found(),
                Err(e) => return e,
            }
        }
        ApiError::forbidden("not_seated", "You do not hold a seat in this match.")
    }
}

pub(super) fn bad_code() -> ApiError {
    ApiError::unprocessable(
        "invalid_join_code",
        format!(
            "A join code is {JOIN_CODE_LEN} letters and digits, as its match's owner was given it."
        ),
    )
}

pub const PENDING: &str = "pending";
pub const ACCEPTED: &str = "accepted";
pub const DECLINED: &str = "declined";

impl Service {
    /// Whether `me` may join `m` (locked in `tx`), and whether joining accepts
    /// an invitation. Anyone may join a public or unlisted match; a private one
    /// takes its join code or an invitation that is pending and not expired.
    /// To an outsider without either, a private match does not exist.
    pub(super) async fn may_join(
        &self,
        tx: &DatabaseTransaction,
        m: &matches::Model,
        seats: &[match_seats::Model],
        me: Uuid,
        code: Option<&str>,
    ) -> Result<bool, ApiError> {
        let invitation = store::invitation(tx, m.id, me).await?;
        let now = self.clock.now();
        let live = invitation
            .as_ref()
            .is_some_and(|i| i.status == PENDING && i.expires_at > now);
        if m.visibility != PRIVATE
            || m.owner_id == Some(me)
            || seats.iter().any(|s| s.player_id == me)
            || (code.is_some() && code == m.join_code.as_deref())
            || live
        {
            return Ok(live);
        }
        match invitation {
            Some(i) if i.status == PENDING => Err(ApiError::new(
                actix_web::http::StatusCode::GONE,
                "invitation_expired",
                format!("Your invitation expired at {}.", i.expires_at.to_rfc3339()),
            )),
            Some(i) if i.status == DECLINED => Err(ApiError::conflict(
                "invitation_declined",
                "You declined this invitation; ask its owner for the join code.",
            )),
            Some(i) if i.status == ACCEPTED => Ok(false),
            _ => Err(not_found()),
        }
    }

    /// Marks `me`'s invitation to `m` accepted (in the transaction that seats it).
    pub(super) async fn accept_invitation_locked(
        &self,
        tx: &DatabaseTransaction,
        m: &matches::Model,
        me: Uuid,
    ) -> Result<(), ApiError> {
        store::answer_invitation(tx, m.id, me, ACCEPTED, self.clock.now()).await?;
        Ok(())
    }
}

impl Service {
    /// Joins the waiting match that `code` opens.
    pub async fn join_match_by_code(
        &self,
        me: &crate::auth::AuthenticatedPlayer,
        code: &str,
        seat: Option<i64>,
    ) -> Result<crate::service::models::MatchResponse, ApiError> {
        let code = normalize_code(code).ok_or_else(bad_code)?;
        let id = store::waiting_match_by_code(&self.db, &code)
            .await?
            .ok_or_else(|| {
                ApiError::not_found(
                    "join_code_not_found",
                    "No match waiting for players has this join code.",
                )
            })?;
        self.join_match(
            me,
            id,
            super::JoinMatch {
                code: Some(code),
                seat,
            },
        )
        .await
    }
}
