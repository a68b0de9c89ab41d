//! The legal moves in the API's format, and the null move of every decision.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::CairoAction;
use super::Mode;
use super::data::Finger;
use super::model::Material;
use super::report::{Loc, working_board};
use super::rules::awaiting;
use super::state::{Phase, ReportSubject, State};
use crate::games::Seat;

const MATERIALS: [Material; 3] = [Material::Small, Material::Large, Material::Die];

fn die_face_range(s: &State) -> Value {
    json!({"min": 1, "max": s.pieces.die_faces})
}

pub fn legal(s: &State, seat: Seat) -> Option<Vec<Value>> {
    if !awaiting(s).contains(&seat) {
        return None;
    }
    let list = match s.phase {
        Phase::Finished => return None,
        Phase::Roll => vec![json!({"type": "roll", "template": true,
            "value": {"min": 1, "max": s.pieces.movement_die_faces}})],
        Phase::ChooseMaterial => {
            let have: Vec<Material> = MATERIALS
                .into_iter()
                .filter(|m| s.supply.get(seat).map(|x| x.get(*m) > 0).unwrap_or(false))
                .collect();
            if s.mode() == Mode::Simulated && s.turn_state.finger.is_none() {
                vec![json!({"type": "choose_material", "template": true,
                    "materials": have, "fingers": Finger::ALL})]
            } else {
                have.into_iter()
                    .map(|m| json!({"type": "choose_material", "material": m}))
                    .collect()
            }
        }
        Phase::AimFlick => {
            let parcels: Vec<&str> = s.board.parcels.iter().map(|p| p.id.as_str()).collect();
            vec![json!({"type": "aim", "template": true, "parcels": parcels})]
        }
        Phase::ReportFlick => report_moves(s)?,
        Phase::ConfirmReport => vec![json!({"type": "confirm"}), json!({"type": "dispute"})],
        Phase::Discard => MATERIALS
            .into_iter()
            .filter(|m| s.supply.get(seat).map(|x| x.get(*m) > 0).unwrap_or(false))
            .map(|m| json!({"type": "discard", "stone": m}))
            .collect(),
        Phase::Build => {
            let mut out = Vec::new();
            for parcel in &s.turn_state.delivered_this_turn {
                let loose = s.loose_small(parcel);
                let total: u32 = loose.iter().sum();
                let ids: Vec<String> = loose
                    .iter()
                    .enumerate()
                    .flat_map(|(seat, n)| {
                        let c = s.colour(seat);
                        (1..=*n).map(move |k| format!("{c}-{k}"))
                    })
                    .collect();
                for size in s.pyramid_shapes.keys() {
                    if *size <= total {
                        out.push(json!({"type": "build", "template": true,
                            "parcel": parcel, "size": size,
                            "cubes": {"subset_of": ids, "min": size, "max": size}}));
                    }
                }
            }
            out.push(json!({"type": "end_build"}));
            out
        }
        Phase::Retrieve => {
            let ids = retrieve_ids(s, seat);
            vec![json!({"type": "retrieve", "template": true,
                "stones": {"subset_of": ids, "min": 0, "max": ids.len()}})]
        }
        Phase::OrderTie => {
            let tb = s.tiebreak.as_ref()?;
            let tie = tb.ties.get(tb.current)?;
            let placed: BTreeSet<Seat> = tb.groups.iter().flatten().copied().collect();
            let remaining: Vec<String> = tie
                .tied
                .iter()
                .filter(|x| !placed.contains(x))
                .map(|x| s.colour(*x))
                .collect();
            vec![
                json!({"type": "order_tie", "template": true, "parcel": tie.parcel,
                "group": {"subset_of": remaining, "min": 1, "max": remaining.len()}}),
            ]
        }
    };
    Some(complete_when_few(list))
}

/// How many complete actions a template stands for; None when it holds a subset
/// choice (whose order-free arrays cannot be listed as complete actions).
fn template_count(t: &serde_json::Map<String, Value>) -> Option<u64> {
    let mut n: u64 = 1;
    for (k, v) in t {
        if k == "type" || k == "template" {
            continue;
        }
        match v {
            Value::Array(items) => n = n.saturating_mul(items.len() as u64),
            Value::Object(o) if o.contains_key("subset_of") => return None,
            Value::Object(o) if o.len() == 2 => {
                if let (Some(a), Some(b)) = (
                    o.get("min").and_then(Value::as_i64),
                    o.get("max").and_then(Value::as_i64),
                ) {
                    n = n.saturating_mul((b - a + 1).max(0) as u64);
                }
            }
            _ => {}
        }
    }
    Some(n)
}

fn expand(t: &serde_json::Map<String, Value>) -> Vec<Value> {
    let mut out = vec![serde_json::Map::new()];
    for (k, v) in t {
        if k == "template" {
            continue;
        }
        let (name, choices): (String, Vec<Value>) = match v {
            Value::Array(items) if k != "type" => {
                (k.strip_suffix('s').unwrap_or(k).to_owned(), items.clone())
            }
            Value::Object(o)
                if o.len() == 2
                    && o.get("min").and_then(Value::as_i64).is_some()
                    && o.get("max").and_then(Value::as_i64).is_some() =>
            {
                let a = o.get("min").and_then(Value::as_i64).unwrap_or(0);
                let b = o.get("max").and_then(Value::as_i64).unwrap_or(-1);
                (k.clone(), (a..=b).map(Value::from).collect())
            }
            _ => (k.clone(), vec![v.clone()]),
        };
        let mut next = Vec::with_capacity(out.len() * choices.len());
        for m in &out {
            for c in &choices {
                let mut m = m.clone();
                m.insert(name.clone(), c.clone());
                next.push(m);
            }
        }
        out = next;
    }
    out.into_iter().map(Value::Object).collect()
}

/// The API contract lists complete actions when a decision has at most 64 of
/// them: templates without subset choices are expanded when everything that can
/// be expanded comes to at most 64 actions.
fn complete_when_few(list: Vec<Value>) -> Vec<Value> {
    let mut total: u64 = 0;
    for e in &list {
        match e
            .as_object()
            .filter(|o| o.get("template") == Some(&Value::Bool(true)))
        {
            Some(t) => total = total.saturating_add(template_count(t).unwrap_or(0)),
            None => total += 1,
        }
    }
    if total > 64 {
        return list;
    }
    list.into_iter()
        .flat_map(|e| {
            match e
                .as_object()
                .filter(|o| o.get("template") == Some(&Value::Bool(true)))
            {
                Some(t) if template_count(t).is_some() => expand(t),
                _ => vec![e],
            }
        })
        .collect()
}

/// Ids of the own desert stones a retrieval may take: `<zone>:<type>-<n>`.
pub fn retrieve_ids(s: &State, seat: Seat) -> Vec<String> {
    let mut ids = Vec::new();
    for (zone, h) in s.retrievable(seat) {
        for m in MATERIALS {
            for k in 1..=h.count(m) {
                ids.push(format!("{zone}:{}-{k}", m.name()));
            }
        }
    }
    ids
}

/// Every source of a further displacement: (owner, stone type, place).
fn displace_sources(w: &State) -> Vec<(Seat, Material, Loc)> {
    let mut out = Vec::new();
    for p in &w.board.parcels {
        let Some(stones) = w.parcels.get(&p.id) else {
            continue;
        };
        for (seat, h) in stones.loose.iter().enumerate() {
            for m in MATERIALS {
                if h.count(m) > 0 {
                    out.push((seat, m, Loc::Loose(p.id.clone())));
                }
            }
        }
        for pyr in &stones.pyramids {
            for (i, floor) in pyr.floors.iter().enumerate() {
                let owners: BTreeSet<Seat> = floor.iter().copied().collect();
                for seat in owners {
                    out.push((
                        seat,
                        Material::Small,
                        Loc::Pyramid {
                            parcel: p.id.clone(),
                            pyramid: pyr.id.clone(),
                            floor: i as u32 + 1,
                        },
                    ));
                }
            }
        }
    }
    for z in &w.board.zones {
        let Some(d) = w.desert.get(&z.id) else {
            continue;
        };
        for (seat, h) in d.iter().enumerate() {
            for m in MATERIALS {
                if h.count(m) > 0 {
                    out.push((seat, m, Loc::Desert(z.id.clone())));
                }
            }
        }
    }
    out
}

fn report_moves(s: &State) -> Option<Vec<Value>> {
    let r = s.report.as_ref()?;
    let ReportSubject::Flick { material, .. } = &r.subject else {
        return None;
    };
    let all = s.landings(false);
    let land = s.landings(true);
    let mut out = Vec::new();
    // Closing the report: the landing of the flicked stone.
    if *material == Material::Die {
        out.push(json!({"type": "report", "template": true, "landings": land,
            "face": die_face_range(s), "boat_knocked_overs": [false, true]}));
        out.push(
            json!({"type": "report", "template": true, "landings": ["nile", "off_board"],
            "boat_knocked_overs": [false, true]}),
        );
    } else {
        out.push(json!({"type": "report", "template": true, "landings": all,
            "boat_knocked_overs": [false, true]}));
    }
    // Side effects drafted before the landing.
    let w = working_board(s).ok()?;
    for (seat, m, loc) in displace_sources(&w) {
        let from = loc.to_location();
        let owner = s.colour(seat);
        if m == Material::Die {
            out.push(json!({"type": "displace", "template": true, "owner": owner,
                "stone": m, "from": from, "tos": land, "face": die_face_range(s)}));
            out.push(json!({"type": "displace", "template": true, "owner": owner,
                "stone": m, "from": from, "tos": ["nile", "off_board"]}));
        } else {
            out.push(json!({"type": "displace", "template": true, "owner": owner,
                "stone": m, "from": from, "tos": all}));
        }
    }
    let standing: Vec<String> = w
        .parcels
        .values()
        .flat_map(|p| p.pyramids.iter())
        .filter(|p| p.cubes() > 0 && !r.toppled_pyramids.contains(&p.id))
        .map(|p| p.id.clone())
        .collect();
    if !standing.is_empty() {
        out.push(json!({"type": "topple", "template": true, "pyramid_ids": standing}));
    }
    if !r.displaced.is_empty() || !r.toppled_pyramids.is_empty() {
        out.push(json!({"type": "clear_report"}));
    }
    Some(out)
}

fn first_material(s: &State, seat: Seat) -> Option<Material> {
    MATERIALS
        .into_iter()
        .find(|m| s.supply.get(seat).map(|x| x.get(*m) > 0).unwrap_or(false))
}

/// The move an absent seat plays (docs/rules/cairo.md, "Null moves").
pub fn null_move(s: &State, seat: Seat) -> Option<CairoAction> {
    if !awaiting(s).contains(&seat) {
        return None;
    }
    match s.phase {
        Phase::Finished => None,
        Phase::Roll => Some(CairoAction::Roll { value: 1 }),
        Phase::ChooseMaterial => {
            let material = first_material(s, seat)?;
            let finger = if s.mode() == Mode::Simulated && s.turn_state.finger.is_none() {
                let base = &s.model.as_ref()?.finger_base;
                let mut best = Finger::Thumb;
                for f in Finger::ALL {
                    if base.get(f) > base.get(best) {
                        best = f;
                    }
                }
                Some(best)
            } else {
                None
            };
            Some(CairoAction::ChooseMaterial { material, finger })
        }
        Phase::AimFlick => {
            let zone = s.boat_zone(s.active)?;
            let zi = s.zone_index(&zone)?;
            let target = s
                .board
                .parcels
                .iter()
                .min_by_key(|p| (s.zone_index(&p.zone).unwrap_or(i64::MAX / 2) - zi).abs())?;
            Some(CairoAction::Aim {
                parcel: target.id.clone(),
            })
        }
        Phase::ReportFlick => {
            let r = s.report.as_ref()?;
            let ReportSubject::Flick { material, .. } = &r.subject else {
                return None;
            };
            let zone = s.boat_zone(s.active)?;
            Some(CairoAction::Report {
                landing: zone,
                face: (*material == Material::Die).then_some(1),
                boat_knocked_over: false,
            })
        }
        Phase::ConfirmReport => Some(CairoAction::Confirm),
        Phase::Discard => Some(CairoAction::Discard {
            stone: first_material(s, seat)?,
        }),
        Phase::Build => Some(CairoAction::EndBuild),
        Phase::Retrieve => Some(CairoAction::Retrieve { stones: vec![] }),
        Phase::OrderTie => {
            let tb = s.tiebreak.as_ref()?;
            let tie = tb.ties.get(tb.current)?;
            let placed: BTreeSet<Seat> = tb.groups.iter().flatten().copied().collect();
            let group: Vec<String> = tie
                .tied
                .iter()
                .filter(|x| !placed.contains(x))
                .map(|x| s.colour(*x))
                .collect();
            Some(CairoAction::OrderTie {
                parcel: tie.parcel.clone(),
                group,
            })
        }
    }
}
