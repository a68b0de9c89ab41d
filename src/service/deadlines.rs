//! Deadlines: every replica polls for owing seats whose time ran out, and plays
//! for them — each deadline exactly once however many replicas run. Seats held by
//! bots and forfeited seats are due at once, so the same poller plays bots.

use std::sync::Arc;

use sea_orm::{DatabaseConnection, DatabaseTransaction};
use serde_json::{Value, json};

use crate::games::rng::GameRng;
use crate::games::{AnyState, DynGame, Event, Progress};
use crate::service::clock::Clock;
use crate::service::commits::Commits;
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::lifecycle::{ACTIVE, forfeited_seats, record_events};
use crate::service::outcome::ends_early;
use crate::service::play::{Author, Play};
use crate::service::records::Records;
use crate::service::timing::{
    ABSENT, Due, FORFEITED, POLICY_FORFEIT, PRESENT, extend, extended_event, graces_left,
    seat_deadline,
};
use crate::service::tx::transaction;
use crate::store;
use crate::store::entities::{match_seats, matches};

/// Expired deadlines, played for exactly once across replicas.
pub struct Deadlines {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    games: Arc<Games>,
    records: Arc<Records>,
    play: Arc<Play>,
    commits: Arc<Commits>,
}

impl Deadlines {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        games: Arc<Games>,
        records: Arc<Records>,
        play: Arc<Play>,
        commits: Arc<Commits>,
    ) -> Self {
        Self {
            db,
            clock,
            games,
            records,
            play,
            commits,
        }
    }
}

/// How many matches one poll handles before it yields (the next poll goes on).
const MATCHES_PER_POLL: usize = 50;
/// How many moves one match gets per transaction, so that a match of bots only
/// does not hold its lock (or SQLite's write lock) for long; it goes on at once
/// in the next transaction.
const MOVES_PER_TURN: usize = 32;

/// What the poller did for a seat whose deadline passed.
enum Handled {
    /// A move to play for it.
    Move(Value, Author),
    /// A grace extension: its deadline moved on, nothing is played.
    Extended,
    /// Nothing to play (the match ended, or the seat has no move).
    Nothing,
}

/// Whether some awaited seat has a null move to play.
fn progress_possible(game: &dyn DynGame, state: &AnyState) -> Result<bool, Error> {
    let Progress::Active(p) = game.progress(state)? else {
        return Ok(false);
    };
    for seat in p.awaiting {
        if game.null_move(state, seat)?.is_some() {
            return Ok(true);
        }
    }
    Ok(false)
}

impl Deadlines {
    /// Handles the matches whose deadline passed, each in a transaction of its
    /// own; answers how many it handled.
    ///
    /// The due matches are found by a plain read, then claimed one by one by id
    /// (`FOR UPDATE SKIP LOCKED`): a distributed database refuses a row lock over
    /// many shards, and a lock by id goes to one. A match another replica holds is
    /// skipped, and one whose deadline moved meanwhile is left as it is.
    pub async fn expire_deadlines(&self) -> Result<usize, Error> {
        let mut handled = 0;
        while handled < MATCHES_PER_POLL {
            let due =
                store::matches::due_matches(&self.db, self.clock.now(), MATCHES_PER_POLL as u64)
                    .await?;
            if due.is_empty() {
                break;
            }
            let mut claimed = 0;
            for id in due {
                if let Some(m) = self.expire_one(id).await? {
                    claimed += 1;
                    self.commits.committed(&m);
                }
            }
            if claimed == 0 {
                // Everything due is in other replicas' hands (or no longer due).
                break;
            }
            handled += claimed;
        }
        Ok(handled)
    }

    /// Claims match `id` unless another replica holds it, re-checks its deadline
    /// under the lock, and plays every move that is due.
    async fn expire_one(&self, id: uuid::Uuid) -> Result<Option<matches::Model>, Error> {
        let Some((m, seats, state)) = self.expire_locked(id).await? else {
            return Ok(None);
        };
        self.records.keep_written(&m, &seats, state);
        Ok(Some(m))
    }

    /// [`Self::expire_one`]'s transaction: the match, its seats and its state
    /// as it committed them.
    async fn expire_locked(
        &self,
        id: uuid::Uuid,
    ) -> Result<Option<(matches::Model, Vec<match_seats::Model>, Option<AnyState>)>, Error> {
        transaction!(&self.db, |tx| {
            let now = self.clock.now();
            let Some(mut m) = store::matches::try_lock_match(tx, id).await? else {
                return Ok(None);
            };
            if m.status != ACTIVE || m.deadline_at.is_none_or(|at| at > now) {
                // Moved on since it was read. The two are written together, so they
                // agree; should they not, the row's own deadline is the truth.
                store::matches::set_deadline(tx, &m).await?;
                return Ok(None);
            }
            let game = self.games.of(&m.game)?;
            let mut seats = store::matches::seats_of(tx, m.id).await?;
            // Parsed once; each move played below hands on the state it made.
            let mut current = self.records.state_of(&m).await?;
            for _ in 0..MOVES_PER_TURN {
                if m.status != ACTIVE {
                    break;
                }
                let Some(state) = current.clone() else {
                    break;
                };
                let Progress::Active(prompt) = game.progress(&state)? else {
                    break;
                };
                let rule = game.step_time_limit(&state)?;
                let due = prompt.awaiting.iter().find_map(|a| {
                    let i = seats.iter().position(|s| s.seat as usize == *a)?;
                    let (at, why) = seat_deadline(&m, &seats[i], rule)?;
                    (at <= now).then_some((i, why))
                });
                let Some((i, why)) = due else { break };
                let seat = seats[i].seat as usize;
                let (action, author) = match self
                    .play_for(tx, &mut m, &mut seats, i, why, game, &state, rule)
                    .await?
                {
                    Handled::Move(action, author) => (action, author),
                    // Its deadline moved on: any other seat due is next.
                    Handled::Extended => continue,
                    Handled::Nothing => break,
                };
                let player = Some(seats[i].player_id);
                let (row, next) = self
                    .play
                    .apply_locked(tx, &mut m, &mut seats, &state, seat, player, action, author)
                    .await?;
                self.commits.count_move(&m.game, row.completes_step);
                current = Some(next);
            }
            if m.status == ACTIVE {
                let state = current
                    .as_ref()
                    .ok_or_else(|| Error::internal("active match without state"))?;
                self.play.schedule(&mut m, &seats, state)?;
                if m.deadline_at.is_some_and(|at| at <= now) && !progress_possible(game, state)? {
                    // Nothing can be played for the seat (no null move): stop polling it.
                    tracing::warn!(match.id = %m.id, "a due seat has no move to play; deadline dropped");
                    m.deadline_at = None;
                }
            }
            store::matches::update_match(tx, m.clone()).await?;
            Ok(Some((m, seats, current)))
        })
    }

    /// What to do for seat `seats[i]` whose deadline passed: a grace extension
    /// while the seat has one left, or else the timeout policy (absence,
    /// forfeit) and the move played for it; nothing when the match ended
    /// instead or nothing is left to play.
    #[allow(clippy::too_many_arguments)]
    async fn play_for(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        seats: &mut [match_seats::Model],
        i: usize,
        why: Due,
        game: &dyn DynGame,
        state: &AnyState,
        rule: Option<u64>,
    ) -> Result<Handled, Error> {
        let seat = seats[i].seat as usize;
        let now = self.clock.now();
        if why == Due::Player && seats[i].presence == PRESENT && graces_left(m, &seats[i]) > 0 {
            // Counted from the deadline that passed, not from when a poller
            // came by: the seat gets the same grace however late that is.
            let seconds = m.grace_seconds.unwrap_or(0).max(1);
            seats[i].graces_used = Some(seats[i].graces_used.unwrap_or(0) + 1);
            extend(m, &mut seats[i], i64::from(seconds) * 1000);
            store::matches::update_seat(tx, seats[i].clone()).await?;
            m.version += 1;
            let event = extended_event(m, &seats[i], rule, i64::from(seconds), None);
            record_events(tx, m, &[event], now).await?;
            tracing::info!(match.id = %m.id, seat, "deadline passed: grace extension");
            return Ok(Handled::Extended);
        }
        let null = |state: &AnyState| -> Result<Option<(Value, Author)>, Error> {
            Ok(game.null_move(state, seat)?.map(|a| (a, Author::Null)))
        };
        let played = match why {
            // The game's own limit for the step: not the seat's fault.
            Due::Rule => null(state),
            Due::Now if seats[i].presence == FORFEITED => null(state),
            Due::Now => {
                let kind = seats[i].bot.clone().unwrap_or_default();
                self.bot_move(game, &kind, state, seat, null)
            }
            Due::Player if m.timeout_policy.as_deref() == Some(POLICY_FORFEIT) => {
                seats[i].presence = FORFEITED.into();
                store::matches::update_seat(tx, seats[i].clone()).await?;
                m.version += 1;
                let events = [
                    Event::public(
                        "seat_timed_out",
                        json!({ "seat": seat, "policy": POLICY_FORFEIT }),
                    ),
                    Event::public(
                        "seat_forfeited",
                        json!({ "seat": seat, "reason": "timeout" }),
                    ),
                ];
                record_events(tx, m, &events, now).await?;
                tracing::info!(match.id = %m.id, seat, "deadline passed: seat forfeited");
                if ends_early(m.seat_count as usize, &forfeited_seats(seats)) {
                    self.play.finish_if_over(tx, m, seats, state, now).await?;
                    return Ok(Handled::Nothing);
                }
                null(state)
            }
            Due::Player => {
                if seats[i].presence == PRESENT {
                    seats[i].presence = ABSENT.into();
                    store::matches::update_seat(tx, seats[i].clone()).await?;
                    m.version += 1;
                    let out =
                        Event::public("seat_timed_out", json!({ "seat": seat, "policy": "bot" }));
                    record_events(tx, m, &[out], now).await?;
                    tracing::info!(match.id = %m.id, seat, "deadline passed: seat absent");
                }
                // The strongest bot the game has stands in.
                let kind = game.bot_kinds().last().copied().unwrap_or_default();
                self.bot_move(game, kind, state, seat, null)
            }
        }?;
        Ok(played.map_or(Handled::Nothing, |(action, author)| {
            Handled::Move(action, author)
        }))
    }

    /// A bot's move for the seat, with a random generator of its own (never the
    /// match's); the null move if the bot has nothing to say.
    fn bot_move(
        &self,
        game: &dyn DynGame,
        kind: &str,
        state: &AnyState,
        seat: usize,
        null: impl Fn(&AnyState) -> Result<Option<(Value, Author)>, Error>,
    ) -> Result<Option<(Value, Author)>, Error> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(|e| Error::internal(format!("no OS randomness: {e}")))?;
        match game.bot_move(kind, state, seat, &mut GameRng::from_key(key))? {
            Some(action) if game.validate(state, seat, &action).is_ok() => {
                Ok(Some((action, Author::Bot(kind.to_owned()))))
            }
            _ => null(state),
        }
    }
}
