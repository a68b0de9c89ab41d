//! "Play again": a finished match's rematch, made once whoever asks first.

use serde_json::Value;
use uuid::Uuid;

use super::{JoinMatch, Lobby, new_seed};
use crate::auth::AuthenticatedPlayer;
use crate::games::rng::sha256_hex;
use crate::service::caps::Adding;
use crate::service::error::{Error, Result};
use crate::service::lifecycle::{FINISHED, WAITING, not_found};
use crate::service::models::MatchResponse;
use crate::service::options::visibility_of;
use crate::service::tx::transaction;
use crate::service::visibility::PRIVATE;
use crate::store;
use crate::store::entities::matches;

impl Lobby {
    /// "Play again": a new match of a finished one's game with its options and
    /// visibility, a new seed (and join code), its owner the first to ask. The
    /// asker and the bots keep their seats; every other player of the finished
    /// match is invited, and accepts by asking for the rematch too (or by
    /// accepting the invitation, or joining). Asking again, by anyone, answers
    /// the same rematch.
    pub async fn rematch(
        &self,
        me: &AuthenticatedPlayer,
        old_id: Uuid,
    ) -> Result<(MatchResponse, bool), Error> {
        let made = transaction!(&self.db, |tx| {
            let old = store::matches::lock_match(tx, old_id)
                .await?
                .ok_or_else(not_found)?;
            let seats = store::matches::seats_of(tx, old_id).await?;
            let Some(mine) = seats
                .iter()
                .find(|s| s.player_id == me.id && s.bot.is_none())
            else {
                return Err(self.policy.not_seated(tx, &old, &seats, me.id).await);
            };
            if old.status != FINISHED {
                return Err(Error::conflict(
                    "match_not_finished",
                    "A rematch is offered once the match is finished.",
                ));
            }
            if let Some(existing) = store::community::rematch_of(tx, old_id).await? {
                return Ok::<_, Error>((existing, None));
            }
            self.games.of(&old.game)?;
            let data = self
                .games
                .data
                .current(&old.game)
                .ok_or_else(|| Error::internal("no component data"))?;
            let options: Value = serde_json::from_str(&old.options).map_err(Error::internal)?;
            let asked_rated = options
                .get("rated")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            let seed = new_seed()?;
            let shown = visibility_of(Some(old.visibility.clone()), Some(old.spectators))?;
            let now = self.clock.now();
            let row = matches::Model {
                id: Uuid::now_v7(),
                game: old.game.clone(),
                status: WAITING.into(),
                seat_count: old.seat_count,
                owner_id: Some(me.id),
                options: old.options.clone(),
                position: old.position.clone(),
                rated: asked_rated && old.position.is_none() && old.visibility != PRIVATE,
                seed: seed.to_vec(),
                seed_sha256: sha256_hex(&seed),
                state: None,
                step: 0,
                version: 0,
                engine_version: env!("CARGO_PKG_VERSION").into(),
                data_sha256: data.sha256.clone(),
                created_at: now,
                started_at: None,
                finished_at: None,
                updated_at: now,
                variant: old.variant.clone(),
                deadline_at: None,
                move_time_limit: old.move_time_limit,
                absent_move_time_limit: old.absent_move_time_limit,
                timeout_policy: old.timeout_policy.clone(),
                step_started_at: None,
                visibility: shown.visibility,
                spectators: shown.spectators,
                join_code: shown.join_code,
                rematch_of: Some(old_id),
                chat: old.chat.clone(),
                club_id: old.club_id,
                bank_initial_seconds: old.bank_initial_seconds,
                bank_increment_seconds: old.bank_increment_seconds,
                bank_cap_seconds: old.bank_cap_seconds,
                playing_hours_zone: old.playing_hours_zone.clone(),
                playing_hours_from: old.playing_hours_from,
                playing_hours_to: old.playing_hours_to,
                grace_extensions: old.grace_extensions,
                grace_seconds: old.grace_seconds,
            };
            let others: Vec<Uuid> = seats
                .iter()
                .filter(|s| s.bot.is_none() && s.player_id != me.id)
                .map(|s| s.player_id)
                .collect();
            let adding = Adding {
                // Played against bots only, it starts at once.
                waiting_matches: u32::from(!others.is_empty()),
                invitations: others.len() as u32,
                ..Adding::default()
            };
            self.caps.check_locked(tx, me, adding).await?;
            store::matches::insert_match(tx, row.clone()).await?;
            let mut m = row;
            let mut seated = vec![
                self.seat_locked(
                    tx,
                    &mut m,
                    &[],
                    me.id,
                    super::SeatFor::ByServer,
                    Some(i64::from(mine.seat)),
                )
                .await?,
            ];
            for bot in seats.iter().filter(|s| s.bot.is_some()) {
                let kind = bot.bot.clone().unwrap_or_default();
                let s = self
                    .seat_bot_at_locked(tx, &mut m, &seated, &kind, Some(i64::from(bot.seat)))
                    .await?;
                seated.push(s);
            }
            let players = store::players::players_by_ids(tx, others).await?;
            let invitees = crate::service::invitations::Invitees {
                players,
                expires_at: now + self.invitation_ttl,
            };
            self.invitations
                .invite_locked(tx, &mut m, me.id, &invitees)
                .await?;
            if seated.len() == m.seat_count as usize {
                m = self.play.start_locked(tx, m).await?;
            }
            store::matches::update_match(tx, m.clone()).await?;
            Ok((m.id, Some(m)))
        })?;
        let (id, made) = made;
        // Told once committed: a wake-up before the commit sends a reader (an
        // invitee's feed) to a match it cannot see yet, which it then takes
        // for not its own.
        if let Some(m) = &made {
            self.commits.committed(m);
            tracing::info!(match.id = %m.id, rematch_of = %old_id, "rematch created");
        }
        let created = made.is_some();
        if !created {
            if let Ok(current) = self.reads.get_match(Some(me.id), id).await
                && current.your_seat.is_some()
            {
                return Ok((current, false));
            }
            // Accepting: the invitation (or the match's openness) decides.
            return Ok((self.join_match(me, id, JoinMatch::default()).await?, false));
        }
        Ok((self.reads.get_match(Some(me.id), id).await?, true))
    }
}
