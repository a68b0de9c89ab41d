//! The state and its transitions: setup (rules §4), the sealed choice (§5 S1),
//! the reveal, pass coins and taxes (S2–S3, §6), the play order (S4), the turns
//! (S5a–S5e), the end of a round (S6), the blocked check (S0) and the end of
//! the game with its final scoring (§7.5, §7.6, §10).

use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::board::{BoardCell, Candidate, Coord, DecidingRule, Layout, decide, select_top};
use super::cards::{Card, CardKind, CellType, Goods, KontorData, Params, SpecialKind, Team};
use crate::games::rng::GameRng;
use crate::games::{Event, LedgerEntry, RoundRecord, RuleError, Seat, SeatRecord};

/// The three variants of rules §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Variant {
    /// 2 seats, 6×6, no ship, every marker counts.
    Basic,
    /// 2 seats, 7×7, ship, top-5 end scoring.
    Duel,
    /// 4 seats (2 vs 2), 8×8, ship, top-5 end scoring, special cards.
    Team,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Basic => "basic",
            Variant::Duel => "duel",
            Variant::Team => "team",
        }
    }
    /// The seat count the variant is played with.
    pub fn seats(self) -> usize {
        match self {
            Variant::Basic | Variant::Duel => 2,
            Variant::Team => 4,
        }
    }
    pub fn has_ship(self) -> bool {
        self != Variant::Basic
    }
    pub fn top_scoring(self) -> bool {
        self != Variant::Basic
    }
    pub fn has_specials(self) -> bool {
        self == Variant::Team
    }
    pub fn board_size(self, p: &Params) -> i32 {
        match self {
            Variant::Basic => p.board_size.basic,
            Variant::Duel => p.board_size.duel,
            Variant::Team => p.board_size.team,
        }
    }
}

/// What happens after a round in which every seat passed (rules §2, decision 5).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AllPassPolicy {
    /// If every seat passed, nobody may pass in the next round (unless it has no
    /// selectable card).
    #[default]
    NoRepeat,
    /// No restriction.
    Allowed,
}

/// Picks the variant from the options and the seat count: without `variant`,
/// 2 seats play `basic` and 4 play `team` (issue 9).
pub fn resolve_variant(seats: usize, variant: Option<Variant>) -> Result<Variant, RuleError> {
    if seats != 2 && seats != 4 {
        return Err(RuleError::options(format!(
            "Kontor is played by 2 seats (basic, duel) or 4 seats (team), not {seats} (rules §2)."
        )));
    }
    let v = variant.unwrap_or(if seats == 4 {
        Variant::Team
    } else {
        Variant::Basic
    });
    if v.seats() != seats {
        return Err(RuleError::options(format!(
            "The variant {} is played by {} seats, not {seats} (rules §2).",
            v.name(),
            v.seats()
        )));
    }
    Ok(v)
}

/// The team of a seat: 2 seats: 0 Red, 1 Black; 4 seats: 0 and 1 Red, 2 and 3
/// Black (rules §2, 0-based).
pub fn team_of(seat_count: usize, seat: Seat) -> Team {
    if seat < seat_count / 2 {
        Team::Red
    } else {
        Team::Black
    }
}

/// The tax pairs (rules §2): the seats opposite each other.
pub fn tax_pairs(seat_count: usize) -> Vec<(Seat, Seat)> {
    if seat_count == 4 {
        vec![(0, 2), (1, 3)]
    } else {
        vec![(0, 1)]
    }
}

/// A sealed S1 choice.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Choice {
    /// A card from the hand, by id.
    Card {
        card: String,
    },
    Pass,
}

/// One seat's private and public holdings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub seat: Seat,
    pub team: Team,
    /// The hand (private). A sealed choice stays in the hand until the reveal.
    pub hand: Vec<Card>,
    /// The seat's own face-up harbour deck, top first.
    pub harbour_deck: Vec<Card>,
    pub money: u32,
    /// The sealed S1 choice until the reveal; shown to nobody else.
    pub choice: Option<Choice>,
}

/// Where the game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// S1: every seat chooses a card or passes, sealed.
    Choose,
    /// S5: the acting seats place their revealed cards one after another.
    Place,
    Finished,
}

/// The turns of a round (S4–S5).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// The acting seats in play order.
    pub order: Vec<Seat>,
    /// Index into `order` of the seat acting now.
    pub next: usize,
    /// Per seat: the revealed card still to be placed.
    pub cards: Vec<Option<Card>>,
}

/// One change of a seat's money.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct MoneyChange {
    pub seat: Seat,
    pub amount: i64,
    /// `pass_coin`, `tax`, `tax_relief` (both sent back) or `water_grant`.
    pub reason: String,
}

/// What became of a seat's revealed card.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeatResult {
    /// Not part of the round (a position that starts at S5 without this seat).
    #[default]
    Idle,
    Passed,
    /// Could not pay the tax; the card went back to the hand.
    SentBack,
    /// Still to act.
    Waiting,
    Placed,
    /// The card had no legal placement at the seat's turn and went back.
    NoPlacement,
    /// The board filled before the seat's turn; the card went back.
    ReturnedAtEnd,
}

/// A ship removal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct RemovalLog {
    pub cell: Coord,
    pub card: String,
    pub to_seat: Seat,
}

/// One placement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlacementLog {
    pub cell: Coord,
    /// What the card counts as on the board.
    #[serde(rename = "as")]
    pub played_as: CellType,
    pub ship_from: Option<Coord>,
    pub ship_to: Option<Coord>,
    pub removed: Option<RemovalLog>,
    /// The card a flood or bridge covered.
    pub covered: Option<String>,
}

/// One seat's part in a round.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SeatLog {
    pub seat: Seat,
    /// The revealed card (null for a pass).
    pub card: Option<Card>,
    pub passed: bool,
    pub owed_tax: bool,
    pub tax_paid: u32,
    pub sent_back: bool,
    pub result: SeatResult,
    pub placement: Option<PlacementLog>,
    pub drew: u32,
    pub money_delta: i64,
}

/// Marker points (or money) per team.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct TeamTotals {
    pub red: u32,
    pub black: u32,
}

impl TeamTotals {
    pub fn get(&self, t: Team) -> u32 {
        match t {
            Team::Red => self.red,
            Team::Black => self.black,
        }
    }
    pub fn add(&mut self, t: Team, v: u32) {
        match t {
            Team::Red => self.red = self.red.saturating_add(v),
            Team::Black => self.black = self.black.saturating_add(v),
        }
    }
}

/// The public log of the round in progress (filled from the reveal on).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct RoundLog {
    pub round: u32,
    pub seats: Vec<SeatLog>,
    /// The acting seats in play order (S4).
    pub order: Vec<Seat>,
    pub ledger: Vec<MoneyChange>,
    /// Indices into `scored_regions` of the regions scored this round.
    pub scored: Vec<usize>,
    /// Marker points won this round.
    pub points: TeamTotals,
    pub all_passed: bool,
    /// The board filled during this round.
    pub ended_game: bool,
}

impl RoundLog {
    pub fn new(round: u32, seats: usize) -> Self {
        Self {
            round,
            seats: (0..seats)
                .map(|seat| SeatLog {
                    seat,
                    ..SeatLog::default()
                })
                .collect(),
            ..Self::default()
        }
    }
    fn seat(&mut self, seat: Seat) -> Option<&mut SeatLog> {
        self.seats.get_mut(seat)
    }
    fn money(&mut self, seat: Seat, amount: i64, reason: &str) {
        self.ledger.push(MoneyChange {
            seat,
            amount,
            reason: reason.into(),
        });
        if let Some(s) = self.seat(seat) {
            s.money_delta += amount;
        }
    }
}

/// A scored (closed, frozen) region with its majority breakdown (rules §7).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct ScoredRegion {
    pub index: usize,
    /// The round it closed in (0 for regions closed in a loaded position).
    pub round: u32,
    pub cells: Vec<Coord>,
    /// Harbour-type cards.
    pub size: u32,
    /// Distance to the centre (rules §3.13).
    pub distance: i32,
    /// Red's and Black's warehouses when it closed.
    pub red: Goods,
    pub black: Goods,
    /// Red minus Black, for wine, spice and tea.
    pub diff: [i64; 3],
    pub rule: DecidingRule,
    pub winner: Option<Team>,
    /// Customs cards played as harbour in the region.
    pub customs: u32,
    /// The marker's value (1 + customs), 0 when nobody won.
    pub value: u32,
}

/// How the game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    BoardFull,
    Blocked,
}

/// The final scoring (rules §7.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct FinalResult {
    pub reason: EndReason,
    /// Indices of the scored regions that count: all of them in `basic`, the
    /// top-5 selection in `duel` and `team`.
    pub counted: Vec<usize>,
    pub points: TeamTotals,
    /// Team money (the sum of its seats' coins).
    pub money: TeamTotals,
    /// Null for a draw.
    pub winner: Option<Team>,
    /// `points`, `money` or `draw`.
    pub decided_by: String,
}

/// The whole match state (published as `final_state` when the match ends).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub variant: Variant,
    pub all_pass_policy: AllPassPolicy,
    pub params: Params,
    /// N of the N×N final board.
    pub board_size: i32,
    /// The round being played, from 1.
    pub round: u32,
    pub phase: Phase,
    pub players: Vec<Player>,
    /// The shared face-up water deck, top first.
    pub water_deck: Vec<Card>,
    pub bank: u32,
    /// Occupied cells in reading order.
    pub board: Vec<BoardCell>,
    pub fixed_x: Option<[i32; 2]>,
    pub fixed_y: Option<[i32; 2]>,
    /// The ship's cell (duel and team).
    pub ship: Option<Coord>,
    pub scored_regions: Vec<ScoredRegion>,
    /// The turns of the round, during S5.
    pub turn: Option<Turn>,
    pub last_round_all_passed: bool,
    /// Placements so far (the sequence number of the latest).
    pub placements: u32,
    /// Cards out of play from the start, unseen (unused special cards).
    pub set_aside: Vec<Card>,
    /// Covered cards whose cell the ship later emptied (out of play, public).
    pub discarded: Vec<Card>,
    pub round_log: RoundLog,
    pub previous_round: Option<RoundLog>,
    pub result: Option<FinalResult>,
}

/// What a transition produced besides the state.
#[derive(Debug, Default)]
pub struct Out {
    pub events: Vec<Event>,
    pub rounds: Vec<RoundRecord>,
    pub reveal: bool,
}

/// A validated placement (S5a–S5b).
#[derive(Debug, Clone)]
pub struct Plan {
    pub card: Card,
    pub cell: Coord,
    pub ty: CellType,
    pub ship_to: Option<Coord>,
    /// The removed cell and the seat that receives its card.
    pub remove: Option<(Coord, Seat)>,
}

/// The starting cross, in the dealing order of rules §4.1.
pub const CROSS: [(i32, i32); 8] = [
    (-2, 0),
    (-1, 0),
    (1, 0),
    (2, 0),
    (0, -2),
    (0, -1),
    (0, 1),
    (0, 2),
];

/// The ways a card can be played: `(as, type)`. Only a customs is declared.
pub fn type_options(card: &Card) -> Vec<(Option<CellType>, CellType)> {
    match card.fixed_type() {
        Some(t) => vec![(None, t)],
        None => vec![
            (Some(CellType::Water), CellType::Water),
            (Some(CellType::Harbour), CellType::Harbour),
        ],
    }
}

fn draw_top(deck: &mut Vec<Card>) -> Option<Card> {
    if deck.is_empty() {
        None
    } else {
        Some(deck.remove(0))
    }
}

fn short(card: &Card) -> serde_json::Value {
    json!({"id": card.id, "number": card.number, "kind": card.class_name()})
}

/// A new match (rules §4). Shuffles in this order: the water cards, then the
/// harbour cards of seat 0 (or team Red), then of seat 1 (or team Black), then
/// the special cards.
pub fn setup(
    data: &KontorData,
    seats: usize,
    variant: Variant,
    policy: AllPassPolicy,
    rng: &mut GameRng,
) -> Result<State, RuleError> {
    let p = &data.params;
    let lack = |what: &str| RuleError::options(format!("The component data lacks {what}."));
    let centre = data
        .cards
        .iter()
        .find(|c| c.kind == CardKind::Centre)
        .cloned()
        .ok_or_else(|| lack("the harbour centre"))?;
    let mut water: Vec<Card> = data
        .cards
        .iter()
        .filter(|c| c.kind == CardKind::Water)
        .cloned()
        .collect();
    rng.shuffle(&mut water);
    let mut board = vec![BoardCell {
        x: 0,
        y: 0,
        card: centre,
        cell_type: CellType::Water,
        played_by: None,
        placed: 0,
        scored_region: None,
        covered: Vec::new(),
    }];
    for (x, y) in CROSS {
        let card = draw_top(&mut water).ok_or_else(|| lack("water cards for the cross"))?;
        board.push(BoardCell {
            x,
            y,
            card,
            cell_type: CellType::Water,
            played_by: None,
            placed: 0,
            scored_region: None,
            covered: Vec::new(),
        });
    }
    board.sort_by_key(|c| c.coord());
    let mut players: Vec<Player> = (0..seats)
        .map(|seat| Player {
            seat,
            team: team_of(seats, seat),
            hand: Vec::new(),
            harbour_deck: Vec::new(),
            money: p.start_money,
            choice: None,
        })
        .collect();
    for pl in players.iter_mut() {
        for _ in 0..p.hand_water {
            if let Some(c) = draw_top(&mut water) {
                pl.hand.push(c);
            }
        }
    }
    for team in [Team::Red, Team::Black] {
        let mut cards: Vec<Card> = data
            .cards
            .iter()
            .filter(|c| c.kind == CardKind::Harbour && c.colour == Some(team))
            .cloned()
            .collect();
        rng.shuffle(&mut cards);
        let team_seats: Vec<Seat> = (0..seats).filter(|s| team_of(seats, *s) == team).collect();
        let halves: Vec<Vec<Card>> = if team_seats.len() == 2 {
            let second = cards.split_off(cards.len().div_ceil(2));
            vec![cards, second]
        } else {
            vec![cards]
        };
        for (seat, mut deck) in team_seats.into_iter().zip(halves) {
            let Some(pl) = players.get_mut(seat) else {
                continue;
            };
            for _ in 0..p.hand_harbour {
                if let Some(c) = draw_top(&mut deck) {
                    pl.hand.push(c);
                }
            }
            pl.harbour_deck = deck;
        }
    }
    let mut specials: Vec<Card> = data
        .cards
        .iter()
        .filter(|c| c.kind == CardKind::Special)
        .cloned()
        .collect();
    if variant.has_specials() {
        rng.shuffle(&mut specials);
        for pl in players.iter_mut() {
            if let Some(c) = draw_top(&mut specials) {
                pl.hand.push(c);
            }
        }
    }
    let bank = p
        .coins
        .checked_sub(p.start_money.saturating_mul(seats as u32))
        .ok_or_else(|| lack("enough coins"))?;
    let mut state = State {
        variant,
        all_pass_policy: policy,
        params: p.clone(),
        board_size: variant.board_size(p),
        round: 1,
        phase: Phase::Choose,
        players,
        water_deck: water,
        bank,
        board,
        fixed_x: None,
        fixed_y: None,
        ship: variant.has_ship().then_some(Coord::new(0, 0)),
        scored_regions: Vec::new(),
        turn: None,
        last_round_all_passed: false,
        placements: 0,
        set_aside: specials,
        discarded: Vec::new(),
        round_log: RoundLog::new(1, seats),
        previous_round: None,
        result: None,
    };
    state.start_round(&mut Out::default());
    Ok(state)
}

impl State {
    pub fn seat_count(&self) -> usize {
        self.players.len()
    }

    pub fn team(&self, seat: Seat) -> Team {
        team_of(self.seat_count(), seat)
    }

    pub fn layout(&self) -> Layout<'_> {
        Layout::new(self.board_size, self.fixed_x, self.fixed_y, &self.board)
    }

    /// The seat acting now in S5, with its revealed card.
    pub fn current(&self) -> Option<(Seat, &Card)> {
        if self.phase != Phase::Place {
            return None;
        }
        let turn = self.turn.as_ref()?;
        let seat = *turn.order.get(turn.next)?;
        let card = turn.cards.get(seat)?.as_ref()?;
        Some((seat, card))
    }

    /// Whether `card` has a legal placement on the board as it stands (rules §5
    /// S1, decision 9; the ship is where it is).
    pub fn selectable(&self, seat: Seat, card: &Card) -> bool {
        self.selectable_on(&self.layout(), seat, card)
    }

    fn selectable_on(&self, layout: &Layout<'_>, seat: Seat, card: &Card) -> bool {
        let team = self.team(seat);
        type_options(card)
            .iter()
            .any(|(_, ty)| layout.has_target(card, *ty, team, self.ship))
    }

    pub fn has_selectable(&self, seat: Seat) -> bool {
        let layout = self.layout();
        self.players
            .get(seat)
            .is_some_and(|p| p.hand.iter().any(|c| self.selectable_on(&layout, seat, c)))
    }

    /// Whether `seat` may pass now (rules §5 S1, decision 5).
    pub fn pass_allowed(&self, seat: Seat) -> bool {
        self.all_pass_policy == AllPassPolicy::Allowed
            || !self.last_round_all_passed
            || !self.has_selectable(seat)
    }

    /// The seats that still owe a move in this step.
    pub fn awaiting(&self) -> Vec<Seat> {
        match self.phase {
            Phase::Choose => self
                .players
                .iter()
                .filter(|p| p.choice.is_none())
                .map(|p| p.seat)
                .collect(),
            Phase::Place => self.current().map(|(s, _)| vec![s]).unwrap_or_default(),
            Phase::Finished => Vec::new(),
        }
    }

    /// Marker points won so far, per team.
    pub fn markers(&self) -> TeamTotals {
        let mut t = TeamTotals::default();
        for r in &self.scored_regions {
            if let Some(w) = r.winner {
                t.add(w, r.value);
            }
        }
        t
    }

    fn gain_from_bank(&mut self, seat: Seat, reason: &str) -> bool {
        if self.bank == 0 {
            return false;
        }
        let Some(p) = self.players.get_mut(seat) else {
            return false;
        };
        p.money += 1;
        self.bank -= 1;
        self.round_log.money(seat, 1, reason);
        true
    }

    fn pay_to_bank(&mut self, seat: Seat, reason: &str) -> bool {
        let Some(p) = self.players.get_mut(seat) else {
            return false;
        };
        if p.money == 0 {
            return false;
        }
        p.money -= 1;
        self.bank += 1;
        self.round_log.money(seat, -1, reason);
        true
    }

    fn return_to_hand(&mut self, seat: Seat, card: Card) {
        if let Some(p) = self.players.get_mut(seat) {
            p.hand.push(card);
        }
    }

    /// S0: the blocked check, then S1 of the current round.
    pub fn start_round(&mut self, out: &mut Out) {
        if self.blocked() {
            self.finish(EndReason::Blocked, out);
            return;
        }
        self.phase = Phase::Choose;
        self.round_log = RoundLog::new(self.round, self.seat_count());
    }

    /// S0 after a round: the blocked check, then S1 of the next round.
    fn next_round(&mut self, out: &mut Out) {
        if self.blocked() {
            self.finish(EndReason::Blocked, out);
            return;
        }
        self.round = self.round.saturating_add(1);
        self.start_round(out);
    }

    /// No seat has a selectable card (rules §5 S0, decision 17).
    fn blocked(&self) -> bool {
        !(0..self.seat_count()).any(|s| self.has_selectable(s))
    }

    /// Stores a sealed S1 choice; resolves the step when it is the last one.
    /// Answers whether the step completed.
    pub fn submit(&mut self, seat: Seat, choice: Choice, out: &mut Out) -> Result<bool, RuleError> {
        let p = self
            .players
            .get_mut(seat)
            .ok_or_else(|| RuleError::illegal(format!("There is no seat {seat}.")))?;
        p.choice = Some(choice);
        if self.players.iter().all(|p| p.choice.is_some()) {
            self.reveal(out)?;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    /// S2–S4: reveal, pass coins, taxes, play order; then the turns.
    fn reveal(&mut self, out: &mut Out) -> Result<(), RuleError> {
        out.reveal = true;
        let n = self.seat_count();
        self.round_log = RoundLog::new(self.round, n);
        let mut revealed: Vec<Option<Card>> = vec![None; n];
        for (seat, slot) in revealed.iter_mut().enumerate() {
            let Some(p) = self.players.get_mut(seat) else {
                continue;
            };
            if let Some(Choice::Card { card }) = p.choice.take() {
                let idx = p.hand.iter().position(|c| c.id == card).ok_or_else(|| {
                    RuleError::illegal(format!(
                        "Seat {seat} chose {card}, which is not in its hand."
                    ))
                })?;
                *slot = Some(p.hand.remove(idx));
            }
        }
        for p in self.players.iter_mut() {
            p.choice = None;
        }
        out.events.push(Event::public(
            "cards_revealed",
            json!({
                "round": self.round,
                "choices": revealed.iter().enumerate().map(|(seat, c)| json!({
                    "seat": seat,
                    "pass": c.is_none(),
                    "card": c,
                })).collect::<Vec<_>>(),
            }),
        ));
        for (seat, c) in revealed.iter().enumerate() {
            if let Some(log) = self.round_log.seat(seat) {
                log.card = c.clone();
                log.passed = c.is_none();
                log.result = if c.is_none() {
                    SeatResult::Passed
                } else {
                    SeatResult::Waiting
                };
            }
        }
        // S3: pass coins in seat order (rules §6.1).
        for seat in 0..n {
            if revealed.get(seat).is_some_and(|c| c.is_none()) {
                let paid = self.gain_from_bank(seat, "pass_coin");
                out.events.push(Event::public(
                    "pass_coin",
                    json!({"seat": seat, "coin": paid}),
                ));
            }
        }
        // S3: taxes per pair (rules §6.2–6.3).
        for (p, q) in tax_pairs(n) {
            self.settle_pair(p, q, &mut revealed, out);
        }
        // S4: play order.
        let mut order: Vec<Seat> = (0..n)
            .filter(|s| revealed.get(*s).is_some_and(|c| c.is_some()))
            .collect();
        let number = |s: &Seat| {
            revealed
                .get(*s)
                .and_then(|c| c.as_ref())
                .map(Card::order_number)
                .unwrap_or(0)
        };
        order.sort_by(|a, b| number(b).cmp(&number(a)).then(a.cmp(b)));
        out.events.push(Event::public(
            "play_order",
            json!({
                "order": order.iter().map(|s| json!({"seat": s, "number": number(s)})).collect::<Vec<_>>(),
            }),
        ));
        self.round_log.order = order.clone();
        self.turn = Some(Turn {
            order,
            next: 0,
            cards: revealed,
        });
        self.advance(out);
        Ok(())
    }

    fn settle_pair(&mut self, p: Seat, q: Seat, revealed: &mut [Option<Card>], out: &mut Out) {
        let plays = |s: Seat, r: &[Option<Card>]| r.get(s).is_some_and(|c| c.is_some());
        let coin =
            |s: Seat, r: &[Option<Card>]| r.get(s).and_then(|c| c.as_ref()).is_some_and(|c| c.coin);
        let owes_p = plays(p, revealed) && coin(q, revealed);
        let owes_q = plays(q, revealed) && coin(p, revealed);
        if !owes_p && !owes_q {
            return;
        }
        let money = |s: Seat, st: &State| st.players.get(s).map(|x| x.money).unwrap_or(0);
        let mut owed = Vec::new();
        let mut paid = Vec::new();
        let mut sent_back = Vec::new();
        let mut relief = Vec::new();
        for (s, o) in [(p, owes_p), (q, owes_q)] {
            if o {
                owed.push(s);
                if let Some(l) = self.round_log.seat(s) {
                    l.owed_tax = true;
                }
            }
        }
        match (owes_p, owes_q) {
            (true, true) => match (money(p, self) >= 1, money(q, self) >= 1) {
                (true, true) => {
                    paid.extend([p, q]);
                }
                (false, true) => sent_back.push(p),
                (true, false) => sent_back.push(q),
                (false, false) => {
                    sent_back.extend([p, q]);
                    relief.extend([p, q]);
                }
            },
            _ => {
                let s = if owes_p { p } else { q };
                if money(s, self) >= 1 {
                    paid.push(s);
                } else {
                    sent_back.push(s);
                }
            }
        }
        let mut paid_done = Vec::new();
        for s in paid {
            if self.pay_to_bank(s, "tax") {
                paid_done.push(s);
                if let Some(l) = self.round_log.seat(s) {
                    l.tax_paid += 1;
                }
            }
        }
        for s in &sent_back {
            if let Some(card) = revealed.get_mut(*s).and_then(Option::take) {
                self.return_to_hand(*s, card);
            }
            if let Some(l) = self.round_log.seat(*s) {
                l.sent_back = true;
                l.result = SeatResult::SentBack;
            }
        }
        let mut relief_done = Vec::new();
        for s in relief {
            if self.gain_from_bank(s, "tax_relief") {
                relief_done.push(s);
            }
        }
        out.events.push(Event::public(
            "tax",
            json!({
                "pair": [p, q],
                "owed": owed,
                "paid": paid_done,
                "sent_back": sent_back,
                "relief_coin": relief_done,
            }),
        ));
    }

    /// Continues the turns of a round (a position that starts at S5).
    pub fn resume_turns(&mut self, out: &mut Out) {
        self.advance(out);
    }

    /// Moves to the next acting seat whose card still has a legal placement;
    /// returns unplaceable cards (decision 8). Ends the round when none is left.
    fn advance(&mut self, out: &mut Out) {
        while let Some(&seat) = self.turn.as_ref().and_then(|t| t.order.get(t.next)) {
            let Some(turn) = &self.turn else { break };
            let card = turn.cards.get(seat).cloned().flatten();
            if let Some(card) = card {
                if self.selectable(seat, &card) {
                    self.phase = Phase::Place;
                    return;
                }
                if let Some(t) = self.turn.as_mut()
                    && let Some(slot) = t.cards.get_mut(seat)
                {
                    *slot = None;
                }
                out.events.push(Event::public(
                    "card_returned",
                    json!({"seat": seat, "card": short(&card), "reason": "no_legal_placement"}),
                ));
                self.return_to_hand(seat, card);
                if let Some(l) = self.round_log.seat(seat) {
                    l.result = SeatResult::NoPlacement;
                }
            }
            if let Some(t) = self.turn.as_mut() {
                t.next += 1;
            }
        }
        self.close_round(out);
        self.next_round(out);
    }

    /// S6: records the round.
    fn close_round(&mut self, out: &mut Out) {
        self.turn = None;
        let all_passed = self.round_log.seats.iter().all(|s| s.passed);
        self.round_log.all_passed = all_passed;
        self.last_round_all_passed = all_passed;
        out.rounds.push(self.round_record());
        out.events.push(Event::public(
            "round_ended",
            json!({
                "round": self.round_log.round,
                "all_passed": all_passed,
                "points": self.round_log.points,
            }),
        ));
        self.previous_round = Some(std::mem::take(&mut self.round_log));
    }

    fn round_record(&self) -> RoundRecord {
        let log = &self.round_log;
        let outcome = if log.ended_game {
            "board_full"
        } else if log.seats.iter().any(|s| s.result == SeatResult::Placed) {
            "placed"
        } else {
            "none_placed"
        };
        RoundRecord {
            round: log.round,
            value: Some(log.scored.len() as i64),
            outcome: outcome.into(),
            total_a: Some(i64::from(log.points.red)),
            total_b: Some(i64::from(log.points.black)),
            lead_seat: log.order.first().copied(),
            subject: Some(format!(
                "cards:{}",
                log.order
                    .iter()
                    .filter_map(|seat| log.seats.get(*seat)?.card.as_ref())
                    .map(|c| c.id.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            )),
            seats: log
                .seats
                .iter()
                .map(|s| SeatRecord {
                    seat: s.seat,
                    card: s.card.as_ref().map(|c| c.id.clone()),
                    kind: Some(match (&s.card, &s.placement) {
                        (None, _) if s.passed => "pass".to_string(),
                        (None, _) => "none".to_string(),
                        (Some(c), Some(pl)) if c.is_special(SpecialKind::Customs) => {
                            format!("customs_{}", pl.played_as.name())
                        }
                        (Some(c), _) => c.class_name().to_string(),
                    }),
                    stake: s.card.as_ref().map(|_| i64::from(s.tax_paid)),
                    choice: s.placement.as_ref().map(|p| format!("{}", p.cell)),
                    success: match s.result {
                        SeatResult::Placed => Some(true),
                        SeatResult::SentBack
                        | SeatResult::NoPlacement
                        | SeatResult::ReturnedAtEnd
                        | SeatResult::Waiting => Some(false),
                        SeatResult::Passed | SeatResult::Idle => None,
                    },
                    delta: s.money_delta,
                    drew: s.drew,
                })
                .collect(),
            ledger: log
                .ledger
                .iter()
                .map(|m| LedgerEntry {
                    seat: m.seat,
                    amount: m.amount,
                    reason: m.reason.clone(),
                })
                .collect(),
        }
    }

    /// S5a–S5e for the acting seat.
    pub fn place(&mut self, seat: Seat, plan: Plan, out: &mut Out) -> Result<(), RuleError> {
        if let Some(t) = self.turn.as_mut()
            && let Some(slot) = t.cards.get_mut(seat)
        {
            *slot = None;
        }
        let card = plan.card;
        let mut log = PlacementLog {
            cell: plan.cell,
            played_as: plan.ty,
            ship_from: None,
            ship_to: None,
            removed: None,
            covered: None,
        };
        // S5a: ship and removal (rules §8).
        if let Some(to) = plan.ship_to {
            log.ship_from = self.ship;
            log.ship_to = Some(to);
            out.events.push(Event::public(
                "ship_moved",
                json!({"seat": seat, "from": self.ship, "to": to}),
            ));
            self.ship = Some(to);
        }
        if let Some((at, to_seat)) = plan.remove {
            let idx = self
                .board
                .iter()
                .position(|c| c.coord() == at)
                .ok_or_else(|| {
                    RuleError::illegal(format!("There is no card at {at} to remove."))
                })?;
            let cell = self.board.remove(idx);
            out.events.push(Event::public(
                "card_removed",
                json!({"seat": seat, "cell": at, "card": short(&cell.card), "to_seat": to_seat}),
            ));
            log.removed = Some(RemovalLog {
                cell: at,
                card: cell.card.id.clone(),
                to_seat,
            });
            self.discarded.extend(cell.covered);
            self.return_to_hand(to_seat, cell.card);
        }
        // S5b: placement.
        self.placements = self.placements.saturating_add(1);
        let seq = self.placements;
        if card.is_covering() {
            let cell = self
                .board
                .iter_mut()
                .find(|c| c.coord() == plan.cell)
                .ok_or_else(|| {
                    RuleError::illegal(format!("There is no card at {} to cover.", plan.cell))
                })?;
            let old = std::mem::replace(&mut cell.card, card.clone());
            log.covered = Some(old.id.clone());
            cell.covered.push(old);
            cell.cell_type = plan.ty;
            cell.played_by = Some(seat);
            cell.placed = seq;
        } else {
            let new = BoardCell {
                x: plan.cell.x,
                y: plan.cell.y,
                card: card.clone(),
                cell_type: plan.ty,
                played_by: Some(seat),
                placed: seq,
                scored_region: None,
                covered: Vec::new(),
            };
            let idx = self.board.partition_point(|c| c.coord() < plan.cell);
            self.board.insert(idx, new);
        }
        out.events.push(Event::public(
            "card_placed",
            json!({
                "seat": seat,
                "card": card,
                "cell": plan.cell,
                "as": plan.ty,
                "covered": log.covered,
            }),
        ));
        if let Some(l) = self.round_log.seat(seat) {
            l.placement = Some(log);
            l.result = SeatResult::Placed;
        }
        // S5c: axes, scoring, board full.
        self.fix_axes(out);
        self.score_closed(out);
        if self.layout().is_full() {
            self.end_on_full_board(out);
            return Ok(());
        }
        // S5d: draw; S5e: water grant.
        match card.kind {
            CardKind::Harbour => self.draw(seat, CardKind::Harbour, out),
            CardKind::Water => {
                self.draw(seat, CardKind::Water, out);
                let paid = self.gain_from_bank(seat, "water_grant");
                out.events.push(Event::public(
                    "water_grant",
                    json!({"seat": seat, "coin": paid}),
                ));
            }
            CardKind::Centre | CardKind::Special => {}
        }
        if let Some(t) = self.turn.as_mut() {
            t.next += 1;
        }
        self.advance(out);
        Ok(())
    }

    fn draw(&mut self, seat: Seat, kind: CardKind, out: &mut Out) {
        let limit = if kind == CardKind::Harbour {
            self.params.hand_harbour
        } else {
            self.params.hand_water
        };
        let Some(p) = self.players.get_mut(seat) else {
            return;
        };
        if p.hand.iter().filter(|c| c.kind == kind).count() >= limit {
            return;
        }
        let card = if kind == CardKind::Harbour {
            draw_top(&mut p.harbour_deck)
        } else {
            draw_top(&mut self.water_deck)
        };
        let Some(card) = card else { return };
        let deck = if kind == CardKind::Harbour {
            "harbour"
        } else {
            "water"
        };
        out.events.push(Event::public(
            "card_drawn",
            json!({"seat": seat, "deck": deck}),
        ));
        out.events.push(Event::private(
            seat,
            "you_drew",
            json!({"seat": seat, "deck": deck, "card": card}),
        ));
        p.hand.push(card);
        if let Some(l) = self.round_log.seat(seat) {
            l.drew += 1;
        }
    }

    /// Fixes an axis whose extent reached N (rules §3.5).
    pub fn fix_axes(&mut self, out: &mut Out) {
        let Some(b) = self.layout().bounds() else {
            return;
        };
        if self.fixed_x.is_none() && b.width() >= self.board_size {
            self.fixed_x = Some([b.min_x, b.max_x]);
            out.events.push(Event::public(
                "axis_fixed",
                json!({"axis": "x", "range": [b.min_x, b.max_x]}),
            ));
        }
        if self.fixed_y.is_none() && b.height() >= self.board_size {
            self.fixed_y = Some([b.min_y, b.max_y]);
            out.events.push(Event::public(
                "axis_fixed",
                json!({"axis": "y", "range": [b.min_y, b.max_y]}),
            ));
        }
    }

    /// Scores every closed region not yet scored, in reading order of their
    /// first cells (rules §5 S5c, §7).
    pub fn score_closed(&mut self, out: &mut Out) {
        let found: Vec<(Vec<Coord>, super::board::Tally)> = {
            let layout = self.layout();
            layout
                .regions()
                .into_iter()
                .filter(|r| {
                    !r.iter()
                        .any(|c| layout.get(*c).is_some_and(|cell| cell.frozen()))
                        && layout.is_closed(r)
                })
                .map(|r| {
                    let t = layout.tally(&r);
                    (r, t)
                })
                .collect()
        };
        for (cells, t) in found {
            let v = decide(&t.red, &t.black);
            let index = self.scored_regions.len();
            let value = if v.winner.is_some() { 1 + t.customs } else { 0 };
            for cell in self.board.iter_mut() {
                if cells.contains(&cell.coord()) {
                    cell.scored_region = Some(index);
                }
            }
            let region = ScoredRegion {
                index,
                round: self.round,
                cells,
                size: t.size,
                distance: t.distance,
                red: t.red,
                black: t.black,
                diff: v.diff,
                rule: v.rule,
                winner: v.winner,
                customs: t.customs,
                value,
            };
            out.events.push(Event::public(
                "region_scored",
                serde_json::to_value(&region).unwrap_or_default(),
            ));
            self.round_log.scored.push(index);
            if let Some(w) = v.winner {
                self.round_log.points.add(w, value);
            }
            self.scored_regions.push(region);
        }
    }

    /// The board filled during S5 (rules §10.1): later seats take their cards back.
    fn end_on_full_board(&mut self, out: &mut Out) {
        let rest: Vec<Seat> = self
            .turn
            .as_ref()
            .map(|t| t.order.iter().skip(t.next + 1).copied().collect())
            .unwrap_or_default();
        for seat in rest {
            let card = self
                .turn
                .as_mut()
                .and_then(|t| t.cards.get_mut(seat))
                .and_then(Option::take);
            if let Some(card) = card {
                out.events.push(Event::public(
                    "card_returned",
                    json!({"seat": seat, "card": short(&card), "reason": "board_full"}),
                ));
                self.return_to_hand(seat, card);
                if let Some(l) = self.round_log.seat(seat) {
                    l.result = SeatResult::ReturnedAtEnd;
                }
            }
        }
        self.round_log.ended_game = true;
        self.close_round(out);
        self.finish(EndReason::BoardFull, out);
    }

    /// The final scoring (rules §7.5–7.6) and the end of the game.
    pub fn finish(&mut self, reason: EndReason, out: &mut Out) {
        let counted: Vec<usize> = if self.variant.top_scoring() {
            let min = if self.variant == Variant::Team {
                self.params.team_min_region_cards
            } else {
                0
            };
            let candidates: Vec<Candidate> = self
                .scored_regions
                .iter()
                .filter(|r| r.size >= min)
                .map(|r| Candidate {
                    index: r.index,
                    size: r.size,
                    distance: r.distance,
                })
                .collect();
            select_top(&candidates, self.params.top_regions)
        } else {
            self.scored_regions.iter().map(|r| r.index).collect()
        };
        let mut points = TeamTotals::default();
        for i in &counted {
            if let Some(r) = self.scored_regions.get(*i)
                && let Some(w) = r.winner
            {
                points.add(w, r.value);
            }
        }
        let mut money = TeamTotals::default();
        for p in &self.players {
            money.add(p.team, p.money);
        }
        let (winner, decided_by) = if points.red != points.black {
            (
                Some(if points.red > points.black {
                    Team::Red
                } else {
                    Team::Black
                }),
                "points",
            )
        } else if money.red != money.black {
            (
                Some(if money.red > money.black {
                    Team::Red
                } else {
                    Team::Black
                }),
                "money",
            )
        } else {
            (None, "draw")
        };
        let result = FinalResult {
            reason,
            counted,
            points,
            money,
            winner,
            decided_by: decided_by.into(),
        };
        out.events.push(Event::public(
            "game_ended",
            serde_json::to_value(&result).unwrap_or_default(),
        ));
        self.result = Some(result);
        self.phase = Phase::Finished;
        self.turn = None;
    }
}
