//! Deleting one's own account (see docs/community.md, "Deleting an account").
//!
//! The account's row stays, so that every match it played keeps its seats,
//! moves, results and rating history; what identified the person goes: the
//! name becomes `deleted.<12 hex digits>`, the password and every credential
//! stop working, and the old name stays reserved (as a hash) so that nobody
//! can take it over and be mistaken for the person who left.

use std::sync::Arc;

use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::service::accounts::{Accounts, retired_key};
use crate::service::clock::Clock;
use crate::service::clubs::Clubs;
use crate::service::error::{Error, Result};
use crate::service::folds::Folds;
use crate::service::hub::Hub;
use crate::service::lifecycle::{ACTIVE, WAITING};
use crate::service::lobby::Lobby;
use crate::service::presence::Presence;
use crate::service::timing::FORFEITED;
use crate::service::tournaments::Tournaments;
use crate::service::tx::transaction;
use crate::store;

/// Deleting one's own account.
pub struct Deletion {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    hub: Arc<Hub>,
    accounts: Arc<Accounts>,
    lobby: Arc<Lobby>,
    presence: Arc<Presence>,
    clubs: Arc<Clubs>,
    tournaments: Arc<Tournaments>,
    folds: Arc<Folds>,
}

impl Deletion {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        hub: Arc<Hub>,
        accounts: Arc<Accounts>,
        lobby: Arc<Lobby>,
        presence: Arc<Presence>,
        clubs: Arc<Clubs>,
        tournaments: Arc<Tournaments>,
        folds: Arc<Folds>,
    ) -> Self {
        Self {
            db,
            clock,
            hub,
            accounts,
            lobby,
            presence,
            clubs,
            tournaments,
            folds,
        }
    }
}

/// The name a deleted account is shown under: not a name anyone can register
/// (names have no dots), distinct per account.
fn anonymous_name(id: Uuid) -> String {
    let hex = id.simple().to_string();
    format!("deleted.{}", &hex[hex.len() - 12..])
}

impl Deletion {
    /// Deletes the caller's account after checking its password: resigns its
    /// seats in active matches and leaves (or, owning one nobody else sits
    /// in, cancels) its waiting ones, then anonymises the row and removes what
    /// only served it. Every credential of the account is refused from then
    /// on, on every replica.
    pub async fn delete_account(
        &self,
        me: &AuthenticatedPlayer,
        password: &str,
    ) -> Result<(), Error> {
        let found = store::auth::credentials_by_id(&self.db, me.id)
            .await?
            .filter(|p| p.deleted_at.is_none())
            .ok_or_else(|| {
                Error::unauthorized("invalid_token", "The player does not exist.")
                    .arg("reason", "unknown_player")
            })?;
        if !self
            .accounts
            .passwords
            .verify(password, &found.password_hash)
            .await?
        {
            return Err(Error::forbidden("wrong_password", "The password is wrong."));
        }
        // The tournaments first, each under its lock as a withdrawal is, so
        // that no round seats the account once it has left its matches; then
        // the matches. Should this stop half-way, the account still stands
        // and deleting it again finishes the work.
        for id in store::tournaments::open_tournaments_of(&self.db, me.id).await? {
            match self.tournaments.withdraw_from_tournament(me, id).await {
                Ok(_) => {}
                // It ended or the entry went meanwhile: nothing left to do.
                Err(e) if e.is_conflict() => {}
                Err(e) => return Err(e),
            }
        }
        for id in store::deletion::open_matches_of(&self.db, me.id).await? {
            self.leave_for_deletion(me, id).await?;
        }
        // Its finished matches' ratings first, so none comes back once the
        // account's ratings are gone.
        self.folds.settle_finishes().await?;
        let now = self.clock.now();
        let name = anonymous_name(me.id);
        let key = retired_key(&found.name_key);
        transaction!(&self.db, |tx| {
            if !store::deletion::anonymise_player(tx, me.id, &name, &key, now).await? {
                return Err(
                    Error::unauthorized("invalid_token", "The player does not exist.")
                        .arg("reason", "unknown_player"),
                );
            }
            store::auth::revoke_all_api_tokens(tx, me.id, now).await?;
            store::deletion::remove_account_leftovers(tx, me.id, now).await?;
            store::deletion::erase_messages_of(tx, me.id, now).await?;
            self.clubs.leave_clubs_for_deletion(tx, me.id).await?;
            Ok::<_, Error>(())
        })?;
        self.accounts.credentials.clear();
        self.accounts.forget_player(Some(me.id));
        self.hub.credentials_changed(me.id);
        tracing::info!(player.id = %me.id, "account deleted");
        Ok(())
    }

    /// Takes the deleted account out of one match as the player could have:
    /// a resignation while it is active, leaving it while it waits (its owner
    /// passing to the next person seated), cancelling a waiting match it owns
    /// without a seat. A match that moved on meanwhile (it finished, or the
    /// seat already forfeited) needs nothing.
    async fn leave_for_deletion(&self, me: &AuthenticatedPlayer, id: Uuid) -> Result<(), Error> {
        let Some(m) = store::matches::match_by_id(&self.db, id).await? else {
            return Ok(());
        };
        let seats = store::matches::seats_of(&self.db, id).await?;
        let seat = seats.iter().find(|s| s.player_id == me.id);
        let done = match (m.status.as_str(), seat) {
            (ACTIVE, Some(s)) if s.presence != FORFEITED => self.presence.resign(me, id).await,
            (WAITING, Some(_)) => self.lobby.leave_match(me, id).await,
            (WAITING, None) if m.owner_id == Some(me.id) => self.lobby.cancel_match(me, id).await,
            _ => return Ok(()),
        };
        match done {
            Ok(_) => Ok(()),
            // Raced with the match's own progress: it no longer holds the seat.
            Err(e) if e.is_conflict() => Ok(()),
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_retired_key_fits_the_column_and_no_name_can_have_it() {
        let k = retired_key("alice");
        assert_eq!(k.len(), 32);
        assert!(k.starts_with('~'));
        assert_eq!(k, retired_key("alice"));
        assert_ne!(k, retired_key("alicf"));
        let n = anonymous_name(Uuid::now_v7());
        assert!(n.starts_with("deleted.") && n.len() == 20);
    }
}
