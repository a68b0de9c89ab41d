//! A match's stream: its events as the reader may see them, interleaved with
//! its chat, from where the reader resumes, until the match is over and told.

use std::sync::Arc;

use tokio::sync::broadcast::error::RecvError;
use tokio::sync::mpsc;
use uuid::Uuid;

use super::chat;
use super::{
    CHAT_PAGE, KEEPALIVE, PAGE, RETRY_MS, SHUTDOWN_RETRY_MS, StreamAuth, StreamFrame, StreamHolder,
    Streams, event_response, parse_match_position,
};
use crate::service::error::{Error, Result};
use crate::service::hub::Wake;
use crate::service::lifecycle::{ACTIVE, WAITING, not_found};
use crate::service::visibility::event_scope;
use crate::store;
use crate::store::entities::match_messages;

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
        (mut after, mut chat_at): (Option<i64>, i64),
        with_prompt: bool,
        out: &mpsc::Sender<StreamFrame>,
    ) -> Result<(), Error> {
        let player = holder.as_ref().map(|h| h.player);
        let mut first = true;
        // Subscribed before the first read, so nothing committed after it is missed.
        let mut wakes = self.hub.subscribe();
        let mut credentials = self.hub.subscribe_credentials();
        let mut stop = self.hub.shutdown_signal();
        if out.send(StreamFrame::Retry(RETRY_MS)).await.is_err() {
            return Ok(());
        }
        // The caller's seat, once it can no longer change.
        let mut kept_seat: Option<Option<i32>> = None;
        loop {
            let status = store::matches::match_status(&self.db, id)
                .await?
                .ok_or_else(not_found)?;
            let over = status != ACTIVE && status != WAITING;
            // While the match waits the caller may take or leave a seat, and seats
            // are renumbered at the start; from then on the seat is fixed, so it is
            // read once instead of at every wake-up.
            let seat = match (player, kept_seat) {
                (None, _) => None,
                (Some(_), Some(kept)) => kept,
                (Some(p), None) => {
                    let seat = store::matches::seat_of_player(&self.db, id, p).await?;
                    if status != WAITING {
                        kept_seat = Some(seat);
                    }
                    seat
                }
            };
            let mut sent = false;
            loop {
                // The chat is interleaved with the events by the event each
                // message followed: the match's last event id is read first,
                // and neither an event nor a message past it is sent in this
                // round (what was written before an event committed before it,
                // so it is read below).
                let horizon = store::chat::last_event_id(&self.db, id).await?;
                let chat = store::chat::chat_after(&self.db, id, chat_at, CHAT_PAGE).await?;
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
                let rows = store::moves::events_of(&self.db, id, scope, after, PAGE).await?;
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
                        chat_at = c.seq;
                        if !self.send_chat(&c, after, &muted, out).await? {
                            return Ok(());
                        }
                    }
                    let data =
                        serde_json::to_string(&event_response(e)?).map_err(Error::internal)?;
                    let frame = StreamFrame::Event {
                        id: e.id.to_string(),
                        kind: e.kind.clone(),
                        data,
                    };
                    if out.send(frame).await.is_err() {
                        return Ok(());
                    }
                    after = Some(e.id);
                }
                // Every event up to the bound sent: the messages written up to
                // it follow; otherwise those written before the last one sent.
                let chat_bound = if all_events {
                    bound
                } else {
                    after.unwrap_or(0)
                };
                while let Some(c) = chat.next_if(|c| c.after_event <= chat_bound) {
                    chat_at = c.seq;
                    if !self.send_chat(&c, after, &muted, out).await? {
                        return Ok(());
                    }
                }
                if !(events_full || chat_full || dropped) {
                    break;
                }
            }
            if with_prompt && seat.is_some() && (first || sent) {
                let prompt = match player {
                    Some(p) => self.reads.prompt_for(p, id).await?,
                    None => None,
                };
                let frame = StreamFrame::Unpositioned {
                    kind: "prompt",
                    data: serde_json::to_string(&prompt).map_err(Error::internal)?,
                };
                if out.send(frame).await.is_err() {
                    return Ok(());
                }
            }
            first = false;
            if over {
                return Ok(());
            }
            // Wait for a wake-up of this match (or of everything).
            loop {
                tokio::select! {
                    w = wakes.recv() => match w {
                        Ok(Wake::Match(m)) if m != id => continue,
                        Ok(Wake::Match(_)) => break,
                        // Wake-ups, credential changes among them, may have been missed.
                        Ok(Wake::All) | Err(RecvError::Lagged(_)) => {
                            if self.ended_by_credential(holder.as_ref(), out).await? {
                                return Ok(());
                            }
                            break;
                        }
                        Err(RecvError::Closed) => return Ok(()),
                    },
                    c = credentials.recv() => {
                        if self.ends_on_notice(c, holder.as_ref(), out).await? {
                            return Ok(());
                        }
                    }
                    _ = tokio::time::sleep(self.until_expiry(holder.as_ref())) => {
                        if self.ended_by_credential(holder.as_ref(), out).await? {
                            return Ok(());
                        }
                    }
                    _ = tokio::time::sleep(KEEPALIVE) => {
                        // Also the backstop for a credential change whose notice was lost.
                        if self.ended_by_credential(holder.as_ref(), out).await?
                            || out.send(StreamFrame::KeepAlive).await.is_err()
                        {
                            return Ok(());
                        }
                    }
                    _ = stop.changed() => {
                        let _ = out.send(StreamFrame::Retry(SHUTDOWN_RETRY_MS)).await;
                        return Ok(());
                    }
                    _ = out.closed() => return Ok(()),
                }
            }
        }
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
        let frame = StreamFrame::Event {
            id: format!("{}.{}", after.unwrap_or(0), c.seq),
            kind: kind.to_owned(),
            data: data.map_err(Error::internal)?,
        };
        Ok(out.send(frame).await.is_ok())
    }
}
