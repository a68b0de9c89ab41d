//! A match's record as a viewer may read it: its moves (whole or sealed, as
//! the visibility policy says), its events and its resolved rounds.

use std::sync::Arc;

use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::service::error::{Error, Result};
use crate::service::models::{
    EventPage, EventResponse, LedgerResponse, MovePage, MoveResponse, PlayerRef, RoundPage,
    RoundResponse, RoundSeatResponse,
};
use crate::service::pages::{decode_cursor, encode_cursor, page_limit};
use crate::service::records::Records;
use crate::service::visibility::{MoveShown, Policy};
use crate::store;

/// A match's moves, events and rounds, as the caller may see them.
pub struct History {
    db: DatabaseConnection,
    records: Arc<Records>,
    policy: Arc<Policy>,
}

impl History {
    pub fn new(db: DatabaseConnection, records: Arc<Records>, policy: Arc<Policy>) -> Self {
        Self {
            db,
            records,
            policy,
        }
    }
}

fn parse_id_cursor(c: &str) -> Result<i64, Error> {
    decode_cursor(c)?.parse().map_err(|_| {
        Error::bad_request(
            "invalid_cursor",
            "The cursor is not one this server issued.",
        )
    })
}

impl History {
    pub async fn list_moves(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<MovePage, Error> {
        let limit = page_limit(limit)?;
        let (_, seats, access) = self.policy.access_by_id(caller, id).await?;
        let after = cursor.map(|c| parse_id_cursor(&c)).transpose()?;
        let names = self.records.names(&self.db, &seats, None).await?;
        let mut rows = store::moves::moves_of(&self.db, id, after, limit + 1).await?;
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
                let visible = access.move_shown(r) == MoveShown::Whole;
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
                    action: serde_json::from_str(action).map_err(Error::internal)?,
                    author: r.author.clone(),
                    version: r.version_after,
                    created_at: r.created_at,
                    commitment: r.commitment.clone(),
                    nonce: r.nonce.clone().filter(|_| visible),
                    replaced: r.replaced,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(MovePage { items, next_cursor })
    }

    pub async fn list_events(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
        limit: Option<u64>,
        cursor: Option<String>,
    ) -> Result<EventPage, Error> {
        let limit = page_limit(limit)?;
        let (_, _, access) = self.policy.access_by_id(caller, id).await?;
        let after = cursor.map(|c| parse_id_cursor(&c)).transpose()?;
        let mut rows =
            store::moves::events_of(&self.db, id, access.events(), after, limit + 1).await?;
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
                    data: serde_json::from_str(&e.data).map_err(Error::internal)?,
                    created_at: e.created_at,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(EventPage { items, next_cursor })
    }

    pub async fn list_rounds(&self, caller: Option<Uuid>, id: Uuid) -> Result<RoundPage, Error> {
        let (_, seats, _) = self.policy.access_by_id(caller, id).await?;
        let names = self.records.names(&self.db, &seats, None).await?;
        let player_ref = |p: Option<Uuid>| {
            p.map(|id| PlayerRef {
                id,
                name: names.get(&id).cloned().unwrap_or_default(),
            })
        };
        let items = store::moves::rounds_of(&self.db, id)
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
