//! What one account may hold open at once: waiting matches it owns,
//! tournaments it created that are registering or running, clubs it owns, and
//! invitations it sent that still stand. The lobby, the club directory and the
//! tournament list are read by everybody; one script must not fill them.
//!
//! Counted in the database, under a lock of the account's row, in the
//! transaction that creates: two requests of one account, through any
//! replicas, take turns, so a cap is never passed by a race, and a refusal
//! creates nothing. Admins are exempt, and so is what the server creates by
//! itself: a simulation's players (the server's credential), bot accounts;
//! a tournament's rounds never come here.

use std::sync::Arc;

use sea_orm::{ConnectionTrait, DatabaseConnection, DatabaseTransaction};
use uuid::Uuid;

use crate::auth::{AuthenticatedPlayer, Credential};
use crate::config;
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::visibility::ROLE_ADMIN;
use crate::store;
use crate::store::entities::credentials;

/// What a request is about to add to what its account holds open.
#[derive(Debug, Clone, Copy, Default)]
pub struct Adding {
    /// Matches that will wait for players (one that starts at once does not).
    pub waiting_matches: u32,
    pub tournaments: u32,
    pub clubs: u32,
    /// New standing invitations (one that replaces the sender's own does not
    /// add).
    pub invitations: u32,
}

/// The caps, and the account checks behind them.
pub struct Caps {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    caps: config::Caps,
}

/// Whether an account is held to no cap and no creation rate: an admin (a
/// moderator sets up the server's own events), or a bot account.
fn exempt(account: &credentials::Model) -> bool {
    account.is_bot || (account.role == ROLE_ADMIN && account.disabled_at.is_none())
}

impl Caps {
    pub fn new(db: DatabaseConnection, clock: Arc<dyn Clock>, caps: config::Caps) -> Self {
        Self { db, clock, caps }
    }

    /// Whether the player is exempt from the caps and the creation rates (one
    /// primary-key read, never cached: a revoked role counts at once).
    pub async fn exempt(&self, player: Uuid) -> Result<bool> {
        Ok(store::auth::credentials_by_id(&self.db, player)
            .await?
            .is_some_and(|a| exempt(&a)))
    }

    /// Locks the caller's account and refuses (409, nothing written) when
    /// `adding` would take it past a cap. An account that is not there is let
    /// through: the caller refuses it as it would without caps.
    pub async fn check_locked(
        &self,
        tx: &DatabaseTransaction,
        me: &AuthenticatedPlayer,
        adding: Adding,
    ) -> Result<()> {
        // The server acting for a player (a simulation) is held to nothing.
        if matches!(me.credential, Credential::Server) {
            return Ok(());
        }
        let player = me.id;
        let Some(account) = store::auth::lock_credentials(tx, player).await? else {
            return Ok(());
        };
        if exempt(&account) {
            return Ok(());
        }
        for (held, adding) in [
            (Held::WaitingMatches, adding.waiting_matches),
            (Held::Tournaments, adding.tournaments),
            (Held::Clubs, adding.clubs),
            (Held::Invitations, adding.invitations),
        ] {
            let cap = self.cap(held);
            // Counted only when something is added under a cap.
            if cap == 0 || adding == 0 {
                continue;
            }
            if self.count(tx, held, player).await? + u64::from(adding) > u64::from(cap) {
                return Err(refusal(held, cap));
            }
        }
        Ok(())
    }

    fn cap(&self, held: Held) -> u32 {
        match held {
            Held::WaitingMatches => self.caps.waiting_matches,
            Held::Tournaments => self.caps.open_tournaments,
            Held::Clubs => self.caps.clubs_owned,
            Held::Invitations => self.caps.pending_invitations,
        }
    }

    /// How many of `held` the player has open now.
    async fn count(&self, db: &impl ConnectionTrait, held: Held, player: Uuid) -> Result<u64> {
        Ok(match held {
            Held::WaitingMatches => store::matches::count_waiting_owned(db, player).await?,
            Held::Tournaments => store::tournaments::count_open_owned(db, player).await?,
            Held::Clubs => store::clubs::count_owned(db, player).await?,
            Held::Invitations => {
                let now = self.clock.now();
                store::community::count_standing_sent(db, player, now).await?
                    + store::clubs::count_invitations_sent(db, player).await?
            }
        })
    }
}

/// What a cap counts.
#[derive(Debug, Clone, Copy)]
enum Held {
    WaitingMatches,
    Tournaments,
    Clubs,
    Invitations,
}

/// The refusal past a cap: a conflict with the account's state (waiting frees
/// nothing, so not a 429), its own code, and the cap in the sentence.
fn refusal(held: Held, cap: u32) -> Error {
    match held {
        Held::WaitingMatches => Error::conflict(
            "too_many_waiting_matches",
            format!(
                "An account may own at most {cap} matches waiting for players; start or cancel one of yours first."
            ),
        ),
        Held::Tournaments => Error::conflict(
            "too_many_tournaments",
            format!(
                "An account may have at most {cap} tournaments of its own registering or running; cancel one or let one finish first."
            ),
        ),
        Held::Clubs => Error::conflict(
            "too_many_clubs",
            format!("An account may own at most {cap} clubs; hand one over first."),
        ),
        Held::Invitations => Error::conflict(
            "too_many_invitations",
            format!(
                "An account may have at most {cap} invitations waiting for an answer; withdraw some or wait for answers first."
            ),
        ),
    }
    .arg("max", cap)
}
