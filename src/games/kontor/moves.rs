//! Legal moves in the API's format, and validation that agrees with them.

use serde_json::{Map, Value, json};

use super::Action;
use super::board::{Coord, Layout};
use super::cards::{Card, CellType, SpecialKind, Team};
use super::rules::{Phase, Plan, State, team_of, type_options};
use crate::games::{RuleError, Seat};

/// Complete actions are listed one by one up to this many (API contract).
const LIST_LIMIT: usize = 64;

/// One group of placements in which every listed choice is independent.
#[derive(Debug, Clone)]
struct Template {
    as_type: Option<CellType>,
    /// None: the ship stays.
    ship_tos: Option<Vec<Coord>>,
    remove: Option<Coord>,
    recipient: Option<Seat>,
    cells: Vec<Coord>,
}

impl Template {
    fn count(&self) -> usize {
        self.ship_tos.as_ref().map_or(1, Vec::len) * self.cells.len()
    }

    fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("type".into(), json!("place"));
        m.insert("template".into(), json!(true));
        m.insert("cells".into(), json!(self.cells));
        if let Some(a) = self.as_type {
            m.insert("as".into(), json!(a));
        }
        if let Some(s) = &self.ship_tos {
            m.insert("ship_tos".into(), json!(s));
        }
        if let Some(r) = self.remove {
            m.insert("remove".into(), json!(r));
        }
        if let Some(r) = self.recipient {
            m.insert("recipient_seat".into(), json!(r));
        }
        Value::Object(m)
    }

    fn expand(&self) -> Vec<Value> {
        let ships: Vec<Option<Coord>> = match &self.ship_tos {
            Some(s) => s.iter().copied().map(Some).collect(),
            None => vec![None],
        };
        let mut out = Vec::new();
        for ship_to in ships {
            for cell in &self.cells {
                let a = Action::Place {
                    cell: *cell,
                    as_type: self.as_type,
                    ship_to,
                    remove: self.remove,
                    recipient_seat: self.recipient,
                };
                if let Ok(v) = serde_json::to_value(&a) {
                    out.push(v);
                }
            }
        }
        out
    }
}

/// The team that owns a card on the board (rules §8.3): its colour, or for a
/// neutral card the team of the seat that played it.
fn owning_team(state: &State, card: &Card, played_by: Option<Seat>, remover: Seat) -> Team {
    card.colour
        .unwrap_or_else(|| team_of(state.seat_count(), played_by.unwrap_or(remover)))
}

/// The seats that may receive a removed card: in the team game, the seats of the
/// owning team (chosen by the remover); otherwise none is named.
fn recipients(state: &State, team: Team) -> Vec<Option<Seat>> {
    if state.seat_count() == 4 {
        (0..4)
            .filter(|s| state.team(*s) == team)
            .map(Some)
            .collect()
    } else {
        vec![None]
    }
}

fn removable(layout: &Layout<'_>, at: Coord) -> bool {
    layout
        .get(at)
        .is_some_and(|c| c.cell_type == CellType::Harbour && c.card.ship && !c.frozen())
}

/// Placement groups after a ship move to one of `ship_tos` (rules §8), on
/// `layout` (already without a removed card).
#[allow(clippy::too_many_arguments)]
fn ship_groups(
    out: &mut Vec<Template>,
    layout: &Layout<'_>,
    card: &Card,
    (as_type, ty): (Option<CellType>, CellType),
    team: Team,
    ship_tos: &[Coord],
    remove: Option<Coord>,
    recipient: Option<Seat>,
) {
    if ship_tos.is_empty() {
        return;
    }
    let base = layout.targets(card, ty, team, None);
    if base.is_empty() {
        return;
    }
    let make = |ships: Vec<Coord>, cells: Vec<Coord>| Template {
        as_type,
        ship_tos: Some(ships),
        remove,
        recipient,
        cells,
    };
    if card.is_special(SpecialKind::Bridge) {
        // A bridge may not cover the ship's new cell.
        let (inside, outside): (Vec<Coord>, Vec<Coord>) =
            ship_tos.iter().partition(|w| base.contains(w));
        if !outside.is_empty() {
            out.push(make(outside, base.clone()));
        }
        for w in inside {
            let cells: Vec<Coord> = base.iter().copied().filter(|c| *c != w).collect();
            if !cells.is_empty() {
                out.push(make(vec![w], cells));
            }
        }
    } else {
        out.push(make(ship_tos.to_vec(), base));
    }
}

fn place_templates(state: &State, seat: Seat, card: &Card) -> Vec<Template> {
    let layout = state.layout();
    let team = state.team(seat);
    let types = type_options(card);
    let mut out = Vec::new();
    for (as_type, ty) in &types {
        let cells = layout.targets(card, *ty, team, state.ship);
        if !cells.is_empty() {
            out.push(Template {
                as_type: *as_type,
                ship_tos: None,
                remove: None,
                recipient: None,
                cells,
            });
        }
    }
    if !(state.variant.has_ship() && card.ship) {
        return out;
    }
    let waters: Vec<Coord> = layout
        .water_cells()
        .into_iter()
        .filter(|w| Some(*w) != state.ship)
        .collect();
    for t in &types {
        ship_groups(&mut out, &layout, card, *t, team, &waters, None, None);
    }
    for (at, cell) in layout.cells() {
        if !removable(&layout, at) {
            continue;
        }
        let near: Vec<Coord> = waters
            .iter()
            .copied()
            .filter(|w| w.is_adjacent(at))
            .collect();
        if near.is_empty() {
            continue;
        }
        let reduced = layout.without(at);
        let owner = owning_team(state, &cell.card, cell.played_by, seat);
        for r in recipients(state, owner) {
            for t in &types {
                ship_groups(&mut out, &reduced, card, *t, team, &near, Some(at), r);
            }
        }
    }
    out
}

/// The legal moves of `seat` now, or None when it owes nothing.
pub fn legal(state: &State, seat: Seat) -> Option<Vec<Value>> {
    match state.phase {
        Phase::Finished => None,
        Phase::Choose => {
            let p = state.players.get(seat)?;
            if p.choice.is_some() {
                return None;
            }
            let mut out: Vec<Value> = Vec::new();
            for c in &p.hand {
                let v = json!({"type": "choose", "card": c.id});
                if !out.contains(&v) && state.selectable(seat, c) {
                    out.push(v);
                }
            }
            if state.pass_allowed(seat) {
                out.push(json!({"type": "pass"}));
            }
            Some(out)
        }
        Phase::Place => {
            let (s, card) = state.current()?;
            if s != seat {
                return None;
            }
            let templates = place_templates(state, seat, card);
            let total: usize = templates.iter().map(Template::count).sum();
            Some(if total <= LIST_LIMIT {
                templates.iter().flat_map(Template::expand).collect()
            } else {
                templates.iter().map(Template::to_json).collect()
            })
        }
    }
}

/// Checks a move; answers the placement plan for a `place`.
pub fn check(state: &State, seat: Seat, action: &Action) -> Result<Option<Plan>, RuleError> {
    if seat >= state.seat_count() {
        return Err(RuleError::illegal(format!(
            "There is no seat {seat} in this match."
        )));
    }
    match (state.phase, action) {
        (Phase::Finished, _) => Err(RuleError::illegal(
            "The game is over; no more moves are accepted.",
        )),
        (Phase::Choose, Action::Choose { card }) => {
            check_choosing(state, seat)?;
            let p = state
                .players
                .get(seat)
                .ok_or_else(|| RuleError::illegal("No such seat."))?;
            let c = p.hand.iter().find(|c| c.id == *card).ok_or_else(|| {
                RuleError::illegal(format!(
                    "You cannot choose {card}: it is not in your hand (rules §5 S1)."
                ))
            })?;
            if !state.selectable(seat, c) {
                return Err(RuleError::illegal(format!(
                    "You cannot choose {card}: it has no legal placement on the board now (rules §5 S1, decision 9)."
                )));
            }
            Ok(None)
        }
        (Phase::Choose, Action::Pass {}) => {
            check_choosing(state, seat)?;
            if !state.pass_allowed(seat) {
                return Err(RuleError::illegal(
                    "You cannot pass: every seat passed last round, so this round each seat with a selectable card must play one (rules §5 S1, decision 5).",
                ));
            }
            Ok(None)
        }
        (Phase::Choose, Action::Place { .. }) => Err(RuleError::illegal(
            "You cannot place a card now: every seat is choosing a card face down (rules §5 S1); send `choose` or `pass`.",
        )),
        (Phase::Place, Action::Choose { .. } | Action::Pass {}) => Err(RuleError::illegal(
            "You cannot choose or pass now: the revealed cards are being placed (rules §5 S5).",
        )),
        (
            Phase::Place,
            Action::Place {
                cell,
                as_type,
                ship_to,
                remove,
                recipient_seat,
            },
        ) => plan_place(
            state,
            seat,
            *cell,
            *as_type,
            *ship_to,
            *remove,
            *recipient_seat,
        )
        .map(Some),
    }
}

fn check_choosing(state: &State, seat: Seat) -> Result<(), RuleError> {
    match state.players.get(seat) {
        Some(p) if p.choice.is_none() => Ok(()),
        _ => Err(RuleError::illegal(
            "You have already chosen this round; the choice is sealed until every seat has chosen.",
        )),
    }
}

/// Validates a placement (S5a–S5b) and answers what it does.
fn plan_place(
    state: &State,
    seat: Seat,
    cell: Coord,
    as_type: Option<CellType>,
    ship_to: Option<Coord>,
    remove: Option<Coord>,
    recipient: Option<Seat>,
) -> Result<Plan, RuleError> {
    let (current, card) = state
        .current()
        .ok_or_else(|| RuleError::illegal("No card is waiting to be placed."))?;
    if current != seat {
        return Err(RuleError::illegal(format!(
            "You cannot place a card now: it is seat {current}'s turn (rules §5 S4–S5)."
        )));
    }
    let id = &card.id;
    let ty = match (card.fixed_type(), as_type) {
        (Some(t), None) => t,
        (Some(_), Some(_)) => {
            return Err(RuleError::illegal(format!(
                "You cannot declare {id} as water or harbour: only a customs card is declared (rules §9)."
            )));
        }
        (None, Some(t)) => t,
        (None, None) => {
            return Err(RuleError::illegal(format!(
                "You must declare the customs card {id} `as` water or harbour (rules §9)."
            )));
        }
    };
    let layout = state.layout();
    let team = state.team(seat);
    let mut ship = state.ship;
    if let Some(to) = ship_to {
        if !state.variant.has_ship() {
            return Err(RuleError::illegal(format!(
                "You cannot move the ship: the {} variant has no ship (rules §2).",
                state.variant.name()
            )));
        }
        if !card.ship {
            return Err(RuleError::illegal(format!(
                "You cannot move the ship with {id}: it has no ship symbol (rules §8.1)."
            )));
        }
        if layout.cell_type(to) != Some(CellType::Water) {
            return Err(RuleError::illegal(format!(
                "You cannot move the ship to {to}: the ship may only move to a water-type card (rules §8.1)."
            )));
        }
        if state.ship == Some(to) {
            return Err(RuleError::illegal(format!(
                "You cannot move the ship to {to}: it already stands there, and a move must go to another water card (rules §8.1)."
            )));
        }
        ship = Some(to);
    }
    let mut planned_remove = None;
    let reduced;
    let board = match remove {
        None => {
            if recipient.is_some() {
                return Err(RuleError::illegal(
                    "You cannot name a recipient_seat without removing a card (rules §8.3).",
                ));
            }
            &layout
        }
        Some(at) => {
            let Some(to) = ship_to else {
                return Err(RuleError::illegal(format!(
                    "You cannot remove the card at {at}: a card may only be removed after moving the ship (rules §8.1)."
                )));
            };
            let target = layout.get(at).ok_or_else(|| {
                RuleError::illegal(format!(
                    "You cannot remove at {at}: the cell is empty (rules §8.2)."
                ))
            })?;
            if target.cell_type != CellType::Harbour {
                return Err(RuleError::illegal(format!(
                    "You cannot remove the card at {at}: water-type cards cannot be removed (rules §8.2)."
                )));
            }
            if !target.card.ship {
                return Err(RuleError::illegal(format!(
                    "You cannot remove {} at {at}: it has no ship symbol (rules §8.2).",
                    target.card.id
                )));
            }
            if target.frozen() {
                return Err(RuleError::illegal(format!(
                    "You cannot remove {} at {at}: its region is scored and frozen (rules §3.12, §8.2).",
                    target.card.id
                )));
            }
            if !to.is_adjacent(at) {
                return Err(RuleError::illegal(format!(
                    "You cannot remove the card at {at}: it is not orthogonally adjacent to the ship's new cell {to} (rules §8.2)."
                )));
            }
            let owner = owning_team(state, &target.card, target.played_by, seat);
            let to_seat = if state.seat_count() == 4 {
                let r = recipient.ok_or_else(|| {
                    RuleError::illegal(format!(
                        "You must name the recipient_seat of the removed card: a seat of team {} (rules §8.3).",
                        owner.name()
                    ))
                })?;
                if r >= 4 || state.team(r) != owner {
                    return Err(RuleError::illegal(format!(
                        "Seat {r} cannot receive the removed card: it must go to a seat of team {} (rules §8.3).",
                        owner.name()
                    )));
                }
                r
            } else {
                if recipient.is_some() {
                    return Err(RuleError::illegal(
                        "recipient_seat is only named in the team game; the removed card returns to the seat of its colour (rules §8.3).",
                    ));
                }
                (0..state.seat_count())
                    .find(|s| state.team(*s) == owner)
                    .unwrap_or(seat)
            };
            planned_remove = Some((at, to_seat));
            reduced = layout.without(at);
            &reduced
        }
    };
    board.check(card, ty, team, cell, ship).map_err(|f| {
        RuleError::illegal(format!("You cannot place {id} at {cell}: {}.", f.explain()))
    })?;
    Ok(Plan {
        card: card.clone(),
        cell,
        ty,
        ship_to,
        remove: planned_remove,
    })
}

/// The move an absent seat plays: at S1 a pass, unless every seat passed last
/// round (then the first selectable card of the hand, or a pass without one), so
/// that a table of absent seats still finishes under `all_pass_policy: allowed`;
/// at S5 the first legal cell in reading order, without moving the ship, a
/// customs declared as water first.
pub fn null_move(state: &State, seat: Seat) -> Option<Action> {
    match state.phase {
        Phase::Finished => None,
        Phase::Choose => {
            let p = state.players.get(seat)?;
            if p.choice.is_some() {
                return None;
            }
            if state.pass_allowed(seat) && !state.last_round_all_passed {
                return Some(Action::Pass {});
            }
            let card = p.hand.iter().find(|c| state.selectable(seat, c));
            Some(match card {
                Some(c) => Action::Choose { card: c.id.clone() },
                None => Action::Pass {},
            })
        }
        Phase::Place => {
            let (s, card) = state.current()?;
            if s != seat {
                return None;
            }
            let layout = state.layout();
            type_options(card).into_iter().find_map(|(as_type, ty)| {
                let cell = *layout
                    .targets(card, ty, state.team(seat), state.ship)
                    .first()?;
                Some(Action::Place {
                    cell,
                    as_type,
                    ship_to: None,
                    remove: None,
                    recipient_seat: None,
                })
            })
        }
    }
}
