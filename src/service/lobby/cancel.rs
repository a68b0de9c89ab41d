//! Waiting matches ended before they start: cancelled by their owner, or swept
//! by the server when nobody joined for too long.

use sea_orm::DatabaseTransaction;
use uuid::Uuid;

use super::Lobby;
use crate::auth::AuthenticatedPlayer;
use crate::games::Event;
use crate::service::error::{Error, Result};
use crate::service::lifecycle::{ABORTED, WAITING, not_found, record_events};
use crate::service::models::MatchResponse;
use crate::service::tx::transaction;
use crate::store;
use crate::store::entities::matches;

impl Lobby {
    pub async fn cancel_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, Error> {
        transaction!(&self.db, |tx| {
            let mut m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            self.policy.require_waiting_owner(tx, &m, me).await?;
            self.abort_waiting(tx, &mut m, "cancelled").await?;
            Ok::<_, Error>(m)
        })
        .map(|m| self.commits.committed(&m))?;
        self.reads.get_match(Some(me.id), id).await
    }

    /// Aborts a waiting match locked in `tx`, with its `match_aborted` event
    /// saying why (`cancelled` by its owner, `stale` by the server).
    pub(in crate::service) async fn abort_waiting(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        reason: &str,
    ) -> Result<(), Error> {
        let now = self.clock.now();
        m.status = ABORTED.into();
        m.finished_at = Some(now);
        m.updated_at = now;
        m.version += 1;
        let aborted = Event::public("match_aborted", serde_json::json!({ "reason": reason }));
        record_events(tx, m, &[aborted], now).await?;
        store::matches::update_match(tx, m.clone()).await?;
        Ok(())
    }

    /// Cancels the waiting matches that nobody joined or left for the lobby's
    /// time (`STALE_LOBBY_DAYS`), with a `match_aborted` event of reason
    /// `stale`; at most once a minute of the service's clock, from every
    /// replica's poller. As with deadlines, the candidates are a plain read and
    /// each is claimed by id (`SKIP LOCKED`) and checked again under its lock, so
    /// on a distributed database no lock spans shards and each match is
    /// cancelled once.
    pub async fn cancel_stale_lobbies(&self) -> Result<usize, Error> {
        let Some(stale) = self.stale_lobby else {
            return Ok(0);
        };
        let now = self.clock.now();
        {
            let mut last = self
                .last_lobby_sweep
                .lock()
                .map_err(|_| Error::internal("lobby sweep lock poisoned"))?;
            if last.is_some_and(|at| now - at < chrono::Duration::seconds(60)) {
                return Ok(0);
            }
            *last = Some(now);
        }
        let cutoff = now - stale;
        let mut cancelled = 0;
        for id in store::matches::stale_lobbies(&self.db, cutoff, 100).await? {
            let done = transaction!(&self.db, |tx| {
                let Some(mut m) = store::matches::try_lock_match(tx, id).await? else {
                    return Ok::<_, Error>(None);
                };
                if m.status != WAITING || m.updated_at > cutoff {
                    return Ok(None);
                }
                self.abort_waiting(tx, &mut m, "stale").await?;
                Ok(Some(m))
            })?;
            if let Some(m) = done {
                self.commits.committed(&m);
                tracing::info!(match.id = %m.id, "stale waiting match cancelled");
                cancelled += 1;
            }
        }
        Ok(cancelled)
    }
}
