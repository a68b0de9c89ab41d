//! Positions (API contract item 6): a match from the start of a given round.

use super::data::{MAX_COINS, MAX_SHIPS, MalaccaData};
use super::rules::{PlayerState, State, check_options};
use super::{
    Card, Character, EquipmentCounts, EquipmentKind, MalaccaOptions, MalaccaPosition,
    PositionEquipment,
};
use crate::games::RuleError;

fn equipment_value(e: &PositionEquipment, kind: EquipmentKind) -> i64 {
    match kind {
        EquipmentKind::BetterAttack => e.better_attack,
        EquipmentKind::BetterDefense => e.better_defense,
        EquipmentKind::BetterTrade => e.better_trade,
    }
}

/// Checks a position and builds the state at the start of its round.
pub fn from_position(
    data: &MalaccaData,
    seats: usize,
    options: &MalaccaOptions,
    pos: MalaccaPosition,
) -> Result<State, RuleError> {
    if options.ships.is_some() {
        return Err(RuleError::options(
            "The option ships cannot be combined with a position: the position gives its \
             own ships.",
        ));
    }
    if options.characters_by_seat.is_some() {
        return Err(RuleError::options(
            "The option characters_by_seat cannot be combined with a position: give each \
             player's character in the position.",
        ));
    }
    check_options(options, seats)?;
    let bad = |m: String| Err(RuleError::position(m));
    if pos.players.len() != seats {
        return bad(format!(
            "The position lists {} players but the match has {seats} seats.",
            pos.players.len()
        ));
    }
    if pos.round == 0 {
        return bad("The position's round must be at least 1.".into());
    }
    if pos.ships.is_empty() || pos.ships.len() > MAX_SHIPS {
        return bad(format!(
            "The position needs 1 to {MAX_SHIPS} ships, not {}.",
            pos.ships.len()
        ));
    }
    if let Some(v) = pos.ships.iter().find(|v| !(0..=MAX_COINS).contains(*v)) {
        return bad(format!(
            "The position holds a ship of value {v}: cargo values run from 0 to {MAX_COINS}."
        ));
    }
    let Some(rounds_total) = pos
        .round
        .checked_add(pos.ships.len() as u32 - 1)
        .filter(|r| *r <= 1_000_000)
    else {
        return bad(format!("The position's round {} is too large.", pos.round));
    };
    if pos.captain >= seats {
        return bad(format!(
            "The position's captain is seat {}, but the seats run from 0 to {}.",
            pos.captain,
            seats - 1
        ));
    }
    // Special cards: only special ids, never more of an id than the box holds.
    for (i, p) in pos.players.iter().enumerate() {
        if !(0..=MAX_COINS).contains(&p.coins) {
            return bad(format!(
                "Player {i} has {} coins: coins run from 0 to {MAX_COINS}.",
                p.coins
            ));
        }
        if let Some(c) = p.specials.iter().find(|c| c.is_normal()) {
            return bad(format!(
                "Player {i} lists {} among its special cards: the three normal cards are \
                 always in hand and are not listed.",
                c.id()
            ));
        }
    }
    if let Some(c) = pos.special_deck.iter().find(|c| c.is_normal()) {
        return bad(format!(
            "The special deck holds {}, a normal card; only special cards belong there.",
            c.id()
        ));
    }
    for card in Card::ALL.into_iter().filter(|c| !c.is_normal()) {
        let count = pos
            .special_deck
            .iter()
            .chain(pos.players.iter().flat_map(|p| p.specials.iter()))
            .filter(|c| **c == card)
            .count();
        let in_box = data.rules.box_count(card) as usize;
        if count > in_box {
            return bad(format!(
                "The position holds {count} {} cards, but the box has only {in_box}.",
                card.id()
            ));
        }
    }
    // Characters: every player has one with the option on, none with it off.
    let mut seen: Vec<Character> = Vec::new();
    for (i, p) in pos.players.iter().enumerate() {
        match (options.characters, p.character) {
            (true, None) => {
                return bad(format!(
                    "Player {i} has no character, but the option characters is on: every \
                     player needs one."
                ));
            }
            (false, Some(c)) => {
                return bad(format!(
                    "Player {i} has the character {}, but the option characters is off.",
                    c.id()
                ));
            }
            (true, Some(c)) => {
                if seen.contains(&c) {
                    return bad(format!("Two players have the character {}.", c.id()));
                }
                seen.push(c);
            }
            (false, None) => {}
        }
    }
    // Equipment: non-negative, only with the option on, owned + supply within the box.
    let mut owned = [0i64; 3];
    for (i, p) in pos.players.iter().enumerate() {
        let e = p.equipment.unwrap_or_default();
        for (k, kind) in EquipmentKind::ALL.into_iter().enumerate() {
            let v = equipment_value(&e, kind);
            if v < 0 {
                return bad(format!(
                    "Player {i} owns {v} {} cards: counts cannot be negative.",
                    kind.id()
                ));
            }
            if v > 0 && !options.equipment {
                return bad(format!(
                    "Player {i} owns {} equipment, but the option equipment is off.",
                    kind.id()
                ));
            }
            if let Some(o) = owned.get_mut(k) {
                *o = o.saturating_add(v);
            }
        }
    }
    let mut supply = EquipmentCounts::default();
    for (k, kind) in EquipmentKind::ALL.into_iter().enumerate() {
        let in_box = i64::from(data.rules.equipment(kind).map_or(0, |e| e.supply));
        let own = owned.get(k).copied().unwrap_or(0);
        if own > in_box {
            return bad(format!(
                "The players own {own} {} cards, but the box has only {in_box}.",
                kind.id()
            ));
        }
        let left = match pos.equipment_supply {
            Some(s) => {
                let v = equipment_value(&s, kind);
                if v < 0 {
                    return bad(format!(
                        "The equipment supply holds {v} {} cards: counts cannot be negative.",
                        kind.id()
                    ));
                }
                if v > 0 && !options.equipment {
                    return bad(format!(
                        "The equipment supply holds {} cards, but the option equipment is off.",
                        kind.id()
                    ));
                }
                if own + v > in_box {
                    return bad(format!(
                        "The position holds {} {} cards (owned and supply), but the box has \
                         only {in_box}.",
                        own + v,
                        kind.id()
                    ));
                }
                v
            }
            None if options.equipment => in_box - own,
            None => 0,
        };
        *supply.get_mut(kind) = u32::try_from(left).unwrap_or(0);
    }
    let players: Vec<PlayerState> = pos
        .players
        .into_iter()
        .enumerate()
        .map(|(seat, p)| {
            let mut hand = Card::NORMAL.to_vec();
            hand.extend(p.specials);
            hand.sort();
            let e = p.equipment.unwrap_or_default();
            let count = |kind| u32::try_from(equipment_value(&e, kind)).unwrap_or(0);
            PlayerState {
                seat,
                coins: p.coins,
                hand,
                character: p.character,
                equipment: EquipmentCounts {
                    better_attack: count(EquipmentKind::BetterAttack),
                    better_defense: count(EquipmentKind::BetterDefense),
                    better_trade: count(EquipmentKind::BetterTrade),
                },
                play: None,
                special_count_at_bet: 0,
            }
        })
        .collect();
    State::start(
        data,
        options,
        pos.round,
        rounds_total,
        pos.captain,
        pos.ships,
        pos.special_deck,
        supply,
        players,
    )
}
