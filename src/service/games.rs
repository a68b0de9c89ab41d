//! The games this server hosts and their component data: the one place a
//! game is looked up by its id, and a stored state parsed back.

use sea_orm::{ConnectionTrait, DatabaseConnection};
use serde_json::Value;

use super::{models, timing};
use crate::games::rng::GameRng;
use crate::games::{AnyState, DynGame};
use crate::service::data::DataStore;
use crate::service::error::{Error, Result};
use crate::service::lifecycle::seed_of;
use crate::service::options::split_options;
use crate::store::entities::matches;

/// The hosted games (in catalogue order) and their component data.
pub struct Games {
    games: Vec<Box<dyn DynGame>>,
    /// Each game's id, by the games' order: `info()` builds the whole catalogue
    /// entry (its default options serialised), too dear for every request's lookup.
    ids: Vec<&'static str>,
    pub data: DataStore,
    db: DatabaseConnection,
    /// Each game's options as a JSON Schema, drawn once from the API document.
    options_schemas: Vec<(String, serde_json::Value)>,
}

impl Games {
    pub fn new(db: DatabaseConnection, games: Vec<Box<dyn DynGame>>, data: DataStore) -> Self {
        let options_schemas = crate::openapi::options_schemas(&games);
        let ids = games.iter().map(|g| g.info().id).collect();
        Self {
            games,
            ids,
            data,
            db,
            options_schemas,
        }
    }

    /// A state from its stored text, given back what the text leaves to the
    /// match's component data (its own version: the current one but for matches
    /// created before the data last changed).
    pub async fn parse_stored(&self, m: &matches::Model, text: &str) -> Result<AnyState, Error> {
        let game = self.of(&m.game)?;
        let data = self
            .data
            .by_sha(&self.db, game, &m.data_sha256)
            .await
            .map_err(Error::internal)?;
        Ok(game.parse_state(text, &data)?)
    }

    /// The answer to a game id no game has: it names the games there are.
    pub fn unknown(&self, id: &str) -> Error {
        let ids: Vec<&str> = self.games.iter().map(|g| g.info().id).collect();
        Error::unprocessable(
            "unknown_game",
            format!(
                "There is no game {id:?}; the games are: {}.",
                ids.join(", ")
            ),
        )
        .arg("game", id)
        .arg("games", ids.join(", "))
    }

    /// The state a match starts from: its position, or the setup drawn from its
    /// seed, with the data and options it was created with. Replaying the moves
    /// that stand from here gives the state stored now.
    pub(super) async fn initial_state(
        &self,
        db: &impl ConnectionTrait,
        m: &matches::Model,
        seats: usize,
    ) -> Result<AnyState, Error> {
        let game = self.of(&m.game)?;
        let data = self
            .data
            .by_sha(db, game, &m.data_sha256)
            .await
            .map_err(Error::internal)?;
        let options: Value = serde_json::from_str(&m.options).map_err(Error::internal)?;
        let (_, game_options) = split_options(Some(options))?;
        let seed = seed_of(m)?;
        Ok(match m.position.as_deref() {
            Some(p) => {
                let p: Value = serde_json::from_str(p).map_err(Error::internal)?;
                game.from_position(&data, seats, &game_options, &p)?
            }
            None => game.setup(&data, seats, &game_options, &mut GameRng::for_setup(&seed))?,
        })
    }

    /// The game with this id, if any.
    pub fn get(&self, id: &str) -> Option<&dyn DynGame> {
        let i = self.ids.iter().position(|g| *g == id)?;
        Some(self.games[i].as_ref())
    }

    /// A stored match's game; a missing one means the row is corrupt.
    pub fn of(&self, id: &str) -> Result<&dyn DynGame, Error> {
        self.get(id)
            .ok_or_else(|| Error::internal(format!("match of unknown game {id}")))
    }

    pub fn all(&self) -> &[Box<dyn DynGame>] {
        &self.games
    }

    /// The game catalogue.
    pub fn catalogue(&self) -> Vec<models::GameResponse> {
        self.games
            .iter()
            .map(|g| {
                let info = g.info();
                let data = self.data.current(info.id);
                models::GameResponse {
                    id: info.id.to_owned(),
                    name: info.name.to_owned(),
                    summary: info.summary.to_owned(),
                    seats: info.seats,
                    options: info.options,
                    service_options: serde_json::json!({
                        "rated": true,
                        "position": null,
                        "move_time_limit": null,
                        "time_control": null,
                        "timeout_policy": timing::POLICY_BOT,
                        "absent_move_time_limit": timing::DEFAULT_ABSENT_LIMIT,
                        "grace_extensions": 0,
                        "grace_seconds": null,
                        "min_reliability": null,
                    }),
                    options_schema: self
                        .options_schemas
                        .iter()
                        .find(|(id, _)| id == info.id)
                        .map(|(_, s)| s.clone())
                        .unwrap_or_default(),
                    bots: g.bot_kinds().into_iter().map(str::to_owned).collect(),
                    data_sha256: data.as_ref().map(|d| d.sha256.clone()).unwrap_or_default(),
                    data_placeholder: data.is_some_and(|d| d.placeholder),
                }
            })
            .collect()
    }
}
