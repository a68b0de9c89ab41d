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

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction};
use uuid::Uuid;

use super::lifecycle::{ACTIVE, WAITING, not_found, record_events};
use super::models::PlayerRef;
use super::{Service, with_retry};
use crate::auth::AuthenticatedPlayer;
use crate::errors::ApiError;
use crate::games::Event;
use crate::store;
use crate::store::entities::{match_invitations, match_seats, matches, players};

pub const PUBLIC: &str = "public";
pub const UNLISTED: &str = "unlisted";
/// The one spelling of a private match, shared with the statistics' rebuild.
pub const PRIVATE: &str = migration::PRIVATE;

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
    /// Holds a standing invitation (pending, not expired).
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
            store::live_invitation(db, m.id, c, self.clock.now())
                .await?
                .is_some()
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
    /// A public match kept in this process needs no query: a match's visibility
    /// never changes, and the read after the wait checks everything again
    /// against a current snapshot.
    pub async fn check_match_visible(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
    ) -> Result<(), ApiError> {
        if let Some(kept) = self.snapshots.get(id)
            && kept.row.visibility == PUBLIC
            && kept.row.spectators
        {
            return Ok(());
        }
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
        let now = self.clock.now();
        store::answer_invitation(tx, m.id, me, ACCEPTED, now).await?;
        let accepted = Event::public("invitation_accepted", serde_json::json!({ "player": me }));
        record_events(tx, m, &[accepted], now).await?;
        Ok(())
    }
}

impl Service {
    /// Joins the waiting match that `code` opens.
    pub async fn join_match_by_code(
        &self,
        me: &AuthenticatedPlayer,
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

// ---------------------------------------------------------------- invitations

/// The longest an invitation may stay open, in seconds (30 days).
const MAX_INVITATION_SECONDS: i64 = 30 * 24 * 3600;
/// The shortest, in seconds.
const MIN_INVITATION_SECONDS: i64 = 60;
/// The most players one request may invite.
pub const MAX_INVITEES: usize = 16;

/// One invitation to a match, as its owner and players see it.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct InvitationResponse {
    pub player: PlayerRef,
    pub invited_by: PlayerRef,
    /// `pending`, `accepted`, `declined` or `expired` (pending past `expires_at`).
    #[schema(example = "pending")]
    pub status: String,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    /// When it was accepted or declined.
    pub answered_at: Option<DateTime<Utc>>,
}

/// A match's invitations, oldest first.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct InvitationList {
    pub items: Vec<InvitationResponse>,
}

/// An open invitation to the caller.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct MyInvitationResponse {
    pub match_id: Uuid,
    pub game: String,
    pub seat_count: usize,
    /// Seats taken so far.
    pub seated: usize,
    /// `public`, `unlisted` or `private`.
    pub visibility: String,
    pub invited_by: PlayerRef,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
}

/// The caller's open invitations (pending, not expired, to matches still
/// waiting), soonest expiry first.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
pub struct MyInvitations {
    pub items: Vec<MyInvitationResponse>,
}

/// What a new invitation says, resolved: who, and until when.
pub(super) struct Invitees {
    pub players: Vec<players::Model>,
    pub expires_at: DateTime<Utc>,
}

fn invalid_invite(detail: impl Into<String>) -> ApiError {
    ApiError::unprocessable("invalid_invite", detail)
}

fn shown_status(i: &match_invitations::Model, now: DateTime<Utc>) -> String {
    if i.status == PENDING && i.expires_at <= now {
        EXPIRED.to_owned()
    } else {
        i.status.clone()
    }
}

pub const EXPIRED: &str = "expired";

impl Service {
    /// Checks the names to invite (existing people, not the sender, no more
    /// than `room`) and the expiry asked for (seconds; the server's default
    /// when not given).
    pub(super) async fn invitees(
        &self,
        names: &[String],
        sender: Uuid,
        room: usize,
        expires_in: Option<i64>,
    ) -> Result<Invitees, ApiError> {
        let now = self.clock.now();
        let ttl = match expires_in {
            None => self.invitation_ttl,
            Some(s) if (MIN_INVITATION_SECONDS..=MAX_INVITATION_SECONDS).contains(&s) => {
                chrono::Duration::seconds(s)
            }
            Some(_) => {
                return Err(ApiError::unprocessable(
                    "invalid_expiry",
                    format!(
                        "invitation_expires_in is {MIN_INVITATION_SECONDS} to {MAX_INVITATION_SECONDS} seconds."
                    ),
                ));
            }
        };
        if names.len() > MAX_INVITEES.min(room) {
            return Err(invalid_invite(format!(
                "At most {} players may be invited here.",
                MAX_INVITEES.min(room)
            )));
        }
        let mut players: Vec<players::Model> = Vec::new();
        for name in names {
            // No name is longer: no query for it.
            let found = if name.is_empty() || name.len() > 64 || name.contains('.') {
                None
            } else {
                store::player_by_name(&self.db, name).await?
            };
            let p = found.ok_or_else(|| {
                ApiError::unprocessable(
                    "unknown_invitee",
                    format!("There is no player {name:?} to invite."),
                )
            })?;
            if p.id == sender {
                return Err(invalid_invite("You cannot invite yourself."));
            }
            if players.iter().any(|q| q.id == p.id) {
                return Err(invalid_invite(format!("{} is named twice.", p.name)));
            }
            players.push(p);
        }
        Ok(Invitees {
            players,
            expires_at: now + ttl,
        })
    }

    /// Writes invitations to `m` (locked in `tx`, waiting) with their events,
    /// at a new version; an earlier invitation of the same player is replaced.
    /// The caller writes the match back.
    pub(super) async fn invite_locked(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        sender: Uuid,
        invitees: &Invitees,
    ) -> Result<(), ApiError> {
        if invitees.players.is_empty() {
            return Ok(());
        }
        let now = self.clock.now();
        let mut rows = Vec::new();
        let mut events = Vec::new();
        for p in &invitees.players {
            store::delete_invitation(tx, m.id, p.id).await?;
            rows.push(match_invitations::Model {
                match_id: m.id,
                player_id: p.id,
                invited_by: sender,
                status: PENDING.into(),
                created_at: now,
                expires_at: invitees.expires_at,
                answered_at: None,
            });
            events.push(Event::public(
                "invitation_sent",
                serde_json::json!({
                    "player": p.id,
                    "invited_by": sender,
                    "expires_at": invitees.expires_at,
                }),
            ));
        }
        store::insert_invitations(tx, rows).await?;
        m.version += 1;
        m.updated_at = now;
        record_events(tx, m, &events, now).await?;
        Ok(())
    }

    /// Invites more players to a waiting match (its owner only).
    pub async fn invite_players(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        names: &[String],
        expires_in: Option<i64>,
    ) -> Result<InvitationList, ApiError> {
        let m = store::match_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let invitees = self
            .invitees(names, me.id, m.seat_count as usize, expires_in)
            .await?;
        if invitees.players.is_empty() {
            return Err(invalid_invite("Name at least one player to invite."));
        }
        let m = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
            self.require_waiting_owner(&tx, &m, me).await?;
            let seats = store::seats_of(&tx, id).await?;
            if let Some(p) = invitees
                .players
                .iter()
                .find(|p| seats.iter().any(|s| s.player_id == p.id))
            {
                return Err(ApiError::conflict(
                    "already_seated",
                    format!("{} already holds a seat in this match.", p.name),
                ));
            }
            self.invite_locked(&tx, &mut m, me.id, &invitees).await?;
            store::update_match(&tx, m.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(m)
        })?;
        self.committed(&m);
        self.invitations_of(Some(me.id), id).await
    }

    /// A match's invitations, for whoever may read the match.
    pub async fn invitations_of(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
    ) -> Result<InvitationList, ApiError> {
        self.require_visible_id(caller, id).await?;
        let rows = store::invitations_of_match(&self.db, id).await?;
        let mut ids: Vec<Uuid> = rows
            .iter()
            .flat_map(|i| [i.player_id, i.invited_by])
            .collect();
        ids.sort();
        ids.dedup();
        let names = self.player_names(ids).await?;
        let player_ref = |id: Uuid| PlayerRef {
            id,
            name: names.get(&id).cloned().unwrap_or_default(),
        };
        let now = self.clock.now();
        Ok(InvitationList {
            items: rows
                .iter()
                .map(|i| InvitationResponse {
                    player: player_ref(i.player_id),
                    invited_by: player_ref(i.invited_by),
                    status: shown_status(i, now),
                    created_at: i.created_at,
                    expires_at: i.expires_at,
                    answered_at: i.answered_at,
                })
                .collect(),
        })
    }

    /// Declines the caller's invitation to a match.
    pub async fn decline_invitation(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<InvitationList, ApiError> {
        let m = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
            let invitation = store::invitation(&tx, id, me.id).await?;
            let now = self.clock.now();
            let Some(i) = invitation else {
                let seats = store::seats_of(&tx, id).await?;
                if m.visibility == PRIVATE
                    && !self.standing(&tx, &m, &seats, Some(me.id)).await?.knows()
                {
                    return Err(not_found());
                }
                return Err(ApiError::not_found(
                    "invitation_not_found",
                    "You hold no invitation to this match.",
                ));
            };
            if i.status != PENDING {
                return Err(ApiError::conflict(
                    "invitation_answered",
                    format!("You already answered this invitation ({}).", i.status),
                ));
            }
            if i.expires_at <= now {
                return Err(ApiError::new(
                    actix_web::http::StatusCode::GONE,
                    "invitation_expired",
                    format!("Your invitation expired at {}.", i.expires_at.to_rfc3339()),
                ));
            }
            store::answer_invitation(&tx, id, me.id, DECLINED, now).await?;
            m.version += 1;
            m.updated_at = now;
            let declined = Event::public(
                "invitation_declined",
                serde_json::json!({ "player": me.id }),
            );
            record_events(&tx, &m, &[declined], now).await?;
            store::update_match(&tx, m.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(m)
        })?;
        self.committed(&m);
        let rows = store::invitations_of_match(&self.db, id).await?;
        let mut ids: Vec<Uuid> = rows
            .iter()
            .flat_map(|i| [i.player_id, i.invited_by])
            .collect();
        ids.sort();
        ids.dedup();
        // The decliner reads the list even of a private match it no longer sees.
        let names = self.player_names(ids).await?;
        let player_ref = |id: Uuid| PlayerRef {
            id,
            name: names.get(&id).cloned().unwrap_or_default(),
        };
        let now = self.clock.now();
        Ok(InvitationList {
            items: rows
                .iter()
                .filter(|i| i.player_id == me.id)
                .map(|i| InvitationResponse {
                    player: player_ref(i.player_id),
                    invited_by: player_ref(i.invited_by),
                    status: shown_status(i, now),
                    created_at: i.created_at,
                    expires_at: i.expires_at,
                    answered_at: i.answered_at,
                })
                .collect(),
        })
    }

    /// The caller's open invitations.
    pub async fn my_invitations(
        &self,
        me: &AuthenticatedPlayer,
    ) -> Result<MyInvitations, ApiError> {
        let now = self.clock.now();
        let rows = store::pending_invitations_of(&self.db, me.id, now, 200).await?;
        let mut items = Vec::new();
        let senders: Vec<Uuid> = rows.iter().map(|i| i.invited_by).collect();
        let names = self.player_names(senders).await?;
        for i in &rows {
            let Some(m) = store::match_by_id(&self.db, i.match_id).await? else {
                continue;
            };
            if m.status != WAITING {
                continue;
            }
            let seated = store::seats_of(&self.db, m.id).await?.len();
            items.push(MyInvitationResponse {
                match_id: m.id,
                game: m.game.clone(),
                seat_count: m.seat_count as usize,
                seated,
                visibility: m.visibility.clone(),
                invited_by: PlayerRef {
                    id: i.invited_by,
                    name: names.get(&i.invited_by).cloned().unwrap_or_default(),
                },
                created_at: i.created_at,
                expires_at: i.expires_at,
            });
        }
        Ok(MyInvitations { items })
    }
}

impl Service {
    /// Accepts the caller's invitation: joins the match in `seat` (or the
    /// lowest free one). Without a pending invitation that has not expired,
    /// refused as declining would be.
    pub async fn accept_invitation(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        seat: Option<i64>,
    ) -> Result<super::models::MatchResponse, ApiError> {
        let m = store::match_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        match store::invitation(&self.db, id, me.id).await? {
            None => {
                let seats = store::seats_of(&self.db, id).await?;
                if m.visibility == PRIVATE
                    && !self
                        .standing(&self.db, &m, &seats, Some(me.id))
                        .await?
                        .knows()
                {
                    return Err(not_found());
                }
                return Err(ApiError::not_found(
                    "invitation_not_found",
                    "You hold no invitation to this match.",
                ));
            }
            Some(i) if i.status != PENDING => {
                return Err(ApiError::conflict(
                    "invitation_answered",
                    format!("You already answered this invitation ({}).", i.status),
                ));
            }
            Some(i) if i.expires_at <= self.clock.now() => {
                return Err(ApiError::new(
                    actix_web::http::StatusCode::GONE,
                    "invitation_expired",
                    format!("Your invitation expired at {}.", i.expires_at.to_rfc3339()),
                ));
            }
            Some(_) => {}
        }
        self.join_match(me, id, super::JoinMatch { code: None, seat })
            .await
    }
}
