//! The rules of Heretics: the match state, the duel resolution of rules §5 and
//! the round flow of rules §4 and §6. Pure functions, no I/O.

use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::data::{Ability, City, Personality};
use crate::games::{Event, LedgerEntry, RoundRecord, RuleError, Seat, SeatRecord};

/// The prompt kind of the only decision of the game (rules §4 step R2).
pub const PROMPT_CHOOSE: &str = "choose_personality";

/// The whole match state. It is stored as JSON between moves and published as
/// `final_state` once the match ends, so it holds hidden parts (hands, sealed
/// plays, the city deck order) that only `view` filters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HereticsState {
    /// Number of seats N (2..=4).
    pub seats: usize,
    /// Option `special_cities`: when false every city's abilities are ignored.
    pub special_cities: bool,
    /// The faction of each seat.
    pub factions: Vec<String>,
    /// Catalogue of the personality cards in play (the seated factions' cards).
    pub personalities: Vec<Personality>,
    /// Catalogue of the cities in play, in data order (never deck order).
    pub cities: Vec<City>,
    /// Wave of reformation, 1 or 2.
    pub wave: u32,
    /// Cities revealed so far in the whole match (rules §3/§4 R1: never reset).
    pub round: u32,
    /// Cities revealed so far in the current wave.
    pub wave_round: u32,
    /// The face-up city of the current round; None between rounds and at the end.
    pub current_city: Option<String>,
    /// Each seat's hand (private), ordered by printed strength.
    pub hand: Vec<Vec<String>>,
    /// Each seat's face-down card for the current round (sealed until R3).
    pub played: Vec<Option<String>>,
    /// Each seat's Temple (public), in order of arrival.
    pub temple: Vec<Vec<String>>,
    /// The shared Cemetery (public), in order of arrival; a card's owner is the
    /// seat of its faction.
    pub cemetery: Vec<String>,
    /// Each seat's won cities (public), in order of winning.
    pub won_cities: Vec<Vec<String>>,
    /// Cities nobody won (public), in order.
    pub unclaimed: Vec<String>,
    /// The face-down city deck, top first (hidden).
    pub city_deck: Vec<String>,
    /// Each seat's score: the significance of its won cities.
    pub scores: Vec<i64>,
    /// Every resolved round (public), oldest first.
    pub history: Vec<RoundSummary>,
    /// True once the game has ended (rules §6.3).
    pub finished: bool,
}

/// The status of a seat in a duel (rules §5 step 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Absent,
    Sacrificed,
    Failed,
    Qualified,
}

impl Status {
    pub fn id(self) -> &'static str {
        match self {
            Status::Absent => "absent",
            Status::Sacrificed => "sacrificed",
            Status::Failed => "failed",
            Status::Qualified => "qualified",
        }
    }
}

/// Where a played card went (rules §5 step 5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Destination {
    Temple,
    Cemetery,
}

impl Destination {
    pub fn id(self) -> &'static str {
        match self {
            Destination::Temple => "temple",
            Destination::Cemetery => "cemetery",
        }
    }
}

/// The role a seat ended the duel with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Played no card (empty hand in wave 2): loses the duel (rules §6.2).
    Absent,
    /// Won the city.
    Winner,
    /// Sacrificed: neither winner nor loser, the card goes to the Temple.
    Sacrificed,
    /// Every other played card.
    Loser,
}

/// One seat's part in a resolved round (rules §9 `per_seat`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SeatResult {
    pub seat: usize,
    /// The revealed personality, None when absent.
    pub card: Option<String>,
    /// Effective strength (printed + faction bonuses), None when absent.
    pub eff: Option<i64>,
    pub status: Status,
    /// True when a `cross` matcher made the card fail.
    pub crossed: bool,
    pub role: Role,
    /// Where the card went; None when absent.
    pub destination: Option<Destination>,
}

/// Where the city went: a seat's `won_cities`, or the `unclaimed` pile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum CityTo {
    Seat(usize),
    Pile(Unclaimed),
}

/// The unclaimed pile, written `"unclaimed"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Unclaimed {
    Unclaimed,
}

/// A resolved round, public once resolved (rules §9).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RoundSummary {
    pub wave: u32,
    pub round: u32,
    pub wave_round: u32,
    pub city_id: String,
    pub resistance: u32,
    pub significance: u32,
    /// The ability types that changed something this round, in the city's order.
    pub abilities_applied: Vec<String>,
    /// Each seat's revealed card, null when absent.
    pub plays: Vec<Option<String>>,
    pub per_seat: Vec<SeatResult>,
    /// `a`, `b`, `c`, `d`, `battle` or `seven` (rules §5 outcome labels).
    pub outcome_label: String,
    pub winner_seat: Option<usize>,
    pub city_to: CityTo,
    pub score_after: Vec<i64>,
}

/// The result of rules §5 for one city, before anything moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Duel {
    pub per_seat: Vec<SeatResult>,
    pub winner: Option<Seat>,
    pub label: &'static str,
    pub abilities_applied: Vec<String>,
}

/// Rules §5, steps 1–5: statuses, the seven, the contest and destinations.
/// `n` is the number of seats in the match, `plays[s]` seat s's card or None.
pub fn resolve_duel(
    n: usize,
    resistance: u32,
    abilities: &[Ability],
    plays: &[Option<&Personality>],
) -> Duel {
    let mut applied: Vec<&'static str> = Vec::new();
    let mut mark = |a: &Ability| {
        if !applied.contains(&a.type_id()) {
            applied.push(a.type_id());
        }
    };
    // Step 1: effective strength.
    let eff: Vec<Option<i64>> = plays
        .iter()
        .map(|p| {
            p.map(|card| {
                let mut e = i64::from(card.strength);
                for a in abilities {
                    if let Ability::FactionBonus { faction, bonus } = a
                        && *faction == card.faction
                    {
                        e += bonus;
                        mark(a);
                    }
                }
                e
            })
        })
        .collect();
    // Step 2: status.
    let mut status = Vec::with_capacity(plays.len());
    let mut crossed = vec![false; plays.len()];
    for (s, p) in plays.iter().enumerate() {
        let st = match (p, eff.get(s).copied().flatten()) {
            (Some(card), Some(e)) => {
                let sacrifice = abilities.iter().find(|a| {
                    matches!(a, Ability::Sacrifice { max_strength } if card.strength <= *max_strength)
                });
                let cross = abilities.iter().find(|a| {
                    matches!(a, Ability::Cross { cards } if cards.iter().any(|m| m.matches(card)))
                });
                if let Some(a) = sacrifice {
                    mark(a);
                    Status::Sacrificed
                } else if let Some(a) = cross {
                    mark(a);
                    crossed[s] = true;
                    Status::Failed
                } else if e < i64::from(resistance) {
                    Status::Failed
                } else {
                    Status::Qualified
                }
            }
            _ => Status::Absent,
        };
        status.push(st);
    }
    // Step 3: the seven.
    let mut seven = false;
    for a in abilities {
        if let Ability::Seven {
            number,
            count_2p,
            count_multi,
        } = a
        {
            let count = plays
                .iter()
                .flatten()
                .filter(|c| c.strength == *number)
                .count();
            let needed = if n == 2 { *count_2p } else { *count_multi };
            if count >= needed as usize {
                seven = true;
                mark(a);
            }
        }
    }
    // Step 4: contest among the qualified.
    let qualified: Vec<(Seat, i64)> = status
        .iter()
        .enumerate()
        .filter(|(_, st)| **st == Status::Qualified)
        .filter_map(|(s, _)| eff.get(s).copied().flatten().map(|e| (s, e)))
        .collect();
    let mut winner = None;
    let mut top_group_size = 0;
    if !seven {
        let mut values: Vec<i64> = qualified.iter().map(|(_, e)| *e).collect();
        values.sort_unstable_by(|a, b| b.cmp(a));
        values.dedup();
        for (i, v) in values.iter().enumerate() {
            let group: Vec<Seat> = qualified
                .iter()
                .filter(|(_, e)| e == v)
                .map(|(s, _)| *s)
                .collect();
            if i == 0 {
                top_group_size = group.len();
            }
            if let [only] = group.as_slice() {
                winner = Some(*only);
                break;
            }
        }
    }
    let label = if seven {
        "seven"
    } else {
        match qualified.len() {
            0 => "a",
            1 => "b",
            _ if top_group_size == 1 => "d",
            _ if n == 2 => "c",
            _ => "battle",
        }
    };
    // Step 5: roles and destinations.
    let mut per_seat = Vec::with_capacity(plays.len());
    for (s, p) in plays.iter().enumerate() {
        let st = status.get(s).copied().unwrap_or(Status::Absent);
        let (role, destination) = match (p, st) {
            (None, _) | (_, Status::Absent) => (Role::Absent, None),
            (Some(_), Status::Sacrificed) => (Role::Sacrificed, Some(Destination::Temple)),
            (Some(_), _) if winner == Some(s) => (Role::Winner, Some(Destination::Temple)),
            (Some(card), _) => {
                let saved = abilities.iter().find(|a| {
                    matches!(a, Ability::LosersToTemple { factions } if factions.contains(&card.faction))
                });
                match saved {
                    Some(a) => {
                        mark(a);
                        (Role::Loser, Some(Destination::Temple))
                    }
                    None => (Role::Loser, Some(Destination::Cemetery)),
                }
            }
        };
        per_seat.push(SeatResult {
            seat: s,
            card: p.map(|c| c.id.clone()),
            eff: eff.get(s).copied().flatten(),
            status: st,
            crossed: crossed.get(s).copied().unwrap_or(false),
            role,
            destination,
        });
    }
    // Report applied abilities in the city's own order.
    let abilities_applied = abilities
        .iter()
        .map(Ability::type_id)
        .filter(|t| applied.contains(t))
        .fold(Vec::new(), |mut acc: Vec<String>, t| {
            if !acc.iter().any(|x| x == t) {
                acc.push(t.to_owned());
            }
            acc
        });
    Duel {
        per_seat,
        winner,
        label,
        abilities_applied,
    }
}

impl HereticsState {
    pub fn card(&self, id: &str) -> Option<&Personality> {
        self.personalities.iter().find(|p| p.id == id)
    }

    pub fn city(&self, id: &str) -> Option<&City> {
        self.cities.iter().find(|c| c.id == id)
    }

    /// The seat that owns a card: the seat of its faction.
    pub fn owner(&self, card: &str) -> Option<Seat> {
        let faction = &self.card(card)?.faction;
        self.factions.iter().position(|f| f == faction)
    }

    /// The abilities in force for a city (none when `special_cities` is off).
    pub fn active_abilities<'a>(&self, city: &'a City) -> &'a [Ability] {
        if self.special_cities {
            &city.abilities
        } else {
            &[]
        }
    }

    /// Seats that still owe a card this round: a card in hand, none played yet.
    pub fn awaiting(&self) -> Vec<Seat> {
        if self.finished || self.current_city.is_none() {
            return Vec::new();
        }
        (0..self.seats)
            .filter(|s| {
                self.played.get(*s).is_some_and(Option::is_none)
                    && self.hand.get(*s).is_some_and(|h| !h.is_empty())
            })
            .collect()
    }

    /// A seat's hand size as it was at the start of the step: a face-down card
    /// still counts as held until the reveal (COMMON: public counts never change
    /// while something is face down).
    pub fn public_hand_size(&self, seat: Seat) -> usize {
        let held = self.hand.get(seat).map_or(0, Vec::len);
        let down = self.played.get(seat).is_some_and(Option::is_some);
        held + usize::from(down)
    }

    fn sort_hand(&mut self, seat: Seat) {
        let Some(slot) = self.hand.get_mut(seat) else {
            return;
        };
        let mut cards = std::mem::take(slot);
        cards.sort_by_key(|id| (self.card(id).map_or(u32::MAX, |c| c.strength), id.clone()));
        if let Some(slot) = self.hand.get_mut(seat) {
            *slot = cards;
        }
    }

    /// Whether every per-seat list has one entry per seat (always true for a
    /// state built by setup or from a position; checked so a corrupted stored
    /// state gives an error, never a panic).
    pub fn shape_ok(&self) -> bool {
        let n = self.seats;
        self.factions.len() == n
            && self.hand.len() == n
            && self.played.len() == n
            && self.temple.len() == n
            && self.won_cities.len() == n
            && self.scores.len() == n
    }

    /// Sorts every hand by printed strength.
    pub fn sort_hands(&mut self) {
        for s in 0..self.hand.len() {
            self.sort_hand(s);
        }
    }

    /// Checks the move of `seat` (rules §4 step R2).
    pub fn check_play(&self, seat: Seat, card: &str) -> Result<(), RuleError> {
        if seat >= self.seats {
            return Err(RuleError::illegal(format!(
                "You cannot play {card}: seat {seat} is not in this match (seats are 0 to {}).",
                self.seats.saturating_sub(1)
            )));
        }
        if self.finished {
            return Err(RuleError::illegal(format!(
                "You cannot play {card}: the game is over (rules §6.3)."
            )));
        }
        if self.current_city.is_none() {
            return Err(RuleError::illegal(format!(
                "You cannot play {card}: no city is face up (rules §4 R1)."
            )));
        }
        if self.played.get(seat).is_some_and(Option::is_some) {
            return Err(RuleError::illegal(format!(
                "You cannot play {card}: you have already chosen a personality for this city (rules §4 R2)."
            )));
        }
        let hand = self.hand.get(seat).map(Vec::as_slice).unwrap_or(&[]);
        if hand.is_empty() {
            return Err(RuleError::illegal(format!(
                "You cannot play {card}: you have nobody left to send, so you are absent this round (rules §4 R2, §6.2)."
            )));
        }
        if !hand.iter().any(|c| c == card) {
            let where_ = if self
                .temple
                .get(seat)
                .is_some_and(|t| t.iter().any(|c| c == card))
            {
                "it is in your Temple until the next wave"
            } else if self.cemetery.iter().any(|c| c == card) {
                "it is in the Cemetery"
            } else if self.card(card).is_some() {
                "it is not your personality"
            } else {
                "there is no such personality"
            };
            return Err(RuleError::illegal(format!(
                "You cannot play {card}: it is not in your hand, {where_}; choose exactly one personality from your hand (rules §4 R2)."
            )));
        }
        Ok(())
    }

    /// Steps R0 and R1 (rules §4, §6): start wave 2 or end the game when the
    /// hands are empty, end it when the deck is empty, otherwise reveal a city.
    pub fn advance(&mut self, events: &mut Vec<Event>) {
        if self.finished || self.current_city.is_some() {
            return;
        }
        loop {
            let anyone_holds = self.hand.iter().any(|h| !h.is_empty());
            if !anyone_holds {
                if self.wave == 1 {
                    // Rules §6.1: the Temples go back to the hands.
                    for (hand, temple) in self.hand.iter_mut().zip(self.temple.iter_mut()) {
                        hand.append(temple);
                    }
                    self.sort_hands();
                    self.wave = 2;
                    self.wave_round = 0;
                    let sizes: Vec<usize> = self.hand.iter().map(Vec::len).collect();
                    events.push(Event::public(
                        "wave_started",
                        json!({"wave": 2, "hand_sizes": sizes}),
                    ));
                    continue;
                }
                self.finish(events);
                return;
            }
            if self.city_deck.is_empty() {
                self.finish(events);
                return;
            }
            let top = self.city_deck.remove(0);
            self.round += 1;
            self.wave_round += 1;
            let city = self.city(&top).cloned();
            self.current_city = Some(top);
            if let Some(mut city) = city {
                if !self.special_cities {
                    city.abilities.clear();
                }
                events.push(Event::public(
                    "city_revealed",
                    json!({"wave": self.wave, "round": self.round,
                           "wave_round": self.wave_round, "city": city,
                           "city_deck_size": self.city_deck.len()}),
                ));
            }
            return;
        }
    }

    fn finish(&mut self, events: &mut Vec<Event>) {
        self.finished = true;
        self.current_city = None;
        let best = self.scores.iter().copied().max().unwrap_or(0);
        let winners: Vec<Seat> = (0..self.seats)
            .filter(|s| self.scores.get(*s) == Some(&best))
            .collect();
        events.push(Event::public(
            "game_finished",
            json!({"scores": self.scores, "winners": winners}),
        ));
    }

    /// Step R3 (rules §5): reveal every card, resolve the duel, move the cards
    /// and the city, update the scores and the history.
    pub fn resolve_round(&mut self, events: &mut Vec<Event>) -> Result<RoundRecord, RuleError> {
        let city_id = self
            .current_city
            .take()
            .ok_or_else(|| RuleError::illegal("There is no city to resolve (rules §4 R3)."))?;
        let city = self
            .city(&city_id)
            .cloned()
            .ok_or_else(|| RuleError::illegal(format!("Unknown city {city_id}.")))?;
        let played = std::mem::replace(&mut self.played, vec![None; self.seats]);
        let cards: Vec<Option<Personality>> = played
            .iter()
            .map(|p| p.as_ref().and_then(|id| self.card(id).cloned()))
            .collect();
        let refs: Vec<Option<&Personality>> = cards.iter().map(Option::as_ref).collect();
        let duel = resolve_duel(
            self.seats,
            city.resistance,
            self.active_abilities(&city),
            &refs,
        );
        for r in &duel.per_seat {
            if let (Some(card), Some(dest)) = (&r.card, r.destination) {
                match (dest, self.temple.get_mut(r.seat)) {
                    (Destination::Temple, Some(temple)) => temple.push(card.clone()),
                    _ => self.cemetery.push(card.clone()),
                }
            }
        }
        let significance = i64::from(city.significance);
        let city_to = match duel.winner {
            Some(w) => {
                if let Some(won) = self.won_cities.get_mut(w) {
                    won.push(city_id.clone());
                }
                if let Some(score) = self.scores.get_mut(w) {
                    *score += significance;
                }
                CityTo::Seat(w)
            }
            None => {
                self.unclaimed.push(city_id.clone());
                CityTo::Pile(Unclaimed::Unclaimed)
            }
        };
        let summary = RoundSummary {
            wave: self.wave,
            round: self.round,
            wave_round: self.wave_round,
            city_id: city_id.clone(),
            resistance: city.resistance,
            significance: city.significance,
            abilities_applied: duel.abilities_applied.clone(),
            plays: played.clone(),
            per_seat: duel.per_seat.clone(),
            outcome_label: duel.label.to_owned(),
            winner_seat: duel.winner,
            city_to,
            score_after: self.scores.clone(),
        };
        events.push(Event::public(
            "round_resolved",
            serde_json::to_value(&summary).unwrap_or_default(),
        ));
        self.history.push(summary);
        let seats = duel
            .per_seat
            .iter()
            .map(|r| SeatRecord {
                seat: r.seat,
                card: r.card.clone(),
                kind: Some(r.status.id().to_owned()),
                stake: r.eff,
                choice: r.destination.map(|d| d.id().to_owned()),
                success: Some(r.role == Role::Winner),
                delta: if duel.winner == Some(r.seat) {
                    significance
                } else {
                    0
                },
                drew: 0,
            })
            .collect();
        let ledger = duel
            .winner
            .map(|w| LedgerEntry {
                seat: w,
                amount: significance,
                reason: format!("city_won:{city_id}"),
            })
            .into_iter()
            .collect();
        Ok(RoundRecord {
            round: self.round,
            value: Some(significance),
            outcome: duel.label.to_owned(),
            total_a: Some(i64::from(city.resistance)),
            total_b: duel
                .winner
                .and_then(|w| duel.per_seat.get(w).and_then(|r| r.eff)),
            lead_seat: duel.winner,
            subject: Some(format!("city:{city_id}")),
            seats,
            ledger,
        })
    }
}
