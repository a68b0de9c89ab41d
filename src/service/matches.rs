use std::collections::HashMap;

use sea_orm::{ConnectionTrait, DatabaseTransaction};
use serde_json::{Map, Value};
use uuid::Uuid;

use super::models::{
    Deadline, MatchPage, MatchResponse, MatchSummary, PlacingResponse, PlayerRef, PromptResponse,
    SeatResponse,
};
use super::{Service, decode_cursor, encode_cursor, page_limit, with_retry};
use crate::auth::AuthenticatedPlayer;
use crate::errors::ApiError;
use crate::games::rng::{GameRng, Seed, sha256_hex};
use crate::games::{Progress, Viewer};
use crate::store::entities::{match_seats, matches};
use crate::store::{self, MatchFilter};

pub const WAITING: &str = "waiting";
pub const ACTIVE: &str = "active";
pub const FINISHED: &str = "finished";
pub const ABORTED: &str = "aborted";

pub struct CreateMatch {
    pub game: String,
    pub seats: i64,
    pub options: Option<Value>,
}

#[derive(Default)]
pub struct ListMatches {
    pub game: Option<String>,
    pub player: Option<String>,
    pub status: Option<String>,
    pub limit: Option<u64>,
    pub cursor: Option<String>,
}

/// The service options of a match, as stored in its `options` column beside the
/// game's own.
struct ServiceOptions {
    rated: bool,
    position: Option<Value>,
}

fn split_options(options: Option<Value>) -> Result<(ServiceOptions, Value), ApiError> {
    let mut map = match options {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => {
            return Err(ApiError::unprocessable(
                "invalid_options",
                "options must be a JSON object.",
            ));
        }
    };
    let rated = match map.remove("rated") {
        None => true,
        Some(Value::Bool(b)) => b,
        Some(_) => {
            return Err(ApiError::unprocessable(
                "invalid_options",
                "The option rated must be true or false.",
            ));
        }
    };
    let position = match map.remove("position") {
        None | Some(Value::Null) => None,
        Some(p) => Some(p),
    };
    Ok((ServiceOptions { rated, position }, Value::Object(map)))
}

pub(super) fn not_found() -> ApiError {
    ApiError::not_found("match_not_found", "No match has that id.")
}

fn new_seed() -> Result<Seed, ApiError> {
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| ApiError::internal(format!("no OS randomness: {e}")))?;
    Ok(seed)
}

pub(super) fn seed_of(m: &matches::Model) -> Result<Seed, ApiError> {
    m.seed
        .as_slice()
        .try_into()
        .map_err(|_| ApiError::internal("stored seed is not 32 bytes"))
}

pub(super) fn state_of(m: &matches::Model) -> Result<Option<Value>, ApiError> {
    m.state
        .as_deref()
        .map(serde_json::from_str)
        .transpose()
        .map_err(ApiError::internal)
}

impl Service {
    pub async fn create_match(
        &self,
        me: &AuthenticatedPlayer,
        req: CreateMatch,
    ) -> Result<MatchResponse, ApiError> {
        let game = self.game(&req.game).ok_or_else(|| {
            let ids: Vec<&str> = self.games.iter().map(|g| g.info().id).collect();
            ApiError::unprocessable(
                "unknown_game",
                format!(
                    "There is no game {:?}; the games are: {}.",
                    req.game,
                    ids.join(", ")
                ),
            )
        })?;
        let info = game.info();
        let seats = usize::try_from(req.seats)
            .ok()
            .filter(|s| info.seats.contains(s))
            .ok_or_else(|| {
                ApiError::unprocessable(
                    "invalid_seats",
                    format!("{} is played by {:?} players.", info.name, info.seats),
                )
            })?;
        let (service_options, game_options) = split_options(req.options)?;
        let game_options = game.normalize_options(&game_options)?;
        let data = self
            .data
            .current(info.id)
            .ok_or_else(|| ApiError::internal("no component data"))?;
        let seed = new_seed()?;
        // A dry run: bad options or a bad position are refused now, not at the start.
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
        stored_options.insert("rated".into(), service_options.rated.into());
        let row = matches::Model {
            id: Uuid::now_v7(),
            game: info.id.to_owned(),
            status: WAITING.into(),
            seat_count: seats as i32,
            owner_id: Some(me.id),
            options: Value::Object(stored_options).to_string(),
            position: service_options.position.as_ref().map(|p| p.to_string()),
            rated: service_options.rated && service_options.position.is_none(),
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
        };
        let id = row.id;
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            if store::player_by_id(&tx, me.id).await?.is_none() {
                return Err(ApiError::unauthorized(
                    "invalid_token",
                    "The access token names a player that does not exist.",
                ));
            }
            store::insert_match(&tx, row.clone()).await?;
            store::insert_seat(
                &tx,
                match_seats::Model {
                    match_id: id,
                    seat: 0,
                    player_id: me.id,
                    joined_at: now,
                },
            )
            .await?;
            let mut m = row.clone();
            if seats == 1 {
                m = self.start_locked(&tx, m).await?;
            }
            tx.commit().await?;
            Ok::<_, ApiError>(m)
        })?;
        tracing::info!(match.id = %id, game = info.id, "match created");
        self.get_match(Some(me.id), id).await
    }

    pub async fn join_match(
        &self,
        me: &AuthenticatedPlayer,
        id: Uuid,
    ) -> Result<MatchResponse, ApiError> {
        with_retry!(async {
            let tx = store::begin_write(&self.db).await?;
            let mut m = store::lock_match(&tx, id).await?.ok_or_else(not_found)?;
            if m.status != WAITING {
                return Err(ApiError::conflict(
                    "match_not_waiting",
                    "This match is no longer waiting for players.",
                ));
            }
            let seats = store::seats_of(&tx, id).await?;
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
            let free = (0..m.seat_count)
                .find(|s| seats.iter().all(|taken| taken.seat != *s))
                .ok_or_else(|| ApiError::conflict("match_full", "Every seat is taken."))?;
            let now = self.clock.now();
            store::insert_seat(
                &tx,
                match_seats::Model {
                    match_id: id,
                    seat: free,
                    player_id: me.id,
                    joined_at: now,
                },
            )
            .await?;
            m.version += 1;
            m.updated_at = now;
            if seats.len() + 1 == m.seat_count as usize {
                m = self.start_locked(&tx, m).await?;
            }
            store::update_match(&tx, m).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
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
            self.require_waiting_owner(&m, me)?;
            let m = self.start_locked(&tx, m).await?;
            store::update_match(&tx, m).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
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
            let mine = seats.iter().find(|s| s.player_id == me.id).ok_or_else(|| {
                ApiError::forbidden("not_seated", "You do not hold a seat in this match.")
            })?;
            if m.status != WAITING {
                return Err(ApiError::conflict(
                    "match_not_waiting",
                    "You can leave a match only before it starts.",
                ));
            }
            store::delete_seat(&tx, id, mine.seat).await?;
            let now = self.clock.now();
            let rest: Vec<&match_seats::Model> =
                seats.iter().filter(|s| s.seat != mine.seat).collect();
            if m.owner_id == Some(me.id) {
                m.owner_id = rest.first().map(|s| s.player_id);
            }
            if rest.is_empty() {
                m.status = ABORTED.into();
                m.finished_at = Some(now);
            }
            m.version += 1;
            m.updated_at = now;
            store::update_match(&tx, m).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
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
            self.require_waiting_owner(&m, me)?;
            let now = self.clock.now();
            m.status = ABORTED.into();
            m.finished_at = Some(now);
            m.updated_at = now;
            m.version += 1;
            store::update_match(&tx, m).await?;
            tx.commit().await?;
            Ok::<_, ApiError>(())
        })?;
        self.get_match(Some(me.id), id).await
    }

    fn require_waiting_owner(
        &self,
        m: &matches::Model,
        me: &AuthenticatedPlayer,
    ) -> Result<(), ApiError> {
        if m.owner_id != Some(me.id) {
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

    /// Compacts the seats, sets the game up, and makes the match active.
    async fn start_locked(
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
        store::replace_seats(tx, m.id, compacted).await?;
        let data = self
            .data
            .by_sha(tx, game, &m.data_sha256)
            .await
            .map_err(ApiError::internal)?;
        let options: Value = serde_json::from_str(&m.options).map_err(ApiError::internal)?;
        let (_, game_options) = split_options(Some(options))?;
        let seed = seed_of(&m)?;
        let state = match m.position.as_deref() {
            Some(p) => {
                let p: Value = serde_json::from_str(p).map_err(ApiError::internal)?;
                game.from_position(&data, n, &game_options, &p)?
            }
            None => game.setup(&data, n, &game_options, &mut GameRng::for_setup(&seed))?,
        };
        let now = self.clock.now();
        m.seat_count = n as i32;
        m.status = ACTIVE.into();
        m.started_at = Some(now);
        m.updated_at = now;
        m.step = 0;
        m.version += 1;
        if let Progress::Finished(outcome) = game.progress(&state)? {
            let roles = game.roles(&state)?;
            super::moves::finish(tx, &mut m, &outcome, &roles, now).await?;
        }
        m.deadline_at = game
            .step_time_limit(&state)?
            .map(|secs| now + chrono::Duration::seconds(secs as i64));
        m.state = Some(state.to_string());
        Ok(m)
    }

    /// A match as `caller` (a player id, or anonymous) may see it.
    pub async fn get_match(
        &self,
        caller: Option<Uuid>,
        id: Uuid,
    ) -> Result<MatchResponse, ApiError> {
        let m = store::match_by_id(&self.db, id)
            .await?
            .ok_or_else(not_found)?;
        let seats = store::seats_of(&self.db, id).await?;
        let names = self.names(&self.db, &seats, m.owner_id).await?;
        self.render(&m, &seats, &names, caller)
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

    fn render(
        &self,
        m: &matches::Model,
        seats: &[match_seats::Model],
        names: &HashMap<Uuid, String>,
        caller: Option<Uuid>,
    ) -> Result<MatchResponse, ApiError> {
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
        let state = state_of(m)?;
        let mut view = None;
        let mut prompt = None;
        let mut result = None;
        if let Some(state) = &state {
            let viewer = your_seat.map(Viewer::Seat).unwrap_or(Viewer::Spectator);
            view = Some(game.view(state, viewer)?);
            match game.progress(state)? {
                Progress::Active(p) if m.status == ACTIVE => {
                    let your_turn = your_seat.is_some_and(|s| p.awaiting.contains(&s));
                    let legal = match your_seat {
                        Some(s) if your_turn => game.legal(state, s)?,
                        _ => None,
                    };
                    prompt = Some(PromptResponse {
                        step: m.step,
                        round: p.round,
                        kind: p.kind,
                        sealed: p.sealed,
                        awaiting: p.awaiting.clone(),
                        your_turn,
                        deadlines: m
                            .deadline_at
                            .map(|at| {
                                p.awaiting
                                    .iter()
                                    .map(|seat| Deadline { seat: *seat, at })
                                    .collect()
                            })
                            .unwrap_or_default(),
                        legal,
                    });
                }
                Progress::Finished(outcome) => {
                    result = Some(
                        outcome
                            .placings
                            .iter()
                            .map(|p| PlacingResponse {
                                seat: p.seat,
                                player: seat_player(p.seat),
                                score: p.score,
                                rank: p.rank,
                            })
                            .collect(),
                    );
                }
                Progress::Active(_) => {}
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
                .map(|seat| SeatResponse {
                    seat,
                    player: seat_player(seat),
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
            final_state: if over { state } else { None },
            engine_version: m.engine_version.clone(),
            data_sha256: m.data_sha256.clone(),
            created_at: m.created_at,
            started_at: m.started_at,
            finished_at: m.finished_at,
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
            player_id,
            before,
        };
        let mut rows = store::list_matches(&self.db, &filter, limit + 1).await?;
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
                seats: (0..m.seat_count)
                    .map(|seat| SeatResponse {
                        seat: seat as usize,
                        player: seats
                            .iter()
                            .find(|s| s.match_id == m.id && s.seat == seat)
                            .map(|s| player_ref(s.player_id)),
                    })
                    .collect(),
                owner: m.owner_id.map(player_ref),
                step: m.step,
                version: m.version,
                created_at: m.created_at,
                started_at: m.started_at,
                finished_at: m.finished_at,
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
        let rows = store::list_matches(&self.db, &filter, 1000).await?;
        let seats = store::seats_of_matches(&self.db, rows.iter().map(|m| m.id).collect()).await?;
        let mut items = Vec::new();
        for m in &rows {
            let Some(seat) = seats
                .iter()
                .find(|s| s.match_id == m.id && s.player_id == me.id)
                .map(|s| s.seat as usize)
            else {
                continue;
            };
            let game = self.game_of(&m.game)?;
            let Some(state) = state_of(m)? else { continue };
            if let Progress::Active(p) = game.progress(&state)?
                && p.awaiting.contains(&seat)
            {
                items.push(super::models::TurnResponse {
                    match_id: m.id,
                    game: m.game.clone(),
                    your_seat: seat,
                    step: m.step,
                    kind: p.kind,
                    sealed: p.sealed,
                    deadline: m.deadline_at,
                    owed_since: m.updated_at,
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
