//! Board geometry (rules §3), placement legality (§3.9 and §9), regions and
//! their closure (§3.10–3.11), the region winner (§7.3) and the top-5
//! selection (§7.6). Everything here is derived from the cards on the board.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::cards::{Card, CardKind, CellType, Commodity, Goods, SpecialKind, Team};
use crate::games::Seat;

/// A cell: x grows to the east, y to the south; the centre is at (0, 0).
/// Cells are ordered top-most first, then left-most (reading order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Coord {
    pub x: i32,
    pub y: i32,
}

impl Coord {
    pub const fn new(x: i32, y: i32) -> Self {
        Self { x, y }
    }
    /// The four orthogonal neighbours (saturating at the ends of the integer
    /// range, so that no client coordinate can overflow).
    pub fn neighbours(self) -> [Coord; 4] {
        [
            Coord::new(self.x, self.y.saturating_sub(1)),
            Coord::new(self.x.saturating_sub(1), self.y),
            Coord::new(self.x.saturating_add(1), self.y),
            Coord::new(self.x, self.y.saturating_add(1)),
        ]
    }
    pub fn is_adjacent(self, other: Coord) -> bool {
        let dx = (i64::from(self.x) - i64::from(other.x)).abs();
        let dy = (i64::from(self.y) - i64::from(other.y)).abs();
        dx + dy == 1
    }
    /// Orthogonal distance to the centre card (rules §3.13).
    pub fn distance(self) -> i32 {
        self.x
            .saturating_abs()
            .saturating_add(self.y.saturating_abs())
    }
}

impl Ord for Coord {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.y, self.x).cmp(&(other.y, other.x))
    }
}

impl PartialOrd for Coord {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.x, self.y)
    }
}

/// One occupied cell of the board, as stored in the state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BoardCell {
    pub x: i32,
    pub y: i32,
    /// The visible card.
    pub card: Card,
    /// What the cell counts as (a customs keeps its declared type).
    #[serde(rename = "type")]
    pub cell_type: CellType,
    /// The seat that played the visible card; null for the starting cross.
    pub played_by: Option<Seat>,
    /// Placement sequence number (0 for the starting cross); a distribution
    /// centre is its team's earliest-placed goods card in the region.
    pub placed: u32,
    /// Index into `scored_regions` once the card's region has been scored (frozen).
    pub scored_region: Option<usize>,
    /// Cards covered here by a flood or a bridge; they left play (rules §9).
    pub covered: Vec<Card>,
}

impl BoardCell {
    pub fn coord(&self) -> Coord {
        Coord::new(self.x, self.y)
    }
    pub fn frozen(&self) -> bool {
        self.scored_region.is_some()
    }
}

/// The occupied box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub min_x: i32,
    pub max_x: i32,
    pub min_y: i32,
    pub max_y: i32,
}

impl Bounds {
    pub fn width(&self) -> i32 {
        self.max_x.saturating_sub(self.min_x).saturating_add(1)
    }
    pub fn height(&self) -> i32 {
        self.max_y.saturating_sub(self.min_y).saturating_add(1)
    }
}

/// Why a card cannot go to a cell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    Occupied,
    NotAdjacent,
    OutOfBounds(String),
    CraneBlocked(Team, Coord),
    NothingToCover,
    FloodTarget,
    Frozen,
    BridgeTarget,
    BridgeCentre,
    BridgeShip,
    BridgeNextToFrozen,
}

impl Fault {
    /// The rule broken, as the end of a sentence.
    pub fn explain(&self) -> String {
        match self {
            Fault::Occupied => "the cell is already occupied (rules §3.9, P1)".into(),
            Fault::NotAdjacent => {
                "the cell is not orthogonally adjacent to any card on the board (rules §3.9, P2)"
                    .into()
            }
            Fault::OutOfBounds(why) => format!("it is out of bounds: {why} (rules §3.7, P3)"),
            Fault::CraneBlocked(team, at) => format!(
                "the cell is crane-blocked by the {} crane at {at}; only water-type cards may go there (rules §3.8, P4)",
                team.name()
            ),
            Fault::NothingToCover => {
                "a flood or a bridge must be played on top of a card, and the cell is empty (rules §9)".into()
            }
            Fault::FloodTarget => "a flood may only cover a bridge or an ordinary harbour card with exactly one commodity (rules §9)".into(),
            Fault::Frozen => "the card there belongs to a scored (frozen) region (rules §3.12, §9)".into(),
            Fault::BridgeTarget => "a bridge may only cover a water card or a flood (rules §9)".into(),
            Fault::BridgeCentre => "the harbour centre cannot be bridged (rules §9, decision 16)".into(),
            Fault::BridgeShip => "the ship stands on that cell (rules §9, decision 16)".into(),
            Fault::BridgeNextToFrozen => "the cell is next to a scored (frozen) region (rules §3.12, §9)".into(),
        }
    }
}

/// A read-only picture of the board for the geometric rules.
#[derive(Debug, Clone)]
pub struct Layout<'a> {
    pub n: i32,
    pub fixed_x: Option<[i32; 2]>,
    pub fixed_y: Option<[i32; 2]>,
    cells: BTreeMap<Coord, &'a BoardCell>,
    bounds: Option<Bounds>,
}

impl<'a> Layout<'a> {
    pub fn new(
        n: i32,
        fixed_x: Option<[i32; 2]>,
        fixed_y: Option<[i32; 2]>,
        board: &'a [BoardCell],
    ) -> Self {
        let cells: BTreeMap<Coord, &'a BoardCell> = board.iter().map(|c| (c.coord(), c)).collect();
        let bounds = Self::compute_bounds(&cells);
        Self {
            n,
            fixed_x,
            fixed_y,
            cells,
            bounds,
        }
    }

    /// The same board with the card at `at` taken away (a ship removal).
    pub fn without(&self, at: Coord) -> Self {
        let mut next = self.clone();
        next.cells.remove(&at);
        next.bounds = Self::compute_bounds(&next.cells);
        next
    }

    pub fn get(&self, at: Coord) -> Option<&'a BoardCell> {
        self.cells.get(&at).copied()
    }

    pub fn occupied(&self, at: Coord) -> bool {
        self.cells.contains_key(&at)
    }

    pub fn cell_type(&self, at: Coord) -> Option<CellType> {
        self.get(at).map(|c| c.cell_type)
    }

    pub fn cells(&self) -> impl Iterator<Item = (Coord, &'a BoardCell)> + '_ {
        self.cells.iter().map(|(k, v)| (*k, *v))
    }

    pub fn len(&self) -> usize {
        self.cells.len()
    }

    pub fn bounds(&self) -> Option<Bounds> {
        self.bounds
    }

    fn compute_bounds(cells: &BTreeMap<Coord, &'a BoardCell>) -> Option<Bounds> {
        let mut it = cells.keys();
        let first = it.next()?;
        let mut b = Bounds {
            min_x: first.x,
            max_x: first.x,
            min_y: first.y,
            max_y: first.y,
        };
        for c in it {
            b.min_x = b.min_x.min(c.x);
            b.max_x = b.max_x.max(c.x);
            b.min_y = b.min_y.min(c.y);
            b.max_y = b.max_y.max(c.y);
        }
        Some(b)
    }

    pub fn both_fixed(&self) -> bool {
        self.fixed_x.is_some() && self.fixed_y.is_some()
    }

    /// The final board rectangle, once both axes are fixed (rules §3.6).
    pub fn final_rect(&self) -> Option<([i32; 2], [i32; 2])> {
        Some((self.fixed_x?, self.fixed_y?))
    }

    fn inside_final(&self, at: Coord) -> bool {
        match self.final_rect() {
            Some((fx, fy)) => fx[0] <= at.x && at.x <= fx[1] && fy[0] <= at.y && at.y <= fy[1],
            None => true,
        }
    }

    /// The in-bounds test of rules §3.7.
    pub fn in_bounds(&self, at: Coord) -> Result<(), String> {
        let b = self.bounds();
        let axis = |fixed: Option<[i32; 2]>,
                    v: i32,
                    lo: Option<i32>,
                    hi: Option<i32>,
                    name: &str,
                    what: &str| {
            match fixed {
                Some([a, z]) => {
                    if v < a || v > z {
                        Err(format!("the {name} extent is fixed to {a}..{z}"))
                    } else {
                        Ok(())
                    }
                }
                None => {
                    let lo = lo.unwrap_or(v).min(v);
                    let hi = hi.unwrap_or(v).max(v);
                    let extent = hi.saturating_sub(lo).saturating_add(1);
                    if extent > self.n {
                        Err(format!(
                            "the board would become {extent} cards {what}, and at most {} are allowed",
                            self.n
                        ))
                    } else {
                        Ok(())
                    }
                }
            }
        };
        axis(
            self.fixed_x,
            at.x,
            b.map(|b| b.min_x),
            b.map(|b| b.max_x),
            "x",
            "wide",
        )?;
        axis(
            self.fixed_y,
            at.y,
            b.map(|b| b.min_y),
            b.map(|b| b.max_y),
            "y",
            "high",
        )
    }

    pub fn has_neighbour(&self, at: Coord) -> bool {
        at.neighbours().iter().any(|n| self.occupied(*n))
    }

    /// A neighbouring crane of a team other than `team`, if any (rules §3.8).
    pub fn crane_blocker(&self, at: Coord, team: Team) -> Option<(Team, Coord)> {
        at.neighbours().into_iter().find_map(|n| {
            let cell = self.get(n)?;
            let colour = cell.card.colour?;
            (cell.card.kind == CardKind::Harbour && cell.card.crane && colour != team)
                .then_some((colour, n))
        })
    }

    pub fn next_to_frozen(&self, at: Coord) -> bool {
        at.neighbours()
            .iter()
            .any(|n| self.get(*n).is_some_and(|c| c.frozen()))
    }

    /// Empty cells next to a card and in bounds, in reading order.
    pub fn frontier(&self) -> Vec<Coord> {
        let mut set = BTreeSet::new();
        for at in self.cells.keys() {
            for n in at.neighbours() {
                if !self.occupied(n) && self.in_bounds(n).is_ok() {
                    set.insert(n);
                }
            }
        }
        set.into_iter().collect()
    }

    /// Water-type cells, in reading order (ship destinations).
    pub fn water_cells(&self) -> Vec<Coord> {
        self.cells()
            .filter(|(_, c)| c.cell_type == CellType::Water)
            .map(|(at, _)| at)
            .collect()
    }

    /// Whether `card`, played by a seat of `team` as `ty`, may go to `at`
    /// (rules §3.9 for ordinary cards, §9 for flood and bridge). `ship` is the
    /// ship's cell, which a bridge may not cover.
    pub fn check(
        &self,
        card: &Card,
        ty: CellType,
        team: Team,
        at: Coord,
        ship: Option<Coord>,
    ) -> Result<(), Fault> {
        if card.is_special(SpecialKind::Flood) {
            let cell = self.get(at).ok_or(Fault::NothingToCover)?;
            if cell.frozen() {
                return Err(Fault::Frozen);
            }
            let target = &cell.card;
            let ok = target.is_special(SpecialKind::Bridge)
                || (target.kind == CardKind::Harbour && target.goods.total() == 1);
            return if ok { Ok(()) } else { Err(Fault::FloodTarget) };
        }
        if card.is_special(SpecialKind::Bridge) {
            let cell = self.get(at).ok_or(Fault::NothingToCover)?;
            if cell.card.kind == CardKind::Centre {
                return Err(Fault::BridgeCentre);
            }
            if !(cell.card.kind == CardKind::Water || cell.card.is_special(SpecialKind::Flood)) {
                return Err(Fault::BridgeTarget);
            }
            if ship == Some(at) {
                return Err(Fault::BridgeShip);
            }
            if self.next_to_frozen(at) {
                return Err(Fault::BridgeNextToFrozen);
            }
            if let Some((t, c)) = self.crane_blocker(at, team) {
                return Err(Fault::CraneBlocked(t, c));
            }
            return Ok(());
        }
        if self.occupied(at) {
            return Err(Fault::Occupied);
        }
        if !self.has_neighbour(at) {
            return Err(Fault::NotAdjacent);
        }
        self.in_bounds(at).map_err(Fault::OutOfBounds)?;
        if ty == CellType::Harbour
            && let Some((t, c)) = self.crane_blocker(at, team)
        {
            return Err(Fault::CraneBlocked(t, c));
        }
        Ok(())
    }

    /// Every legal cell for `card` played as `ty`, in reading order.
    pub fn targets(
        &self,
        card: &Card,
        ty: CellType,
        team: Team,
        ship: Option<Coord>,
    ) -> Vec<Coord> {
        let candidates: Vec<Coord> = if card.is_covering() {
            self.cells.keys().copied().collect()
        } else {
            self.frontier()
        };
        candidates
            .into_iter()
            .filter(|at| self.check(card, ty, team, *at, ship).is_ok())
            .collect()
    }

    /// Whether `card` has any legal cell (the S1 selectability test).
    pub fn has_target(&self, card: &Card, ty: CellType, team: Team, ship: Option<Coord>) -> bool {
        if card.is_covering() {
            return self
                .cells
                .keys()
                .any(|at| self.check(card, ty, team, *at, ship).is_ok());
        }
        self.cells.keys().any(|at| {
            at.neighbours()
                .into_iter()
                .any(|n| !self.occupied(n) && self.check(card, ty, team, n, ship).is_ok())
        })
    }

    /// The regions (rules §3.10): maximal 4-connected sets of harbour-type
    /// cells, each in reading order, listed by their first cell.
    pub fn regions(&self) -> Vec<Vec<Coord>> {
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for (at, cell) in &self.cells {
            if cell.cell_type != CellType::Harbour || seen.contains(at) {
                continue;
            }
            let mut region = Vec::new();
            let mut queue = VecDeque::from([*at]);
            seen.insert(*at);
            while let Some(c) = queue.pop_front() {
                region.push(c);
                for n in c.neighbours() {
                    if self.cell_type(n) == Some(CellType::Harbour) && seen.insert(n) {
                        queue.push_back(n);
                    }
                }
            }
            region.sort();
            out.push(region);
        }
        out.sort();
        out
    }

    /// Whether a region is fully closed (rules §3.11).
    pub fn is_closed(&self, region: &[Coord]) -> bool {
        let edge_closes = self.both_fixed();
        region.iter().all(|c| {
            c.neighbours()
                .iter()
                .all(|n| self.occupied(*n) || (edge_closes && !self.inside_final(*n)))
        })
    }

    /// Whether the board is full (rules §10.1).
    pub fn is_full(&self) -> bool {
        let Some((fx, fy)) = self.final_rect() else {
            return false;
        };
        (fy[0]..=fy[1]).all(|y| (fx[0]..=fx[1]).all(|x| self.occupied(Coord::new(x, y))))
    }

    /// The counts of a region (rules §7.2, §7.4, §7.6).
    pub fn tally(&self, region: &[Coord]) -> Tally {
        let mut t = Tally {
            size: region.len() as u32,
            distance: region.iter().map(|c| c.distance()).min().unwrap_or(0),
            ..Tally::default()
        };
        let mut earliest: [Option<(u32, Coord)>; 2] = [None, None];
        for at in region {
            let Some(cell) = self.get(*at) else { continue };
            let card = &cell.card;
            if card.is_special(SpecialKind::Customs) {
                t.customs += 1;
            }
            if card.kind != CardKind::Harbour {
                continue;
            }
            let (goods, slot) = match card.colour {
                Some(Team::Red) => (&mut t.red, 0),
                Some(Team::Black) => (&mut t.black, 1),
                None => continue,
            };
            goods.add(&card.goods);
            if card.goods.total() > 0
                && let Some(e) = earliest.get_mut(slot)
                && e.is_none_or(|(p, _)| cell.placed < p)
            {
                *e = Some((cell.placed, *at));
            }
        }
        t.red_centre = earliest[0].map(|(_, c)| c);
        t.black_centre = earliest[1].map(|(_, c)| c);
        t
    }
}

/// What a region holds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    pub red: Goods,
    pub black: Goods,
    /// Harbour-type cards (rules §7.6).
    pub size: u32,
    /// Customs played as harbour in the region (rules §7.4).
    pub customs: u32,
    /// Distance to the centre (rules §3.13).
    pub distance: i32,
    /// Each team's distribution centre: its earliest-placed goods card (rules §7.2).
    pub red_centre: Option<Coord>,
    pub black_centre: Option<Coord>,
}

/// The step of rules §7.3 that decided a region.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DecidingRule {
    /// Step 1: no commodity has an advantage; nobody wins.
    NoAdvantage,
    /// Step 2: the larger largest advantage wins.
    LargestAdvantage,
    /// Step 3: more commodities in advantage win.
    MoreAdvantages,
    /// Step 4: wine beats spice, spice beats tea, tea beats wine.
    CommodityValue,
}

/// The winner of a region and why (rules §7.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub winner: Option<Team>,
    pub rule: DecidingRule,
    /// Red's advantage per commodity: `count[Red][k] - count[Black][k]`.
    pub diff: [i64; 3],
}

/// Decides a region from the two teams' counts (rules §7.3).
pub fn decide(red: &Goods, black: &Goods) -> Verdict {
    let diff = Commodity::ALL.map(|k| i64::from(red.get(k)) - i64::from(black.get(k)));
    let adv = |sign: i64| -> Vec<(Commodity, i64)> {
        Commodity::ALL
            .iter()
            .zip(diff.iter())
            .filter(|(_, d)| **d * sign > 0)
            .map(|(k, d)| (*k, (*d).abs()))
            .collect()
    };
    let (r, b) = (adv(1), adv(-1));
    let verdict = |winner, rule| Verdict { winner, rule, diff };
    if r.is_empty() && b.is_empty() {
        return verdict(None, DecidingRule::NoAdvantage);
    }
    let max = |v: &[(Commodity, i64)]| v.iter().map(|(_, d)| *d).max().unwrap_or(0);
    let (mr, mb) = (max(&r), max(&b));
    if mr != mb {
        let w = if mr > mb { Team::Red } else { Team::Black };
        return verdict(Some(w), DecidingRule::LargestAdvantage);
    }
    if r.len() != b.len() {
        let w = if r.len() > b.len() {
            Team::Red
        } else {
            Team::Black
        };
        return verdict(Some(w), DecidingRule::MoreAdvantages);
    }
    match (r.as_slice(), b.as_slice()) {
        ([(kr, _)], [(kb, _)]) if kr.beats(*kb) => {
            verdict(Some(Team::Red), DecidingRule::CommodityValue)
        }
        ([(kr, _)], [(kb, _)]) if kb.beats(*kr) => {
            verdict(Some(Team::Black), DecidingRule::CommodityValue)
        }
        // Unreachable with three commodities (rules §7.3: steps 1–4 are exhaustive).
        _ => verdict(None, DecidingRule::NoAdvantage),
    }
}

/// A region taking part in the top-5 selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Candidate {
    pub index: usize,
    pub size: u32,
    pub distance: i32,
}

/// The top-5 selection of rules §7.6; answers the selected indices, largest first.
pub fn select_top(candidates: &[Candidate], slots: usize) -> Vec<usize> {
    let mut slots = slots;
    let mut by_size: BTreeMap<std::cmp::Reverse<u32>, Vec<Candidate>> = BTreeMap::new();
    for c in candidates {
        by_size
            .entry(std::cmp::Reverse(c.size))
            .or_default()
            .push(*c);
    }
    let mut selected = Vec::new();
    for group in by_size.values() {
        if slots == 0 {
            break;
        }
        if group.len() <= slots {
            selected.extend(group.iter().map(|c| c.index));
            slots -= group.len();
            continue;
        }
        let mut by_distance: BTreeMap<i32, Vec<usize>> = BTreeMap::new();
        for c in group {
            by_distance.entry(c.distance).or_default().push(c.index);
        }
        for sub in by_distance.values() {
            if slots == 0 {
                break;
            }
            if sub.len() <= slots {
                selected.extend(sub.iter().copied());
                slots -= sub.len();
            }
        }
    }
    selected
}
