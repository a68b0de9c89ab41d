//! Malacca (Loris Games 2013): the rules engine, as specified in
//! shared/rules/malacca.md, with both expansions (characters §7, equipment §8) and
//! every rule option of §1.10. How the engine plays is written up in
//! docs/rules/malacca.md.
//!
//! This file is the surface: the public types (options, actions, views, positions)
//! and the [`Game`] implementation. The rules live in `rules.rs`, the views in
//! `view.rs`, positions in `position.rs`, the component data in `data.rs`.

mod bot;
mod data;
mod position;
mod rules;
mod templates;
mod view;

#[cfg(test)]
mod bot_tests;
#[cfg(test)]
mod examples;
#[cfg(test)]
mod properties;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::rng::GameRng;
use super::{DataFile, Game, GameInfo, Progress, RuleError, Seat, Viewer};

pub use data::{MalaccaData, Rules};
pub use rules::State;
pub use templates::MalaccaTemplate;

/// The Malacca rules engine.
pub struct Malacca;

/// An action card id (rules §1.1).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Card {
    Attack,
    Defense,
    Trade,
    Attack2,
    Defense2,
    Trade2,
    WaitAttackDefense,
    WaitDefenseTrade,
}

impl Card {
    /// Every card id, normal cards first; this is also the stable order of hands.
    pub const ALL: [Card; 8] = [
        Card::Attack,
        Card::Defense,
        Card::Trade,
        Card::Attack2,
        Card::Defense2,
        Card::Trade2,
        Card::WaitAttackDefense,
        Card::WaitDefenseTrade,
    ];
    /// The three normal cards every player owns.
    pub const NORMAL: [Card; 3] = [Card::Attack, Card::Defense, Card::Trade];

    pub fn id(self) -> &'static str {
        match self {
            Card::Attack => "attack",
            Card::Defense => "defense",
            Card::Trade => "trade",
            Card::Attack2 => "attack2",
            Card::Defense2 => "defense2",
            Card::Trade2 => "trade2",
            Card::WaitAttackDefense => "wait_attack_defense",
            Card::WaitDefenseTrade => "wait_defense_trade",
        }
    }
    pub fn is_normal(self) -> bool {
        self.normal_kind().is_some()
    }
    /// The kind of a normal card (its id is the kind's id).
    pub fn normal_kind(self) -> Option<Kind> {
        match self {
            Card::Attack => Some(Kind::Attack),
            Card::Defense => Some(Kind::Defense),
            Card::Trade => Some(Kind::Trade),
            _ => None,
        }
    }
}

/// A resolved kind (rules §1.1, §5.1).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Attack,
    Defense,
    Trade,
}

impl Kind {
    pub const ALL: [Kind; 3] = [Kind::Attack, Kind::Defense, Kind::Trade];
    pub fn id(self) -> &'static str {
        match self {
            Kind::Attack => "attack",
            Kind::Defense => "defense",
            Kind::Trade => "trade",
        }
    }
}

/// A character id (rules §1.7).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Character {
    HenryMorgan,
    PierreLePicard,
    RodrigoOrgonez,
    BlackCaesar,
    ZhengHe,
    SayyidaAlHurra,
    Laskarina,
    IngridHammar,
}

impl Character {
    pub const ALL: [Character; 8] = [
        Character::HenryMorgan,
        Character::PierreLePicard,
        Character::RodrigoOrgonez,
        Character::BlackCaesar,
        Character::ZhengHe,
        Character::SayyidaAlHurra,
        Character::Laskarina,
        Character::IngridHammar,
    ];
    pub fn id(self) -> &'static str {
        match self {
            Character::HenryMorgan => "henry_morgan",
            Character::PierreLePicard => "pierre_le_picard",
            Character::RodrigoOrgonez => "rodrigo_orgonez",
            Character::BlackCaesar => "black_caesar",
            Character::ZhengHe => "zheng_he",
            Character::SayyidaAlHurra => "sayyida_al_hurra",
            Character::Laskarina => "laskarina",
            Character::IngridHammar => "ingrid_hammar",
        }
    }
}

/// An equipment kind (rules §1.8).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum EquipmentKind {
    BetterAttack,
    BetterDefense,
    BetterTrade,
}

impl EquipmentKind {
    pub const ALL: [EquipmentKind; 3] = [
        EquipmentKind::BetterAttack,
        EquipmentKind::BetterDefense,
        EquipmentKind::BetterTrade,
    ];
    pub fn id(self) -> &'static str {
        match self {
            EquipmentKind::BetterAttack => "better_attack",
            EquipmentKind::BetterDefense => "better_defense",
            EquipmentKind::BetterTrade => "better_trade",
        }
    }
}

/// Equipment cards per kind: owned by a player, or left in the supply.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EquipmentCounts {
    pub better_attack: u32,
    pub better_defense: u32,
    pub better_trade: u32,
}

impl EquipmentCounts {
    pub fn get(&self, kind: EquipmentKind) -> u32 {
        match kind {
            EquipmentKind::BetterAttack => self.better_attack,
            EquipmentKind::BetterDefense => self.better_defense,
            EquipmentKind::BetterTrade => self.better_trade,
        }
    }
    pub fn get_mut(&mut self, kind: EquipmentKind) -> &mut u32 {
        match kind {
            EquipmentKind::BetterAttack => &mut self.better_attack,
            EquipmentKind::BetterDefense => &mut self.better_defense,
            EquipmentKind::BetterTrade => &mut self.better_trade,
        }
    }
    pub fn total(&self) -> u32 {
        self.better_attack + self.better_defense + self.better_trade
    }
}

/// Who may buy equipment at the start of a round (rules §4.1, D26).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EquipmentPurchase {
    /// Every player, one at a time from the captain (Czech v2.0 rules).
    #[default]
    EachPlayer,
    /// Only the round's captain (Estonian rules).
    CaptainOnly,
}

/// How the betting step runs (rules §4.3).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stakes {
    /// One seat at a time from the captain; the card is face down, the stake public.
    #[default]
    OpenSequential,
    /// Variant: everyone submits card and stake at once, all sealed until the reveal.
    Sealed,
}

/// The rule options of a Malacca match, fixed at creation (rules §1.10).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct MalaccaOptions {
    /// Character expansion (rules §7). Default false.
    pub characters: bool,
    /// Equipment expansion (rules §8). Default false.
    pub equipment: bool,
    /// Who may buy equipment. Default `each_player`.
    pub equipment_purchase: EquipmentPurchase,
    /// Betting mode. Default `open_sequential`.
    pub stakes: Stakes,
    /// A ship deck to use instead of the shuffled provisional one: 1 to 50 cargo
    /// values, top first, used in that order without a shuffle; the match plays one
    /// round per ship. Default null (the 12 ships of data/malacca/ships.json, shuffled).
    pub ships: Option<Vec<i64>>,
    /// Characters given by seat instead of dealt at random (needs `characters`);
    /// one distinct character per seat. Default null (dealt from the seed).
    pub characters_by_seat: Option<Vec<Character>>,
}

/// A move (API: the `action` of a submitted move).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Betting: one card from the hand, face down, with a stake of 0..=coins.
    Play { card: Card, stake: i64 },
    /// Waiting card: the kind it counts as.
    Choose { kind: Kind },
    /// Equipment purchase: buy one card of this kind.
    Buy { kind: EquipmentKind },
    /// Equipment purchase: buy nothing this round.
    Pass {},
    /// Sayyida al Hurra: the drawn card she keeps.
    Keep { card: Card },
}

/// One seat as everyone sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct PlayerView {
    pub seat: Seat,
    /// Coins in hand. Open betting: already reduced by a placed stake. Sealed
    /// betting: other seats show their coins from the start of betting until the reveal.
    pub coins: i64,
    /// Special cards in hand; during betting, the count from the start of betting
    /// (except in the seat's own entry, which is live).
    pub special_count: usize,
    /// The stake placed this round (null before it is placed, and for other seats
    /// in sealed betting before the reveal).
    pub stake: Option<i64>,
    /// Whether the seat has placed its card this round.
    pub has_played: bool,
    /// The card played this round, once revealed (always null before the reveal).
    pub card: Option<Card>,
    /// The resolved kind of the revealed card (null for an undecided waiting card).
    pub kind: Option<Kind>,
    /// A waiting card's choice, once made.
    pub choice: Option<Kind>,
    pub character: Option<Character>,
    pub equipment: EquipmentCounts,
}

/// The viewer's own face-down card this round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct MyPlay {
    pub card: Card,
    pub stake: i64,
}

/// One line of the standings.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct RankEntry {
    pub seat: Seat,
    pub coins: i64,
    /// 1 is best; seats with equal coins share a rank.
    pub rank: u32,
}

/// Why a seat's coins changed (rules §5.10).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    /// A stake that came back (always followed by `stake_returned`).
    StakePlaced,
    StakeReturned,
    /// A stake that did not come back.
    StakeLost,
    /// An attacker's share of the players' lost stakes.
    LootShare,
    /// An attacker's share of the cargo (from the bank).
    Cargo,
    DefenseShare,
    TradeProfit,
    DeckScrubbing,
    CharacterBonus,
    EquipmentBonus,
    CaughtPenalty,
    EquipmentPurchase,
}

impl Reason {
    pub fn id(self) -> &'static str {
        match self {
            Reason::StakePlaced => "stake_placed",
            Reason::StakeReturned => "stake_returned",
            Reason::StakeLost => "stake_lost",
            Reason::LootShare => "loot_share",
            Reason::Cargo => "cargo",
            Reason::DefenseShare => "defense_share",
            Reason::TradeProfit => "trade_profit",
            Reason::DeckScrubbing => "deck_scrubbing",
            Reason::CharacterBonus => "character_bonus",
            Reason::EquipmentBonus => "equipment_bonus",
            Reason::CaughtPenalty => "caught_penalty",
            Reason::EquipmentPurchase => "equipment_purchase",
        }
    }
    /// Coins between players (these sum to zero over a round).
    pub fn is_transfer(self) -> bool {
        matches!(
            self,
            Reason::StakePlaced
                | Reason::StakeReturned
                | Reason::StakeLost
                | Reason::LootShare
                | Reason::DefenseShare
        )
    }
    /// Coins paid by the bank.
    pub fn is_from_bank(self) -> bool {
        matches!(
            self,
            Reason::Cargo
                | Reason::TradeProfit
                | Reason::DeckScrubbing
                | Reason::CharacterBonus
                | Reason::EquipmentBonus
        )
    }
}

/// One coin change with its reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LedgerItem {
    pub seat: Seat,
    pub amount: i64,
    pub reason: Reason,
}

/// The ship's fate (rules §5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShipOutcome {
    Captured,
    Defended,
}

/// One seat's part in a resolved round.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatSummary {
    pub seat: Seat,
    /// The card as revealed.
    pub card: Card,
    /// The resolved kind.
    pub kind: Kind,
    pub stake: i64,
    /// The waiting choice, for a waiting card.
    pub choice: Option<Kind>,
    /// Attack: captured; defense: defended with at least one attacker; trade: defended.
    pub success: bool,
    /// Net coin change this round, equipment purchases and end-of-round income included.
    pub delta: i64,
    /// Special cards gained this round (how many, never which).
    pub drew: u32,
}

/// A resolved round, all public.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundSummary {
    pub round: u32,
    pub captain: Seat,
    pub ship_value: i64,
    pub outcome: ShipOutcome,
    pub total_attack: i64,
    pub total_defense: i64,
    pub seats: Vec<SeatSummary>,
    /// Every coin change of the round with its reason; per seat the amounts sum to `delta`.
    pub ledger: Vec<LedgerItem>,
}

/// The round's result while it is still being settled (Sayyida's choice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct CurrentResult {
    pub outcome: ShipOutcome,
    pub total_attack: i64,
    pub total_defense: i64,
}

/// What one viewer may see of a match (API contract item 5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ToSchema)]
pub struct MalaccaView {
    /// The viewer's own seat; null for a spectator.
    pub seat: Option<Seat>,
    pub round: u32,
    pub rounds_total: u32,
    pub captain: Seat,
    /// The current step: `equipment_purchase`, `bet`, `waiting_choice`,
    /// `sayyida_keep` or `finished`.
    pub phase: String,
    pub stakes: Stakes,
    pub equipment_purchase: EquipmentPurchase,
    /// The current ship's cargo; null before it is revealed (equipment purchase).
    pub ship_value: Option<i64>,
    /// Every ship revealed so far, in order.
    pub ships_revealed: Vec<i64>,
    /// Ships still in the deck (their order is hidden).
    pub ships_left: usize,
    pub special_deck_size: usize,
    pub players: Vec<PlayerView>,
    pub equipment_supply: EquipmentCounts,
    /// The viewer's own hand (normal cards included); null for a spectator.
    pub hand: Option<Vec<Card>>,
    /// The viewer's own face-down card this round.
    pub my_play: Option<MyPlay>,
    /// Sayyida al Hurra's two drawn cards, only in her own view during her choice.
    pub pending_keep: Option<Vec<Card>>,
    /// The current round's result once known and before the round ends.
    pub result: Option<CurrentResult>,
    /// Seats ranked by the coins shown in this view.
    pub ranking: Vec<RankEntry>,
    /// The previous resolved round.
    pub last_round: Option<RoundSummary>,
    /// Every resolved round, oldest first: the public record a player at the table
    /// remembers (rules §2.2), the same rounds `/rounds` lists.
    pub history: Vec<RoundSummary>,
}

/// Equipment counts in a position (checked to be non-negative).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct PositionEquipment {
    pub better_attack: i64,
    pub better_defense: i64,
    pub better_trade: i64,
}

/// One player in a position.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PositionPlayer {
    pub coins: i64,
    /// Special cards in hand (the three normal cards are always there).
    #[serde(default)]
    pub specials: Vec<Card>,
    /// Required with `characters: true`, absent or null otherwise.
    #[serde(default)]
    pub character: Option<Character>,
    /// Owned equipment; non-zero only with `equipment: true`. Default none.
    #[serde(default)]
    pub equipment: Option<PositionEquipment>,
}

/// A situation at the start of a round (API `options.position`); no setup step runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MalaccaPosition {
    /// The number of the round that starts (≥ 1).
    pub round: u32,
    pub captain: Seat,
    /// The ship deck, top first: 1 to 50 values; the match plays one round per ship.
    pub ships: Vec<i64>,
    /// The special deck, top first. Cards listed nowhere are out of the game.
    #[serde(default)]
    pub special_deck: Vec<Card>,
    pub players: Vec<PositionPlayer>,
    /// The equipment supply; default: the box (4 per kind) minus what players own.
    #[serde(default)]
    pub equipment_supply: Option<PositionEquipment>,
}

impl Game for Malacca {
    type Data = MalaccaData;
    type Options = MalaccaOptions;
    type Position = MalaccaPosition;
    type State = State;
    type Action = Action;
    type View = MalaccaView;
    type Template = MalaccaTemplate;

    fn prompt_kinds() -> &'static [&'static str] {
        &[
            "equipment_purchase",
            "bet",
            "waiting_choice",
            "sayyida_keep",
        ]
    }

    fn example_action() -> Action {
        Action::Play {
            card: Card::Trade,
            stake: 1,
        }
    }

    fn event_kinds() -> &'static [&'static str] {
        &[
            "card_placed",
            "cards_revealed",
            "equipment_bought",
            "equipment_passed",
            "game_finished",
            "round_resolved",
            "sayyida_draw",
            "ship_revealed",
            "special_drawn",
            "special_drawn_count",
            "stake_placed",
            "waiting_choice",
        ]
    }

    fn info() -> GameInfo {
        GameInfo {
            id: "malacca",
            name: "Malacca",
            seats: (2..=8).collect(),
            options: serde_json::to_value(MalaccaOptions::default()).unwrap_or(Value::Null),
            summary: "Pirates and merchants: each round a ship sails past and every player \
                      secretly plays attack, defense or trade with a visible stake.",
        }
    }

    fn data_files() -> &'static [DataFile] {
        &[
            DataFile {
                name: "ships.json",
                embedded: include_str!("../../../data/malacca/ships.json"),
            },
            DataFile {
                name: "components.json",
                embedded: include_str!("../../../data/malacca/components.json"),
            },
        ]
    }

    fn load_data(files: &[(&str, &str)]) -> Result<MalaccaData, String> {
        data::load(files)
    }

    fn setup(
        data: &MalaccaData,
        seats: usize,
        options: &MalaccaOptions,
        rng: &mut GameRng,
    ) -> Result<State, RuleError> {
        rules::setup(data, seats, options, rng)
    }

    fn from_position(
        data: &MalaccaData,
        seats: usize,
        options: &MalaccaOptions,
        position: MalaccaPosition,
    ) -> Result<State, RuleError> {
        position::from_position(data, seats, options, position)
    }

    fn attach_data(state: &mut State, data: &MalaccaData) {
        if state.rules == data::Rules::default() {
            state.rules = data.rules.clone();
        }
    }

    fn published_state(state: &State) -> Result<Value, serde_json::Error> {
        let mut v = serde_json::to_value(state)?;
        if let Some(map) = v.as_object_mut() {
            map.insert("rules".into(), serde_json::to_value(&state.rules)?);
        }
        Ok(v)
    }

    fn progress(state: &State) -> Progress {
        state.progress()
    }

    fn legal(state: &State, seat: Seat) -> Option<Vec<Value>> {
        state.legal(seat)
    }

    fn validate(state: &State, seat: Seat, action: &Action) -> Result<(), RuleError> {
        state.validate(seat, action)
    }

    fn apply(
        state: &State,
        seat: Seat,
        action: &Action,
        _rng: &mut GameRng,
    ) -> Result<super::Transition<State>, RuleError> {
        state.apply(seat, action)
    }

    fn view(state: &State, viewer: Viewer) -> MalaccaView {
        view::view(state, viewer)
    }

    fn public_part(state: &State, _seat: Seat, action: &Action) -> Option<Value> {
        match action {
            Action::Play { stake, .. } => Some(match state.options.stakes {
                Stakes::OpenSequential => json!({"type": "play", "stake": stake}),
                Stakes::Sealed => json!({"type": "play"}),
            }),
            Action::Keep { .. } => Some(json!({"type": "keep"})),
            Action::Choose { .. } | Action::Buy { .. } | Action::Pass {} => None,
        }
    }

    fn null_move(state: &State, seat: Seat) -> Option<Action> {
        state.null_move(seat)
    }

    fn variant(_seats: usize, options: &MalaccaOptions) -> String {
        let mut label = match options.stakes {
            Stakes::OpenSequential => "open_sequential",
            Stakes::Sealed => "sealed",
        }
        .to_owned();
        if options.characters {
            label.push_str("+characters");
        }
        if options.equipment {
            label.push_str("+equipment");
        }
        label
    }

    fn roles(state: &State) -> Vec<Option<String>> {
        state
            .players
            .iter()
            .map(|p| p.character.map(|c| c.id().to_owned()))
            .collect()
    }

    /// Coins, a stake still on the table counted as its owner's (rules §6: coins
    /// decide). Before resolution a stake lies apart from the coins; from then on
    /// it is settled into them.
    fn standings(state: &State) -> Vec<i64> {
        let unsettled = state.resolution.is_none();
        state
            .players
            .iter()
            .map(|p| {
                let on_table = p.play.filter(|_| unsettled).map_or(0, |play| play.stake);
                p.coins.saturating_add(on_table)
            })
            .collect()
    }

    fn bot_kinds() -> &'static [&'static str] {
        &[bot::HEURISTIC]
    }

    fn bot_move(
        kind: &str,
        view: &MalaccaView,
        legal: &[Value],
        rng: &mut GameRng,
    ) -> Option<Action> {
        (kind == bot::HEURISTIC)
            .then(|| bot::decide(view, legal, rng))
            .flatten()
    }

    /// The card Sayyida keeps is hers alone until the match ends (rules §2.3).
    fn private_until_end(_state: &State, _seat: Seat, action: &Action) -> bool {
        matches!(action, Action::Keep { .. })
    }
}
