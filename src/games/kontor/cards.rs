//! Cards and component values: the data schema of rules §1.1, the derived card
//! classes of §1.2, and the loading and checking of the data files.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A team, which is also the colour of a harbour card's number. With 2 seats,
/// seat 0 is Red and seat 1 Black; with 4 seats, seats 0 and 1 are Red and
/// seats 2 and 3 Black (rules §2, 0-based).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Team {
    Red,
    Black,
}

impl Team {
    pub fn name(self) -> &'static str {
        match self {
            Team::Red => "red",
            Team::Black => "black",
        }
    }
    pub fn title(self) -> &'static str {
        match self {
            Team::Red => "Red",
            Team::Black => "Black",
        }
    }
}

/// The kind of a card (rules §1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CardKind {
    Harbour,
    Water,
    /// The harbour centre (anchor): a water card without a number.
    Centre,
    Special,
}

/// The function of a special card (team variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SpecialKind {
    Flood,
    Bridge,
    Customs,
}

/// The type a card takes on the board (rules §1.2): water-type cards separate
/// regions, harbour-type cards form them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    Water,
    Harbour,
}

impl CellType {
    pub fn name(self) -> &'static str {
        match self {
            CellType::Water => "water",
            CellType::Harbour => "harbour",
        }
    }
}

/// One of the three commodities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Commodity {
    Wine,
    Spice,
    Tea,
}

impl Commodity {
    pub const ALL: [Commodity; 3] = [Commodity::Wine, Commodity::Spice, Commodity::Tea];

    /// The value cycle of rules §7.3 step 4: wine beats spice, spice beats tea,
    /// tea beats wine.
    pub fn beats(self, other: Commodity) -> bool {
        matches!(
            (self, other),
            (Commodity::Wine, Commodity::Spice)
                | (Commodity::Spice, Commodity::Tea)
                | (Commodity::Tea, Commodity::Wine)
        )
    }
}

/// Commodities shown on a card, or warehouses counted in a region.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Goods {
    #[serde(default)]
    pub wine: u32,
    #[serde(default)]
    pub spice: u32,
    #[serde(default)]
    pub tea: u32,
}

impl Goods {
    pub fn get(&self, k: Commodity) -> u32 {
        match k {
            Commodity::Wine => self.wine,
            Commodity::Spice => self.spice,
            Commodity::Tea => self.tea,
        }
    }
    pub fn total(&self) -> u32 {
        self.wine
            .saturating_add(self.spice)
            .saturating_add(self.tea)
    }
    pub fn add(&mut self, other: &Goods) {
        self.wine = self.wine.saturating_add(other.wine);
        self.spice = self.spice.saturating_add(other.spice);
        self.tea = self.tea.saturating_add(other.tea);
    }
}

/// One card, exactly as in the data files (rules §1.1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Card {
    /// Unique card id.
    pub id: String,
    /// The number in the top-left corner; null for the centre (and maybe specials).
    /// It decides the play order (null counts as 0).
    #[serde(default)]
    pub number: Option<i64>,
    pub kind: CardKind,
    /// Owner colour of a harbour card; null for the other kinds.
    #[serde(default)]
    pub colour: Option<Team>,
    /// Commodities shown (harbour cards only).
    #[serde(default)]
    pub goods: Goods,
    /// A harbour crane card (no goods).
    #[serde(default)]
    pub crane: bool,
    /// A harbour pub (tavern) card: no goods, no function.
    #[serde(default, rename = "pub")]
    pub tavern: bool,
    /// Coin symbol: the opposite seat pays tax when this card is revealed.
    #[serde(default)]
    pub coin: bool,
    /// Ship symbol (duel and team): the player may move the ship.
    #[serde(default)]
    pub ship: bool,
    /// The function of a special card.
    #[serde(default)]
    pub special: Option<SpecialKind>,
}

impl Card {
    /// The number used for the play order: a null number counts as 0 (rules §5 S4).
    pub fn order_number(&self) -> i64 {
        self.number.unwrap_or(0)
    }
    pub fn is_special(&self, kind: SpecialKind) -> bool {
        self.kind == CardKind::Special && self.special == Some(kind)
    }
    /// Flood and bridge are played on top of a card; everything else into an empty cell.
    pub fn is_covering(&self) -> bool {
        self.is_special(SpecialKind::Flood) || self.is_special(SpecialKind::Bridge)
    }
    /// The board type of the card, or None for a customs (declared when played).
    pub fn fixed_type(&self) -> Option<CellType> {
        match (self.kind, self.special) {
            (CardKind::Harbour, _) => Some(CellType::Harbour),
            (CardKind::Water | CardKind::Centre, _) => Some(CellType::Water),
            (CardKind::Special, Some(SpecialKind::Flood)) => Some(CellType::Water),
            (CardKind::Special, Some(SpecialKind::Bridge)) => Some(CellType::Harbour),
            (CardKind::Special, _) => None,
        }
    }
    /// A short class name for histories: `harbour`, `water`, `centre`, `flood`,
    /// `bridge` or `customs`.
    pub fn class_name(&self) -> &'static str {
        match (self.kind, self.special) {
            (CardKind::Harbour, _) => "harbour",
            (CardKind::Water, _) => "water",
            (CardKind::Centre, _) => "centre",
            (CardKind::Special, Some(SpecialKind::Flood)) => "flood",
            (CardKind::Special, Some(SpecialKind::Bridge)) => "bridge",
            (CardKind::Special, _) => "customs",
        }
    }
}

/// Counts and values from the components (component-data.md §3.1), kept in
/// `components.json` and copied into every match's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Coins in the game (seats' money plus the bank).
    pub coins: u32,
    /// Coins each seat starts with.
    pub start_money: u32,
    /// N of the N×N final board, per variant.
    pub board_size: BoardSizes,
    /// Harbour cards a seat holds (and draws up to).
    pub hand_harbour: usize,
    /// Water cards a seat holds (and draws up to).
    pub hand_water: usize,
    /// How many regions count at the end in `duel` and `team` (top-5).
    pub top_regions: usize,
    /// The fewest harbour-type cards a region needs to count in `team`.
    pub team_min_region_cards: u32,
}

/// The final board size per variant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BoardSizes {
    pub basic: i32,
    pub duel: i32,
    pub team: i32,
}

/// The parsed component data.
#[derive(Debug, Clone, PartialEq)]
pub struct KontorData {
    /// Every card: harbour, water (with the centre) and special cards.
    pub cards: Vec<Card>,
    pub params: Params,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CardFile {
    #[allow(dead_code)]
    placeholder: bool,
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
    cards: Vec<Card>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ParamsFile {
    #[allow(dead_code)]
    placeholder: bool,
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
    #[serde(flatten)]
    params: Params,
}

/// The data file names, in `data_files()` order.
pub const FILES: [&str; 4] = [
    "components.json",
    "harbour_cards.json",
    "water_cards.json",
    "special_cards.json",
];

/// Parses and checks the data files, given as `(name, contents)`.
pub fn parse_files(files: &[(&str, &str)]) -> Result<KontorData, String> {
    let find = |name: &str| {
        files
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| *c)
            .ok_or_else(|| format!("kontor: data file {name} is missing"))
    };
    let params: ParamsFile = serde_json::from_str(find("components.json")?)
        .map_err(|e| format!("kontor: components.json: {e}"))?;
    let mut cards = Vec::new();
    for name in FILES.iter().skip(1) {
        let file: CardFile =
            serde_json::from_str(find(name)?).map_err(|e| format!("kontor: {name}: {e}"))?;
        cards.extend(file.cards);
    }
    let data = KontorData {
        cards,
        params: params.params,
    };
    check_params(&data.params)?;
    check_catalogue(&data.cards)?;
    check_counts(&data.cards)?;
    Ok(data)
}

/// Checks the component values.
pub fn check_params(p: &Params) -> Result<(), String> {
    let sizes = [p.board_size.basic, p.board_size.duel, p.board_size.team];
    if sizes.iter().any(|n| !(5..=20).contains(n)) {
        return Err(
            "kontor: every board size must lie between 5 and 20 (the starting cross is 5 wide)"
                .into(),
        );
    }
    if p.start_money.saturating_mul(4) > p.coins {
        return Err("kontor: four seats' starting money exceeds the coins in the game".into());
    }
    if p.top_regions == 0 {
        return Err("kontor: top_regions must be at least 1".into());
    }
    Ok(())
}

/// Checks one card against the schema of rules §1.1.
pub fn check_card(c: &Card) -> Result<(), String> {
    let id = &c.id;
    if id.is_empty() {
        return Err("kontor: a card has an empty id".into());
    }
    match c.kind {
        CardKind::Harbour => {
            if c.colour.is_none() {
                return Err(format!("kontor: harbour card {id} has no colour"));
            }
            if c.special.is_some() {
                return Err(format!("kontor: harbour card {id} has a special function"));
            }
            if c.crane && c.tavern {
                return Err(format!("kontor: card {id} is both a crane and a pub"));
            }
            if (c.crane || c.tavern) && c.goods.total() > 0 {
                return Err(format!("kontor: crane or pub card {id} shows goods"));
            }
        }
        CardKind::Water | CardKind::Centre | CardKind::Special => {
            if c.colour.is_some() {
                return Err(format!(
                    "kontor: card {id} is not a harbour card but has a colour"
                ));
            }
            if c.goods.total() > 0 || c.crane || c.tavern {
                return Err(format!(
                    "kontor: card {id} is not a harbour card but shows goods, a crane or a pub"
                ));
            }
            if (c.kind == CardKind::Special) != c.special.is_some() {
                return Err(format!(
                    "kontor: card {id}: exactly the special cards name a special function"
                ));
            }
            if c.kind == CardKind::Centre && c.ship {
                return Err(format!(
                    "kontor: the centre {id} cannot carry a ship symbol"
                ));
            }
        }
    }
    Ok(())
}

/// Checks every card, unique ids, and exactly one centre.
pub fn check_catalogue(cards: &[Card]) -> Result<(), String> {
    let mut ids = BTreeSet::new();
    for c in cards {
        check_card(c)?;
        if !ids.insert(c.id.as_str()) {
            return Err(format!("kontor: card id {} appears twice", c.id));
        }
    }
    let centres = cards.iter().filter(|c| c.kind == CardKind::Centre).count();
    if centres != 1 {
        return Err(format!(
            "kontor: there must be exactly one harbour centre, found {centres}"
        ));
    }
    Ok(())
}

/// Checks the physical counts of rules §1.1: 22 harbour cards per colour (2 cranes
/// and 1 pub each), 44 water cards including the centre, 2 of each special card.
pub fn check_counts(cards: &[Card]) -> Result<(), String> {
    let count = |f: &dyn Fn(&Card) -> bool| cards.iter().filter(|c| f(c)).count();
    for team in [Team::Red, Team::Black] {
        let own = |c: &Card| c.kind == CardKind::Harbour && c.colour == Some(team);
        let n = count(&own);
        let cranes = count(&|c: &Card| own(c) && c.crane);
        let pubs = count(&|c: &Card| own(c) && c.tavern);
        if n != 22 || cranes != 2 || pubs != 1 {
            return Err(format!(
                "kontor: {} needs 22 harbour cards with 2 cranes and 1 pub, found {n}, {cranes}, {pubs}",
                team.name()
            ));
        }
    }
    let water = count(&|c: &Card| matches!(c.kind, CardKind::Water | CardKind::Centre));
    if water != 44 {
        return Err(format!(
            "kontor: there must be 44 water cards with the centre, found {water}"
        ));
    }
    for kind in [
        SpecialKind::Flood,
        SpecialKind::Bridge,
        SpecialKind::Customs,
    ] {
        let n = count(&|c: &Card| c.is_special(kind));
        if n != 2 {
            return Err(format!(
                "kontor: there must be 2 special cards of each kind, found {n} of {kind:?}"
            ));
        }
    }
    Ok(())
}
