//! Tournaments: round robin and Swiss over any game, their rounds created and
//! started by the server. docs/community.md ("Tournaments") holds the rules.
//!
//! A tournament's row is its lock: whoever changes its entries or starts a
//! round locks it first, so one replica alone moves it on. Its matches are
//! ordinary matches (played, timed out and forfeited as any other); the
//! server reads their placings when they end.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;

use chrono::{DateTime, Utc};
use sea_orm::DatabaseTransaction;
use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;
use uuid::Uuid;

use super::community::visibility_of;
use super::lifecycle::{ABORTED, FINISHED, record_events};
use super::matches::bot_name;
use super::models::PlayerRef;
use super::pairing::{self, Entrant, History, Played, Seating};
use super::{Service, decode_cursor, encode_cursor, page_limit, with_retry};
use crate::auth::AuthenticatedPlayer;
use crate::errors::ApiError;
use crate::games::Event;
use crate::store;
use crate::store::entities::{
    match_seats, matches, tournament_entries, tournament_pairings, tournaments,
};

pub const REGISTERING: &str = "registering";
pub const RUNNING: &str = "running";
pub const DONE: &str = "finished";
pub const CANCELLED: &str = "cancelled";
pub const ROUND_ROBIN: &str = "round_robin";
pub const SWISS: &str = "swiss";

/// What a bye scores: a win.
const BYE_POINTS: f64 = 1.0;
/// The most entrants a tournament takes, and its default.
pub const MAX_PLAYERS: i64 = 256;
const DEFAULT_MAX_PLAYERS: i64 = 64;
/// The most rounds a Swiss tournament may ask for.
pub const MAX_ROUNDS: i64 = 50;
/// The bounds of `round_interval`, in seconds: a minute to a week.
const MIN_ROUND_INTERVAL: i64 = 60;
const MAX_ROUND_INTERVAL: i64 = 7 * 24 * 3600;
/// How often the poller looks at running tournaments when no match of theirs
/// ended here (a match may have ended on another replica, or before a crash).
const SWEEP_SECONDS: i64 = 5;

/// A new tournament, as asked for.
pub struct CreateTournament {
    pub name: String,
    pub game: String,
    pub format: String,
    pub table_size: Option<i64>,
    pub rounds: Option<i64>,
    pub options: Option<Value>,
    pub max_players: Option<i64>,
    pub starts_at: Option<DateTime<Utc>>,
    pub round_interval: Option<i64>,
    pub join: bool,
}

/// A tournament in a list.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TournamentSummary {
    pub id: Uuid,
    #[schema(example = "Friday Swiss")]
    pub name: String,
    #[schema(example = "malacca")]
    pub game: String,
    /// `round_robin` or `swiss`.
    #[schema(example = "swiss")]
    pub format: String,
    /// Seats at a table (2: pairings).
    pub table_size: i32,
    /// The rounds planned; 0 until a round robin or a Swiss tournament without
    /// a set number of rounds starts.
    pub rounds: i32,
    /// `registering`, `running`, `finished` or `cancelled`.
    #[schema(example = "registering")]
    pub status: String,
    /// The round in play (0 before the first).
    pub current_round: i32,
    pub entrants: usize,
    pub max_players: i32,
    pub owner: PlayerRef,
    pub starts_at: Option<DateTime<Utc>>,
    /// Seconds from a round's start before the next may start; null: the
    /// next round starts as soon as the current one is over.
    pub round_interval: Option<i32>,
    /// When the round in play started.
    pub round_started_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub started_at: Option<DateTime<Utc>>,
    pub finished_at: Option<DateTime<Utc>>,
}

/// A page of tournaments.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TournamentPage {
    pub items: Vec<TournamentSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// An entrant's line in the standings.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StandingLine {
    /// 1 for the leader; every line has its own place (the tie-breaks and,
    /// last, the entry order decide).
    pub place: usize,
    pub player: PlayerRef,
    /// The bot kind playing this entrant, if a bot.
    pub bot: Option<String>,
    pub points: f64,
    pub buchholz: f64,
    pub sonneborn_berger: f64,
    pub wins: u32,
    pub games: u32,
    pub byes: u32,
    pub withdrawn: bool,
}

/// A seat at a table, with what it scored once the match is over.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TableSeat {
    pub seat: i32,
    pub player: PlayerRef,
    pub points: Option<f64>,
    /// The placing in the match (1 is best).
    pub rank: Option<i32>,
}

/// A table of a round: one match.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TournamentTable {
    /// From 1; table 1 seats the best standing (Swiss).
    pub table: i32,
    pub match_id: Uuid,
    /// Whether its result is in.
    pub over: bool,
    pub seats: Vec<TableSeat>,
}

/// A round: its tables and byes.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TournamentRound {
    pub round: i32,
    pub tables: Vec<TournamentTable>,
    /// Entrants who sat out this round, scoring a win.
    pub byes: Vec<PlayerRef>,
}

/// A tournament with its standings and rounds.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TournamentResponse {
    #[serde(flatten)]
    pub summary: TournamentSummary,
    /// The options every match is created with (the game's and the service's).
    #[schema(value_type = Object)]
    pub options: Value,
    /// Every entrant, best first (in entry order before the first round).
    pub standings: Vec<StandingLine>,
    pub schedule: Vec<TournamentRound>,
}

fn not_found() -> ApiError {
    ApiError::not_found("tournament_not_found", "No tournament has that id.")
}

fn not_owner() -> ApiError {
    ApiError::forbidden("not_owner", "Only the tournament's owner may do this.")
}

fn full(t: &tournaments::Model) -> ApiError {
    ApiError::conflict(
        "tournament_full",
        format!("This tournament takes {} entrants.", t.max_players),
    )
}

fn over() -> ApiError {
    ApiError::conflict("tournament_over", "This tournament is over.")
}

fn not_registering() -> ApiError {
    ApiError::conflict(
        "tournament_started",
        "This tournament no longer takes entries: it has started or is over.",
    )
}

fn entrants(entries: &[tournament_entries::Model]) -> Vec<Entrant> {
    entries
        .iter()
        .map(|e| Entrant {
            player: e.player_id,
            seq: e.seq,
            withdrawn: e.withdrawn_at.is_some(),
        })
        .collect()
}

fn played(pairings: &[tournament_pairings::Model]) -> Vec<Played> {
    pairings
        .iter()
        .map(|p| Played {
            round: p.round,
            player: p.player_id,
            table: p.table_no,
            points: p.points,
            rank: p.rank,
        })
        .collect()
}

impl Service {
    pub async fn create_tournament(
        &self,
        me: &AuthenticatedPlayer,
        req: CreateTournament,
    ) -> Result<TournamentResponse, ApiError> {
        let name = req.name.trim().to_owned();
        if name.is_empty() || name.chars().count() > 80 {
            return Err(ApiError::unprocessable(
                "invalid_name",
                "A tournament's name is 1 to 80 characters.",
            ));
        }
        let game = self
            .game(&req.game)
            .ok_or_else(|| self.unknown_game(&req.game))?;
        let info = game.info();
        if req.format != ROUND_ROBIN && req.format != SWISS {
            return Err(ApiError::unprocessable(
                "invalid_format",
                "format is \"round_robin\" or \"swiss\".",
            ));
        }
        let table_size = req.table_size.unwrap_or(2);
        if req.format == ROUND_ROBIN && table_size != 2 {
            return Err(ApiError::unprocessable(
                "invalid_table_size",
                "A round robin is played in pairs: table_size is 2.",
            ));
        }
        let rounds = match (req.format.as_str(), req.rounds) {
            (_, None) => 0,
            (SWISS, Some(r)) if (1..=MAX_ROUNDS).contains(&r) => r as i32,
            (SWISS, Some(_)) => {
                return Err(ApiError::unprocessable(
                    "invalid_rounds",
                    format!("A Swiss tournament has 1 to {MAX_ROUNDS} rounds."),
                ));
            }
            (_, Some(_)) => {
                return Err(ApiError::unprocessable(
                    "invalid_rounds",
                    "A round robin has as many rounds as it takes for everyone to meet.",
                ));
            }
        };
        let max_players = req.max_players.unwrap_or(DEFAULT_MAX_PLAYERS);
        let min_seats = info.seats.iter().copied().min().unwrap_or(2) as i64;
        if !(min_seats.max(2)..=MAX_PLAYERS).contains(&max_players) {
            return Err(ApiError::unprocessable(
                "invalid_max_players",
                format!("max_players is from {} to {MAX_PLAYERS}.", min_seats.max(2)),
            ));
        }
        let round_interval = match req.round_interval {
            None => None,
            Some(s) if (MIN_ROUND_INTERVAL..=MAX_ROUND_INTERVAL).contains(&s) => Some(s as i32),
            Some(_) => {
                return Err(ApiError::unprocessable(
                    "invalid_round_interval",
                    format!(
                        "round_interval is from {MIN_ROUND_INTERVAL} to {MAX_ROUND_INTERVAL} seconds."
                    ),
                ));
            }
        };
        let now = self.clock.now();
        if req.starts_at.is_some_and(|at| at <= now) {
            return Err(ApiError::unprocessable(
                "invalid_starts_at",
                "starts_at is in the future.",
            ));
        }
        if req
            .options
            .as_ref()
            .and_then(|o| o.get("position"))
            .is_some_and(|p| !p.is_null())
        {
            return Err(ApiError::unprocessable(
                "invalid_options",
                "A tournament's matches start from the game's setup, not a position.",
            ));
        }
        // A dry run of the matches it will create: checks the table size and
        // the options, and gives them in the form they are stored.
        let sample = self.new_match_row(
            me.id,
            info.id,
            table_size,
            req.options,
            visibility_of(None, None)?,
            super::chat::chat_mode_of(None)?,
        )?;
        let row = tournaments::Model {
            id: Uuid::now_v7(),
            name,
            game: info.id.to_owned(),
            format: req.format,
            table_size: table_size as i32,
            rounds,
            options: sample.options,
            owner_id: me.id,
            status: REGISTERING.into(),
            current_round: 0,
            starts_at: req.starts_at,
            round_interval,
            round_started_at: None,
            max_players: max_players as i32,
            created_at: now,
            started_at: None,
            finished_at: None,
            updated_at: now,
        };
        let id = row.id;
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            store::insert_tournament(&tx, row.clone()).await?;
            if req.join {
                self.enter_locked(&tx, &row, &[], vec![(me.id, None)])
                    .await?;
            }
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
        tracing::info!(tournament.id = %id, game = info.id, "tournament created");
        self.get_tournament(id).await
    }

    /// Enters players (with the bot kind playing each, if any) after the
    /// entries there are; checks the room left.
    async fn enter_locked(
        &self,
        tx: &DatabaseTransaction,
        t: &tournaments::Model,
        entries: &[tournament_entries::Model],
        players: Vec<(Uuid, Option<String>)>,
    ) -> Result<(), ApiError> {
        if entries.len() + players.len() > t.max_players as usize {
            return Err(full(t));
        }
        let next = entries.iter().map(|e| e.seq).max().unwrap_or(0) + 1;
        let now = self.clock.now();
        let rows = players
            .into_iter()
            .enumerate()
            .map(|(i, (player, bot))| tournament_entries::Model {
                tournament_id: t.id,
                player_id: player,
                seq: next + i as i32,
                bot,
                joined_at: now,
                withdrawn_at: None,
            })
            .collect();
        store::insert_entries(tx, rows).await?;
        Ok(())
    }

    /// Locks a tournament for a change by `me`: it exists, and (if `owner`)
    /// `me` owns it.
    async fn lock_for(
        &self,
        tx: &DatabaseTransaction,
        me: &AuthenticatedPlayer,
        id: Uuid,
        owner: bool,
    ) -> Result<tournaments::Model, ApiError> {
        let t = store::lock_tournament(tx, id)
            .await?
            .ok_or_else(not_found)?;
        if owner && t.owner_id != me.id {
            return Err(not_owner());
        }
        Ok(t)
    }

    pub async fn join_tournament(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<TournamentResponse, ApiError> {
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let t = self.lock_for(&tx, me, id, false).await?;
            if t.status != REGISTERING {
                return Err(not_registering());
            }
            let entries = store::entries_of(&tx, id).await?;
            if entries.iter().any(|e| e.player_id == me.id) {
                return Err(ApiError::conflict(
                    "already_entered",
                    "You are already entered in this tournament.",
                ));
            }
            self.enter_locked(&tx, &t, &entries, vec![(me.id, None)])
                .await?;
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
        self.get_tournament(id).await
    }

    /// Enters `count` bots of `kind` (the owner only, while registering).
    pub async fn add_tournament_bots(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        kind: &str,
        count: i64,
    ) -> Result<TournamentResponse, ApiError> {
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let t = self.lock_for(&tx, me, id, true).await?;
            let kinds = self.game_of(&t.game)?.bot_kinds();
            if !kinds.contains(&kind) {
                return Err(super::matches::unknown_bot(kind, &kinds));
            }
            if !(1..=MAX_PLAYERS).contains(&count) {
                return Err(ApiError::unprocessable(
                    "invalid_count",
                    format!("count is from 1 to {MAX_PLAYERS}."),
                ));
            }
            if t.status != REGISTERING {
                return Err(not_registering());
            }
            let entries = store::entries_of(&tx, id).await?;
            // Checked before any bot account is made for it.
            if entries.len() + count as usize > t.max_players as usize {
                return Err(full(&t));
            }
            let entered: HashSet<Uuid> = entries.iter().map(|e| e.player_id).collect();
            let now = self.clock.now();
            let mut bots = Vec::new();
            let mut n = 0;
            while bots.len() < count as usize {
                n += 1;
                let account = store::bot_player(&tx, &bot_name(kind, n), now).await?;
                if !entered.contains(&account.id) {
                    bots.push((account.id, Some(kind.to_owned())));
                }
            }
            self.enter_locked(&tx, &t, &entries, bots).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
        self.get_tournament(id).await
    }

    /// Leaves a tournament: before it starts, the entry goes; once running,
    /// the entrant is not paired again and resigns the match it is playing.
    pub async fn withdraw_from_tournament(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<TournamentResponse, ApiError> {
        let playing = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let t = self.lock_for(&tx, me, id, false).await?;
            let entries = store::entries_of(&tx, id).await?;
            let Some(entry) = entries.iter().find(|e| e.player_id == me.id) else {
                return Err(ApiError::conflict(
                    "not_entered",
                    "You are not entered in this tournament.",
                ));
            };
            if entry.withdrawn_at.is_some() {
                return Err(ApiError::conflict(
                    "already_withdrawn",
                    "You have already withdrawn from this tournament.",
                ));
            }
            let playing = match t.status.as_str() {
                REGISTERING => {
                    store::delete_entry(&tx, id, me.id).await?;
                    None
                }
                RUNNING => {
                    let mut e = entry.clone();
                    e.withdrawn_at = Some(self.clock.now());
                    store::update_entry(&tx, e).await?;
                    store::pairings_of(&tx, id)
                        .await?
                        .into_iter()
                        .find(|p| {
                            p.round == t.current_round && p.player_id == me.id && p.points.is_none()
                        })
                        .and_then(|p| p.game_match)
                }
                _ => return Err(over()),
            };
            tx.commit().await?;
            Ok::<_, ApiError>(playing)
        })?;
        if let Some(m) = playing {
            // The match may have ended meanwhile; its result stands then.
            if let Err(e) = self.resign(me, m).await {
                tracing::info!(match.id = %m, error = %e, "withdrawal: the match was not resigned");
            }
        }
        self.get_tournament(id).await
    }

    /// Starts a registering tournament now (its owner only).
    pub async fn start_tournament(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<TournamentResponse, ApiError> {
        let started = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut t = self.lock_for(&tx, me, id, true).await?;
            if t.status != REGISTERING {
                return Err(not_registering());
            }
            let entries = store::entries_of(&tx, id).await?;
            let min = self.min_seats(&t)?;
            if entries.len() < min.max(2) {
                return Err(ApiError::conflict(
                    "not_enough_players",
                    format!("A tournament needs at least {} entrants.", min.max(2)),
                ));
            }
            let started = self.begin_locked(&tx, &mut t, &entries).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(started)
        })?;
        self.announce(&started);
        self.get_tournament(id).await
    }

    /// Cancels a tournament that is not over (its owner only). Matches in play
    /// are played out, and count for nothing.
    pub async fn cancel_tournament(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<TournamentResponse, ApiError> {
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut t = self.lock_for(&tx, me, id, true).await?;
            if t.status != REGISTERING && t.status != RUNNING {
                return Err(over());
            }
            self.close_locked(&tx, &mut t, CANCELLED).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
        self.get_tournament(id).await
    }

    async fn close_locked(
        &self,
        tx: &DatabaseTransaction,
        t: &mut tournaments::Model,
        status: &str,
    ) -> Result<(), ApiError> {
        let now = self.clock.now();
        t.status = status.into();
        t.finished_at = Some(now);
        t.updated_at = now;
        store::update_tournament(tx, t.clone()).await?;
        tracing::info!(tournament.id = %t.id, status, "tournament over");
        Ok(())
    }

    fn min_seats(&self, t: &tournaments::Model) -> Result<usize, ApiError> {
        let info = self.game_of(&t.game)?.info();
        Ok(info.seats.iter().copied().min().unwrap_or(2))
    }

    /// Makes a registering tournament run, with its first round.
    async fn begin_locked(
        &self,
        tx: &DatabaseTransaction,
        t: &mut tournaments::Model,
        entries: &[tournament_entries::Model],
    ) -> Result<Vec<matches::Model>, ApiError> {
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
    async fn next_round_locked(
        &self,
        tx: &DatabaseTransaction,
        t: &mut tournaments::Model,
        entries: &[tournament_entries::Model],
        pairings: &[tournament_pairings::Model],
    ) -> Result<Vec<matches::Model>, ApiError> {
        let round = t.current_round + 1;
        let min = self.min_seats(t)?;
        let seating = self.seating(t, entries, pairings, round, min);
        if seating.tables.is_empty() {
            self.close_locked(tx, t, DONE).await?;
            return Ok(Vec::new());
        }
        let options: Value = serde_json::from_str(&t.options).map_err(ApiError::internal)?;
        let bots: HashMap<Uuid, Option<String>> = entries
            .iter()
            .map(|e| (e.player_id, e.bot.clone()))
            .collect();
        let now = self.clock.now();
        let mut rows = Vec::new();
        let mut started = Vec::new();
        for (i, table) in seating.tables.iter().enumerate() {
            let table_no = i as i32 + 1;
            let mut m = self.new_match_row(
                t.owner_id,
                &t.game,
                table.len() as i64,
                Some(options.clone()),
                visibility_of(None, None)?,
                super::chat::chat_mode_of(None)?,
            )?;
            store::insert_match(tx, m.clone()).await?;
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
                    .seat_locked(tx, &mut m, &seated, *player, bot.as_deref(), None)
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
            let m = self.start_locked(tx, m).await?;
            store::update_match(tx, m.clone()).await?;
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
        store::insert_pairings(tx, rows).await?;
        t.current_round = round;
        t.round_started_at = Some(now);
        t.updated_at = now;
        store::update_tournament(tx, t.clone()).await?;
        tracing::info!(tournament.id = %t.id, round, tables = started.len(), "round started");
        Ok(started)
    }

    /// Who sits where in `round`.
    fn seating(
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
    fn announce(&self, started: &[matches::Model]) {
        for m in started {
            self.committed(m);
        }
    }

    /// Asks the poller to look at tournaments soon: a match ended here.
    pub(super) fn tournament_match_over(&self) {
        self.tournaments_due.store(true, Ordering::Relaxed);
        self.hub.wake_poller();
    }

    /// Moves every tournament on that can be: records the results of its
    /// matches that ended, starts its next round when the current one is
    /// complete, finishes it after the last, and starts those whose time came.
    /// Runs from every replica's poller when a match ended here, and at least
    /// every few seconds of the service's clock; each tournament is claimed
    /// (`SKIP LOCKED`) and looked at again under its lock, so it moves on once.
    pub async fn advance_tournaments(&self) -> Result<usize, ApiError> {
        let now = self.clock.now();
        let due = self.tournaments_due.swap(false, Ordering::Relaxed);
        {
            let mut last = self
                .last_tournament_sweep
                .lock()
                .map_err(|_| ApiError::internal("tournament sweep lock poisoned"))?;
            let stale = last.is_none_or(|at| now - at >= chrono::Duration::seconds(SWEEP_SECONDS));
            if !due && !stale {
                return Ok(0);
            }
            *last = Some(now);
        }
        let mut moved = 0;
        let mut after = None;
        loop {
            let ids = store::tournaments_to_advance(&self.db, now, after, 100).await?;
            for &id in &ids {
                // One tournament that fails must not hold the others back.
                match with_retry!(self.advance_one(id)) {
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
    async fn advance_one(&self, id: Uuid) -> Result<Option<Vec<matches::Model>>, ApiError> {
        let ended = self.ended_matches(id).await?;
        let tx = store::begin_write(&self.db).await?;
        let Some(mut t) = store::try_lock_tournament(&tx, id).await? else {
            return Ok(None);
        };
        let now = self.clock.now();
        let entries = store::entries_of(&tx, id).await?;
        if t.status == REGISTERING {
            if t.starts_at.is_none_or(|at| at > now) {
                return Ok(None);
            }
            let started = if entries.len() < self.min_seats(&t)?.max(2) {
                // Nobody to play: as Lichess does, the tournament is cancelled.
                self.close_locked(&tx, &mut t, CANCELLED).await?;
                Vec::new()
            } else {
                self.begin_locked(&tx, &mut t, &entries).await?
            };
            tx.commit().await?;
            return Ok(Some(started));
        }
        if t.status != RUNNING {
            return Ok(None);
        }
        let mut pairings = store::pairings_of(&tx, id).await?;
        let recorded = self
            .record_results(&tx, &mut pairings, t.current_round, &ended)
            .await?;
        if pairings
            .iter()
            .any(|p| p.round == t.current_round && p.points.is_none())
        {
            if recorded {
                tx.commit().await?;
            }
            return Ok(recorded.then(Vec::new));
        }
        let too_soon = t
            .round_interval
            .zip(t.round_started_at)
            .is_some_and(|(s, at)| at + chrono::Duration::seconds(s.into()) > now);
        let started = if t.current_round >= t.rounds {
            self.close_locked(&tx, &mut t, DONE).await?;
            Vec::new()
        } else if too_soon {
            // The next round waits for its time; the sweep comes back.
            if recorded {
                tx.commit().await?;
            }
            return Ok(recorded.then(Vec::new));
        } else {
            self.next_round_locked(&tx, &mut t, &entries, &pairings)
                .await?
        };
        tx.commit().await?;
        Ok(Some(started))
    }

    /// The placings (seat, rank) of the tournament's matches still unscored
    /// that are over; an aborted one has none. Read outside the transaction
    /// that scores them: a match over stays over with the same placings, and
    /// on Citus this read spans shards, which the transaction writing the
    /// tournament's reference tables is better without.
    async fn ended_matches(&self, id: Uuid) -> Result<HashMap<Uuid, Vec<(i32, i32)>>, ApiError> {
        let mut pending: Vec<Uuid> = store::pairings_of(&self.db, id)
            .await?
            .into_iter()
            .filter(|p| p.points.is_none())
            .filter_map(|p| p.game_match)
            .collect();
        pending.sort();
        pending.dedup();
        let mut ended = HashMap::new();
        let mut finished = Vec::new();
        for (m, status) in store::statuses_of_matches(&self.db, pending).await? {
            if status == FINISHED {
                finished.push(m);
            }
            if status == FINISHED || status == ABORTED {
                ended.insert(m, Vec::new());
            }
        }
        for r in store::results_of_matches(&self.db, finished).await? {
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
    async fn record_results(
        &self,
        tx: &DatabaseTransaction,
        pairings: &mut [tournament_pairings::Model],
        round: i32,
        ended: &HashMap<Uuid, Vec<(i32, i32)>>,
    ) -> Result<bool, ApiError> {
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
            store::update_pairing(tx, p.clone()).await?;
            recorded = true;
        }
        Ok(recorded)
    }

    pub async fn get_tournament(&self, id: Uuid) -> Result<TournamentResponse, ApiError> {
        let t = store::tournament_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let entries = store::entries_of(&self.db, id).await?;
        let pairings = store::pairings_of(&self.db, id).await?;
        let mut ids: Vec<Uuid> = entries.iter().map(|e| e.player_id).collect();
        ids.push(t.owner_id);
        let names = self.player_names(ids).await?;
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
        let options = serde_json::from_str(&t.options).map_err(ApiError::internal)?;
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
    ) -> Result<TournamentPage, ApiError> {
        let limit = page_limit(limit)?;
        if status.is_some_and(|s| ![REGISTERING, RUNNING, DONE, CANCELLED].contains(&s)) {
            return Err(ApiError::bad_request(
                "invalid_status",
                "status is one of registering, running, finished, cancelled.",
            ));
        }
        let before = match cursor {
            Some(c) => Some(decode_cursor(c)?.parse::<Uuid>().map_err(|_| {
                ApiError::bad_request(
                    "invalid_cursor",
                    "The cursor is not one this server issued.",
                )
            })?),
            None => None,
        };
        let mut rows = store::list_tournaments(&self.db, game, status, before, limit + 1).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let owners = rows.iter().map(|t| t.owner_id).collect();
        let names = self.player_names(owners).await?;
        let mut items = Vec::new();
        for t in &rows {
            let entrants = store::entries_of(&self.db, t.id).await?.len();
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
