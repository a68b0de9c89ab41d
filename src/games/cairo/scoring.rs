//! End scoring (spec §8.3): parcel rankings, tie-breaks (reported by the table,
//! or the zone-distance proxy of §9.5 in simulated mode) and the awarding of
//! shared places.

use super::Mode;
use super::state::{FinalResult, ParcelScore, State, Tie};
use crate::games::{RuleError, Seat};

/// Seats with influence > 0, highest first, grouped by equal influence.
pub fn ranked_groups(influence: &[i64]) -> Vec<(i64, Vec<Seat>)> {
    let mut seats: Vec<(i64, Seat)> = influence
        .iter()
        .enumerate()
        .filter(|(_, v)| **v > 0)
        .map(|(s, v)| (*v, s))
        .collect();
    seats.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out: Vec<(i64, Vec<Seat>)> = Vec::new();
    for (v, s) in seats {
        match out.last_mut() {
            Some((w, g)) if *w == v => g.push(s),
            _ => out.push((v, vec![s])),
        }
    }
    out
}

/// The ties that affect place 1 or 2 on some parcel, in board order.
pub fn ties_to_order(s: &State) -> Vec<Tie> {
    let mut out = Vec::new();
    for p in &s.board.parcels {
        let mut start = 0usize;
        for (inf, group) in ranked_groups(&s.influence(&p.id)) {
            if group.len() >= 2 && start < 2 {
                out.push(Tie {
                    parcel: p.id.clone(),
                    tied: group.clone(),
                    influence: inf,
                    start,
                });
            }
            start += group.len();
        }
    }
    out
}

/// `dist(X)` of §9.5: the smallest zone distance from `parcel` to a stone of
/// `seat` on the board that is not on `parcel`; None when there is none.
pub fn proxy_distance(s: &State, parcel: &str, seat: Seat) -> Option<i64> {
    let here = s.zone_index(s.parcel_zone(parcel)?)?;
    let mut best: Option<i64> = None;
    let mut consider = |zone: &str| {
        if let Some(i) = s.zone_index(zone) {
            let d = (i - here).abs();
            best = Some(best.map_or(d, |b| b.min(d)));
        }
    };
    for p in &s.board.parcels {
        if p.id == parcel {
            continue;
        }
        let Some(stones) = s.parcels.get(&p.id) else {
            continue;
        };
        let loose = stones
            .loose
            .get(seat)
            .map(|h| !h.is_empty())
            .unwrap_or(false);
        let built = stones
            .pyramids
            .iter()
            .any(|x| x.floors.iter().flatten().any(|o| *o == seat));
        if loose || built {
            consider(&p.zone);
        }
    }
    for (zone, d) in &s.desert {
        if d.get(seat).map(|h| !h.is_empty()).unwrap_or(false) {
            consider(zone);
        }
    }
    best
}

/// Orders a tied group by the proxy distance; equal distances stay together.
pub fn proxy_order(s: &State, parcel: &str, group: &[Seat]) -> Vec<Vec<Seat>> {
    let mut keyed: Vec<(Option<i64>, Seat)> = group
        .iter()
        .map(|x| (proxy_distance(s, parcel, *x), *x))
        .collect();
    // None (no other stone) ranks last.
    keyed.sort_by(|a, b| match (a.0, b.0) {
        (Some(x), Some(y)) => x.cmp(&y).then(a.1.cmp(&b.1)),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.1.cmp(&b.1),
    });
    let mut out: Vec<(Option<i64>, Vec<Seat>)> = Vec::new();
    for (d, x) in keyed {
        match out.last_mut() {
            Some((e, g)) if *e == d => g.push(x),
            _ => out.push((d, vec![x])),
        }
    }
    out.into_iter().map(|(_, g)| g).collect()
}

/// Points per seat for tie-broken groups (spec §8.3.4): a group of `k` taking
/// places `i .. i+k-1` shares the sum of their values, rounded down per member.
pub fn award(groups: &[Vec<Seat>], high: i64, low: i64, seats: usize) -> Vec<i64> {
    let value = |i: usize| match i {
        0 => high,
        1 => low,
        _ => 0,
    };
    let mut points = vec![0i64; seats];
    let mut i = 0usize;
    for g in groups {
        let k = g.len();
        if k == 0 {
            continue;
        }
        let sum: i64 = (i..i + k).map(value).sum();
        for x in g {
            if let Some(p) = points.get_mut(*x) {
                *p = sum / k as i64;
            }
        }
        i += k;
    }
    points
}

/// Scores every parcel and totals the seats.
pub fn score(s: &State) -> Result<FinalResult, RuleError> {
    let mut scores = vec![0i64; s.seats];
    let mut parcels = Vec::new();
    for p in &s.board.parcels {
        let influence = s.influence(&p.id);
        let mut groups: Vec<Vec<Seat>> = Vec::new();
        let mut start = 0usize;
        for (_, g) in ranked_groups(&influence) {
            let n = g.len();
            if n == 1 {
                groups.push(g);
            } else {
                match s.mode() {
                    Mode::Simulated => groups.extend(proxy_order(s, &p.id, &g)),
                    Mode::Reported => {
                        let ordered = s
                            .tiebreak
                            .as_ref()
                            .and_then(|t| t.orders.get(&p.id))
                            .filter(|_| start < 2);
                        match ordered {
                            Some(o) => groups.extend(o.iter().cloned()),
                            None if start < 2 => {
                                return Err(RuleError::illegal(format!(
                                    "The tie on {} has not been ordered.",
                                    p.id
                                )));
                            }
                            None => groups.push(g),
                        }
                    }
                }
            }
            start += n;
        }
        let points = award(&groups, p.high, p.low, s.seats);
        for (x, v) in points.iter().enumerate() {
            if let Some(t) = scores.get_mut(x) {
                *t += v;
            }
        }
        parcels.push(ParcelScore {
            parcel: p.id.clone(),
            high: p.high,
            low: p.low,
            influence,
            groups,
            points,
        });
    }
    Ok(FinalResult { scores, parcels })
}
