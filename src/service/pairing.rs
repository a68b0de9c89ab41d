//! Tournament arithmetic, free of I/O: points from a match's placings, the
//! standings with their tie-breaks, and who sits with whom next round.
//! docs/community.md ("Tournaments") states every rule written here.

use std::collections::{HashMap, HashSet};

use uuid::Uuid;

/// One entrant's round: a seat at a table, or a bye (`table` none).
#[derive(Debug, Clone)]
pub struct Played {
    pub round: i32,
    pub player: Uuid,
    pub table: Option<i32>,
    pub points: Option<f64>,
    pub rank: Option<i32>,
}

/// An entrant as the standings need it.
#[derive(Debug, Clone)]
pub struct Entrant {
    pub player: Uuid,
    pub seq: i32,
    pub withdrawn: bool,
}

/// An entrant's line in the standings.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub player: Uuid,
    pub points: f64,
    /// The sum of the final points of everyone met at a table.
    pub buchholz: f64,
    /// The sum, over the rounds played, of the points scored times the mean
    /// final points of that table's other players.
    pub sonneborn_berger: f64,
    /// Matches finished first, alone.
    pub wins: u32,
    pub games: u32,
    pub byes: u32,
    pub seq: i32,
    pub withdrawn: bool,
}

/// A score compared without the noise of floating sums (thirds, quarters).
pub(crate) fn key(x: f64) -> i64 {
    (x * 1e6).round() as i64
}

/// The points of every seat of a finished match of `placings` (seat, rank;
/// 1 is best, tied seats share a rank): the seat in position p of n (0 best)
/// scores (n − 1 − p) / (n − 1), and tied seats share the positions they
/// cover equally. Two players: a win 1, a draw ½, a loss 0.
pub fn points_of(placings: &[(i32, i32)]) -> HashMap<i32, f64> {
    let n = placings.len();
    let mut out = HashMap::new();
    if n < 2 {
        for (seat, _) in placings {
            out.insert(*seat, 1.0);
        }
        return out;
    }
    let top = (n - 1) as f64;
    for (seat, rank) in placings {
        let before = placings.iter().filter(|(_, r)| r < rank).count();
        let tied = placings.iter().filter(|(_, r)| r == rank).count();
        let sum: f64 = (before..before + tied)
            .map(|p| (top - p as f64) / top)
            .sum();
        out.insert(*seat, sum / tied as f64);
    }
    out
}

/// The standings: points, then Buchholz, then Sonneborn–Berger, then wins,
/// then entry order. Withdrawn entrants keep their line.
pub fn standings(entrants: &[Entrant], played: &[Played]) -> Vec<Line> {
    let mut points: HashMap<Uuid, f64> = HashMap::new();
    for p in played {
        *points.entry(p.player).or_default() += p.points.unwrap_or(0.0);
    }
    let mut tables: HashMap<(i32, i32), Vec<&Played>> = HashMap::new();
    for p in played {
        if let Some(t) = p.table {
            tables.entry((p.round, t)).or_default().push(p);
        }
    }
    let mut lines: Vec<Line> = entrants
        .iter()
        .map(|e| {
            let mine: Vec<&Played> = played.iter().filter(|p| p.player == e.player).collect();
            let mut line = Line {
                player: e.player,
                points: points.get(&e.player).copied().unwrap_or(0.0),
                buchholz: 0.0,
                sonneborn_berger: 0.0,
                wins: 0,
                games: 0,
                byes: 0,
                seq: e.seq,
                withdrawn: e.withdrawn,
            };
            for p in mine {
                let Some(t) = p.table else {
                    line.byes += 1;
                    continue;
                };
                line.games += 1;
                let mates: Vec<f64> = tables
                    .get(&(p.round, t))
                    .into_iter()
                    .flatten()
                    .filter(|q| q.player != p.player)
                    .map(|q| points.get(&q.player).copied().unwrap_or(0.0))
                    .collect();
                let met: f64 = mates.iter().sum();
                line.buchholz += met;
                if !mates.is_empty() {
                    line.sonneborn_berger += p.points.unwrap_or(0.0) * met / mates.len() as f64;
                }
                if p.rank == Some(1) && p.points.is_some_and(|x| key(x) == key(1.0)) {
                    line.wins += 1;
                }
            }
            line
        })
        .collect();
    lines.sort_by(|a, b| {
        key(b.points)
            .cmp(&key(a.points))
            .then(key(b.buchholz).cmp(&key(a.buchholz)))
            .then(key(b.sonneborn_berger).cmp(&key(a.sonneborn_berger)))
            .then(b.wins.cmp(&a.wins))
            .then(a.seq.cmp(&b.seq))
    });
    lines
}

/// A round's seating: tables of players in seat order, and the byes.
#[derive(Debug, Default, PartialEq)]
pub struct Seating {
    pub tables: Vec<Vec<Uuid>>,
    pub byes: Vec<Uuid>,
}

/// Who has met whom at a table, and who has had a bye.
#[derive(Default)]
pub struct History {
    met: HashSet<(Uuid, Uuid)>,
    byes: HashSet<Uuid>,
    /// How often each player sat first (seat 0).
    first: HashMap<Uuid, u32>,
}

impl History {
    pub fn of(played: &[Played], seats: &HashMap<(i32, Uuid), i32>) -> Self {
        let mut h = History::default();
        let mut tables: HashMap<(i32, i32), Vec<Uuid>> = HashMap::new();
        for p in played {
            match p.table {
                None => {
                    h.byes.insert(p.player);
                }
                Some(t) => tables.entry((p.round, t)).or_default().push(p.player),
            }
            if seats.get(&(p.round, p.player)) == Some(&0) {
                *h.first.entry(p.player).or_default() += 1;
            }
        }
        for players in tables.values() {
            for a in players {
                for b in players {
                    if a != b {
                        h.met.insert((*a, *b));
                    }
                }
            }
        }
        h
    }

    pub fn met(&self, a: Uuid, b: Uuid) -> bool {
        self.met.contains(&(a, b))
    }
}

/// How many steps the search for a Swiss pairing without rematches may take
/// before it settles for the fewest rematches a greedy pass finds.
const SEARCH_BUDGET: u32 = 200_000;

/// A Swiss round of pairs over `order` (the active players, best standing
/// first): the lowest-placed player without a bye yet gets the bye when the
/// count is odd; then each player, from the top, meets the highest-placed
/// player it has not met whose pairing leaves the rest pairable, and only if
/// no such pairing exists are rematches allowed (fewest first, greedily). In a
/// pair, seat 0 goes to whoever sat first less often (the higher-placed on a tie).
pub fn swiss_pairs(order: &[Uuid], history: &History) -> Seating {
    let mut players = order.to_vec();
    let mut byes = Vec::new();
    if players.len() % 2 == 1 {
        let i = players
            .iter()
            .rposition(|p| !history.byes.contains(p))
            .unwrap_or(players.len() - 1);
        byes.push(players.remove(i));
    }
    let mut budget = SEARCH_BUDGET;
    let pairs = search(&players, history, &mut budget).unwrap_or_else(|| greedy(&players, history));
    let tables = pairs
        .into_iter()
        .map(|(a, b)| {
            let (fa, fb) = (
                history.first.get(&a).copied().unwrap_or(0),
                history.first.get(&b).copied().unwrap_or(0),
            );
            if fb < fa { vec![b, a] } else { vec![a, b] }
        })
        .collect();
    Seating { tables, byes }
}

fn search(players: &[Uuid], history: &History, budget: &mut u32) -> Option<Vec<(Uuid, Uuid)>> {
    let Some((&first, rest)) = players.split_first() else {
        return Some(Vec::new());
    };
    for (i, &other) in rest.iter().enumerate() {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        if history.met(first, other) {
            continue;
        }
        let mut left = rest.to_vec();
        left.remove(i);
        if let Some(mut pairs) = search(&left, history, budget) {
            pairs.insert(0, (first, other));
            return Some(pairs);
        }
    }
    None
}

fn greedy(players: &[Uuid], history: &History) -> Vec<(Uuid, Uuid)> {
    let mut left = players.to_vec();
    let mut pairs = Vec::new();
    while left.len() >= 2 {
        let first = left.remove(0);
        let i = left
            .iter()
            .position(|o| !history.met(first, *o))
            .unwrap_or(0);
        pairs.push((first, left.remove(i)));
    }
    pairs
}

/// The sizes of a round's tables for `n` players at tables of `size` when the
/// game needs at least `min`: as few tables as hold everyone, as equal as can
/// be (larger first), each at least `min`; whoever cannot be seated that way
/// (fewer players than `min`) gets a bye.
pub fn table_sizes(n: usize, size: usize, min: usize) -> Vec<usize> {
    let size = size.max(1);
    let min = min.clamp(1, size);
    let mut k = n.div_ceil(size);
    while k > 0 && n / k < min {
        k -= 1;
    }
    if k == 0 {
        return Vec::new();
    }
    let seated = n.min(k * size);
    (0..k)
        .map(|i| seated / k + usize::from(i < seated % k))
        .collect()
}

/// A Swiss round of tables of `size` (more than two players) over `order`:
/// tables filled by standing, the best at table 1; those left over get byes.
/// Seats rotate with the round, so the first seat goes round the table.
pub fn swiss_tables(order: &[Uuid], size: usize, min: usize, round: i32) -> Seating {
    let sizes = table_sizes(order.len(), size, min);
    let mut seating = Seating::default();
    let mut at = 0;
    for s in sizes {
        let mut table = order[at..at + s].to_vec();
        table.rotate_left((round.max(1) as usize - 1) % s);
        seating.tables.push(table);
        at += s;
    }
    seating.byes = order[at..].to_vec();
    seating
}

/// The rounds of a round robin of `n` entrants.
pub fn round_robin_rounds(n: usize) -> usize {
    if n < 2 { 0 } else { n + n % 2 - 1 }
}

/// Round `round` (from 1) of a round robin over `players` in entry order, by the
/// circle method: the first stays, the others turn one place a round; with an
/// odd count a blank makes the numbers even and whoever meets it has the bye.
/// Seat 0 alternates: the fixed player takes it in odd rounds, and the other
/// pairs swap sides from one round to the next.
pub fn round_robin(players: &[Uuid], round: i32) -> Vec<(Option<Uuid>, Option<Uuid>)> {
    let mut slots: Vec<Option<Uuid>> = players.iter().copied().map(Some).collect();
    if slots.len() % 2 == 1 {
        slots.push(None);
    }
    let n = slots.len();
    if n < 2 {
        return Vec::new();
    }
    let r = (round.max(1) as usize - 1) % (n - 1);
    let mut turning = slots[1..].to_vec();
    turning.rotate_right(r);
    let mut circle = vec![slots[0]];
    circle.extend(turning);
    (0..n / 2)
        .map(|i| {
            let (a, b) = (circle[i], circle[n - 1 - i]);
            if (i == 0) == r.is_multiple_of(2) {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(n: usize) -> Vec<Uuid> {
        (1..=n as u128).map(Uuid::from_u128).collect()
    }

    #[test]
    fn two_player_points_are_win_draw_loss() {
        let win = points_of(&[(0, 1), (1, 2)]);
        assert_eq!((win[&0], win[&1]), (1.0, 0.0));
        let draw = points_of(&[(0, 1), (1, 1)]);
        assert_eq!((draw[&0], draw[&1]), (0.5, 0.5));
    }

    #[test]
    fn multi_player_points_share_the_tied_positions() {
        let p = points_of(&[(0, 1), (1, 2), (2, 2), (3, 4)]);
        assert_eq!(p[&0], 1.0);
        assert!((p[&1] - 0.5).abs() < 1e-9 && (p[&2] - 0.5).abs() < 1e-9);
        assert_eq!(p[&3], 0.0);
        let sum: f64 = p.values().sum();
        assert!((sum - 2.0).abs() < 1e-9, "n/2 points per table");
    }

    #[test]
    fn a_round_robin_meets_everyone_once() {
        for n in 2..=9 {
            let players = ids(n);
            let mut met = HashSet::new();
            let mut byes = HashMap::<Uuid, usize>::new();
            for round in 1..=round_robin_rounds(n) as i32 {
                let mut seen = HashSet::new();
                for (a, b) in round_robin(&players, round) {
                    match (a, b) {
                        (Some(a), Some(b)) => {
                            assert!(met.insert((a.min(b), a.max(b))), "a rematch for {n}");
                            assert!(seen.insert(a) && seen.insert(b));
                        }
                        (Some(p), None) | (None, Some(p)) => *byes.entry(p).or_default() += 1,
                        (None, None) => panic!("two blanks"),
                    }
                }
            }
            assert_eq!(met.len(), n * (n - 1) / 2);
            assert!(byes.values().all(|b| *b == 1) && byes.len() == n % 2 * n);
        }
    }

    #[test]
    fn swiss_avoids_rematches_and_gives_the_bye_to_the_lowest_without_one() {
        let players = ids(5);
        let mut played = Vec::new();
        // Round 1: 1-2, 3-4, 5 had the bye.
        for (p, t) in [
            (1, Some(1)),
            (2, Some(1)),
            (3, Some(2)),
            (4, Some(2)),
            (5, None),
        ] {
            played.push(Played {
                round: 1,
                player: Uuid::from_u128(p),
                table: t,
                points: Some(0.5),
                rank: Some(1),
            });
        }
        let h = History::of(&played, &HashMap::new());
        let s = swiss_pairs(&players, &h);
        assert_eq!(s.byes, vec![Uuid::from_u128(4)]);
        for t in &s.tables {
            assert!(!h.met(t[0], t[1]), "{t:?}");
        }
        assert_eq!(s.tables.len(), 2);
    }

    #[test]
    fn when_everyone_has_met_swiss_settles_for_rematches() {
        let players = ids(4);
        let mut played = Vec::new();
        for (round, tables) in [
            (1, [[1, 2], [3, 4]]),
            (2, [[1, 3], [2, 4]]),
            (3, [[1, 4], [2, 3]]),
        ] {
            for (t, pair) in tables.iter().enumerate() {
                for p in pair {
                    played.push(Played {
                        round,
                        player: Uuid::from_u128(*p),
                        table: Some(t as i32 + 1),
                        points: Some(0.5),
                        rank: Some(1),
                    });
                }
            }
        }
        let s = swiss_pairs(&players, &History::of(&played, &HashMap::new()));
        assert_eq!(s.tables.len(), 2);
        assert!(s.byes.is_empty());
        let seated: HashSet<Uuid> = s.tables.iter().flatten().copied().collect();
        assert_eq!(seated.len(), 4, "everyone plays once");
    }

    #[test]
    fn tables_are_as_equal_as_can_be() {
        assert_eq!(table_sizes(10, 4, 2), vec![4, 3, 3]);
        assert_eq!(table_sizes(8, 4, 3), vec![4, 4]);
        assert_eq!(table_sizes(5, 4, 3), vec![4]);
        assert_eq!(table_sizes(7, 2, 2), vec![2, 2, 2]);
        assert_eq!(table_sizes(1, 2, 2), Vec::<usize>::new());
        let s = swiss_tables(&ids(5), 4, 3, 2);
        assert_eq!(
            s.tables[0][3],
            Uuid::from_u128(1),
            "seats rotate with the round"
        );
        assert_eq!(s.byes, vec![Uuid::from_u128(5)]);
    }

    #[test]
    fn standings_break_ties_by_buchholz() {
        let e: Vec<Entrant> = (1..=4)
            .map(|i| Entrant {
                player: Uuid::from_u128(i),
                seq: i as i32,
                withdrawn: false,
            })
            .collect();
        let game = |round, player: u128, table, points: f64| Played {
            round,
            player: Uuid::from_u128(player),
            table: Some(table),
            points: Some(points),
            rank: Some(if points > 0.0 { 1 } else { 2 }),
        };
        // Two rounds in which everyone wins once.
        let played = vec![
            game(1, 1, 1, 1.0),
            game(1, 2, 1, 0.0),
            game(1, 3, 2, 1.0),
            game(1, 4, 2, 0.0),
            game(2, 1, 1, 0.0),
            game(2, 4, 1, 1.0),
            game(2, 3, 2, 0.0),
            game(2, 2, 2, 1.0),
        ];
        let lines = standings(&e, &played);
        assert!(lines.iter().all(|l| l.points == 1.0 && l.games == 2));
        // Everyone met 1 point per round from opponents with 1 point each: equal
        // Buchholz; Sonneborn–Berger too; wins 1 each: entry order decides.
        let order: Vec<i32> = lines.iter().map(|l| l.seq).collect();
        assert_eq!(order, vec![1, 2, 3, 4]);
    }
}
