//! Match chat: messages for the seated players (and, by the match's `chat`
//! option, signed-in spectators), kept with the match and in its export; a
//! player's mutes; deleting a message.
//!
//! The chat is a log of its own (`match_messages`), not events: a message
//! neither moves the match's `version` nor takes an event id, so moves, long
//! polls and the events' order are untouched. A row is written under the
//! match's row lock with the match's last event id (`after_event`), which is
//! where a match's stream puts it among the events. The server never writes
//! into a chat itself, so nothing sealed can reach it.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;
use serde::Serialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::service::accounts::Accounts;
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::hub::Hub;
use crate::service::lifecycle::not_found;
use crate::service::models::PlayerRef;
use crate::service::options::{CHAT_EVERYONE, CHAT_OFF};
use crate::service::tx::transaction;
use crate::service::visibility::Policy;
use crate::store;
use crate::store::entities::{match_messages, match_seats, matches};

/// Match chat and mutes.
pub struct Chat {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    hub: Arc<Hub>,
    policy: Arc<Policy>,
    accounts: Arc<Accounts>,
}

impl Chat {
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        hub: Arc<Hub>,
        policy: Arc<Policy>,
        accounts: Arc<Accounts>,
    ) -> Self {
        Self {
            db,
            clock,
            hub,
            policy,
            accounts,
        }
    }
}

/// The longest message, in characters, after trimming.
pub const MAX_MESSAGE_CHARS: usize = 500;

/// A chat row that is a message (the others are deletion notices).
pub const MESSAGE: &str = "message";
/// A chat row telling that a message was deleted.
pub const DELETED: &str = "deleted";

/// The stream's event kinds for the chat.
pub const CHAT_MESSAGE_EVENT: &str = "chat_message";
pub const CHAT_DELETED_EVENT: &str = "chat_message_deleted";

/// A message as read: its text is gone once deleted (who deleted it, and when,
/// are kept).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatMessageResponse {
    /// The message's number in its match's chat (from 1; deletion notices take
    /// numbers too, so there are gaps).
    pub id: i64,
    pub match_id: Uuid,
    pub author: PlayerRef,
    /// The text; null once deleted.
    pub text: Option<String>,
    pub created_at: DateTime<Utc>,
    pub deleted_at: Option<DateTime<Utc>>,
    pub deleted_by: Option<PlayerRef>,
}

/// A page of a match's messages, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatMessagePage {
    pub items: Vec<ChatMessageResponse>,
    pub next_cursor: Option<String>,
}

/// What a stream's `chat_message_deleted` carries.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatDeletedNotice {
    pub match_id: Uuid,
    /// The deleted message's id.
    pub message_id: i64,
    pub deleted_by: PlayerRef,
    pub deleted_at: DateTime<Utc>,
}

/// A player one muted.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MuteResponse {
    pub player: PlayerRef,
    pub created_at: DateTime<Utc>,
}

/// The players one muted, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct MuteList {
    pub items: Vec<MuteResponse>,
}

/// A message's text, trimmed: 1 to 500 characters, no control characters
/// (line breaks neither: a chat line is one line).
fn checked_text(text: &str) -> Result<String, Error> {
    let text = text.trim();
    let n = text.chars().count();
    if n == 0 || n > MAX_MESSAGE_CHARS {
        return Err(Error::unprocessable(
            "invalid_chat_message",
            format!(
                "A message is 1 to {MAX_MESSAGE_CHARS} characters (spaces around it not counted)."
            ),
        )
        .arg("max", MAX_MESSAGE_CHARS));
    }
    if text.chars().any(char::is_control) {
        return Err(Error::unprocessable(
            "invalid_chat_message",
            "A message holds no control characters (line breaks among them).",
        )
        .arg("max", MAX_MESSAGE_CHARS));
    }
    Ok(text.to_owned())
}

fn chat_message_not_found() -> Error {
    Error::not_found("chat_message_not_found", "This match has no such message.")
}

/// Who may delete any message of a match's chat besides the server's admins
/// (`Service::may_moderate`): its owner.
pub(super) fn may_moderate_chat(m: &matches::Model, caller: Uuid) -> bool {
    m.owner_id == Some(caller)
}

impl Chat {
    /// Whether `me` may write in `m`'s chat (read access already checked).
    fn may_write_chat(
        m: &matches::Model,
        seats: &[match_seats::Model],
        me: Uuid,
    ) -> Result<(), Error> {
        let member = m.owner_id == Some(me) || seats.iter().any(|s| s.player_id == me);
        match m.chat.as_str() {
            CHAT_OFF => Err(Error::forbidden("chat_off", "This match has no chat.")),
            CHAT_EVERYONE => Ok(()),
            _ if member => Ok(()),
            _ => Err(Error::forbidden(
                "chat_players_only",
                "Only the match's players write in its chat.",
            )),
        }
    }

    /// Writes a message in a match's chat.
    pub async fn post_chat_message(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        text: &str,
    ) -> Result<ChatMessageResponse, Error> {
        let text = checked_text(text)?;
        let row = transaction!(&self.db, |tx| {
            let m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            let seats = store::matches::seats_of(tx, id).await?;
            self.policy.access(tx, &m, &seats, Some(me.id)).await?;
            Self::may_write_chat(&m, &seats, me.id)?;
            let row = match_messages::Model {
                match_id: id,
                seq: store::chat::last_chat_seq(tx, id).await? + 1,
                kind: MESSAGE.into(),
                author_id: me.id,
                text: Some(text.clone()),
                target_seq: None,
                after_event: store::chat::last_event_id(tx, id).await?,
                created_at: self.clock.now(),
                deleted_at: None,
                deleted_by: None,
            };
            store::chat::insert_chat_row(tx, row.clone()).await?;
            Ok::<_, Error>(row)
        })?;
        self.hub.chat_changed(id);
        let mut out = self.chat_responses(&[row]).await?;
        out.pop()
            .ok_or_else(|| Error::internal("a message vanished"))
    }

    /// A page of a match's messages for whoever may read the match, leaving
    /// out the players the caller muted.
    pub async fn chat_messages(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<ChatMessagePage, Error> {
        let limit = super::pages::page_limit(limit)?;
        self.policy.access_by_id(caller, id).await?;
        let after = match cursor {
            Some(c) => super::pages::decode_cursor(&c)?
                .parse::<i64>()
                .map_err(|_| {
                    Error::bad_request(
                        "invalid_cursor",
                        "The cursor is not one this server issued.",
                    )
                })?,
            None => 0,
        };
        let muted = self.muted_by(caller).await?;
        let mut rows = store::chat::chat_messages(&self.db, id, after, &muted, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = if more {
            rows.last()
                .map(|r| super::pages::encode_cursor(&r.seq.to_string()))
        } else {
            None
        };
        Ok(ChatMessagePage {
            items: self.chat_responses(&rows).await?,
            next_cursor,
        })
    }

    /// Deletes a message (its author, or whoever may moderate the match); the
    /// match's streams get a `chat_message_deleted`. Deleting it again changes
    /// nothing.
    pub async fn delete_chat_message(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        message: i64,
    ) -> Result<(), Error> {
        // An admin moderates every match's chat, a private one's included (as
        // it cancels any match by id), and each such deletion is audited.
        let admin = self.policy.is_admin(me).await?;
        let changed = transaction!(&self.db, |tx| {
            let m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            if !admin {
                let seats = store::matches::seats_of(tx, id).await?;
                self.policy.access(tx, &m, &seats, Some(me.id)).await?;
            }
            let row = store::chat::chat_row(tx, id, message)
                .await?
                .filter(|r| r.kind == MESSAGE)
                .ok_or_else(chat_message_not_found)?;
            let as_moderator = row.author_id != me.id && !may_moderate_chat(&m, me.id);
            if as_moderator && !admin {
                return Err(Error::forbidden(
                    "not_chat_moderator",
                    "Only a message's author, the match's owner and the server's admins delete it.",
                ));
            }
            if row.deleted_at.is_some() {
                return Ok(false);
            }
            let now = self.clock.now();
            if as_moderator {
                store::moderation::audit(
                    tx,
                    now,
                    &me.name,
                    "delete_chat_message",
                    &format!("{id}/{message}"),
                    None,
                )
                .await?;
            }
            store::chat::mark_chat_deleted(tx, id, message, me.id, now).await?;
            let notice = match_messages::Model {
                match_id: id,
                seq: store::chat::last_chat_seq(tx, id).await? + 1,
                kind: DELETED.into(),
                author_id: me.id,
                text: None,
                target_seq: Some(message),
                after_event: store::chat::last_event_id(tx, id).await?,
                created_at: now,
                deleted_at: None,
                deleted_by: None,
            };
            store::chat::insert_chat_row(tx, notice).await?;
            Ok::<_, Error>(true)
        })?;
        if changed {
            self.hub.chat_changed(id);
        }
        Ok(())
    }

    /// The players `caller` muted (none for an anonymous reader).
    pub(super) async fn muted_by(&self, caller: Option<Uuid>) -> Result<Vec<Uuid>, Error> {
        Ok(match caller {
            Some(p) => store::chat::mutes_of(&self.db, p)
                .await?
                .into_iter()
                .map(|m| m.muted_id)
                .collect(),
            None => Vec::new(),
        })
    }

    /// Chat messages as read (names filled in).
    pub(super) async fn chat_responses(
        &self,
        rows: &[match_messages::Model],
    ) -> Result<Vec<ChatMessageResponse>, Error> {
        let mut ids: Vec<Uuid> = rows
            .iter()
            .flat_map(|r| std::iter::once(r.author_id).chain(r.deleted_by))
            .collect();
        ids.sort();
        ids.dedup();
        let names = store::players::names_by_id(&self.db, ids).await?;
        let player_ref = |id: Uuid| PlayerRef {
            id,
            name: names.get(&id).cloned().unwrap_or_default(),
        };
        Ok(rows
            .iter()
            .map(|r| ChatMessageResponse {
                id: r.seq,
                match_id: r.match_id,
                author: player_ref(r.author_id),
                text: r.text.clone(),
                created_at: r.created_at,
                deleted_at: r.deleted_at,
                deleted_by: r.deleted_by.map(player_ref),
            })
            .collect())
    }

    /// A deletion notice as a stream sends it.
    pub(super) async fn chat_notice(
        &self,
        r: &match_messages::Model,
    ) -> Result<ChatDeletedNotice, Error> {
        let names = store::players::names_by_id(&self.db, vec![r.author_id]).await?;
        Ok(ChatDeletedNotice {
            match_id: r.match_id,
            message_id: r.target_seq.unwrap_or_default(),
            deleted_by: PlayerRef {
                id: r.author_id,
                name: names.get(&r.author_id).cloned().unwrap_or_default(),
            },
            deleted_at: r.created_at,
        })
    }

    /// Mutes a player for the caller: its messages are left out of what the
    /// caller reads and streams, in every match.
    pub async fn mute_player(
        &self,
        me: &AuthenticatedPlayer,
        name: &str,
    ) -> Result<MuteList, Error> {
        let other = self.accounts.player_by_name(name).await?;
        if other.id == me.id {
            return Err(Error::unprocessable(
                "cannot_mute_yourself",
                "You cannot mute yourself.",
            ));
        }
        store::chat::insert_mute(&self.db, me.id, other.id, self.clock.now()).await?;
        self.mutes(me).await
    }

    /// Unmutes a player (one not muted: no change).
    pub async fn unmute_player(
        &self,
        me: &AuthenticatedPlayer,
        name: &str,
    ) -> Result<MuteList, Error> {
        let other = self.accounts.player_by_name(name).await?;
        store::chat::delete_mute(&self.db, me.id, other.id).await?;
        self.mutes(me).await
    }

    /// The players the caller muted.
    pub async fn mutes(&self, me: &AuthenticatedPlayer) -> Result<MuteList, Error> {
        let rows = store::chat::mutes_of(&self.db, me.id).await?;
        let names =
            store::players::names_by_id(&self.db, rows.iter().map(|r| r.muted_id).collect())
                .await?;
        Ok(MuteList {
            items: rows
                .iter()
                .map(|r| MuteResponse {
                    player: PlayerRef {
                        id: r.muted_id,
                        name: names.get(&r.muted_id).cloned().unwrap_or_default(),
                    },
                    created_at: r.created_at,
                })
                .collect(),
        })
    }
}
