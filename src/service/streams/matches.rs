//! A match's stream: its events as the reader may see them, interleaved with
//! its chat, from where the reader resumes, until the match is over and told.
//!
//! The events come from the feed's batches (one read of the log for every
//! stream of the process); the database is read at the start, when the
//! match's chat changed, when the stream fell behind the feed, while the
//! caller's seat may still change, and at the end. A match's events commit in
//! the order of their ids (each write holds the match), so a stream that
//! subscribed to the feed before its first read finds every later event of the
//! match in a batch, in order once sorted by id.

use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::chat;
use super::feed::{Batch, MatchBatch};
use super::{
    CHAT_PAGE, KEEPALIVE, PAGE, RETRY_MS, SHUTDOWN_RETRY_MS, StreamAuth, StreamFrame, StreamHolder,
    Streams, event_json, parse_match_position,
};
use crate::service::error::{Error, Result};
use crate::service::hub::Wake;
use crate::service::lifecycle::{ACTIVE, WAITING, not_found};
use crate::service::visibility::{event_in_scope, event_scope};
use crate::store;
use crate::store::entities::{events, match_messages};

/// How often an open match stream renews its watcher record.
const WATCH_RENEW: std::time::Duration = std::time::Duration::from_secs(30);
/// How long a watcher record lasts: a few renewals, so one late write does
/// not drop it.
const WATCH_FOR: std::time::Duration = std::time::Duration::from_secs(95);

impl Streams {
    /// A match's events as a stream: every event the caller may see after
    /// `last_event_id` (from the start of the match without one), then each new
    /// one as it happens. The stream ends once the match is over and told.
    pub async fn match_stream(
        self: &Arc<Self>,
        auth: StreamAuth,
        id: Uuid,
        last_event_id: Option<&str>,
        with_prompt: bool,
    ) -> Result<mpsc::Receiver<StreamFrame>, Error> {
        let after = last_event_id.map(parse_match_position).transpose()?;
        let holder = match auth {
            StreamAuth::Player(h) => Some(h),
            StreamAuth::Anonymous => None,
        };
        self.policy
            .access_by_id(holder.as_ref().map(|h| h.player), id)
            .await?;
        // Where the chat resumes: after the message a chat frame named, or
        // after what was written before the event an event frame named.
        let chat_at = match after {
            None => 0,
            Some((_, Some(seq))) => seq,
            Some((event, None)) => store::chat::chat_seq_before_event(&self.db, id, event).await?,
        };
        let after = after.map(|(event, _)| event);
        let (tx, rx) = mpsc::channel(64);
        if let Some(h) = &holder {
            self.keep_watching(id, h.player, tx.downgrade());
        }
        let this = self.clone();
        tokio::spawn(async move {
            if let Err(e) = this
                .run_match_stream(id, holder, (after, chat_at), with_prompt, &tx)
                .await
            {
                tracing::warn!(match.id = %id, error = %e, "match stream ended");
            }
        });
        Ok(rx)
    }

    /// Records, while the stream lives, that its reader is watching the
    /// match (renewed every [`WATCH_RENEW`], for [`WATCH_FOR`]), on every
    /// replica's behalf: a turn mail is not sent to somebody watching. A
    /// stream that ended is forgotten when its last record runs out.
    fn keep_watching(&self, id: Uuid, player: Uuid, out: mpsc::WeakSender<StreamFrame>) {
        let (db, clock) = (self.db.clone(), self.clock.clone());
        tokio::spawn(async move {
            loop {
                match out.upgrade() {
                    Some(s) if !s.is_closed() => {}
                    _ => return,
                }
                let until = clock.now() + chrono::Duration::from_std(WATCH_FOR).unwrap_or_default();
                if let Err(e) = store::notifications::watch_match(&db, id, player, until).await {
                    tracing::debug!(match.id = %id, error = %e, "recording a watcher failed");
                }
                tokio::time::sleep(WATCH_RENEW).await;
            }
        });
    }

    pub(super) async fn run_match_stream(
        &self,
        id: Uuid,
        holder: Option<StreamHolder>,
        (after, chat_at): (Option<i64>, i64),
        with_prompt: bool,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<(), Error> {
        let player = holder.as_ref().map(|h| h.player);
        // The reads below are boxed while they run, as in the player stream.
        // Subscribed before the first read, so nothing committed after it is
        // missed: every event of the match is in that read or in a batch.
        let batches = self.feed.subscribe_match(id);
        let mut wakes = self.hub.subscribe_beyond_events();
        let mut credentials = self.hub.subscribe_credentials();
        let mut stop = self.hub.shutdown_signal();
        if out.send(StreamFrame::Retry(RETRY_MS)).await.is_err() {
            return Ok(());
        }
        let mut cur = Cursor {
            after,
            chat_at,
            through: 0,
            kept_seat: None,
            version: 0,
        };
        let mut first = true;
        let mut read = true;
        let mut quiet_until = tokio::time::Instant::now() + KEEPALIVE;
        loop {
            if read {
                read = false;
                let Some(round) =
                    Box::pin(self.read_match_round(id, player, &mut cur, out)).await?
                else {
                    return Ok(());
                };
                if with_prompt
                    && round.seat.is_some()
                    && (first || round.sent)
                    && !Box::pin(self.send_prompt(player, id, cur.version, out)).await?
                {
                    return Ok(());
                }
                first = false;
                if round.over {
                    return Ok(());
                }
                if round.sent {
                    quiet_until = tokio::time::Instant::now() + KEEPALIVE;
                }
            }
            tokio::select! {
                b = batches.recv() => match b {
                    MatchBatch::Batch(batch) => match Box::pin(self.take_batch(id, player.is_some(), &batch, &mut cur, out)).await? {
                        Taken::Gone => return Ok(()),
                        Taken::Read => read = true,
                        Taken::Sent { sent, seat, over } => {
                            if sent {
                                if with_prompt && seat.is_some() && !Box::pin(self.send_prompt(player, id, cur.version, out)).await? {
                                    return Ok(());
                                }
                                quiet_until = tokio::time::Instant::now() + KEEPALIVE;
                            }
                            if over {
                                // The match has nothing more to tell but the
                                // chat's last words, after which the stream ends.
                                return Box::pin(self.send_last_chat(id, player, &mut cur, out)).await;
                            }
                        }
                    },
                    // Batches passed while this stream wrote to its reader:
                    // the database has them.
                    MatchBatch::Lagged => read = true,
                },
                w = wakes.recv() => match w {
                    // The chat is not in the feed's batches: it is read here.
                    Ok(Wake::Chat(m)) if m == id => read = true,
                    Ok(Wake::Match(_) | Wake::Chat(_)) => {}
                    // Wake-ups, chat and credential changes among them, may
                    // have been missed.
                    Ok(Wake::All) | Err(RecvError::Lagged(_)) => {
                        if Box::pin(self.ended_by_credential(holder.as_ref(), out)).await? {
                            return Ok(());
                        }
                        read = true;
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

    /// Reads from the database what the stream has not sent: the match's
    /// status, the caller's seat while it may change, then its events and
    /// chat after the cursor, interleaved, up to the match's last event.
    /// `None` when the reader went away.
    async fn read_match_round(
        &self,
        id: Uuid,
        player: Option<Uuid>,
        cur: &mut Cursor,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<Option<Round>, Error> {
        let status = store::matches::match_status(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let over = status != ACTIVE && status != WAITING;
        // While the match waits the caller may take or leave a seat, and seats
        // are renumbered at the start; from then on the seat is fixed, so it is
        // read once instead of at every round.
        let seat = match (player, cur.kept_seat) {
            (None, _) => None,
            (Some(_), Some(kept)) => kept,
            (Some(p), None) => {
                let seat = store::matches::seat_of_player(&self.db, id, p).await?;
                if status != WAITING {
                    cur.kept_seat = Some(seat);
                }
                seat
            }
        };
        let mut sent = false;
        loop {
            // The chat is interleaved with the events by the event each
            // message followed: the match's last event id is read first, and
            // neither an event nor a message past it is sent in this round
            // (what was written before an event committed before it, so it is
            // read below).
            let horizon = store::chat::last_event_id(&self.db, id).await?;
            let chat = store::chat::chat_after(&self.db, id, cur.chat_at, CHAT_PAGE).await?;
            // Read as the chat comes, so a mute counts from the next message.
            let muted = if chat.is_empty() {
                Vec::new()
            } else {
                self.chat.muted_by(player).await?
            };
            let mut bound = horizon;
            let chat_full = chat.len() as u64 == CHAT_PAGE;
            if chat_full {
                bound = bound.min(chat.last().map_or(0, |c| c.after_event));
            }
            let mut chat = chat.into_iter().peekable();
            let scope = event_scope(seat.map(|s| s as usize));
            let rows = store::moves::events_of(&self.db, id, scope, cur.after, PAGE).await?;
            let events_full = rows.len() as u64 == PAGE;
            let read = rows.len();
            let rows: Vec<_> = rows.into_iter().filter(|e| e.id <= bound).collect();
            // Events are read in order: with some past the bound (or a
            // short page), every one up to it was read.
            let dropped = rows.len() < read;
            let all_events = dropped || !events_full;
            sent |= !rows.is_empty();
            for e in &rows {
                while let Some(c) = chat.next_if(|c| c.after_event < e.id) {
                    cur.chat_at = c.seq;
                    if !self.send_chat(&c, cur.after, &muted, out).await? {
                        return Ok(None);
                    }
                }
                if !send_match_event(out, e).await? {
                    return Ok(None);
                }
                cur.after = Some(e.id);
                cur.version = cur.version.max(e.version);
            }
            // Every event up to the bound sent: the messages written up to
            // it follow; otherwise those written before the last one sent.
            let chat_bound = if all_events {
                bound
            } else {
                cur.after.unwrap_or(0)
            };
            while let Some(c) = chat.next_if(|c| c.after_event <= chat_bound) {
                cur.chat_at = c.seq;
                if !self.send_chat(&c, cur.after, &muted, out).await? {
                    return Ok(None);
                }
            }
            if !(events_full || chat_full || dropped) {
                // Every event of the match up to the horizon, of any
                // audience, is taken in: sent, or not the reader's.
                cur.through = cur.through.max(horizon);
                return Ok(Some(Round { seat, sent, over }));
            }
        }
    }

    /// Sends the match's events of one of the feed's batches, when the batch
    /// can be trusted to hold every one the stream has not taken in yet (the
    /// stream subscribed before its first read, so it can unless the caller's
    /// seat may still change, or the batch ends at a page and a later one may
    /// hold an event of the match with a smaller id).
    async fn take_batch(
        &self,
        id: Uuid,
        seated_caller: bool,
        batch: &Batch,
        cur: &mut Cursor,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<Taken, Error> {
        let new = |e: &events::Model| e.match_id == id && e.id > cur.through;
        let mut mine: Vec<(&events::Model, &String)> = if batch.events.iter().any(new) {
            batch
                .events
                .iter()
                .zip(batch.json()?)
                .filter(|(e, _)| new(e))
                .collect()
        } else {
            Vec::new()
        };
        if mine.is_empty() {
            return Ok(Taken::Sent {
                sent: false,
                seat: None,
                over: false,
            });
        }
        let seat = match (seated_caller, cur.kept_seat) {
            (false, _) => None,
            (true, Some(seat)) => seat,
            (true, None) => return Ok(Taken::Read),
        };
        if batch.more {
            return Ok(Taken::Read);
        }
        // Within a batch the events of one match may come out of their order.
        mine.sort_unstable_by_key(|(e, _)| e.id);
        let scope = event_scope(seat.map(|s| s as usize));
        let mut sent = false;
        let mut over = false;
        for (e, json) in mine {
            if event_in_scope(scope, e.audience_seat) {
                let frame = StreamFrame::event(e.id.to_string(), e.kind.clone(), json.clone());
                if out.send(frame).await.is_err() {
                    return Ok(Taken::Gone);
                }
                cur.after = Some(e.id);
                cur.version = cur.version.max(e.version);
                sent = true;
            }
            cur.through = e.id;
            over |= FINAL_KINDS.contains(&e.kind.as_str());
        }
        Ok(Taken::Sent { sent, seat, over })
    }

    /// Sends what is left of a finished match's chat: every message after the
    /// cursor. The match's last event is sent, so every message is written
    /// after an event the stream has taken in, and none is held back as a
    /// round's reading holds back those written after its horizon.
    async fn send_last_chat(
        &self,
        id: Uuid,
        player: Option<Uuid>,
        cur: &mut Cursor,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<(), Error> {
        loop {
            let chat = store::chat::chat_after(&self.db, id, cur.chat_at, CHAT_PAGE).await?;
            if chat.is_empty() {
                return Ok(());
            }
            let muted = self.chat.muted_by(player).await?;
            for c in &chat {
                cur.chat_at = c.seq;
                if !self.send_chat(c, cur.after, &muted, out).await? {
                    return Ok(());
                }
            }
            if (chat.len() as u64) < CHAT_PAGE {
                return Ok(());
            }
        }
    }

    /// Sends the caller's prompt in the match (null once it is over), drawn
    /// from version `at_least` or a later one; false when the reader went away.
    async fn send_prompt(
        &self,
        player: Option<Uuid>,
        id: Uuid,
        at_least: i64,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<bool, Error> {
        let prompt = match player {
            Some(p) => self.reads.prompt_for(p, id, at_least).await?,
            None => None,
        };
        let frame = StreamFrame::unpositioned(
            "prompt",
            serde_json::to_string(&prompt).map_err(Error::internal)?,
        );
        Ok(out.send(frame).await.is_ok())
    }

    /// Sends a chat row on a match's stream (unless its author is muted): its
    /// `id:` is the last event sent and the row's number, `<event>.<seq>`. False
    /// when the reader went away.
    pub(super) async fn send_chat(
        &self,
        c: &match_messages::Model,
        after: Option<i64>,
        muted: &[Uuid],
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<bool, Error> {
        let (kind, data) = if c.kind == chat::DELETED {
            let notice = self.chat.chat_notice(c).await?;
            (chat::CHAT_DELETED_EVENT, serde_json::to_string(&notice))
        } else {
            if muted.contains(&c.author_id) {
                return Ok(true);
            }
            let mut m = self.chat.chat_responses(std::slice::from_ref(c)).await?;
            (chat::CHAT_MESSAGE_EVENT, serde_json::to_string(&m.pop()))
        };
        let frame = StreamFrame::event(
            format!("{}.{}", after.unwrap_or(0), c.seq),
            kind.to_owned(),
            data.map_err(Error::internal)?,
        );
        Ok(out.send(frame).await.is_ok())
    }
}

/// The kinds after which a match has nothing more to tell.
const FINAL_KINDS: [&str; 2] = ["match_finished", "match_aborted"];

/// Where a match stream stands.
struct Cursor {
    /// The last event sent: the stream's position.
    after: Option<i64>,
    /// The last chat message passed on (sent, or held back as muted).
    chat_at: i64,
    /// The match's events, of any audience, are taken in up to this id: sent,
    /// or not the reader's.
    through: i64,
    /// The caller's seat, once it can no longer change (the match started).
    kept_seat: Option<Option<i32>>,
    /// The match's version as of the last event sent: a prompt after it is
    /// drawn from that version or a later one.
    version: i64,
}

/// What a read from the database sent.
struct Round {
    seat: Option<i32>,
    sent: bool,
    over: bool,
}

/// What became of a batch of the feed.
enum Taken {
    /// The reader went away.
    Gone,
    /// The batch cannot be trusted to continue the stream: read the database.
    Read,
    /// Its events of the match were sent (any of them: `sent`), the last of
    /// them the match's final one (`over`).
    Sent {
        sent: bool,
        seat: Option<i32>,
        over: bool,
    },
}

/// Sends one event of a match's stream; false when the reader went away.
async fn send_match_event(
    out: &mpsc::Sender<StreamFrame>,
    e: &events::Model,
) -> Result<bool, Error> {
    let frame = StreamFrame::event(e.id.to_string(), e.kind.clone(), event_json(e)?);
    Ok(out.send(frame).await.is_ok())
}
