//! Deadlines: every replica polls for expired steps and plays the awaited seats'
//! null moves, each deadline exactly once however many replicas run.

use super::Service;
use super::matches::state_of;
use crate::errors::ApiError;
use crate::games::Progress;
use crate::store;

/// How many expired matches one poll handles.
const BATCH: u64 = 20;

impl Service {
    /// Handles every match whose deadline has passed; answers how many it handled.
    pub async fn expire_deadlines(&self) -> Result<usize, ApiError> {
        let tx = store::begin_write(&self.db).await?;
        let now = self.clock.now();
        let due = store::lock_due_matches(&tx, now, BATCH).await?;
        let handled = due.len();
        for mut m in due {
            // Re-checked under the lock: the row is current, and its deadline passed.
            if m.deadline_at.is_none_or(|at| at > now) {
                continue;
            }
            let game = self.game_of(&m.game)?;
            let seats = store::seats_of(&tx, m.id).await?;
            let step = m.step;
            // Null moves for every awaited seat of this step.
            while m.step == step {
                let Some(state) = state_of(&m)? else { break };
                let Progress::Active(prompt) = game.progress(&state)? else {
                    break;
                };
                let Some(seat) = prompt.awaiting.first().copied() else {
                    break;
                };
                let Some(action) = game.null_move(&state, seat)? else {
                    break;
                };
                let player = seats
                    .iter()
                    .find(|s| s.seat as usize == seat)
                    .map(|s| s.player_id);
                let game_id = m.game.clone();
                let row = self
                    .apply_locked(&tx, &mut m, &seats, &state, seat, player, action, None)
                    .await?;
                self.count_move(&game_id, row.completes_step);
                tracing::info!(match.id = %m.id, seat, step, "deadline passed: null move played");
            }
            if m.step == step {
                // Nothing more to play: drop the deadline rather than poll it forever.
                m.deadline_at = None;
            }
            store::update_match(&tx, m).await?;
        }
        tx.commit().await?;
        Ok(handled)
    }
}
