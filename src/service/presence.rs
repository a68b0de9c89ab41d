//! A seat's own say about its presence: resigning (a forfeit) and returning after
//! a bot stood in for it; what a seat may give another: more time; and a
//! player's vacation, which stops the clocks of every seat it holds.

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use sea_orm::DatabaseConnection;
use serde_json::json;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::games::{Event, Progress};
use crate::service::clock::Clock;
use crate::service::commits::Commits;
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::lifecycle::{ACTIVE, WAITING, forfeited_seats, not_found, record_events};
use crate::service::models::{MatchResponse, VacationResponse, VacationSpan};
use crate::service::outcome::ends_early;
use crate::service::play::Play;
use crate::service::reads::Reads;
use crate::service::records::Records;
use crate::service::timing::{ABSENT, Bank, FORFEITED, PRESENT, extend, extended_event, set_away};
use crate::service::tx::transaction;
use crate::service::visibility::Policy;
use crate::store;
use crate::store::entities::vacations;

/// A seat's own say about its presence: resigning and returning.
pub struct Presence {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    records: Arc<Records>,
    play: Arc<Play>,
    commits: Arc<Commits>,
    policy: Arc<Policy>,
    reads: Arc<Reads>,
    games: Arc<Games>,
    vacation_days_per_year: u64,
}

/// The most one extension gives, in seconds (a week).
pub const MAX_EXTENSION_SECONDS: i64 = 7 * 24 * 3600;

/// What [`Presence`] is built from.
pub struct PresenceParts {
    pub db: DatabaseConnection,
    pub clock: Arc<dyn Clock>,
    pub records: Arc<Records>,
    pub play: Arc<Play>,
    pub commits: Arc<Commits>,
    pub policy: Arc<Policy>,
    pub reads: Arc<Reads>,
    pub games: Arc<Games>,
    /// Days of vacation a player may take in any 365 days.
    pub vacation_days_per_year: u64,
}

impl Presence {
    pub fn new(p: PresenceParts) -> Self {
        Self {
            db: p.db,
            clock: p.clock,
            records: p.records,
            play: p.play,
            commits: p.commits,
            policy: p.policy,
            reads: p.reads,
            games: p.games,
            vacation_days_per_year: p.vacation_days_per_year,
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

    /// Gives seat `to`, which owes a move, `seconds` more: into its bank, or
    /// on top of its limit for the step. Any other seated player of the match
    /// may give it (as a chess player adds time to the opponent's clock); a
    /// seat cannot give itself time.
    pub async fn extend_seat(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        to: i64,
        seconds: i64,
    ) -> Result<MatchResponse, Error> {
        if !(1..=MAX_EXTENSION_SECONDS).contains(&seconds) {
            return Err(Error::unprocessable(
                "invalid_extension",
                format!(
                    "An extension is a whole number of seconds from 1 to {MAX_EXTENSION_SECONDS} (a week)."
                ),
            )
            .arg("max", MAX_EXTENSION_SECONDS));
        }
        let changed = transaction!(&self.db, |tx| {
            let mut m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            let mut seats = store::matches::seats_of(tx, id).await?;
            let Some(giver) = seats.iter().find(|s| s.player_id == me.id).map(|s| s.seat) else {
                return Err(self.policy.not_seated(tx, &m, &seats, me.id).await);
            };
            if m.status != ACTIVE {
                return Err(Error::conflict(
                    "match_not_active",
                    format!("This match is {}: no clock runs.", m.status),
                )
                .arg("status", m.status.clone()));
            }
            if m.move_time_limit.is_none() && Bank::of(&m).is_none() {
                return Err(Error::conflict(
                    "no_clock",
                    "This match has no clock: there is no time to give.",
                ));
            }
            let Some(i) = seats.iter().position(|s| i64::from(s.seat) == to) else {
                return Err(Error::unprocessable(
                    "invalid_extension",
                    format!("The match has no seat {to}."),
                )
                .arg("seat", to));
            };
            if seats[i].seat == giver {
                return Err(Error::conflict(
                    "own_seat",
                    "A seat cannot give itself time; another seat of the match may.",
                ));
            }
            let state = self
                .records
                .state_of(&m)
                .await?
                .ok_or_else(|| Error::internal("active match without state"))?;
            let game = self.games.of(&m.game)?;
            let owes = matches!(game.progress(&state)?, Progress::Active(p) if p.awaiting.contains(&(seats[i].seat as usize)));
            if !owes || seats[i].bot.is_some() || seats[i].presence == FORFEITED {
                return Err(Error::conflict(
                    "seat_not_awaited",
                    format!("Seat {to} owes no move of its own now: time is given to a seat that is thinking."),
                )
                .arg("seat", to));
            }
            let now = self.clock.now();
            extend(&m, &mut seats[i], seconds * 1000);
            store::matches::update_seat(tx, seats[i].clone()).await?;
            m.version += 1;
            m.updated_at = now;
            let rule = game.step_time_limit(&state)?;
            let event = extended_event(&m, &seats[i], rule, seconds, Some(giver));
            record_events(tx, &m, &[event], now).await?;
            self.play.schedule(&mut m, &seats, &state)?;
            store::matches::update_match(tx, m.clone()).await?;
            tracing::info!(match.id = %id, seat = to, by = giver, seconds, "seat given more time");
            Ok::<_, Error>(m)
        })?;
        self.commits.committed(&changed);
        self.reads.get_match(Some(me.id), id).await
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

/// The window a vacation allowance is counted over.
const YEAR: Duration = Duration::days(365);

/// Whole days of a vacation: a day begun counts whole.
fn days_of(v: &vacations::Model) -> u64 {
    let secs = (v.ends_at - v.starts_at).num_seconds().max(0) as u64;
    secs.div_ceil(86_400)
}

impl Presence {
    /// The caller's vacation: the one under way, if any, and the allowance.
    pub async fn vacation(&self, me: &AuthenticatedPlayer) -> Result<VacationResponse, Error> {
        let now = self.clock.now();
        let taken = store::vacations::since(&self.db, me.id, now - YEAR).await?;
        Ok(self.vacation_response(&taken, now))
    }

    fn vacation_response(
        &self,
        taken: &[vacations::Model],
        now: DateTime<Utc>,
    ) -> VacationResponse {
        let current = taken
            .iter()
            .find(|v| v.starts_at <= now && v.ends_at > now)
            .map(|v| VacationSpan {
                starts_at: v.starts_at,
                ends_at: v.ends_at,
            });
        let used: u64 = taken
            .iter()
            .filter(|v| v.starts_at > now - YEAR)
            .map(days_of)
            .sum();
        VacationResponse {
            current,
            days_per_year: self.vacation_days_per_year,
            days_used: used,
            days_left: self.vacation_days_per_year.saturating_sub(used),
        }
    }

    /// Starts the caller's vacation of `days` days now: every clock of its
    /// seats stands until it ends or the player comes back.
    pub async fn start_vacation(
        &self,
        me: &AuthenticatedPlayer,
        days: i64,
    ) -> Result<VacationResponse, Error> {
        if self.vacation_days_per_year == 0 {
            return Err(Error::conflict(
                "vacations_off",
                "This server gives no vacations.",
            ));
        }
        let now = self.clock.now();
        let taken = store::vacations::since(&self.db, me.id, now - YEAR).await?;
        let status = self.vacation_response(&taken, now);
        if let Some(current) = &status.current {
            return Err(Error::conflict(
                "on_vacation",
                format!(
                    "You are on vacation until {}: come back first to take another.",
                    current.ends_at.to_rfc3339()
                ),
            )
            .arg("until", current.ends_at.to_rfc3339()));
        }
        let left = i64::try_from(status.days_left).unwrap_or(i64::MAX);
        if days < 1 || days > left {
            return Err(Error::unprocessable(
                "invalid_vacation",
                format!(
                    "A vacation is a whole number of days from 1 to the {left} you have left of {} in any 365 days.",
                    self.vacation_days_per_year
                ),
            )
            .arg("days_left", left));
        }
        let until = now + Duration::days(days);
        store::vacations::insert(
            &self.db,
            vacations::Model {
                id: Uuid::now_v7(),
                player_id: me.id,
                starts_at: now,
                ends_at: until,
            },
        )
        .await?;
        tracing::info!(player.id = %me.id, days, "vacation started");
        self.apply_vacation(me.id, now, Some(until)).await?;
        self.vacation(me).await
    }

    /// Ends the caller's vacation now: its clocks run again.
    pub async fn end_vacation(&self, me: &AuthenticatedPlayer) -> Result<VacationResponse, Error> {
        let now = self.clock.now();
        let taken = store::vacations::since(&self.db, me.id, now).await?;
        let Some(current) = taken.iter().find(|v| v.starts_at <= now) else {
            return Err(Error::conflict(
                "not_on_vacation",
                "You are not on vacation.",
            ));
        };
        store::vacations::end_at(&self.db, current.id, now).await?;
        tracing::info!(player.id = %me.id, "vacation ended early");
        self.apply_vacation(me.id, now, None).await?;
        self.vacation(me).await
    }

    /// Writes the vacation onto each seat the player holds in a waiting or
    /// active match (`until` None: it ends now), each match in a transaction
    /// of its own, one shard each on a distributed database.
    async fn apply_vacation(
        &self,
        player: Uuid,
        now: DateTime<Utc>,
        until: Option<DateTime<Utc>>,
    ) -> Result<(), Error> {
        for id in store::vacations::open_matches_of(&self.db, player).await? {
            let changed = transaction!(&self.db, |tx| {
                let Some(mut m) = store::matches::lock_match(tx, id).await? else {
                    return Ok::<_, Error>(None);
                };
                if m.status != ACTIVE && m.status != WAITING {
                    return Ok(None);
                }
                let mut seats = store::matches::seats_of(tx, id).await?;
                let Some(i) = seats.iter().position(|s| s.player_id == player) else {
                    return Ok(None);
                };
                let event = match until {
                    Some(until) => {
                        set_away(&m, &mut seats[i], now, until);
                        Event::public(
                            "seat_on_vacation",
                            json!({ "seat": seats[i].seat, "until": until }),
                        )
                    }
                    None => {
                        if seats[i].away_until.is_none_or(|u| u <= now) {
                            return Ok(None);
                        }
                        seats[i].away_until = Some(now);
                        Event::public("seat_back_from_vacation", json!({ "seat": seats[i].seat }))
                    }
                };
                store::matches::update_seat(tx, seats[i].clone()).await?;
                m.version += 1;
                if m.status == ACTIVE {
                    // A waiting match keeps its `updated_at`: a vacation is not
                    // somebody joining or leaving, which keeps a lobby fresh.
                    m.updated_at = now;
                    record_events(tx, &m, &[event], now).await?;
                    let state = self
                        .records
                        .state_of(&m)
                        .await?
                        .ok_or_else(|| Error::internal("active match without state"))?;
                    self.play.schedule(&mut m, &seats, &state)?;
                }
                store::matches::update_match(tx, m.clone()).await?;
                Ok(Some(m))
            })?;
            if let Some(m) = changed {
                self.commits.committed(&m);
            }
        }
        Ok(())
    }
}
