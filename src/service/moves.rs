use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::ActiveValue::NotSet;
use sea_orm::{ConnectionTrait, DatabaseTransaction};
use serde_json::{Value, json};
use uuid::Uuid;

use super::lifecycle::{
    ABORTED, ACTIVE, FINISHED, WAITING, event_rows, forfeited_seats, not_found, record_events,
    seed_of,
};
use super::models::{
    EventPage, EventResponse, LedgerResponse, MovePage, MoveReceipt, MoveResponse, PlayerRef,
    RoundPage, RoundResponse, RoundSeatResponse,
};
use super::outcome::final_outcome;
use super::snapshots::Snapshot;
use super::timing::{ABSENT, FORFEITED, PRESENT, next_deadline};
use super::{Service, decode_cursor, encode_cursor, page_limit, with_retry};
use crate::auth::AuthenticatedPlayer;
use crate::errors::ApiError;
use crate::games::rng::GameRng;
use crate::games::{AnyState, Applied, Audience, Event, Outcome, Progress, RoundRecord};
use crate::store::entities::{
    ledger, match_results, match_seats, matches, moves, round_seats, rounds,
};
use crate::store::{self, RoundRows};

pub struct SubmitMove {
    pub step: i64,
    pub action: Value,
    /// The client's `Idempotency-Key`, if sent.
    pub idempotency_key: Option<String>,
}

/// Who made a move: the seat's player (with the request's Idempotency-Key), a bot,
/// or the server playing the seat's null move.
pub(super) enum Author {
    Player(Option<String>),
    Bot(String),
    Null,
}

/// An accepted move's receipt, and whether it answers a retry of an earlier request.
pub struct Submitted {
    pub receipt: MoveReceipt,
    pub replay: bool,
}

fn receipt(m: &moves::Model) -> Result<MoveReceipt, ApiError> {
    Ok(MoveReceipt {
        match_id: m.match_id,
        step: m.step,
        seat: m.seat as usize,
        action: serde_json::from_str(&m.action).map_err(ApiError::internal)?,
        completes_step: m.completes_step,
        version: m.version_after,
        accepted_at: m.created_at,
        commitment: m.commitment.clone(),
        nonce: m.nonce.clone(),
    })
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
struct MoveRecord {
    row: moves::Model,
    reveal: bool,
    events: Vec<Event>,
    rounds: Vec<RoundRows>,
}

/// Advances `m` past an applied move (version, step, times) and says what the
/// move writes: one pure function for the one-statement path and the locked one.
#[allow(clippy::too_many_arguments)]
fn record_move(
    m: &mut matches::Model,
    seats: &[match_seats::Model],
    seat: usize,
    player: Option<Uuid>,
    action: Value,
    applied: &Applied,
    author: Author,
    now: DateTime<Utc>,
) -> Result<MoveRecord, ApiError> {
    let t = &applied.transition;
    let nonce = super::commitment::fresh_nonce()
        .map_err(|e| ApiError::internal(format!("no OS randomness: {e}")))?;
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

impl Service {
    /// Validates, stores and applies one move; resolves the step when it is
    /// complete. Exactly once: the move is written only if the match is still at
    /// the version it was checked against (one statement, on Postgres), or under
    /// the match's row lock.
    pub async fn submit_move(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        req: SubmitMove,
    ) -> Result<Submitted, ApiError> {
        if let Some(k) = &req.idempotency_key
            && (k.is_empty() || k.len() > 255)
        {
            return Err(ApiError::bad_request(
                "invalid_idempotency_key",
                "An Idempotency-Key has 1 to 255 characters.",
            ));
        }
        if self.one_statement_moves
            && let Some(out) = self.submit_unlocked(me, id, &req).await?
        {
            tracing::info!(match.id = %id, player.id = %me.id, step = out.receipt.step, replay = false, "move accepted");
            return Ok(out);
        }
        let (out, m) = with_retry!(self.submit_once(me, id, &req))?;
        if let Some(m) = m {
            self.committed(&m);
        }
        tracing::info!(match.id = %id, player.id = %me.id, step = out.receipt.step, replay = out.replay, "move accepted");
        Ok(out)
    }

    /// The common move in one statement, checked against this process's snapshot
    /// of the match: a seat awaited at the step named, a legal action, a move that
    /// neither finishes the match nor brings an absent seat back. `None` when the
    /// move is anything else or the snapshot turns out stale (the match moved on,
    /// or the idempotency key was used before): the caller then decides under the
    /// row lock, which also gives every refusal its answer. A stale snapshot costs
    /// a retry there, never a wrong answer: the write's condition is the version.
    async fn submit_unlocked(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        req: &SubmitMove,
    ) -> Result<Option<Submitted>, ApiError> {
        let snap = match self.snapshots.get(id) {
            Some(kept) => kept,
            None => match self.read_snapshot(id).await {
                Ok(read) => read,
                Err(e) if e.status == actix_web::http::StatusCode::NOT_FOUND => return Ok(None),
                Err(e) => return Err(e),
            },
        };
        let m = &snap.row;
        let (Some(state), true, true) = (&snap.state, m.status == ACTIVE, req.step == m.step)
        else {
            return Ok(None);
        };
        let Some(mine) = snap.seats.iter().find(|s| s.player_id == me.id) else {
            return Ok(None);
        };
        let seat = mine.seat as usize;
        let game = self.game_of(&m.game)?;
        let awaited = match game.progress(state)? {
            Progress::Active(p) => p.awaiting.contains(&seat),
            Progress::Finished(_) => false,
        };
        if !awaited || mine.presence != PRESENT {
            return Ok(None);
        }
        let Ok(action) = game.validate(state, seat, &req.action) else {
            return Ok(None);
        };
        let seed = seed_of(m)?;
        let applied = game.apply(
            state,
            seat,
            &action,
            &mut GameRng::for_step(&seed, m.step as u64),
        )?;
        let forfeited = forfeited_seats(&snap.seats);
        let new_state = &applied.transition.state;
        if final_outcome(game, new_state, m.seat_count as usize, &forfeited)?.is_some() {
            // A finish (its results, its reveal, its queued fold) goes the
            // locked way.
            return Ok(None);
        }
        let now = self.clock.now();
        let mut after = m.clone();
        let record = record_move(
            &mut after,
            &snap.seats,
            seat,
            Some(me.id),
            action.clone(),
            &applied,
            Author::Player(req.idempotency_key.clone()),
            now,
        )?;
        self.schedule(&mut after, &snap.seats, new_state)?;
        self.set_state(&mut after, new_state)?;
        let deadline = match (m.deadline_at, after.deadline_at) {
            (before, now_due) if before == now_due => store::DeadlineWrite::Keep,
            (_, Some(at)) => store::DeadlineWrite::Set(at),
            (_, None) => store::DeadlineWrite::Clear,
        };
        let events: Vec<store::EventRow> = record
            .events
            .iter()
            .map(|e| store::EventRow {
                audience_seat: match e.audience {
                    Audience::Public => None,
                    Audience::Seat(s) => Some(s as i32),
                },
                kind: e.kind.clone(),
                data: e.data.to_string(),
            })
            .collect();
        let written = store::write_move(
            self.move_db.as_ref().unwrap_or(&self.db),
            &store::MoveWrite {
                before_version: m.version,
                after: &after,
                deadline,
                mv: &record.row,
                reveal: record.reveal,
                events: &events,
                rounds: &record.rounds,
            },
            self.move_lists,
        )
        .await?;
        if written == store::Written::Stale {
            return Ok(None);
        }
        let text_len = after.state.as_ref().map_or(0, String::len);
        let mut kept = Snapshot::new(
            after,
            snap.seats.clone(),
            snap.names.clone(),
            Some(applied.transition.state.clone()),
            text_len,
        );
        kept.names_read = snap.names_read;
        let receipt = MoveReceipt {
            match_id: id,
            step: record.row.step,
            seat,
            action,
            completes_step: record.row.completes_step,
            version: kept.row.version,
            accepted_at: now,
            commitment: record.row.commitment.clone(),
            nonce: record.row.nonce.clone(),
        };
        let kept = Arc::new(kept);
        self.snapshots.put(kept.clone());
        self.count_move(&kept.row.game, receipt.completes_step);
        self.committed(&kept.row);
        Ok(Some(Submitted {
            receipt,
            replay: false,
        }))
    }

    async fn submit_once(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        req: &SubmitMove,
    ) -> Result<(Submitted, Option<matches::Model>), ApiError> {
        let tx = store::begin_write(&self.db).await?;
        let (mut m, mut seats) = match store::lock_match_with_seats(&tx, id).await? {
            Some(found) => found,
            None => {
                let m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
                (m, store::seats_of(&tx, id).await?)
            }
        };
        let Some(mine) = seats.iter().position(|s| s.player_id == me.id) else {
            return Err(self.not_seated(&tx, &m, &seats, me.id).await);
        };
        let seat = seats[mine].seat;
        let game = self.game_of(&m.game)?;
        // Parsed once; everything below works on this.
        let state = self.state_of(&m).await?;
        let same_move = |prev: &moves::Model| -> Result<bool, ApiError> {
            let stored: Value = serde_json::from_str(&prev.action).map_err(ApiError::internal)?;
            Ok(prev.step == req.step
                && (stored == req.action
                    || state
                        .as_ref()
                        .and_then(|s| game.validate(s, seat as usize, &req.action).ok())
                        .is_some_and(|normalized| normalized == stored)))
        };
        let seat_u = seat as usize;
        let prompt = match (&state, m.status == ACTIVE) {
            (Some(s), true) => match game.progress(s)? {
                Progress::Active(p) => Some(p),
                Progress::Finished(_) => None,
            },
            _ => None,
        };
        // The common case: the match awaits this seat at the very step named, so
        // the seat has no move stored there (a seat that moved in a step is no
        // longer awaited in it, and the unique index on match, step and seat
        // stands behind that). Only otherwise can this be a retry to look up.
        let awaited_now = req.step == m.step
            && prompt
                .as_ref()
                .is_some_and(|p| p.awaiting.contains(&seat_u));
        // A retry under the same Idempotency-Key replays the original answer; the
        // key reused for another move is a conflict.
        if let Some(key) = &req.idempotency_key
            && let Some(prev) = store::move_by_key(&tx, id, me.id, key).await?
        {
            return if same_move(&prev)? {
                Ok((
                    Submitted {
                        receipt: receipt(&prev)?,
                        replay: true,
                    },
                    None,
                ))
            } else {
                Err(ApiError::conflict(
                    "idempotency_key_reused",
                    "This Idempotency-Key was used for a different move.",
                ))
            };
        }
        // A retry of a move already accepted gets the original answer, whatever
        // happened since. A different move for that step replaces a sealed move
        // while its step awaits other seats (the reveal has not come); anything
        // else is a conflict.
        let mut replacing = None;
        if req.step >= 0
            && !awaited_now
            && let Some(prev) = store::move_at(&tx, id, req.step, seat).await?
        {
            if prev.author.is_none() && same_move(&prev)? {
                return Ok((
                    Submitted {
                        receipt: receipt(&prev)?,
                        replay: true,
                    },
                    None,
                ));
            } else if prev.author.is_some() {
                return Err(ApiError::conflict(
                    "already_moved",
                    "Your seat's move for this step was already played for you after its deadline passed.",
                ));
            } else if m.status == ACTIVE
                && prev.step == m.step
                && !prev.revealed
                && seats[mine].presence != FORFEITED
                && prompt.as_ref().is_some_and(|p| p.sealed)
            {
                replacing = Some(prev);
            } else {
                return Err(ApiError::conflict(
                    "already_moved",
                    "You already moved in this step, with a different move (only a sealed move can be replaced, until its step's reveal).",
                ));
            }
        }
        // The state and prompt a replacement is checked against: the match as if
        // the seat's sealed move had not been played, the others' moves of the
        // step still standing.
        let (state, prompt) = match &replacing {
            Some(prev) => {
                let rebuilt = self.state_without(&tx, &m, prev).await?;
                let p = match game.progress(&rebuilt)? {
                    Progress::Active(p) => Some(p),
                    Progress::Finished(_) => None,
                };
                (Some(rebuilt), p)
            }
            None => (state, prompt),
        };
        if m.status != ACTIVE {
            return Err(ApiError::conflict(
                "match_not_active",
                format!("This match is {}; it takes no moves.", m.status),
            ));
        }
        if seats[mine].presence == FORFEITED {
            return Err(ApiError::conflict(
                "seat_forfeited",
                "Your seat forfeited this match; it takes no more moves from you.",
            ));
        }
        if req.step != m.step {
            return Err(ApiError::conflict(
                "stale_step",
                format!("The match is at step {}, not {}.", m.step, req.step),
            )
            .with("current_step", m.step));
        }
        let state = state.ok_or_else(|| ApiError::internal("active match without state"))?;
        let Some(prompt) = prompt else {
            return Err(ApiError::conflict(
                "match_not_active",
                "This match is over.",
            ));
        };
        if !prompt.awaiting.contains(&seat_u) {
            return Err(ApiError::conflict(
                "not_your_turn",
                format!(
                    "It is not your turn: the match awaits seats {:?}.",
                    prompt.awaiting
                ),
            ));
        }
        let action = game.validate(&state, seat_u, &req.action)?;
        let now = self.clock.now();
        if let Some(prev) = &replacing {
            // What the others saw of the first move must stay true of the second.
            let shown = game.public_part(&state, seat_u, &action)?;
            let was: Option<Value> = prev
                .public_action
                .as_deref()
                .map(serde_json::from_str)
                .transpose()
                .map_err(ApiError::internal)?;
            if shown != was {
                return Err(ApiError::conflict(
                    "already_moved",
                    "A replacement must show what your sealed move already shows to the others; this one shows something else.",
                ));
            }
            store::mark_replaced(&tx, id, prev.id).await?;
            let replaced = Event::public(
                "move_replaced",
                json!({ "seat": seat, "step": prev.step, "commitment": prev.commitment }),
            );
            record_events(&tx, &m, &[replaced], now).await?;
        }
        // A move of an absent seat's player is its return.
        if seats[mine].presence == ABSENT {
            seats[mine].presence = PRESENT.into();
            store::update_seat(&tx, seats[mine].clone()).await?;
            let back = Event::public("seat_returned", json!({ "seat": seat, "by": "move" }));
            record_events(&tx, &m, &[back], now).await?;
        }
        let game_id = m.game.clone();
        let mut batch = store::Batch::default();
        let (row, next) = self
            .apply_batched(
                &tx,
                &mut batch,
                &mut m,
                &seats,
                &state,
                seat_u,
                Some(me.id),
                action,
                Author::Player(req.idempotency_key.clone()),
            )
            .await?;
        // The move's writes and the match row go out as one statement (Postgres).
        let backend = tx.get_database_backend();
        batch.push_statement(store::deadline_statement_of(&m, backend));
        batch
            .flush(&tx, Some(store::update_match_statement(m.clone(), backend)))
            .await?;
        tx.commit().await?;
        self.keep_written(&m, &seats, Some(next));
        self.count_move(&game_id, row.completes_step);
        Ok((
            Submitted {
                receipt: receipt(&row)?,
                replay: false,
            },
            Some(m),
        ))
    }

    /// The match's state as if the seat's sealed move `prev` had not been played:
    /// the moves that stand, replayed from the start without it. Sealed moves of
    /// one step do not depend on one another until the last of them reveals, so
    /// the others' moves of the step replay as they were.
    async fn state_without(
        &self,
        tx: &DatabaseTransaction,
        m: &matches::Model,
        prev: &moves::Model,
    ) -> Result<AnyState, ApiError> {
        let game = self.game_of(&m.game)?;
        let seed = seed_of(m)?;
        let mut state = self.initial_state(tx, m, m.seat_count as usize).await?;
        for mv in store::standing_moves(tx, m.id).await? {
            if mv.id == prev.id {
                continue;
            }
            let action: Value = serde_json::from_str(&mv.action).map_err(ApiError::internal)?;
            state = game
                .apply(
                    &state,
                    mv.seat as usize,
                    &action,
                    &mut GameRng::for_step(&seed, mv.step as u64),
                )
                .map_err(|e| ApiError::internal(format!("move {} does not replay: {e:?}", mv.id)))?
                .transition
                .state;
        }
        Ok(state)
    }

    pub(super) fn count_move(&self, game: &str, completes_step: bool) {
        self.metrics.moves_accepted.with_label_values(&[game]).inc();
        if completes_step {
            self.metrics.steps_resolved.with_label_values(&[game]).inc();
        }
    }

    /// After a transaction that changed `m` committed: wakes whoever waits on the
    /// match, here and on the other replicas, and the poller when a move is due
    /// at once (a bot's, or a forfeited seat's).
    pub(super) fn committed(&self, m: &matches::Model) {
        // A write that did not keep its own snapshot: an older one kept, or
        // one a read is about to put back, would otherwise be trusted.
        if self
            .snapshots
            .get(m.id)
            .is_none_or(|s| s.version() < m.version)
        {
            self.snapshots.forget(Some(m.id));
        }
        self.hub.changed(m.id);
        if m.status == FINISHED {
            self.finish_to_fold();
        }
        if m.status == FINISHED || m.status == ABORTED {
            // It may have been a tournament's: its round may be complete.
            self.tournament_match_over();
        }
        if m.deadline_at.is_some_and(|at| at <= self.clock.now()) {
            self.hub.wake_poller();
        }
    }

    /// Stores and applies a validated move on a locked match: the move row, the
    /// reveal, events, round records, the finish, the new state and deadline. The
    /// caller writes the match row back and commits.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn apply_locked(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        seats: &[match_seats::Model],
        state: &AnyState,
        seat: usize,
        player: Option<Uuid>,
        action: Value,
        author: Author,
    ) -> Result<(moves::Model, AnyState), ApiError> {
        let mut batch = store::Batch::default();
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
    async fn apply_batched(
        &self,
        tx: &DatabaseTransaction,
        batch: &mut store::Batch,
        m: &mut matches::Model,
        seats: &[match_seats::Model],
        state: &AnyState,
        seat: usize,
        player: Option<Uuid>,
        action: Value,
        author: Author,
    ) -> Result<(moves::Model, AnyState), ApiError> {
        let game = self.game_of(&m.game)?;
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
        let mut active: moves::ActiveModel = row.clone().into();
        active.id = NotSet;
        batch.push_statement(store::insert_move_statement(active, backend));
        if record.reveal && outcome.is_none() {
            store::queue_reveal_moves(batch, id, false, backend);
        }
        for r in record.rounds {
            store::queue_round(batch, r, backend);
        }
        batch.push_events(event_rows(m, &record.events, now));
        if let Some(outcome) = outcome {
            self.queue_finish(batch, backend, m, seats, &t.state, outcome, now)?;
        }
        self.schedule(m, seats, &t.state)?;
        self.set_state(m, &t.state)?;
        Ok((row, t.state))
    }

    /// The match's outcome if `state` (or its forfeits) say it is over.
    fn outcome_if_over(
        &self,
        m: &matches::Model,
        seats: &[match_seats::Model],
        state: &AnyState,
    ) -> Result<Option<Outcome>, ApiError> {
        let game = self.game_of(&m.game)?;
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
    ) -> Result<bool, ApiError> {
        let Some(outcome) = self.outcome_if_over(m, seats, state)? else {
            return Ok(false);
        };
        let mut batch = store::Batch::default();
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
        batch: &mut store::Batch,
        backend: sea_orm::DbBackend,
        m: &mut matches::Model,
        seats: &[match_seats::Model],
        state: &AnyState,
        outcome: Outcome,
        now: DateTime<Utc>,
    ) -> Result<(), ApiError> {
        let game = self.game_of(&m.game)?;
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
        store::queue_results(batch, rows, backend);
        store::queue_reveal_moves(batch, m.id, true, backend);
        let finished = Event::public(
            "match_finished",
            json!({ "placings": outcome.placings, "forfeited": forfeited }),
        );
        batch.push_events(event_rows(m, &[finished], now));
        let placed = if m.rated {
            super::ratings::rating_input(&outcome, seats, |_| true)
        } else if self.bots_rated(m, seats)? {
            // Bots keep ratings of their own, measured against everybody's, but
            // a match with a bot never moves a person's rating.
            super::ratings::rating_input(&outcome, seats, |s| s.bot.is_some())
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
    fn bots_rated(
        &self,
        m: &matches::Model,
        seats: &[match_seats::Model],
    ) -> Result<bool, ApiError> {
        if m.position.is_some() || seats.iter().all(|s| s.bot.is_none()) {
            return Ok(false);
        }
        let options: Value = serde_json::from_str(&m.options).map_err(ApiError::internal)?;
        Ok(options.get("rated").and_then(Value::as_bool) != Some(false))
    }

    /// Sets the match's next deadline: the earliest of its owing seats'.
    pub(super) fn schedule(
        &self,
        m: &mut matches::Model,
        seats: &[match_seats::Model],
        state: &AnyState,
    ) -> Result<(), ApiError> {
        let game = self.game_of(&m.game)?;
        m.deadline_at = match game.progress(state)? {
            Progress::Active(p) if m.status == ACTIVE => {
                next_deadline(m, seats, &p.awaiting, game.step_time_limit(state)?)
            }
            _ => None,
        };
        Ok(())
    }

    /// The caller's seat in a match, if any.
    async fn caller_seat(
        &self,
        caller: Option<Uuid>,
        match_id: Uuid,
    ) -> Result<(Vec<match_seats::Model>, Option<i32>), ApiError> {
        let seats = store::seats_of(&self.db, match_id).await?;
        let seat = caller.and_then(|c| seats.iter().find(|s| s.player_id == c).map(|s| s.seat));
        Ok((seats, seat))
    }

    pub async fn list_moves(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<MovePage, ApiError> {
        let limit = page_limit(limit)?;
        let m = self.require_visible_id(caller, id).await?;
        let over = m.status != ACTIVE && m.status != WAITING;
        let after = cursor.map(|c| parse_id_cursor(&c)).transpose()?;
        let (seats, my_seat) = self.caller_seat(caller, id).await?;
        let names = self.names(&self.db, &seats, None).await?;
        let mut rows = store::moves_of(&self.db, id, after, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = if more {
            rows.last().map(|r| encode_cursor(&r.id.to_string()))
        } else {
            None
        };
        let items = rows
            .iter()
            .map(|r| {
                let visible = over || r.revealed || my_seat == Some(r.seat);
                let action = if visible {
                    &r.action
                } else {
                    r.public_action.as_deref().unwrap_or("{}")
                };
                Ok(MoveResponse {
                    id: r.id,
                    step: r.step,
                    seat: r.seat as usize,
                    player: r.player_id.map(|p| PlayerRef {
                        id: p,
                        name: names.get(&p).cloned().unwrap_or_default(),
                    }),
                    sealed: !visible,
                    action: serde_json::from_str(action).map_err(ApiError::internal)?,
                    author: r.author.clone(),
                    version: r.version_after,
                    created_at: r.created_at,
                    commitment: r.commitment.clone(),
                    nonce: r.nonce.clone().filter(|_| visible),
                    replaced: r.replaced,
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok(MovePage { items, next_cursor })
    }

    pub async fn list_events(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<EventPage, ApiError> {
        let limit = page_limit(limit)?;
        let m = self.require_visible_id(caller, id).await?;
        let over = m.status != ACTIVE && m.status != WAITING;
        let after = cursor.map(|c| parse_id_cursor(&c)).transpose()?;
        let (_, my_seat) = self.caller_seat(caller, id).await?;
        let mut rows = store::events_of(&self.db, id, my_seat, over, after, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = if more {
            rows.last().map(|r| encode_cursor(&r.id.to_string()))
        } else {
            None
        };
        let items = rows
            .iter()
            .map(|e| {
                Ok(EventResponse {
                    id: e.id,
                    version: e.version,
                    audience_seat: e.audience_seat.map(|s| s as usize),
                    kind: e.kind.clone(),
                    data: serde_json::from_str(&e.data).map_err(ApiError::internal)?,
                    created_at: e.created_at,
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok(EventPage { items, next_cursor })
    }

    pub async fn list_rounds(&self, caller: Option<Uuid>, id: Uuid) -> Result<RoundPage, ApiError> {
        self.require_visible_id(caller, id).await?;
        let seats = store::seats_of(&self.db, id).await?;
        let names = self.names(&self.db, &seats, None).await?;
        let player_ref = |p: Option<Uuid>| {
            p.map(|id| PlayerRef {
                id,
                name: names.get(&id).cloned().unwrap_or_default(),
            })
        };
        let items = store::rounds_of(&self.db, id)
            .await?
            .into_iter()
            .map(|r| RoundResponse {
                round: r.round.round as u32,
                step: r.round.step,
                value: r.round.value,
                outcome: r.round.outcome,
                total_a: r.round.total_a,
                total_b: r.round.total_b,
                lead_seat: r.round.lead_seat.map(|s| s as usize),
                subject: r.round.subject,
                seats: r
                    .seats
                    .into_iter()
                    .map(|s| RoundSeatResponse {
                        seat: s.seat as usize,
                        player: player_ref(s.player_id),
                        card: s.card,
                        kind: s.kind,
                        stake: s.stake,
                        choice: s.choice,
                        success: s.success,
                        delta: s.delta,
                        drew: s.drew as u32,
                    })
                    .collect(),
                ledger: r
                    .ledger
                    .into_iter()
                    .map(|l| LedgerResponse {
                        seat: l.seat as usize,
                        amount: l.amount,
                        reason: l.reason,
                    })
                    .collect(),
                created_at: r.round.created_at,
            })
            .collect();
        Ok(RoundPage {
            items,
            next_cursor: None,
        })
    }
}

fn parse_id_cursor(c: &str) -> Result<i64, ApiError> {
    decode_cursor(c)?.parse().map_err(|_| {
        ApiError::bad_request(
            "invalid_cursor",
            "The cursor is not one this server issued.",
        )
    })
}
