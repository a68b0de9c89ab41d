//! A match as its reader may see it (rendered from the kept snapshot, with what
//! the visibility policy allows), the lobby's lists, and a player's turns.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseConnection;
use serde_json::Value;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::games::{AnyState, DynGame, Progress, Prompt as ActiveProgress};
use crate::service::clock::Clock;
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::lifecycle::{ABORTED, ACTIVE, FINISHED, WAITING, forfeited_seats};
use crate::service::models::{
    Deadline, MatchPage, MatchResponse, MatchSummary, PlacingResponse, PlayerRef, PromptResponse,
    SeatResponse,
};
use crate::service::outcome::final_outcome;
use crate::service::pages::{decode_cursor, encode_cursor, page_limit};
use crate::service::records::Records;
use crate::service::snapshots::Snapshot;
use crate::service::timing::{Bank, PRESENT, graces_left, seat_deadline};
use crate::service::visibility::{Access, Openness, Policy};
use crate::store;
use crate::store::entities::{match_seats, matches};
use crate::store::matches::MatchFilter;

/// A match, the lobby and a player's turns, as the caller may see them.
pub struct Reads {
    db: DatabaseConnection,
    games: Arc<Games>,
    records: Arc<Records>,
    policy: Arc<Policy>,
    /// What banks and seconds remaining are counted to.
    clock: Arc<dyn Clock>,
}

impl Reads {
    pub fn new(
        db: DatabaseConnection,
        games: Arc<Games>,
        records: Arc<Records>,
        policy: Arc<Policy>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            db,
            games,
            records,
            policy,
            clock,
        }
    }
}

/// The prompt of an active match for the viewer in `your_seat` (none: a
/// spectator), noting each awaited seat's deadline in `owed`.
#[allow(clippy::too_many_arguments)]
fn prompt_of(
    game: &dyn DynGame,
    m: &matches::Model,
    seats: &[match_seats::Model],
    state: &AnyState,
    p: ActiveProgress,
    your_seat: Option<usize>,
    now: DateTime<Utc>,
    owed: &mut Vec<(usize, DateTime<Utc>)>,
) -> Result<PromptResponse, Error> {
    let your_turn = your_seat.is_some_and(|s| p.awaiting.contains(&s));
    let legal = match your_seat {
        Some(s) if your_turn => game.legal(state, s)?,
        _ => None,
    };
    let rule = game.step_time_limit(state)?;
    let deadlines = p
        .awaiting
        .iter()
        .filter_map(|a| seats.iter().find(|s| s.seat as usize == *a))
        .filter_map(|s| {
            seat_deadline(m, s, rule).map(|(at, _)| {
                owed.push((s.seat as usize, at));
                Deadline {
                    seat: s.seat as usize,
                    at,
                    seconds_remaining: Some(seconds_until(at, now)),
                    bank_seconds: bank_seconds(m, s, now),
                }
            })
        })
        .collect();
    Ok(PromptResponse {
        step: m.step,
        round: p.round,
        kind: p.kind,
        sealed: p.sealed,
        awaiting: p.awaiting,
        your_turn,
        deadlines,
        legal,
    })
}

/// Whole seconds from `now` to `at`, none once it passed.
fn seconds_until(at: DateTime<Utc>, now: DateTime<Utc>) -> i64 {
    (at - now).num_seconds().max(0)
}

/// A seat's bank in whole seconds at `now`: running while its match is
/// active, as last charged once it is over (an aborted match's clock stopped).
fn bank_seconds(m: &matches::Model, seat: &match_seats::Model, now: DateTime<Utc>) -> Option<i64> {
    let bank = Bank::of(m)?;
    let ms = if m.status == ACTIVE {
        bank.remaining(seat, now)
    } else {
        seat.bank_ms.unwrap_or(bank.initial_ms)
    };
    Some(ms / 1000)
}

#[derive(Default)]
pub struct ListMatches {
    pub game: Option<String>,
    pub player: Option<String>,
    pub status: Option<String>,
    /// Only the matches of this club.
    pub club: Option<Uuid>,
    pub limit: Option<u64>,
    pub cursor: Option<String>,
    /// Who asks: the lobby shows them their own unlisted and private matches.
    pub reader: Option<Uuid>,
}

fn seat_response(
    seat: usize,
    seats: &[match_seats::Model],
    player_ref: &impl Fn(Uuid) -> PlayerRef,
) -> SeatResponse {
    let row = seats.iter().find(|s| s.seat as usize == seat);
    SeatResponse {
        seat,
        player: row.map(|s| player_ref(s.player_id)),
        bot: row.and_then(|s| s.bot.clone()),
        presence: row.map(|s| s.presence.clone()),
        bank_seconds: None,
        deadline: None,
        seconds_remaining: None,
        graces_left: None,
        away_until: None,
    }
}

impl Reads {
    /// Whether the match may be read by `caller`, before a long poll waits on it.
    /// A public match kept in this process needs no query: a match's visibility
    /// never changes, and the read after the wait checks everything again
    /// against a current snapshot.
    pub async fn check_match_visible(&self, caller: Option<Uuid>, id: Uuid) -> Result<(), Error> {
        if let Some(kept) = self.records.kept(id)
            && Openness::of(&kept.row).open_to_all()
        {
            return Ok(());
        }
        let snap = self.records.snapshot(id).await?;
        self.policy
            .access(&self.db, &snap.row, &snap.seats, caller)
            .await
            .map(|_| ())
    }

    /// A match as `caller` (a player id, or anonymous) may see it.
    pub async fn get_match(&self, caller: Option<Uuid>, id: Uuid) -> Result<MatchResponse, Error> {
        let snap = self.records.snapshot(id).await?;
        let access = self
            .policy
            .access(&self.db, &snap.row, &snap.seats, caller)
            .await?;
        self.render(&snap, access)
    }

    /// The caller's prompt in the match, as `get_match` would answer it,
    /// without drawing the view: what a move's answer carries when asked to.
    /// Drawn from the match at version `at_least` or later (what the caller
    /// was just told of).
    pub async fn prompt_for(
        &self,
        caller: Uuid,
        id: Uuid,
        at_least: i64,
    ) -> Result<Option<PromptResponse>, Error> {
        let snap = self.records.snapshot_at_least(id, at_least).await?;
        let access = self
            .policy
            .access(&self.db, &snap.row, &snap.seats, Some(caller))
            .await?;
        let (m, seats) = (&snap.row, &snap.seats);
        let game = self.games.of(&m.game)?;
        let Some(state) = &snap.state else {
            return Ok(None);
        };
        match game.progress(state)? {
            Progress::Active(p) if m.status == ACTIVE => Ok(Some(prompt_of(
                game,
                m,
                seats,
                state,
                p,
                access.seat(),
                self.clock.now(),
                &mut Vec::new(),
            )?)),
            _ => Ok(None),
        }
    }

    /// The match as one viewer may see it: what of it the viewer may have is
    /// `access`'s to say.
    fn render(&self, snap: &Snapshot, access: Access) -> Result<MatchResponse, Error> {
        let (m, seats, names) = (&snap.row, &snap.seats, &snap.names);
        let game = self.games.of(&m.game)?;
        let player_ref = |id: Uuid| PlayerRef {
            id,
            name: names.get(&id).cloned().unwrap_or_default(),
        };
        let seat_player = |seat: usize| {
            seats
                .iter()
                .find(|s| s.seat as usize == seat)
                .map(|s| player_ref(s.player_id))
        };
        let your_seat = access.seat();
        let over = access.shows_secrets_of_setup();
        let state = &snap.state;
        let now = self.clock.now();
        // Each awaited seat's deadline, as the prompt and the seats show it.
        let mut owed: Vec<(usize, DateTime<Utc>)> = Vec::new();
        let mut view = None;
        let mut prompt = None;
        let mut result = None;
        if let Some(state) = &state {
            view = Some(game.view_json(state, access.viewer())?);
            match game.progress(state)? {
                Progress::Active(p) if m.status == ACTIVE => {
                    prompt = Some(prompt_of(
                        game, m, seats, state, p, your_seat, now, &mut owed,
                    )?);
                }
                _ if m.status == FINISHED => {
                    let forfeited = forfeited_seats(seats);
                    let outcome = final_outcome(game, state, m.seat_count as usize, &forfeited)?;
                    result = outcome.map(|o| {
                        o.placings
                            .iter()
                            .map(|p| PlacingResponse {
                                seat: p.seat,
                                player: seat_player(p.seat),
                                score: p.score,
                                rank: p.rank,
                            })
                            .collect()
                    });
                }
                _ => {}
            }
        }
        let mut options: Value = serde_json::from_str(&m.options).map_err(Error::internal)?;
        if let (Some(obj), Some(p)) = (options.as_object_mut(), m.position.as_deref()) {
            let shown = if over {
                serde_json::from_str(p).map_err(Error::internal)?
            } else {
                serde_json::json!({"redacted": true})
            };
            obj.insert("position".into(), shown);
        }
        Ok(MatchResponse {
            id: m.id,
            game: m.game.clone(),
            status: m.status.clone(),
            seat_count: m.seat_count as usize,
            seats: (0..m.seat_count as usize)
                .map(|seat| {
                    let mut shown = seat_response(seat, seats, &player_ref);
                    if let Some(row) = seats.iter().find(|s| s.seat as usize == seat) {
                        shown.bank_seconds = bank_seconds(m, row, now);
                        shown.graces_left = m.grace_extensions.map(|_| graces_left(m, row));
                        shown.away_until = row
                            .away_until
                            .filter(|u| *u > now && row.away_from.is_some_and(|f| f <= now));
                    }
                    if let Some((_, at)) = owed.iter().find(|(s, _)| *s == seat) {
                        shown.deadline = Some(*at);
                        shown.seconds_remaining = Some(seconds_until(*at, now));
                    }
                    shown
                })
                .collect(),
            owner: m.owner_id.map(player_ref),
            your_seat,
            options,
            rated: m.rated,
            seed_sha256: m.seed_sha256.clone(),
            seed: over.then(|| m.seed.iter().map(|b| format!("{b:02x}")).collect()),
            step: m.step,
            version: m.version,
            view,
            prompt,
            result,
            final_state: match (&state, over) {
                (Some(s), true) => Some(game.state_value(s)?),
                _ => None,
            },
            engine_version: m.engine_version.clone(),
            data_sha256: m.data_sha256.clone(),
            created_at: m.created_at,
            started_at: m.started_at,
            finished_at: m.finished_at,
            visibility: m.visibility.clone(),
            spectators: m.spectators,
            join_code: m.join_code.clone().filter(|_| access.shows_join_code()),
            rematch_of: m.rematch_of,
            chat: m.chat.clone(),
            club_id: m.club_id,
        })
    }

    pub async fn list_matches(&self, q: ListMatches) -> Result<MatchPage, Error> {
        let limit = page_limit(q.limit)?;
        if let Some(s) = &q.status
            && ![WAITING, ACTIVE, FINISHED, ABORTED].contains(&s.as_str())
        {
            return Err(Error::bad_request(
                "invalid_status",
                "status is one of waiting, active, finished, aborted.",
            )
            .arg("statuses", "waiting, active, finished, aborted"));
        }
        let before = match &q.cursor {
            Some(c) => Some(decode_cursor(c)?.parse::<Uuid>().map_err(|_| {
                Error::bad_request(
                    "invalid_cursor",
                    "The cursor is not one this server issued.",
                )
            })?),
            None => None,
        };
        let player_id = match &q.player {
            // No player has a longer name: not worth a query.
            Some(name) if name.is_empty() || name.len() > 64 => {
                return Ok(MatchPage {
                    items: Vec::new(),
                    next_cursor: None,
                });
            }
            Some(name) => match store::players::player_by_name(&self.db, name).await? {
                Some(p) => Some(p.id),
                None => {
                    return Ok(MatchPage {
                        items: Vec::new(),
                        next_cursor: None,
                    });
                }
            },
            None => None,
        };
        let filter = MatchFilter {
            game: q.game.clone(),
            status: q.status.clone(),
            club_id: q.club,
            player_id,
            before,
            ids: None,
            listed: self.policy.listing(q.reader),
        };
        let mut rows = store::matches::list_matches(&self.db, &filter, limit + 1, false).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let next_cursor = if more {
            rows.last().map(|m| encode_cursor(&m.id.to_string()))
        } else {
            None
        };
        let items = self.summaries(&rows).await?;
        Ok(MatchPage { items, next_cursor })
    }

    /// The summaries of the lobby's matches among `ids` (the public ones), as
    /// a list shows them now, in no particular order.
    pub async fn lobby_summaries(&self, ids: Vec<Uuid>) -> Result<Vec<MatchSummary>, Error> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let limit = ids.len() as u64;
        let filter = MatchFilter {
            ids: Some(ids),
            listed: self.policy.lobby(),
            ..Default::default()
        };
        let rows = store::matches::list_matches(&self.db, &filter, limit, false).await?;
        self.summaries(&rows).await
    }

    /// Matches as lists show them: seats, owner and placings with the players'
    /// names, in three reads whatever the number of matches.
    async fn summaries(&self, rows: &[matches::Model]) -> Result<Vec<MatchSummary>, Error> {
        let seats =
            store::matches::seats_of_matches(&self.db, rows.iter().map(|m| m.id).collect()).await?;
        let owners: Vec<Uuid> = rows.iter().filter_map(|m| m.owner_id).collect();
        let mut ids: Vec<Uuid> = seats.iter().map(|s| s.player_id).chain(owners).collect();
        ids.sort();
        ids.dedup();
        let names: HashMap<Uuid, String> = store::players::players_by_ids(&self.db, ids)
            .await?
            .into_iter()
            .map(|p| (p.id, p.name))
            .collect();
        let player_ref = |id: Uuid| PlayerRef {
            id,
            name: names.get(&id).cloned().unwrap_or_default(),
        };
        let finished: Vec<Uuid> = rows
            .iter()
            .filter(|m| m.status == FINISHED)
            .map(|m| m.id)
            .collect();
        let results = store::tournaments::results_of_matches(&self.db, finished).await?;
        let result_of = |id: Uuid| {
            let mut placings: Vec<PlacingResponse> = results
                .iter()
                .filter(|r| r.match_id == id)
                .map(|r| PlacingResponse {
                    seat: r.seat as usize,
                    player: r.player_id.map(player_ref),
                    score: r.score,
                    rank: r.rank as u32,
                })
                .collect();
            placings.sort_by_key(|p| (p.rank, p.seat));
            placings
        };
        Ok(rows
            .iter()
            .map(|m| MatchSummary {
                id: m.id,
                game: m.game.clone(),
                status: m.status.clone(),
                seat_count: m.seat_count as usize,
                seats: {
                    let of_match: Vec<match_seats::Model> = seats
                        .iter()
                        .filter(|s| s.match_id == m.id)
                        .cloned()
                        .collect();
                    (0..m.seat_count as usize)
                        .map(|seat| seat_response(seat, &of_match, &player_ref))
                        .collect()
                },
                owner: m.owner_id.map(player_ref),
                step: m.step,
                version: m.version,
                created_at: m.created_at,
                started_at: m.started_at,
                finished_at: m.finished_at,
                visibility: m.visibility.clone(),
                club_id: m.club_id,
                result: (m.status == FINISHED).then(|| result_of(m.id)),
            })
            .collect())
    }

    /// Every active match in which `me` owes a move now.
    pub async fn my_turns(
        &self,
        me: &AuthenticatedPlayer,
        with_prompts: bool,
    ) -> Result<super::models::TurnsResponse, Error> {
        self.turns_listed(me.id, with_prompts).await
    }

    /// Every active match in which `player` owes a move now, soonest deadline
    /// first (what `/players/me/turns` and the daily digest list).
    pub async fn turns_of(&self, player: Uuid) -> Result<super::models::TurnsResponse, Error> {
        self.turns_listed(player, false).await
    }

    /// `turns_of`, with each turn's prompt when asked.
    async fn turns_listed(
        &self,
        player: Uuid,
        with_prompts: bool,
    ) -> Result<super::models::TurnsResponse, Error> {
        let filter = MatchFilter {
            status: Some(ACTIVE.into()),
            player_id: Some(player),
            ..Default::default()
        };
        let rows = store::matches::list_matches(&self.db, &filter, 1000, true).await?;
        let seats =
            store::matches::seats_of_matches(&self.db, rows.iter().map(|m| m.id).collect()).await?;
        let mut items = Vec::new();
        for m in &rows {
            let of_match: Vec<match_seats::Model> = seats
                .iter()
                .filter(|s| s.match_id == m.id)
                .cloned()
                .collect();
            for (seat, turn) in self.owed_turns(m, &of_match, with_prompts).await? {
                if seat.player_id == player {
                    items.push(turn);
                }
            }
        }
        // Soonest deadline first (none last), then the longest owed.
        items.sort_by(|a, b| {
            (a.deadline.is_none(), a.deadline, a.owed_since).cmp(&(
                b.deadline.is_none(),
                b.deadline,
                b.owed_since,
            ))
        });
        Ok(super::models::TurnsResponse { items })
    }

    /// The seats of an active match that owe a move now (not forfeited), each
    /// with its turn as `/players/me/turns` shows it.
    pub async fn owed_turns(
        &self,
        m: &crate::store::entities::matches::Model,
        seats: &[match_seats::Model],
        with_prompts: bool,
    ) -> Result<Vec<(match_seats::Model, super::models::TurnResponse)>, Error> {
        if m.status != ACTIVE {
            return Ok(Vec::new());
        }
        let game = self.games.of(&m.game)?;
        let Some(state) = self.records.state_of(m).await? else {
            return Ok(Vec::new());
        };
        let Progress::Active(p) = game.progress(&state)? else {
            return Ok(Vec::new());
        };
        let rule = game.step_time_limit(&state)?;
        let now = self.clock.now();
        let mut turns = Vec::new();
        for seat in seats.iter().filter(|s| {
            p.awaiting.contains(&(s.seat as usize)) && s.presence != super::timing::FORFEITED
        }) {
            // The seat's prompt from the state already read, not a read of
            // the match again.
            let prompt = if with_prompts {
                let seat_no = Some(seat.seat as usize);
                Some(prompt_of(
                    game,
                    m,
                    seats,
                    &state,
                    p.clone(),
                    seat_no,
                    now,
                    &mut Vec::new(),
                )?)
            } else {
                None
            };
            let due = seat_deadline(m, seat, rule).map(|(at, _)| at);
            turns.push((
                seat.clone(),
                super::models::TurnResponse {
                    match_id: m.id,
                    game: m.game.clone(),
                    your_seat: seat.seat as usize,
                    step: m.step,
                    kind: p.kind.clone(),
                    sealed: p.sealed,
                    deadline: due,
                    seconds_remaining: due.map(|at| seconds_until(at, now)),
                    bank_seconds: bank_seconds(m, seat, now),
                    owed_since: m.step_started_at.unwrap_or(m.updated_at),
                    absent: seat.presence != PRESENT,
                    prompt,
                },
            ));
        }
        Ok(turns)
    }
}
