//! Positions: a match started from a given situation (issue 9, `options.position`).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::board::{BoardCell, Coord};
use super::cards::{Card, CardKind, CellType, KontorData, check_card};
use super::rules::{
    AllPassPolicy, Out, Phase, Player, RoundLog, SeatResult, State, Turn, Variant, team_of,
};
use crate::games::{RuleError, Seat};

/// A situation at the start of a decision point: the choose step of a round, or
/// (with `turn`) the placements of a round after its reveal. Every card is named
/// by its id: one of `cards` when the position states it, otherwise one of the
/// component data; cards named nowhere are out of play. Closed
/// regions on the given board count as already scored (they are scored silently
/// when the position is loaded, with `round` 0); a full or blocked board ends the
/// game at once with the final scoring.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Position {
    /// The round number (default 1).
    #[serde(default = "first_round")]
    pub round: u32,
    /// The occupied cells. The harbour centre must be at (0, 0).
    pub board: Vec<PositionCell>,
    /// The fixed x range, if the board's width once reached N (an axis whose
    /// extent is N is fixed automatically).
    #[serde(default)]
    pub fixed_x: Option<[i32; 2]>,
    /// The fixed y range, likewise.
    #[serde(default)]
    pub fixed_y: Option<[i32; 2]>,
    /// The ship's cell (duel and team; default the centre).
    #[serde(default)]
    pub ship: Option<Coord>,
    /// Per seat, in seat order.
    pub players: Vec<PositionPlayer>,
    /// The water deck, top first.
    #[serde(default)]
    pub water_deck: Vec<String>,
    /// Every seat passed in the previous round.
    #[serde(default)]
    pub last_round_all_passed: bool,
    /// Start after the reveal: the revealed cards still to be placed this round.
    /// The engine orders them by S4 (highest number first).
    #[serde(default)]
    pub turn: Option<Vec<PositionReveal>>,
    /// Cards stated in full (other numbers, goods or symbols than the data's):
    /// the board, hands, decks and `turn` may name them by id. One with the id
    /// of a card of the component data replaces it in this match. Checked as the
    /// data is. Default: none, every id names a card of the data.
    #[serde(default)]
    pub cards: Vec<Card>,
}

fn first_round() -> u32 {
    1
}

/// One occupied cell of a position.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PositionCell {
    pub x: i32,
    pub y: i32,
    pub card: String,
    /// A customs card's declaration: `water` or `harbour` (only for customs).
    #[serde(rename = "as", default)]
    pub as_type: Option<CellType>,
    /// The seat that played the card (required for special cards).
    #[serde(default)]
    pub played_by: Option<Seat>,
}

/// One seat's holdings in a position.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PositionPlayer {
    pub hand: Vec<String>,
    /// The seat's harbour deck, top first.
    #[serde(default)]
    pub harbour_deck: Vec<String>,
    pub money: u32,
}

/// A revealed card waiting to be placed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PositionReveal {
    pub seat: Seat,
    pub card: String,
}

struct Cards<'a> {
    catalogue: BTreeMap<&'a str, &'a Card>,
    used: BTreeSet<String>,
}

impl<'a> Cards<'a> {
    fn take(&mut self, id: &str, place: &str) -> Result<Card, RuleError> {
        let card = self.catalogue.get(id).ok_or_else(|| {
            RuleError::position(format!(
                "{place}: there is no card {id} in the position's `cards` nor in the component data."
            ))
        })?;
        if !self.used.insert(id.to_string()) {
            return Err(RuleError::position(format!(
                "{place}: card {id} is already somewhere else in the position."
            )));
        }
        Ok((*card).clone())
    }
}

/// Checks a card held by `seat` (in a hand, a harbour deck or revealed).
fn check_held(
    card: &Card,
    seat: Seat,
    seats: usize,
    variant: Variant,
    place: &str,
) -> Result<(), RuleError> {
    let id = &card.id;
    match card.kind {
        CardKind::Centre => Err(RuleError::position(format!(
            "{place}: the harbour centre {id} never leaves the board."
        ))),
        CardKind::Harbour if card.colour != Some(team_of(seats, seat)) => Err(RuleError::position(
            format!("{place}: harbour card {id} belongs to the other team."),
        )),
        CardKind::Special if !variant.has_specials() => Err(RuleError::position(format!(
            "{place}: special card {id} is only used in the team variant."
        ))),
        _ => Ok(()),
    }
}

/// Builds a state from a position (checked).
pub fn from_position(
    data: &KontorData,
    seats: usize,
    variant: Variant,
    policy: AllPassPolicy,
    pos: Position,
) -> Result<State, RuleError> {
    let p = &data.params;
    let n = variant.board_size(p);
    if pos.players.len() != seats {
        return Err(RuleError::position(format!(
            "The position lists {} players for {seats} seats.",
            pos.players.len()
        )));
    }
    let mut catalogue: BTreeMap<&str, &Card> =
        data.cards.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut stated = BTreeSet::new();
    for c in &pos.cards {
        check_card(c).map_err(|e| {
            RuleError::position(format!(
                "The position's cards: {}.",
                e.trim_start_matches("kontor: ")
            ))
        })?;
        if !stated.insert(c.id.as_str()) {
            return Err(RuleError::position(format!(
                "The position's cards state {} twice.",
                c.id
            )));
        }
        catalogue.insert(c.id.as_str(), c);
    }
    let mut cards = Cards {
        catalogue,
        used: BTreeSet::new(),
    };
    // The board.
    let mut board: Vec<BoardCell> = Vec::new();
    let mut coords = BTreeSet::new();
    for (i, pc) in pos.board.iter().enumerate() {
        let at = Coord::new(pc.x, pc.y);
        let place = format!("board cell {at}");
        if !coords.insert(at) {
            return Err(RuleError::position(format!("{place} is listed twice.")));
        }
        let card = cards.take(&pc.card, &place)?;
        let cell_type = match (card.fixed_type(), pc.as_type) {
            (Some(t), None) => t,
            (None, Some(t)) => t,
            (Some(_), Some(_)) => {
                return Err(RuleError::position(format!(
                    "{place}: only a customs card is declared `as` water or harbour."
                )));
            }
            (None, None) => {
                return Err(RuleError::position(format!(
                    "{place}: the customs card needs `as`: water or harbour."
                )));
            }
        };
        if (card.kind == CardKind::Centre) != (at == Coord::new(0, 0)) {
            return Err(RuleError::position(format!(
                "{place}: the harbour centre must lie at (0,0), and only there."
            )));
        }
        if card.kind == CardKind::Special && !variant.has_specials() {
            return Err(RuleError::position(format!(
                "{place}: special cards are only used in the team variant."
            )));
        }
        if card.kind == CardKind::Special && pc.played_by.is_none() {
            return Err(RuleError::position(format!(
                "{place}: a special card needs `played_by` (its owning team for removals)."
            )));
        }
        if pc.played_by.is_some_and(|s| s >= seats) {
            return Err(RuleError::position(format!(
                "{place}: played_by names a seat that does not exist."
            )));
        }
        board.push(BoardCell {
            x: pc.x,
            y: pc.y,
            placed: if card.kind == CardKind::Centre {
                0
            } else {
                i as u32 + 1
            },
            card,
            cell_type,
            played_by: pc.played_by,
            scored_region: None,
            covered: Vec::new(),
        });
    }
    if !coords.contains(&Coord::new(0, 0)) {
        return Err(RuleError::position(
            "The board must hold the harbour centre at (0,0).",
        ));
    }
    board.sort_by_key(|c| c.coord());
    // The extent and the fixed axes.
    let xs = || coords.iter().map(|c| c.x);
    let ys = || coords.iter().map(|c| c.y);
    for (name, fixed, min, max) in [
        ("x", pos.fixed_x, xs().min(), xs().max()),
        ("y", pos.fixed_y, ys().min(), ys().max()),
    ] {
        let (Some(min), Some(max)) = (min, max) else {
            continue;
        };
        let extent = max.saturating_sub(min).saturating_add(1);
        if extent > n {
            return Err(RuleError::position(format!(
                "The board is {extent} cards long along {name}, more than {n}."
            )));
        }
        if let Some([a, b]) = fixed
            && (b.saturating_sub(a).saturating_add(1) != n || min < a || max > b)
        {
            return Err(RuleError::position(format!(
                "fixed_{name} must span exactly {n} cells and contain every card."
            )));
        }
    }
    // The ship.
    let ship = if variant.has_ship() {
        let at = pos.ship.unwrap_or(Coord::new(0, 0));
        let ok = board
            .iter()
            .any(|c| c.coord() == at && c.cell_type == CellType::Water);
        if !ok {
            return Err(RuleError::position(format!(
                "The ship must stand on a water-type card, and {at} is not one."
            )));
        }
        Some(at)
    } else {
        if pos.ship.is_some() {
            return Err(RuleError::position(format!(
                "The {} variant has no ship.",
                variant.name()
            )));
        }
        None
    };
    // The seats.
    let mut players = Vec::new();
    let mut total: u32 = 0;
    for (seat, pp) in pos.players.iter().enumerate() {
        let mut hand = Vec::new();
        for id in &pp.hand {
            let place = format!("seat {seat}'s hand");
            let c = cards.take(id, &place)?;
            check_held(&c, seat, seats, variant, &place)?;
            hand.push(c);
        }
        let mut harbour_deck = Vec::new();
        for id in &pp.harbour_deck {
            let place = format!("seat {seat}'s harbour deck");
            let c = cards.take(id, &place)?;
            if c.kind != CardKind::Harbour {
                return Err(RuleError::position(format!(
                    "{place}: {id} is not a harbour card."
                )));
            }
            check_held(&c, seat, seats, variant, &place)?;
            harbour_deck.push(c);
        }
        total = total.saturating_add(pp.money);
        players.push(Player {
            seat,
            team: team_of(seats, seat),
            hand,
            harbour_deck,
            money: pp.money,
            choice: None,
        });
    }
    let bank = p.coins.checked_sub(total).ok_or_else(|| {
        RuleError::position(format!(
            "The seats hold {total} coins, more than the {} in the game.",
            p.coins
        ))
    })?;
    let mut water_deck = Vec::new();
    for id in &pos.water_deck {
        let c = cards.take(id, "the water deck")?;
        if c.kind != CardKind::Water {
            return Err(RuleError::position(format!(
                "the water deck: {id} is not a water card."
            )));
        }
        water_deck.push(c);
    }
    let mut revealed: Vec<Option<Card>> = vec![None; seats];
    if let Some(turn) = &pos.turn {
        for r in turn {
            let place = format!("the revealed card of seat {}", r.seat);
            let slot = revealed
                .get_mut(r.seat)
                .ok_or_else(|| RuleError::position(format!("{place}: there is no such seat.")))?;
            if slot.is_some() {
                return Err(RuleError::position(format!(
                    "{place}: the seat is listed twice."
                )));
            }
            let c = cards.take(&r.card, &place)?;
            check_held(&c, r.seat, seats, variant, &place)?;
            *slot = Some(c);
        }
    }
    let set_aside: Vec<Card> = data
        .cards
        .iter()
        .filter(|c| !cards.used.contains(&c.id))
        .cloned()
        .collect();
    let placements = board.iter().map(|c| c.placed).max().unwrap_or(0);
    let mut state = State {
        variant,
        all_pass_policy: policy,
        params: p.clone(),
        board_size: n,
        round: pos.round.max(1),
        phase: Phase::Choose,
        players,
        water_deck,
        bank,
        board,
        fixed_x: pos.fixed_x,
        fixed_y: pos.fixed_y,
        ship,
        scored_regions: Vec::new(),
        turn: None,
        last_round_all_passed: pos.last_round_all_passed,
        placements,
        set_aside,
        discarded: Vec::new(),
        round_log: RoundLog::new(pos.round.max(1), seats),
        previous_round: None,
        result: None,
    };
    let mut out = Out::default();
    state.fix_axes(&mut out);
    state.score_closed(&mut out);
    for r in state.scored_regions.iter_mut() {
        r.round = 0;
    }
    if state.layout().is_full() {
        state.finish(super::rules::EndReason::BoardFull, &mut out);
        return Ok(state);
    }
    if pos.turn.is_some() {
        let mut order: Vec<Seat> = (0..seats)
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
        for s in &order {
            if let Some(l) = state.round_log.seats.get_mut(*s) {
                l.card = revealed.get(*s).cloned().flatten();
                l.result = SeatResult::Waiting;
            }
        }
        state.round_log.order = order.clone();
        state.turn = Some(Turn {
            order,
            next: 0,
            cards: revealed,
        });
        state.resume_turns(&mut out);
    } else {
        state.start_round(&mut out);
    }
    Ok(state)
}
