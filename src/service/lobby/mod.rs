//! The lobby: matches made (with their bots and invitations), joined, left,
//! started, cancelled, swept when stale, and played again.

mod cancel;
mod rematch;
use std::sync::Arc;

use sea_orm::{DatabaseConnection, DatabaseTransaction};
use serde_json::Value;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::games::Event;
use crate::games::rng::{GameRng, Seed, sha256_hex};
use crate::service::caps::{Adding, Caps};
use crate::service::clock::Clock;
use crate::service::clubs::Clubs;
use crate::service::commits::Commits;
use crate::service::error::{Error, Result};
use crate::service::games::Games;
use crate::service::invitations::{Invitations, PENDING};
use crate::service::lifecycle::{ABORTED, WAITING, not_found, record_events};
use crate::service::models::MatchResponse;
use crate::service::options::{bad_code, normalize_code, split_options, visibility_of};
use crate::service::play::Play;
use crate::service::reads::Reads;
use crate::service::reliability::{self, Reliability};
use crate::service::timing::PRESENT;
use crate::service::tx::transaction;
use crate::service::visibility::{PRIVATE, Policy};
use crate::store;
use crate::store::entities::{match_seats, matches};

/// Who a seat is made for, and so whether a vacation stops it.
#[derive(Debug, Clone, Copy)]
pub(super) enum SeatFor<'a> {
    /// A player asking to join: refused while on vacation.
    Joining,
    /// A player the server seats (a tournament's round, a rematch, the
    /// creator): seated with its clock standing while away.
    ByServer,
    /// A bot of this kind.
    Bot(&'a str),
}

/// What the lobby is built from.
pub struct LobbyParts {
    pub db: DatabaseConnection,
    pub clock: Arc<dyn Clock>,
    pub games: Arc<Games>,
    pub commits: Arc<Commits>,
    pub play: Arc<Play>,
    pub policy: Arc<Policy>,
    pub invitations: Arc<Invitations>,
    pub clubs: Arc<Clubs>,
    pub reads: Arc<Reads>,
    pub caps: Arc<Caps>,
    pub reliability: Arc<Reliability>,
    /// How long a waiting match may go unjoined (none: for ever).
    pub stale_lobby: Option<chrono::Duration>,
    /// How long an invitation stays open when its sender does not say.
    pub invitation_ttl: chrono::Duration,
}

/// Making, joining, leaving and starting matches.
pub struct Lobby {
    db: DatabaseConnection,
    clock: Arc<dyn Clock>,
    games: Arc<Games>,
    commits: Arc<Commits>,
    play: Arc<Play>,
    policy: Arc<Policy>,
    invitations: Arc<Invitations>,
    clubs: Arc<Clubs>,
    reads: Arc<Reads>,
    caps: Arc<Caps>,
    reliability: Arc<Reliability>,
    stale_lobby: Option<chrono::Duration>,
    invitation_ttl: chrono::Duration,
    /// When the last sweep for stale matches ran, by the service's clock.
    last_lobby_sweep: std::sync::Mutex<Option<chrono::DateTime<chrono::Utc>>>,
}

impl Lobby {
    pub fn new(p: LobbyParts) -> Self {
        Self {
            db: p.db,
            clock: p.clock,
            games: p.games,
            commits: p.commits,
            play: p.play,
            policy: p.policy,
            invitations: p.invitations,
            clubs: p.clubs,
            reads: p.reads,
            caps: p.caps,
            reliability: p.reliability,
            stale_lobby: p.stale_lobby,
            invitation_ttl: p.invitation_ttl,
            last_lobby_sweep: std::sync::Mutex::new(None),
        }
    }
}

pub struct CreateMatch {
    pub game: String,
    pub seats: i64,
    pub options: Option<Value>,
    /// Bot kinds to seat at once, after the creator.
    pub bots: Vec<String>,
    /// Whether the creator takes seat 0 (false: it only owns the match).
    pub join: bool,
    /// `public` (default), `unlisted` or `private`.
    pub visibility: Option<String>,
    /// Whether outsiders may watch while it is played (default: true, but for a
    /// private match).
    pub spectators: Option<bool>,
    /// Names of players to invite.
    pub invite: Vec<String>,
    /// Seconds the invitations stay open (the server's default when not given).
    pub invitation_expires_in: Option<i64>,
    /// Who writes in the match's chat: `players` (default), `everyone` or `off`.
    pub chat: Option<String>,
    /// The club whose match it is: the creator must be one of its members.
    pub club: Option<Uuid>,
}

/// How a player joins a waiting match.
#[derive(Default)]
pub struct JoinMatch {
    /// The match's join code (needed for a private match one is not invited to).
    pub code: Option<String>,
    /// The seat wanted (the lowest free one when not given).
    pub seat: Option<i64>,
}

pub(super) fn unknown_bot(kind: &str, kinds: &[&str]) -> Error {
    Error::unprocessable(
        "unknown_bot",
        format!(
            "There is no bot {kind:?} for this game; its bots are: {}.",
            kinds.join(", ")
        ),
    )
    .arg("bot", kind)
    .arg("bots", kinds.join(", "))
}

/// The account name of the `n`-th bot of `kind` in a match. A dot cannot appear
/// in a player's name, so no person can take it.
pub(super) fn bot_name(kind: &str, n: usize) -> String {
    format!("bot.{kind}.{n}")
}

/// The seats that forfeited, in seat order.
fn new_seed() -> Result<Seed, Error> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| Error::internal(format!("no OS randomness: {e}")))?;
    Ok(seed)
}

impl Lobby {
    /// Joins the waiting match that `code` opens.
    pub async fn join_match_by_code(
        &self,
        me: &AuthenticatedPlayer,
        code: &str,
        seat: Option<i64>,
    ) -> Result<crate::service::models::MatchResponse, Error> {
        let code = normalize_code(code).ok_or_else(bad_code)?;
        let id = store::community::waiting_match_by_code(&self.db, &code)
            .await?
            .ok_or_else(|| {
                Error::not_found(
                    "join_code_not_found",
                    "No match waiting for players has this join code.",
                )
            })?;
        self.join_match(
            me,
            id,
            JoinMatch {
                code: Some(code),
                seat,
            },
        )
        .await
    }

    /// Accepts the caller's invitation: joins the match in `seat` (or the
    /// lowest free one). Without a pending invitation that has not expired,
    /// refused as declining would be.
    pub async fn accept_invitation(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        seat: Option<i64>,
    ) -> Result<super::models::MatchResponse, Error> {
        let m = store::matches::match_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        match store::community::invitation(&self.db, id, me.id).await? {
            None => {
                let seats = store::matches::seats_of(&self.db, id).await?;
                self.policy
                    .require_known(&self.db, &m, &seats, me.id)
                    .await?;
                return Err(Error::not_found(
                    "invitation_not_found",
                    "You hold no invitation to this match.",
                ));
            }
            Some(i) if i.status != PENDING => {
                return Err(Error::conflict(
                    "invitation_answered",
                    format!("You already answered this invitation ({}).", i.status),
                )
                .arg("status", i.status.clone()));
            }
            Some(i) if i.expires_at <= self.clock.now() => {
                return Err(Error::new(
                    actix_web::http::StatusCode::GONE,
                    "invitation_expired",
                    format!("Your invitation expired at {}.", i.expires_at.to_rfc3339()),
                )
                .arg("expires_at", i.expires_at.to_rfc3339()));
            }
            Some(_) => {}
        }
        self.join_match(me, id, JoinMatch { code: None, seat })
            .await
    }

    /// A new waiting match of `game` for `seats` with `options` (the game's own
    /// and the service's), checked by a dry run of its setup: bad options or a
    /// bad position are refused now, not at the start. Nothing is stored.
    pub(super) fn new_match_row(
        &self,
        owner: Uuid,
        game: &str,
        seats: i64,
        options: Option<Value>,
        shown: super::options::Visibility,
        chat: String,
    ) -> Result<matches::Model, Error> {
        let game = self
            .games
            .get(game)
            .ok_or_else(|| self.games.unknown(game))?;
        let info = game.info();
        let seats = usize::try_from(seats)
            .ok()
            .filter(|s| info.seats.contains(s))
            .ok_or_else(|| {
                Error::unprocessable(
                    "invalid_seats",
                    format!("{} is played by {:?} players.", info.name, info.seats),
                )
                .arg("game", info.name)
                .arg("seats", crate::service::error::listed(&info.seats))
            })?;
        let (service_options, game_options) = split_options(options)?;
        let game_options = game.normalize_options(&game_options)?;
        let data = self
            .games
            .data
            .current(info.id)
            .ok_or_else(|| Error::internal("no component data"))?;
        let seed = new_seed()?;
        match &service_options.position {
            Some(p) => game.from_position(&data.parsed, seats, &game_options, p)?,
            None => game.setup(
                &data.parsed,
                seats,
                &game_options,
                &mut GameRng::for_setup(&seed),
            )?,
        };
        let variant = game.variant(seats, &game_options)?;
        let now = self.clock.now();
        let mut stored_options = game_options.as_object().cloned().unwrap_or_default();
        // A position match is never rated, nor is a private one (a rating's
        // history names its matches): its options say so too.
        let rated = service_options.rated
            && service_options.position.is_none()
            && shown.visibility != PRIVATE;
        stored_options.insert("rated".into(), rated.into());
        // A time_control is kept as given (a per_move one stands for its
        // move_time_limit), so that options read back are accepted again.
        match &service_options.time_control {
            Some(tc) => {
                stored_options.insert("time_control".into(), tc.clone());
            }
            None => {
                if let Some(limit) = service_options.move_time_limit {
                    stored_options.insert("move_time_limit".into(), limit.into());
                }
            }
        }
        if let Some(policy) = &service_options.timeout_policy {
            stored_options.insert("timeout_policy".into(), policy.clone().into());
        }
        if let Some(limit) = service_options.absent_move_time_limit {
            stored_options.insert("absent_move_time_limit".into(), limit.into());
        }
        if let Some(grace) = service_options.grace {
            stored_options.insert("grace_extensions".into(), grace.count.into());
            stored_options.insert("grace_seconds".into(), grace.seconds.into());
        }
        if let Some(min) = service_options.min_reliability {
            stored_options.insert(reliability::MIN_RELIABILITY.into(), min.into());
        }
        let hours = service_options.bank.and_then(|b| b.hours);
        Ok(matches::Model {
            id: Uuid::now_v7(),
            game: info.id.to_owned(),
            status: WAITING.into(),
            seat_count: seats as i32,
            owner_id: Some(owner),
            options: Value::Object(stored_options).to_string(),
            position: service_options.position.as_ref().map(|p| p.to_string()),
            rated,
            seed: seed.to_vec(),
            seed_sha256: sha256_hex(&seed),
            state: None,
            step: 0,
            version: 0,
            engine_version: env!("CARGO_PKG_VERSION").into(),
            data_sha256: data.sha256.clone(),
            created_at: now,
            started_at: None,
            finished_at: None,
            updated_at: now,
            variant,
            deadline_at: None,
            move_time_limit: service_options.move_time_limit,
            absent_move_time_limit: service_options.absent_move_time_limit,
            timeout_policy: service_options.timeout_policy,
            step_started_at: None,
            visibility: shown.visibility,
            spectators: shown.spectators,
            join_code: shown.join_code,
            rematch_of: None,
            chat,
            club_id: None,
            bank_initial_seconds: service_options.bank.map(|b| b.initial_seconds),
            bank_increment_seconds: service_options.bank.map(|b| b.increment_seconds),
            bank_cap_seconds: service_options.bank.map(|b| b.cap_seconds),
            playing_hours_zone: hours.map(|h| h.zone.name().to_string()),
            playing_hours_from: hours.map(|h| h.from),
            playing_hours_to: hours.map(|h| h.to),
            grace_extensions: service_options.grace.map(|g| g.count),
            grace_seconds: service_options.grace.map(|g| g.seconds),
        })
    }

    pub async fn create_match(
        &self,
        me: &AuthenticatedPlayer,
        req: CreateMatch,
    ) -> Result<MatchResponse, Error> {
        let shown = visibility_of(req.visibility, req.spectators)?;
        let chat = super::options::chat_mode_of(req.chat.as_deref())?;
        let mut row = self.new_match_row(me.id, &req.game, req.seats, req.options, shown, chat)?;
        row.club_id = req.club;
        let game = self.games.of(&row.game)?;
        let info = game.info();
        let seats = row.seat_count as usize;
        let bot_kinds = game.bot_kinds();
        if let Some(unknown) = req.bots.iter().find(|k| !bot_kinds.contains(&k.as_str())) {
            return Err(unknown_bot(unknown, &bot_kinds));
        }
        if req.bots.len() + usize::from(req.join) > seats {
            return Err(Error::unprocessable(
                "invalid_seats",
                format!(
                    "{seats} seats cannot hold {} bots{}.",
                    req.bots.len(),
                    if req.join { " and you" } else { "" }
                ),
            )
            .arg("game", info.name)
            .arg("seats", seats));
        }
        let room = seats.saturating_sub(req.bots.len() + usize::from(req.join));
        let invitees = self
            .invitations
            .invitees(&req.invite, me.id, room, req.invitation_expires_in)
            .await?;
        let id = row.id;
        transaction!(&self.db, |tx| {
            if store::players::player_by_id(tx, me.id).await?.is_none() {
                return Err(Error::unauthorized(
                    "invalid_token",
                    "The access token names a player that does not exist.",
                )
                .arg("reason", "unknown_player"));
            }
            // Only a member starts a club's match (seated or not).
            self.clubs
                .require_club_member(tx, row.club_id, me.id)
                .await?;
            let adding = Adding {
                // A match its creator and bots fill starts at once: it never
                // stands in the lobby.
                waiting_matches: u32::from(req.bots.len() + usize::from(req.join) < seats),
                invitations: invitees.players.len() as u32,
                ..Adding::default()
            };
            self.caps.check_locked(tx, me, adding).await?;
            store::matches::insert_match(tx, row.clone()).await?;
            let mut m = row.clone();
            let mut seated = Vec::new();
            if req.join {
                seated.push(
                    self.seat_locked(tx, &mut m, &seated, me.id, SeatFor::ByServer, None)
                        .await?,
                );
            }
            for kind in &req.bots {
                seated.push(self.seat_bot_locked(tx, &mut m, &seated, kind).await?);
            }
            self.invitations
                .invite_locked(tx, &mut m, me.id, &invitees)
                .await?;
            if seated.len() == seats {
                m = self.play.start_locked(tx, m).await?;
            }
            store::matches::update_match(tx, m.clone()).await?;
            Ok::<_, Error>(m)
        })
        .map(|m| self.commits.committed(&m))?;
        tracing::info!(match.id = %id, game = info.id, "match created");
        self.reads.get_match(Some(me.id), id).await
    }

    /// Seats a player (or a bot account) in the lowest free seat of a waiting
    /// match, with its event; the caller writes the match back.
    pub(super) async fn seat_locked(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        taken: &[match_seats::Model],
        player: Uuid,
        how: SeatFor<'_>,
        wanted: Option<i64>,
    ) -> Result<match_seats::Model, Error> {
        let bot = match how {
            SeatFor::Bot(kind) => Some(kind),
            _ => None,
        };
        let free = match wanted {
            None => (0..m.seat_count)
                .find(|s| taken.iter().all(|t| t.seat != *s))
                .ok_or_else(|| Error::conflict("match_full", "Every seat is taken."))?,
            Some(w) if !(0..i64::from(m.seat_count)).contains(&w) => {
                return Err(Error::unprocessable(
                    "invalid_seat",
                    format!("This match has seats 0 to {}.", m.seat_count - 1),
                )
                .arg("max", m.seat_count - 1));
            }
            Some(w) if taken.iter().any(|t| i64::from(t.seat) == w) => {
                return Err(
                    Error::conflict("seat_taken", format!("Seat {w} is taken.")).arg("seat", w)
                );
            }
            Some(w) => w as i32,
        };
        if bot.is_none() {
            self.clubs
                .require_club_member(tx, m.club_id, player)
                .await?;
        }
        let now = self.clock.now();
        // A player seated by the server while away (a tournament's round, a
        // rematch) is seated with its clock standing until it is back; one
        // asking to join is told to come back first.
        let away = match how {
            SeatFor::Bot(_) => None,
            SeatFor::Joining | SeatFor::ByServer => {
                store::vacations::current(tx, player, now).await?
            }
        };
        if let (SeatFor::Joining, Some(v)) = (how, &away) {
            return Err(Error::conflict(
                "on_vacation",
                format!(
                    "You are on vacation until {}: come back first to join a match.",
                    v.ends_at.to_rfc3339()
                ),
            )
            .arg("until", v.ends_at.to_rfc3339()));
        }
        let seat = match_seats::Model {
            match_id: m.id,
            seat: free,
            player_id: player,
            joined_at: now,
            bot: bot.map(str::to_owned),
            presence: PRESENT.into(),
            // Filled in when the match starts.
            bank_ms: None,
            asked_at: None,
            moved_at: None,
            extension_ms: None,
            extension_step: None,
            graces_used: None,
            away_from: away.as_ref().map(|v| v.starts_at),
            away_until: away.as_ref().map(|v| v.ends_at),
        };
        store::matches::insert_seat(tx, seat.clone()).await?;
        m.version += 1;
        m.updated_at = now;
        let mut data = serde_json::json!({ "seat": free, "player": player });
        if let Some(kind) = bot {
            data["bot"] = kind.into();
        }
        record_events(tx, m, &[Event::public("player_joined", data)], now).await?;
        Ok(seat)
    }

    /// Seats a bot of `kind` in the lowest free seat. Each bot seat of a match is
    /// played by its own bot account (`bot.<kind>.<n>`), which keeps its own
    /// ratings.
    async fn seat_bot_locked(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        taken: &[match_seats::Model],
        kind: &str,
    ) -> Result<match_seats::Model, Error> {
        self.seat_bot_at_locked(tx, m, taken, kind, None).await
    }

    /// [`Self::seat_bot_locked`] in a given seat.
    async fn seat_bot_at_locked(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        taken: &[match_seats::Model],
        kind: &str,
        seat: Option<i64>,
    ) -> Result<match_seats::Model, Error> {
        let n = taken
            .iter()
            .filter(|s| s.bot.as_deref() == Some(kind))
            .count()
            + 1;
        let account = store::players::bot_player(tx, &bot_name(kind, n), self.clock.now()).await?;
        self.seat_locked(tx, m, taken, account.id, SeatFor::Bot(kind), seat)
            .await
    }

    /// Seats a bot in a waiting match (its owner only); the match starts when
    /// that fills it.
    pub async fn add_bot(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        kind: &str,
    ) -> Result<MatchResponse, Error> {
        transaction!(&self.db, |tx| {
            let mut m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            self.policy.require_waiting_owner(tx, &m, me).await?;
            let kinds = self.games.of(&m.game)?.bot_kinds();
            if !kinds.contains(&kind) {
                return Err(unknown_bot(kind, &kinds));
            }
            let seats = store::matches::seats_of(tx, id).await?;
            let seat = self.seat_bot_locked(tx, &mut m, &seats, kind).await?;
            if seats.len() + 1 == m.seat_count as usize {
                m = self.play.start_locked(tx, m).await?;
            }
            tracing::info!(match.id = %id, seat = seat.seat, bot = kind, "bot seated");
            store::matches::update_match(tx, m.clone()).await?;
            Ok::<_, Error>(m)
        })
        .map(|m| self.commits.committed(&m))?;
        self.reads.get_match(Some(me.id), id).await
    }

    pub async fn join_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        how: JoinMatch,
    ) -> Result<MatchResponse, Error> {
        let code = match how.code.as_deref() {
            None => None,
            Some(c) => Some(normalize_code(c).ok_or_else(bad_code)?),
        };
        // A match's minimum reliability needs the joiner's record: a read over
        // every match it sat in, made before the transaction (on Citus, a read
        // across shards does not belong in one that locks a match's row). The
        // options it follows never change once the match is made.
        let record = match store::matches::match_by_id(&self.db, id).await? {
            Some(m) => self.reliability.record_for(&m.options, me.id).await?,
            None => None,
        };
        transaction!(&self.db, |tx| {
            let mut m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            let seats = store::matches::seats_of(tx, id).await?;
            let invitation = self
                .invitations
                .may_join(tx, &m, &seats, me.id, code.as_deref())
                .await?;
            if m.status != WAITING {
                return Err(Error::conflict(
                    "match_not_waiting",
                    "This match is no longer waiting for players.",
                ));
            }
            if seats.iter().any(|s| s.player_id == me.id) {
                return Err(Error::conflict(
                    "already_seated",
                    "You already hold a seat in this match.",
                )
                .arg("player", me.name.clone()));
            }
            if store::players::player_by_id(tx, me.id).await?.is_none() {
                return Err(Error::unauthorized(
                    "invalid_token",
                    "The access token names a player that does not exist.",
                )
                .arg("reason", "unknown_player"));
            }
            reliability::admits(&m.options, record.as_ref())?;
            self.seat_locked(tx, &mut m, &seats, me.id, SeatFor::Joining, how.seat)
                .await?;
            if invitation {
                self.invitations
                    .accept_invitation_locked(tx, &m, me.id)
                    .await?;
            }
            if seats.len() + 1 == m.seat_count as usize {
                m = self.play.start_locked(tx, m).await?;
            }
            store::matches::update_match(tx, m.clone()).await?;
            Ok::<_, Error>(m)
        })
        .map(|m| self.commits.committed(&m))?;
        self.reads.get_match(Some(me.id), id).await
    }

    pub async fn start_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, Error> {
        transaction!(&self.db, |tx| {
            let m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            self.policy.require_waiting_owner(tx, &m, me).await?;
            let m = self.play.start_locked(tx, m).await?;
            store::matches::update_match(tx, m.clone()).await?;
            Ok::<_, Error>(m)
        })
        .map(|m| self.commits.committed(&m))?;
        self.reads.get_match(Some(me.id), id).await
    }

    pub async fn leave_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, Error> {
        transaction!(&self.db, |tx| {
            let mut m = store::matches::lock_match(tx, id)
                .await?
                .ok_or_else(not_found)?;
            let seats = store::matches::seats_of(tx, id).await?;
            let Some(mine) = seats.iter().find(|s| s.player_id == me.id) else {
                return Err(self.policy.not_seated(tx, &m, &seats, me.id).await);
            };
            if m.status != WAITING {
                return Err(Error::conflict(
                    "match_not_waiting",
                    "You can leave a match only before it starts.",
                ));
            }
            store::matches::delete_seat(tx, id, mine.seat).await?;
            let now = self.clock.now();
            // Bots cannot own a match: with no player left, it is aborted.
            let people: Vec<&match_seats::Model> = seats
                .iter()
                .filter(|s| s.seat != mine.seat && s.bot.is_none())
                .collect();
            if m.owner_id == Some(me.id) {
                m.owner_id = people.first().map(|s| s.player_id);
            }
            m.version += 1;
            m.updated_at = now;
            let mut events = vec![Event::public(
                "player_left",
                serde_json::json!({ "seat": mine.seat, "player": me.id }),
            )];
            if m.owner_id.is_none() {
                m.status = ABORTED.into();
                m.finished_at = Some(now);
                events.push(Event::public(
                    "match_aborted",
                    serde_json::json!({"reason": "abandoned"}),
                ));
            }
            record_events(tx, &m, &events, now).await?;
            store::matches::update_match(tx, m.clone()).await?;
            Ok::<_, Error>(m)
        })
        .map(|m| self.commits.committed(&m))?;
        self.reads.get_match(Some(me.id), id).await
    }
}
