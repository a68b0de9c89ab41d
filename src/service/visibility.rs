//! The one policy for what each viewer may have of a match. Every read path asks
//! it (the match read, its moves, rounds and events, the player's feed, streams,
//! exports, replays, lists, chat), so a new endpoint cannot forget a rule.
//!
//! The games decide what is hidden in a state (`view`) and in a move
//! (`public_part`, the reveal); this module decides who is shown which, in
//! each state of a match. Its rules, written out in docs/decisions.md ("What
//! each viewer sees") and tested below as a table of viewer × state × item:
//!
//! - **Reading a match at all.** A public or unlisted match is read by anybody
//!   with its id. A private one exists only for its seats, its owner, its
//!   invitees and admins: anybody else is told there is no such match (404). A
//!   match closed to spectators is read, while it is played, by the same people
//!   only; anybody else gets 403 `spectators_not_allowed`, before the start and
//!   after the end it reads as any other.
//! - **The state.** A seat sees the game's view for its seat; everybody else the
//!   spectators' view. The seed, the final state and a starting position are
//!   shown once the match is over (finished or aborted), to everybody who may
//!   read it; the join code to its owner only.
//! - **Moves.** A move is shown whole to its own seat at once, and to everybody
//!   once it is revealed (its step's reveal, or the end for a move private until
//!   then); before that others see its public part and its commitment, never its
//!   nonce. A replaced move is its author's alone until the match is over (its
//!   commitment is public at once), however its step was revealed.
//! - **Events.** Public events to everybody who may read the match; one
//!   addressed to a seat to that seat only, in every phase. An event's audience
//!   is part of the event: the log reads the same whoever reads it and
//!   whenever, so a match's page, its stream, a player's feed and a webhook
//!   agree event for event. What an addressed event told its seat is public
//!   once the match is over all the same, through the moves, the final state,
//!   the seed and the export.
//! - **Rounds.** To everybody who may read the match: a round is written as it
//!   is revealed, and the games put nothing in it that is still hidden.
//! - **Admins** read private and closed matches as spectators do (to moderate
//!   them), and see nothing sealed that a spectator would not.

use std::sync::Arc;

use sea_orm::{ConnectionTrait, DatabaseConnection, DatabaseTransaction};
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::games::Viewer;
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::lifecycle::{ABORTED, ACTIVE, FINISHED, WAITING, not_found};
use crate::store;
use crate::store::entities::{match_seats, matches, moves};

pub const PUBLIC: &str = "public";
pub const UNLISTED: &str = "unlisted";
/// The one spelling of a private match, shared with the statistics' rebuild.
pub const PRIVATE: &str = migration::PRIVATE;

/// An account's roles (`players.role`).
pub const ROLE_PLAYER: &str = "player";
pub const ROLE_ADMIN: &str = "admin";

/// Who a caller is to one match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Holds this seat.
    Seat(usize),
    /// Owns the match without holding a seat.
    Owner,
    /// Holds an invitation that is pending and not expired.
    Invitee,
    /// An admin who is nothing else to the match.
    Admin,
    /// Signed in, and nothing to the match.
    Spectator,
    /// No credential.
    Anonymous,
}

impl Role {
    /// Seats, the owner and invitees: those a private or closed match is for.
    fn knows(self) -> bool {
        matches!(self, Role::Seat(_) | Role::Owner | Role::Invitee)
    }
}

/// A match's state, as far as what is shown goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Waiting,
    Active,
    /// Finished or aborted: everything is public.
    Over,
}

impl Phase {
    pub fn of(status: &str) -> Phase {
        match status {
            WAITING => Phase::Waiting,
            ACTIVE => Phase::Active,
            FINISHED | ABORTED => Phase::Over,
            // A status this code does not know: nothing more than while played.
            _ => Phase::Active,
        }
    }
}

/// How a match may be seen, as chosen at its creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Openness {
    pub private: bool,
    pub spectators: bool,
}

impl Openness {
    pub fn of(m: &matches::Model) -> Self {
        Self {
            private: m.visibility == PRIVATE,
            spectators: m.spectators,
        }
    }

    /// Whether anybody at all may read the match, whoever they are.
    pub fn open_to_all(self) -> bool {
        !self.private && self.spectators
    }
}

/// How much of a stored move a viewer may have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveShown {
    /// The action and the nonce.
    Whole,
    /// The public part of the action and the commitment; no nonce.
    Sealed,
}

/// Which events of a match a viewer may have (what the queries filter by).
pub use crate::store::moves::EventScope;

/// What one viewer may have of one match: decided once per read, asked for
/// every item the read shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    role: Role,
    phase: Phase,
    owner: bool,
}

impl Access {
    /// Whether a viewer of `role` may read a match of this openness in this
    /// phase: `Ok`, or the refusal it is told.
    pub fn decide(role: Role, phase: Phase, open: Openness, owner: bool) -> Result<Access> {
        let access = Access { role, phase, owner };
        if open.open_to_all() || role.knows() || role == Role::Admin {
            return Ok(access);
        }
        if open.private {
            return Err(not_found());
        }
        if !open.spectators && phase == Phase::Active {
            return Err(Error::forbidden(
                "spectators_not_allowed",
                "This match is played without spectators; it can be read once it is over.",
            ));
        }
        Ok(access)
    }

    pub fn role(&self) -> Role {
        self.role
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The viewer's seat, if it holds one.
    pub fn seat(&self) -> Option<usize> {
        match self.role {
            Role::Seat(s) => Some(s),
            _ => None,
        }
    }

    /// Whom the game's `view` is asked for.
    pub fn viewer(&self) -> Viewer {
        self.seat().map_or(Viewer::Spectator, Viewer::Seat)
    }

    /// Whether everything is public: the match is over.
    pub fn over(&self) -> bool {
        self.phase == Phase::Over
    }

    /// The seed, the final state and a starting position: once it is over.
    pub fn shows_secrets_of_setup(&self) -> bool {
        self.over()
    }

    /// The join code: its owner's alone.
    pub fn shows_join_code(&self) -> bool {
        self.owner
    }

    /// How much of a stored move the viewer may have.
    pub fn move_shown(&self, mv: &moves::Model) -> MoveShown {
        let own = self.seat() == Some(mv.seat as usize);
        if self.over() || own || (mv.revealed && !mv.replaced) {
            MoveShown::Whole
        } else {
            MoveShown::Sealed
        }
    }

    /// Whether the viewer may have an event addressed to `audience_seat`
    /// (none: public).
    pub fn event_shown(&self, audience_seat: Option<i32>) -> bool {
        event_in_scope(self.events(), audience_seat)
    }

    /// The events the viewer may have, for a query to filter by.
    pub fn events(&self) -> EventScope {
        event_scope(self.seat())
    }
}

/// The events of a match the holder of `seat` (or a viewer without one) may
/// have: the public ones and its seat's, whatever the match's phase. For a
/// stream, whose viewer's seat may change while the match waits; the player's
/// feed applies the same rule in its query (`store::streams`).
pub fn event_scope(seat: Option<usize>) -> EventScope {
    EventScope {
        seat: seat.map(|s| s as i32),
    }
}

/// Whether an event addressed to `audience_seat` (none: public) is in `scope`.
pub fn event_in_scope(scope: EventScope, audience_seat: Option<i32>) -> bool {
    audience_seat.is_none() || audience_seat == scope.seat
}

/// Who may see what of a match (see the module).
pub struct Policy {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
}

impl Policy {
    pub fn new(db: DatabaseConnection, clock: Arc<dyn Clock>) -> Self {
        Self { db, clock }
    }

    /// Who `caller` is to `m`. Reads the invitations (and the caller's account
    /// for its admin role) only when that decides anything: for a match that
    /// is private or closed to spectators, and a caller who is neither seated
    /// nor its owner.
    pub async fn role(
        &self,
        db: &impl ConnectionTrait,
        m: &matches::Model,
        seats: &[match_seats::Model],
        caller: Option<Uuid>,
    ) -> Result<Role> {
        let Some(c) = caller else {
            return Ok(Role::Anonymous);
        };
        if let Some(s) = seats.iter().find(|s| s.player_id == c) {
            return Ok(Role::Seat(s.seat as usize));
        }
        if m.owner_id == Some(c) {
            return Ok(Role::Owner);
        }
        if Openness::of(m).open_to_all() {
            return Ok(Role::Spectator);
        }
        if store::community::live_invitation(db, m.id, c, self.clock.now())
            .await?
            .is_some()
        {
            return Ok(Role::Invitee);
        }
        if self.is_admin_id(db, c).await? {
            return Ok(Role::Admin);
        }
        Ok(Role::Spectator)
    }

    /// What `caller` may have of `m`, or the refusal it is told (404 for a
    /// private match it does not know of, 403 while a match closed to
    /// spectators is played).
    pub async fn access(
        &self,
        db: &impl ConnectionTrait,
        m: &matches::Model,
        seats: &[match_seats::Model],
        caller: Option<Uuid>,
    ) -> Result<Access> {
        let role = self.role(db, m, seats, caller).await?;
        let owner = caller.is_some() && caller == m.owner_id;
        Access::decide(role, Phase::of(&m.status), Openness::of(m), owner)
    }

    /// [`Self::access`] to a match by id, read from the database with its seats.
    pub async fn access_by_id(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
    ) -> Result<(matches::Model, Vec<match_seats::Model>, Access)> {
        let m = store::matches::match_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let seats = store::matches::seats_of(&self.db, id).await?;
        let access = self.access(&self.db, &m, &seats, caller).await?;
        Ok((m, seats, access))
    }

    /// The error for a caller without a seat who asks to act in a match:
    /// `not_seated`, or, for a private match it does not know of, the unknown
    /// match's 404.
    pub async fn not_seated(
        &self,
        db: &impl ConnectionTrait,
        m: &matches::Model,
        seats: &[match_seats::Model],
        me: Uuid,
    ) -> Error {
        if let Err(e) = self.require_known(db, m, seats, me).await {
            return e;
        }
        Error::forbidden("not_seated", "You do not hold a seat in this match.")
    }

    /// Refuses with the unknown match's 404 a caller a private match does not
    /// exist for; anybody else passes.
    pub async fn require_known(
        &self,
        db: &impl ConnectionTrait,
        m: &matches::Model,
        seats: &[match_seats::Model],
        me: Uuid,
    ) -> Result<()> {
        if m.visibility == PRIVATE {
            let role = self.role(db, m, seats, Some(me)).await?;
            if !role.knows() && role != Role::Admin {
                return Err(not_found());
            }
        }
        Ok(())
    }

    /// Refuses anybody but the owner of a waiting match (and, for a private
    /// match, answers a stranger that there is none).
    pub async fn require_waiting_owner(
        &self,
        tx: &DatabaseTransaction,
        m: &matches::Model,
        me: &AuthenticatedPlayer,
    ) -> Result<()> {
        if m.owner_id != Some(me.id) {
            let seats = store::matches::seats_of(tx, m.id).await?;
            self.require_known(tx, m, &seats, me.id).await?;
            return Err(Error::forbidden(
                "not_owner",
                "Only the match's owner may do this.",
            ));
        }
        if m.status != WAITING {
            return Err(Error::conflict(
                "match_not_waiting",
                "This match is no longer waiting for players.",
            ));
        }
        Ok(())
    }

    /// Whether the player may moderate (is an admin). Call it with the request's
    /// player and refuse with 403 `not_admin` when it answers false. One
    /// primary-key read, never cached: a revoked role counts at once.
    pub async fn is_admin(&self, me: &AuthenticatedPlayer) -> Result<bool> {
        self.is_admin_id(&self.db, me.id).await
    }

    async fn is_admin_id(&self, db: &impl ConnectionTrait, id: Uuid) -> Result<bool> {
        Ok(store::auth::credentials_by_id(db, id)
            .await?
            .is_some_and(|p| p.role == ROLE_ADMIN && p.disabled_at.is_none() && !p.is_bot))
    }

    /// What anybody, signed in or not, may have of `m` (no query: nobody's
    /// role is asked for).
    pub fn anonymous(&self, m: &matches::Model) -> Result<Access> {
        Access::decide(
            Role::Anonymous,
            Phase::of(&m.status),
            Openness::of(m),
            false,
        )
    }

    /// Which matches a list shows the reader: the public ones, and its own
    /// (owned or seated) whatever their visibility.
    pub fn listing(&self, reader: Option<Uuid>) -> store::matches::Listed {
        store::matches::Listed::For(reader)
    }

    /// Which matches the lobby stream tells of: what a list shows anybody (the
    /// public ones). It is the same for every reader, which is what lets one
    /// read feed every lobby stream of a replica.
    pub fn lobby(&self) -> store::matches::Listed {
        self.listing(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLES: [Role; 6] = [
        Role::Seat(0),
        Role::Owner,
        Role::Invitee,
        Role::Admin,
        Role::Spectator,
        Role::Anonymous,
    ];
    const PHASES: [Phase; 3] = [Phase::Waiting, Phase::Active, Phase::Over];

    fn open(private: bool, spectators: bool) -> Openness {
        Openness {
            private,
            spectators,
        }
    }

    /// For each openness (private, spectators): for each phase, for each role in
    /// ROLES order, what reading the match answers.
    type ReadTable = [((bool, bool), [[&'static str; 6]; 3]); 4];

    /// What a refusal says: its code, or "read" when the match may be read.
    fn reads(role: Role, phase: Phase, o: Openness) -> &'static str {
        match Access::decide(role, phase, o, role == Role::Owner) {
            Ok(_) => "read",
            Err(e) => e.code(),
        }
    }

    #[test]
    fn who_may_read_a_match_by_its_openness_and_phase() {
        // (private, spectators) → for each phase, for each role in ROLES order.
        let table: ReadTable = [
            ((false, true), [["read"; 6]; 3]),
            (
                (false, false),
                [
                    ["read"; 6],
                    [
                        "read",
                        "read",
                        "read",
                        "read",
                        "spectators_not_allowed",
                        "spectators_not_allowed",
                    ],
                    ["read"; 6],
                ],
            ),
            (
                (true, true),
                [[
                    "read",
                    "read",
                    "read",
                    "read",
                    "match_not_found",
                    "match_not_found",
                ]; 3],
            ),
            (
                (true, false),
                [[
                    "read",
                    "read",
                    "read",
                    "read",
                    "match_not_found",
                    "match_not_found",
                ]; 3],
            ),
        ];
        for ((private, spectators), by_phase) in table {
            for (phase, row) in PHASES.iter().zip(by_phase) {
                for (role, expected) in ROLES.iter().zip(row) {
                    assert_eq!(
                        reads(*role, *phase, open(private, spectators)),
                        expected,
                        "{role:?} {phase:?} private={private} spectators={spectators}"
                    );
                }
            }
        }
    }

    fn a_move(seat: i32, revealed: bool, replaced: bool) -> moves::Model {
        moves::Model {
            id: 1,
            match_id: Uuid::nil(),
            step: 0,
            seat,
            player_id: None,
            action: "{}".into(),
            public_action: None,
            revealed,
            completes_step: false,
            version_after: 1,
            created_at: chrono::DateTime::from_timestamp(0, 0).expect("epoch"),
            idempotency_key: None,
            private_until_end: false,
            author: None,
            nonce: None,
            commitment: None,
            replaced,
        }
    }

    /// Seat 0's moves, as each viewer sees them while the match is played and
    /// once it is over.
    #[test]
    fn who_sees_a_move_whole() {
        use MoveShown::{Sealed, Whole};
        // (revealed, replaced) → for Active and Over, for each role in ROLES order.
        let table = [
            (
                (false, false),
                [[Whole, Sealed, Sealed, Sealed, Sealed, Sealed], [Whole; 6]],
            ),
            ((true, false), [[Whole; 6], [Whole; 6]]),
            (
                (false, true),
                [[Whole, Sealed, Sealed, Sealed, Sealed, Sealed], [Whole; 6]],
            ),
            (
                (true, true),
                [[Whole, Sealed, Sealed, Sealed, Sealed, Sealed], [Whole; 6]],
            ),
        ];
        for ((revealed, replaced), by_phase) in table {
            let mv = a_move(0, revealed, replaced);
            for (phase, row) in [Phase::Active, Phase::Over].iter().zip(by_phase) {
                for (role, expected) in ROLES.iter().zip(row) {
                    let a = Access::decide(*role, *phase, open(false, true), false)
                        .expect("an open match reads");
                    assert_eq!(
                        a.move_shown(&mv),
                        expected,
                        "{role:?} {phase:?} revealed={revealed} replaced={replaced}"
                    );
                }
            }
        }
        // Another seat's move is sealed to seat 0 until it is revealed.
        let a =
            Access::decide(Role::Seat(0), Phase::Active, open(false, true), false).expect("reads");
        assert_eq!(a.move_shown(&a_move(1, false, false)), Sealed);
        assert_eq!(a.move_shown(&a_move(1, true, false)), Whole);
        assert_eq!(a.move_shown(&a_move(1, true, true)), Sealed);
    }

    /// Events addressed to seat 1: whom they reach, in every phase.
    #[test]
    fn who_sees_an_event_and_the_same_rule_scopes_the_queries() {
        for phase in PHASES {
            for role in ROLES.iter().copied().chain([Role::Seat(1)]) {
                let a = Access::decide(role, phase, open(false, true), false).expect("reads");
                let to_seat_1 = a.event_shown(Some(1));
                assert_eq!(to_seat_1, role == Role::Seat(1), "{role:?} {phase:?}");
                assert!(a.event_shown(None), "public events reach everybody");
                assert_eq!(a.events().seat == Some(1), to_seat_1, "{role:?} {phase:?}");
                assert_eq!(a.events(), event_scope(a.seat()));
            }
        }
    }

    /// The setup's secrets once the match is over, the join code to its owner.
    #[test]
    fn who_sees_the_seed_the_final_state_and_the_join_code() {
        for phase in PHASES {
            for role in ROLES {
                for owner in [false, true] {
                    let a = Access::decide(role, phase, open(false, true), owner).expect("reads");
                    assert_eq!(a.shows_secrets_of_setup(), phase == Phase::Over);
                    assert_eq!(a.shows_join_code(), owner);
                    assert_eq!(
                        a.viewer(),
                        if role == Role::Seat(0) {
                            Viewer::Seat(0)
                        } else {
                            Viewer::Spectator
                        }
                    );
                }
            }
        }
    }
}
