//! Tournaments: round robin and Swiss over any game, their rounds created and
//! started by the server. docs/community.md ("Tournaments") holds the rules.
//!
//! A tournament's row is its lock: whoever changes its entries or starts a
//! round locks it first, so one replica alone moves it on. Its matches are
//! ordinary matches (played, timed out and forfeited as any other); the
//! server reads their placings when they end.

mod reads;
mod rounds;
use std::collections::HashSet;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use sea_orm::{DatabaseConnection, DatabaseTransaction};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;
use uuid::Uuid;

use super::pairing;
use crate::auth::AuthenticatedPlayer;
use crate::service::caps::{Adding, Caps};
use crate::service::clock::Clock;
use crate::service::commits::Commits;
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::lobby::{Lobby, bot_name};
use crate::service::models::PlayerRef;
use crate::service::options::visibility_of;
use crate::service::pairing::{Entrant, Played};
use crate::service::play::Play;
use crate::service::presence::Presence;
use crate::service::reliability::{self, Reliability};
use crate::service::tx::transaction;
use crate::store;
use crate::store::entities::{tournament_entries, tournament_pairings, tournaments};

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

fn not_found() -> Error {
    Error::not_found("tournament_not_found", "No tournament has that id.")
}

fn not_owner() -> Error {
    Error::forbidden("not_owner", "Only the tournament's owner may do this.")
}

pub(crate) fn full(t: &tournaments::Model) -> Error {
    Error::conflict(
        "tournament_full",
        format!("This tournament takes {} entrants.", t.max_players),
    )
    .arg("max", t.max_players)
}

pub(crate) fn over() -> Error {
    Error::conflict("tournament_over", "This tournament is over.")
}

fn not_registering() -> Error {
    Error::conflict(
        "tournament_started",
        "This tournament no longer takes entries: it has started or is over.",
    )
}

pub(crate) fn entrants(entries: &[tournament_entries::Model]) -> Vec<Entrant> {
    entries
        .iter()
        .map(|e| Entrant {
            player: e.player_id,
            seq: e.seq,
            withdrawn: e.withdrawn_at.is_some(),
        })
        .collect()
}

pub(crate) fn played(pairings: &[tournament_pairings::Model]) -> Vec<Played> {
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

/// Tournaments: round robin and Swiss over any game, their rounds' matches made
/// and started by the server.
pub struct Tournaments {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    games: Arc<Games>,
    lobby: Arc<Lobby>,
    play: Arc<Play>,
    presence: Arc<Presence>,
    commits: Arc<Commits>,
    caps: Arc<Caps>,
    reliability: Arc<Reliability>,
    /// When the poller last looked at tournaments, by the service's clock.
    /// When the last sweep ran: by the service's clock, and by this process's
    /// own (a sweep is due when either moved on enough; see
    /// `advance_tournaments`).
    last_tournament_sweep:
        std::sync::Mutex<Option<(chrono::DateTime<chrono::Utc>, std::time::Instant)>>,
}

impl Tournaments {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        db: DatabaseConnection,
        clock: Arc<dyn Clock>,
        games: Arc<Games>,
        lobby: Arc<Lobby>,
        play: Arc<Play>,
        presence: Arc<Presence>,
        commits: Arc<Commits>,
        caps: Arc<Caps>,
        reliability: Arc<Reliability>,
    ) -> Self {
        Self {
            db,
            clock,
            games,
            lobby,
            play,
            presence,
            commits,
            caps,
            reliability,
            last_tournament_sweep: std::sync::Mutex::new(None),
        }
    }
}

impl Tournaments {
    pub async fn create_tournament(
        &self,
        me: &AuthenticatedPlayer,
        req: CreateTournament,
    ) -> Result<TournamentResponse, Error> {
        let name = req.name.trim().to_owned();
        if name.is_empty() || name.chars().count() > 80 {
            return Err(Error::unprocessable(
                "invalid_name",
                "A tournament's name is 1 to 80 characters.",
            )
            .arg("what", "tournament"));
        }
        let game = self
            .games
            .get(&req.game)
            .ok_or_else(|| self.games.unknown(&req.game))?;
        let info = game.info();
        if req.format != ROUND_ROBIN && req.format != SWISS {
            return Err(Error::unprocessable(
                "invalid_format",
                "format is \"round_robin\" or \"swiss\".",
            ));
        }
        let table_size = req.table_size.unwrap_or(2);
        if req.format == ROUND_ROBIN && table_size != 2 {
            return Err(Error::unprocessable(
                "invalid_table_size",
                "A round robin is played in pairs: table_size is 2.",
            ));
        }
        let rounds = match (req.format.as_str(), req.rounds) {
            (_, None) => 0,
            (SWISS, Some(r)) if (1..=MAX_ROUNDS).contains(&r) => r as i32,
            (SWISS, Some(_)) => {
                return Err(Error::unprocessable(
                    "invalid_rounds",
                    format!("A Swiss tournament has 1 to {MAX_ROUNDS} rounds."),
                )
                .arg("max", MAX_ROUNDS));
            }
            (_, Some(_)) => {
                return Err(Error::unprocessable(
                    "invalid_rounds",
                    "A round robin has as many rounds as it takes for everyone to meet.",
                )
                .arg("max", MAX_ROUNDS));
            }
        };
        let max_players = req.max_players.unwrap_or(DEFAULT_MAX_PLAYERS);
        let min_seats = info.seats.iter().copied().min().unwrap_or(2) as i64;
        if !(min_seats.max(2)..=MAX_PLAYERS).contains(&max_players) {
            return Err(Error::unprocessable(
                "invalid_max_players",
                format!("max_players is from {} to {MAX_PLAYERS}.", min_seats.max(2)),
            )
            .arg("min", min_seats.max(2))
            .arg("max", MAX_PLAYERS));
        }
        let round_interval = match req.round_interval {
            None => None,
            Some(s) if (MIN_ROUND_INTERVAL..=MAX_ROUND_INTERVAL).contains(&s) => Some(s as i32),
            Some(_) => {
                return Err(Error::unprocessable(
                    "invalid_round_interval",
                    format!(
                        "round_interval is from {MIN_ROUND_INTERVAL} to {MAX_ROUND_INTERVAL} seconds."
                    ),
                ).arg("min", MIN_ROUND_INTERVAL).arg("max", MAX_ROUND_INTERVAL));
            }
        };
        let now = self.clock.now();
        if req.starts_at.is_some_and(|at| at <= now) {
            return Err(Error::unprocessable(
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
            let why = "A tournament's matches start from the game's setup, not a position.";
            return Err(Error::unprocessable("invalid_options", why).arg("reason", why));
        }
        // A dry run of the matches it will create: checks the table size and
        // the options, and gives them in the form they are stored.
        let sample = self.lobby.new_match_row(
            me.id,
            info.id,
            table_size,
            req.options,
            visibility_of(None, None)?,
            super::options::chat_mode_of(None)?,
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
        transaction!(&self.db, |tx| {
            let adding = Adding {
                tournaments: 1,
                ..Adding::default()
            };
            self.caps.check_locked(tx, me, adding).await?;
            store::tournaments::insert_tournament(tx, row.clone()).await?;
            if req.join {
                self.enter_locked(tx, &row, &[], vec![(me.id, None)])
                    .await?;
            }
            Ok::<_, Error>(())
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
    ) -> Result<(), Error> {
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
        store::tournaments::insert_entries(tx, rows).await?;
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
    ) -> Result<tournaments::Model, Error> {
        let t = store::tournaments::lock_tournament(tx, id)
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
    ) -> Result<TournamentResponse, Error> {
        // The matches' minimum reliability is asked at entry: the server seats
        // entrants in the matches itself, where nobody joins. The record is
        // read before the transaction, as when joining a match.
        let record = match store::tournaments::tournament_by_id(&self.db, id).await? {
            Some(t) => self.reliability.record_for(&t.options, me.id).await?,
            None => None,
        };
        transaction!(&self.db, |tx| {
            let t = self.lock_for(tx, me, id, false).await?;
            if t.status != REGISTERING {
                return Err(not_registering());
            }
            let entries = store::tournaments::entries_of(tx, id).await?;
            if entries.iter().any(|e| e.player_id == me.id) {
                return Err(Error::conflict(
                    "already_entered",
                    "You are already entered in this tournament.",
                ));
            }
            reliability::admits(&t.options, record.as_ref())?;
            self.enter_locked(tx, &t, &entries, vec![(me.id, None)])
                .await?;
            Ok::<_, Error>(())
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
    ) -> Result<TournamentResponse, Error> {
        transaction!(&self.db, |tx| {
            let t = self.lock_for(tx, me, id, true).await?;
            let kinds = self.games.of(&t.game)?.bot_kinds();
            if !kinds.contains(&kind) {
                return Err(super::lobby::unknown_bot(kind, &kinds));
            }
            if !(1..=MAX_PLAYERS).contains(&count) {
                return Err(Error::unprocessable(
                    "invalid_count",
                    format!("count is from 1 to {MAX_PLAYERS}."),
                )
                .arg("max", MAX_PLAYERS));
            }
            if t.status != REGISTERING {
                return Err(not_registering());
            }
            let entries = store::tournaments::entries_of(tx, id).await?;
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
                let account = store::players::bot_player(tx, &bot_name(kind, n), now).await?;
                if !entered.contains(&account.id) {
                    bots.push((account.id, Some(kind.to_owned())));
                }
            }
            self.enter_locked(tx, &t, &entries, bots).await?;
            Ok::<_, Error>(())
        })?;
        self.get_tournament(id).await
    }

    /// Leaves a tournament: before it starts, the entry goes; once running,
    /// the entrant is not paired again and resigns the match it is playing.
    pub async fn withdraw_from_tournament(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<TournamentResponse, Error> {
        let playing = transaction!(&self.db, |tx| {
            let t = self.lock_for(tx, me, id, false).await?;
            let entries = store::tournaments::entries_of(tx, id).await?;
            let Some(entry) = entries.iter().find(|e| e.player_id == me.id) else {
                return Err(Error::conflict(
                    "not_entered",
                    "You are not entered in this tournament.",
                ));
            };
            if entry.withdrawn_at.is_some() {
                return Err(Error::conflict(
                    "already_withdrawn",
                    "You have already withdrawn from this tournament.",
                ));
            }
            let playing = match t.status.as_str() {
                REGISTERING => {
                    store::tournaments::delete_entry(tx, id, me.id).await?;
                    None
                }
                RUNNING => {
                    let mut e = entry.clone();
                    e.withdrawn_at = Some(self.clock.now());
                    store::tournaments::update_entry(tx, e).await?;
                    store::tournaments::pairings_of(tx, id)
                        .await?
                        .into_iter()
                        .find(|p| {
                            p.round == t.current_round && p.player_id == me.id && p.points.is_none()
                        })
                        .and_then(|p| p.game_match)
                }
                _ => return Err(over()),
            };
            Ok::<_, Error>(playing)
        })?;
        if let Some(m) = playing {
            // The match may have ended meanwhile; its result stands then.
            if let Err(e) = self.presence.resign(me, m).await {
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
    ) -> Result<TournamentResponse, Error> {
        let started = transaction!(&self.db, |tx| {
            let mut t = self.lock_for(tx, me, id, true).await?;
            if t.status != REGISTERING {
                return Err(not_registering());
            }
            let entries = store::tournaments::entries_of(tx, id).await?;
            let min = self.min_seats(&t)?;
            if entries.len() < min.max(2) {
                return Err(Error::conflict(
                    "not_enough_players",
                    format!("A tournament needs at least {} entrants.", min.max(2)),
                )
                .arg("seated", entries.len())
                .arg("needed", min.max(2)));
            }
            let started = self.begin_locked(tx, &mut t, &entries).await?;
            Ok::<_, Error>(started)
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
    ) -> Result<TournamentResponse, Error> {
        transaction!(&self.db, |tx| {
            let mut t = self.lock_for(tx, me, id, true).await?;
            if t.status != REGISTERING && t.status != RUNNING {
                return Err(over());
            }
            self.close_locked(tx, &mut t, CANCELLED).await?;
            Ok::<_, Error>(())
        })?;
        self.get_tournament(id).await
    }

    async fn close_locked(
        &self,
        tx: &DatabaseTransaction,
        t: &mut tournaments::Model,
        status: &str,
    ) -> Result<(), Error> {
        let now = self.clock.now();
        t.status = status.into();
        t.finished_at = Some(now);
        t.updated_at = now;
        store::tournaments::update_tournament(tx, t.clone()).await?;
        tracing::info!(tournament.id = %t.id, status, "tournament over");
        Ok(())
    }

    fn min_seats(&self, t: &tournaments::Model) -> Result<usize, Error> {
        let info = self.games.of(&t.game)?.info();
        Ok(info.seats.iter().copied().min().unwrap_or(2))
    }
}
