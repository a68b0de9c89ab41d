//! What each viewer may see (rules §5 "What a seat sees", §11).

use serde::Serialize;
use utoipa::ToSchema;

use super::board::{Coord, Layout};
use super::cards::{Card, CellType, Goods, Team};
use super::rules::{
    AllPassPolicy, Choice, FinalResult, Phase, RoundLog, ScoredRegion, State, TeamTotals, Variant,
};
use crate::games::{Seat, Viewer};

/// The match as one viewer may see it.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct View {
    pub variant: Variant,
    pub all_pass_policy: AllPassPolicy,
    /// N of the N×N final board.
    pub board_size: i32,
    /// The seat looking, or null for a spectator.
    pub viewer: Option<Seat>,
    /// The round being played, from 1.
    pub round: u32,
    pub phase: Phase,
    /// Every seat passed last round (with `no_repeat`, nobody with a selectable
    /// card may pass now).
    pub last_round_all_passed: bool,
    pub board: BoardView,
    /// Coins in Amsterdam's treasury.
    pub bank: u32,
    /// The shared face-up water deck.
    pub water_deck: DeckView,
    /// Public facts per seat.
    pub players: Vec<PlayerView>,
    /// The viewer's own hand (null for spectators).
    pub hand: Option<Vec<Card>>,
    /// The viewer's own sealed choice this round, until the reveal.
    pub my_choice: Option<Choice>,
    /// Whether the viewer may pass now (null when it owes no choice).
    pub may_pass: Option<bool>,
    /// The turns of this round (during S5): the play order and revealed cards.
    pub turn: Option<TurnView>,
    /// This round's public log so far (after the reveal).
    pub this_round: Option<RoundLog>,
    /// The previous round: revealed cards, taxes, placements, money changes.
    pub previous_round: Option<RoundLog>,
    /// Marker points so far (every scored region won).
    pub markers: TeamTotals,
    /// The final scoring, once the game is over.
    pub result: Option<FinalResult>,
}

/// A face-up deck: its size and its top card.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeckView {
    pub size: usize,
    pub top: Option<Card>,
}

/// What everyone knows about a seat.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub team: Team,
    pub money: u32,
    /// Cards in hand. A card chosen face down stays counted here until the reveal.
    pub hand_size: usize,
    /// The seat's own face-up harbour deck.
    pub harbour_deck: DeckView,
    /// In the choose step: whether the seat has submitted (never what).
    pub submitted: bool,
}

/// The board, ready to draw.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BoardView {
    /// Occupied cells in reading order (top row first, left to right).
    pub cells: Vec<CellView>,
    pub bounds: BoundsView,
    /// The ship's cell (duel and team).
    pub ship: Option<Coord>,
    /// The current regions (connected harbour-type cards), with their warehouses.
    pub regions: Vec<RegionView>,
    /// Every region scored so far, with its majority breakdown and marker.
    pub scored_regions: Vec<ScoredRegion>,
    /// Ids of covered cards whose cell the ship later emptied (out of play).
    pub discarded: Vec<String>,
}

/// One occupied cell.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct CellView {
    pub x: i32,
    pub y: i32,
    pub card: Card,
    /// What the cell counts as (a customs shows its declaration).
    #[serde(rename = "type")]
    pub cell_type: CellType,
    /// The seat that played the card (null for the starting cross).
    pub played_by: Option<Seat>,
    /// The card belongs to a scored region.
    pub frozen: bool,
    pub scored_region: Option<usize>,
    /// Ids of cards covered here by a flood or bridge (out of play).
    pub covered: Vec<String>,
}

/// The extent of the board (rules §3.4–3.6).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BoundsView {
    pub min_x: i32,
    pub max_x: i32,
    pub min_y: i32,
    pub max_y: i32,
    pub width: i32,
    pub height: i32,
    /// The fixed x range once the width reached N.
    pub fixed_x: Option<[i32; 2]>,
    /// The fixed y range once the height reached N.
    pub fixed_y: Option<[i32; 2]>,
    /// Both axes are fixed: the final board is `fixed_x × fixed_y`.
    pub final_board: bool,
}

/// A region as it stands.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RegionView {
    pub cells: Vec<Coord>,
    /// Harbour-type cards.
    pub size: u32,
    pub distance: i32,
    pub closed: bool,
    /// Index into `scored_regions` once scored (its warehouses are then gone).
    pub scored_region: Option<usize>,
    pub customs: u32,
    pub red: Warehouses,
    pub black: Warehouses,
}

/// A team's warehouses in a region and the cell of its distribution centre.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Warehouses {
    pub goods: Goods,
    pub centre: Option<Coord>,
}

/// The turns of the round in progress.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct TurnView {
    /// Acting seats in play order.
    pub order: Vec<Seat>,
    /// The seat placing now.
    pub current: Option<Seat>,
    /// Revealed cards still to be placed, per seat (null: none).
    pub waiting: Vec<Option<Card>>,
}

fn deck(cards: &[Card]) -> DeckView {
    DeckView {
        size: cards.len(),
        top: cards.first().cloned(),
    }
}

fn region_views(layout: &Layout<'_>) -> Vec<RegionView> {
    layout
        .regions()
        .into_iter()
        .map(|cells| {
            let scored = cells
                .iter()
                .find_map(|c| layout.get(*c).and_then(|x| x.scored_region));
            let t = layout.tally(&cells);
            let (red, black) = if scored.is_some() {
                (Goods::default(), Goods::default())
            } else {
                (t.red, t.black)
            };
            RegionView {
                size: t.size,
                distance: t.distance,
                closed: layout.is_closed(&cells),
                scored_region: scored,
                customs: t.customs,
                red: Warehouses {
                    goods: red,
                    centre: scored.is_none().then_some(t.red_centre).flatten(),
                },
                black: Warehouses {
                    goods: black,
                    centre: scored.is_none().then_some(t.black_centre).flatten(),
                },
                cells,
            }
        })
        .collect()
}

/// Builds the view for one viewer.
pub fn view(state: &State, viewer: Viewer) -> View {
    let me = match viewer {
        Viewer::Seat(s) if s < state.seat_count() => Some(s),
        _ => None,
    };
    let layout = state.layout();
    let b = layout.bounds();
    let bounds = BoundsView {
        min_x: b.map_or(0, |b| b.min_x),
        max_x: b.map_or(0, |b| b.max_x),
        min_y: b.map_or(0, |b| b.min_y),
        max_y: b.map_or(0, |b| b.max_y),
        width: b.map_or(0, |b| b.width()),
        height: b.map_or(0, |b| b.height()),
        fixed_x: state.fixed_x,
        fixed_y: state.fixed_y,
        final_board: layout.both_fixed(),
    };
    let cells = state
        .board
        .iter()
        .map(|c| CellView {
            x: c.x,
            y: c.y,
            card: c.card.clone(),
            cell_type: c.cell_type,
            played_by: c.played_by,
            frozen: c.frozen(),
            scored_region: c.scored_region,
            covered: c.covered.iter().map(|k| k.id.clone()).collect(),
        })
        .collect();
    let choosing = state.phase == Phase::Choose;
    let players = state
        .players
        .iter()
        .map(|p| PlayerView {
            seat: p.seat,
            team: p.team,
            money: p.money,
            hand_size: p.hand.len(),
            harbour_deck: deck(&p.harbour_deck),
            submitted: choosing && p.choice.is_some(),
        })
        .collect();
    let own = me.and_then(|s| state.players.get(s));
    let turn = state
        .turn
        .as_ref()
        .filter(|_| state.phase == Phase::Place)
        .map(|t| TurnView {
            order: t.order.clone(),
            current: state.current().map(|(s, _)| s),
            waiting: t.cards.clone(),
        });
    View {
        variant: state.variant,
        all_pass_policy: state.all_pass_policy,
        board_size: state.board_size,
        viewer: me,
        round: state.round,
        phase: state.phase,
        last_round_all_passed: state.last_round_all_passed,
        board: BoardView {
            cells,
            bounds,
            ship: state.ship,
            regions: region_views(&layout),
            scored_regions: state.scored_regions.clone(),
            discarded: state.discarded.iter().map(|c| c.id.clone()).collect(),
        },
        bank: state.bank,
        water_deck: deck(&state.water_deck),
        players,
        hand: own.map(|p| p.hand.clone()),
        my_choice: own.and_then(|p| p.choice.clone()),
        may_pass: me
            .filter(|_| choosing && own.is_some_and(|p| p.choice.is_none()))
            .map(|s| state.pass_allowed(s)),
        turn,
        this_round: (state.phase == Phase::Place).then(|| state.round_log.clone()),
        previous_round: state.previous_round.clone(),
        markers: state.markers(),
        result: state.result.clone(),
    }
}
