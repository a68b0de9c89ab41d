//! A tournament run by the server: its first round begun at its time, each
//! round's results recorded as its matches end, the next round paired (round
//! robin or Swiss) and started, and the tournament closed after the last.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

use sea_orm::DatabaseTransaction;
use serde_json::{Value, json};
use uuid::Uuid;

use super::pairing;
use super::{
    BYE_POINTS, CANCELLED, DONE, REGISTERING, ROUND_ROBIN, RUNNING, SWEEP_SECONDS, Tournaments,
    entrants, played,
};
use crate::games::Event;
use crate::service::error::{Error, Result};
use crate::service::lifecycle::{ABORTED, FINISHED, record_events};
use crate::service::lobby::SeatFor;
use crate::service::options::visibility_of;
use crate::service::pairing::{History, Seating};
use crate::service::tx::transaction;
use crate::store;
use crate::store::entities::{
    match_seats, matches, tournament_entries, tournament_pairings, tournaments,
};

impl Tournaments {
    /// Makes a registering tournament run, with its first round.
    pub(super) async fn begin_locked(
        &self,
        tx: &DatabaseTransaction,
        t: &mut tournaments::Model,
        entries: &[tournament_entries::Model],
    ) -> Result<Vec<matches::Model>, Error> {
        let n = entries.len();
        if t.format == ROUND_ROBIN {
            t.rounds = pairing::round_robin_rounds(n) as i32;
        } else if t.rounds == 0 {
            // As many rounds as a knockout would need, at least one.
            t.rounds = (usize::BITS - (n.max(2) - 1).leading_zeros()) as i32;
        }
        let now = self.clock.now();
        t.status = RUNNING.into();
        t.started_at = Some(now);
        tracing::info!(tournament.id = %t.id, entrants = n, rounds = t.rounds, "tournament started");
        self.next_round_locked(tx, t, entries, &[]).await
    }

    /// Seats round `current_round + 1` and starts its matches, or finishes the
    /// tournament when no table can be made.
    pub(super) async fn next_round_locked(
        &self,
        tx: &DatabaseTransaction,
        t: &mut tournaments::Model,
        entries: &[tournament_entries::Model],
        pairings: &[tournament_pairings::Model],
    ) -> Result<Vec<matches::Model>, Error> {
        let round = t.current_round + 1;
        let min = self.min_seats(t)?;
        let seating = self.seating(t, entries, pairings, round, min);
        if seating.tables.is_empty() {
            self.close_locked(tx, t, DONE).await?;
            return Ok(Vec::new());
        }
        let options: Value = serde_json::from_str(&t.options).map_err(Error::internal)?;
        let bots: HashMap<Uuid, Option<String>> = entries
            .iter()
            .map(|e| (e.player_id, e.bot.clone()))
            .collect();
        let now = self.clock.now();
        let mut rows = Vec::new();
        let mut started = Vec::new();
        for (i, table) in seating.tables.iter().enumerate() {
            let table_no = i as i32 + 1;
            let mut m = self.lobby.new_match_row(
                t.owner_id,
                &t.game,
                table.len() as i64,
                Some(options.clone()),
                visibility_of(None, None)?,
                crate::service::options::chat_mode_of(None)?,
            )?;
            store::matches::insert_match(tx, m.clone()).await?;
            m.version += 1;
            let told = Event::public(
                "tournament_round_started",
                json!({ "tournament": t.id, "round": round, "table": table_no }),
            );
            record_events(tx, &m, &[told], now).await?;
            let mut seated: Vec<match_seats::Model> = Vec::new();
            for player in table {
                let bot = bots.get(player).cloned().flatten();
                let seat = self
                    .lobby
                    .seat_locked(tx, &mut m, &seated, *player, seat_for(bot.as_deref()), None)
                    .await?;
                rows.push(tournament_pairings::Model {
                    tournament_id: t.id,
                    round,
                    player_id: *player,
                    table_no: Some(table_no),
                    seat: Some(seat.seat),
                    game_match: Some(m.id),
                    points: None,
                    rank: None,
                });
                seated.push(seat);
            }
            let m = self.play.start_locked(tx, m).await?;
            store::matches::update_match(tx, m.clone()).await?;
            started.push(m);
        }
        rows.extend(seating.byes.iter().map(|p| tournament_pairings::Model {
            tournament_id: t.id,
            round,
            player_id: *p,
            table_no: None,
            seat: None,
            game_match: None,
            points: Some(BYE_POINTS),
            rank: None,
        }));
        store::tournaments::insert_pairings(tx, rows).await?;
        t.current_round = round;
        t.round_started_at = Some(now);
        t.updated_at = now;
        store::tournaments::update_tournament(tx, t.clone()).await?;
        tracing::info!(tournament.id = %t.id, round, tables = started.len(), "round started");
        Ok(started)
    }

    /// Who sits where in `round`.
    pub(super) fn seating(
        &self,
        t: &tournaments::Model,
        entries: &[tournament_entries::Model],
        pairings: &[tournament_pairings::Model],
        round: i32,
        min: usize,
    ) -> Seating {
        let active: HashSet<Uuid> = entries
            .iter()
            .filter(|e| e.withdrawn_at.is_none())
            .map(|e| e.player_id)
            .collect();
        if active.len() < min.max(2) {
            return Seating::default();
        }
        if t.format == ROUND_ROBIN {
            let everyone: Vec<Uuid> = entries.iter().map(|e| e.player_id).collect();
            let mut seating = Seating::default();
            for pair in pairing::round_robin(&everyone, round) {
                let here: Vec<Uuid> = [pair.0, pair.1]
                    .into_iter()
                    .flatten()
                    .filter(|p| active.contains(p))
                    .collect();
                match here.len() {
                    2 => seating.tables.push(here),
                    1 => seating.byes.extend(here),
                    _ => {}
                }
            }
            return seating;
        }
        let played = played(pairings);
        let order: Vec<Uuid> = pairing::standings(&entrants(entries), &played)
            .into_iter()
            .map(|l| l.player)
            .filter(|p| active.contains(p))
            .collect();
        if t.table_size == 2 {
            let seats: HashMap<(i32, Uuid), i32> = pairings
                .iter()
                .filter_map(|p| Some(((p.round, p.player_id), p.seat?)))
                .collect();
            pairing::swiss_pairs(&order, &History::of(&played, &seats))
        } else {
            pairing::swiss_tables(&order, t.table_size as usize, min, round)
        }
    }

    /// Tells the players of newly started matches (and this replica's poller,
    /// for the bots among them).
    pub(super) fn announce(&self, started: &[matches::Model]) {
        for m in started {
            self.commits.committed(m);
        }
    }

    /// Moves every tournament on that can be: records the results of its
    /// matches that ended, starts its next round when the current one is
    /// complete, finishes it after the last, and starts those whose time came.
    /// Runs from every replica's poller when a match ended here, and at least
    /// every few seconds of the service's clock; each tournament is claimed
    /// (`SKIP LOCKED`) and looked at again under its lock, so it moves on once.
    pub async fn advance_tournaments(&self) -> Result<usize, Error> {
        let now = self.clock.now();
        let due = self.commits.tournaments_due.swap(false, Ordering::Relaxed);
        {
            let mut last = self
                .last_tournament_sweep
                .lock()
                .map_err(|_| Error::internal("tournament sweep lock poisoned"))?;
            // The sweep is what picks up a wake-up that was lost (a match ended
            // on another replica, or while this one could not lock the
            // tournament): due by the service's clock, or by the process's own
            // time, so that a service clock a test holds still does not stop it.
            let every = chrono::Duration::seconds(SWEEP_SECONDS);
            let stale = last.is_none_or(|(at, since)| {
                now - at >= every || since.elapsed() >= every.to_std().unwrap_or_default()
            });
            if !due && !stale {
                return Ok(0);
            }
            *last = Some((now, std::time::Instant::now()));
        }
        let mut moved = 0;
        let mut after = None;
        loop {
            let ids = store::tournaments::tournaments_to_advance(&self.db, now, after, 100).await?;
            for &id in &ids {
                // One tournament that fails must not hold the others back.
                match self.advance_one(id).await {
                    Ok(Some(started)) => {
                        self.announce(&started);
                        moved += 1;
                    }
                    Ok(None) => {}
                    Err(e) => {
                        tracing::warn!(tournament.id = %id, error = %e, "tournament not moved on");
                    }
                }
            }
            match ids.last() {
                Some(last) if ids.len() == 100 => after = Some(*last),
                _ => return Ok(moved),
            }
        }
    }

    /// One tournament's step; `None` when another replica holds it or nothing
    /// changed.
    pub(super) async fn advance_one(&self, id: Uuid) -> Result<Option<Vec<matches::Model>>, Error> {
        let ended = self.ended_matches(id).await?;
        transaction!(&self.db, |tx| {
            let Some(mut t) = store::tournaments::try_lock_tournament(tx, id).await? else {
                // Somebody else holds it (a withdrawal, another replica): look
                // again at the next poll, since what woke this one is spent.
                self.commits.tournaments_due.store(true, Ordering::Relaxed);
                return Ok(None);
            };
            let now = self.clock.now();
            let entries = store::tournaments::entries_of(tx, id).await?;
            if t.status == REGISTERING {
                if t.starts_at.is_none_or(|at| at > now) {
                    return Ok(None);
                }
                let started = if entries.len() < self.min_seats(&t)?.max(2) {
                    // Nobody to play: as Lichess does, the tournament is cancelled.
                    self.close_locked(tx, &mut t, CANCELLED).await?;
                    Vec::new()
                } else {
                    self.begin_locked(tx, &mut t, &entries).await?
                };
                return Ok(Some(started));
            }
            if t.status != RUNNING {
                return Ok(None);
            }
            let mut pairings = store::tournaments::pairings_of(tx, id).await?;
            let recorded = self
                .record_results(tx, &mut pairings, t.current_round, &ended)
                .await?;
            if pairings
                .iter()
                .any(|p| p.round == t.current_round && p.points.is_none())
            {
                return Ok(recorded.then(Vec::new));
            }
            let too_soon = t
                .round_interval
                .zip(t.round_started_at)
                .is_some_and(|(s, at)| at + chrono::Duration::seconds(s.into()) > now);
            let started = if t.current_round >= t.rounds {
                self.close_locked(tx, &mut t, DONE).await?;
                Vec::new()
            } else if too_soon {
                // The next round waits for its time; the sweep comes back.
                return Ok(recorded.then(Vec::new));
            } else {
                self.next_round_locked(tx, &mut t, &entries, &pairings)
                    .await?
            };
            Ok(Some(started))
        })
    }

    /// The placings (seat, rank) of the tournament's matches still unscored
    /// that are over; an aborted one has none. Read outside the transaction
    /// that scores them: a match over stays over with the same placings, and
    /// on Citus this read spans shards, which the transaction writing the
    /// tournament's reference tables is better without.
    pub(super) async fn ended_matches(
        &self,
        id: Uuid,
    ) -> Result<HashMap<Uuid, Vec<(i32, i32)>>, Error> {
        let mut pending: Vec<Uuid> = store::tournaments::pairings_of(&self.db, id)
            .await?
            .into_iter()
            .filter(|p| p.points.is_none())
            .filter_map(|p| p.game_match)
            .collect();
        pending.sort();
        pending.dedup();
        let mut ended = HashMap::new();
        let mut finished = Vec::new();
        for (m, status) in store::tournaments::statuses_of_matches(&self.db, pending).await? {
            if status == FINISHED {
                finished.push(m);
            }
            if status == FINISHED || status == ABORTED {
                ended.insert(m, Vec::new());
            }
        }
        for r in store::tournaments::results_of_matches(&self.db, finished).await? {
            ended
                .entry(r.match_id)
                .or_insert_with(Vec::new)
                .push((r.seat, r.rank));
        }
        Ok(ended)
    }

    /// Scores the seats of `round` whose match is over (`ended`); answers
    /// whether any was. A finished match scores by its placings (a forfeited
    /// seat placed last); an aborted one scores nothing for anyone.
    pub(super) async fn record_results(
        &self,
        tx: &DatabaseTransaction,
        pairings: &mut [tournament_pairings::Model],
        round: i32,
        ended: &HashMap<Uuid, Vec<(i32, i32)>>,
    ) -> Result<bool, Error> {
        let mut recorded = false;
        for p in pairings.iter_mut() {
            if p.round != round || p.points.is_some() {
                continue;
            }
            let Some(placings) = p.game_match.and_then(|m| ended.get(&m)) else {
                continue;
            };
            let seat = p.seat.unwrap_or(-1);
            p.points = Some(
                pairing::points_of(placings)
                    .get(&seat)
                    .copied()
                    .unwrap_or(0.0),
            );
            p.rank = placings.iter().find(|(s, _)| *s == seat).map(|(_, r)| *r);
            store::tournaments::update_pairing(tx, p.clone()).await?;
            recorded = true;
        }
        Ok(recorded)
    }
}

/// A table's entrant is a bot of its kind, or a player the server seats.
fn seat_for(bot: Option<&str>) -> SeatFor<'_> {
    match bot {
        Some(kind) => SeatFor::Bot(kind),
        None => SeatFor::ByServer,
    }
}
