//! A seat's own say about its presence: resigning (a forfeit) and returning after
//! a bot stood in for it.

use std::sync::Arc;

use sea_orm::DatabaseConnection;
use serde_json::json;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::games::Event;
use crate::service::clock::Clock;
use crate::service::commits::Commits;
use crate::service::error::{Error, Result};
use crate::service::lifecycle::{ACTIVE, WAITING, forfeited_seats, not_found, record_events};
use crate::service::models::MatchResponse;
use crate::service::outcome::ends_early;
use crate::service::play::Play;
use crate::service::reads::Reads;
use crate::service::records::Records;
use crate::service::timing::{ABSENT, FORFEITED, PRESENT};
use crate::service::tx::transaction;
use crate::service::visibility::Policy;
use crate::store;

/// A seat's own say about its presence: resigning and returning.
pub struct Presence {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    records: Arc<Records>,
    play: Arc<Play>,
    commits: Arc<Commits>,
    policy: Arc<Policy>,
    reads: Arc<Reads>,
}

impl Presence {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        records: Arc<Records>,
        play: Arc<Play>,
        commits: Arc<Commits>,
        policy: Arc<Policy>,
        reads: Arc<Reads>,
    ) -> Self {
        Self {
            db,
            clock,
            records,
            play,
            commits,
            policy,
            reads,
        }
    }
}

impl Presence {
    /// Forfeits the caller's seat: it plays null moves to the end and ranks last;
    /// when fewer than two seats are left in play, the match ends now.
    pub async fn resign(&self, me: &AuthenticatedPlayer, id: Uuid) -> Result<MatchResponse, Error> {
        self.set_presence(me, id, FORFEITED).await
    }

    /// Ends the caller's absence: its own deadlines apply again, and no bot moves
    /// for it any more.
    pub async fn return_to_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, Error> {
        self.set_presence(me, id, PRESENT).await
    }

    async fn set_presence(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        to: &'static str,
    ) -> Result<MatchResponse, Error> {
        let changed = transaction!(&self.db, |tx| {
            let mut m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            let mut seats = store::matches::seats_of(tx, id).await?;
            let Some(i) = seats.iter().position(|s| s.player_id == me.id) else {
                return Err(self.policy.not_seated(tx, &m, &seats, me.id).await);
            };
            if m.status == WAITING {
                return Err(Error::conflict(
                    "match_not_active",
                    "This match has not started: leave it instead.",
                )
                .arg("status", m.status.clone()));
            }
            if m.status != ACTIVE {
                return Err(Error::conflict(
                    "match_not_active",
                    format!("This match is {}.", m.status),
                )
                .arg("status", m.status.clone()));
            }
            if seats[i].presence == FORFEITED {
                return Err(Error::conflict(
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
            store::matches::update_seat(tx, seats[i].clone()).await?;
            m.version += 1;
            m.updated_at = now;
            record_events(tx, &m, &[event], now).await?;
            let state = self
                .records
                .state_of(&m)
                .await?
                .ok_or_else(|| Error::internal("active match without state"))?;
            if to == FORFEITED && ends_early(m.seat_count as usize, &forfeited_seats(&seats)) {
                self.play
                    .finish_if_over(tx, &mut m, &seats, &state, now)
                    .await?;
            }
            self.play.schedule(&mut m, &seats, &state)?;
            store::matches::update_match(tx, m.clone()).await?;
            tracing::info!(match.id = %id, seat, presence = to, "seat presence changed");
            Ok::<_, Error>(Some(m))
        })?;
        if let Some(m) = changed {
            self.commits.committed(&m);
        }
        self.reads.get_match(Some(me.id), id).await
    }
}
