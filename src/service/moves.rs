//! A submitted move: validated, stored and applied exactly once, resolving its
//! step when it completes it. The common move is one statement checked against
//! the kept snapshot (Postgres); anything else, a stale snapshot included, is
//! decided under the match's row lock.

use std::sync::Arc;

use sea_orm::{ConnectionTrait, DatabaseConnection, DatabaseTransaction};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::games::rng::GameRng;
use crate::games::{AnyState, Event, Progress};
use crate::service::clock::Clock;
use crate::service::commits::Commits;
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::lifecycle::{
    ACTIVE, event_rows, forfeited_seats, not_found, record_events, seed_of,
};
use crate::service::models::MoveReceipt;
use crate::service::move_writer::MoveWriter;
use crate::service::outcome::final_outcome;
use crate::service::play::{Author, Play, record_move};
use crate::service::records::Records;
use crate::service::snapshots::{Snapshot, SnapshotCache};
use crate::service::timing::{ABSENT, FORFEITED, PRESENT};
use crate::service::tx::transaction;
use crate::service::visibility::Policy;
use crate::store;
use crate::store::entities::moves;
use crate::store::entities::{match_seats, matches};
use crate::store::move_write::MoveLists;

pub struct SubmitMove {
    pub step: i64,
    pub action: Value,
    /// The client's `Idempotency-Key`, if sent.
    pub idempotency_key: Option<String>,
}

/// What a move accepted under the lock changed: kept, counted and announced
/// once its transaction committed.
struct Accepted {
    row: matches::Model,
    seats: Vec<match_seats::Model>,
    state: AnyState,
    completes_step: bool,
}

/// How a one-statement move checked against a snapshot ended.
enum Attempt {
    Written(Box<Submitted>),
    /// Not a move for the one statement (a finish, a refusal, an absent seat…):
    /// the locked path decides it.
    Declined,
    /// The match was no longer at the snapshot's version.
    Stale,
}

/// An accepted move's receipt, and whether it answers a retry of an earlier request.
pub struct Submitted {
    pub receipt: MoveReceipt,
    pub replay: bool,
}

fn receipt(m: &moves::Model) -> Result<MoveReceipt, Error> {
    Ok(MoveReceipt {
        prompt: None,
        match_id: m.match_id,
        step: m.step,
        seat: m.seat as usize,
        action: serde_json::from_str(&m.action).map_err(Error::internal)?,
        completes_step: m.completes_step,
        version: m.version_after,
        accepted_at: m.created_at,
        commitment: m.commitment.clone(),
        nonce: m.nonce.clone(),
    })
}

/// What the move path is built from.
pub struct MovesParts {
    pub db: DatabaseConnection,
    /// Whether moves may be written as one statement outside a transaction.
    pub one_statement: bool,
    pub move_db: Option<DatabaseConnection>,
    pub move_lists: MoveLists,
    /// Gathers one-statement moves into batches, one commit each (plain
    /// Postgres); without it each move is written alone.
    pub writer: Option<MoveWriter>,
    pub clock: Arc<dyn Clock>,
    pub games: Arc<Games>,
    pub records: Arc<Records>,
    pub commits: Arc<Commits>,
    pub play: Arc<Play>,
    pub policy: Arc<Policy>,
    pub snapshots: SnapshotCache,
}

/// A submitted move, accepted exactly once: as one statement checked against the
/// kept snapshot when it can be, under the match's row lock otherwise.
pub struct Moves {
    db: DatabaseConnection,
    /// Whether moves may be written as one statement outside a transaction
    /// (Postgres; SQLite is in-process, where a transaction costs no round trips).
    one_statement_moves: bool,
    /// The pool the one-statement move is sent on (generic plans); the main
    /// pool when none is given.
    move_db: Option<DatabaseConnection>,
    /// How that statement writes its lists (VALUES on Citus).
    move_lists: MoveLists,
    writer: Option<MoveWriter>,
    clock: Arc<dyn Clock>,
    games: Arc<Games>,
    records: Arc<Records>,
    commits: Arc<Commits>,
    play: Arc<Play>,
    policy: Arc<Policy>,
    snapshots: SnapshotCache,
}

impl Moves {
    pub fn new(p: MovesParts) -> Self {
        Self {
            db: p.db,
            one_statement_moves: p.one_statement,
            move_db: p.move_db,
            move_lists: p.move_lists,
            writer: p.writer,
            clock: p.clock,
            games: p.games,
            records: p.records,
            commits: p.commits,
            play: p.play,
            policy: p.policy,
            snapshots: p.snapshots,
        }
    }
}

impl Moves {
    /// Validates, stores and applies one move; resolves the step when it is
    /// complete. Exactly once: the move is written only if the match is still at
    /// the version it was checked against (one statement, on Postgres), or under
    /// the match's row lock.
    pub async fn submit_move(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        req: SubmitMove,
    ) -> Result<Submitted, Error> {
        if let Some(k) = &req.idempotency_key
            && (k.is_empty() || k.len() > 255)
        {
            return Err(Error::bad_request(
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
        let (out, accepted) = self.submit_locked(me, id, &req).await?;
        if let Some(a) = accepted {
            self.records.keep_written(&a.row, &a.seats, Some(a.state));
            self.commits.count_move(&a.row.game, a.completes_step);
            self.commits.committed(&a.row);
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
    ) -> Result<Option<Submitted>, Error> {
        let kept = self.snapshots.get(id);
        let from_memory = kept.is_some();
        let snap = match kept {
            Some(kept) => kept,
            None => match self.records.try_read_snapshot(id).await? {
                Some(read) => read,
                None => return Ok(None),
            },
        };
        match self.submit_on(me, id, req, snap).await? {
            Attempt::Written(done) => Ok(Some(*done)),
            Attempt::Declined => Ok(None),
            // The kept snapshot was behind the database (another replica moved
            // the match): once more from a fresh read, one statement, before the
            // locked path's transaction.
            Attempt::Stale if from_memory => match self.records.try_read_snapshot(id).await? {
                Some(read) => match self.submit_on(me, id, req, read).await? {
                    Attempt::Written(done) => Ok(Some(*done)),
                    Attempt::Declined | Attempt::Stale => Ok(None),
                },
                None => Ok(None),
            },
            Attempt::Stale => Ok(None),
        }
    }

    /// The one-statement move checked against `snap`.
    async fn submit_on(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        req: &SubmitMove,
        snap: Arc<Snapshot>,
    ) -> Result<Attempt, Error> {
        let m = &snap.row;
        let (Some(state), true, true) = (&snap.state, m.status == ACTIVE, req.step == m.step)
        else {
            return Ok(Attempt::Declined);
        };
        if m.bank_initial_seconds.is_some() {
            // A move of a banked match charges seat rows, which the one
            // statement does not write.
            return Ok(Attempt::Declined);
        }
        let Some(mine) = snap.seats.iter().find(|s| s.player_id == me.id) else {
            return Ok(Attempt::Declined);
        };
        let seat = mine.seat as usize;
        let game = self.games.of(&m.game)?;
        let awaited = match game.progress(state)? {
            Progress::Active(p) => p.awaiting.contains(&seat),
            Progress::Finished(_) => false,
        };
        if !awaited || mine.presence != PRESENT {
            return Ok(Attempt::Declined);
        }
        let Ok(action) = game.validate(state, seat, &req.action) else {
            return Ok(Attempt::Declined);
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
            return Ok(Attempt::Declined);
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
        self.play.schedule(&mut after, &snap.seats, new_state)?;
        self.records.set_state(&mut after, new_state)?;
        let deadline = match (m.deadline_at, after.deadline_at) {
            (before, now_due) if before == now_due => store::move_write::DeadlineWrite::Keep,
            (_, Some(at)) => store::move_write::DeadlineWrite::Set(at),
            (_, None) => store::move_write::DeadlineWrite::Clear,
        };
        let events = event_rows(&after, &record.events, now);
        let homes = self.records.homes();
        let home = homes.map_or_else(Default::default, |h| {
            h.for_move(
                &snap,
                !self.records.reads_from_snapshots(),
                after.deadline_at,
                now,
            )
        });
        let sent_after = std::time::Instant::now();
        let rows = store::move_write::MoveRows {
            before_version: m.version,
            after,
            deadline,
            mv: record.row,
            reveal: record.reveal,
            events,
            rounds: record.rounds,
            home,
        };
        let (rows, written) = match &self.writer {
            Some(writer) => writer.write(rows).await?,
            None => {
                let written = store::move_write::write_move(
                    self.move_db.as_ref().unwrap_or(&self.db),
                    &rows.write(),
                    self.move_lists,
                )
                .await?;
                (rows, written)
            }
        };
        if written == store::move_write::Written::Stale {
            return Ok(Attempt::Stale);
        }
        let store::move_write::MoveRows { after, mv, .. } = rows;
        let text_len = after.state.as_ref().map_or(0, String::len);
        let mut kept = Snapshot::new(
            after,
            snap.seats.clone(),
            snap.names.clone(),
            Some(applied.transition.state.clone()),
            text_len,
        );
        kept.names_read = snap.names_read;
        kept.own_streak = snap.own_streak.saturating_add(1);
        if let (Some(h), Some(_)) = (homes, home.claim_ms) {
            kept.trusted_until = Some(h.trusted_until(sent_after));
        }
        let receipt = MoveReceipt {
            prompt: None,
            match_id: id,
            step: mv.step,
            seat,
            action,
            completes_step: mv.completes_step,
            version: kept.row.version,
            accepted_at: now,
            commitment: mv.commitment,
            nonce: mv.nonce,
        };
        let kept = Arc::new(kept);
        self.snapshots.put(kept.clone());
        self.commits
            .count_move(&kept.row.game, receipt.completes_step);
        self.commits.committed(&kept.row);
        Ok(Attempt::Written(Box::new(Submitted {
            receipt,
            replay: false,
        })))
    }

    /// The move decided under the match's row lock, in one transaction (tried
    /// again on contention); with what it changed when it wrote anything.
    async fn submit_locked(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        req: &SubmitMove,
    ) -> Result<(Submitted, Option<Accepted>), Error> {
        transaction!(&self.db, |tx| {
            let (mut m, mut seats) = match store::matches::lock_match_with_seats(tx, id).await? {
                Some(found) => found,
                None => {
                    let m = store::matches::lock_match(tx, id)
                        .await?
                        .ok_or_else(not_found)?;
                    (m, store::matches::seats_of(tx, id).await?)
                }
            };
            let Some(mine) = seats.iter().position(|s| s.player_id == me.id) else {
                return Err(self.policy.not_seated(tx, &m, &seats, me.id).await);
            };
            let seat = seats[mine].seat;
            let game = self.games.of(&m.game)?;
            // Parsed once; everything below works on this.
            let state = self.records.state_of(&m).await?;
            let same_move = |prev: &moves::Model| -> Result<bool, Error> {
                let stored: Value = serde_json::from_str(&prev.action).map_err(Error::internal)?;
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
                && let Some(prev) = store::moves::move_by_key(tx, id, me.id, key).await?
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
                    Err(Error::conflict(
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
                && let Some(prev) = store::moves::move_at(tx, id, req.step, seat).await?
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
                    return Err(Error::conflict(
                        "already_moved",
                        "Your seat's move for this step was already played for you after its deadline passed.",
                    ).arg("reason", "timed_out"));
                } else if m.status == ACTIVE
                    && prev.step == m.step
                    && !prev.revealed
                    && seats[mine].presence != FORFEITED
                    && prompt.as_ref().is_some_and(|p| p.sealed)
                {
                    replacing = Some(prev);
                } else {
                    return Err(Error::conflict(
                        "already_moved",
                        "You already moved in this step, with a different move (only a sealed move can be replaced, until its step's reveal).",
                    ).arg("reason", "different"));
                }
            }
            // The state and prompt a replacement is checked against: the match as if
            // the seat's sealed move had not been played, the others' moves of the
            // step still standing.
            let (state, prompt) = match &replacing {
                Some(prev) => {
                    let rebuilt = self.state_without(tx, &m, prev).await?;
                    let p = match game.progress(&rebuilt)? {
                        Progress::Active(p) => Some(p),
                        Progress::Finished(_) => None,
                    };
                    (Some(rebuilt), p)
                }
                None => (state, prompt),
            };
            if m.status != ACTIVE {
                return Err(Error::conflict(
                    "match_not_active",
                    format!("This match is {}; it takes no moves.", m.status),
                )
                .arg("status", m.status.clone()));
            }
            if seats[mine].presence == FORFEITED {
                return Err(Error::conflict(
                    "seat_forfeited",
                    "Your seat forfeited this match; it takes no more moves from you.",
                ));
            }
            if req.step != m.step {
                return Err(Error::conflict(
                    "stale_step",
                    format!("The match is at step {}, not {}.", m.step, req.step),
                )
                .arg("step", req.step)
                .with("current_step", m.step));
            }
            let state = state.ok_or_else(|| Error::internal("active match without state"))?;
            let Some(prompt) = prompt else {
                return Err(Error::conflict("match_not_active", "This match is over.")
                    .arg("status", "finished"));
            };
            if !prompt.awaiting.contains(&seat_u) {
                return Err(Error::conflict(
                    "not_your_turn",
                    format!(
                        "It is not your turn: the match awaits seats {:?}.",
                        prompt.awaiting
                    ),
                )
                .arg("awaiting", crate::service::error::listed(&prompt.awaiting)));
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
                    .map_err(Error::internal)?;
                if shown != was {
                    return Err(Error::conflict(
                        "already_moved",
                        "A replacement must show what your sealed move already shows to the others; this one shows something else.",
                    ).arg("reason", "shows_other"));
                }
                store::moves::mark_replaced(tx, id, prev.id).await?;
                let replaced = Event::public(
                    "move_replaced",
                    json!({ "seat": seat, "step": prev.step, "commitment": prev.commitment }),
                );
                record_events(tx, &m, &[replaced], now).await?;
            }
            // A move of an absent seat's player is its return.
            if seats[mine].presence == ABSENT {
                seats[mine].presence = PRESENT.into();
                store::matches::update_seat(tx, seats[mine].clone()).await?;
                let back = Event::public("seat_returned", json!({ "seat": seat, "by": "move" }));
                record_events(tx, &m, &[back], now).await?;
            }
            let mut batch = store::batch::Batch::default();
            let (row, next) = self
                .play
                .apply_batched(
                    tx,
                    &mut batch,
                    &mut m,
                    &mut seats,
                    &state,
                    seat_u,
                    Some(me.id),
                    action,
                    Author::Player(req.idempotency_key.clone()),
                )
                .await?;
            // The move's writes and the match row go out as one statement (Postgres).
            let backend = tx.get_database_backend();
            batch.push_statement(store::matches::deadline_statement_of(&m, backend));
            batch
                .flush(
                    tx,
                    Some(store::batch::update_match_statement(m.clone(), backend)),
                )
                .await?;
            Ok((
                Submitted {
                    receipt: receipt(&row)?,
                    replay: false,
                },
                Some(Accepted {
                    row: m,
                    seats,
                    state: next,
                    completes_step: row.completes_step,
                }),
            ))
        })
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
    ) -> Result<AnyState, Error> {
        let game = self.games.of(&m.game)?;
        let seed = seed_of(m)?;
        let mut state = self
            .games
            .initial_state(tx, m, m.seat_count as usize)
            .await?;
        for mv in store::moves::standing_moves(tx, m.id).await? {
            if mv.id == prev.id {
                continue;
            }
            let action: Value = serde_json::from_str(&mv.action).map_err(Error::internal)?;
            state = game
                .apply(
                    &state,
                    mv.seat as usize,
                    &action,
                    &mut GameRng::for_step(&seed, mv.step as u64),
                )
                .map_err(|e| Error::internal(format!("move {} does not replay: {e:?}", mv.id)))?
                .transition
                .state;
        }
        Ok(state)
    }
}
