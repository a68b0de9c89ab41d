//! Playing a match under its row lock: a move applied and recorded (its row,
//! reveal, events and round records), the finish when the game or its
//! forfeits end it, the next deadline, and the start. The move path's one
//! statement and the locked path both record a move through `record_move`.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::{ConnectionTrait, DatabaseTransaction};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::games::rng::GameRng;
use crate::games::{AnyState, Applied, Event, Outcome, Progress, RoundRecord};
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::lifecycle::{
    ACTIVE, FINISHED, event_rows, forfeited_seats, record_events, seed_of,
};
use crate::service::outcome::final_outcome;
use crate::service::records::Records;
use crate::service::timing::{Bank, next_deadline};
use crate::store;
use crate::store::entities::{
    ledger, match_results, match_seats, matches, moves, round_seats, rounds,
};
use crate::store::move_write::RoundRows;

/// Applying moves to a locked match, finishing it, scheduling its deadlines, starting it.
pub struct Play {
    games: Arc<Games>,
    records: Arc<Records>,
    clock: Arc<dyn Clock>,
}

impl Play {
    pub fn new(games: Arc<Games>, records: Arc<Records>, clock: Arc<dyn Clock>) -> Self {
        Self {
            games,
            records,
            clock,
        }
    }
}

/// Who made a move: the seat's player (with the request's Idempotency-Key), a bot,
/// or the server playing the seat's null move.
pub(super) enum Author {
    Player(Option<String>),
    Bot(String),
    Null,
}

fn round_rows(
    match_id: Uuid,
    step: i64,
    r: &RoundRecord,
    seats: &[match_seats::Model],
    now: DateTime<Utc>,
) -> RoundRows {
    let player_of = |seat: usize| {
        seats
            .iter()
            .find(|s| s.seat as usize == seat)
            .map(|s| s.player_id)
    };
    RoundRows {
        round: rounds::Model {
            match_id,
            round: r.round as i32,
            step,
            value: r.value,
            outcome: r.outcome.clone(),
            total_a: r.total_a,
            total_b: r.total_b,
            lead_seat: r.lead_seat.map(|s| s as i32),
            subject: r.subject.clone(),
            created_at: now,
        },
        seats: r
            .seats
            .iter()
            .map(|s| round_seats::Model {
                match_id,
                round: r.round as i32,
                seat: s.seat as i32,
                player_id: player_of(s.seat),
                card: s.card.clone(),
                kind: s.kind.clone(),
                stake: s.stake,
                choice: s.choice.clone(),
                success: s.success,
                delta: s.delta,
                drew: s.drew as i32,
            })
            .collect(),
        ledger: r
            .ledger
            .iter()
            .map(|l| ledger::Model {
                id: 0,
                match_id,
                round: r.round as i32,
                seat: l.seat as i32,
                amount: l.amount,
                reason: l.reason.clone(),
            })
            .collect(),
    }
}

/// Everything a move writes besides the match row: the move, whether it makes
/// the sealed moves so far public, its events and its round records.
pub(super) struct MoveRecord {
    pub(super) row: moves::Model,
    pub(super) reveal: bool,
    pub(super) events: Vec<Event>,
    pub(super) rounds: Vec<RoundRows>,
}

/// Advances `m` past an applied move (version, step, times) and says what the
/// move writes: one pure function for the one-statement path and the locked one.
#[allow(clippy::too_many_arguments)]
pub(super) fn record_move(
    m: &mut matches::Model,
    seats: &[match_seats::Model],
    seat: usize,
    player: Option<Uuid>,
    action: Value,
    applied: &Applied,
    author: Author,
    now: DateTime<Utc>,
) -> Result<MoveRecord, Error> {
    let t = &applied.transition;
    let nonce = super::commitment::fresh_nonce()
        .map_err(|e| Error::internal(format!("no OS randomness: {e}")))?;
    let commitment = super::commitment::commitment(m.id, m.step, seat, &action, &nonce);
    let step = m.step;
    m.version += 1;
    if t.completes_step {
        m.step += 1;
        m.step_started_at = Some(now);
    }
    m.updated_at = now;
    let (idempotency_key, author) = match author {
        Author::Player(key) => (key, None),
        Author::Bot(kind) => (None, Some(format!("bot:{kind}"))),
        Author::Null => (None, Some("null".to_owned())),
    };
    let row = moves::Model {
        id: 0,
        match_id: m.id,
        step,
        seat: seat as i32,
        player_id: player,
        action: action.to_string(),
        public_action: applied.public.as_ref().map(|p| p.to_string()),
        // What the reveal would make of it, had it been stored first: the
        // writes of one statement do not see one another.
        revealed: applied.public.is_none() || (t.reveal && !applied.private_until_end),
        completes_step: t.completes_step,
        version_after: m.version,
        created_at: now,
        idempotency_key,
        private_until_end: applied.private_until_end,
        author,
        nonce: Some(nonce),
        commitment: Some(commitment),
        replaced: false,
    };
    // The service's own events frame the game's: who submitted (never what),
    // then what the game says, then the step and rounds it resolved.
    let mut events = vec![Event::public(
        "seat_submitted",
        json!({ "seat": seat, "step": step }),
    )];
    events.extend(t.events.iter().cloned());
    if t.completes_step {
        events.push(Event::public(
            "step_resolved",
            json!({ "step": step, "next_step": m.step }),
        ));
    }
    let game_told_rounds = t.events.iter().any(|e| e.kind == "round_resolved");
    let mut rounds = Vec::with_capacity(t.rounds.len());
    for r in &t.rounds {
        if !game_told_rounds {
            events.push(Event::public(
                "round_resolved",
                json!({ "round": r.round, "outcome": r.outcome }),
            ));
        }
        rounds.push(round_rows(m.id, step, r, seats, now));
    }
    Ok(MoveRecord {
        row,
        reveal: t.reveal,
        events,
        rounds,
    })
}

impl Play {
    /// Compacts the seats, sets the game up, and makes the match active.
    pub(super) async fn start_locked(
        &self,
        tx: &DatabaseTransaction,
        mut m: matches::Model,
    ) -> Result<matches::Model, Error> {
        let game = self.games.of(&m.game)?;
        let info = game.info();
        let mut seats = store::matches::seats_of(tx, m.id).await?;
        if !info.seats.contains(&seats.len()) {
            return Err(Error::conflict(
                "not_enough_players",
                format!(
                    "{} needs {:?} players to start; {} are seated.",
                    info.name,
                    info.seats,
                    seats.len()
                ),
            )
            .arg("seated", seats.len())
            .arg("needed", crate::service::error::listed(&info.seats)));
        }
        seats.sort_by_key(|s| s.seat);
        let compacted: Vec<match_seats::Model> = seats
            .into_iter()
            .enumerate()
            .map(|(i, mut s)| {
                s.seat = i as i32;
                s
            })
            .collect();
        let n = compacted.len();
        let mut compacted = compacted;
        let state = self.games.initial_state(tx, &m, n).await?;
        let now = self.clock.now();
        if let Some(bank) = Bank::of(&m) {
            let awaiting = match game.progress(&state)? {
                Progress::Active(p) => p.awaiting,
                Progress::Finished(_) => Vec::new(),
            };
            bank.start(&mut compacted, &awaiting, now);
        }
        store::matches::replace_seats(tx, m.id, compacted.clone()).await?;
        m.seat_count = n as i32;
        m.status = ACTIVE.into();
        m.started_at = Some(now);
        m.step_started_at = Some(now);
        m.updated_at = now;
        m.step = 0;
        m.version += 1;
        // A match is rated only when every seat is a person.
        m.rated = m.rated && compacted.iter().all(|s| s.bot.is_none());
        let started = Event::public(
            "match_started",
            serde_json::json!({
                "seats": compacted.iter().map(|s| serde_json::json!({
                    "seat": s.seat, "player": s.player_id, "bot": s.bot,
                })).collect::<Vec<_>>(),
                "rated": m.rated,
            }),
        );
        record_events(tx, &m, &[started], now).await?;
        self.finish_if_over(tx, &mut m, &compacted, &state, now)
            .await?;
        self.schedule(&mut m, &compacted, &state)?;
        self.records.set_state(&mut m, &state)?;
        Ok(m)
    }

    /// Stores and applies a validated move on a locked match: the move row, the
    /// reveal, events, round records, the finish, the new state and deadline. The
    /// caller writes the match row back and commits.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn apply_locked(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        seats: &mut [match_seats::Model],
        state: &AnyState,
        seat: usize,
        player: Option<Uuid>,
        action: Value,
        author: Author,
    ) -> Result<(moves::Model, AnyState), Error> {
        let mut batch = store::batch::Batch::default();
        let applied = self
            .apply_batched(
                tx, &mut batch, m, seats, state, seat, player, action, author,
            )
            .await?;
        batch.flush(tx, None).await?;
        Ok(applied)
    }

    /// `apply_locked` with the writes queued in `batch` (sent at once if the
    /// match finishes, before the finish reads or writes anything); the caller
    /// flushes it.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn apply_batched(
        &self,
        tx: &DatabaseTransaction,
        batch: &mut store::batch::Batch,
        m: &mut matches::Model,
        seats: &mut [match_seats::Model],
        state: &AnyState,
        seat: usize,
        player: Option<Uuid>,
        action: Value,
        author: Author,
    ) -> Result<(moves::Model, AnyState), Error> {
        let game = self.games.of(&m.game)?;
        let id = m.id;
        let seed = seed_of(m)?;
        let applied = game.apply(
            state,
            seat,
            &action,
            &mut GameRng::for_step(&seed, m.step as u64),
        )?;
        let now = self.clock.now();
        let record = record_move(m, seats, seat, player, action, &applied, author, now)?;
        let t = applied.transition;
        let outcome = self.outcome_if_over(m, seats, &t.state)?;
        let mut row = record.row;
        // The last move ends the match, which makes every move public: this
        // one is written revealed, since the finish's reveal, sent with it,
        // does not see it.
        row.revealed |= outcome.is_some();
        let backend = tx.get_database_backend();
        for st in store::move_write::move_statements(&row, &record.rounds, backend)? {
            batch.push_statement(st);
        }
        if record.reveal && outcome.is_none() {
            store::moves::queue_reveal_moves(batch, id, false, backend);
        }
        batch.push_events(event_rows(m, &record.events, now));
        if let Some(bank) = Bank::of(m) {
            // Charged before the next deadline is set: it counts from the banks.
            let next = match (t.completes_step, &outcome, game.progress(&t.state)?) {
                (false, _, _) => None,
                (true, None, Progress::Active(p)) => Some(p.awaiting),
                (true, _, _) => Some(Vec::new()),
            };
            for i in bank.charge(seats, seat, now, next.as_deref()) {
                batch.push_statement(store::matches::seat_bank_statement(&seats[i], backend));
            }
        }
        if let Some(outcome) = outcome {
            self.queue_finish(batch, backend, m, seats, &t.state, outcome, now)?;
        }
        self.schedule(m, seats, &t.state)?;
        self.records.set_state(m, &t.state)?;
        Ok((row, t.state))
    }

    /// The match's outcome if `state` (or its forfeits) say it is over.
    fn outcome_if_over(
        &self,
        m: &matches::Model,
        seats: &[match_seats::Model],
        state: &AnyState,
    ) -> Result<Option<Outcome>, Error> {
        let game = self.games.of(&m.game)?;
        let forfeited = forfeited_seats(seats);
        Ok(final_outcome(
            game,
            state,
            m.seat_count as usize,
            &forfeited,
        )?)
    }

    /// Finishes the match if its state (or its forfeits) say it is over: the
    /// placings, every move made public, the `match_finished` event, the
    /// finish queued for its ratings and statistics. Answers whether it did.
    pub(super) async fn finish_if_over(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        seats: &[match_seats::Model],
        state: &AnyState,
        now: DateTime<Utc>,
    ) -> Result<bool, Error> {
        let Some(outcome) = self.outcome_if_over(m, seats, state)? else {
            return Ok(false);
        };
        let mut batch = store::batch::Batch::default();
        let backend = tx.get_database_backend();
        self.queue_finish(&mut batch, backend, m, seats, state, outcome, now)?;
        batch.flush(tx, None).await?;
        Ok(true)
    }

    /// The finish's writes, queued in `batch` beside the last move's: none
    /// reads another's (every move of the match is written or queued already),
    /// and none touches a row other matches' finishes write. The ratings and
    /// the statistics' totals, which every finish updates, are folded after
    /// the commit, with other finishes (see `folds`).
    #[allow(clippy::too_many_arguments)]
    fn queue_finish(
        &self,
        batch: &mut store::batch::Batch,
        backend: sea_orm::DbBackend,
        m: &mut matches::Model,
        seats: &[match_seats::Model],
        state: &AnyState,
        outcome: Outcome,
        now: DateTime<Utc>,
    ) -> Result<(), Error> {
        let game = self.games.of(&m.game)?;
        let forfeited = forfeited_seats(seats);
        let roles = game.roles(state)?;
        let player_of = |seat: usize| {
            seats
                .iter()
                .find(|s| s.seat as usize == seat)
                .map(|s| s.player_id)
        };
        let rows = outcome
            .placings
            .iter()
            .map(|p| match_results::Model {
                match_id: m.id,
                seat: p.seat as i32,
                player_id: player_of(p.seat),
                score: p.score,
                rank: p.rank as i32,
                role: roles.get(p.seat).cloned().flatten(),
            })
            .collect();
        store::moves::queue_results(batch, rows, backend);
        store::moves::queue_reveal_moves(batch, m.id, true, backend);
        let finished = Event::public(
            "match_finished",
            json!({ "placings": outcome.placings, "forfeited": forfeited }),
        );
        batch.push_events(event_rows(m, &[finished], now));
        let placed = if m.rated {
            super::skill::rating_input(&outcome, seats, |_| true)
        } else if self.bots_rated(m, seats)? {
            // Bots keep ratings of their own, measured against everybody's, but
            // a match with a bot never moves a person's rating.
            super::skill::rating_input(&outcome, seats, |s| s.bot.is_some())
        } else {
            None
        };
        super::folds::queue_finish(batch, backend, m, placed, now)?;
        m.status = FINISHED.into();
        m.finished_at = Some(now);
        m.deadline_at = None;
        Ok(())
    }

    /// Whether a match that is not rated for its people still rates its bots: it
    /// has bots, started from no position, and its creator left `rated` on.
    fn bots_rated(&self, m: &matches::Model, seats: &[match_seats::Model]) -> Result<bool, Error> {
        if m.position.is_some() || seats.iter().all(|s| s.bot.is_none()) {
            return Ok(false);
        }
        let options: Value = serde_json::from_str(&m.options).map_err(Error::internal)?;
        Ok(options.get("rated").and_then(Value::as_bool) != Some(false))
    }

    /// Sets the match's next deadline: the earliest of its owing seats'.
    pub(super) fn schedule(
        &self,
        m: &mut matches::Model,
        seats: &[match_seats::Model],
        state: &AnyState,
    ) -> Result<(), Error> {
        let game = self.games.of(&m.game)?;
        m.deadline_at = match game.progress(state)? {
            Progress::Active(p) if m.status == ACTIVE => {
                next_deadline(m, seats, &p.awaiting, game.step_time_limit(state)?)
            }
            _ => None,
        };
        Ok(())
    }
}
