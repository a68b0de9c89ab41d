//! A tournament as anybody may read it: its entrants, rounds, tables and
//! standings (with their tie-breaks), and the list of tournaments.

use std::collections::HashMap;

use uuid::Uuid;

use super::pairing;
use super::{
    CANCELLED, DONE, REGISTERING, RUNNING, StandingLine, TableSeat, TournamentPage,
    TournamentResponse, TournamentRound, TournamentSummary, TournamentTable, Tournaments, entrants,
    not_found, played,
};
use crate::service::error::{Error, Result};
use crate::service::models::PlayerRef;
use crate::service::pages::{decode_cursor, encode_cursor, page_limit};
use crate::store;
use crate::store::entities::{tournament_pairings, tournaments};

fn summary(t: &tournaments::Model, entrants: usize, owner: PlayerRef) -> TournamentSummary {
    TournamentSummary {
        id: t.id,
        name: t.name.clone(),
        game: t.game.clone(),
        format: t.format.clone(),
        table_size: t.table_size,
        rounds: t.rounds,
        status: t.status.clone(),
        current_round: t.current_round,
        entrants,
        max_players: t.max_players,
        owner,
        starts_at: t.starts_at,
        round_interval: t.round_interval,
        round_started_at: t.round_started_at,
        created_at: t.created_at,
        started_at: t.started_at,
        finished_at: t.finished_at,
    }
}

impl Tournaments {
    pub async fn get_tournament(&self, id: Uuid) -> Result<TournamentResponse, Error> {
        let t = store::tournaments::tournament_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let entries = store::tournaments::entries_of(&self.db, id).await?;
        let pairings = store::tournaments::pairings_of(&self.db, id).await?;
        let mut ids: Vec<Uuid> = entries.iter().map(|e| e.player_id).collect();
        ids.push(t.owner_id);
        let names = store::players::names_by_id(&self.db, ids).await?;
        let player_ref = |id: Uuid| PlayerRef {
            id,
            name: names.get(&id).cloned().unwrap_or_default(),
        };
        let bots: HashMap<Uuid, Option<String>> = entries
            .iter()
            .map(|e| (e.player_id, e.bot.clone()))
            .collect();
        let standings = pairing::standings(&entrants(&entries), &played(&pairings))
            .into_iter()
            .enumerate()
            .map(|(i, l)| StandingLine {
                place: i + 1,
                player: player_ref(l.player),
                bot: bots.get(&l.player).cloned().flatten(),
                points: l.points,
                buchholz: l.buchholz,
                sonneborn_berger: l.sonneborn_berger,
                wins: l.wins,
                games: l.games,
                byes: l.byes,
                withdrawn: l.withdrawn,
            })
            .collect();
        let schedule = (1..=t.current_round)
            .map(|round| {
                let of_round: Vec<&tournament_pairings::Model> =
                    pairings.iter().filter(|p| p.round == round).collect();
                let mut tables: Vec<TournamentTable> = Vec::new();
                for p in &of_round {
                    let (Some(table), Some(m)) = (p.table_no, p.game_match) else {
                        continue;
                    };
                    let seat = TableSeat {
                        seat: p.seat.unwrap_or(0),
                        player: player_ref(p.player_id),
                        points: p.points,
                        rank: p.rank,
                    };
                    match tables.iter_mut().find(|x| x.table == table) {
                        Some(x) => {
                            x.over &= p.points.is_some();
                            x.seats.push(seat);
                        }
                        None => tables.push(TournamentTable {
                            table,
                            match_id: m,
                            over: p.points.is_some(),
                            seats: vec![seat],
                        }),
                    }
                }
                TournamentRound {
                    round,
                    tables,
                    byes: of_round
                        .iter()
                        .filter(|p| p.table_no.is_none())
                        .map(|p| player_ref(p.player_id))
                        .collect(),
                }
            })
            .collect();
        let options = serde_json::from_str(&t.options).map_err(Error::internal)?;
        Ok(TournamentResponse {
            summary: summary(&t, entries.len(), player_ref(t.owner_id)),
            options,
            standings,
            schedule,
        })
    }

    pub async fn list_tournaments(
        &self,
        game: Option<&str>,
        status: Option<&str>,
        limit: Option<u64>,
        cursor: Option<&str>,
    ) -> Result<TournamentPage, Error> {
        let limit = page_limit(limit)?;
        if status.is_some_and(|s| ![REGISTERING, RUNNING, DONE, CANCELLED].contains(&s)) {
            return Err(Error::bad_request(
                "invalid_status",
                "status is one of registering, running, finished, cancelled.",
            )
            .arg("statuses", "registering, running, finished, cancelled"));
        }
        let before = match cursor {
            Some(c) => Some(decode_cursor(c)?.parse::<Uuid>().map_err(|_| {
                Error::bad_request(
                    "invalid_cursor",
                    "The cursor is not one this server issued.",
                )
            })?),
            None => None,
        };
        let mut rows =
            store::tournaments::list_tournaments(&self.db, game, status, before, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let owners = rows.iter().map(|t| t.owner_id).collect();
        let names = store::players::names_by_id(&self.db, owners).await?;
        let mut items = Vec::new();
        for t in &rows {
            let entrants = store::tournaments::entries_of(&self.db, t.id).await?.len();
            let owner = PlayerRef {
                id: t.owner_id,
                name: names.get(&t.owner_id).cloned().unwrap_or_default(),
            };
            items.push(summary(t, entrants, owner));
        }
        let next_cursor = if more {
            rows.last().map(|t| encode_cursor(&t.id.to_string()))
        } else {
            None
        };
        Ok(TournamentPage { items, next_cursor })
    }
}
