//! Component data of Heretics: factions, personality cards and city cards
//! (rules §1). Everything here is read from `data/heretics/*.json`; no card
//! value lives in Rust code. The parsed values are copied into the match state
//! at setup, so nothing here is needed once a match runs.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The largest seat count; the data must hold at least this many factions.
pub const MAX_SEATS: usize = 4;
/// The smallest seat count.
pub const MIN_SEATS: usize = 2;

/// A faction (rules §1.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Faction {
    /// Stable id, e.g. `hussites`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The Czech name, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_cs: Option<String>,
    /// True when this faction is a placeholder (component-data.md §2.2).
    #[serde(default)]
    pub placeholder: bool,
}

/// A personality card (rules §1.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Personality {
    /// `"<faction>:<strength>"`, e.g. `hussites:10`.
    pub id: String,
    /// The faction id.
    pub faction: String,
    /// Printed strength ("Síla"), the card's number, 1..=11.
    pub strength: u32,
    /// Display name (placeholder names until the real cards are found).
    pub name: String,
}

/// A matcher of the `cross` ability: matches a card when every key it gives
/// equals the card's field; `strength` is the printed strength (rules §1.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CardMatcher {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faction: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strength: Option<u32>,
}

impl CardMatcher {
    /// Whether the card matches every key this matcher gives.
    pub fn matches(&self, card: &Personality) -> bool {
        self.faction.as_ref().is_none_or(|f| *f == card.faction)
            && self.strength.is_none_or(|s| s == card.strength)
    }
}

fn default_max_strength() -> u32 {
    3
}
fn default_bonus() -> i64 {
    1
}
fn default_seven_number() -> u32 {
    7
}
fn default_count_2p() -> u32 {
    1
}
fn default_count_multi() -> u32 {
    2
}

/// A special city ability (rules §1.3); each has an exact effect in rules §5.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Ability {
    /// A card with printed strength ≤ `max_strength` does not contest and goes
    /// to its owner's Temple (rules §5 step 2).
    Sacrifice {
        #[serde(default = "default_max_strength")]
        max_strength: u32,
    },
    /// Adds `bonus` to the effective strength of the faction's cards (§5 step 1).
    FactionBonus {
        faction: String,
        #[serde(default = "default_bonus")]
        bonus: i64,
    },
    /// A matching card fails whatever its strength (§5 step 2).
    Cross { cards: Vec<CardMatcher> },
    /// Losing cards of these factions go to the Temple (§5 step 5).
    LosersToTemple { factions: Vec<String> },
    /// With enough cards of printed strength `number`, nobody wins and every
    /// played card loses (§5 step 3).
    Seven {
        #[serde(default = "default_seven_number")]
        number: u32,
        #[serde(default = "default_count_2p")]
        count_2p: u32,
        #[serde(default = "default_count_multi")]
        count_multi: u32,
    },
}

impl Ability {
    /// The ability's `type` id.
    pub fn type_id(&self) -> &'static str {
        match self {
            Ability::Sacrifice { .. } => "sacrifice",
            Ability::FactionBonus { .. } => "faction_bonus",
            Ability::Cross { .. } => "cross",
            Ability::LosersToTemple { .. } => "losers_to_temple",
            Ability::Seven { .. } => "seven",
        }
    }
}

/// A city card (rules §1.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct City {
    /// Stable id, e.g. `prague`.
    pub id: String,
    /// Display name.
    pub name: String,
    /// The Czech name, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_cs: Option<String>,
    /// Minimum effective strength needed to win the city ("Odolnost").
    pub resistance: u32,
    /// Points for the seat that wins the city ("Význam").
    pub significance: u32,
    /// Special abilities; empty for ordinary cities.
    #[serde(default)]
    pub abilities: Vec<Ability>,
}

/// The parsed component data of Heretics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HereticsData {
    /// Every faction, in data order (the order seats draw from, rules §3).
    pub factions: Vec<Faction>,
    /// Every personality card, in data order.
    pub personalities: Vec<Personality>,
    /// Every city card, in data order (shuffled into the deck at setup).
    pub cities: Vec<City>,
    /// True when any file is marked as a placeholder.
    pub placeholder: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FactionsFile {
    placeholder: bool,
    #[allow(dead_code)]
    source: String,
    #[allow(dead_code)]
    note: String,
    factions: Vec<Faction>,
    personalities: Vec<Personality>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CitiesFile {
    placeholder: bool,
    #[allow(dead_code)]
    source: String,
    #[allow(dead_code)]
    note: String,
    cities: Vec<City>,
}

/// The names of the data files, in `data_files()` order.
pub const FACTIONS_FILE: &str = "factions.json";
pub const CITIES_FILE: &str = "cities.json";

/// Parses and checks the two data files.
pub fn parse(factions_json: &str, cities_json: &str) -> Result<HereticsData, String> {
    let f: FactionsFile = serde_json::from_str(factions_json)
        .map_err(|e| format!("{FACTIONS_FILE} does not parse: {e}"))?;
    let c: CitiesFile = serde_json::from_str(cities_json)
        .map_err(|e| format!("{CITIES_FILE} does not parse: {e}"))?;
    let data = HereticsData {
        factions: f.factions,
        personalities: f.personalities,
        cities: c.cities,
        placeholder: f.placeholder || c.placeholder,
    };
    check(&data)?;
    Ok(data)
}

/// Checks the data against the schema of rules §1: 4+ factions, each with one
/// card per strength 1..=11, ids `"<faction>:<strength>"`, at least one city,
/// unique ids, resistance ≥ 1, and abilities that name known factions.
pub fn check(data: &HereticsData) -> Result<(), String> {
    let mut faction_ids = BTreeSet::new();
    for f in &data.factions {
        if f.id.is_empty() || !faction_ids.insert(f.id.as_str()) {
            return Err(format!(
                "{FACTIONS_FILE}: faction id '{}' is empty or repeated",
                f.id
            ));
        }
    }
    if data.factions.len() < MAX_SEATS {
        return Err(format!(
            "{FACTIONS_FILE}: {} factions listed, but {MAX_SEATS} seats need {MAX_SEATS} (rules §1.1)",
            data.factions.len()
        ));
    }
    let mut card_ids = BTreeSet::new();
    let mut strengths: BTreeMap<&str, BTreeSet<u32>> = BTreeMap::new();
    for p in &data.personalities {
        if !faction_ids.contains(p.faction.as_str()) {
            return Err(format!(
                "{FACTIONS_FILE}: card '{}' names unknown faction '{}'",
                p.id, p.faction
            ));
        }
        if p.id != format!("{}:{}", p.faction, p.strength) {
            return Err(format!(
                "{FACTIONS_FILE}: card id '{}' must be '<faction>:<strength>' (rules §1.1)",
                p.id
            ));
        }
        if !card_ids.insert(p.id.as_str()) {
            return Err(format!("{FACTIONS_FILE}: card id '{}' is repeated", p.id));
        }
        strengths
            .entry(p.faction.as_str())
            .or_default()
            .insert(p.strength);
    }
    let full: BTreeSet<u32> = (1..=11).collect();
    for f in &data.factions {
        if strengths.get(f.id.as_str()) != Some(&full) {
            return Err(format!(
                "{FACTIONS_FILE}: faction '{}' must have exactly one card of each strength 1..11 (rules §1.1)",
                f.id
            ));
        }
    }
    if data.cities.is_empty() {
        return Err(format!("{CITIES_FILE}: no city listed"));
    }
    let mut city_ids = BTreeSet::new();
    for c in &data.cities {
        if c.id.is_empty() || !city_ids.insert(c.id.as_str()) {
            return Err(format!(
                "{CITIES_FILE}: city id '{}' is empty or repeated",
                c.id
            ));
        }
        check_city(c, &faction_ids, CITIES_FILE)?;
    }
    Ok(())
}

/// Checks one city as rules §1.2 wants it (resistance at least 1, abilities
/// naming known factions); `source` says where it was given, for the message.
pub fn check_city(c: &City, factions: &BTreeSet<&str>, source: &str) -> Result<(), String> {
    if c.id.is_empty() {
        return Err(format!("{source}: a city has an empty id"));
    }
    if c.resistance < 1 {
        return Err(format!(
            "{source}: city '{}' has resistance 0; it must be at least 1 (rules §1.2)",
            c.id
        ));
    }
    for a in &c.abilities {
        check_ability(&c.id, a, factions, source)?;
    }
    Ok(())
}

fn check_ability(
    city: &str,
    a: &Ability,
    factions: &BTreeSet<&str>,
    source: &str,
) -> Result<(), String> {
    let known = |f: &str| -> Result<(), String> {
        if factions.contains(f) {
            Ok(())
        } else {
            Err(format!(
                "{source}: city '{city}' ability {} names unknown faction '{f}'",
                a.type_id()
            ))
        }
    };
    match a {
        Ability::Sacrifice { .. } => Ok(()),
        Ability::FactionBonus { faction, .. } => known(faction),
        Ability::Cross { cards } => {
            if cards.is_empty() {
                return Err(format!(
                    "{source}: city '{city}' cross ability lists no card matcher"
                ));
            }
            for m in cards {
                if m.faction.is_none() && m.strength.is_none() {
                    return Err(format!(
                        "{source}: city '{city}' cross matcher must give a faction or a strength"
                    ));
                }
                if let Some(f) = &m.faction {
                    known(f)?;
                }
            }
            Ok(())
        }
        Ability::LosersToTemple { factions: fs } => fs.iter().try_for_each(|f| known(f)),
        Ability::Seven {
            count_2p,
            count_multi,
            ..
        } => {
            if *count_2p == 0 || *count_multi == 0 {
                Err(format!(
                    "{source}: city '{city}' seven ability needs counts of at least 1"
                ))
            } else {
                Ok(())
            }
        }
    }
}
