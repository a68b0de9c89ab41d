//! A seat's own say about its presence: resigning (a forfeit) and returning after
//! a bot stood in for it.

use serde_json::json;
use uuid::Uuid;

use super::Service;
use super::lifecycle::{ACTIVE, WAITING, forfeited_seats, not_found, record_events};
use super::models::MatchResponse;
use super::outcome::ends_early;
use super::timing::{ABSENT, FORFEITED, PRESENT};
use super::with_retry;
use crate::auth::AuthenticatedPlayer;
use crate::errors::ApiError;
use crate::games::Event;
use crate::store;

impl Service {
    /// Forfeits the caller's seat: it plays null moves to the end and ranks last;
    /// when fewer than two seats are left in play, the match ends now.
    pub async fn resign(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, ApiError> {
        self.set_presence(me, id, FORFEITED).await
    }

    /// Ends the caller's absence: its own deadlines apply again, and no bot moves
    /// for it any more.
    pub async fn return_to_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, ApiError> {
        self.set_presence(me, id, PRESENT).await
    }

    async fn set_presence(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        to: &'static str,
    ) -> Result<MatchResponse, ApiError> {
        let changed = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
            let mut seats = store::seats_of(&tx, id).await?;
            let Some(i) = seats.iter().position(|s| s.player_id == me.id) else {
                return Err(self.not_seated(&tx, &m, &seats, me.id).await);
            };
            if m.status == WAITING {
                return Err(ApiError::conflict(
                    "match_not_active",
                    "This match has not started: leave it instead.",
                ));
            }
            if m.status != ACTIVE {
                return Err(ApiError::conflict(
                    "match_not_active",
                    format!("This match is {}.", m.status),
                ));
            }
            if seats[i].presence == FORFEITED {
                return Err(ApiError::conflict(
                    "seat_forfeited",
                    "Your seat already forfeited this match.",
                ));
            }
            let seat = seats[i].seat;
            let now = self.clock.now();
            let event = match (to, seats[i].presence.as_str()) {
                (FORFEITED, _) => Event::public(
                    "seat_forfeited",
                    json!({ "seat": seat, "reason": "resigned" }),
                ),
                (PRESENT, ABSENT) => {
                    Event::public("seat_returned", json!({ "seat": seat, "by": "return" }))
                }
                // Already present: nothing to change.
                _ => return Ok(None),
            };
            seats[i].presence = to.into();
            store::update_seat(&tx, seats[i].clone()).await?;
            m.version += 1;
            m.updated_at = now;
            record_events(&tx, &m, &[event], now).await?;
            let state = self
                .state_of(&m)
                .await?
                .ok_or_else(|| ApiError::internal("active match without state"))?;
            if to == FORFEITED && ends_early(m.seat_count as usize, &forfeited_seats(&seats)) {
                self.finish_if_over(&tx, &mut m, &seats, &state, now)
                    .await?;
            }
            self.schedule(&mut m, &seats, &state)?;
            store::update_match(&tx, m.clone()).await?;
            tx.commit().await?;
            tracing::info!(match.id = %id, seat, presence = to, "seat presence changed");
            Ok::<_, ApiError>(Some(m))
        })?;
        if let Some(m) = changed {
            self.committed(&m);
        }
        self.get_match(Some(me.id), id).await
    }
}
