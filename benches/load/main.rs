//! API load generator (issue 8). Given the base URL of a running server on this
//! machine, it registers players (names unique per run), creates Malacca matches
//! (open sequential betting and the `sealed` stakes variant), seats everyone, and
//! drives every match to its end with concurrent clients playing legal moves through
//! the HTTP API. It reports accepted moves/s, latency percentiles of move
//! submission and of state reads, errors by status and code, and the server's peak
//! memory when given its pid.
//!
//! ```sh
//! cargo bench --bench load -- --base-url http://127.0.0.1:8080 --clients 8 --matches 1000
//! cargo bench --bench load -- --base-url http://127.0.0.1:8080 --mode hot --stakes sealed
//! ```
//!
//! `--help` lists the options; docs/benchmarks.md ("API load") has figures and the
//! exact commands; benches/compare.sh runs it beside pgbench.
//!
//! Modes:
//! - `main`: M matches are created and started before the clock starts, so all M
//!   are active at once; C clients take matches from one round-robin queue, one
//!   move each (read the match as the awaited seat, submit a legal move, put it
//!   back). Figures are given for the window in which all M matches were still
//!   active (before the first one finished) and for the whole drive.
//! - `hot`: one match of `--seats` seats (8 by default) at a time, every client
//!   owning seats of it (client i plays seats i, i+C, …); a client whose seats owe
//!   nothing long-polls the match (`GET /matches/{id}?after_version=N&wait=S`)
//!   until it changes, rather than polling in a loop.
//!
//! `--drive seats` (main mode) plays as bots that never read: every player holds
//! its stream of events with prompts (`/players/me/events?prompt=true`), and C
//! clients submit a move for each prompt that says a player owes one, playing
//! on from the move's answer (`Prefer: return=representation`) while the mover
//! owes the next move too: one request per move. `--drive tables` (the default)
//! is the one described above.
//!
//! `--subscribe player|match` keeps live event streams (Server-Sent Events) open
//! through the drive and counts the events they receive: one
//! `GET /players/me/events` stream per player, or one `GET /matches/{id}/events`
//! stream per match (as its first seat), to measure what subscribers cost.
//!
//! Every loop ends by itself: matches end after `--rounds` ships, and a run stops
//! after `--max-seconds` whatever happens. Only loopback base URLs are accepted.

mod api;
mod legal;
mod stats;

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use api::{Api, Player};
use legal::Rng;
use stats::{Kind, Stats};

const USAGE: &str = "\
load: drives Malacca matches through a running Sealed Orders server

  cargo bench --bench load -- --base-url http://127.0.0.1:8080 [options]

  --base-url URL        the server (loopback only); without it the program does nothing.
                        Several comma-separated: replicas of one server; main-mode
                        clients are spread over them (client i uses replica i mod n)
  --route clients|matches
                        main, with several replicas: clients: any client takes any match,
                        so a match's moves land on every replica in turn (default);
                        matches: match j is played only through replica j mod n, as a
                        proxy hashing the match's path would route it
  --mode main|hot       main: M matches active at once (default); hot: all clients in one match
  --clients C           concurrent clients (default 8)
  --matches M           main: matches active at once (default 1000); hot: matches played one
                        after another (default 1)
  --seats N             seats per match, 2-8 (default 4 in main, 8 in hot)
  --rounds R            ships per match, 1-50: one round each (default 6 in main, 50 in hot)
  --stakes open|sealed|mixed
                        betting variant (default mixed in main: every other match sealed;
                        sealed in hot)
  --players P           players to register, >= seats (default 16 in main, = seats in hot)
  --setup-concurrency N concurrent requests while registering and seating (default 8)
  --wait-s S            hot: the long poll's wait when a client's seats owe nothing (default 10)
  --poll-ms MS          hot: pause after a long poll that failed (default 50)
  --subscribe none|player|match
                        live event streams held open during the drive: one per player, or
                        one per match (default none)
  --server-pid PID      read the server's VmHWM/VmRSS from /proc/PID/status; with several
                        replicas, their pids comma-separated (the first's memory is read,
                        the CPU of all counts as the server's)
  --max-seconds S       stop driving after S seconds whatever happens (default 900)
  --threads T           tokio worker threads of the generator (default 2)
  --seed N              seed of the move choices (default 1)
  --prefer-prompt on|off
                        main: moves ask for the mover's next prompt in their answer
                        (`Prefer: return=representation`) and play from it rather than
                        read the match first (default on)
  --drive tables|seats  main: tables: each client takes a match and plays its awaited seat,
                        reading when the last answer did not carry that seat's prompt
                        (default); seats: moves come from the players' prompt streams
                        and the moves' answers, never from a read
  --run-id ID           prefix of the player names (default: from the time and pid)
";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Main,
    Hot,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Stakes {
    Open,
    Sealed,
    Mixed,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Subscribe {
    None,
    Player,
    Match,
}

#[derive(Debug)]
struct Args {
    base: String,
    /// Further replicas of the same server: main-mode clients are spread over
    /// all of them (client i drives through replica i mod n).
    more_bases: Vec<String>,
    /// Their processes, whose CPU counts as the server's.
    more_pids: Vec<u32>,
    mode: Mode,
    clients: usize,
    matches: usize,
    seats: usize,
    rounds: usize,
    stakes: Stakes,
    players: usize,
    setup_concurrency: usize,
    poll_ms: u64,
    wait_s: u64,
    subscribe: Subscribe,
    server_pid: Option<u32>,
    max_seconds: u64,
    threads: usize,
    seed: u64,
    run_id: String,
    prefer_prompt: bool,
    seats_drive: bool,
    /// Several replicas: each match is played through one of them only.
    route_matches: bool,
}

fn parse_args(raw: Vec<String>) -> Result<Option<Args>, String> {
    let mut pairs: Vec<(String, String)> = Vec::new();
    let mut it = raw.into_iter();
    while let Some(a) = it.next() {
        // `cargo bench` passes `--bench` to every harness-less target.
        if a == "--bench" {
            continue;
        }
        if a == "--help" || a == "-h" {
            print!("{USAGE}");
            return Ok(None);
        }
        let Some(flag) = a.strip_prefix("--") else {
            return Err(format!("unexpected argument {a:?}"));
        };
        let (key, value) = match flag.split_once('=') {
            Some((k, v)) => (k.to_owned(), v.to_owned()),
            None => (
                flag.to_owned(),
                it.next().ok_or_else(|| format!("--{flag} needs a value"))?,
            ),
        };
        pairs.push((key, value));
    }
    let get = |k: &str| {
        pairs
            .iter()
            .rev()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    for (k, _) in &pairs {
        if !USAGE.contains(&format!("--{k} ")) {
            return Err(format!("unknown option --{k}"));
        }
    }
    let Some(base_url) = get("base-url") else {
        return Ok(None);
    };
    let num = |k: &str, default: u64| -> Result<u64, String> {
        match get(k) {
            None => Ok(default),
            Some(v) => v
                .parse::<u64>()
                .map_err(|_| format!("--{k} {v:?} is not a whole number")),
        }
    };
    let mode = match get("mode").as_deref() {
        None | Some("main") => Mode::Main,
        Some("hot") => Mode::Hot,
        Some(m) => return Err(format!("--mode {m:?}: main or hot")),
    };
    let hot = mode == Mode::Hot;
    let stakes = match get("stakes").as_deref() {
        None if hot => Stakes::Sealed,
        None | Some("mixed") => Stakes::Mixed,
        Some("open") => Stakes::Open,
        Some("sealed") => Stakes::Sealed,
        Some(s) => return Err(format!("--stakes {s:?}: open, sealed or mixed")),
    };
    let seats = num("seats", if hot { 8 } else { 4 })? as usize;
    if !(2..=8).contains(&seats) {
        return Err("--seats: Malacca seats 2 to 8".into());
    }
    let rounds = num("rounds", if hot { 50 } else { 6 })? as usize;
    if !(1..=50).contains(&rounds) {
        return Err("--rounds: 1 to 50 ships".into());
    }
    let players = num("players", if hot { seats as u64 } else { 16 })? as usize;
    if players < seats {
        return Err("--players must be at least --seats".into());
    }
    let clients = num("clients", 8)? as usize;
    let matches = num("matches", if hot { 1 } else { 1000 })? as usize;
    if clients == 0 || matches == 0 {
        return Err("--clients and --matches must be at least 1".into());
    }
    let run_id = match get("run-id") {
        Some(r) => r,
        None => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            format!("ld{:x}{:x}", secs, std::process::id())
        }
    };
    if run_id.len() > 24
        || !run_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err("--run-id: at most 24 letters, digits, _ or -".into());
    }
    let mut bases = base_url.split(',');
    let base = api::check_loopback(bases.next().unwrap_or_default())?;
    let more_bases = bases
        .map(api::check_loopback)
        .collect::<Result<Vec<_>, _>>()?;
    let mut pids = get("server-pid").unwrap_or_default();
    let more_pids = match pids.split_once(',') {
        Some((first, rest)) => {
            let more = rest
                .split(',')
                .map(|p| p.parse().map_err(|_| format!("--server-pid {p:?}")))
                .collect::<Result<Vec<u32>, _>>()?;
            pids = first.to_owned();
            more
        }
        None => Vec::new(),
    };
    Ok(Some(Args {
        base,
        more_bases,
        more_pids,
        mode,
        clients,
        matches,
        seats,
        rounds,
        stakes,
        players,
        setup_concurrency: num("setup-concurrency", 8)?.max(1) as usize,
        poll_ms: num("poll-ms", 50)?,
        wait_s: num("wait-s", 10)?.clamp(1, 60),
        subscribe: match get("subscribe").as_deref() {
            None | Some("none") => Subscribe::None,
            Some("player") => Subscribe::Player,
            Some("match") => Subscribe::Match,
            Some(s) => return Err(format!("--subscribe {s:?}: none, player or match")),
        },
        server_pid: match pids.as_str() {
            "" => None,
            p => Some(p.parse().map_err(|_| format!("--server-pid {p:?}"))?),
        },
        max_seconds: num("max-seconds", 900)?.max(1),
        threads: num("threads", 2)?.max(1) as usize,
        seed: num("seed", 1)?,
        run_id,
        prefer_prompt: match get("prefer-prompt").as_deref() {
            None | Some("on") => true,
            Some("off") => false,
            Some(s) => return Err(format!("--prefer-prompt {s:?}: on or off")),
        },
        seats_drive: match get("drive").as_deref() {
            None | Some("tables") => false,
            Some("seats") if hot => return Err("--drive seats is for the main mode".into()),
            Some("seats") => true,
            Some(s) => return Err(format!("--drive {s:?}: tables or seats")),
        },
        route_matches: match get("route").as_deref() {
            None | Some("clients") => false,
            Some("matches") => true,
            Some(s) => return Err(format!("--route {s:?}: clients or matches")),
        },
    }))
}

fn main() {
    let args = match parse_args(std::env::args().skip(1).collect()) {
        Ok(Some(a)) => a,
        Ok(None) => {
            // Plain `cargo bench` runs every bench target: without a server to
            // load, this one says so and steps aside.
            println!("load: no --base-url given, nothing to do (--help for the options)");
            return;
        }
        Err(e) => {
            eprintln!("load: {e}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(args.threads)
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("load: tokio runtime: {e}");
            std::process::exit(1);
        }
    };
    let code = runtime.block_on(run(args));
    std::process::exit(code);
}

// ---------------------------------------------------------------------------
// Server memory

#[derive(Default, Clone, Copy)]
struct Memory {
    hwm_kib: u64,
    rss_kib: u64,
}

fn read_memory(pid: u32) -> Option<Memory> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| -> Option<u64> {
        status
            .lines()
            .find(|l| l.starts_with(name))?
            .split_whitespace()
            .nth(1)?
            .parse()
            .ok()
    };
    Some(Memory {
        hwm_kib: field("VmHWM:")?,
        rss_kib: field("VmRSS:")?,
    })
}

/// Samples the server's VmRSS every 100 ms into `stats` until `stop`.
fn sample_memory(
    pid: u32,
    stats: Arc<Stats>,
    stop: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while !stop.load(Ordering::Relaxed) {
            if let Some(m) = read_memory(pid) {
                stats.note_rss(m.rss_kib);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

// ---------------------------------------------------------------------------
// Subscribers

/// Live event streams held open during the drive.
struct Subscribers {
    api: Arc<Api>,
    stop: tokio::sync::watch::Sender<bool>,
    tasks: std::sync::Mutex<tokio::task::JoinSet<bool>>,
    opened: Arc<AtomicUsize>,
    wanted: AtomicUsize,
}

impl Subscribers {
    fn new(api: Arc<Api>) -> Self {
        Subscribers {
            api,
            stop: tokio::sync::watch::channel(false).0,
            tasks: std::sync::Mutex::new(tokio::task::JoinSet::new()),
            opened: Arc::new(AtomicUsize::new(0)),
            wanted: AtomicUsize::new(0),
        }
    }

    /// Opens a stream (`path` under `/api/v1`) as `player`, held until `close`.
    fn open(&self, path: String, player: Player) {
        let (api, stop, opened) = (self.api.clone(), self.stop.subscribe(), self.opened.clone());
        self.wanted.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut t) = self.tasks.lock() {
            t.spawn(async move { api.subscribe(&path, &player, &stop, &opened, None).await });
        }
    }

    /// Waits (at most 30 s) until every stream asked for is open; answers how many are.
    async fn ready(&self) -> usize {
        let until = Instant::now() + Duration::from_secs(30);
        let wanted = self.wanted.load(Ordering::Relaxed);
        while self.opened.load(Ordering::Relaxed) < wanted && Instant::now() < until {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.opened.load(Ordering::Relaxed)
    }

    async fn close(&self) {
        let _ = self.stop.send(true);
        let tasks = self.tasks.lock().map(|mut t| std::mem::take(&mut *t));
        if let Ok(mut tasks) = tasks {
            while tasks.join_next().await.is_some() {}
        }
    }
}

// ---------------------------------------------------------------------------
// Setup

fn match_options(index: usize, rounds: usize, stakes: Stakes) -> (Value, bool) {
    // The provisional ship deck's values, rotated per match; one round per ship.
    const DECK: [i64; 12] = [3, 4, 5, 6, 7, 8, 8, 9, 10, 11, 12, 13];
    let ships: Vec<i64> = (0..rounds)
        .map(|r| DECK[(index + r) % DECK.len()])
        .collect();
    let sealed = match stakes {
        Stakes::Open => false,
        Stakes::Sealed => true,
        Stakes::Mixed => index % 2 == 1,
    };
    let options = if sealed {
        json!({"ships": ships, "stakes": "sealed"})
    } else {
        json!({"ships": ships})
    };
    (options, sealed)
}

async fn register_players(api: &Arc<Api>, args: &Args) -> Option<Vec<Player>> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..args.setup_concurrency.min(args.players) {
        let (api, next) = (api.clone(), next.clone());
        let (run_id, total) = (args.run_id.clone(), args.players);
        tasks.spawn(async move {
            let mut got = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return got;
                }
                if let Some(p) = api.register(&format!("{run_id}_{i}")).await {
                    got.push((i, p));
                }
            }
        });
    }
    let mut all = Vec::new();
    while let Some(r) = tasks.join_next().await {
        all.extend(r.unwrap_or_default());
    }
    if all.len() < args.players {
        eprintln!(
            "load: only {} of {} players could register and log in",
            all.len(),
            args.players
        );
        return None;
    }
    all.sort_by_key(|(i, _)| *i);
    Some(all.into_iter().map(|(_, p)| p).collect())
}

/// A started match and who sits where (indices into the players).
struct Slot {
    id: String,
    seats: Vec<usize>,
    sealed: bool,
    /// The seat to read the match as next: the one most likely awaited.
    guess: usize,
    failures: u32,
    /// The prompt of seat `guess` as the last move's answer gave it, when
    /// that seat owes the next move: played from without a read.
    known: Option<Value>,
}

/// Creates match `index` and fills its seats; `None` if it did not start.
async fn start_match(api: &Api, players: &[Player], index: usize, args: &Args) -> Option<Slot> {
    let seats: Vec<usize> = (0..args.seats)
        .map(|k| (index + k) % players.len())
        .collect();
    let (options, sealed) = match_options(index, args.rounds, args.stakes);
    let id = api
        .create_match(&players[seats[0]], args.seats, &options)
        .await?;
    let mut status = String::new();
    for &p in &seats[1..] {
        status = api.join(&id, &players[p]).await?;
    }
    (status == "active").then_some(Slot {
        id,
        seats,
        sealed,
        guess: 0,
        failures: 0,
        known: None,
    })
}

async fn start_matches(
    api: &Arc<Api>,
    players: &Arc<Vec<Player>>,
    args: &Arc<Args>,
    count: usize,
) -> Vec<Slot> {
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..args.setup_concurrency.min(count) {
        let (api, players, args, next) = (api.clone(), players.clone(), args.clone(), next.clone());
        tasks.spawn(async move {
            let mut got = Vec::new();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    return got;
                }
                if let Some(s) = start_match(&api, &players, i, &args).await {
                    got.push((i, s));
                }
            }
        });
    }
    let mut all = Vec::new();
    while let Some(r) = tasks.join_next().await {
        all.extend(r.unwrap_or_default());
    }
    all.sort_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, s)| s).collect()
}

// ---------------------------------------------------------------------------
// One move of one match (main mode)

enum Step {
    Moved,
    Finished,
    Failed,
}

/// Reads the match as the seat most likely awaited (again as the awaited seat if
/// that guess was wrong) and submits one legal move.
async fn play_one(
    api: &Api,
    slot: &mut Slot,
    players: &[Player],
    rng: &mut Rng,
    extra_reads: &AtomicU64,
) -> Step {
    let n = slot.seats.len();
    for attempt in 0..=n {
        if attempt > 0 {
            extra_reads.fetch_add(1, Ordering::Relaxed);
        }
        let player = &players[slot.seats[slot.guess]];
        let prompt = match slot.known.take() {
            Some(p) => p,
            None => {
                let Some(a) = api.read(&slot.id, player).await else {
                    return Step::Failed;
                };
                if !a.ok() {
                    return Step::Failed;
                }
                match a.body.get("status").and_then(Value::as_str) {
                    Some("active") => {}
                    Some("finished") | Some("aborted") => return Step::Finished,
                    _ => return Step::Failed,
                }
                a.body["prompt"].clone()
            }
        };
        let prompt = &prompt;
        let awaiting: Vec<usize> = prompt["awaiting"]
            .as_array()
            .map(|v| {
                v.iter()
                    .filter_map(|s| s.as_u64().map(|s| s as usize))
                    .collect()
            })
            .unwrap_or_default();
        let legal = prompt["legal"].as_array();
        let mine = prompt["your_turn"].as_bool() == Some(true);
        let (Some(step), true, Some(legal)) = (prompt["step"].as_i64(), mine, legal) else {
            // Not this seat's turn: read again as the first awaited seat.
            match awaiting.first() {
                Some(&s) if s < n && s != slot.guess => {
                    slot.guess = s;
                    continue;
                }
                _ => return Step::Failed,
            }
        };
        let Some(action) = legal::sample(legal, rng) else {
            api.stats.error("generator no-legal-move".into());
            return Step::Failed;
        };
        let seat = slot.guess;
        let Some(r) = api.submit(&slot.id, player, step, action).await else {
            return Step::Failed;
        };
        if !r.ok() {
            return Step::Failed;
        }
        // With the mover's next prompt in the answer: null once the match is
        // over; the mover's own next move needs no read; else its `awaiting`
        // names the seat to read as.
        match r.body.get("prompt") {
            Some(Value::Null) => return Step::Finished,
            Some(next) if next["your_turn"].as_bool() == Some(true) => {
                slot.known = Some(next.clone());
                return Step::Moved;
            }
            Some(next) => {
                if let Some(s) = next["awaiting"]
                    .as_array()
                    .and_then(|a| {
                        a.iter()
                            .filter_map(Value::as_u64)
                            .find(|&s| s as usize != seat)
                    })
                    .filter(|&s| (s as usize) < n)
                {
                    slot.guess = s as usize;
                    return Step::Moved;
                }
            }
            None => {}
        }
        // Next: another seat still owing this (sealed) step, else the next seat
        // round the table (open betting goes clockwise from the captain).
        slot.guess = awaiting
            .iter()
            .copied()
            .find(|&s| s != seat && s < n)
            .unwrap_or((seat + 1) % n);
        return Step::Moved;
    }
    Step::Failed
}

// ---------------------------------------------------------------------------
// Main mode

struct Drive {
    total: usize,
    finished: AtomicUsize,
    abandoned: AtomicUsize,
    /// When the first match finished (µs on the stats clock); u64::MAX until then.
    first_finish_us: AtomicU64,
    extra_reads: AtomicU64,
}

async fn main_client(
    api: Arc<Api>,
    players: Arc<Vec<Player>>,
    queue: Arc<std::sync::Mutex<VecDeque<Slot>>>,
    drive: Arc<Drive>,
    mut rng: Rng,
    deadline: Instant,
) {
    while Instant::now() < deadline {
        let next = queue.lock().ok().and_then(|mut q| q.pop_front());
        let Some(mut slot) = next else {
            let done =
                drive.finished.load(Ordering::Relaxed) + drive.abandoned.load(Ordering::Relaxed);
            if done >= drive.total {
                return;
            }
            // Every remaining match is in another client's hands for now.
            tokio::time::sleep(Duration::from_millis(1)).await;
            continue;
        };
        match play_one(&api, &mut slot, &players, &mut rng, &drive.extra_reads).await {
            Step::Moved => {
                slot.failures = 0;
                if let Ok(mut q) = queue.lock() {
                    q.push_back(slot);
                }
            }
            Step::Finished => {
                drive.finished.fetch_add(1, Ordering::Relaxed);
                drive
                    .first_finish_us
                    .fetch_min(api.stats.now_us(), Ordering::Relaxed);
            }
            Step::Failed => {
                slot.failures += 1;
                if slot.failures >= 5 {
                    eprintln!(
                        "load: giving up match {} after 5 failures in a row",
                        slot.id
                    );
                    drive.abandoned.fetch_add(1, Ordering::Relaxed);
                } else {
                    // A 503 busy or a transport hiccup: let the server breathe.
                    tokio::time::sleep(Duration::from_millis(10 * slot.failures as u64)).await;
                    if let Ok(mut q) = queue.lock() {
                        q.push_back(slot);
                    }
                }
            }
        }
    }
}

async fn run_main(
    api: Arc<Api>,
    drivers: &[Arc<Api>],
    players: Arc<Vec<Player>>,
    args: Arc<Args>,
    subs: &Subscribers,
) -> Option<Report> {
    let t = Instant::now();
    let slots = start_matches(&api, &players, &args, args.matches).await;
    let setup_s = t.elapsed().as_secs_f64();
    let sealed = slots.iter().filter(|s| s.sealed).count();
    println!(
        "setup: {} of {} matches created and started in {:.1} s ({} open, {} sealed; {} seats, {} rounds)",
        slots.len(),
        args.matches,
        setup_s,
        slots.len() - sealed,
        sealed,
        args.seats,
        args.rounds
    );
    if slots.is_empty() {
        return None;
    }
    if args.subscribe == Subscribe::Match {
        for s in &slots {
            subs.open(
                format!("/matches/{}/events", s.id),
                players[s.seats[0]].clone(),
            );
        }
    }
    if args.subscribe != Subscribe::None {
        let open = subs.ready().await;
        println!(
            "subscribers: {open} of {} event streams open",
            subs.wanted.load(Ordering::Relaxed)
        );
    }
    let drive = Arc::new(Drive {
        total: slots.len(),
        finished: AtomicUsize::new(0),
        abandoned: AtomicUsize::new(0),
        first_finish_us: AtomicU64::new(u64::MAX),
        extra_reads: AtomicU64::new(0),
    });
    // One queue that every client takes from, or with --route matches one per
    // replica, whose clients alone play its matches.
    let lanes = if args.route_matches {
        drivers.len().min(args.clients)
    } else {
        1
    };
    let mut split: Vec<VecDeque<Slot>> = (0..lanes).map(|_| VecDeque::new()).collect();
    for (j, slot) in slots.into_iter().enumerate() {
        split[j % lanes].push_back(slot);
    }
    let queues: Vec<_> = split
        .into_iter()
        .map(|q| Arc::new(std::sync::Mutex::new(q)))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(args.max_seconds);
    api.stats.drive_begins();
    let from_us = api.stats.now_us();
    let mut tasks = tokio::task::JoinSet::new();
    for c in 0..args.clients {
        tasks.spawn(main_client(
            drivers[c % drivers.len()].clone(),
            players.clone(),
            queues[c % lanes].clone(),
            drive.clone(),
            Rng::new(args.seed.wrapping_mul(1_000_003).wrapping_add(c as u64)),
            deadline,
        ));
    }
    while tasks.join_next().await.is_some() {}
    let to_us = api.stats.now_us();
    let finished = drive.finished.load(Ordering::Relaxed);
    let abandoned = drive.abandoned.load(Ordering::Relaxed);
    let unfinished = drive.total - finished - abandoned;
    let first = drive.first_finish_us.load(Ordering::Relaxed).min(to_us);
    Some(Report {
        label: format!("{} matches active at once", drive.total),
        from_us,
        to_us,
        steady: Some((from_us, first)),
        finished,
        abandoned,
        unfinished,
        extra_reads: drive.extra_reads.load(Ordering::Relaxed),
        drive_secs: (to_us - from_us) as f64 / 1e6,
        cpu: api.stats.drive_cpu(),
    })
}

// ---------------------------------------------------------------------------
// Main mode, driven by the players' prompt streams

/// What the seats drive's clients share.
struct Seats {
    api: Arc<Api>,
    players: Arc<Vec<Player>>,
    /// The last step each (match, player) moved at or is moving at: a prompt
    /// of that step or an older one is stale (the stream repeats prompts).
    moved: std::sync::Mutex<std::collections::HashMap<(String, usize), i64>>,
    finished: std::sync::Mutex<std::collections::HashSet<String>>,
}

impl Seats {
    /// Claims the prompt's move for its player: false when it owes none, or
    /// the move is already made or being made.
    fn claim(&self, id: &str, player: usize, prompt: &Value) -> Option<i64> {
        if prompt.is_null() {
            if let Ok(mut f) = self.finished.lock() {
                f.insert(id.to_owned());
            }
            return None;
        }
        if prompt["your_turn"].as_bool() != Some(true) {
            return None;
        }
        let step = prompt["step"].as_i64()?;
        let mut moved = self.moved.lock().ok()?;
        let last = moved.entry((id.to_owned(), player)).or_insert(-1);
        if *last >= step {
            return None;
        }
        *last = step;
        Some(step)
    }

    /// Gives back a claim whose move was not accepted, so the prompt can be
    /// played again.
    fn unclaim(&self, id: &str, player: usize, step: i64) {
        if let Ok(mut moved) = self.moved.lock()
            && let Some(last) = moved.get_mut(&(id.to_owned(), player))
            && *last == step
        {
            *last = step - 1;
        }
    }

    /// Plays the prompt, and on from each answer while the mover owes the next
    /// move too.
    async fn play(&self, id: &str, player: usize, mut prompt: Value, rng: &mut Rng) {
        let mut failures = 0;
        while let Some(step) = self.claim(id, player, &prompt) {
            let Some(action) = prompt["legal"]
                .as_array()
                .and_then(|legal| legal::sample(legal, rng))
            else {
                self.api.stats.error("generator no-legal-move".into());
                return;
            };
            let answer = self
                .api
                .submit(id, &self.players[player], step, action)
                .await;
            match answer {
                Some(a) if a.ok() => {
                    failures = 0;
                    match a.body.get("prompt") {
                        Some(next) => prompt = next.clone(),
                        None => return,
                    }
                }
                _ => {
                    self.unclaim(id, player, step);
                    failures += 1;
                    if failures >= 5 {
                        eprintln!("load: giving up a move of match {id} after 5 failures");
                        return;
                    }
                    tokio::time::sleep(Duration::from_millis(10 * failures)).await;
                }
            }
        }
    }
}

async fn run_seats(api: Arc<Api>, players: Arc<Vec<Player>>, args: Arc<Args>) -> Option<Report> {
    let t = Instant::now();
    let slots = start_matches(&api, &players, &args, args.matches).await;
    println!(
        "setup: {} of {} matches created and started in {:.1} s ({} seats, {} rounds); seats drive",
        slots.len(),
        args.matches,
        t.elapsed().as_secs_f64(),
        args.seats,
        args.rounds
    );
    if slots.is_empty() {
        return None;
    }
    let total = slots.len();
    let seats = Arc::new(Seats {
        api: api.clone(),
        players: players.clone(),
        moved: Default::default(),
        finished: Default::default(),
    });
    // Every prompt, tagged with its player, into one queue the clients share.
    let (owed, queue) = tokio::sync::mpsc::unbounded_channel::<(usize, Value)>();
    let queue = Arc::new(tokio::sync::Mutex::new(queue));
    let stop = tokio::sync::watch::channel(false).0;
    let opened = Arc::new(AtomicUsize::new(0));
    let mut streams = tokio::task::JoinSet::new();
    for (i, p) in players.iter().enumerate() {
        let (api, p, stop, opened, owed) = (
            api.clone(),
            p.clone(),
            stop.subscribe(),
            opened.clone(),
            owed.clone(),
        );
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Value>();
        streams.spawn(async move {
            let tag = async move {
                while let Some(v) = rx.recv().await {
                    let _ = owed.send((i, v));
                }
            };
            let path = "/players/me/events?prompt=true";
            tokio::join!(api.subscribe(path, &p, &stop, &opened, Some(&tx)), tag);
        });
    }
    let sweep = owed;
    let until = Instant::now() + Duration::from_secs(30);
    while opened.load(Ordering::Relaxed) < players.len() && Instant::now() < until {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    println!(
        "prompt streams: {} of {} open",
        opened.load(Ordering::Relaxed),
        players.len()
    );
    let deadline = Instant::now() + Duration::from_secs(args.max_seconds);
    api.stats.drive_begins();
    let from_us = api.stats.now_us();
    let first_finish = Arc::new(AtomicU64::new(u64::MAX));
    let mut clients = tokio::task::JoinSet::new();
    for c in 0..args.clients {
        let (seats, queue, first_finish) = (seats.clone(), queue.clone(), first_finish.clone());
        let mut rng = Rng::new(args.seed.wrapping_mul(1_000_003).wrapping_add(c as u64));
        clients.spawn(async move {
            loop {
                let next = queue.lock().await.recv().await;
                let Some((player, data)) = next else { return };
                let Some(id) = data["match_id"].as_str() else {
                    continue;
                };
                seats
                    .play(id, player, data["prompt"].clone(), &mut rng)
                    .await;
                if seats
                    .finished
                    .lock()
                    .map(|f| !f.is_empty())
                    .unwrap_or(false)
                {
                    first_finish.fetch_min(seats.api.stats.now_us(), Ordering::Relaxed);
                }
            }
        });
    }
    // A bot whose streams went quiet while it still has matches to play
    // lists its turns, as a real one would after a lost connection; each such
    // sweep is counted (its reads are in the figures).
    let mut last_moves = 0;
    let mut quiet_since = Instant::now();
    let mut sweeps = 0;
    for tick in 0u64.. {
        let done = seats.finished.lock().map(|f| f.len()).unwrap_or(0);
        if done >= total || Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        // Counting the moves walks every one: twice a second is enough.
        if tick % 50 != 0 {
            continue;
        }
        let moves = api.stats.accepted_between(from_us, u64::MAX);
        if moves != last_moves {
            last_moves = moves;
            quiet_since = Instant::now();
        } else if quiet_since.elapsed() >= Duration::from_secs(2) {
            sweeps += 1;
            for (i, p) in players.iter().enumerate() {
                let Some(a) = api.turns(p).await else {
                    continue;
                };
                for turn in a.body["items"].as_array().into_iter().flatten() {
                    let data = json!({"match_id": turn["match_id"], "prompt": turn["prompt"]});
                    let _ = sweep.send((i, data));
                }
            }
            quiet_since = Instant::now();
        }
    }
    if sweeps > 0 {
        println!(
            "seats drive: the streams went quiet {sweeps} times with matches unfinished; the turn lists were read"
        );
    }
    let to_us = api.stats.now_us();
    let _ = stop.send(true);
    clients.abort_all();
    while clients.join_next().await.is_some() {}
    streams.abort_all();
    while streams.join_next().await.is_some() {}
    let finished = seats.finished.lock().map(|f| f.len()).unwrap_or(0);
    let first = first_finish.load(Ordering::Relaxed).min(to_us);
    Some(Report {
        label: format!("{total} matches active at once, seats drive"),
        from_us,
        to_us,
        steady: Some((from_us, first)),
        finished,
        abandoned: 0,
        unfinished: total - finished,
        extra_reads: 0,
        drive_secs: (to_us - from_us) as f64 / 1e6,
        cpu: api.stats.drive_cpu(),
    })
}

// ---------------------------------------------------------------------------
// Hot mode

/// What every client of one hot match shares.
struct Hot {
    api: Arc<Api>,
    players: Arc<Vec<Player>>,
    slot: Slot,
    poll: Duration,
    wait_s: u64,
    deadline: Instant,
    idle_reads: Arc<AtomicU64>,
}

/// One client of a hot match: plays its own seats until the match ends. When none
/// of them owes a move it long-polls the match past the oldest version it read,
/// and plays from the answer.
async fn hot_client(hot: Arc<Hot>, own: Vec<usize>, mut rng: Rng) -> bool {
    let Hot {
        api,
        players,
        slot,
        poll,
        wait_s,
        deadline,
        idle_reads,
    } = &*hot;
    let (poll, deadline) = (*poll, *deadline);
    // The long poll's answer, as the first own seat sees the match.
    let mut fresh: Option<Value> = None;
    while Instant::now() < deadline {
        let mut moved = false;
        let mut oldest: Option<i64> = None;
        for (k, &seat) in own.iter().enumerate() {
            let player = &players[slot.seats[seat]];
            let body = match fresh.take().filter(|_| k == 0) {
                Some(b) => b,
                None => match api.read(&slot.id, player).await {
                    Some(a) if a.ok() => a.body,
                    _ => continue,
                },
            };
            match body.get("status").and_then(Value::as_str) {
                Some("active") => {}
                Some("finished") | Some("aborted") => return true,
                _ => continue,
            }
            if let Some(v) = body["version"].as_i64() {
                oldest = Some(oldest.map_or(v, |o| o.min(v)));
            }
            let prompt = &body["prompt"];
            let legal = prompt["legal"].as_array();
            let step = prompt["step"].as_i64();
            match (prompt["your_turn"].as_bool(), step, legal) {
                (Some(true), Some(step), Some(legal)) => {
                    let Some(action) = legal::sample(legal, &mut rng) else {
                        api.stats.error("generator no-legal-move".into());
                        continue;
                    };
                    if api
                        .submit(&slot.id, player, step, action)
                        .await
                        .is_some_and(|r| r.ok())
                    {
                        moved = true;
                    }
                }
                _ => {
                    idle_reads.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        if moved {
            continue;
        }
        let first = &players[slot.seats[own[0]]];
        match api
            .wait_past(&slot.id, first, oldest.unwrap_or(0), *wait_s)
            .await
        {
            Some(a) if a.ok() => fresh = Some(a.body),
            _ => tokio::time::sleep(poll).await,
        }
    }
    false
}

async fn run_hot(
    api: Arc<Api>,
    players: Arc<Vec<Player>>,
    args: Arc<Args>,
    subs: &Subscribers,
) -> Option<Report> {
    let clients = args.clients.min(args.seats);
    if clients < args.clients {
        println!(
            "hot: {} clients for {} seats: using {clients} (one or more seats each)",
            args.clients, args.seats
        );
    }
    let deadline = Instant::now() + Duration::from_secs(args.max_seconds);
    let mut from_us = None;
    let mut to_us = 0;
    let (mut finished, mut unfinished) = (0, 0);
    let mut drive_secs = 0.0;
    let idle_reads = Arc::new(AtomicU64::new(0));
    for k in 0..args.matches {
        if Instant::now() >= deadline {
            unfinished += args.matches - k;
            break;
        }
        let Some(slot) = start_match(&api, &players, k, &args).await else {
            eprintln!("load: hot match {k} did not start");
            unfinished += 1;
            continue;
        };
        let sealed = slot.sealed;
        if args.subscribe == Subscribe::Match {
            subs.open(
                format!("/matches/{}/events", slot.id),
                players[slot.seats[0]].clone(),
            );
        }
        if args.subscribe != Subscribe::None {
            subs.ready().await;
        }
        let hot = Arc::new(Hot {
            api: api.clone(),
            players: players.clone(),
            slot,
            poll: Duration::from_millis(args.poll_ms),
            wait_s: args.wait_s,
            deadline,
            idle_reads: idle_reads.clone(),
        });
        let start = api.stats.now_us();
        if from_us.is_none() {
            api.stats.drive_begins();
            from_us = Some(start);
        }
        let mut tasks = tokio::task::JoinSet::new();
        for c in 0..clients {
            let own: Vec<usize> = (0..args.seats).filter(|s| s % clients == c).collect();
            let seed = args
                .seed
                .wrapping_mul(1_000_003)
                .wrapping_add((k * 64 + c) as u64);
            tasks.spawn(hot_client(hot.clone(), own, Rng::new(seed)));
        }
        let mut done = false;
        while let Some(r) = tasks.join_next().await {
            done |= r.unwrap_or(false);
        }
        to_us = api.stats.now_us();
        let secs = (to_us - start) as f64 / 1e6;
        drive_secs += secs;
        println!(
            "hot match {k} ({}): {} in {secs:.1} s",
            if sealed { "sealed" } else { "open" },
            if done { "finished" } else { "NOT finished" }
        );
        if done {
            finished += 1;
        } else {
            unfinished += 1;
        }
    }
    let from_us = from_us?;
    Some(Report {
        label: format!("hot: {clients} clients in one {}-seat match", args.seats),
        from_us,
        to_us,
        steady: None,
        finished,
        abandoned: 0,
        unfinished,
        extra_reads: idle_reads.load(Ordering::Relaxed),
        drive_secs,
        cpu: api.stats.drive_cpu(),
    })
}

// ---------------------------------------------------------------------------
// Report

struct Report {
    label: String,
    from_us: u64,
    to_us: u64,
    /// Main mode: the window in which every match was still active.
    steady: Option<(u64, u64)>,
    finished: usize,
    abandoned: usize,
    unfinished: usize,
    /// Main: reads beyond one per move (a wrong guess of the awaited seat);
    /// hot: reads and long-poll answers that found nothing to do.
    extra_reads: u64,
    /// CPU counters when the drive began and ended.
    cpu: Option<(stats::Cpu, stats::Cpu)>,
    /// Seconds spent driving (hot: the matches' own durations, added up).
    drive_secs: f64,
}

async fn run(args: Args) -> i32 {
    let args = Arc::new(args);
    let mut stats = Stats::new(args.server_pid);
    stats.other_servers = args.more_pids.clone();
    let stats = Arc::new(stats);
    let api = match Api::new(
        args.base.clone(),
        args.clients.max(args.setup_concurrency) + 4,
        stats.clone(),
    ) {
        Ok(mut a) => {
            a.prefer_prompt = (args.prefer_prompt || args.seats_drive) && args.mode == Mode::Main;
            Arc::new(a)
        }
        Err(e) => {
            eprintln!("load: {e}");
            return 1;
        }
    };
    println!(
        "load: mode={:?} drive={} route={} clients={} matches={} seats={} rounds={} stakes={:?} players={} prefer-prompt={} base={} run-id={}",
        args.mode,
        if args.seats_drive { "seats" } else { "tables" },
        if args.route_matches {
            "matches"
        } else {
            "clients"
        },
        args.clients,
        args.matches,
        args.seats,
        args.rounds,
        args.stakes,
        args.players,
        api.prefer_prompt,
        args.base,
        args.run_id
    );
    let mem_before = args.server_pid.and_then(read_memory);
    if let (Some(pid), None) = (args.server_pid, mem_before) {
        eprintln!("load: cannot read /proc/{pid}/status: no memory figures");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let sampler = args
        .server_pid
        .filter(|_| mem_before.is_some())
        .map(|pid| sample_memory(pid, stats.clone(), stop.clone()));

    let t = Instant::now();
    let Some(players) = register_players(&api, &args).await else {
        return 1;
    };
    println!(
        "setup: {} players registered and logged in in {:.1} s",
        players.len(),
        t.elapsed().as_secs_f64()
    );
    let players = Arc::new(players);
    let subs = Subscribers::new(api.clone());
    if args.subscribe == Subscribe::Player {
        for p in players.iter() {
            subs.open("/players/me/events".into(), p.clone());
        }
    }
    let report = match args.mode {
        Mode::Main if args.seats_drive => run_seats(api.clone(), players, args.clone()).await,
        Mode::Main => {
            let mut drivers = vec![api.clone()];
            drivers.extend(args.more_bases.iter().map(|b| Arc::new(api.at(b.clone()))));
            run_main(api.clone(), &drivers, players, args.clone(), &subs).await
        }
        Mode::Hot => run_hot(api.clone(), players, args.clone(), &subs).await,
    };
    subs.close().await;
    stop.store(true, Ordering::Relaxed);
    if let Some(h) = sampler {
        let _ = h.await;
    }
    let mem_after = args.server_pid.and_then(read_memory);
    let Some(r) = report else {
        eprintln!("load: no match could be started");
        print_errors(&stats);
        return 1;
    };

    let secs = r.drive_secs;
    let moves = stats.accepted_between(r.from_us, r.to_us);
    let rate = moves as f64 / secs.max(1e-9);
    let submit = stats.summary(Kind::Submit, r.from_us, r.to_us);
    let read = stats.summary(Kind::Read, r.from_us, r.to_us);
    let create = stats.summary(Kind::Create, 0, u64::MAX);
    println!("\n== {}", r.label);
    println!("  create/join  {}", create.line());
    println!(
        "drive: {moves} accepted moves in {secs:.2} s = {rate:.1} moves/s; {} reads = {:.2} per move; {} matches finished, {} abandoned, {} unfinished at the time limit",
        read.count,
        read.count as f64 / (moves.max(1)) as f64,
        r.finished,
        r.abandoned,
        r.unfinished
    );
    let mut result = format!(
        "RESULT mode={} clients={} moves={moves} reads={} seconds={secs:.2} moves_per_s={rate:.1}",
        match args.mode {
            Mode::Main => "main",
            Mode::Hot => "hot",
        },
        args.clients,
        read.count
    );
    let (mut lat_submit, mut lat_read) = (submit, read);
    if let Some((a, b)) = r.steady {
        let steady_secs = (b - a) as f64 / 1e6;
        let steady_moves = stats.accepted_between(a, b);
        let steady_rate = steady_moves as f64 / steady_secs.max(1e-9);
        println!(
            "  whole drive  submit {}\n               read   {}",
            lat_submit.line(),
            lat_read.line()
        );
        println!(
            "while all {} matches were active (first {steady_secs:.2} s): {steady_moves} moves = {steady_rate:.1} moves/s",
            r.finished + r.abandoned + r.unfinished
        );
        lat_submit = stats.summary(Kind::Submit, a, b);
        lat_read = stats.summary(Kind::Read, a, b);
        println!(
            "  all active   submit {}\n               read   {}",
            lat_submit.line(),
            lat_read.line()
        );
        println!(
            "  reads beyond one per move (wrong guess of the awaited seat): {}",
            r.extra_reads
        );
        result.push_str(&format!(
            " active_seconds={steady_secs:.2} active_moves_per_s={steady_rate:.1}"
        ));
    } else {
        println!(
            "  submit {}\n  read   {}\n  long poll {}\n  answers that found nothing to do: {}",
            lat_submit.line(),
            lat_read.line(),
            stats.summary(Kind::Wait, r.from_us, r.to_us).line(),
            r.extra_reads
        );
    }
    for (name, s) in [("submit", &lat_submit), ("read", &lat_read)] {
        result.push_str(&format!(
            " {name}_p50_ms={:.2} {name}_p95_ms={:.2} {name}_p99_ms={:.2} {name}_max_ms={:.2}",
            s.p50, s.p95, s.p99, s.max
        ));
    }
    if let Some((a, b)) = r.cpu {
        // Clock ticks are 1/100 s; two ticks per second per core.
        let secs_all = (b.machine_all - a.machine_all) as f64;
        let busy = (b.machine_busy - a.machine_busy) as f64;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
        let per_move = |ticks: u64| ticks as f64 * 10.0 / moves.max(1) as f64;
        let server = match (a.server, b.server) {
            (Some(x), Some(y)) => format!(
                "server {:.2} ms CPU per move ({:.0} % of one core), ",
                per_move(y - x),
                (y - x) as f64 / secs.max(1e-9)
            ),
            _ => String::new(),
        };
        let generator = b.generator - a.generator;
        let rest = (b.machine_busy - a.machine_busy)
            .saturating_sub(generator)
            .saturating_sub(b.server.unwrap_or(0) - a.server.unwrap_or(0));
        println!(
            "cpu during the drive: machine {:.0} % busy of {cores:.0} cores; {server}load generator {:.2} ms per move ({:.0} % of one core); the rest (Postgres, anything else running) {:.2} ms per move",
            100.0 * busy / secs_all.max(1.0),
            per_move(generator),
            generator as f64 / secs.max(1e-9),
            per_move(rest),
        );
        result.push_str(&format!(
            " machine_busy_pct={:.0} generator_cpu_ms_per_move={:.3} rest_cpu_ms_per_move={:.3}",
            100.0 * busy / secs_all.max(1.0),
            per_move(generator),
            per_move(rest)
        ));
        if let (Some(x), Some(y)) = (a.server, b.server) {
            result.push_str(&format!(" server_cpu_ms_per_move={:.3}", per_move(y - x)));
        }
    }
    if args.subscribe != Subscribe::None {
        let streamed = stats.streamed_between(r.from_us, r.to_us);
        println!(
            "subscribers ({:?}): {} streams; {streamed} events received during the drive = {:.2} per accepted move",
            args.subscribe,
            subs.wanted.load(Ordering::Relaxed),
            streamed as f64 / moves.max(1) as f64
        );
        result.push_str(&format!(
            " subscribe={} streams={} events={streamed}",
            format!("{:?}", args.subscribe).to_lowercase(),
            subs.wanted.load(Ordering::Relaxed)
        ));
    }
    let errors = print_errors(&stats);
    result.push_str(&format!(" errors={errors}"));
    if let (Some(before), Some(after)) = (mem_before, mem_after) {
        let (setup_peak, drive_peak) = stats.rss_peaks();
        let drive_peak = drive_peak.max(after.rss_kib);
        println!(
            "server memory (VmRSS, sampled every 100 ms): {:.1} MiB before, peak {:.1} MiB during the setup, peak {:.1} MiB during the drive, {:.1} MiB after; VmHWM (process lifetime) {:.1} MiB",
            mib(before.rss_kib),
            mib(setup_peak),
            mib(drive_peak),
            mib(after.rss_kib),
            mib(after.hwm_kib)
        );
        result.push_str(&format!(
            " server_vmhwm_mib={:.1} server_drive_peak_rss_mib={:.1} server_setup_peak_rss_mib={:.1} server_before_rss_mib={:.1} server_after_rss_mib={:.1}",
            mib(after.hwm_kib),
            mib(drive_peak),
            mib(setup_peak),
            mib(before.rss_kib),
            mib(after.rss_kib)
        ));
    }
    println!("{result}");
    if r.unfinished > 0 || r.abandoned > 0 {
        eprintln!("load: WARNING: not every match reached its end");
    }
    0
}

/// Prints the error counts; answers their total.
fn print_errors(stats: &Stats) -> u64 {
    let errors = stats.errors();
    let total: u64 = errors.values().sum();
    if errors.is_empty() {
        println!("errors: none");
    } else {
        println!("errors ({total}):");
        for (k, n) in &errors {
            println!("  {n:>8}  {k}");
        }
    }
    total
}
