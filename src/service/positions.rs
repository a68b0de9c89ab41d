//! The record read as a record: a match's position at any step, as one viewer
//! had it then.
//!
//! Position `k` is the state after every move of the steps before `k` (0 is the
//! start; the match's current step is the position now, with the sealed moves
//! already played in it, which the game's view hides from all but their seats).
//! What a viewer is shown of it is the visibility policy's to say, exactly as for
//! the match read: a seat sees its own view, everybody else the spectators', and
//! once the match is over everybody also gets the whole state.
//!
//! A position before the current step never changes again: the moves of past
//! steps are final (a sealed move is replaced only before its step's reveal), so
//! a replayed state is kept as a checkpoint every [`CHECKPOINT_EVERY`] steps, and
//! a later position is replayed from the nearest checkpoint below it, not from the
//! start. The checkpoints live in this process, bounded in number; every
//! [`KEPT_EVERY`] steps they are also kept with the match (`match_checkpoints`,
//! written by the first read that replays past them, never on the move path), so
//! a read in a fresh process replays at most that many steps from the nearest.
//! Only the first read of a match's long replay, ever, replays from the start; a
//! missing or lost checkpoint costs a longer replay, never a wrong answer.

use std::sync::Arc;

use quick_cache::sync::Cache;
use sea_orm::DatabaseConnection;
use serde_json::Value;
use uuid::Uuid;

use crate::games::rng::GameRng;
use crate::games::{AnyState, DynGame, Progress};
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::lifecycle::{WAITING, seed_of};
use crate::service::models::{PositionPrompt, PositionResponse};
use crate::service::records::Records;
use crate::service::visibility::{Access, Policy};
use crate::store;
use crate::store::entities::{matches, moves};

/// Steps between two kept positions of a match.
pub const CHECKPOINT_EVERY: i64 = 16;
/// Positions kept in all, over every match (each a parsed game state).
const CHECKPOINTS_KEPT: usize = 8192;
/// Steps between two positions kept with the match (`match_checkpoints`): a
/// multiple of [`CHECKPOINT_EVERY`], so a read replays at most this many steps
/// from the database's nearest, once it is there.
pub const KEPT_EVERY: i64 = 4 * CHECKPOINT_EVERY;

/// Positions of a match at any step, for the viewer asking.
pub struct Positions {
    db: DatabaseConnection,
    games: Arc<Games>,
    records: Arc<Records>,
    policy: Arc<Policy>,
    checkpoints: Cache<(Uuid, i64), Arc<AnyState>>,
}

impl Positions {
    pub fn new(
        db: DatabaseConnection,
        games: Arc<Games>,
        records: Arc<Records>,
        policy: Arc<Policy>,
    ) -> Self {
        Self {
            db,
            games,
            records,
            policy,
            checkpoints: Cache::new(CHECKPOINTS_KEPT),
        }
    }

    /// The match `id` as it stood at `step`, as `caller` may see it.
    pub async fn position(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
        step: i64,
    ) -> Result<PositionResponse> {
        let snap = self.records.snapshot(id).await?;
        let access = self
            .policy
            .access(&self.db, &snap.row, &snap.seats, caller)
            .await?;
        let m = &snap.row;
        let Some(now) = snap.state.as_ref().filter(|_| m.status != WAITING) else {
            return Err(no_position(step, None));
        };
        if !(0..=m.step).contains(&step) {
            return Err(no_position(step, Some(m.step)));
        }
        let replayed;
        let state = if step == m.step {
            now
        } else {
            replayed = self.replay_to(m, step).await?;
            replayed.as_ref()
        };
        self.shown(m, step, state, access)
    }

    /// A position as `access` may see it: the one shape of the positions
    /// endpoint and of the export's.
    fn shown(
        &self,
        m: &matches::Model,
        step: i64,
        state: &AnyState,
        access: Access,
    ) -> Result<PositionResponse> {
        let game = self.games.of(&m.game)?;
        let prompt = match game.progress(state)? {
            Progress::Active(p) => Some(PositionPrompt {
                round: p.round,
                kind: p.kind,
                sealed: p.sealed,
                awaiting: p.awaiting,
            }),
            Progress::Finished(_) => None,
        };
        Ok(PositionResponse {
            match_id: m.id,
            step,
            last_step: m.step,
            your_seat: access.seat(),
            view: game.view_json(state, access.viewer())?,
            prompt,
            state: if access.shows_secrets_of_setup() {
                Some(game.state_value(state)?)
            } else {
                None
            },
        })
    }

    /// Every position of a started match, 0 to its step, as `access` may see
    /// them: one replay from the start (the export's, which reads each match
    /// once; the checkpoints are left to single reads).
    pub async fn all_positions(
        &self,
        m: &matches::Model,
        access: Access,
    ) -> Result<Vec<PositionResponse>> {
        if m.status == WAITING {
            return Ok(Vec::new());
        }
        let game = self.games.of(&m.game)?;
        let seed = seed_of(m)?;
        let mut state = self
            .games
            .initial_state(&self.db, m, m.seat_count as usize)
            .await?;
        // The current step's moves too: its position is the position now, with
        // the sealed moves already played in it (as `position` answers).
        let moves = store::moves::standing_moves_between(&self.db, m.id, 0, m.step + 1).await?;
        let mut moves = moves.into_iter().peekable();
        let mut out = Vec::with_capacity(m.step as usize + 1);
        for step in 0..=m.step {
            if step < m.step {
                out.push(self.shown(m, step, &state, access)?);
            }
            while let Some(mv) = moves.next_if(|mv| mv.step == step) {
                state = apply_move(game, &state, &mv, &seed)?;
            }
        }
        out.push(self.shown(m, m.step, &state, access)?);
        Ok(out)
    }

    /// The state after every standing move of the steps before `step`, from the
    /// nearest checkpoint kept in this process, or kept with the match when that
    /// is nearer by [`KEPT_EVERY`] steps or more (else from the start), keeping
    /// those it passes: in this process every [`CHECKPOINT_EVERY`] steps, with
    /// the match every [`KEPT_EVERY`] steps when it looked there.
    async fn replay_to(&self, m: &matches::Model, step: i64) -> Result<Arc<AnyState>> {
        let game = self.games.of(&m.game)?;
        let base = step - step % CHECKPOINT_EVERY;
        let mut from = base;
        let mut state = loop {
            if from == 0 {
                break None;
            }
            if let Some(s) = self.checkpoints.get(&(m.id, from)) {
                break Some(s);
            }
            from -= CHECKPOINT_EVERY;
        };
        if from == step
            && let Some(s) = state.clone()
        {
            return Ok(s);
        }
        // A long replay ahead: the positions kept with the match (written by an
        // earlier read, in this process or another) may spare most of it. A short
        // one (a warm read) asks the database nothing more.
        let far = step - from >= KEPT_EVERY;
        let mut kept_up_to = 0;
        if far
            && let Some((at, text)) =
                store::moves::checkpoint_at_or_before(&self.db, m.id, step).await?
        {
            kept_up_to = at;
            if at > from {
                let kept = Arc::new(self.games.parse_stored(m, &text).await?);
                if at % CHECKPOINT_EVERY == 0 {
                    self.checkpoints.insert((m.id, at), kept.clone());
                }
                if at == step {
                    return Ok(kept);
                }
                from = at;
                state = Some(kept);
            }
        }
        let mut current: AnyState = match state.take() {
            Some(s) => (*s).clone(),
            None => {
                self.games
                    .initial_state(&self.db, m, m.seat_count as usize)
                    .await?
            }
        };
        if from == 0 {
            self.checkpoints
                .insert((m.id, 0), Arc::new(current.clone()));
        }
        let seed = seed_of(m)?;
        let moves = store::moves::standing_moves_between(&self.db, m.id, from, step).await?;
        // Positions to keep with the match: those this replay passes that the
        // match has none of yet (every one above the nearest it has).
        let mut to_keep = Vec::new();
        let mut keep = |at: i64, state: &AnyState| -> Result<()> {
            if far && at > kept_up_to && at % KEPT_EVERY == 0 {
                to_keep.push((at, game.state_text(state)?));
            }
            Ok(())
        };
        let mut at = from;
        for mv in moves {
            while at < mv.step {
                at += 1;
                if at % CHECKPOINT_EVERY == 0 {
                    self.checkpoints
                        .insert((m.id, at), Arc::new(current.clone()));
                    keep(at, &current)?;
                }
            }
            current = apply_move(game, &current, &mv, &seed)?;
        }
        keep(step, &current)?;
        let current = Arc::new(current);
        if step % CHECKPOINT_EVERY == 0 {
            self.checkpoints.insert((m.id, step), current.clone());
        }
        // Only a shortcut for later reads: a failure to keep one costs them a
        // longer replay, never this answer.
        if let Err(e) = store::moves::keep_checkpoints(&self.db, m.id, to_keep).await {
            tracing::warn!(match_id = %m.id, error = %e, "positions not kept with the match");
        }
        Ok(current)
    }
}

/// A stored move applied to the state it was played in, with its step's draws.
fn apply_move(
    game: &dyn DynGame,
    state: &AnyState,
    mv: &moves::Model,
    seed: &[u8; 32],
) -> Result<AnyState> {
    let action: Value = serde_json::from_str(&mv.action).map_err(Error::internal)?;
    Ok(game
        .apply(
            state,
            mv.seat as usize,
            &action,
            &mut GameRng::for_step(seed, mv.step as u64),
        )
        .map_err(|e| Error::internal(format!("move {} does not replay: {e:?}", mv.id)))?
        .transition
        .state)
}

/// The answer to a step the match has no position for (yet).
fn no_position(step: i64, last: Option<i64>) -> Error {
    match last {
        None => Error::not_found(
            "position_not_found",
            "This match has not started: it has no positions yet.",
        )
        .arg("reason", "not_started"),
        Some(last) => Error::not_found(
            "position_not_found",
            format!("This match has no position {step}: its positions are 0 to {last}."),
        )
        .arg("reason", "beyond")
        .arg("step", step)
        .arg("last", last),
    }
}
