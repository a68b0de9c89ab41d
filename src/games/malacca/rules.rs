//! The rules: state, setup, the decision steps and the resolution of a round
//! (shared/rules/malacca.md §3–§8; the reference pseudocode is §5.9).

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::data::{MalaccaData, Rules};
use super::{
    Action, Card, Character, EquipmentCounts, EquipmentKind, EquipmentPurchase, Kind, LedgerItem,
    MalaccaOptions, Reason, RoundSummary, SeatSummary, ShipOutcome, Stakes,
};
use crate::games::rng::GameRng;
use crate::games::{
    Event, LedgerEntry, Outcome, Progress, Prompt, RoundRecord, RuleError, Seat, SeatRecord,
    Transition,
};

/// The rule options a match keeps in its state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StateOptions {
    pub characters: bool,
    pub equipment: bool,
    pub equipment_purchase: EquipmentPurchase,
    pub stakes: Stakes,
}

/// A card placed this round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Play {
    pub card: Card,
    pub stake: i64,
    /// The player's coins just before the stake was placed (§2.1, deck scrubbing).
    pub coins_at_bet: i64,
    /// A waiting card's choice, once made.
    pub choice: Option<Kind>,
}

/// One seat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerState {
    pub seat: Seat,
    pub coins: i64,
    /// Every card the seat holds, normal cards included, in the stable card order.
    /// The card placed this round is not in it until the round ends.
    pub hand: Vec<Card>,
    pub character: Option<Character>,
    pub equipment: EquipmentCounts,
    pub play: Option<Play>,
    /// The number of special cards in hand when betting began (shown to others
    /// until the reveal, D4).
    pub special_count_at_bet: usize,
}

impl PlayerState {
    pub fn special_count(&self) -> usize {
        self.hand.iter().filter(|c| !c.is_normal()).count()
    }
}

/// The current decision step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case", deny_unknown_fields)]
pub enum Phase {
    /// Phase E: `order[next]` decides.
    EquipmentPurchase {
        order: Vec<Seat>,
        next: usize,
    },
    /// Phase 2. Open betting: `order[next]` plays. Sealed: every seat without a play.
    Bet {
        order: Vec<Seat>,
        next: usize,
    },
    /// Phase 4: the seats with a waiting card, `order[next]` decides.
    WaitingChoice {
        order: Vec<Seat>,
        next: usize,
    },
    /// Phase 5: Sayyida al Hurra keeps one of `cards`; `drawers` draw afterwards.
    SayyidaKeep {
        seat: Seat,
        cards: Vec<Card>,
        drawers: Vec<Seat>,
    },
    Finished,
}

/// The result of the current round, kept while the draws are under way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resolution {
    pub outcome: ShipOutcome,
    pub total_attack: i64,
    pub total_defense: i64,
    /// Per seat: the resolved kind.
    pub kinds: Vec<Kind>,
    pub success: Vec<bool>,
    /// Per seat: special cards gained this round.
    pub drew: Vec<u32>,
}

/// The whole state of a match. Published as `final_state` once the match ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct State {
    pub options: StateOptions,
    /// The component numbers, copied from the data files at setup. Not stored
    /// with the state (they are the same at every move of every match of a data
    /// version, a third of the text): `Game::attach_data` gives them back from
    /// the match's data version when the state is parsed. A state stored before
    /// carries them, and keeps them.
    #[serde(default, skip_serializing)]
    pub rules: Rules,
    pub round: u32,
    /// The number of the last round.
    pub rounds_total: u32,
    pub captain: Seat,
    pub phase: Phase,
    /// The current ship's cargo once revealed.
    pub ship_value: Option<i64>,
    /// The ships not yet revealed, top first.
    pub ship_deck: Vec<i64>,
    pub ships_revealed: Vec<i64>,
    /// Top first.
    pub special_deck: Vec<Card>,
    pub equipment_supply: EquipmentCounts,
    pub players: Vec<PlayerState>,
    /// Coins at the start of the current round (before equipment purchases).
    pub round_start_coins: Vec<i64>,
    /// The coin changes of the current round so far.
    pub round_ledger: Vec<LedgerItem>,
    pub resolution: Option<Resolution>,
    /// Every resolved round.
    pub history: Vec<RoundSummary>,
}

/// What a move produced besides the state.
#[derive(Default)]
struct Out {
    events: Vec<Event>,
    rounds: Vec<RoundRecord>,
    reveal: bool,
}

fn corrupt(what: &str) -> RuleError {
    RuleError::illegal(format!(
        "The match state is inconsistent ({what}); the move cannot be applied."
    ))
}

/// Splits `pool` among `k` recipients listed in order from the captain (§5.3).
pub fn split(pool: i64, k: usize) -> Vec<i64> {
    if k == 0 {
        return Vec::new();
    }
    let k64 = k as i64;
    (0..k64)
        .map(|i| pool / k64 + i64::from(i < pool % k64))
        .collect()
}

fn check_seats(seats: usize) -> Result<(), RuleError> {
    if (2..=8).contains(&seats) {
        Ok(())
    } else {
        Err(RuleError::options(format!(
            "Malacca is played by 2 to 8 players, not {seats} (rules §1.9)."
        )))
    }
}

/// Checks the options against the seat count.
pub fn check_options(options: &MalaccaOptions, seats: usize) -> Result<(), RuleError> {
    check_seats(seats)?;
    if let Some(ships) = &options.ships {
        if ships.is_empty() || ships.len() > super::data::MAX_SHIPS {
            return Err(RuleError::options(format!(
                "The option ships needs 1 to {} cargo values, not {}.",
                super::data::MAX_SHIPS,
                ships.len()
            )));
        }
        if let Some(v) = ships
            .iter()
            .find(|v| !(0..=super::data::MAX_COINS).contains(*v))
        {
            return Err(RuleError::options(format!(
                "The option ships holds the cargo value {v}: values run from 0 to {}.",
                super::data::MAX_COINS
            )));
        }
    }
    if let Some(chars) = &options.characters_by_seat {
        if !options.characters {
            return Err(RuleError::options(
                "The option characters_by_seat needs the option characters: true.",
            ));
        }
        if chars.len() != seats {
            return Err(RuleError::options(format!(
                "The option characters_by_seat lists {} characters for {seats} seats.",
                chars.len()
            )));
        }
        for (i, c) in chars.iter().enumerate() {
            if chars[..i].contains(c) {
                return Err(RuleError::options(format!(
                    "The option characters_by_seat gives {} to two seats.",
                    c.id()
                )));
            }
        }
    }
    Ok(())
}

/// A new match (§3).
pub fn setup(
    data: &MalaccaData,
    seats: usize,
    options: &MalaccaOptions,
    rng: &mut GameRng,
) -> Result<State, RuleError> {
    check_options(options, seats)?;
    // §3.2: the ship deck (an explicit deck is used as given, top first).
    let ships = match &options.ships {
        Some(ships) => ships.clone(),
        None => {
            let mut ships = data.ships.clone();
            rng.shuffle(&mut ships);
            ships
        }
    };
    // §3.3: the special deck.
    let mut special_deck: Vec<Card> = data
        .rules
        .special_cards
        .iter()
        .flat_map(|c| std::iter::repeat_n(c.id, c.count as usize))
        .collect();
    rng.shuffle(&mut special_deck);
    // §3.5: characters.
    let characters: Vec<Option<Character>> = if options.characters {
        match &options.characters_by_seat {
            Some(chars) => chars.iter().copied().map(Some).collect(),
            None => {
                let mut all = Character::ALL.to_vec();
                rng.shuffle(&mut all);
                all.into_iter().take(seats).map(Some).collect()
            }
        }
    } else {
        vec![None; seats]
    };
    let mut players = Vec::with_capacity(seats);
    for seat in 0..seats {
        let character = characters.get(seat).copied().flatten();
        let coins = match character {
            Some(ch) => data
                .rules
                .character(ch)
                .map_or(data.start_coins, |c| c.start_coins.resolve(seats)),
            None => data.start_coins,
        };
        players.push(PlayerState {
            seat,
            coins,
            hand: Card::NORMAL.to_vec(),
            character,
            equipment: EquipmentCounts::default(),
            play: None,
            special_count_at_bet: 0,
        });
    }
    // §3.6: Laskarina's draw, after the shuffle and before round 1 (D23).
    for p in &mut players {
        let draws = p
            .character
            .and_then(|ch| data.rules.character(ch))
            .and_then(|c| c.setup_draws)
            .unwrap_or(0) as usize;
        let take = draws.min(special_deck.len());
        p.hand.extend(special_deck.drain(..take));
        p.hand.sort();
    }
    // §3.7: the equipment supply.
    let mut supply = EquipmentCounts::default();
    if options.equipment {
        for kind in EquipmentKind::ALL {
            *supply.get_mut(kind) = data.rules.equipment(kind).map_or(0, |e| e.supply);
        }
    }
    // §3.8: the first captain, by lot (D3).
    let captain = rng.index(seats);
    let rounds_total = ships.len() as u32;
    State::start(
        data,
        options,
        1,
        rounds_total,
        captain,
        ships,
        special_deck,
        supply,
        players,
    )
}

impl State {
    /// A state at the start of round `round` (setup and positions).
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        data: &MalaccaData,
        options: &MalaccaOptions,
        round: u32,
        rounds_total: u32,
        captain: Seat,
        ship_deck: Vec<i64>,
        special_deck: Vec<Card>,
        equipment_supply: EquipmentCounts,
        players: Vec<PlayerState>,
    ) -> Result<State, RuleError> {
        let mut state = State {
            options: StateOptions {
                characters: options.characters,
                equipment: options.equipment,
                equipment_purchase: options.equipment_purchase,
                stakes: options.stakes,
            },
            rules: data.rules.clone(),
            round,
            rounds_total,
            captain,
            phase: Phase::Finished,
            ship_value: None,
            ship_deck,
            ships_revealed: Vec::new(),
            special_deck,
            equipment_supply,
            round_start_coins: players.iter().map(|p| p.coins).collect(),
            players,
            round_ledger: Vec::new(),
            resolution: None,
            history: Vec::new(),
        };
        state.start_round(&mut Out::default());
        Ok(state)
    }

    pub fn seats(&self) -> usize {
        self.players.len()
    }

    /// Seats clockwise from the captain, captain first (D2).
    pub fn order(&self) -> Vec<Seat> {
        let n = self.seats();
        (0..n).map(|i| (self.captain + i) % n.max(1)).collect()
    }

    fn player(&self, seat: Seat) -> Result<&PlayerState, RuleError> {
        self.players
            .get(seat)
            .ok_or_else(|| corrupt("unknown seat"))
    }

    fn player_mut(&mut self, seat: Seat) -> Result<&mut PlayerState, RuleError> {
        self.players
            .get_mut(seat)
            .ok_or_else(|| corrupt("unknown seat"))
    }

    fn character_of(&self, seat: Seat) -> Option<Character> {
        if self.options.characters {
            self.players.get(seat).and_then(|p| p.character)
        } else {
            None
        }
    }

    /// Changes a seat's coins and writes the ledger line.
    fn pay(&mut self, seat: Seat, amount: i64, reason: Reason) {
        if amount == 0 {
            return;
        }
        if let Some(p) = self.players.get_mut(seat) {
            p.coins = p.coins.saturating_add(amount);
            self.round_ledger.push(LedgerItem {
                seat,
                amount,
                reason,
            });
        }
    }

    /// Writes a ledger line for a coin change that already happened (a stake).
    fn note(&mut self, seat: Seat, amount: i64, reason: Reason) {
        if amount != 0 {
            self.round_ledger.push(LedgerItem {
                seat,
                amount,
                reason,
            });
        }
    }

    // ----- the round's life cycle -------------------------------------------------

    fn start_round(&mut self, out: &mut Out) {
        self.round_start_coins = self.players.iter().map(|p| p.coins).collect();
        self.round_ledger.clear();
        self.resolution = None;
        self.ship_value = None;
        for p in &mut self.players {
            p.play = None;
        }
        if self.round > self.rounds_total || self.ship_deck.is_empty() {
            self.finish(out);
            return;
        }
        if self.options.equipment {
            let order = match self.options.equipment_purchase {
                EquipmentPurchase::EachPlayer => self.order(),
                EquipmentPurchase::CaptainOnly => vec![self.captain],
            };
            self.phase = Phase::EquipmentPurchase { order, next: 0 };
        } else {
            self.reveal_ship(out);
        }
    }

    fn finish(&mut self, out: &mut Out) {
        self.phase = Phase::Finished;
        let outcome =
            Outcome::from_scores(&self.players.iter().map(|p| p.coins).collect::<Vec<_>>());
        out.events.push(Event::public(
            "game_finished",
            json!({ "placings": outcome.placings }),
        ));
    }

    /// Phase 1: the top ship is revealed; betting begins.
    fn reveal_ship(&mut self, out: &mut Out) {
        if self.ship_deck.is_empty() {
            self.finish(out);
            return;
        }
        let value = self.ship_deck.remove(0);
        self.ship_value = Some(value);
        self.ships_revealed.push(value);
        for p in &mut self.players {
            p.special_count_at_bet = p.special_count();
        }
        out.events.push(Event::public(
            "ship_revealed",
            json!({ "round": self.round, "value": value }),
        ));
        self.phase = Phase::Bet {
            order: self.order(),
            next: 0,
        };
    }

    // ----- prompts, legal moves, validation ---------------------------------------

    /// The seats that owe a move in the current step.
    pub fn awaiting(&self) -> Vec<Seat> {
        match &self.phase {
            Phase::EquipmentPurchase { order, next } | Phase::WaitingChoice { order, next } => {
                order.get(*next).copied().into_iter().collect()
            }
            Phase::Bet { order, next } => match self.options.stakes {
                Stakes::OpenSequential => order.get(*next).copied().into_iter().collect(),
                Stakes::Sealed => order
                    .iter()
                    .copied()
                    .filter(|s| self.players.get(*s).is_some_and(|p| p.play.is_none()))
                    .collect(),
            },
            Phase::SayyidaKeep { seat, .. } => vec![*seat],
            Phase::Finished => Vec::new(),
        }
    }

    pub fn prompt_kind(&self) -> &'static str {
        match self.phase {
            Phase::EquipmentPurchase { .. } => "equipment_purchase",
            Phase::Bet { .. } => "bet",
            Phase::WaitingChoice { .. } => "waiting_choice",
            Phase::SayyidaKeep { .. } => "sayyida_keep",
            Phase::Finished => "finished",
        }
    }

    pub fn progress(&self) -> Progress {
        if self.phase == Phase::Finished {
            let scores: Vec<i64> = self.players.iter().map(|p| p.coins).collect();
            return Progress::Finished(Outcome::from_scores(&scores));
        }
        Progress::Active(Prompt {
            kind: self.prompt_kind().to_owned(),
            round: Some(self.round),
            sealed: matches!(self.phase, Phase::Bet { .. })
                && self.options.stakes == Stakes::Sealed,
            awaiting: self.awaiting(),
        })
    }

    /// The kinds a waiting card offers (empty for other cards).
    fn choices(&self, card: Card) -> Vec<Kind> {
        self.rules
            .card(card)
            .map(|d| d.choices.clone())
            .unwrap_or_default()
    }

    fn affordable(&self, seat: Seat, kind: EquipmentKind) -> bool {
        let cost = self.rules.equipment(kind).map_or(i64::MAX, |e| e.cost);
        self.equipment_supply.get(kind) >= 1
            && self.players.get(seat).is_some_and(|p| p.coins >= cost)
    }

    pub fn legal(&self, seat: Seat) -> Option<Vec<Value>> {
        if !self.awaiting().contains(&seat) {
            return None;
        }
        let p = self.players.get(seat)?;
        match &self.phase {
            Phase::EquipmentPurchase { .. } => {
                let mut legal = vec![json!({"type": "pass"})];
                for kind in EquipmentKind::ALL {
                    if self.affordable(seat, kind) {
                        legal.push(json!({"type": "buy", "kind": kind}));
                    }
                }
                Some(legal)
            }
            Phase::Bet { .. } => {
                let mut cards = p.hand.clone();
                cards.sort();
                cards.dedup();
                Some(vec![json!({
                    "type": "play",
                    "template": true,
                    "cards": cards,
                    "stake": {"min": 0, "max": p.coins},
                })])
            }
            Phase::WaitingChoice { .. } => {
                let card = p.play?.card;
                Some(
                    self.choices(card)
                        .into_iter()
                        .map(|k| json!({"type": "choose", "kind": k}))
                        .collect(),
                )
            }
            Phase::SayyidaKeep { cards, .. } => {
                let mut legal: Vec<Value> = Vec::new();
                for c in cards {
                    let a = json!({"type": "keep", "card": c});
                    if !legal.contains(&a) {
                        legal.push(a);
                    }
                }
                Some(legal)
            }
            Phase::Finished => None,
        }
    }

    fn step_name(&self) -> &'static str {
        match self.phase {
            Phase::EquipmentPurchase { .. } => "the equipment purchase (rules §4.1)",
            Phase::Bet { .. } => "the betting (rules §4.3)",
            Phase::WaitingChoice { .. } => "the waiting-card choices (rules §4.5)",
            Phase::SayyidaKeep { .. } => "Sayyida al Hurra's choice of a card (rules §7.6)",
            Phase::Finished => "the end of the match",
        }
    }

    pub fn validate(&self, seat: Seat, action: &Action) -> Result<(), RuleError> {
        let Some(p) = self.players.get(seat) else {
            return Err(RuleError::illegal(format!(
                "There is no seat {seat} in this match."
            )));
        };
        if self.phase == Phase::Finished {
            return Err(RuleError::illegal(
                "The match is over: no more moves are accepted (rules §6).",
            ));
        }
        let awaiting = self.awaiting();
        if !awaiting.contains(&seat) {
            let detail = if matches!(self.phase, Phase::Bet { .. }) && p.play.is_some() {
                "you have already placed your card this round".to_owned()
            } else {
                let who: Vec<String> = awaiting.iter().map(|s| format!("seat {s}")).collect();
                format!("{} waits for {}", self.step_name(), who.join(", "))
            };
            return Err(RuleError::illegal(format!(
                "It is not your turn: {detail}."
            )));
        }
        match (&self.phase, action) {
            (Phase::EquipmentPurchase { .. }, Action::Pass {}) => Ok(()),
            (Phase::EquipmentPurchase { .. }, Action::Buy { kind }) => {
                let cost = self.rules.equipment(*kind).map_or(0, |e| e.cost);
                if self.equipment_supply.get(*kind) == 0 {
                    Err(RuleError::illegal(format!(
                        "You cannot buy {}: the supply of that kind has run out (rules §8.1).",
                        kind.id()
                    )))
                } else if p.coins < cost {
                    Err(RuleError::illegal(format!(
                        "You cannot buy {}: it costs {cost} coins and you have {} (rules §4.1).",
                        kind.id(),
                        p.coins
                    )))
                } else {
                    Ok(())
                }
            }
            (Phase::Bet { .. }, Action::Play { card, stake }) => {
                if !p.hand.contains(card) {
                    Err(RuleError::illegal(format!(
                        "You cannot play {}: it is not in your hand (rules §4.3).",
                        card.id()
                    )))
                } else if *stake < 0 || *stake > p.coins {
                    Err(RuleError::illegal(format!(
                        "You cannot stake {stake} coins: a stake is a whole number from 0 to \
                         your coins, {} (rules §4.3).",
                        p.coins
                    )))
                } else {
                    Ok(())
                }
            }
            (Phase::WaitingChoice { .. }, Action::Choose { kind }) => {
                let card = p.play.map(|pl| pl.card).ok_or_else(|| corrupt("no card"))?;
                let choices = self.choices(card);
                if choices.contains(kind) {
                    Ok(())
                } else {
                    let offered: Vec<&str> = choices.iter().map(|k| k.id()).collect();
                    Err(RuleError::illegal(format!(
                        "You cannot choose {} for {}: it offers {} (rules §4.5).",
                        kind.id(),
                        card.id(),
                        offered.join(" or ")
                    )))
                }
            }
            (Phase::SayyidaKeep { cards, .. }, Action::Keep { card }) => {
                if cards.contains(card) {
                    Ok(())
                } else {
                    let drawn: Vec<&str> = cards.iter().map(|c| c.id()).collect();
                    Err(RuleError::illegal(format!(
                        "You cannot keep {}: you drew {} (rules §7.6).",
                        card.id(),
                        drawn.join(" and ")
                    )))
                }
            }
            (_, action) => {
                let what = match action {
                    Action::Play { .. } => "play a card",
                    Action::Choose { .. } => "choose a kind for a waiting card",
                    Action::Buy { .. } => "buy equipment",
                    Action::Pass {} => "pass",
                    Action::Keep { .. } => "keep a drawn card",
                };
                Err(RuleError::illegal(format!(
                    "You cannot {what} now: the match is in {}.",
                    self.step_name()
                )))
            }
        }
    }

    /// What an absent seat plays (see docs/rules/malacca.md).
    pub fn null_move(&self, seat: Seat) -> Option<Action> {
        if !self.awaiting().contains(&seat) {
            return None;
        }
        let p = self.players.get(seat)?;
        match &self.phase {
            Phase::EquipmentPurchase { .. } => Some(Action::Pass {}),
            Phase::Bet { .. } => {
                let card = if p.hand.contains(&Card::Trade) {
                    Card::Trade
                } else {
                    *p.hand.first()?
                };
                Some(Action::Play { card, stake: 0 })
            }
            Phase::WaitingChoice { .. } => {
                let choices = self.choices(p.play?.card);
                let kind = if choices.contains(&Kind::Defense) {
                    Kind::Defense
                } else {
                    *choices.first()?
                };
                Some(Action::Choose { kind })
            }
            Phase::SayyidaKeep { cards, .. } => Some(Action::Keep {
                card: *cards.first()?,
            }),
            Phase::Finished => None,
        }
    }

    // ----- applying moves ------------------------------------------------------------

    pub fn apply(&self, seat: Seat, action: &Action) -> Result<Transition<State>, RuleError> {
        self.validate(seat, action)?;
        let mut s = self.clone();
        let mut out = Out::default();
        let mut completes_step = true;
        match *action {
            Action::Pass {} => {
                out.events.push(Event::public(
                    "equipment_passed",
                    json!({"round": s.round, "seat": seat}),
                ));
                s.advance_equipment(&mut out)?;
            }
            Action::Buy { kind } => {
                s.buy(seat, kind, &mut out)?;
                s.advance_equipment(&mut out)?;
            }
            Action::Play { card, stake } => {
                completes_step = s.place(seat, card, stake, &mut out)?;
            }
            Action::Choose { kind } => s.choose(seat, kind, &mut out)?,
            Action::Keep { card } => s.keep(seat, card, &mut out)?,
        }
        Ok(Transition {
            state: s,
            completes_step,
            reveal: out.reveal,
            events: out.events,
            rounds: out.rounds,
        })
    }

    fn buy(&mut self, seat: Seat, kind: EquipmentKind, out: &mut Out) -> Result<(), RuleError> {
        let cost = self
            .rules
            .equipment(kind)
            .map(|e| e.cost)
            .ok_or_else(|| corrupt("unknown equipment"))?;
        let left = self.equipment_supply.get_mut(kind);
        *left = left.saturating_sub(1);
        *self.player_mut(seat)?.equipment.get_mut(kind) += 1;
        self.pay(seat, -cost, Reason::EquipmentPurchase);
        out.events.push(Event::public(
            "equipment_bought",
            json!({"round": self.round, "seat": seat, "kind": kind, "cost": cost}),
        ));
        Ok(())
    }

    fn advance_equipment(&mut self, out: &mut Out) -> Result<(), RuleError> {
        let Phase::EquipmentPurchase { order, next } = &mut self.phase else {
            return Err(corrupt("not in the equipment step"));
        };
        *next += 1;
        if *next >= order.len() {
            self.reveal_ship(out);
        }
        Ok(())
    }

    /// Phase 2: places a card; answers whether the step is complete.
    fn place(
        &mut self,
        seat: Seat,
        card: Card,
        stake: i64,
        out: &mut Out,
    ) -> Result<bool, RuleError> {
        let round = self.round;
        let p = self.player_mut(seat)?;
        let idx = p
            .hand
            .iter()
            .position(|c| *c == card)
            .ok_or_else(|| corrupt("card not in hand"))?;
        p.hand.remove(idx);
        let coins_at_bet = p.coins;
        p.coins -= stake;
        p.play = Some(Play {
            card,
            stake,
            coins_at_bet,
            choice: None,
        });
        let complete = match self.options.stakes {
            Stakes::OpenSequential => {
                out.events.push(Event::public(
                    "stake_placed",
                    json!({"round": round, "seat": seat, "stake": stake}),
                ));
                if let Phase::Bet { order, next } = &mut self.phase {
                    *next += 1;
                    *next >= order.len()
                } else {
                    return Err(corrupt("not in the betting step"));
                }
            }
            Stakes::Sealed => {
                out.events.push(Event::public(
                    "card_placed",
                    json!({"round": round, "seat": seat}),
                ));
                self.players.iter().all(|p| p.play.is_some())
            }
        };
        if complete {
            self.reveal_cards(out)?;
        }
        Ok(complete || self.options.stakes == Stakes::OpenSequential)
    }

    /// Phase 3: every card is revealed; then the waiting choices or the resolution.
    fn reveal_cards(&mut self, out: &mut Out) -> Result<(), RuleError> {
        out.reveal = true;
        let order = self.order();
        let mut plays = Vec::new();
        let mut waiters = Vec::new();
        for seat in order {
            let play = self
                .player(seat)?
                .play
                .ok_or_else(|| corrupt("missing card"))?;
            plays.push(json!({"seat": seat, "card": play.card, "stake": play.stake}));
            if !self.choices(play.card).is_empty() {
                waiters.push(seat);
            }
        }
        out.events.push(Event::public(
            "cards_revealed",
            json!({"round": self.round, "plays": plays}),
        ));
        if waiters.is_empty() {
            self.resolve(out)
        } else {
            self.phase = Phase::WaitingChoice {
                order: waiters,
                next: 0,
            };
            Ok(())
        }
    }

    /// Phase 4: one waiting choice.
    fn choose(&mut self, seat: Seat, kind: Kind, out: &mut Out) -> Result<(), RuleError> {
        let round = self.round;
        let p = self.player_mut(seat)?;
        let play = p.play.as_mut().ok_or_else(|| corrupt("no card"))?;
        play.choice = Some(kind);
        let card = play.card;
        out.events.push(Event::public(
            "waiting_choice",
            json!({"round": round, "seat": seat, "card": card, "kind": kind}),
        ));
        let Phase::WaitingChoice { order, next } = &mut self.phase else {
            return Err(corrupt("not in the waiting step"));
        };
        *next += 1;
        if *next >= order.len() {
            self.resolve(out)?;
        }
        Ok(())
    }

    /// Phase 5: the money of §5.4/§5.5, then the draws (§5.7).
    fn resolve(&mut self, out: &mut Out) -> Result<(), RuleError> {
        let n = self.seats();
        let order = self.order();
        let value = self.ship_value.ok_or_else(|| corrupt("no ship"))?;
        let mut plays = Vec::with_capacity(n);
        let mut kinds = Vec::with_capacity(n);
        let mut mult = vec![0i64; n];
        let (mut total_attack, mut total_defense) = (0i64, 0i64);
        for seat in 0..n {
            let play = self
                .player(seat)?
                .play
                .ok_or_else(|| corrupt("missing card"))?;
            let def = self
                .rules
                .card(play.card)
                .ok_or_else(|| corrupt("unknown card"))?;
            // §5.1: a waiting card counts as the normal card of the chosen kind (D18).
            let (kind, def) = match def.kind {
                Some(kind) => (kind, def),
                None => {
                    let kind = play.choice.ok_or_else(|| corrupt("no waiting choice"))?;
                    let normal = self.rules.normal_of(kind).ok_or_else(|| corrupt("kind"))?;
                    (kind, normal)
                }
            };
            total_attack = total_attack.saturating_add(def.attack);
            total_defense = total_defense.saturating_add(def.defense);
            if let Some(m) = mult.get_mut(seat) {
                *m = def.multiplier;
            }
            plays.push(play);
            kinds.push(kind);
        }
        let captured = total_attack > total_defense;
        let of_kind = |k: Kind| -> Vec<Seat> {
            order
                .iter()
                .copied()
                .filter(|s| kinds.get(*s) == Some(&k))
                .collect()
        };
        let (att, def, tra) = (
            of_kind(Kind::Attack),
            of_kind(Kind::Defense),
            of_kind(Kind::Trade),
        );
        let stake = |s: Seat| plays.get(s).map_or(0, |p| p.stake);
        let drawers: Vec<Seat>;
        if captured {
            // §5.4
            for &p in &att {
                self.note(p, -stake(p), Reason::StakePlaced);
                self.pay(p, stake(p), Reason::StakeReturned);
            }
            let mut lost = 0i64;
            for &p in def.iter().chain(tra.iter()) {
                self.note(p, -stake(p), Reason::StakeLost);
                lost = lost.saturating_add(stake(p));
            }
            let pool = value.saturating_add(lost);
            let shares = split(pool, att.len());
            let from_stakes = split(lost, att.len());
            for (i, &p) in att.iter().enumerate() {
                let share = shares.get(i).copied().unwrap_or(0);
                let from_stake = from_stakes.get(i).copied().unwrap_or(0);
                self.pay(p, from_stake, Reason::LootShare);
                self.pay(p, share - from_stake, Reason::Cargo);
            }
            for &p in &att {
                if self.character_of(p) == Some(Character::IngridHammar) {
                    let bonus = self.rules.character_bonus(Character::IngridHammar, n);
                    self.pay(p, bonus, Reason::CharacterBonus);
                }
                let bonus = self.equipment_bonus(p, EquipmentKind::BetterAttack);
                self.pay(p, bonus, Reason::EquipmentBonus);
            }
            // Tragic hero (§5.4.5, D12).
            drawers = if def.len() == 1 && att.len() + 1 == n {
                def.clone()
            } else {
                Vec::new()
            };
        } else {
            // §5.5
            for &p in &tra {
                let s = stake(p);
                self.note(p, -s, Reason::StakePlaced);
                self.pay(p, s, Reason::StakeReturned);
                let m = mult.get(p).copied().unwrap_or(1);
                self.pay(p, m.saturating_mul(s), Reason::TradeProfit);
                if plays.get(p).is_some_and(|pl| pl.coins_at_bet == 0) {
                    self.pay(p, self.rules.deck_scrubbing, Reason::DeckScrubbing);
                }
            }
            for &p in &def {
                self.note(p, -stake(p), Reason::StakePlaced);
                self.pay(p, stake(p), Reason::StakeReturned);
            }
            if att.is_empty() {
                // Useless defense (§5.5.4, D13).
                drawers = Vec::new();
            } else {
                let mut pool = 0i64;
                for &p in &att {
                    self.note(p, -stake(p), Reason::StakeLost);
                    pool = pool.saturating_add(stake(p));
                }
                let shares = split(pool, def.len());
                for (i, &p) in def.iter().enumerate() {
                    self.pay(p, shares.get(i).copied().unwrap_or(0), Reason::DefenseShare);
                }
                // Caught attackers' penalty (D10): half of what is left, rounded down.
                for &p in &att {
                    let left = self.player(p)?.coins;
                    self.pay(p, -(left.max(0) / 2), Reason::CaughtPenalty);
                }
                for &p in &def {
                    if self.character_of(p) == Some(Character::HenryMorgan) {
                        let bonus = self.rules.character_bonus(Character::HenryMorgan, n);
                        self.pay(p, bonus, Reason::CharacterBonus);
                    }
                    let bonus = self.equipment_bonus(p, EquipmentKind::BetterDefense);
                    self.pay(p, bonus, Reason::EquipmentBonus);
                }
                drawers = def.clone();
            }
        }
        // Black Caesar (§7.4, D20): every resolved kind the same, Caesar included.
        if kinds.windows(2).all(|w| w[0] == w[1]) {
            for &p in &order {
                if self.character_of(p) == Some(Character::BlackCaesar) {
                    let bonus = self.rules.character_bonus(Character::BlackCaesar, n);
                    self.pay(p, bonus, Reason::CharacterBonus);
                }
            }
        }
        let success = kinds
            .iter()
            .map(|k| match k {
                Kind::Attack => captured,
                Kind::Defense => !captured && !att.is_empty(),
                Kind::Trade => !captured,
            })
            .collect();
        self.resolution = Some(Resolution {
            outcome: if captured {
                ShipOutcome::Captured
            } else {
                ShipOutcome::Defended
            },
            total_attack,
            total_defense,
            kinds,
            success,
            drew: vec![0; n],
        });
        self.draw_then_end(drawers, out)
    }

    fn equipment_bonus(&self, seat: Seat, kind: EquipmentKind) -> i64 {
        if !self.options.equipment {
            return 0;
        }
        let owned = self.players.get(seat).map_or(0, |p| p.equipment.get(kind));
        let bonus = self.rules.equipment(kind).map_or(0, |e| e.bonus);
        bonus.saturating_mul(i64::from(owned))
    }

    fn count_draw(&mut self, seat: Seat, n: u32) {
        if let Some(d) = self.resolution.as_mut().and_then(|r| r.drew.get_mut(seat)) {
            *d += n;
        }
    }

    /// §5.7: the draws, in order; pauses at Sayyida's choice. Then the end of the round.
    fn draw_then_end(&mut self, drawers: Vec<Seat>, out: &mut Out) -> Result<(), RuleError> {
        let mut queue = drawers.into_iter();
        while let Some(seat) = queue.next() {
            let draws = match self.character_of(seat) {
                Some(ch) => self.rules.character(ch).and_then(|c| c.draws).unwrap_or(1),
                None => 1,
            } as usize;
            let take = draws.max(1).min(self.special_deck.len());
            let cards: Vec<Card> = self.special_deck.drain(..take).collect();
            match cards.as_slice() {
                [] => out.events.push(Event::public(
                    "special_drawn_count",
                    json!({"round": self.round, "seat": seat, "count": 0}),
                )),
                [card] => {
                    let card = *card;
                    let p = self.player_mut(seat)?;
                    p.hand.push(card);
                    p.hand.sort();
                    self.count_draw(seat, 1);
                    out.events.push(Event::private(
                        seat,
                        "special_drawn",
                        json!({"round": self.round, "seat": seat, "card": card}),
                    ));
                    out.events.push(Event::public(
                        "special_drawn_count",
                        json!({"round": self.round, "seat": seat, "count": 1}),
                    ));
                }
                _ => {
                    out.events.push(Event::private(
                        seat,
                        "sayyida_draw",
                        json!({"round": self.round, "seat": seat, "cards": cards}),
                    ));
                    self.phase = Phase::SayyidaKeep {
                        seat,
                        cards,
                        drawers: queue.collect(),
                    };
                    return Ok(());
                }
            }
        }
        self.end_round(out)
    }

    /// Sayyida's choice: the kept card to her hand, the other(s) to the bottom at once (D22).
    fn keep(&mut self, seat: Seat, card: Card, out: &mut Out) -> Result<(), RuleError> {
        let Phase::SayyidaKeep { cards, drawers, .. } = &self.phase else {
            return Err(corrupt("not in Sayyida's step"));
        };
        let mut rest = cards.clone();
        let drawers = drawers.clone();
        let idx = rest
            .iter()
            .position(|c| *c == card)
            .ok_or_else(|| corrupt("card not drawn"))?;
        rest.remove(idx);
        self.special_deck.extend(rest.iter().copied());
        let p = self.player_mut(seat)?;
        p.hand.push(card);
        p.hand.sort();
        self.count_draw(seat, 1);
        out.events.push(Event::private(
            seat,
            "special_drawn",
            json!({"round": self.round, "seat": seat, "card": card, "returned": rest}),
        ));
        out.events.push(Event::public(
            "special_drawn_count",
            json!({"round": self.round, "seat": seat, "count": 1, "returned_to_deck": rest.len()}),
        ));
        self.draw_then_end(drawers, out)
    }

    /// Phase 6 (§5.8): income, cards back, the record, the next captain and round.
    fn end_round(&mut self, out: &mut Out) -> Result<(), RuleError> {
        let n = self.seats();
        let order = self.order();
        let res = self
            .resolution
            .clone()
            .ok_or_else(|| corrupt("no resolution"))?;
        let defended = res.outcome == ShipOutcome::Defended;
        // 1. End-of-round income: Zheng He, better_trade, Pierre (D25).
        for &p in &order {
            let play = self
                .player(p)?
                .play
                .ok_or_else(|| corrupt("missing card"))?;
            if defended && res.kinds.get(p) == Some(&Kind::Trade) {
                if self.character_of(p) == Some(Character::ZhengHe) {
                    let bonus = self.rules.character_bonus(Character::ZhengHe, n);
                    self.pay(p, bonus, Reason::CharacterBonus);
                }
                if play.stake >= 1 {
                    let bonus = self.equipment_bonus(p, EquipmentKind::BetterTrade);
                    self.pay(p, bonus, Reason::EquipmentBonus);
                }
            }
        }
        for &p in &order {
            if self.character_of(p) == Some(Character::PierreLePicard) {
                let bonus = self.rules.character_bonus(Character::PierreLePicard, n);
                self.pay(p, bonus, Reason::CharacterBonus);
            }
        }
        // The record of the round.
        let mut seats = Vec::with_capacity(n);
        for seat in 0..n {
            let p = self.player(seat)?;
            let play = p.play.ok_or_else(|| corrupt("missing card"))?;
            let start = self.round_start_coins.get(seat).copied().unwrap_or(0);
            seats.push(SeatSummary {
                seat,
                card: play.card,
                kind: res
                    .kinds
                    .get(seat)
                    .copied()
                    .ok_or_else(|| corrupt("kind"))?,
                stake: play.stake,
                choice: play.choice,
                success: res.success.get(seat).copied().unwrap_or(false),
                delta: p.coins - start,
                drew: res.drew.get(seat).copied().unwrap_or(0),
            });
        }
        let value = self.ship_value.ok_or_else(|| corrupt("no ship"))?;
        let summary = RoundSummary {
            round: self.round,
            captain: self.captain,
            ship_value: value,
            outcome: res.outcome,
            total_attack: res.total_attack,
            total_defense: res.total_defense,
            seats,
            ledger: std::mem::take(&mut self.round_ledger),
        };
        out.rounds.push(record(&summary));
        out.events.push(Event::public(
            "round_resolved",
            json!({
                "round": self.round,
                "ship_value": value,
                "outcome": res.outcome,
                "total_attack": res.total_attack,
                "total_defense": res.total_defense,
                "coins": self.players.iter().map(|p| p.coins).collect::<Vec<_>>(),
            }),
        ));
        self.history.push(summary);
        // 2.–3. Normal cards back to hand; special cards to the bottom, captain first (D17).
        for &p in &order {
            let pl = self.player_mut(p)?;
            if let Some(play) = pl.play.take() {
                if play.card.is_normal() {
                    pl.hand.push(play.card);
                    pl.hand.sort();
                } else {
                    self.special_deck.push(play.card);
                }
            }
        }
        self.resolution = None;
        // 4. The captain marker passes clockwise; the next round or the end (§6).
        self.captain = (self.captain + 1) % n.max(1);
        if self.round >= self.rounds_total {
            self.finish(out);
            return Ok(());
        }
        self.round += 1;
        self.start_round(out);
        Ok(())
    }
}

/// The typed history row of a round.
fn record(s: &RoundSummary) -> RoundRecord {
    RoundRecord {
        round: s.round,
        value: Some(s.ship_value),
        outcome: match s.outcome {
            ShipOutcome::Captured => "captured",
            ShipOutcome::Defended => "defended",
        }
        .to_owned(),
        total_a: Some(s.total_attack),
        total_b: Some(s.total_defense),
        lead_seat: Some(s.captain),
        subject: Some(format!("ship:{}", s.ship_value)),
        seats: s
            .seats
            .iter()
            .map(|x| SeatRecord {
                seat: x.seat,
                card: Some(x.card.id().to_owned()),
                kind: Some(x.kind.id().to_owned()),
                stake: Some(x.stake),
                choice: x.choice.map(|k| k.id().to_owned()),
                success: Some(x.success),
                delta: x.delta,
                drew: x.drew,
            })
            .collect(),
        ledger: s
            .ledger
            .iter()
            .map(|l| LedgerEntry {
                seat: l.seat,
                amount: l.amount,
                reason: l.reason.id().to_owned(),
            })
            .collect(),
    }
}
