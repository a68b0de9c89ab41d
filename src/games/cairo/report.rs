//! Reported flicks (spec §6.2, §6.3): drafting a report step by step, checking
//! it, and applying it to the board once it stands.
//!
//! A report is drafted as zero or more `displace` and `topple` actions and closed
//! by `report` (the landing of the flicked stone). Every `from` refers to the board
//! as it was before the flick: the stones named by earlier displacements of the
//! same report are no longer available, so no stone moves twice.
//!
//! Application order: every displaced stone leaves its place; every toppled
//! pyramid's remaining cubes become loose on its parcel; pyramids left without
//! cubes cease to exist; the displaced stones arrive where reported; finally the
//! flicked stone leaves the supply and lands.

use serde_json::json;

use super::CairoAction;
use super::model::Material;
use super::rules::Out;
use super::state::{Displacement, FlickReport, ReportSubject, State, StoneLocation};
use crate::games::{RuleError, Seat};

/// A place a stone can be taken from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loc {
    Loose(String),
    Pyramid {
        parcel: String,
        pyramid: String,
        floor: u32,
    },
    Desert(String),
}

impl Loc {
    pub fn to_location(&self) -> StoneLocation {
        match self {
            Loc::Loose(p) => StoneLocation {
                parcel: Some(p.clone()),
                pyramid: None,
                floor: None,
                zone: None,
            },
            Loc::Pyramid {
                parcel,
                pyramid,
                floor,
            } => StoneLocation {
                parcel: Some(parcel.clone()),
                pyramid: Some(pyramid.clone()),
                floor: Some(*floor),
                zone: None,
            },
            Loc::Desert(z) => StoneLocation {
                parcel: None,
                pyramid: None,
                floor: None,
                zone: Some(z.clone()),
            },
        }
    }
}

fn bad_from(from: &StoneLocation) -> RuleError {
    RuleError::illegal(format!(
        "The location {} is not valid: give {{parcel}}, {{parcel, pyramid, floor}} or {{zone}} with ids of this board (rules §6.3).",
        serde_json::to_string(from).unwrap_or_default()
    ))
}

pub fn parse_loc(s: &State, from: &StoneLocation) -> Result<Loc, RuleError> {
    match (&from.parcel, &from.pyramid, from.floor, &from.zone) {
        (Some(p), None, None, None) if s.is_parcel(p) => Ok(Loc::Loose(p.clone())),
        (Some(p), Some(id), Some(floor), None) if s.is_parcel(p) && floor >= 1 => {
            Ok(Loc::Pyramid {
                parcel: p.clone(),
                pyramid: id.clone(),
                floor,
            })
        }
        (None, None, None, Some(z)) if s.is_zone(z) => Ok(Loc::Desert(z.clone())),
        _ => Err(bad_from(from)),
    }
}

/// Removes one stone of `owner` of type `m` from `loc`; answers a die's face.
/// Pyramids left empty are kept until the whole report is applied.
pub fn take_stone(
    s: &mut State,
    owner: Seat,
    m: Material,
    loc: &Loc,
) -> Result<Option<u8>, RuleError> {
    let colour = s.colour(owner);
    let missing = |what: String| {
        RuleError::illegal(format!(
            "No {} stone of {colour} is {what} (rules §6.3).",
            m.name()
        ))
    };
    match loc {
        Loc::Loose(p) => s
            .loose_mut(p, owner)
            .and_then(|h| h.take(m))
            .ok_or_else(|| missing(format!("loose on {p}"))),
        Loc::Desert(z) => s
            .desert_mut(z, owner)
            .and_then(|h| h.take(m))
            .ok_or_else(|| missing(format!("in the desert of {z}"))),
        Loc::Pyramid {
            parcel,
            pyramid,
            floor,
        } => {
            let what = format!("on floor {floor} of pyramid {pyramid} on {parcel}");
            if m != Material::Small {
                return Err(missing(what));
            }
            let floor_cubes = s
                .parcels
                .get_mut(parcel)
                .and_then(|p| p.pyramids.iter_mut().find(|x| &x.id == pyramid))
                .and_then(|x| x.floors.get_mut(*floor as usize - 1));
            match floor_cubes {
                Some(f) => match f.iter().position(|o| *o == owner) {
                    Some(i) => {
                        f.remove(i);
                        Ok(None)
                    }
                    None => Err(missing(what)),
                },
                None => Err(missing(what)),
            }
        }
    }
}

/// The board as the draft leaves it for further displacements: the pre-flick
/// board without the stones already displaced in this report.
pub fn working_board(s: &State) -> Result<State, RuleError> {
    let mut w = s.clone();
    if let Some(r) = &s.report {
        for d in &r.displaced {
            let owner = s
                .seat_of(&d.owner)
                .ok_or_else(|| RuleError::illegal(format!("Unknown colour {}.", d.owner)))?;
            let loc = parse_loc(s, &d.from)?;
            take_stone(&mut w, owner, d.stone, &loc)?;
        }
    }
    Ok(w)
}

fn on_land(s: &State, id: &str) -> bool {
    s.is_parcel(id) || s.is_zone(id)
}

fn check_face(
    s: &State,
    m: Material,
    to: &str,
    face: Option<u8>,
    what: &str,
) -> Result<(), RuleError> {
    let needs = m == Material::Die && on_land(s, to);
    match (needs, face) {
        (true, Some(f)) if (1..=s.pieces.die_faces).contains(&f) => Ok(()),
        (true, Some(f)) => Err(RuleError::illegal(format!(
            "{what}: a die shows 1 to {}, not {f} (rules §6.2).",
            s.pieces.die_faces
        ))),
        (true, None) => Err(RuleError::illegal(format!(
            "{what}: a die that lands on a parcel or in a desert needs its face (rules §6.2)."
        ))),
        (false, Some(_)) => Err(RuleError::illegal(format!(
            "{what}: a face is given only for a die that lands on a parcel or in a desert (rules §6.2)."
        ))),
        (false, None) => Ok(()),
    }
}

fn check_landing(s: &State, to: &str, what: &str) -> Result<(), RuleError> {
    if s.is_landing(to) {
        Ok(())
    } else {
        Err(RuleError::illegal(format!(
            "{what}: {to} is not a parcel, a zone (its desert), nile or off_board (rules §6.2)."
        )))
    }
}

/// Checks a drafting action (`displace`, `topple`, `clear_report`, `report`).
pub fn check_draft_action(s: &State, a: &CairoAction) -> Result<(), RuleError> {
    let r = s
        .report
        .as_ref()
        .ok_or_else(|| RuleError::illegal("There is no report under way."))?;
    let material = match &r.subject {
        ReportSubject::Flick { material, .. } => *material,
        ReportSubject::Tie { .. } => {
            return Err(RuleError::illegal(
                "This report is a tie-break, not a flick.",
            ));
        }
    };
    match a {
        CairoAction::Displace {
            owner,
            stone,
            from,
            to,
            face,
        } => {
            let what = format!(
                "You cannot report {owner}'s {} stone as displaced",
                stone.name()
            );
            let seat = s.seat_of(owner).ok_or_else(|| {
                RuleError::illegal(format!("{what}: {owner} is not a colour of this match."))
            })?;
            let loc = parse_loc(s, from)?;
            if let Loc::Pyramid {
                parcel, pyramid, ..
            } = &loc
            {
                let here = s
                    .parcels
                    .get(parcel)
                    .map(|p| p.pyramids.iter().any(|x| &x.id == pyramid))
                    .unwrap_or(false);
                if !here {
                    return Err(RuleError::illegal(format!(
                        "{what}: there is no pyramid {pyramid} on {parcel} (rules §6.3)."
                    )));
                }
            }
            let mut w = working_board(s)?;
            take_stone(&mut w, seat, *stone, &loc).map_err(|e| {
                RuleError::illegal(format!(
                    "{what}: {} It may already be named in this report.",
                    e.message
                ))
            })?;
            check_landing(s, to, &what)?;
            check_face(s, *stone, to, *face, &what)
        }
        CairoAction::Topple { pyramid_id } => {
            if r.toppled_pyramids.contains(pyramid_id) {
                return Err(RuleError::illegal(format!(
                    "You cannot report pyramid {pyramid_id} toppled twice (rules §6.3)."
                )));
            }
            let w = working_board(s)?;
            let standing = w
                .parcels
                .values()
                .flat_map(|p| p.pyramids.iter())
                .any(|p| &p.id == pyramid_id && p.cubes() > 0);
            if standing {
                Ok(())
            } else {
                Err(RuleError::illegal(format!(
                    "You cannot report pyramid {pyramid_id} toppled: no such pyramid with cubes not yet displaced stands on the board (rules §6.3)."
                )))
            }
        }
        CairoAction::ClearReport => {
            if r.displaced.is_empty() && r.toppled_pyramids.is_empty() {
                Err(RuleError::illegal(
                    "You cannot clear the report: nothing has been drafted.",
                ))
            } else {
                Ok(())
            }
        }
        CairoAction::Report { landing, face, .. } => {
            let what = format!(
                "You cannot report the {} stone at {landing}",
                material.name()
            );
            check_landing(s, landing, &what)?;
            check_face(s, material, landing, *face, &what)
        }
        _ => Err(RuleError::illegal("This is not a report action.")),
    }
}

/// Adds a drafting action to the report under way.
pub fn draft(s: &mut State, out: &mut Out, a: &CairoAction) -> Result<(), RuleError> {
    let r = s
        .report
        .as_mut()
        .ok_or_else(|| RuleError::illegal("There is no report under way."))?;
    match a {
        CairoAction::Displace {
            owner,
            stone,
            from,
            to,
            face,
        } => {
            let d = Displacement {
                owner: owner.clone(),
                stone: *stone,
                from: from.clone(),
                to: to.clone(),
                face: *face,
            };
            out.events.push(crate::games::Event::public(
                "report_draft",
                json!({"reporter": r.reporter, "displace": d}),
            ));
            r.displaced.push(d);
        }
        CairoAction::Topple { pyramid_id } => {
            out.events.push(crate::games::Event::public(
                "report_draft",
                json!({"reporter": r.reporter, "topple": pyramid_id}),
            ));
            r.toppled_pyramids.push(pyramid_id.clone());
        }
        CairoAction::ClearReport => {
            out.events.push(crate::games::Event::public(
                "report_draft",
                json!({"reporter": r.reporter, "clear": true}),
            ));
            r.displaced.clear();
            r.toppled_pyramids.clear();
        }
        _ => return Err(RuleError::illegal("This is not a drafting action.")),
    }
    Ok(())
}

/// Applies a report that stands; answers how many board stones it moved
/// (displaced stones plus cubes loosened by toppling).
pub fn apply_flick_report(
    s: &mut State,
    seat: Seat,
    material: Material,
    rep: &FlickReport,
) -> Result<i64, RuleError> {
    let mut w = s.clone();
    let mut arriving = Vec::new();
    for d in &rep.displaced {
        let owner = w
            .seat_of(&d.owner)
            .ok_or_else(|| RuleError::illegal(format!("Unknown colour {}.", d.owner)))?;
        let loc = parse_loc(&w, &d.from)?;
        let old_face = take_stone(&mut w, owner, d.stone, &loc)?;
        arriving.push((owner, d.stone, d.to.clone(), d.face.or(old_face)));
    }
    let mut moved = rep.displaced.len() as i64;
    for pid in &rep.toppled_pyramids {
        let mut found = false;
        for p in w.parcels.values_mut() {
            if let Some(i) = p.pyramids.iter().position(|x| &x.id == pid) {
                let pyr = p.pyramids.remove(i);
                for owner in pyr.floors.iter().flatten() {
                    if let Some(h) = p.loose.get_mut(*owner) {
                        h.small += 1;
                        moved += 1;
                    }
                }
                found = true;
                break;
            }
        }
        if !found {
            return Err(RuleError::illegal(format!(
                "There is no pyramid {pid} to topple (rules §6.3)."
            )));
        }
    }
    for p in w.parcels.values_mut() {
        p.pyramids.retain(|x| x.cubes() > 0);
    }
    for (owner, m, to, face) in arriving {
        w.place(owner, m, &to, face)?;
    }
    let sup = w
        .supply
        .get_mut(seat)
        .ok_or_else(|| RuleError::illegal("Unknown seat."))?;
    let slot = sup.slot(material);
    if *slot == 0 {
        return Err(RuleError::illegal(format!(
            "The supply has no {} stone to flick (rules §6.1).",
            material.name()
        )));
    }
    *slot -= 1;
    w.place(seat, material, &rep.landing, rep.face)?;
    if w.is_parcel(&rep.landing)
        && !w
            .turn_state
            .delivered_this_turn
            .iter()
            .any(|p| p == &rep.landing)
    {
        w.turn_state.delivered_this_turn.push(rep.landing.clone());
    }
    *s = w;
    Ok(moved)
}
