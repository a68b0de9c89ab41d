//! How strong Malacca's `heuristic` bot is: one heuristic seat against opponents
//! that all play one strategy (`random`, always trade staking everything, always
//! defend staking nothing), at 4 and 8 players, over many full games of the base
//! game with fixed seeds, so every run prints the same table.
//!
//!   cargo bench --bench bots
//!   BOTS_GAMES=200 cargo bench --bench bots     # fewer games per line
//!
//! A shared first place counts as 1/k of a win for each of the k seats sharing
//! it, so the seats' win rates add up to 1 and 1/n is the rate of a seat no
//! better than the others. Results and what they mean are in docs/bots.md.

use std::time::Instant;

use sealed_orders::games::malacca::{Action, Card, Malacca, MalaccaData, MalaccaOptions};
use sealed_orders::games::rng::GameRng;
use sealed_orders::games::{Game, Progress, Seat, Viewer, legal};
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strategy {
    Heuristic,
    Random,
    /// Always `trade`, staking every coin; passes on everything else.
    TradeAll,
    /// Always `defense`, staking nothing; passes on everything else.
    DefendZero,
}

impl Strategy {
    fn name(self) -> &'static str {
        match self {
            Strategy::Heuristic => "heuristic",
            Strategy::Random => "random",
            Strategy::TradeAll => "always trade, stake all",
            Strategy::DefendZero => "always defend, stake 0",
        }
    }
}

fn data() -> MalaccaData {
    let files: Vec<(&str, &str)> = Malacca::data_files()
        .iter()
        .map(|f| (f.name, f.embedded))
        .collect();
    Malacca::load_data(&files).expect("embedded data")
}

/// A fixed strategy's move: its card with its stake when betting, else the first
/// complete action listed (`pass`, the first waiting choice, the first card kept).
fn fixed(card: Card, all_in: bool, legal: &[Value]) -> Option<Action> {
    for entry in legal {
        if entry.get("type").and_then(Value::as_str) == Some("play") {
            let coins = entry.get("stake")?.get("max")?.as_i64()?;
            return Some(Action::Play {
                card,
                stake: if all_in { coins } else { 0 },
            });
        }
    }
    legal
        .iter()
        .find_map(|v| serde_json::from_value(v.clone()).ok())
}

fn decide(
    strategy: Strategy,
    state: &<Malacca as Game>::State,
    seat: Seat,
    rng: &mut GameRng,
) -> Action {
    let listed = Malacca::legal(state, seat).expect("the awaited seat has moves");
    let action = match strategy {
        Strategy::Heuristic => Malacca::bot_move(
            "heuristic",
            &Malacca::view(state, Viewer::Seat(seat)),
            &listed,
            rng,
        ),
        Strategy::Random => {
            legal::sample(&listed, rng).and_then(|v| serde_json::from_value(v).ok())
        }
        Strategy::TradeAll => fixed(Card::Trade, true, &listed),
        Strategy::DefendZero => fixed(Card::Defense, false, &listed),
    };
    action.expect("a strategy always has a move")
}

/// Plays one game; answers each seat's share of the win.
fn play(data: &MalaccaData, strategies: &[Strategy], key: [u8; 32]) -> Vec<f64> {
    let options = MalaccaOptions::default();
    let mut setup = GameRng::from_key(key);
    let mut state = Malacca::setup(data, strategies.len(), &options, &mut setup).expect("setup");
    let mut rngs: Vec<GameRng> = (0..strategies.len())
        .map(|seat| {
            let mut k = key;
            k[31] ^= 0x80 | seat as u8;
            GameRng::from_key(k)
        })
        .collect();
    let mut step = GameRng::from_key([0; 32]);
    loop {
        let prompt = match Malacca::progress(&state) {
            Progress::Finished(outcome) => {
                let winners = outcome.winners();
                let share = 1.0 / winners.len() as f64;
                let mut shares = vec![0.0; strategies.len()];
                for w in winners {
                    shares[w] = share;
                }
                return shares;
            }
            Progress::Active(p) => p,
        };
        let seat = prompt.awaiting[0];
        let action = decide(strategies[seat], &state, seat, &mut rngs[seat]);
        Malacca::validate(&state, seat, &action).expect("strategies play legal moves");
        state = Malacca::apply(&state, seat, &action, &mut step)
            .expect("apply")
            .state;
    }
}

/// The Wilson score interval at 95 %.
fn wilson(successes: f64, trials: f64) -> (f64, f64) {
    let z = 1.96f64;
    let p = successes / trials;
    let denom = 1.0 + z * z / trials;
    let centre = (p + z * z / (2.0 * trials)) / denom;
    let half = z * (p * (1.0 - p) / trials + z * z / (4.0 * trials * trials)).sqrt() / denom;
    (centre - half, centre + half)
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument, if any, is ignored.
    let games: usize = std::env::var("BOTS_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let data = data();
    println!(
        "Malacca, base game, one heuristic seat (rotating) against n-1 opponents, {games} games per line"
    );
    println!(
        "| players | opponents | heuristic wins | 95 % interval | 1/n | opponents' rate per seat | beats |"
    );
    println!("|---|---|---|---|---|---|---|");
    let started = Instant::now();
    for seats in [4usize, 8] {
        for (o, opponent) in [Strategy::Random, Strategy::TradeAll, Strategy::DefendZero]
            .into_iter()
            .enumerate()
        {
            let mut won = 0.0;
            for g in 0..games {
                let me = g % seats;
                let strategies: Vec<Strategy> = (0..seats)
                    .map(|s| {
                        if s == me {
                            Strategy::Heuristic
                        } else {
                            opponent
                        }
                    })
                    .collect();
                let mut key = [0u8; 32];
                key[0] = seats as u8;
                key[1] = o as u8;
                key[2..10].copy_from_slice(&(g as u64).to_le_bytes());
                won += play(&data, &strategies, key)[me];
            }
            let n = games as f64;
            let rate = won / n;
            let (lo, hi) = wilson(won, n);
            let baseline = 1.0 / seats as f64;
            let others = (1.0 - rate) / (seats - 1) as f64;
            let beats = lo > baseline && lo > others;
            println!(
                "| {seats} | {} | {:.1} % | {:.1}–{:.1} % | {:.1} % | {:.1} % | {} |",
                opponent.name(),
                100.0 * rate,
                100.0 * lo,
                100.0 * hi,
                100.0 * baseline,
                100.0 * others,
                if beats { "yes" } else { "no" }
            );
        }
    }
    println!("({:.1} s)", started.elapsed().as_secs_f64());
}
