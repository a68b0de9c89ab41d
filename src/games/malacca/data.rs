//! Component data: parsed from `data/malacca/*.json`, checked, and copied into the
//! state at setup so that nothing from the files is needed again.

use serde::{Deserialize, Serialize};

use super::{Card, Character, EquipmentKind, Kind};

/// An amount that is either a fixed number or "the number of players" (Black Caesar).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Amount {
    Fixed(i64),
    Named(PlayersTag),
}

/// The one named amount: the number of players.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PlayersTag {
    Players,
}

impl Amount {
    /// The amount for a match of `players` players.
    pub fn resolve(self, players: usize) -> i64 {
        match self {
            Amount::Fixed(v) => v,
            Amount::Named(PlayersTag::Players) => players as i64,
        }
    }
}

/// One action card: its resolved kind and strengths, or, for a waiting card, the
/// kinds its owner may choose from (it then counts as that normal card).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardDef {
    pub id: Card,
    /// How many are in the box (special cards only; a player owns one of each normal card).
    #[serde(default)]
    pub count: u32,
    #[serde(default)]
    pub kind: Option<Kind>,
    #[serde(default)]
    pub choices: Vec<Kind>,
    #[serde(default)]
    pub attack: i64,
    #[serde(default)]
    pub defense: i64,
    #[serde(default)]
    pub multiplier: i64,
}

/// One character card.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CharacterDef {
    pub id: Character,
    pub name: String,
    pub start_coins: Amount,
    /// The coins of the ability, where it pays coins.
    #[serde(default)]
    pub bonus: Option<Amount>,
    /// Sayyida al Hurra: cards drawn whenever she gains a special card (keeps one).
    #[serde(default)]
    pub draws: Option<u32>,
    /// Laskarina: cards drawn at setup.
    #[serde(default)]
    pub setup_draws: Option<u32>,
}

/// One equipment kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EquipmentDef {
    pub id: EquipmentKind,
    pub supply: u32,
    pub cost: i64,
    pub bonus: i64,
}

/// `components.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ComponentsFile {
    #[allow(dead_code)]
    placeholder: bool,
    #[allow(dead_code)]
    source: String,
    #[allow(dead_code)]
    note: String,
    start_coins: i64,
    deck_scrubbing: i64,
    normal_cards: Vec<CardDef>,
    special_cards: Vec<CardDef>,
    characters: Vec<CharacterDef>,
    equipment: Vec<EquipmentDef>,
}

/// `ships.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct ShipsFile {
    #[allow(dead_code)]
    placeholder: bool,
    #[allow(dead_code)]
    source: String,
    #[allow(dead_code)]
    note: String,
    ships: Vec<i64>,
}

/// The component numbers the rules need during play; copied into every state.
/// The default (empty) is a parsed state's before `Game::attach_data`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    /// Flat coins a trader with no coins receives on a defended ship (§5.5).
    pub deck_scrubbing: i64,
    pub normal_cards: Vec<CardDef>,
    pub special_cards: Vec<CardDef>,
    pub characters: Vec<CharacterDef>,
    pub equipment: Vec<EquipmentDef>,
}

impl Rules {
    pub fn card(&self, card: Card) -> Option<&CardDef> {
        self.normal_cards
            .iter()
            .chain(self.special_cards.iter())
            .find(|c| c.id == card)
    }
    pub fn normal_of(&self, kind: Kind) -> Option<&CardDef> {
        self.normal_cards.iter().find(|c| c.kind == Some(kind))
    }
    pub fn character(&self, id: Character) -> Option<&CharacterDef> {
        self.characters.iter().find(|c| c.id == id)
    }
    pub fn equipment(&self, id: EquipmentKind) -> Option<&EquipmentDef> {
        self.equipment.iter().find(|e| e.id == id)
    }
    /// The box count of a special card (0 for a normal card).
    pub fn box_count(&self, card: Card) -> u32 {
        self.special_cards
            .iter()
            .find(|c| c.id == card)
            .map_or(0, |c| c.count)
    }
    /// The bonus of a character for a match of `players` players (0 without one).
    pub fn character_bonus(&self, id: Character, players: usize) -> i64 {
        self.character(id)
            .and_then(|c| c.bonus)
            .map_or(0, |b| b.resolve(players))
    }
}

/// Everything the engine reads from the data files.
#[derive(Debug, Clone)]
pub struct MalaccaData {
    /// The ship deck before the shuffle (provisional, see ships.json).
    pub ships: Vec<i64>,
    /// Coins per player without characters.
    pub start_coins: i64,
    pub rules: Rules,
}

/// Most rounds a match may have (ships option and positions).
pub const MAX_SHIPS: usize = 50;
/// Largest coin count or ship value a position or option may give; keeps every
/// payout far from integer overflow.
pub const MAX_COINS: i64 = 1_000_000_000;

fn check_card(def: &CardDef, special: bool) -> Result<(), String> {
    let id = def.id.id();
    if def.id.is_normal() == special {
        return Err(format!(
            "components.json: {id} is listed among the wrong cards"
        ));
    }
    if def.attack < 0 || def.defense < 0 || def.multiplier < 0 {
        return Err(format!("components.json: {id} has a negative strength"));
    }
    match (def.kind, def.choices.len()) {
        (Some(_), 0) => {}
        (None, 2..) if special => {}
        _ => {
            return Err(format!(
                "components.json: {id} needs either a kind or at least two choices"
            ));
        }
    }
    Ok(())
}

/// Parses and checks `components.json` and `ships.json`.
pub fn load(files: &[(&str, &str)]) -> Result<MalaccaData, String> {
    let get = |name: &str| {
        files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
            .ok_or_else(|| format!("missing data file {name}"))
    };
    let ships: ShipsFile =
        serde_json::from_str(get("ships.json")?).map_err(|e| format!("ships.json: {e}"))?;
    let comp: ComponentsFile = serde_json::from_str(get("components.json")?)
        .map_err(|e| format!("components.json: {e}"))?;

    if ships.ships.is_empty() || ships.ships.len() > MAX_SHIPS {
        return Err(format!(
            "ships.json: between 1 and {MAX_SHIPS} ships are needed"
        ));
    }
    if ships.ships.iter().any(|v| !(0..=MAX_COINS).contains(v)) {
        return Err("ships.json: a cargo value is out of range".into());
    }
    if !(0..=MAX_COINS).contains(&comp.start_coins) || comp.deck_scrubbing < 0 {
        return Err("components.json: start_coins or deck_scrubbing out of range".into());
    }
    for kind in Kind::ALL {
        let n = comp
            .normal_cards
            .iter()
            .filter(|c| c.kind == Some(kind))
            .count();
        if n != 1 {
            return Err(format!(
                "components.json: exactly one normal card of kind {} is needed",
                kind.id()
            ));
        }
    }
    for def in &comp.normal_cards {
        check_card(def, false)?;
        if def.id.normal_kind() != def.kind {
            return Err(format!(
                "components.json: the normal card {} must have its own kind",
                def.id.id()
            ));
        }
    }
    for def in &comp.special_cards {
        check_card(def, true)?;
    }
    for card in Card::ALL {
        let n = comp
            .normal_cards
            .iter()
            .chain(comp.special_cards.iter())
            .filter(|c| c.id == card)
            .count();
        if n != 1 {
            return Err(format!(
                "components.json: card {} must be listed exactly once",
                card.id()
            ));
        }
    }
    for ch in Character::ALL {
        if comp.characters.iter().filter(|c| c.id == ch).count() != 1 {
            return Err(format!(
                "components.json: character {} must be listed exactly once",
                ch.id()
            ));
        }
    }
    for c in &comp.characters {
        let fixed_ok = |a: Amount| !matches!(a, Amount::Fixed(v) if !(0..=MAX_COINS).contains(&v));
        if !fixed_ok(c.start_coins) || !c.bonus.is_none_or(fixed_ok) {
            return Err(format!(
                "components.json: character {} has an amount out of range",
                c.id.id()
            ));
        }
        if c.draws == Some(0)
            || c.draws.is_some_and(|d| d > 16)
            || c.setup_draws.is_some_and(|d| d > 16)
        {
            return Err(format!(
                "components.json: character {} has a draw count out of range",
                c.id.id()
            ));
        }
    }
    for kind in EquipmentKind::ALL {
        if comp.equipment.iter().filter(|e| e.id == kind).count() != 1 {
            return Err(format!(
                "components.json: equipment {} must be listed exactly once",
                kind.id()
            ));
        }
    }
    if comp
        .equipment
        .iter()
        .any(|e| e.cost < 0 || e.bonus < 0 || e.supply > 1000 || e.cost > MAX_COINS)
    {
        return Err("components.json: an equipment number is out of range".into());
    }
    Ok(MalaccaData {
        ships: ships.ships,
        start_coins: comp.start_coins,
        rules: Rules {
            deck_scrubbing: comp.deck_scrubbing,
            normal_cards: comp.normal_cards,
            special_cards: comp.special_cards,
            characters: comp.characters,
            equipment: comp.equipment,
        },
    })
}
