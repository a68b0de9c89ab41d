//! A player's feed: the events of every match it is seated in or invited to,
//! as a page or a stream, in the order they settled.

use std::collections::HashSet;
use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::{
    KEEPALIVE, PAGE, PlayerEventPage, PlayerEventResponse, RETRY_MS, SHUTDOWN_RETRY_MS,
    StreamFrame, StreamHolder, Streams, bad_last_event_id, event_json, event_response,
    player_event_json,
};
use crate::service::error::{Error, Result};
use crate::service::hub::Wake;
use crate::store;
use crate::store::entities::events;
use crate::store::streams::StreamPosition;

impl Streams {
    /// A page of the player's events (what its stream carries), oldest first.
    pub async fn player_events_page(
        &self,
        player: Uuid,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<PlayerEventPage, Error> {
        let limit = crate::service::pages::page_limit(limit)?;
        let after = match cursor {
            Some(c) => {
                let raw = crate::service::pages::decode_cursor(&c)?;
                let bad = || {
                    Error::bad_request(
                        "invalid_cursor",
                        "The cursor is not one this server issued.",
                    )
                };
                let (tx, id) = raw.split_once('.').ok_or_else(bad)?;
                StreamPosition {
                    tx: tx.parse().map_err(|_| bad())?,
                    id: id.parse().map_err(|_| bad())?,
                }
            }
            None => StreamPosition { tx: -1, id: 0 },
        };
        let settled = self.settled.settled_tx().await?;
        let mut rows = store::streams::player_events_after(
            &self.db,
            player,
            after,
            limit + 1,
            settled,
            self.clock.now(),
        )
        .await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = if more {
            rows.last()
                .map(|e| crate::service::pages::encode_cursor(&format!("{}.{}", e.tx, e.id)))
        } else {
            None
        };
        let items = rows
            .iter()
            .map(|e| {
                Ok(PlayerEventResponse {
                    match_id: e.match_id,
                    event: event_response(e)?,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(PlayerEventPage { items, next_cursor })
    }

    /// Every event of every match the player holds a seat in (public ones and
    /// its own seat's) as a stream, from `last_event_id` (from now without one).
    pub async fn player_stream(
        self: &Arc<Self>,
        holder: StreamHolder,
        last_event_id: Option<&str>,
        with_prompts: bool,
    ) -> Result<mpsc::Receiver<StreamFrame>, Error> {
        let player = holder.player;
        let start = match last_event_id {
            Some(s) => {
                let (tx, id) = s.trim().split_once('.').ok_or_else(bad_last_event_id)?;
                StreamPosition {
                    tx: tx.parse().map_err(|_| bad_last_event_id())?,
                    id: id.parse().map_err(|_| bad_last_event_id())?,
                }
            }
            None => store::streams::stream_head(&self.db).await?,
        };
        let (tx, rx) = mpsc::channel(64);
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this
                .run_player_stream(holder, start, with_prompts, &tx)
                .await
            {
                tracing::warn!(player.id = %player, error = %e, "player stream ended");
            }
        });
        Ok(rx)
    }

    pub(super) async fn run_player_stream(
        &self,
        holder: StreamHolder,
        mut at: StreamPosition,
        with_prompts: bool,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<(), Error> {
        let player = holder.player;
        let holder = Some(holder);
        // The reads below are boxed while they run: inlined, they would make
        // the task of every open stream as large as the largest of them, for
        // as long as it waits (docs/decisions.md, "a waiting stream holds less").
        // Subscribed before the first read, so no batch read after it is missed.
        let mut batches = self.feed.subscribe();
        let mut wakes = self.hub.subscribe_beyond_events();
        let mut credentials = self.hub.subscribe_credentials();
        let mut stop = self.hub.shutdown_signal();
        if out.send(StreamFrame::Retry(RETRY_MS)).await.is_err() {
            return Ok(());
        }
        // The matches the player follows: an event of another one means it
        // joined or was invited since, and the database is asked for that
        // match's events the stream has not sent (the feed filtered them by
        // who followed the match when it read them).
        let mut followed: HashSet<Uuid> =
            store::streams::followed_matches(&self.db, player, self.clock.now())
                .await?
                .into_iter()
                .collect();
        // The matches whose events were sent since the last prompts (with
        // `with_prompts`): each gets the player's prompt after its batch.
        let mut touched: Vec<(Uuid, i64)> = Vec::new();
        let Some(caught_up) = Box::pin(self.catch_up(player, at, &mut touched, out)).await? else {
            return Ok(());
        };
        // `at` is the last event sent; `fed` how far the feed's batches were read.
        at = caught_up;
        if with_prompts {
            // At the start, every match where a move is owed now.
            for turn in Box::pin(self.reads.turns_of(player)).await?.items {
                touch(&mut touched, turn.match_id, 0);
            }
            if !Box::pin(self.send_prompts(player, &mut touched, out)).await? {
                return Ok(());
            }
        }
        touched.clear();
        let mut fed = at;
        let mut quiet_until = tokio::time::Instant::now() + KEEPALIVE;
        loop {
            tokio::select! {
                b = batches.recv() => {
                    let batch = match b {
                        Ok(batch) => batch,
                        // Batches passed while this stream wrote to its reader:
                        // the database has them.
                        Err(RecvError::Lagged(_)) => {
                            let Some(caught_up) = Box::pin(self.catch_up(player, at, &mut touched, out)).await? else {
                                return Ok(());
                            };
                            at = caught_up;
                            if with_prompts && !Box::pin(self.send_prompts(player, &mut touched, out)).await? {
                                return Ok(());
                            }
                            touched.clear();
                            continue;
                        }
                        Err(RecvError::Closed) => return Ok(()),
                    };
                    let followers = batch.followers(&self.db, self.clock.as_ref()).await?;
                    let shown = |e: &events::Model, at: StreamPosition| {
                        StreamPosition { tx: e.tx, id: e.id } > at && followers.shown_to(player, e)
                    };
                    let mut joined = false;
                    for e in batch.events.iter().filter(|e| shown(e, at)) {
                        joined |= followed.insert(e.match_id);
                    }
                    // The feed read events this stream has not seen (it started
                    // after them, or was told of them late), or the player
                    // follows a match it did not.
                    if batch.from > fed || joined {
                        let Some(caught_up) = Box::pin(self.catch_up(player, at, &mut touched, out)).await? else {
                            return Ok(());
                        };
                        at = caught_up;
                    }
                    let mut sent = false;
                    let json = if batch.events.iter().any(|e| shown(e, at)) {
                        batch.json()?
                    } else {
                        &[]
                    };
                    for (e, json) in batch.events.iter().zip(json) {
                        if !shown(e, at) {
                            continue;
                        }
                        let frame = StreamFrame::event(format!("{}.{}", e.tx, e.id), e.kind.clone(), player_event_json(e.match_id, json));
                        if out.send(frame).await.is_err() {
                            return Ok(());
                        }
                        at = StreamPosition { tx: e.tx, id: e.id };
                        touch(&mut touched, e.match_id, e.version);
                        sent = true;
                    }
                    if with_prompts && !Box::pin(self.send_prompts(player, &mut touched, out)).await? {
                        return Ok(());
                    }
                    touched.clear();
                    if sent {
                        quiet_until = tokio::time::Instant::now() + KEEPALIVE;
                    }
                    fed = fed.max(batch.to);
                }
                w = wakes.recv() => match w {
                    // The feed reads the matches' events; a stream hears only
                    // of what may concern its credential.
                    Ok(Wake::Match(_) | Wake::Chat(_)) => {}
                    Ok(Wake::All) | Err(RecvError::Lagged(_)) => {
                        if Box::pin(self.ended_by_credential(holder.as_ref(), out)).await? {
                            return Ok(());
                        }
                    }
                    Err(RecvError::Closed) => return Ok(()),
                },
                c = credentials.recv() => {
                    if Box::pin(self.ends_on_notice(c, holder.as_ref(), out)).await? {
                        return Ok(());
                    }
                }
                _ = tokio::time::sleep(self.until_expiry(holder.as_ref())) => {
                    if Box::pin(self.ended_by_credential(holder.as_ref(), out)).await? {
                        return Ok(());
                    }
                }
                _ = tokio::time::sleep_until(quiet_until) => {
                    // Also the backstop for a credential change whose notice was lost.
                    if Box::pin(self.ended_by_credential(holder.as_ref(), out)).await?
                        || out.send(StreamFrame::KeepAlive).await.is_err()
                    {
                        return Ok(());
                    }
                    quiet_until = tokio::time::Instant::now() + KEEPALIVE;
                }
                _ = stop.changed() => {
                    let _ = out.send(StreamFrame::Retry(SHUTDOWN_RETRY_MS)).await;
                    return Ok(());
                }
                _ = out.closed() => return Ok(()),
            }
        }
    }

    /// Sends the player's settled events after `at` from the database: where
    /// the stream stands then, or `None` when its reader went away.
    async fn catch_up(
        &self,
        player: Uuid,
        mut at: StreamPosition,
        touched: &mut Vec<(Uuid, i64)>,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<Option<StreamPosition>, Error> {
        loop {
            let settled = self.settled.settled_tx().await?;
            let rows = store::streams::player_events_after(
                &self.db,
                player,
                at,
                PAGE,
                settled,
                self.clock.now(),
            )
            .await?;
            for e in &rows {
                if !send_event(out, e).await? {
                    return Ok(None);
                }
                at = StreamPosition { tx: e.tx, id: e.id };
                touch(touched, e.match_id, e.version);
            }
            if (rows.len() as u64) < PAGE {
                return Ok(Some(at));
            }
        }
    }
}

impl Streams {
    /// Sends the player's prompt in each match of `touched` (null where it is
    /// over or gone), as `event: prompt` frames without a position, each drawn
    /// from the match at least at the version of the last event sent of it;
    /// false when the reader went away.
    async fn send_prompts(
        &self,
        player: Uuid,
        touched: &mut Vec<(Uuid, i64)>,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<bool, Error> {
        for (id, version) in touched.drain(..) {
            let prompt = match self.reads.prompt_for(player, id, version).await {
                Ok(p) => p,
                // Gone, or no longer the player's to read: nothing owed there.
                Err(Error::Refused(_)) => None,
                Err(e) => return Err(e),
            };
            let data = serde_json::json!({ "match_id": id, "prompt": prompt });
            let frame = StreamFrame::unpositioned("prompt", data.to_string());
            if out.send(frame).await.is_err() {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// Notes that an event of version `version` of match `id` was sent: its
/// prompt is due, drawn from that version or a later one.
fn touch(touched: &mut Vec<(Uuid, i64)>, id: Uuid, version: i64) {
    match touched.iter_mut().find(|(m, _)| *m == id) {
        Some((_, v)) => *v = (*v).max(version),
        None => touched.push((id, version)),
    }
}

/// Sends one event of a player's feed; false when the reader went away.
async fn send_event(out: &mpsc::Sender<StreamFrame>, e: &events::Model) -> Result<bool, Error> {
    let frame = StreamFrame::event(
        format!("{}.{}", e.tx, e.id),
        e.kind.clone(),
        player_event_json(e.match_id, &event_json(e)?),
    );
    Ok(out.send(frame).await.is_ok())
}
