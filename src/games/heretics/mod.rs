//! Heretics (Kacíři a bitva o Evropu), after shared/rules/heretics.md.
//!
//! Every round one city is revealed; every seat that still holds a personality
//! sends one face down (a sealed step); the cards are revealed together and the
//! duel of rules §5 decides who takes the city. Two waves of reformation; the
//! Temples' cards return for the second. See docs/rules/heretics.md.

#[cfg(test)]
mod bot_tests;
pub mod data;
pub mod rules;
#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use crate::games::rng::GameRng;
use crate::games::{
    DataFile, Event, Game, GameInfo, Outcome, Progress, Prompt, RuleError, Seat, Transition, Viewer,
};

pub use data::{Ability, CardMatcher, City, Faction, HereticsData, Personality};
pub use rules::{CityTo, Destination, HereticsState, Role, RoundSummary, SeatResult, Status};

use data::{MAX_SEATS, MIN_SEATS};
use rules::PROMPT_CHOOSE;

/// The Heretics rules engine.
pub struct Heretics;

/// Options fixed at match creation (rules §2). The seat count comes from the
/// match's `seats`, not from an option.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct HereticsOptions {
    /// When false, every city's special abilities are ignored (rules §2, §7.3).
    /// Default: true (rules §10 decision 16).
    pub special_cities: bool,
}

impl Default for HereticsOptions {
    fn default() -> Self {
        Self {
            special_cities: true,
        }
    }
}

/// A move. The only decision is the sealed choice of a personality (rules §4 R2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum HereticsAction {
    /// Send one personality from your hand to the current city, face down.
    Play {
        /// The personality's id, e.g. `hussites:7`.
        card: String,
    },
}

/// A situation to start a match from (`options.position`): the start of a
/// round, before its city is revealed (step R0). The top of `city_deck` is
/// revealed as the round's city. Cities are named by id: those of `cities` when
/// the position states them, otherwise those of the component data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HereticsPosition {
    /// Each seat's faction. Default: the data's first factions in data order.
    #[serde(default)]
    pub factions: Option<Vec<String>>,
    /// Each seat's hand (card ids of its own faction).
    pub hand: Vec<Vec<String>>,
    /// Each seat's Temple. Default: all empty.
    #[serde(default)]
    pub temple: Option<Vec<Vec<String>>>,
    /// The Cemetery. Default: every card of the seated factions that is in no
    /// hand and no Temple. When given, every such card must be in exactly one
    /// of hand, Temple and Cemetery.
    #[serde(default)]
    pub cemetery: Option<Vec<String>>,
    /// Each seat's won cities; the scores are their significance. Default: none.
    #[serde(default)]
    pub won_cities: Option<Vec<Vec<String>>>,
    /// The unclaimed pile. Default: empty.
    #[serde(default)]
    pub unclaimed: Vec<String>,
    /// The remaining city deck, top first. Cities listed nowhere are not in the match.
    pub city_deck: Vec<String>,
    /// Cities stated in full (an analysis, a puzzle, a tournament's own deck):
    /// `city_deck`, `won_cities` and `unclaimed` may name them by id. One with
    /// the id of a city of the component data replaces it in this match. Checked
    /// as the data is (resistance at least 1, abilities naming seated or known
    /// factions). Default: none, every id names a city of the data.
    #[serde(default)]
    pub cities: Vec<City>,
    /// The wave, 1 or 2. Default: 1.
    #[serde(default = "first_wave")]
    pub wave: u32,
}

fn first_wave() -> u32 {
    1
}

/// What one viewer may see (rules §8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct HereticsView {
    /// The viewing seat, None for a spectator.
    pub viewer: Option<usize>,
    pub seats: usize,
    pub special_cities: bool,
    /// Each seat's faction.
    pub factions: Vec<String>,
    pub wave: u32,
    /// Cities revealed so far in the match.
    pub round: u32,
    /// Cities revealed so far in this wave.
    pub wave_round: u32,
    pub finished: bool,
    /// The face-up city (abilities shown only when `special_cities` is on).
    pub current_city: Option<City>,
    /// Cards left in the city deck (its order is hidden).
    pub city_deck_size: usize,
    /// The viewer's own hand, live (without its face-down card); None for spectators.
    pub hand: Option<Vec<String>>,
    /// The viewer's own face-down card this round, until the reveal.
    pub choice: Option<String>,
    /// Each seat's hand size, counting a face-down card until the reveal.
    pub hand_sizes: Vec<usize>,
    /// Which seats have placed their card this round (never which card).
    pub submitted: Vec<bool>,
    /// Seats that still owe a card this round.
    pub awaiting: Vec<usize>,
    /// Each seat's Temple.
    pub temple: Vec<Vec<String>>,
    /// The shared Cemetery (a card's owner is the seat of its faction).
    pub cemetery: Vec<String>,
    /// Each seat's won cities.
    pub won_cities: Vec<Vec<String>>,
    /// Cities nobody won.
    pub unclaimed: Vec<String>,
    pub scores: Vec<i64>,
    /// Every resolved round, oldest first: the revealed cards and where they went.
    pub history: Vec<RoundSummary>,
    /// The personality cards in play (public component data).
    pub personalities: Vec<Personality>,
    /// The cities in play, in data order (public component data; abilities shown
    /// only when `special_cities` is on).
    pub cities: Vec<City>,
    /// Once the game is over: every seat's remaining hand (non-empty only when
    /// the city deck ran out).
    pub final_hands: Option<Vec<Vec<String>>>,
}

const FACTIONS_JSON: &str = include_str!("../../../data/heretics/factions.json");
const CITIES_JSON: &str = include_str!("../../../data/heretics/cities.json");

static DATA_FILES: [DataFile; 2] = [
    DataFile {
        name: data::FACTIONS_FILE,
        embedded: FACTIONS_JSON,
    },
    DataFile {
        name: data::CITIES_FILE,
        embedded: CITIES_JSON,
    },
];

fn check_seats(seats: usize) -> Result<(), RuleError> {
    if (MIN_SEATS..=MAX_SEATS).contains(&seats) {
        Ok(())
    } else {
        Err(RuleError::options(format!(
            "Heretics is played by {MIN_SEATS} to {MAX_SEATS} players, not {seats} (rules §2)."
        )))
    }
}

fn new_state(
    data: &HereticsData,
    seats: usize,
    options: &HereticsOptions,
    factions: Vec<String>,
) -> HereticsState {
    let personalities: Vec<Personality> = data
        .personalities
        .iter()
        .filter(|p| factions.contains(&p.faction))
        .cloned()
        .collect();
    HereticsState {
        seats,
        special_cities: options.special_cities,
        factions,
        personalities,
        cities: data.cities.clone(),
        wave: 1,
        round: 0,
        wave_round: 0,
        current_city: None,
        hand: vec![Vec::new(); seats],
        played: vec![None; seats],
        temple: vec![Vec::new(); seats],
        cemetery: Vec::new(),
        won_cities: vec![Vec::new(); seats],
        unclaimed: Vec::new(),
        city_deck: Vec::new(),
        scores: vec![0; seats],
        history: Vec::new(),
        finished: false,
    }
}

fn per_seat<T: Clone + Default>(
    given: Option<Vec<T>>,
    seats: usize,
    name: &str,
) -> Result<Vec<T>, RuleError> {
    match given {
        None => Ok(vec![T::default(); seats]),
        Some(v) if v.len() == seats => Ok(v),
        Some(v) => Err(RuleError::position(format!(
            "`{name}` lists {} seats, but the match has {seats}.",
            v.len()
        ))),
    }
}

fn position_state(
    data: &HereticsData,
    seats: usize,
    options: &HereticsOptions,
    p: HereticsPosition,
) -> Result<HereticsState, RuleError> {
    check_seats(seats)?;
    let factions = match p.factions {
        Some(f) => f,
        None => data
            .factions
            .iter()
            .take(seats)
            .map(|f| f.id.clone())
            .collect(),
    };
    if factions.len() != seats {
        return Err(RuleError::position(format!(
            "`factions` lists {} seats, but the match has {seats}.",
            factions.len()
        )));
    }
    for (i, f) in factions.iter().enumerate() {
        if !data.factions.iter().any(|d| d.id == *f) {
            return Err(RuleError::position(format!(
                "Seat {i}'s faction '{f}' is not in the component data."
            )));
        }
        if factions[..i].contains(f) {
            return Err(RuleError::position(format!(
                "Faction '{f}' is given to two seats; every seat has its own faction (rules §3)."
            )));
        }
    }
    if p.wave != 1 && p.wave != 2 {
        return Err(RuleError::position(format!(
            "`wave` is {}, but a game has waves 1 and 2 only (rules §6).",
            p.wave
        )));
    }
    let mut state = new_state(data, seats, options, factions);
    state.wave = p.wave;
    let hand = per_seat(Some(p.hand), seats, "hand")?;
    let temple = per_seat(p.temple, seats, "temple")?;
    let won = per_seat(p.won_cities, seats, "won_cities")?;

    // Personality cards: each in exactly one place, in its owner's zones.
    let mut placed: BTreeSet<String> = BTreeSet::new();
    let mut place = |card: &str, zone: &str, seat: Option<Seat>| -> Result<(), RuleError> {
        let Some(c) = state.card(card) else {
            return Err(RuleError::position(format!(
                "{zone} lists '{card}', which is not a personality of a seated faction."
            )));
        };
        if let Some(s) = seat
            && state.factions.get(s) != Some(&c.faction)
        {
            return Err(RuleError::position(format!(
                "{zone} lists '{card}', but seat {s} plays faction '{}'; a seat holds only its own faction's cards (rules §1.4).",
                state.factions.get(s).map_or("", String::as_str)
            )));
        }
        if !placed.insert(card.to_owned()) {
            return Err(RuleError::position(format!(
                "Personality '{card}' is listed twice; every card is in exactly one place."
            )));
        }
        Ok(())
    };
    for (s, cards) in hand.iter().enumerate() {
        for c in cards {
            place(c, &format!("Seat {s}'s hand"), Some(s))?;
        }
    }
    for (s, cards) in temple.iter().enumerate() {
        for c in cards {
            place(c, &format!("Seat {s}'s temple"), Some(s))?;
        }
    }
    let cemetery = match p.cemetery {
        Some(cards) => {
            for c in &cards {
                place(c, "The cemetery", None)?;
            }
            if let Some(missing) = state.personalities.iter().find(|c| !placed.contains(&c.id)) {
                return Err(RuleError::position(format!(
                    "Personality '{}' is in no hand, temple or cemetery; every card is in exactly one place.",
                    missing.id
                )));
            }
            cards
        }
        None => state
            .personalities
            .iter()
            .filter(|c| !placed.contains(&c.id))
            .map(|c| c.id.clone())
            .collect(),
    };
    if state.wave == 1 {
        let sizes: BTreeSet<usize> = hand.iter().map(Vec::len).collect();
        if sizes.len() > 1 {
            return Err(RuleError::position(
                "In wave 1 every seat sends a card every round, so all hands have the same size (rules §4).",
            ));
        }
    }

    // Cities: those stated in the position, then the data's; each at most
    // once; those listed nowhere are not in the match.
    let factions: BTreeSet<&str> = data.factions.iter().map(|f| f.id.as_str()).collect();
    let mut stated: BTreeSet<&str> = BTreeSet::new();
    for c in &p.cities {
        data::check_city(c, &factions, "The position's cities").map_err(RuleError::position)?;
        if !stated.insert(c.id.as_str()) {
            return Err(RuleError::position(format!(
                "The position's cities state '{}' twice.",
                c.id
            )));
        }
    }
    let mut cities: Vec<City> = p.cities.clone();
    cities.extend(
        data.cities
            .iter()
            .filter(|c| !stated.contains(c.id.as_str()))
            .cloned(),
    );
    let mut used: Vec<String> = Vec::new();
    let mut take = |city: &str, zone: &str| -> Result<(), RuleError> {
        if !cities.iter().any(|c| c.id == city) {
            return Err(RuleError::position(format!(
                "{zone} lists '{city}', which is neither a city of the position's `cities` nor of the component data."
            )));
        }
        if used.iter().any(|u| u == city) {
            return Err(RuleError::position(format!(
                "City '{city}' is listed twice; every city is in exactly one place."
            )));
        }
        used.push(city.to_owned());
        Ok(())
    };
    for c in &p.city_deck {
        take(c, "The city deck")?;
    }
    for (s, cities) in won.iter().enumerate() {
        for c in cities {
            take(c, &format!("Seat {s}'s won cities"))?;
        }
    }
    for c in &p.unclaimed {
        take(c, "The unclaimed pile")?;
    }
    cities.retain(|c| used.contains(&c.id));
    state.cities = cities;
    state.scores = won
        .iter()
        .map(|cities| {
            cities
                .iter()
                .filter_map(|id| state.city(id))
                .map(|c| i64::from(c.significance))
                .sum()
        })
        .collect();
    let played_rounds =
        u32::try_from(won.iter().map(Vec::len).sum::<usize>() + p.unclaimed.len()).unwrap_or(0);
    state.round = played_rounds;
    state.wave_round = if state.wave == 1 { played_rounds } else { 0 };
    state.hand = hand;
    state.temple = temple;
    state.cemetery = cemetery;
    state.won_cities = won;
    state.unclaimed = p.unclaimed;
    state.city_deck = p.city_deck;
    state.sort_hands();
    state.advance(&mut Vec::new());
    Ok(state)
}

fn city_shown(state: &HereticsState, city: &City) -> City {
    let mut c = city.clone();
    if !state.special_cities {
        c.abilities.clear();
    }
    c
}

impl Game for Heretics {
    type Data = HereticsData;
    type Options = HereticsOptions;
    type Position = HereticsPosition;
    type State = HereticsState;
    type Action = HereticsAction;
    type View = HereticsView;
    type Template = crate::games::legal::NoTemplates;

    fn prompt_kinds() -> &'static [&'static str] {
        &[PROMPT_CHOOSE]
    }

    fn example_action() -> HereticsAction {
        HereticsAction::Play {
            card: "hussites:7".to_owned(),
        }
    }

    fn event_kinds() -> &'static [&'static str] {
        &[
            "city_revealed",
            "game_finished",
            "personality_chosen",
            "personality_placed",
            "round_resolved",
            "wave_started",
        ]
    }

    fn info() -> GameInfo {
        GameInfo {
            id: "heretics",
            name: "Heretics (Kacíři a bitva o Evropu)",
            seats: (MIN_SEATS..=MAX_SEATS).collect(),
            options: serde_json::to_value(HereticsOptions::default()).unwrap_or(Value::Null),
            summary: "Send a personality face down to win each European city; equal strengths \
                      neutralise each other. Two waves of reformation, 2 to 4 players.",
        }
    }

    fn data_files() -> &'static [DataFile] {
        &DATA_FILES
    }

    fn load_data(files: &[(&str, &str)]) -> Result<HereticsData, String> {
        let find = |name: &str| {
            files
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, c)| *c)
                .ok_or_else(|| format!("data file {name} is missing"))
        };
        data::parse(find(data::FACTIONS_FILE)?, find(data::CITIES_FILE)?)
    }

    fn setup(
        data: &HereticsData,
        seats: usize,
        options: &HereticsOptions,
        rng: &mut GameRng,
    ) -> Result<HereticsState, RuleError> {
        check_seats(seats)?;
        if data.factions.len() < seats {
            return Err(RuleError::options(format!(
                "The component data has {} factions, too few for {seats} seats (rules §1.1).",
                data.factions.len()
            )));
        }
        // Rules §3.1: every seat draws a faction at random from the free ones.
        let mut free: Vec<String> = data.factions.iter().map(|f| f.id.clone()).collect();
        let mut factions = Vec::with_capacity(seats);
        for _ in 0..seats {
            let i = rng.index(free.len());
            if i < free.len() {
                factions.push(free.remove(i));
            }
        }
        let mut state = new_state(data, seats, options, factions);
        // Rules §3.2: each hand is the faction's 11 cards.
        for (s, f) in state.factions.iter().enumerate() {
            if let Some(hand) = state.hand.get_mut(s) {
                *hand = state
                    .personalities
                    .iter()
                    .filter(|p| p.faction == *f)
                    .map(|p| p.id.clone())
                    .collect();
            }
        }
        state.sort_hands();
        // Rules §3.3: shuffle the city deck.
        let mut deck: Vec<String> = data.cities.iter().map(|c| c.id.clone()).collect();
        rng.shuffle(&mut deck);
        state.city_deck = deck;
        state.advance(&mut Vec::new());
        Ok(state)
    }

    fn from_position(
        data: &HereticsData,
        seats: usize,
        options: &HereticsOptions,
        position: HereticsPosition,
    ) -> Result<HereticsState, RuleError> {
        position_state(data, seats, options, position)
    }

    fn progress(state: &HereticsState) -> Progress {
        if state.finished {
            Progress::Finished(Outcome::from_scores(&state.scores))
        } else {
            Progress::Active(Prompt {
                kind: PROMPT_CHOOSE.to_owned(),
                round: Some(state.round),
                sealed: true,
                awaiting: state.awaiting(),
            })
        }
    }

    fn legal(state: &HereticsState, seat: Seat) -> Option<Vec<Value>> {
        if !state.awaiting().contains(&seat) {
            return None;
        }
        let hand = state.hand.get(seat)?;
        Some(
            hand.iter()
                .map(|c| json!({"type": "play", "card": c}))
                .collect(),
        )
    }

    fn validate(
        state: &HereticsState,
        seat: Seat,
        action: &HereticsAction,
    ) -> Result<(), RuleError> {
        if !state.shape_ok() {
            return Err(RuleError::illegal(
                "The match state is inconsistent; no move can be checked.",
            ));
        }
        match action {
            HereticsAction::Play { card } => state.check_play(seat, card),
        }
    }

    fn apply(
        state: &HereticsState,
        seat: Seat,
        action: &HereticsAction,
        _rng: &mut GameRng,
    ) -> Result<Transition<HereticsState>, RuleError> {
        Self::validate(state, seat, action)?;
        let HereticsAction::Play { card } = action;
        let mut next = state.clone();
        if let Some(hand) = next.hand.get_mut(seat) {
            hand.retain(|c| c != card);
        }
        if let Some(slot) = next.played.get_mut(seat) {
            *slot = Some(card.clone());
        }
        let mut events = vec![
            Event::public(
                "personality_placed",
                json!({"seat": seat, "round": next.round}),
            ),
            Event::private(
                seat,
                "personality_chosen",
                json!({"seat": seat, "round": next.round, "card": card}),
            ),
        ];
        if !next.awaiting().is_empty() {
            return Ok(Transition {
                state: next,
                completes_step: false,
                reveal: false,
                events,
                rounds: Vec::new(),
            });
        }
        let record = next.resolve_round(&mut events)?;
        next.advance(&mut events);
        Ok(Transition {
            state: next,
            completes_step: true,
            reveal: true,
            events,
            rounds: vec![record],
        })
    }

    fn view(state: &HereticsState, viewer: Viewer) -> HereticsView {
        let own = match viewer {
            Viewer::Seat(s) if s < state.seats => Some(s),
            _ => None,
        };
        HereticsView {
            viewer: own,
            seats: state.seats,
            special_cities: state.special_cities,
            factions: state.factions.clone(),
            wave: state.wave,
            round: state.round,
            wave_round: state.wave_round,
            finished: state.finished,
            current_city: state
                .current_city
                .as_ref()
                .and_then(|id| state.city(id))
                .map(|c| city_shown(state, c)),
            city_deck_size: state.city_deck.len(),
            hand: own.and_then(|s| state.hand.get(s).cloned()),
            choice: own.and_then(|s| state.played.get(s).cloned().flatten()),
            hand_sizes: (0..state.seats)
                .map(|s| state.public_hand_size(s))
                .collect(),
            submitted: (0..state.seats)
                .map(|s| state.played.get(s).is_some_and(Option::is_some))
                .collect(),
            awaiting: state.awaiting(),
            temple: state.temple.clone(),
            cemetery: state.cemetery.clone(),
            won_cities: state.won_cities.clone(),
            unclaimed: state.unclaimed.clone(),
            scores: state.scores.clone(),
            history: state.history.clone(),
            personalities: state.personalities.clone(),
            cities: state.cities.iter().map(|c| city_shown(state, c)).collect(),
            final_hands: state.finished.then(|| state.hand.clone()),
        }
    }

    fn public_part(_state: &HereticsState, _seat: Seat, action: &HereticsAction) -> Option<Value> {
        // Every move is sealed until the reveal; only its type is public.
        match action {
            HereticsAction::Play { .. } => Some(json!({"type": "play"})),
        }
    }

    fn null_move(state: &HereticsState, seat: Seat) -> Option<HereticsAction> {
        // The weakest personality in hand (hands are ordered by printed strength).
        if !state.awaiting().contains(&seat) {
            return None;
        }
        state
            .hand
            .get(seat)?
            .first()
            .map(|card| HereticsAction::Play { card: card.clone() })
    }
    fn variant(_seats: usize, options: &Self::Options) -> String {
        if options.special_cities {
            "special_cities"
        } else {
            "plain_cities"
        }
        .to_owned()
    }

    /// The significance of the cities each seat has won so far (rules §6.3).
    fn standings(state: &Self::State) -> Vec<i64> {
        state.scores.clone()
    }

    fn roles(state: &Self::State) -> Vec<Option<String>> {
        state.factions.iter().cloned().map(Some).collect()
    }
}
