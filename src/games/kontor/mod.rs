//! Kontor (Michael Schacht, Goldsieber 1999): a sealed simultaneous card choice,
//! then building a harbour on a growing grid. The authority is
//! shared/rules/kontor.md; docs/rules/kontor.md says how this engine plays it.
//!
//! Seats are 0-based: with 2 seats, seat 0 is Red and seat 1 Black; with 4 seats,
//! seats 0 and 1 are team Red and seats 2 and 3 team Black, and the tax pairs are
//! (0, 2) and (1, 3).

mod board;
mod cards;
mod moves;
mod position;
mod rules;
mod templates;
mod view;

#[cfg(test)]
mod bot_tests;
#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

pub use board::Coord;
pub use cards::{Card, CardKind, CellType, Goods, KontorData, SpecialKind, Team};
pub use position::{Position, PositionCell, PositionPlayer, PositionReveal};
pub use rules::{AllPassPolicy, State, Variant};
pub use templates::KontorTemplate;
pub use view::View;

use super::rng::GameRng;
use super::{
    DataFile, Game, GameInfo, Outcome, Placing, Progress, Prompt, RuleError, Seat, Transition,
    Viewer,
};
use rules::{Choice, Out, Phase};

/// The Kontor rules engine.
pub struct Kontor;

/// Match options.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct Options {
    /// `basic` (2 seats, 6×6), `duel` (2 seats, 7×7, ship, top-5 scoring) or
    /// `team` (4 seats, 8×8, ship, top-5 scoring, special cards). Default null:
    /// 2 seats play `basic` and 4 seats play `team`. A variant that does not fit
    /// the seat count is rejected.
    pub variant: Option<Variant>,
    /// `no_repeat` (default): after a round in which every seat passed, nobody
    /// with a selectable card may pass. `allowed`: no restriction.
    pub all_pass_policy: AllPassPolicy,
}

/// A move. `choose` and `pass` are the sealed choice of step S1; `place` is an
/// acting seat's turn in step S5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Choose a card of the hand, face down (S1). It must have a legal placement now.
    Choose {
        /// The card id.
        card: String,
    },
    /// Pass for a coin from the bank (S1, rules §6.1).
    Pass {},
    /// Place the revealed card (S5): optionally move the ship and remove a card
    /// first (duel and team, ship-symbol cards only), then place.
    Place {
        /// The cell: an empty cell for ordinary cards and customs, an occupied
        /// cell for a flood or a bridge.
        cell: Coord,
        /// A customs card's declaration, `water` or `harbour` (customs only).
        #[serde(rename = "as", default, skip_serializing_if = "Option::is_none")]
        as_type: Option<CellType>,
        /// Move the ship to this water-type card first (rules §8.1).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ship_to: Option<Coord>,
        /// After moving the ship, remove the ship-symbol card at this cell (§8.2).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        remove: Option<Coord>,
        /// Team game: the seat of the owning team that receives the removed card.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        recipient_seat: Option<Seat>,
    },
}

/// The variant and the all-pass policy of a match.
fn variant_of(seats: usize, options: &Options) -> Result<Variant, RuleError> {
    rules::resolve_variant(seats, options.variant)
}

impl Game for Kontor {
    type Data = KontorData;
    type Options = Options;
    type Position = Position;
    type State = State;
    type Action = Action;
    type View = View;
    type Template = KontorTemplate;

    fn prompt_kinds() -> &'static [&'static str] {
        &["choose", "place"]
    }

    fn example_action() -> Action {
        Action::Choose {
            card: "red_3".to_owned(),
        }
    }

    fn event_kinds() -> &'static [&'static str] {
        &[
            "axis_fixed",
            "card_drawn",
            "card_placed",
            "card_removed",
            "card_returned",
            "cards_revealed",
            "game_ended",
            "pass_coin",
            "play_order",
            "region_scored",
            "round_ended",
            "ship_moved",
            "tax",
            "water_grant",
            "you_drew",
        ]
    }

    fn info() -> GameInfo {
        GameInfo {
            id: "kontor",
            name: "Kontor",
            seats: vec![2, 4],
            options: json!({"variant": null, "all_pass_policy": "no_repeat"}),
            summary: "Merchants build Amsterdam's harbour card by card: every round each seat \
                      chooses a card face down, then the cards are placed in number order, and \
                      closed harbour regions go to the team with the better warehouses. \
                      Variants: basic (2 seats, 6x6), duel (2 seats, 7x7, ship, top-5 scoring), \
                      team (4 seats as 2 vs 2, 8x8, ship, top-5 scoring, special cards); \
                      without the variant option 2 seats play basic and 4 seats play team.",
        }
    }

    fn data_files() -> &'static [DataFile] {
        &[
            DataFile {
                name: "components.json",
                embedded: include_str!("../../../data/kontor/components.json"),
            },
            DataFile {
                name: "harbour_cards.json",
                embedded: include_str!("../../../data/kontor/harbour_cards.json"),
            },
            DataFile {
                name: "water_cards.json",
                embedded: include_str!("../../../data/kontor/water_cards.json"),
            },
            DataFile {
                name: "special_cards.json",
                embedded: include_str!("../../../data/kontor/special_cards.json"),
            },
        ]
    }

    fn load_data(files: &[(&str, &str)]) -> Result<KontorData, String> {
        cards::parse_files(files)
    }

    fn setup(
        data: &KontorData,
        seats: usize,
        options: &Options,
        rng: &mut GameRng,
    ) -> Result<State, RuleError> {
        let variant = variant_of(seats, options)?;
        rules::setup(data, seats, variant, options.all_pass_policy, rng)
    }

    fn from_position(
        data: &KontorData,
        seats: usize,
        options: &Options,
        position: Position,
    ) -> Result<State, RuleError> {
        let variant = variant_of(seats, options)?;
        position::from_position(data, seats, variant, options.all_pass_policy, position)
    }

    fn progress(state: &State) -> Progress {
        match state.phase {
            Phase::Finished => Progress::Finished(outcome(state)),
            Phase::Choose => Progress::Active(Prompt {
                kind: "choose".into(),
                round: Some(state.round),
                sealed: true,
                awaiting: state.awaiting(),
            }),
            Phase::Place => Progress::Active(Prompt {
                kind: "place".into(),
                round: Some(state.round),
                sealed: false,
                awaiting: state.awaiting(),
            }),
        }
    }

    fn legal(state: &State, seat: Seat) -> Option<Vec<Value>> {
        moves::legal(state, seat)
    }

    fn validate(state: &State, seat: Seat, action: &Action) -> Result<(), RuleError> {
        moves::check(state, seat, action).map(|_| ())
    }

    fn apply(
        state: &State,
        seat: Seat,
        action: &Action,
        _rng: &mut GameRng,
    ) -> Result<Transition<State>, RuleError> {
        let plan = moves::check(state, seat, action)?;
        let mut next = state.clone();
        let mut out = Out::default();
        let completes_step = match (action, plan) {
            (Action::Choose { card }, _) => {
                next.submit(seat, Choice::Card { card: card.clone() }, &mut out)?
            }
            (Action::Pass {}, _) => next.submit(seat, Choice::Pass, &mut out)?,
            (Action::Place { .. }, Some(plan)) => {
                next.place(seat, plan, &mut out)?;
                true
            }
            (Action::Place { .. }, None) => {
                return Err(RuleError::illegal("No card is waiting to be placed."));
            }
        };
        Ok(Transition {
            state: next,
            completes_step,
            reveal: out.reveal,
            events: out.events,
            rounds: out.rounds,
        })
    }

    fn view(state: &State, viewer: Viewer) -> View {
        view::view(state, viewer)
    }

    fn public_part(_state: &State, _seat: Seat, action: &Action) -> Option<Value> {
        match action {
            // A pass and a card look the same until the reveal.
            Action::Choose { .. } | Action::Pass {} => Some(json!({})),
            Action::Place { .. } => None,
        }
    }

    fn null_move(state: &State, seat: Seat) -> Option<Action> {
        moves::null_move(state, seat)
    }
    /// The markers each seat's team has won so far (rules §7): every scored
    /// region counts here, the top-5 selection of `duel` and `team` is made only
    /// at the end.
    fn standings(state: &State) -> Vec<i64> {
        let markers = state.markers();
        (0..state.seat_count())
            .map(|seat| i64::from(markers.get(state.team(seat))))
            .collect()
    }

    fn variant(seats: usize, options: &Self::Options) -> String {
        variant_of(seats, options)
            .ok()
            .and_then(|v| serde_json::to_value(v).ok())
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "standard".to_owned())
    }
}

/// The placings: both seats of a team share the team's points and rank; ties on
/// points go to the team with more money, and then it is a draw (rules §7.5).
fn outcome(state: &State) -> Outcome {
    let (points, winner) = match &state.result {
        Some(r) => (r.points, r.winner),
        None => (rules::TeamTotals::default(), None),
    };
    let n = state.seat_count();
    let winners = (0..n)
        .filter(|s| winner.is_none_or(|w| state.team(*s) == w))
        .count();
    let mut placings: Vec<Placing> = (0..n)
        .map(|seat| {
            let team = state.team(seat);
            let rank = if winner.is_none_or(|w| w == team) {
                1
            } else {
                winners as u32 + 1
            };
            Placing {
                seat,
                score: i64::from(points.get(team)),
                rank,
            }
        })
        .collect();
    placings.sort_by(|a, b| a.rank.cmp(&b.rank).then(a.seat.cmp(&b.seat)));
    Outcome { placings }
}
