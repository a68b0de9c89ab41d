//! `sealed-orders simulate`: random legal matches played through the service
//! layer into the configured database, for demos and benchmarks.
//!
//! Matches are drawn from a population of players with a skewed activity (a few
//! play very often, most rarely) so per-player figures and leaderboards look like
//! a real server's, and finish on a simulated clock spread over the last
//! `--span-days` so time filters select something.

use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context;
use chrono::{DateTime, Duration, SubsecRound, Utc};
use serde_json::json;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::config::Settings;
use crate::games::legal;
use crate::games::rng::GameRng;
use crate::service::clock::Clock;
use crate::service::data::DataStore;
use crate::service::lobby::{CreateMatch, Lobby};
use crate::service::moves::{Moves, SubmitMove};
use crate::service::reads::Reads;
use crate::service::{Foundation, Services, registry};
use crate::store::{self, entities::players};

/// `sealed-orders simulate`: random legal matches played through the service.
#[derive(Debug, Clone, clap::Args)]
pub struct SimulateArgs {
    /// The game to play.
    #[arg(long, default_value = "malacca")]
    pub game: String,
    /// How many matches to play.
    #[arg(long, default_value_t = 100)]
    pub matches: usize,
    /// Seats per match: a count (`4`) or a range drawn from (`2-8`).
    #[arg(long = "players", value_name = "A-B", default_value = "2-8", value_parser = seat_range)]
    pub seats: (usize, usize),
    /// The seed of the draws (seat counts, players, moves).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Matches played at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// Players to draw seats from (created when missing, reused otherwise).
    #[arg(long, default_value_t = 1000)]
    pub population: usize,
    /// The exponent of the Zipf-like activity: player `i` is drawn with weight
    /// `1 / (i + 1)^skew`; 0 makes everyone equally active.
    #[arg(long, default_value_t = 0.8, value_parser = skew)]
    pub skew: f64,
    /// Finishing times are spread evenly over this many days up to now.
    #[arg(long, default_value_t = 180, value_parser = clap::value_parser!(i64).range(0..=3650))]
    pub span_days: i64,
    /// The players' name prefix: `{prefix}-{i}`.
    #[arg(long, default_value = "sim")]
    pub prefix: String,
}

fn seat_range(v: &str) -> Result<(usize, usize), String> {
    let (a, b) = v.split_once('-').unwrap_or((v, v));
    let parse = |x: &str| {
        x.trim()
            .parse::<usize>()
            .map_err(|_| format!("{v:?} is not a seat count nor a range A-B"))
    };
    let (a, b) = (parse(a)?, parse(b)?);
    if a == 0 || b < a {
        return Err(format!("{v:?}: the range must be A-B with 1 <= A <= B"));
    }
    Ok((a, b))
}

fn skew(v: &str) -> Result<f64, String> {
    match v.parse::<f64>() {
        Ok(x) if x.is_finite() && (0.0..=4.0).contains(&x) => Ok(x),
        _ => Err(format!("{v:?}: the skew takes 0 to 4")),
    }
}

impl SimulateArgs {
    pub fn min_players(&self) -> usize {
        self.seats.0
    }
    pub fn max_players(&self) -> usize {
        self.seats.1
    }
    /// What the flags cannot say alone.
    pub fn check(&self) -> anyhow::Result<()> {
        anyhow::ensure!(
            self.population >= self.max_players(),
            "--population must be at least the largest seat count"
        );
        Ok(())
    }
}

/// Simulated time: the driver moves it forward as matches are claimed, so the
/// `i`-th of `n` matches runs near `start + span·i/n`. It never goes backwards
/// and never answers the same instant twice, as the system clock would not.
struct SimClock {
    micros: AtomicI64,
}

impl SimClock {
    fn new(start: DateTime<Utc>) -> Self {
        Self {
            micros: AtomicI64::new(start.timestamp_micros()),
        }
    }

    fn advance_to(&self, at: DateTime<Utc>) {
        self.micros
            .fetch_max(at.timestamp_micros(), Ordering::SeqCst);
    }
}

impl Clock for SimClock {
    fn now(&self) -> DateTime<Utc> {
        let us = self.micros.fetch_add(1, Ordering::SeqCst) + 1;
        DateTime::from_timestamp_micros(us)
            .unwrap_or_else(Utc::now)
            .trunc_subsecs(6)
    }
}

/// Draws distinct players with Zipf-like weights.
struct Population {
    players: Vec<AuthenticatedPlayer>,
    cumulative: Vec<f64>,
}

impl Population {
    fn new(players: Vec<AuthenticatedPlayer>, skew: f64) -> Self {
        let mut total = 0.0;
        let cumulative = (0..players.len())
            .map(|i| {
                total += 1.0 / ((i + 1) as f64).powf(skew);
                total
            })
            .collect();
        Self {
            players,
            cumulative,
        }
    }

    fn draw(&self, n: usize, rng: &mut GameRng) -> Vec<AuthenticatedPlayer> {
        let total = self.cumulative.last().copied().unwrap_or(0.0);
        let mut picked: Vec<usize> = Vec::with_capacity(n);
        while picked.len() < n {
            let x = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * total;
            let i = self
                .cumulative
                .partition_point(|c| *c <= x)
                .min(self.players.len() - 1);
            if !picked.contains(&i) {
                picked.push(i);
            }
        }
        picked.iter().map(|i| self.players[*i].clone()).collect()
    }
}

fn rng_for(seed: u64, index: u64) -> GameRng {
    let mut k = [0u8; 32];
    k[..8].copy_from_slice(&seed.to_be_bytes());
    k[8..16].copy_from_slice(&index.to_be_bytes());
    GameRng::from_key(k)
}

fn err(e: crate::service::error::Error) -> anyhow::Error {
    anyhow::anyhow!("{}", crate::errors::ApiError::from(e).body())
}

/// Plays the matches; answers how many moves were made.
pub async fn run(settings: Settings, args: SimulateArgs) -> anyhow::Result<u64> {
    let mut settings = settings;
    // Every concurrent match holds at most one connection at a time.
    settings.max_connections = Some(
        settings
            .max_connections
            .unwrap_or(0)
            .max(u32::from(args.concurrency) + 2),
    );
    let db = store::connect(&settings).await?;
    store::migrate(&db, &settings).await?;
    let games = registry::all_games();
    let info = games
        .iter()
        .find(|g| g.info().id == args.game)
        .map(|g| g.info())
        .with_context(|| format!("no game {}", args.game))?;
    let sizes: Vec<usize> = info
        .seats
        .iter()
        .copied()
        .filter(|n| (args.min_players()..=args.max_players()).contains(n))
        .collect();
    anyhow::ensure!(
        !sizes.is_empty(),
        "{} is not played by {}-{} players",
        info.name,
        args.min_players(),
        args.max_players()
    );
    anyhow::ensure!(
        args.population >= *sizes.iter().max().unwrap_or(&2),
        "--population is smaller than a match"
    );
    let data = DataStore::load(&games, settings.data_dir.as_deref())?;
    let end = Utc::now().trunc_subsecs(6);
    let start = end - Duration::days(args.span_days);
    let clock = Arc::new(SimClock::new(start));
    data.persist(&db, start).await?;
    // Simulated players cannot log in: their password hash is no PHC string.
    let mut pool = Vec::with_capacity(args.population);
    for i in 0..args.population {
        let name = format!("{}-{i}", args.prefix);
        let id = match store::players::player_by_name(&db, &name).await? {
            Some(p) => p.id,
            None => {
                let row = players::Model {
                    id: Uuid::now_v7(),
                    name_key: name.to_lowercase(),
                    name: name.clone(),
                    password_hash: "!simulated".into(),
                    is_bot: false,
                    created_at: start,
                };
                store::players::insert_player(&db, row.clone()).await?;
                row.id
            }
        };
        pool.push(AuthenticatedPlayer::server(id, name));
    }
    let population = Population::new(pool, args.skew);
    let jwt = crate::auth::JwtKeys::new(&[0; 32], 60);
    let metrics = Arc::new(crate::metrics::Metrics::new()?);
    let services = Services::build(
        Foundation {
            db,
            move_db: None,
            move_lists: crate::store::move_write::MoveLists::Arrays,
            games,
            data,
            jwt,
            clock: clock.clone(),
            metrics,
            notified_reads: true,
            // A simulation sends no mail.
            mail_key: Vec::new(),
            replica: uuid::Uuid::new_v4(),
            // One process: it hears of every change.
            home_lease: None,
        },
        &settings,
    );
    let shared = Arc::new(Shared {
        lobby: services.lobby.clone(),
        reads: services.reads.clone(),
        mover: services.moves.clone(),
        population,
        sizes,
        args: args.clone(),
        clock,
        start,
        next: AtomicUsize::new(0),
        done: AtomicUsize::new(0),
        moves: AtomicU64::new(0),
        began: Instant::now(),
    });
    // One task per worker, so that building views and legal lists (about half the
    // work of a move) runs on every core beside the database.
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..usize::from(args.concurrency).min(args.matches.max(1)) {
        let shared = shared.clone();
        workers.spawn(async move { shared.work().await });
    }
    while let Some(done) = workers.join_next().await {
        done.context("a simulation worker panicked")??;
    }
    Ok(shared.moves.load(Ordering::SeqCst))
}

struct Shared {
    lobby: Arc<Lobby>,
    reads: Arc<Reads>,
    mover: Arc<Moves>,
    population: Population,
    sizes: Vec<usize>,
    args: SimulateArgs,
    clock: Arc<SimClock>,
    start: DateTime<Utc>,
    next: AtomicUsize,
    done: AtomicUsize,
    moves: AtomicU64,
    began: Instant,
}

impl Shared {
    async fn work(&self) -> anyhow::Result<()> {
        let span_us = Duration::days(self.args.span_days)
            .num_microseconds()
            .unwrap_or(0) as i128;
        let n = self.args.matches;
        loop {
            let i = self.next.fetch_add(1, Ordering::SeqCst);
            if i >= n {
                return Ok(());
            }
            let at = self.start
                + Duration::microseconds((span_us * i as i128 / n.max(1) as i128) as i64);
            self.clock.advance_to(at);
            let moves = self.play(i).await.with_context(|| format!("match {i}"))?;
            self.moves.fetch_add(moves, Ordering::SeqCst);
            let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
            let every = (n / 100).clamp(100, 1000);
            if done.is_multiple_of(every) || done == n {
                let secs = self.began.elapsed().as_secs_f64();
                tracing::info!(
                    matches = done,
                    of = n,
                    moves = self.moves.load(Ordering::SeqCst),
                    per_second = %format!("{:.1}", done as f64 / secs.max(0.001)),
                    eta_s = ((n - done) as f64 * secs / done as f64).round() as u64,
                    "simulated"
                );
            }
        }
    }

    async fn play(&self, index: usize) -> anyhow::Result<u64> {
        let mut rng = rng_for(self.args.seed, index as u64);
        let n = self.sizes[rng.index(self.sizes.len())];
        let seated = self.population.draw(n, &mut rng);
        let m = self
            .lobby
            .create_match(
                &seated[0],
                CreateMatch {
                    game: self.args.game.clone(),
                    seats: n as i64,
                    options: Some(json!({})),
                    bots: Vec::new(),
                    join: true,
                    visibility: None,
                    spectators: None,
                    invite: Vec::new(),
                    invitation_expires_in: None,
                    chat: None,
                    club: None,
                },
            )
            .await
            .map_err(err)?;
        for p in &seated[1..] {
            self.lobby
                .join_match(p, m.id, Default::default())
                .await
                .map_err(err)?;
        }
        // Seats are taken in joining order, so seat `i` is `seated[i]`.
        let mut moves = 0;
        loop {
            let view = self.reads.get_match(None, m.id).await.map_err(err)?;
            let Some(prompt) = view.prompt else { break };
            for seat in prompt.awaiting {
                let p = &seated[seat];
                let mine = self.reads.get_match(Some(p.id), m.id).await.map_err(err)?;
                let Some(mp) = mine.prompt else { continue };
                let listed = mp.legal.unwrap_or_default();
                let action = legal::sample(&listed, &mut rng).context("no legal move")?;
                self.mover
                    .submit_move(
                        p,
                        m.id,
                        SubmitMove {
                            step: mp.step,
                            action,
                            idempotency_key: None,
                        },
                    )
                    .await
                    .map_err(err)?;
                moves += 1;
            }
        }
        Ok(moves)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flags as `sealed-orders simulate` reads them.
    #[derive(clap::Parser)]
    struct Command {
        #[command(flatten)]
        args: SimulateArgs,
    }

    fn parse(s: &str) -> anyhow::Result<SimulateArgs> {
        let words = std::iter::once("simulate").chain(s.split_whitespace());
        let args = <Command as clap::Parser>::try_parse_from(words)?.args;
        args.check()?;
        Ok(args)
    }

    #[test]
    fn flags_are_parsed_and_checked() {
        let a = parse("--matches 5 --players 3-4 --concurrency 8 --population 50 --span-days 30")
            .expect("valid");
        assert_eq!(
            (a.matches, a.min_players(), a.max_players(), a.concurrency),
            (5, 3, 4, 8)
        );
        assert_eq!((a.population, a.span_days), (50, 30));
        assert!(parse("--concurrency 0").is_err());
        assert!(parse("--population 3 --players 2-8").is_err());
        assert!(parse("--skew nan").is_err());
        assert!(parse("--matches").is_err());
        assert!(parse("--colour red").is_err());
        assert!(parse("--players 5-3").is_err());
        let d = parse("").expect("defaults");
        assert_eq!(
            (d.game.as_str(), d.matches, d.seats),
            ("malacca", 100, (2, 8))
        );
    }

    #[test]
    fn the_most_active_players_are_drawn_most_and_seats_are_distinct() {
        let players = (0..100)
            .map(|i| AuthenticatedPlayer::server(Uuid::now_v7(), format!("p{i}")))
            .collect::<Vec<_>>();
        let pop = Population::new(players.clone(), 1.0);
        let mut rng = rng_for(7, 0);
        let mut counts = vec![0u32; 100];
        for _ in 0..2000 {
            let drawn = pop.draw(4, &mut rng);
            let mut ids: Vec<Uuid> = drawn.iter().map(|p| p.id).collect();
            ids.sort();
            ids.dedup();
            assert_eq!(ids.len(), 4);
            for p in drawn {
                counts[players.iter().position(|q| q.id == p.id).unwrap_or(0)] += 1;
            }
        }
        assert!(counts[0] > counts[50] * 5, "{counts:?}");
    }

    #[test]
    fn the_clock_moves_forward_only() {
        let t0 = Utc::now().trunc_subsecs(6);
        let c = SimClock::new(t0);
        let a = c.now();
        c.advance_to(t0 - Duration::days(1));
        let b = c.now();
        assert!(b > a);
        c.advance_to(t0 + Duration::days(1));
        assert!(c.now() > t0 + Duration::days(1) - Duration::seconds(1));
    }
}
