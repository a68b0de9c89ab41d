//! Deleting one's own account (see docs/community.md, "Deleting an account").
//!
//! The account's row stays, so that every match it played keeps its seats,
//! moves, results and rating history; what identified the person goes: the
//! name becomes `deleted.<12 hex digits>`, the password and every credential
//! stop working, and the old name stays reserved (as a hash) so that nobody
//! can take it over and be mistaken for the person who left.

use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::lifecycle::{ACTIVE, WAITING};
use super::timing::FORFEITED;
use super::{Service, with_retry};
use crate::auth::AuthenticatedPlayer;
use crate::errors::ApiError;
use crate::store;

/// The name key a deleted account holds in place of its name's: a character
/// no name has, then the start of the name key's SHA-256 (the column holds 32).
pub(super) fn retired_key(name_key: &str) -> String {
    let digest = hex::encode(Sha256::digest(name_key.as_bytes()));
    format!("~{}", &digest[..31])
}

/// The name a deleted account is shown under: not a name anyone can register
/// (names have no dots), distinct per account.
fn anonymous_name(id: Uuid) -> String {
    let hex = id.simple().to_string();
    format!("deleted.{}", &hex[hex.len() - 12..])
}

impl Service {
    /// Deletes the caller's account after checking its password: resigns its
    /// seats in active matches and leaves (or, owning one nobody else sits
    /// in, cancels) its waiting ones, then anonymises the row and removes what
    /// only served it. Every credential of the account is refused from then
    /// on, on every replica.
    pub async fn delete_account(
        &self,
        me: &AuthenticatedPlayer,
        password: &str,
    ) -> Result<(), ApiError> {
        let found = store::credentials_by_id(&self.db, me.id)
            .await?
            .filter(|p| p.deleted_at.is_none())
            .ok_or_else(|| ApiError::unauthorized("invalid_token", "The player does not exist."))?;
        if !self
            .passwords
            .verify(password, &found.password_hash)
            .await?
        {
            return Err(ApiError::forbidden(
                "wrong_password",
                "The password is wrong.",
            ));
        }
        // The tournaments first, each under its lock as a withdrawal is, so
        // that no round seats the account once it has left its matches; then
        // the matches. Should this stop half-way, the account still stands
        // and deleting it again finishes the work.
        for id in store::open_tournaments_of(&self.db, me.id).await? {
            match self.withdraw_from_tournament(me, id).await {
                Ok(_) => {}
                // It ended or the entry went meanwhile: nothing left to do.
                Err(e) if e.status == actix_web::http::StatusCode::CONFLICT => {}
                Err(e) => return Err(e),
            }
        }
        for id in store::open_matches_of(&self.db, me.id).await? {
            self.leave_for_deletion(me, id).await?;
        }
        // Its finished matches' ratings first, so none comes back once the
        // account's ratings are gone.
        self.settle_finishes().await?;
        let now = self.clock.now();
        let name = anonymous_name(me.id);
        let key = retired_key(&found.name_key);
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            if !store::anonymise_player(&tx, me.id, &name, &key, now).await? {
                return Err(ApiError::unauthorized(
                    "invalid_token",
                    "The player does not exist.",
                ));
            }
            store::revoke_all_api_tokens(&tx, me.id, now).await?;
            store::remove_account_leftovers(&tx, me.id, now).await?;
            store::erase_messages_of(&tx, me.id, now).await?;
            self.leave_clubs_for_deletion(&tx, me.id).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
        self.credentials.clear();
        self.snapshots.forget_player(Some(me.id));
        self.hub.credentials_changed(me.id);
        tracing::info!(player.id = %me.id, "account deleted");
        Ok(())
    }

    /// Takes the deleted account out of one match as the player could have:
    /// a resignation while it is active, leaving it while it waits (its owner
    /// passing to the next person seated), cancelling a waiting match it owns
    /// without a seat. A match that moved on meanwhile (it finished, or the
    /// seat already forfeited) needs nothing.
    async fn leave_for_deletion(&self, me: &AuthenticatedPlayer, id: Uuid) -> Result<(), ApiError> {
        let Some(m) = store::match_by_id(&self.db, id).await? else {
            return Ok(());
        };
        let seats = store::seats_of(&self.db, id).await?;
        let seat = seats.iter().find(|s| s.player_id == me.id);
        let done = match (m.status.as_str(), seat) {
            (ACTIVE, Some(s)) if s.presence != FORFEITED => self.resign(me, id).await,
            (WAITING, Some(_)) => self.leave_match(me, id).await,
            (WAITING, None) if m.owner_id == Some(me.id) => self.cancel_match(me, id).await,
            _ => return Ok(()),
        };
        match done {
            Ok(_) => Ok(()),
            // Raced with the match's own progress: it no longer holds the seat.
            Err(e) if e.status == actix_web::http::StatusCode::CONFLICT => Ok(()),
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
