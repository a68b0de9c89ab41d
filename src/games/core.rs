//! The seam every game plugs into: pure functions over a game's own serde types.
//!
//! The service talks to games only through [`DynGame`], a type-erased wrapper
//! generated for every [`Game`] by a blanket implementation, so adding a game is
//! one line in the service's registry.

use std::any::Any;
use std::fmt::Debug;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::Schema;

use super::rng::GameRng;

/// A 0-based seat index, as in every API field.
pub type Seat = usize;

/// Who is looking at a match.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Viewer {
    /// A seated player: sees its own private information.
    Seat(Seat),
    /// Anybody else, including anonymous callers.
    Spectator,
}

/// Who must act now, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Prompt {
    /// The kind of decision, a stable snake_case id per game (`bet`, `waiting_choice`).
    pub kind: String,
    /// The game's round, where the game has rounds.
    pub round: Option<u32>,
    /// Sealed: every seat in `awaiting` submits, in any order, and nobody sees the
    /// others' choices until the step resolves. Open: exactly one seat acts.
    pub sealed: bool,
    /// The seats that still owe a move in this step.
    pub awaiting: Vec<Seat>,
}

/// One seat's place in a finished match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placing {
    pub seat: Seat,
    /// The game's final score (Malacca: coins).
    pub score: i64,
    /// 1 is best; tied seats share a rank.
    pub rank: u32,
}

/// How a match ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// Every seat, best first.
    pub placings: Vec<Placing>,
}

impl Outcome {
    /// Ranks seats by descending score with shared ranks for ties
    /// ("1224" ranking), best first, then by seat.
    pub fn from_scores(scores: &[i64]) -> Self {
        let mut order: Vec<Seat> = (0..scores.len()).collect();
        order.sort_by(|a, b| scores[*b].cmp(&scores[*a]).then(a.cmp(b)));
        let mut placings = Vec::with_capacity(scores.len());
        for (i, seat) in order.iter().enumerate() {
            let rank = if i > 0 && scores[order[i - 1]] == scores[*seat] {
                placings.last().map(|p: &Placing| p.rank).unwrap_or(1)
            } else {
                i as u32 + 1
            };
            placings.push(Placing {
                seat: *seat,
                score: scores[*seat],
                rank,
            });
        }
        Self { placings }
    }

    /// The seats ranked first.
    pub fn winners(&self) -> Vec<Seat> {
        self.placings
            .iter()
            .filter(|p| p.rank == 1)
            .map(|p| p.seat)
            .collect()
    }
}

/// Where a match stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Progress {
    Active(Prompt),
    Finished(Outcome),
}

/// A rule violation, answered as a 422. `message` is a sentence a player
/// understands and names the rejected action (and, where useful, the rule).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    /// Stable snake_case code (`illegal_move`, `invalid_position`, `invalid_options`).
    pub code: &'static str,
    pub message: String,
}

impl RuleError {
    pub fn illegal(message: impl Into<String>) -> Self {
        Self {
            code: "illegal_move",
            message: message.into(),
        }
    }
    pub fn position(message: impl Into<String>) -> Self {
        Self {
            code: "invalid_position",
            message: message.into(),
        }
    }
    pub fn options(message: impl Into<String>) -> Self {
        Self {
            code: "invalid_options",
            message: message.into(),
        }
    }
}

impl std::fmt::Display for RuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Who may see an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "to", content = "seat")]
pub enum Audience {
    Public,
    Seat(Seat),
}

/// Something that happened, for streams and the event log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub audience: Audience,
    /// Stable snake_case id (`card_placed`, `ship_revealed`, `round_resolved`).
    pub kind: String,
    pub data: Value,
}

impl Event {
    pub fn public(kind: &str, data: Value) -> Self {
        Self {
            audience: Audience::Public,
            kind: kind.to_owned(),
            data,
        }
    }
    pub fn private(seat: Seat, kind: &str, data: Value) -> Self {
        Self {
            audience: Audience::Seat(seat),
            kind: kind.to_owned(),
            data,
        }
    }
}

/// A resolved round, for the typed history tables statistics are computed from.
/// Every field is public: a round record is written only once it is resolved.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundRecord {
    pub round: u32,
    /// The round's stake in play (Malacca: the ship's cargo value).
    pub value: Option<i64>,
    /// The round's result (Malacca: `captured` / `defended`).
    pub outcome: String,
    /// Game-defined totals (Malacca: attack total, defense total).
    pub total_a: Option<i64>,
    pub total_b: Option<i64>,
    /// The round's leading seat (Malacca: the captain).
    pub lead_seat: Option<Seat>,
    /// What the round was about, `<what>:<id>` (Heretics: `city:brno`, the city
    /// fought for, whoever took it).
    #[serde(default)]
    pub subject: Option<String>,
    pub seats: Vec<SeatRecord>,
    pub ledger: Vec<LedgerEntry>,
}

/// One seat's part in a resolved round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeatRecord {
    pub seat: Seat,
    /// The card or piece played, as revealed (Malacca: `attack2`).
    pub card: Option<String>,
    /// What it counted as (Malacca: the resolved kind).
    pub kind: Option<String>,
    pub stake: Option<i64>,
    /// A choice made after the reveal (Malacca: the waiting choice).
    pub choice: Option<String>,
    /// Whether the play succeeded, where the game defines it.
    pub success: Option<bool>,
    /// The net change of the seat's score this round.
    pub delta: i64,
    /// Cards drawn (how many, never which).
    pub drew: u32,
}

/// One change of a seat's score, with its reason (Malacca rules §5.10).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LedgerEntry {
    pub seat: Seat,
    pub amount: i64,
    pub reason: String,
}

/// The result of one accepted move.
#[derive(Debug, Clone)]
pub struct Transition<S> {
    pub state: S,
    /// False only for a sealed step that still awaits other seats.
    pub completes_step: bool,
    /// True when every move stored so far is public from now on (the reveal).
    pub reveal: bool,
    pub events: Vec<Event>,
    pub rounds: Vec<RoundRecord>,
}

/// One component-data file, embedded in the binary.
#[derive(Debug, Clone, Copy)]
pub struct DataFile {
    pub name: &'static str,
    pub embedded: &'static str,
}

/// The catalogue entry of a game.
#[derive(Debug, Clone, Serialize)]
pub struct GameInfo {
    pub id: &'static str,
    pub name: &'static str,
    /// Every allowed seat count, ascending.
    pub seats: Vec<usize>,
    /// The options with their defaults, as a JSON object.
    pub options: Value,
    /// A sentence or two for the catalogue.
    pub summary: &'static str,
}

/// A rules engine: pure, deterministic, no I/O.
pub trait Game: 'static {
    type Data: Send + Sync + 'static;
    type Options: DeserializeOwned + Serialize + Default + Clone + ToSchema;
    type Position: DeserializeOwned + ToSchema;
    type State: Serialize + DeserializeOwned + Clone + Send + Sync + 'static;
    type Action: Serialize + DeserializeOwned + Clone + PartialEq + Debug + ToSchema;
    type View: Serialize + ToSchema;
    /// The templates `legal` lists (an action with parameters to fill in), typed
    /// for the API's schema; [`super::legal::NoTemplates`] for a game that lists
    /// complete actions only.
    type Template: DeserializeOwned + ToSchema;

    fn info() -> GameInfo;
    /// Every `kind` a prompt of this game can have, for the API's schema.
    fn prompt_kinds() -> &'static [&'static str];
    /// A typical move, shown as the game's example in the API's document.
    fn example_action() -> Self::Action;
    /// Every `kind` of the game's own events, for the API's schema.
    fn event_kinds() -> &'static [&'static str];
    /// The component-data files, embedded; the service may override their contents.
    fn data_files() -> &'static [DataFile];
    /// Parses the data files, given as `(name, contents)` in `data_files()` order.
    fn load_data(files: &[(&str, &str)]) -> Result<Self::Data, String>;

    /// A new match: checks the options against the seat count, deals, shuffles.
    fn setup(
        data: &Self::Data,
        seats: usize,
        options: &Self::Options,
        rng: &mut GameRng,
    ) -> Result<Self::State, RuleError>;
    /// A match from a given situation; no setup step runs.
    fn from_position(
        data: &Self::Data,
        seats: usize,
        options: &Self::Options,
        position: Self::Position,
    ) -> Result<Self::State, RuleError>;

    /// Gives a state parsed from its stored text what the text leaves out
    /// because the match's component data holds it (the data of the version the
    /// match was created with). States stored before a game left anything out
    /// carry it themselves and keep it.
    fn attach_data(_state: &mut Self::State, _data: &Self::Data) {}
    /// The state as published (a finished match's `final_state`): what
    /// `attach_data` gives back is put in again, so that the published document
    /// stays whole.
    fn published_state(state: &Self::State) -> Result<Value, serde_json::Error> {
        serde_json::to_value(state)
    }

    fn progress(state: &Self::State) -> Progress;
    /// The legal actions of `seat` now, in the API's format, or None when it owes nothing.
    fn legal(state: &Self::State, seat: Seat) -> Option<Vec<Value>>;
    fn validate(state: &Self::State, seat: Seat, action: &Self::Action) -> Result<(), RuleError>;
    /// Applies a move that `validate` accepted. The RNG is the one of the current step.
    fn apply(
        state: &Self::State,
        seat: Seat,
        action: &Self::Action,
        rng: &mut GameRng,
    ) -> Result<Transition<Self::State>, RuleError>;
    fn view(state: &Self::State, viewer: Viewer) -> Self::View;
    /// What others may see of a stored move before the reveal: None when the whole
    /// move is public at once, otherwise the public part (Malacca: the stake).
    fn public_part(state: &Self::State, seat: Seat, action: &Self::Action) -> Option<Value>;
    /// What an absent seat plays.
    fn null_move(state: &Self::State, seat: Seat) -> Option<Self::Action>;
    /// Whether a move stays private to its author until the match ends, whatever
    /// is revealed meanwhile (Malacca: the card Sayyida keeps).
    fn private_until_end(state: &Self::State, seat: Seat, action: &Self::Action) -> bool {
        let _ = (state, seat, action);
        false
    }
    /// Seconds the game's own rules allow for the current step, after which
    /// the awaited seats play their null moves (Cairo: `report_confirm_seconds`).
    fn step_time_limit(state: &Self::State) -> Option<u64> {
        let _ = state;
        None
    }
    /// A short label of the rules variant a match plays, for statistics.
    fn variant(seats: usize, options: &Self::Options) -> String {
        let _ = (seats, options);
        "standard".to_owned()
    }
    /// Each seat's public role, fixed at the start (a character, a faction), for
    /// statistics; empty when the game has none.
    fn roles(state: &Self::State) -> Vec<Option<String>> {
        let _ = state;
        Vec::new()
    }
    /// Each seat's score as it stands (Malacca: coins), in seat order; used to rank
    /// a match that ends early because seats forfeited. Empty when the game keeps
    /// no running score.
    fn standings(state: &Self::State) -> Vec<i64> {
        let _ = state;
        Vec::new()
    }
    /// The bots this game offers besides `random`, which every game has
    /// (Malacca: `heuristic`), weakest first.
    fn bot_kinds() -> &'static [&'static str] {
        &[]
    }
    /// The move of bot `kind` (one of [`Game::bot_kinds`]), decided from the seat's
    /// view and legal actions alone, with the bot's own RNG: a bot never sees the
    /// state, so it cannot use what the seat may not know. None for an unknown kind.
    fn bot_move(
        kind: &str,
        view: &Self::View,
        legal: &[Value],
        rng: &mut GameRng,
    ) -> Option<Self::Action> {
        let _ = (kind, view, legal, rng);
        None
    }
}

/// The bot every game has: uniform over the legal actions.
pub const RANDOM_BOT: &str = "random";

/// Parsed component data behind a type-erased handle.
pub type AnyData = Arc<dyn Any + Send + Sync>;

/// Why a stored or submitted JSON document could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DynError {
    /// The client's input broke a rule or did not parse: a 422.
    Rule(RuleError),
    /// Stored data did not parse: a bug or a corrupted row, never the client's fault.
    Corrupt(String),
}

impl From<RuleError> for DynError {
    fn from(e: RuleError) -> Self {
        Self::Rule(e)
    }
}

/// A game's typed state behind a type-erased handle: parsed once from its stored
/// text and shared (a clone is a reference count) by every call that reads it,
/// so no request turns the state into a JSON tree or parses it twice.
#[derive(Clone)]
pub struct AnyState(Arc<dyn Any + Send + Sync>);

impl AnyState {
    pub(super) fn of<S: Send + Sync + 'static>(state: S) -> Self {
        Self(Arc::new(state))
    }
    fn get<S: 'static>(&self) -> Result<&S, DynError> {
        self.0
            .downcast_ref::<S>()
            .ok_or_else(|| DynError::Corrupt("a state of another game".into()))
    }
}

impl std::fmt::Debug for AnyState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AnyState")
    }
}

/// The result of a move, with the state type-erased.
pub type DynTransition = Transition<AnyState>;

/// The OpenAPI schemas of a game's typed documents.
pub struct GameSchemas {
    pub action: RefOr<Schema>,
    pub view: RefOr<Schema>,
    pub options: RefOr<Schema>,
    pub position: RefOr<Schema>,
    /// The templates of `legal`; None when the game lists complete actions only.
    pub template: Option<RefOr<Schema>>,
    /// Every `kind` of the game's prompts.
    pub prompt_kinds: &'static [&'static str],
    /// A typical move.
    pub example_action: Value,
    /// Every kind of the game's own events.
    pub event_kinds: &'static [&'static str],
    /// Every named schema these refer to.
    pub components: Vec<(String, RefOr<Schema>)>,
}

/// The object-safe face of a [`Game`] for the service: states behind
/// [`AnyState`], actions, options and views as JSON.
pub trait DynGame: Send + Sync {
    fn info(&self) -> GameInfo;
    fn schemas(&self) -> GameSchemas;
    fn data_files(&self) -> &'static [DataFile];
    fn load_data(&self, files: &[(&str, &str)]) -> Result<AnyData, String>;
    /// Parses options (defaults filled in, unknown fields rejected) and returns them normalized.
    fn normalize_options(&self, options: &Value) -> Result<Value, RuleError>;
    /// A stored state, straight from its text (no JSON tree in between), given
    /// back what its text leaves to the component data (`data`: the match's own
    /// version).
    fn parse_state(&self, text: &str, data: &AnyData) -> Result<AnyState, DynError>;
    /// The text a state is stored as: without what the component data holds.
    fn state_text(&self, state: &AnyState) -> Result<String, DynError>;
    /// A state as published, whole (a finished match's `final_state`, tests).
    fn state_value(&self, state: &AnyState) -> Result<Value, DynError>;
    fn setup(
        &self,
        data: &AnyData,
        seats: usize,
        options: &Value,
        rng: &mut GameRng,
    ) -> Result<AnyState, DynError>;
    /// Named like [`Game::from_position`], whose erased form it is.
    #[allow(clippy::wrong_self_convention)]
    fn from_position(
        &self,
        data: &AnyData,
        seats: usize,
        options: &Value,
        position: &Value,
    ) -> Result<AnyState, DynError>;
    fn progress(&self, state: &AnyState) -> Result<Progress, DynError>;
    fn legal(&self, state: &AnyState, seat: Seat) -> Result<Option<Vec<Value>>, DynError>;
    /// Parses and validates an action; answers its normalized JSON.
    fn validate(&self, state: &AnyState, seat: Seat, action: &Value) -> Result<Value, DynError>;
    /// Applies an action `validate` accepted, with what the service stores of it.
    fn apply(
        &self,
        state: &AnyState,
        seat: Seat,
        action: &Value,
        rng: &mut GameRng,
    ) -> Result<Applied, DynError>;
    fn view(&self, state: &AnyState, viewer: Viewer) -> Result<Value, DynError>;
    /// The view as JSON text, serialized straight from the typed view: what a
    /// match read sends, without a `Value` tree built and dropped per read.
    fn view_json(
        &self,
        state: &AnyState,
        viewer: Viewer,
    ) -> Result<Box<serde_json::value::RawValue>, DynError>;
    fn public_part(
        &self,
        state: &AnyState,
        seat: Seat,
        action: &Value,
    ) -> Result<Option<Value>, DynError>;
    fn null_move(&self, state: &AnyState, seat: Seat) -> Result<Option<Value>, DynError>;
    fn variant(&self, seats: usize, options: &Value) -> Result<String, DynError>;
    fn step_time_limit(&self, state: &AnyState) -> Result<Option<u64>, DynError>;
    fn private_until_end(
        &self,
        state: &AnyState,
        seat: Seat,
        action: &Value,
    ) -> Result<bool, DynError>;
    fn roles(&self, state: &AnyState) -> Result<Vec<Option<String>>, DynError>;
    fn standings(&self, state: &AnyState) -> Result<Vec<i64>, DynError>;
    /// Every bot of this game: `random` first, then the game's own, weakest first.
    fn bot_kinds(&self) -> Vec<&'static str>;
    /// A bot's move for `seat`, or None when the seat owes nothing or the kind is
    /// unknown. The bot is handed the seat's view and legal actions, never the state.
    fn bot_move(
        &self,
        kind: &str,
        state: &AnyState,
        seat: Seat,
        rng: &mut GameRng,
    ) -> Result<Option<Value>, DynError>;
}

/// An applied move: the transition, and what the service stores of the move
/// (its public part, and whether it stays private to the end), computed on the
/// one parse of the action.
#[derive(Debug, Clone)]
pub struct Applied {
    pub transition: DynTransition,
    pub public: Option<Value>,
    pub private_until_end: bool,
}

/// The blanket adapter from a typed engine to [`DynGame`].
pub struct Erased<G: Game>(std::marker::PhantomData<fn() -> G>);

impl<G: Game> Erased<G> {
    pub const fn new() -> Self {
        Self(std::marker::PhantomData)
    }
}

impl<G: Game> Default for Erased<G> {
    fn default() -> Self {
        Self::new()
    }
}

fn parse_stored<T: DeserializeOwned>(v: &Value, what: &str) -> Result<T, DynError> {
    T::deserialize(v).map_err(|e| DynError::Corrupt(format!("stored {what} does not parse: {e}")))
}

fn to_value<T: Serialize>(t: &T) -> Result<Value, DynError> {
    serde_json::to_value(t).map_err(|e| DynError::Corrupt(format!("cannot serialize: {e}")))
}

/// Parses client input; a mismatch is the client's fault and gets a readable 422.
pub fn parse_input<T: DeserializeOwned>(
    v: &Value,
    code: &'static str,
    what: &str,
) -> Result<T, RuleError> {
    T::deserialize(v).map_err(|e| RuleError {
        code,
        message: format!("The {what} is not valid: {e}."),
    })
}

impl<G: Game> Erased<G> {
    fn data(data: &AnyData) -> Result<&G::Data, DynError> {
        data.downcast_ref::<G::Data>()
            .ok_or_else(|| DynError::Corrupt("component data of another game".into()))
    }
    fn state(state: &AnyState) -> Result<&G::State, DynError> {
        state.get::<G::State>()
    }
    fn options(options: &Value) -> Result<G::Options, DynError> {
        Ok(parse_input(options, "invalid_options", "options object")?)
    }
}

fn named<T: ToSchema>(components: &mut Vec<(String, RefOr<Schema>)>) -> RefOr<Schema> {
    T::schemas(components);
    components.push((T::name().into_owned(), T::schema()));
    RefOr::Ref(utoipa::openapi::Ref::from_schema_name(T::name()))
}

impl<G: Game> DynGame for Erased<G> {
    fn info(&self) -> GameInfo {
        G::info()
    }
    fn schemas(&self) -> GameSchemas {
        let mut components = Vec::new();
        GameSchemas {
            action: named::<G::Action>(&mut components),
            view: named::<G::View>(&mut components),
            options: named::<G::Options>(&mut components),
            position: named::<G::Position>(&mut components),
            template: (G::Template::name() != super::legal::NO_TEMPLATES)
                .then(|| named::<G::Template>(&mut components)),
            prompt_kinds: G::prompt_kinds(),
            example_action: serde_json::to_value(G::example_action()).unwrap_or(Value::Null),
            event_kinds: G::event_kinds(),
            components,
        }
    }
    fn data_files(&self) -> &'static [DataFile] {
        G::data_files()
    }
    fn load_data(&self, files: &[(&str, &str)]) -> Result<AnyData, String> {
        Ok(Arc::new(G::load_data(files)?))
    }
    fn normalize_options(&self, options: &Value) -> Result<Value, RuleError> {
        let parsed: G::Options = parse_input(options, "invalid_options", "options object")?;
        serde_json::to_value(parsed).map_err(|e| RuleError::options(e.to_string()))
    }
    fn setup(
        &self,
        data: &AnyData,
        seats: usize,
        options: &Value,
        rng: &mut GameRng,
    ) -> Result<AnyState, DynError> {
        let state = G::setup(Self::data(data)?, seats, &Self::options(options)?, rng)?;
        Ok(AnyState::of(state))
    }
    fn from_position(
        &self,
        data: &AnyData,
        seats: usize,
        options: &Value,
        position: &Value,
    ) -> Result<AnyState, DynError> {
        let position: G::Position = parse_input(position, "invalid_position", "position")?;
        let state = G::from_position(Self::data(data)?, seats, &Self::options(options)?, position)?;
        Ok(AnyState::of(state))
    }
    fn parse_state(&self, text: &str, data: &AnyData) -> Result<AnyState, DynError> {
        let mut state = serde_json::from_str::<G::State>(text)
            .map_err(|e| DynError::Corrupt(format!("stored state does not parse: {e}")))?;
        G::attach_data(&mut state, Self::data(data)?);
        Ok(AnyState::of(state))
    }
    fn state_text(&self, state: &AnyState) -> Result<String, DynError> {
        serde_json::to_string(Self::state(state)?)
            .map_err(|e| DynError::Corrupt(format!("cannot serialize: {e}")))
    }
    fn state_value(&self, state: &AnyState) -> Result<Value, DynError> {
        G::published_state(Self::state(state)?)
            .map_err(|e| DynError::Corrupt(format!("cannot serialize: {e}")))
    }
    fn progress(&self, state: &AnyState) -> Result<Progress, DynError> {
        Ok(G::progress(Self::state(state)?))
    }
    fn legal(&self, state: &AnyState, seat: Seat) -> Result<Option<Vec<Value>>, DynError> {
        Ok(G::legal(Self::state(state)?, seat))
    }
    fn validate(&self, state: &AnyState, seat: Seat, action: &Value) -> Result<Value, DynError> {
        let action: G::Action = parse_input(action, "invalid_action", "action")?;
        G::validate(Self::state(state)?, seat, &action)?;
        to_value(&action)
    }
    fn apply(
        &self,
        state: &AnyState,
        seat: Seat,
        action: &Value,
        rng: &mut GameRng,
    ) -> Result<Applied, DynError> {
        let action: G::Action = parse_input(action, "invalid_action", "action")?;
        let state = Self::state(state)?;
        G::validate(state, seat, &action)?;
        let public = G::public_part(state, seat, &action);
        let private_until_end = G::private_until_end(state, seat, &action);
        let t = G::apply(state, seat, &action, rng)?;
        Ok(Applied {
            transition: Transition {
                state: AnyState::of(t.state),
                completes_step: t.completes_step,
                reveal: t.reveal,
                events: t.events,
                rounds: t.rounds,
            },
            public,
            private_until_end,
        })
    }
    fn view(&self, state: &AnyState, viewer: Viewer) -> Result<Value, DynError> {
        to_value(&G::view(Self::state(state)?, viewer))
    }
    fn view_json(
        &self,
        state: &AnyState,
        viewer: Viewer,
    ) -> Result<Box<serde_json::value::RawValue>, DynError> {
        serde_json::value::to_raw_value(&G::view(Self::state(state)?, viewer))
            .map_err(|e| DynError::Corrupt(format!("cannot serialize: {e}")))
    }
    fn public_part(
        &self,
        state: &AnyState,
        seat: Seat,
        action: &Value,
    ) -> Result<Option<Value>, DynError> {
        let action: G::Action = parse_stored(action, "action")?;
        Ok(G::public_part(Self::state(state)?, seat, &action))
    }
    fn null_move(&self, state: &AnyState, seat: Seat) -> Result<Option<Value>, DynError> {
        match G::null_move(Self::state(state)?, seat) {
            Some(a) => Ok(Some(to_value(&a)?)),
            None => Ok(None),
        }
    }
    fn variant(&self, seats: usize, options: &Value) -> Result<String, DynError> {
        Ok(G::variant(seats, &Self::options(options)?))
    }
    fn roles(&self, state: &AnyState) -> Result<Vec<Option<String>>, DynError> {
        Ok(G::roles(Self::state(state)?))
    }
    fn standings(&self, state: &AnyState) -> Result<Vec<i64>, DynError> {
        Ok(G::standings(Self::state(state)?))
    }
    fn bot_kinds(&self) -> Vec<&'static str> {
        std::iter::once(RANDOM_BOT)
            .chain(G::bot_kinds().iter().copied())
            .collect()
    }
    fn bot_move(
        &self,
        kind: &str,
        state: &AnyState,
        seat: Seat,
        rng: &mut GameRng,
    ) -> Result<Option<Value>, DynError> {
        let state = Self::state(state)?;
        let Some(legal) = G::legal(state, seat) else {
            return Ok(None);
        };
        if kind == RANDOM_BOT {
            return Ok(super::legal::sample(&legal, rng));
        }
        let view = G::view(state, Viewer::Seat(seat));
        match G::bot_move(kind, &view, &legal, rng) {
            Some(a) => Ok(Some(to_value(&a)?)),
            None => Ok(None),
        }
    }
    fn step_time_limit(&self, state: &AnyState) -> Result<Option<u64>, DynError> {
        Ok(G::step_time_limit(Self::state(state)?))
    }
    fn private_until_end(
        &self,
        state: &AnyState,
        seat: Seat,
        action: &Value,
    ) -> Result<bool, DynError> {
        let action: G::Action = parse_stored(action, "action")?;
        Ok(G::private_until_end(Self::state(state)?, seat, &action))
    }
}
