use std::collections::HashMap;
use std::sync::Arc;

use sea_orm::{ConnectionTrait, DatabaseTransaction};
use serde_json::{Map, Value};
use uuid::Uuid;

use super::models::{
    Deadline, MatchPage, MatchResponse, MatchSummary, PlacingResponse, PlayerRef, PromptResponse,
    SeatResponse,
};
use super::snapshots::Snapshot;
use super::{Service, decode_cursor, encode_cursor, page_limit, with_retry};
use crate::auth::AuthenticatedPlayer;
use crate::errors::ApiError;
use crate::games::rng::{GameRng, Seed, sha256_hex};
use crate::games::{AnyState, Progress, Viewer};
use crate::store::entities::{match_seats, matches};
use crate::store::{self, MatchFilter};

use super::community::{PRIVATE, bad_code, normalize_code, visibility_of};
use super::lifecycle::{
    ABORTED, ACTIVE, FINISHED, WAITING, forfeited_seats, not_found, record_events, seed_of,
};
use super::outcome::final_outcome;
use super::timing::{
    DEFAULT_ABSENT_LIMIT, FORFEITED as FORFEITED_PRESENCE, POLICY_BOT, POLICY_FORFEIT, PRESENT,
    seat_deadline,
};
use crate::games::Event;

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

/// The service options of a match, given in its `options` object beside the
/// game's own, and kept there (`rated`) or in typed columns (the time limits).
pub(super) struct ServiceOptions {
    pub rated: bool,
    pub position: Option<Value>,
    pub move_time_limit: Option<i32>,
    pub timeout_policy: Option<String>,
    pub absent_move_time_limit: Option<i32>,
}

/// The service options every game accepts, with their defaults.
pub const SERVICE_OPTION_KEYS: [&str; 5] = [
    "rated",
    "position",
    "move_time_limit",
    "timeout_policy",
    "absent_move_time_limit",
];

/// The longest time limit accepted, in seconds (30 days).
const MAX_TIME_LIMIT: i64 = 30 * 24 * 3600;

fn invalid_options(message: impl Into<String>) -> ApiError {
    ApiError::unprocessable("invalid_options", message)
}

fn seconds_option(map: &mut Map<String, Value>, key: &str) -> Result<Option<i32>, ApiError> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_i64()
            .filter(|s| (1..=MAX_TIME_LIMIT).contains(s))
            .map(|s| Some(s as i32))
            .ok_or_else(|| {
                invalid_options(format!(
                    "The option {key} is a whole number of seconds from 1 to {MAX_TIME_LIMIT}."
                ))
            }),
    }
}

/// Separates the service options from the game's own and checks them.
pub(super) fn split_options(options: Option<Value>) -> Result<(ServiceOptions, Value), ApiError> {
    let mut map = match options {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(invalid_options("options must be a JSON object.")),
    };
    let rated = match map.remove("rated") {
        None => true,
        Some(Value::Bool(b)) => b,
        Some(_) => return Err(invalid_options("The option rated must be true or false.")),
    };
    let position = match map.remove("position") {
        None | Some(Value::Null) => None,
        Some(p) => Some(p),
    };
    let move_time_limit = seconds_option(&mut map, "move_time_limit")?;
    let absent_move_time_limit = seconds_option(&mut map, "absent_move_time_limit")?;
    let timeout_policy = match map.remove("timeout_policy") {
        None | Some(Value::Null) => None,
        Some(Value::String(p)) if p == POLICY_BOT || p == POLICY_FORFEIT => Some(p),
        Some(_) => {
            return Err(invalid_options(
                "The option timeout_policy is \"bot\" or \"forfeit\".",
            ));
        }
    };
    if move_time_limit.is_none() && (timeout_policy.is_some() || absent_move_time_limit.is_some()) {
        return Err(invalid_options(
            "timeout_policy and absent_move_time_limit apply only with a move_time_limit.",
        ));
    }
    let timeout_policy = move_time_limit.map(|_| timeout_policy.unwrap_or(POLICY_BOT.into()));
    let absent_move_time_limit = match (&timeout_policy, absent_move_time_limit) {
        (Some(p), limit) if p == POLICY_BOT => Some(limit.unwrap_or(DEFAULT_ABSENT_LIMIT)),
        (_, Some(_)) => {
            return Err(invalid_options(
                "absent_move_time_limit applies only with timeout_policy \"bot\".",
            ));
        }
        _ => None,
    };
    Ok((
        ServiceOptions {
            rated,
            position,
            move_time_limit,
            timeout_policy,
            absent_move_time_limit,
        },
        Value::Object(map),
    ))
}

pub(super) fn unknown_bot(kind: &str, kinds: &[&str]) -> ApiError {
    ApiError::unprocessable(
        "unknown_bot",
        format!(
            "There is no bot {kind:?} for this game; its bots are: {}.",
            kinds.join(", ")
        ),
    )
}

/// The account name of the `n`-th bot of `kind` in a match. A dot cannot appear
/// in a player's name, so no person can take it.
pub(super) fn bot_name(kind: &str, n: usize) -> String {
    format!("bot.{kind}.{n}")
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
    }
}

/// The seats that forfeited, in seat order.
fn new_seed() -> Result<Seed, ApiError> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| ApiError::internal(format!("no OS randomness: {e}")))?;
    Ok(seed)
}

impl Service {
    /// The typed state of `m`: the snapshot's when one of that very version is
    /// kept (see [`super::snapshots`]), else parsed from the row's text.
    pub(super) async fn state_of(&self, m: &matches::Model) -> Result<Option<AnyState>, ApiError> {
        if let Some(kept) = self.snapshots.get_at(m.id, m.version) {
            return Ok(kept.state.clone());
        }
        let Some(text) = m.state.as_deref() else {
            return Ok(None);
        };
        self.parse_stored(m, text).await.map(Some)
    }

    /// A state from its stored text, given back what the text leaves to the
    /// match's component data (its own version: the current one but for matches
    /// created before the data last changed).
    async fn parse_stored(&self, m: &matches::Model, text: &str) -> Result<AnyState, ApiError> {
        let game = self.game_of(&m.game)?;
        let data = self
            .data
            .by_sha(&self.db, game, &m.data_sha256)
            .await
            .map_err(ApiError::internal)?;
        Ok(game.parse_state(text, &data)?)
    }

    /// Stores `state` in `m` as text.
    pub(super) fn set_state(
        &self,
        m: &mut matches::Model,
        state: &AnyState,
    ) -> Result<(), ApiError> {
        m.state = Some(self.game_of(&m.game)?.state_text(state)?);
        Ok(())
    }

    /// Keeps what a committed write left, so that the next read or move of the
    /// match in this process needs neither a full read nor a parse. The names come
    /// from the snapshot kept before (a write that changes who is seated is not
    /// kept: the next read reads it whole).
    pub(super) fn keep_written(
        &self,
        m: &matches::Model,
        seats: &[match_seats::Model],
        state: Option<AnyState>,
    ) {
        let Some(before) = self.snapshots.get(m.id) else {
            return;
        };
        if before.seats.len() != seats.len()
            || before
                .seats
                .iter()
                .zip(seats)
                .any(|(a, b)| a.player_id != b.player_id)
            || m.owner_id != before.row.owner_id
        {
            return;
        }
        let text_len = m.state.as_ref().map_or(0, String::len);
        let mut snap = Snapshot::new(
            m.clone(),
            seats.to_vec(),
            before.names.clone(),
            state,
            text_len,
        );
        snap.names_read = before.names_read;
        self.snapshots.put(Arc::new(snap));
    }

    /// The match as of its latest version: the kept snapshot when the database
    /// says it is current (one primary-key read), else read whole and kept.
    pub(super) async fn snapshot(&self, id: Uuid) -> Result<Arc<Snapshot>, ApiError> {
        if let Some(kept) = self.snapshots.get(id).filter(|s| s.names_fresh()) {
            if self.notified_reads && self.hub.hears_every_change() {
                return Ok(kept);
            }
            match store::match_version(&self.db, id).await? {
                Some(v) if v == kept.version() => return Ok(kept),
                None => return Err(not_found()),
                Some(_) => {}
            }
        }
        self.read_snapshot(id).await
    }

    /// Reads a match whole (one statement) and keeps it.
    pub(super) async fn read_snapshot(&self, id: Uuid) -> Result<Arc<Snapshot>, ApiError> {
        let mark = self.snapshots.mark(id);
        let read = store::match_snapshot(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let mut names: HashMap<Uuid, String> = read.names.into_iter().collect();
        if let Some(owner) = read.row.owner_id
            && !names.contains_key(&owner)
        {
            names.extend(self.player_names(vec![owner]).await?);
        }
        let text_len = read.row.state.as_ref().map_or(0, String::len);
        let state = match read.row.state.as_deref() {
            Some(text) => Some(self.parse_stored(&read.row, text).await?),
            None => None,
        };
        let snap = Arc::new(Snapshot::new(read.row, read.seats, names, state, text_len));
        self.snapshots.put_read(snap.clone(), mark);
        Ok(snap)
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
        shown: super::community::Visibility,
        chat: String,
    ) -> Result<matches::Model, ApiError> {
        let game = self.game(game).ok_or_else(|| self.unknown_game(game))?;
        let info = game.info();
        let seats = usize::try_from(seats)
            .ok()
            .filter(|s| info.seats.contains(s))
            .ok_or_else(|| {
                ApiError::unprocessable(
                    "invalid_seats",
                    format!("{} is played by {:?} players.", info.name, info.seats),
                )
            })?;
        let (service_options, game_options) = split_options(options)?;
        let game_options = game.normalize_options(&game_options)?;
        let data = self
            .data
            .current(info.id)
            .ok_or_else(|| ApiError::internal("no component data"))?;
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
        if let Some(limit) = service_options.move_time_limit {
            stored_options.insert("move_time_limit".into(), limit.into());
        }
        if let Some(policy) = &service_options.timeout_policy {
            stored_options.insert("timeout_policy".into(), policy.clone().into());
        }
        if let Some(limit) = service_options.absent_move_time_limit {
            stored_options.insert("absent_move_time_limit".into(), limit.into());
        }
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
        })
    }

    /// The answer to a game id no game has: it names the games there are.
    pub(super) fn unknown_game(&self, id: &str) -> ApiError {
        let ids: Vec<&str> = self.games.iter().map(|g| g.info().id).collect();
        ApiError::unprocessable(
            "unknown_game",
            format!(
                "There is no game {id:?}; the games are: {}.",
                ids.join(", ")
            ),
        )
    }

    pub async fn create_match(
        &self,
        me: &AuthenticatedPlayer,
        req: CreateMatch,
    ) -> Result<MatchResponse, ApiError> {
        let shown = visibility_of(req.visibility, req.spectators)?;
        let chat = super::chat::chat_mode_of(req.chat.as_deref())?;
        let mut row = self.new_match_row(me.id, &req.game, req.seats, req.options, shown, chat)?;
        row.club_id = req.club;
        let game = self.game_of(&row.game)?;
        let info = game.info();
        let seats = row.seat_count as usize;
        let bot_kinds = game.bot_kinds();
        if let Some(unknown) = req.bots.iter().find(|k| !bot_kinds.contains(&k.as_str())) {
            return Err(unknown_bot(unknown, &bot_kinds));
        }
        if req.bots.len() + usize::from(req.join) > seats {
            return Err(ApiError::unprocessable(
                "invalid_seats",
                format!(
                    "{seats} seats cannot hold {} bots{}.",
                    req.bots.len(),
                    if req.join { " and you" } else { "" }
                ),
            ));
        }
        let room = seats.saturating_sub(req.bots.len() + usize::from(req.join));
        let invitees = self
            .invitees(&req.invite, me.id, room, req.invitation_expires_in)
            .await?;
        let id = row.id;
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            if store::player_by_id(&tx, me.id).await?.is_none() {
                return Err(ApiError::unauthorized(
                    "invalid_token",
                    "The access token names a player that does not exist.",
                ));
            }
            // Only a member starts a club's match (seated or not).
            self.require_club_member(&tx, row.club_id, me.id).await?;
            store::insert_match(&tx, row.clone()).await?;
            let mut m = row.clone();
            let mut seated = Vec::new();
            if req.join {
                seated.push(
                    self.seat_locked(&tx, &mut m, &seated, me.id, None, None)
                        .await?,
                );
            }
            for kind in &req.bots {
                seated.push(self.seat_bot_locked(&tx, &mut m, &seated, kind).await?);
            }
            self.invite_locked(&tx, &mut m, me.id, &invitees).await?;
            if seated.len() == seats {
                m = self.start_locked(&tx, m).await?;
            }
            store::update_match(&tx, m.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(m)
        })
        .map(|m| self.committed(&m))?;
        tracing::info!(match.id = %id, game = info.id, "match created");
        self.get_match(Some(me.id), id).await
    }

    /// Seats a player (or a bot account) in the lowest free seat of a waiting
    /// match, with its event; the caller writes the match back.
    pub(super) async fn seat_locked(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        taken: &[match_seats::Model],
        player: Uuid,
        bot: Option<&str>,
        wanted: Option<i64>,
    ) -> Result<match_seats::Model, ApiError> {
        let free = match wanted {
            None => (0..m.seat_count)
                .find(|s| taken.iter().all(|t| t.seat != *s))
                .ok_or_else(|| ApiError::conflict("match_full", "Every seat is taken."))?,
            Some(w) if !(0..i64::from(m.seat_count)).contains(&w) => {
                return Err(ApiError::unprocessable(
                    "invalid_seat",
                    format!("This match has seats 0 to {}.", m.seat_count - 1),
                ));
            }
            Some(w) if taken.iter().any(|t| i64::from(t.seat) == w) => {
                return Err(ApiError::conflict(
                    "seat_taken",
                    format!("Seat {w} is taken."),
                ));
            }
            Some(w) => w as i32,
        };
        if bot.is_none() {
            self.require_club_member(tx, m.club_id, player).await?;
        }
        let now = self.clock.now();
        let seat = match_seats::Model {
            match_id: m.id,
            seat: free,
            player_id: player,
            joined_at: now,
            bot: bot.map(str::to_owned),
            presence: PRESENT.into(),
        };
        store::insert_seat(tx, seat.clone()).await?;
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
    ) -> Result<match_seats::Model, ApiError> {
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
    ) -> Result<match_seats::Model, ApiError> {
        let n = taken
            .iter()
            .filter(|s| s.bot.as_deref() == Some(kind))
            .count()
            + 1;
        let account = store::bot_player(tx, &bot_name(kind, n), self.clock.now()).await?;
        self.seat_locked(tx, m, taken, account.id, Some(kind), seat)
            .await
    }

    /// Seats a bot in a waiting match (its owner only); the match starts when
    /// that fills it.
    pub async fn add_bot(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        kind: &str,
    ) -> Result<MatchResponse, ApiError> {
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
            self.require_waiting_owner(&tx, &m, me).await?;
            let kinds = self.game_of(&m.game)?.bot_kinds();
            if !kinds.contains(&kind) {
                return Err(unknown_bot(kind, &kinds));
            }
            let seats = store::seats_of(&tx, id).await?;
            let seat = self.seat_bot_locked(&tx, &mut m, &seats, kind).await?;
            if seats.len() + 1 == m.seat_count as usize {
                m = self.start_locked(&tx, m).await?;
            }
            tracing::info!(match.id = %id, seat = seat.seat, bot = kind, "bot seated");
            store::update_match(&tx, m.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(m)
        })
        .map(|m| self.committed(&m))?;
        self.get_match(Some(me.id), id).await
    }

    pub async fn join_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
        how: JoinMatch,
    ) -> Result<MatchResponse, ApiError> {
        let code = match how.code.as_deref() {
            None => None,
            Some(c) => Some(normalize_code(c).ok_or_else(bad_code)?),
        };
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
            let seats = store::seats_of(&tx, id).await?;
            let invitation = self
                .may_join(&tx, &m, &seats, me.id, code.as_deref())
                .await?;
            if m.status != WAITING {
                return Err(ApiError::conflict(
                    "match_not_waiting",
                    "This match is no longer waiting for players.",
                ));
            }
            if seats.iter().any(|s| s.player_id == me.id) {
                return Err(ApiError::conflict(
                    "already_seated",
                    "You already hold a seat in this match.",
                ));
            }
            if store::player_by_id(&tx, me.id).await?.is_none() {
                return Err(ApiError::unauthorized(
                    "invalid_token",
                    "The access token names a player that does not exist.",
                ));
            }
            self.seat_locked(&tx, &mut m, &seats, me.id, None, how.seat)
                .await?;
            if invitation {
                self.accept_invitation_locked(&tx, &m, me.id).await?;
            }
            if seats.len() + 1 == m.seat_count as usize {
                m = self.start_locked(&tx, m).await?;
            }
            store::update_match(&tx, m.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(m)
        })
        .map(|m| self.committed(&m))?;
        self.get_match(Some(me.id), id).await
    }

    pub async fn start_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, ApiError> {
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
            self.require_waiting_owner(&tx, &m, me).await?;
            let m = self.start_locked(&tx, m).await?;
            store::update_match(&tx, m.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(m)
        })
        .map(|m| self.committed(&m))?;
        self.get_match(Some(me.id), id).await
    }

    pub async fn leave_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, ApiError> {
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
            let seats = store::seats_of(&tx, id).await?;
            let Some(mine) = seats.iter().find(|s| s.player_id == me.id) else {
                return Err(self.not_seated(&tx, &m, &seats, me.id).await);
            };
            if m.status != WAITING {
                return Err(ApiError::conflict(
                    "match_not_waiting",
                    "You can leave a match only before it starts.",
                ));
            }
            store::delete_seat(&tx, id, mine.seat).await?;
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
            record_events(&tx, &m, &events, now).await?;
            store::update_match(&tx, m.clone()).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(m)
        })
        .map(|m| self.committed(&m))?;
        self.get_match(Some(me.id), id).await
    }

    pub async fn cancel_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, ApiError> {
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
            self.require_waiting_owner(&tx, &m, me).await?;
            self.abort_waiting(&tx, &mut m, "cancelled").await?;
            tx.commit().await?;
            Ok::<_, ApiError>(m)
        })
        .map(|m| self.committed(&m))?;
        self.get_match(Some(me.id), id).await
    }

    /// Aborts a waiting match locked in `tx`, with its `match_aborted` event
    /// saying why (`cancelled` by its owner, `stale` by the server).
    pub(super) async fn abort_waiting(
        &self,
        tx: &DatabaseTransaction,
        m: &mut matches::Model,
        reason: &str,
    ) -> Result<(), ApiError> {
        let now = self.clock.now();
        m.status = ABORTED.into();
        m.finished_at = Some(now);
        m.updated_at = now;
        m.version += 1;
        let aborted = Event::public("match_aborted", serde_json::json!({ "reason": reason }));
        record_events(tx, m, &[aborted], now).await?;
        store::update_match(tx, m.clone()).await?;
        Ok(())
    }

    /// Cancels the waiting matches that nobody joined or left for the lobby's
    /// time (`STALE_LOBBY_DAYS`), with a `match_aborted` event of reason
    /// `stale`; at most once a minute of the service's clock, from every
    /// replica's poller. As with deadlines, the candidates are a plain read and
    /// each is claimed by id (`SKIP LOCKED`) and checked again under its lock, so
    /// on a distributed database no lock spans shards and each match is
    /// cancelled once.
    pub async fn cancel_stale_lobbies(&self) -> Result<usize, ApiError> {
        let Some(stale) = self.stale_lobby else {
            return Ok(0);
        };
        let now = self.clock.now();
        {
            let mut last = self
                .last_lobby_sweep
                .lock()
                .map_err(|_| ApiError::internal("lobby sweep lock poisoned"))?;
            if last.is_some_and(|at| now - at < chrono::Duration::seconds(60)) {
                return Ok(0);
            }
            *last = Some(now);
        }
        let cutoff = now - stale;
        let mut cancelled = 0;
        for id in store::stale_lobbies(&self.db, cutoff, 100).await? {
            let done = with_retry!(async {
                let tx = store::begin_write(&self.db).await?;
                let Some(mut m) = store::try_lock_match(&tx, id).await? else {
                    return Ok::<_, ApiError>(None);
                };
                if m.status != WAITING || m.updated_at > cutoff {
                    return Ok(None);
                }
                self.abort_waiting(&tx, &mut m, "stale").await?;
                tx.commit().await?;
                Ok(Some(m))
            })?;
            if let Some(m) = done {
                self.committed(&m);
                tracing::info!(match.id = %m.id, "stale waiting match cancelled");
                cancelled += 1;
            }
        }
        Ok(cancelled)
    }

    pub(super) async fn require_waiting_owner(
        &self,
        tx: &DatabaseTransaction,
        m: &matches::Model,
        me: &AuthenticatedPlayer,
    ) -> Result<(), ApiError> {
        if m.owner_id != Some(me.id) {
            if m.visibility == PRIVATE {
                let seats = store::seats_of(tx, m.id).await?;
                if !self.standing(tx, m, &seats, Some(me.id)).await?.knows() {
                    return Err(not_found());
                }
            }
            return Err(ApiError::forbidden(
                "not_owner",
                "Only the match's owner may do this.",
            ));
        }
        if m.status != WAITING {
            return Err(ApiError::conflict(
                "match_not_waiting",
                "This match is no longer waiting for players.",
            ));
        }
        Ok(())
    }

    /// The state a match starts from: its position, or the setup drawn from its
    /// seed, with the data and options it was created with. Replaying the moves
    /// that stand from here gives the state stored now.
    pub(super) async fn initial_state(
        &self,
        db: &impl ConnectionTrait,
        m: &matches::Model,
        seats: usize,
    ) -> Result<AnyState, ApiError> {
        let game = self.game_of(&m.game)?;
        let data = self
            .data
            .by_sha(db, game, &m.data_sha256)
            .await
            .map_err(ApiError::internal)?;
        let options: Value = serde_json::from_str(&m.options).map_err(ApiError::internal)?;
        let (_, game_options) = split_options(Some(options))?;
        let seed = seed_of(m)?;
        Ok(match m.position.as_deref() {
            Some(p) => {
                let p: Value = serde_json::from_str(p).map_err(ApiError::internal)?;
                game.from_position(&data, seats, &game_options, &p)?
            }
            None => game.setup(&data, seats, &game_options, &mut GameRng::for_setup(&seed))?,
        })
    }
    /// Compacts the seats, sets the game up, and makes the match active.
    pub(super) async fn start_locked(
        &self,
        tx: &DatabaseTransaction,
        mut m: matches::Model,
    ) -> Result<matches::Model, ApiError> {
        let game = self.game_of(&m.game)?;
        let info = game.info();
        let mut seats = store::seats_of(tx, m.id).await?;
        if !info.seats.contains(&seats.len()) {
            return Err(ApiError::conflict(
                "not_enough_players",
                format!(
                    "{} needs {:?} players to start; {} are seated.",
                    info.name,
                    info.seats,
                    seats.len()
                ),
            ));
        }
        seats.sort_by_key(|s| s.seat);
        let compacted: Vec<match_seats::Model> = seats
            .into_iter()
            .enumerate()
            .map(|(i, mut s)| {
                s.seat = i as i32;
                s
            })
            .collect();
        let n = compacted.len();
        store::replace_seats(tx, m.id, compacted.clone()).await?;
        let state = self.initial_state(tx, &m, n).await?;
        let now = self.clock.now();
        m.seat_count = n as i32;
        m.status = ACTIVE.into();
        m.started_at = Some(now);
        m.step_started_at = Some(now);
        m.updated_at = now;
        m.step = 0;
        m.version += 1;
        // A match is rated only when every seat is a person.
        m.rated = m.rated && compacted.iter().all(|s| s.bot.is_none());
        let started = Event::public(
            "match_started",
            serde_json::json!({
                "seats": compacted.iter().map(|s| serde_json::json!({
                    "seat": s.seat, "player": s.player_id, "bot": s.bot,
                })).collect::<Vec<_>>(),
                "rated": m.rated,
            }),
        );
        record_events(tx, &m, &[started], now).await?;
        self.finish_if_over(tx, &mut m, &compacted, &state, now)
            .await?;
        self.schedule(&mut m, &compacted, &state)?;
        self.set_state(&mut m, &state)?;
        Ok(m)
    }

    /// A match as `caller` (a player id, or anonymous) may see it.
    pub async fn get_match(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
    ) -> Result<MatchResponse, ApiError> {
        let snap = self.snapshot(id).await?;
        self.require_visible(&self.db, &snap.row, &snap.seats, caller)
            .await?;
        self.render(&snap, caller)
    }

    pub(super) async fn names(
        &self,
        db: &impl ConnectionTrait,
        seats: &[match_seats::Model],
        owner: Option<Uuid>,
    ) -> Result<HashMap<Uuid, String>, ApiError> {
        let mut ids: Vec<Uuid> = seats.iter().map(|s| s.player_id).collect();
        ids.extend(owner);
        ids.sort();
        ids.dedup();
        Ok(store::players_by_ids(db, ids)
            .await?
            .into_iter()
            .map(|p| (p.id, p.name))
            .collect())
    }

    fn render(&self, snap: &Snapshot, caller: Option<Uuid>) -> Result<MatchResponse, ApiError> {
        let (m, seats, names) = (&snap.row, &snap.seats, &snap.names);
        let game = self.game_of(&m.game)?;
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
        let your_seat = caller.and_then(|c| {
            seats
                .iter()
                .find(|s| s.player_id == c)
                .map(|s| s.seat as usize)
        });
        let over = m.status == FINISHED || m.status == ABORTED;
        let state = &snap.state;
        let mut view = None;
        let mut prompt = None;
        let mut result = None;
        if let Some(state) = &state {
            let viewer = your_seat.map(Viewer::Seat).unwrap_or(Viewer::Spectator);
            view = Some(game.view_json(state, viewer)?);
            match game.progress(state)? {
                Progress::Active(p) if m.status == ACTIVE => {
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
                            seat_deadline(m, s, rule).map(|(at, _)| Deadline {
                                seat: s.seat as usize,
                                at,
                            })
                        })
                        .collect();
                    prompt = Some(PromptResponse {
                        step: m.step,
                        round: p.round,
                        kind: p.kind,
                        sealed: p.sealed,
                        awaiting: p.awaiting.clone(),
                        your_turn,
                        deadlines,
                        legal,
                    });
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
        let mut options: Value = serde_json::from_str(&m.options).map_err(ApiError::internal)?;
        if let (Some(obj), Some(p)) = (options.as_object_mut(), m.position.as_deref()) {
            let shown = if over {
                serde_json::from_str(p).map_err(ApiError::internal)?
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
                .map(|seat| seat_response(seat, seats, &player_ref))
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
            join_code: m
                .join_code
                .clone()
                .filter(|_| caller.is_some() && caller == m.owner_id),
            rematch_of: m.rematch_of,
            chat: m.chat.clone(),
            club_id: m.club_id,
        })
    }

    pub async fn list_matches(&self, q: ListMatches) -> Result<MatchPage, ApiError> {
        let limit = page_limit(q.limit)?;
        if let Some(s) = &q.status
            && ![WAITING, ACTIVE, FINISHED, ABORTED].contains(&s.as_str())
        {
            return Err(ApiError::bad_request(
                "invalid_status",
                "status is one of waiting, active, finished, aborted.",
            ));
        }
        let before = match &q.cursor {
            Some(c) => Some(decode_cursor(c)?.parse::<Uuid>().map_err(|_| {
                ApiError::bad_request(
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
            Some(name) => match store::player_by_name(&self.db, name).await? {
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
            listed: store::Listed::For(q.reader),
        };
        let mut rows = store::list_matches(&self.db, &filter, limit + 1, false).await?;
        let more = rows.len() as u64 > limit;
        rows.truncate(limit as usize);
        let seats = store::seats_of_matches(&self.db, rows.iter().map(|m| m.id).collect()).await?;
        let owners: Vec<Uuid> = rows.iter().filter_map(|m| m.owner_id).collect();
        let mut ids: Vec<Uuid> = seats.iter().map(|s| s.player_id).chain(owners).collect();
        ids.sort();
        ids.dedup();
        let names: HashMap<Uuid, String> = store::players_by_ids(&self.db, ids)
            .await?
            .into_iter()
            .map(|p| (p.id, p.name))
            .collect();
        let player_ref = |id: Uuid| PlayerRef {
            id,
            name: names.get(&id).cloned().unwrap_or_default(),
        };
        let next_cursor = if more {
            rows.last().map(|m| encode_cursor(&m.id.to_string()))
        } else {
            None
        };
        let items = rows
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
            })
            .collect();
        Ok(MatchPage { items, next_cursor })
    }
}

impl Service {
    /// Every active match in which `me` owes a move now.
    pub async fn my_turns(
        &self,
        me: &AuthenticatedPlayer,
    ) -> Result<super::models::TurnsResponse, ApiError> {
        let filter = MatchFilter {
            status: Some(ACTIVE.into()),
            player_id: Some(me.id),
            ..Default::default()
        };
        let rows = store::list_matches(&self.db, &filter, 1000, true).await?;
        let seats = store::seats_of_matches(&self.db, rows.iter().map(|m| m.id).collect()).await?;
        let mut items = Vec::new();
        for m in &rows {
            let Some(seat) = seats
                .iter()
                .find(|s| s.match_id == m.id && s.player_id == me.id)
            else {
                continue;
            };
            let game = self.game_of(&m.game)?;
            let Some(state) = self.state_of(m).await? else {
                continue;
            };
            if let Progress::Active(p) = game.progress(&state)?
                && p.awaiting.contains(&(seat.seat as usize))
                && seat.presence != FORFEITED_PRESENCE
            {
                let rule = game.step_time_limit(&state)?;
                items.push(super::models::TurnResponse {
                    match_id: m.id,
                    game: m.game.clone(),
                    your_seat: seat.seat as usize,
                    step: m.step,
                    kind: p.kind,
                    sealed: p.sealed,
                    deadline: seat_deadline(m, seat, rule).map(|(at, _)| at),
                    owed_since: m.step_started_at.unwrap_or(m.updated_at),
                    absent: seat.presence != PRESENT,
                });
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
}

impl Service {
    /// "Play again": a new match of a finished one's game with its options and
    /// visibility, a new seed (and join code), its owner the first to ask. The
    /// asker and the bots keep their seats; every other player of the finished
    /// match is invited, and accepts by asking for the rematch too (or by
    /// accepting the invitation, or joining). Asking again, by anyone, answers
    /// the same rematch.
    pub async fn rematch(
        &self,
        me: &AuthenticatedPlayer,
        old_id: Uuid,
    ) -> Result<(MatchResponse, bool), ApiError> {
        let made = with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let old = store::lock_match(&tx, old_id)
                .await?
                .ok_or_else(not_found)?;
            let seats = store::seats_of(&tx, old_id).await?;
            let Some(mine) = seats
                .iter()
                .find(|s| s.player_id == me.id && s.bot.is_none())
            else {
                return Err(self.not_seated(&tx, &old, &seats, me.id).await);
            };
            if old.status != FINISHED {
                return Err(ApiError::conflict(
                    "match_not_finished",
                    "A rematch is offered once the match is finished.",
                ));
            }
            if let Some(existing) = store::rematch_of(&tx, old_id).await? {
                return Ok::<_, ApiError>((existing, false));
            }
            self.game_of(&old.game)?;
            let data = self
                .data
                .current(&old.game)
                .ok_or_else(|| ApiError::internal("no component data"))?;
            let options: Value = serde_json::from_str(&old.options).map_err(ApiError::internal)?;
            let asked_rated = options
                .get("rated")
                .and_then(Value::as_bool)
                .unwrap_or(true);
            let seed = new_seed()?;
            let shown = visibility_of(Some(old.visibility.clone()), Some(old.spectators))?;
            let now = self.clock.now();
            let row = matches::Model {
                id: Uuid::now_v7(),
                game: old.game.clone(),
                status: WAITING.into(),
                seat_count: old.seat_count,
                owner_id: Some(me.id),
                options: old.options.clone(),
                position: old.position.clone(),
                rated: asked_rated && old.position.is_none() && old.visibility != PRIVATE,
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
                variant: old.variant.clone(),
                deadline_at: None,
                move_time_limit: old.move_time_limit,
                absent_move_time_limit: old.absent_move_time_limit,
                timeout_policy: old.timeout_policy.clone(),
                step_started_at: None,
                visibility: shown.visibility,
                spectators: shown.spectators,
                join_code: shown.join_code,
                rematch_of: Some(old_id),
                chat: old.chat.clone(),
                club_id: old.club_id,
            };
            store::insert_match(&tx, row.clone()).await?;
            let mut m = row;
            let mut seated = vec![
                self.seat_locked(&tx, &mut m, &[], me.id, None, Some(i64::from(mine.seat)))
                    .await?,
            ];
            for bot in seats.iter().filter(|s| s.bot.is_some()) {
                let kind = bot.bot.clone().unwrap_or_default();
                let s = self
                    .seat_bot_at_locked(&tx, &mut m, &seated, &kind, Some(i64::from(bot.seat)))
                    .await?;
                seated.push(s);
            }
            let others: Vec<Uuid> = seats
                .iter()
                .filter(|s| s.bot.is_none() && s.player_id != me.id)
                .map(|s| s.player_id)
                .collect();
            let players = store::players_by_ids(&tx, others).await?;
            let invitees = super::community::Invitees {
                players,
                expires_at: now + self.invitation_ttl,
            };
            self.invite_locked(&tx, &mut m, me.id, &invitees).await?;
            if seated.len() == m.seat_count as usize {
                m = self.start_locked(&tx, m).await?;
            }
            store::update_match(&tx, m.clone()).await?;
            tx.commit().await?;
            self.committed(&m);
            tracing::info!(match.id = %m.id, rematch_of = %old_id, "rematch created");
            Ok((m.id, true))
        })?;
        let (id, created) = made;
        if !created {
            if let Ok(current) = self.get_match(Some(me.id), id).await
                && current.your_seat.is_some()
            {
                return Ok((current, false));
            }
            // Accepting: the invitation (or the match's openness) decides.
            return Ok((self.join_match(me, id, JoinMatch::default()).await?, false));
        }
        Ok((self.get_match(Some(me.id), id).await?, true))
    }
}
