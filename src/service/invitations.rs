//! Invitations to matches: sent by a match's owner (at its creation or later),
//! listed for the match and for the invitee, declined or accepted (accepting
//! is joining, see `lobby`), expiring on their own; and the check a join
//! makes of an invitation or a join code. Who may see a match at all is the
//! visibility policy's (`visibility`).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::{DatabaseConnection, DatabaseTransaction};
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::games::Event;
use crate::service::caps::{Adding, Caps};
use crate::service::clock::Clock;
use crate::service::commits::Commits;
use crate::service::error::{Error, Result};
use crate::service::lifecycle::{WAITING, not_found, record_events};
use crate::service::models::PlayerRef;
use crate::service::tx::transaction;
use crate::service::visibility::{PRIVATE, Policy};
use crate::store;
use crate::store::entities::{match_invitations, match_seats, matches, players};

/// Invitations to matches: sent, listed, declined, and the checks joining makes.
pub struct Invitations {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    invitation_ttl: chrono::Duration,
    policy: Arc<Policy>,
    commits: Arc<Commits>,
    caps: Arc<Caps>,
}

impl Invitations {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        invitation_ttl: chrono::Duration,
        policy: Arc<Policy>,
        commits: Arc<Commits>,
        caps: Arc<Caps>,
    ) -> Self {
        Self {
            db,
            clock,
            invitation_ttl,
            policy,
            commits,
            caps,
        }
    }
}

pub const PENDING: &str = "pending";
pub const ACCEPTED: &str = "accepted";
pub const DECLINED: &str = "declined";

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

fn invalid_invite(detail: impl Into<String>) -> Error {
    Error::unprocessable("invalid_invite", detail).arg("max", MAX_INVITEES)
}

fn shown_status(i: &match_invitations::Model, now: DateTime<Utc>) -> String {
    if i.status == PENDING && i.expires_at <= now {
        EXPIRED.to_owned()
    } else {
        i.status.clone()
    }
}

pub const EXPIRED: &str = "expired";

impl Invitations {
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
    ) -> Result<bool, Error> {
        let invitation = store::community::invitation(tx, m.id, me).await?;
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
            Some(i) if i.status == PENDING => Err(Error::new(
                actix_web::http::StatusCode::GONE,
                "invitation_expired",
                format!("Your invitation expired at {}.", i.expires_at.to_rfc3339()),
            )
            .arg("expires_at", i.expires_at.to_rfc3339())),
            Some(i) if i.status == DECLINED => Err(Error::conflict(
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
    ) -> Result<(), Error> {
        let now = self.clock.now();
        store::community::answer_invitation(tx, m.id, me, ACCEPTED, now).await?;
        let accepted = Event::public("invitation_accepted", serde_json::json!({ "player": me }));
        record_events(tx, m, &[accepted], now).await?;
        Ok(())
    }

    /// Checks the names to invite (existing people, not the sender, no more
    /// than `room`) and the expiry asked for (seconds; the server's default
    /// when not given).
    pub(super) async fn invitees(
        &self,
        names: &[String],
        sender: Uuid,
        room: usize,
        expires_in: Option<i64>,
    ) -> Result<Invitees, Error> {
        let now = self.clock.now();
        let ttl = match expires_in {
            None => self.invitation_ttl,
            Some(s) if (MIN_INVITATION_SECONDS..=MAX_INVITATION_SECONDS).contains(&s) => {
                chrono::Duration::seconds(s)
            }
            Some(_) => {
                return Err(Error::unprocessable(
                    "invalid_expiry",
                    format!(
                        "invitation_expires_in is {MIN_INVITATION_SECONDS} to {MAX_INVITATION_SECONDS} seconds."
                    ),
                ).arg("field", "invitation_expires_in").arg("min", MIN_INVITATION_SECONDS).arg("max", MAX_INVITATION_SECONDS));
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
                store::players::player_by_name(&self.db, name).await?
            };
            let p = found.ok_or_else(|| {
                Error::unprocessable(
                    "unknown_invitee",
                    format!("There is no player {name:?} to invite."),
                )
                .arg("name", name.to_string())
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
    ) -> Result<(), Error> {
        if invitees.players.is_empty() {
            return Ok(());
        }
        let now = self.clock.now();
        let mut rows = Vec::new();
        let mut events = Vec::new();
        for p in &invitees.players {
            store::community::delete_invitation(tx, m.id, p.id).await?;
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
        store::community::insert_invitations(tx, rows).await?;
        m.version += 1;
        m.updated_at = now;
        record_events(tx, m, &events, now).await?;
        Ok(())
    }

    /// What inviting `invitees` to `m` adds to the sender's standing
    /// invitations: an invitee who holds a standing one from the sender
    /// already gets it replaced, not another.
    async fn new_invitations(
        &self,
        tx: &DatabaseTransaction,
        m: &matches::Model,
        sender: Uuid,
        invitees: &Invitees,
    ) -> Result<Adding, Error> {
        let now = self.clock.now();
        let mut fresh = 0;
        for p in &invitees.players {
            let standing = store::community::live_invitation(tx, m.id, p.id, now).await?;
            if standing.is_none_or(|i| i.invited_by != sender) {
                fresh += 1;
            }
        }
        Ok(Adding {
            invitations: fresh,
            ..Adding::default()
        })
    }

    /// Invites more players to a waiting match (its owner only).
    pub async fn invite_players(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        names: &[String],
        expires_in: Option<i64>,
    ) -> Result<InvitationList, Error> {
        let m = store::matches::match_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let invitees = self
            .invitees(names, me.id, m.seat_count as usize, expires_in)
            .await?;
        if invitees.players.is_empty() {
            return Err(invalid_invite("Name at least one player to invite."));
        }
        let m = transaction!(&self.db, |tx| {
            let mut m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            self.policy.require_waiting_owner(tx, &m, me).await?;
            let seats = store::matches::seats_of(tx, id).await?;
            if let Some(p) = invitees
                .players
                .iter()
                .find(|p| seats.iter().any(|s| s.player_id == p.id))
            {
                return Err(Error::conflict(
                    "already_seated",
                    format!("{} already holds a seat in this match.", p.name),
                )
                .arg("player", p.name.clone()));
            }
            let adding = self.new_invitations(tx, &m, me.id, &invitees).await?;
            self.caps.check_locked(tx, me, adding).await?;
            self.invite_locked(tx, &mut m, me.id, &invitees).await?;
            store::matches::update_match(tx, m.clone()).await?;
            Ok::<_, Error>(m)
        })?;
        self.commits.committed(&m);
        self.invitations_of(Some(me.id), id).await
    }

    /// A match's invitations, for whoever may read the match.
    pub async fn invitations_of(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
    ) -> Result<InvitationList, Error> {
        self.policy.access_by_id(caller, id).await?;
        let rows = store::community::invitations_of_match(&self.db, id).await?;
        let mut ids: Vec<Uuid> = rows
            .iter()
            .flat_map(|i| [i.player_id, i.invited_by])
            .collect();
        ids.sort();
        ids.dedup();
        let names = store::players::names_by_id(&self.db, ids).await?;
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
    ) -> Result<InvitationList, Error> {
        let m = transaction!(&self.db, |tx| {
            let mut m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            let invitation = store::community::invitation(tx, id, me.id).await?;
            let now = self.clock.now();
            let Some(i) = invitation else {
                let seats = store::matches::seats_of(tx, id).await?;
                self.policy.require_known(tx, &m, &seats, me.id).await?;
                return Err(Error::not_found(
                    "invitation_not_found",
                    "You hold no invitation to this match.",
                ));
            };
            if i.status != PENDING {
                return Err(Error::conflict(
                    "invitation_answered",
                    format!("You already answered this invitation ({}).", i.status),
                )
                .arg("status", i.status.clone()));
            }
            if i.expires_at <= now {
                return Err(Error::new(
                    actix_web::http::StatusCode::GONE,
                    "invitation_expired",
                    format!("Your invitation expired at {}.", i.expires_at.to_rfc3339()),
                )
                .arg("expires_at", i.expires_at.to_rfc3339()));
            }
            store::community::answer_invitation(tx, id, me.id, DECLINED, now).await?;
            m.version += 1;
            m.updated_at = now;
            let declined = Event::public(
                "invitation_declined",
                serde_json::json!({ "player": me.id }),
            );
            record_events(tx, &m, &[declined], now).await?;
            store::matches::update_match(tx, m.clone()).await?;
            Ok::<_, Error>(m)
        })?;
        self.commits.committed(&m);
        let rows = store::community::invitations_of_match(&self.db, id).await?;
        let mut ids: Vec<Uuid> = rows
            .iter()
            .flat_map(|i| [i.player_id, i.invited_by])
            .collect();
        ids.sort();
        ids.dedup();
        // The decliner reads the list even of a private match it no longer sees.
        let names = store::players::names_by_id(&self.db, ids).await?;
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
    pub async fn my_invitations(&self, me: &AuthenticatedPlayer) -> Result<MyInvitations, Error> {
        let now = self.clock.now();
        let rows = store::community::pending_invitations_of(&self.db, me.id, now, 200).await?;
        let mut items = Vec::new();
        let senders: Vec<Uuid> = rows.iter().map(|i| i.invited_by).collect();
        let names = store::players::names_by_id(&self.db, senders).await?;
        for i in &rows {
            let Some(m) = store::matches::match_by_id(&self.db, i.match_id).await? else {
                continue;
            };
            if m.status != WAITING {
                continue;
            }
            let seated = store::matches::seats_of(&self.db, m.id).await?.len();
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
