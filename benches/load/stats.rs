//! What the load generator measures: every request's latency (kept whole, sorted
//! at the end: a run holds at most a few hundred thousand samples), accepted moves
//! with their time, and errors by request kind, status and problem `code`.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `POST /players`, `POST /auth/token`.
    Setup,
    /// `POST /matches`, `POST /matches/{id}/join`.
    Create,
    /// `GET /matches/{id}` with a seat's token.
    Read,
    /// `POST /matches/{id}/moves`.
    Submit,
    /// `GET /matches/{id}?after_version=N&wait=S`: a long poll (hot mode), timed
    /// apart from the reads since it waits on purpose.
    Wait,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Setup => "setup",
            Kind::Create => "create/join",
            Kind::Read => "read",
            Kind::Submit => "submit",
            Kind::Wait => "long poll",
        }
    }
}

/// One request: when it ended (µs since the stats began) and how long it took (µs).
#[derive(Clone, Copy)]
struct Sample {
    at_us: u64,
    took_us: u32,
}

#[derive(Default)]
struct Inner {
    samples: BTreeMap<Kind, Vec<Sample>>,
    errors: BTreeMap<String, u64>,
    /// When each accepted move's answer arrived (µs since the stats began).
    accepted: Vec<u64>,
    /// When each event arrived on a subscriber's stream (µs since the stats began).
    streamed: Vec<u64>,
}

pub struct Stats {
    start: Instant,
    inner: Mutex<Inner>,
    /// The server's highest VmRSS sampled since the drive began (or, before
    /// that, since the start), in KiB.
    rss_peak_kib: AtomicU64,
    /// The same, during the setup (registration, seating).
    setup_rss_peak_kib: AtomicU64,
    server_pid: Option<u32>,
    /// Further server processes (other replicas) whose CPU counts as the server's.
    pub other_servers: Vec<u32>,
    /// CPU counters when the drive began.
    drive_cpu: Mutex<Option<Cpu>>,
}

/// CPU time counters, in clock ticks (1/100 s on Linux).
#[derive(Clone, Copy, Debug, Default)]
pub struct Cpu {
    /// The whole machine: busy (neither idle nor iowait), and all.
    pub machine_busy: u64,
    pub machine_all: u64,
    /// The server process (user + system), when its pid was given.
    pub server: Option<u64>,
    /// This load generator.
    pub generator: u64,
}

fn process_ticks(pid: &str) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces): utime is the 12th,
    // stime the 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

impl Cpu {
    pub fn read(server_pid: Option<u32>, others: &[u32]) -> Option<Cpu> {
        let stat = std::fs::read_to_string("/proc/stat").ok()?;
        let line = stat.lines().next()?;
        let v: Vec<u64> = line
            .split_whitespace()
            .skip(1)
            .filter_map(|x| x.parse().ok())
            .collect();
        // user nice system idle iowait irq softirq steal (guest time is in user).
        let all: u64 = v.iter().take(8).sum();
        let idle = v.get(3)? + v.get(4)?;
        Some(Cpu {
            machine_busy: all - idle,
            machine_all: all,
            server: server_pid.and_then(|p| {
                let mut ticks = process_ticks(&p.to_string())?;
                for o in others {
                    ticks += process_ticks(&o.to_string())?;
                }
                Some(ticks)
            }),
            generator: process_ticks("self")?,
        })
    }
}

/// Latency percentiles of one kind over one window, in milliseconds.
pub struct Summary {
    pub count: usize,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
    pub max: f64,
    pub mean: f64,
}

impl Summary {
    pub fn line(&self) -> String {
        format!(
            "n={:>7}  p50={:>7.2}  p95={:>7.2}  p99={:>7.2}  max={:>8.2}  mean={:>7.2} ms",
            self.count, self.p50, self.p95, self.p99, self.max, self.mean
        )
    }
}

impl Stats {
    pub fn new(server_pid: Option<u32>) -> Self {
        Stats {
            start: Instant::now(),
            inner: Mutex::new(Inner::default()),
            rss_peak_kib: AtomicU64::new(0),
            setup_rss_peak_kib: AtomicU64::new(0),
            server_pid,
            other_servers: Vec::new(),
            drive_cpu: Mutex::new(None),
        }
    }

    /// Microseconds since the stats began.
    pub fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    pub fn record(&self, kind: Kind, took: Duration) {
        let s = Sample {
            at_us: self.now_us(),
            took_us: took.as_micros().min(u32::MAX as u128) as u32,
        };
        if let Ok(mut inner) = self.inner.lock() {
            inner.samples.entry(kind).or_default().push(s);
        }
    }

    /// An accepted move (a 200 answer to `POST …/moves`).
    pub fn accepted(&self) {
        let at = self.now_us();
        if let Ok(mut inner) = self.inner.lock() {
            inner.accepted.push(at);
        }
    }

    /// Events that arrived on a subscriber's stream.
    pub fn streamed(&self, events: usize) {
        let at = self.now_us();
        if let Ok(mut inner) = self.inner.lock() {
            inner.streamed.extend(std::iter::repeat_n(at, events));
        }
    }

    /// Streamed events that arrived in `[from_us, to_us)`.
    pub fn streamed_between(&self, from_us: u64, to_us: u64) -> usize {
        self.inner
            .lock()
            .map(|i| {
                i.streamed
                    .iter()
                    .filter(|&&t| t >= from_us && t < to_us)
                    .count()
            })
            .unwrap_or(0)
    }

    /// Accepted moves whose answer arrived in `[from_us, to_us)`.
    pub fn accepted_between(&self, from_us: u64, to_us: u64) -> usize {
        self.inner
            .lock()
            .map(|i| {
                i.accepted
                    .iter()
                    .filter(|&&t| t >= from_us && t < to_us)
                    .count()
            })
            .unwrap_or(0)
    }

    /// A sample of the server's VmRSS.
    pub fn note_rss(&self, kib: u64) {
        self.rss_peak_kib.fetch_max(kib, Ordering::Relaxed);
    }

    /// The drive begins: the peak so far was the setup's.
    pub fn drive_begins(&self) {
        let setup = self.rss_peak_kib.swap(0, Ordering::Relaxed);
        self.setup_rss_peak_kib.fetch_max(setup, Ordering::Relaxed);
        if let Ok(mut cpu) = self.drive_cpu.lock()
            && cpu.is_none()
        {
            *cpu = Cpu::read(self.server_pid, &self.other_servers);
        }
    }

    /// CPU counters when the drive began, and now.
    pub fn drive_cpu(&self) -> Option<(Cpu, Cpu)> {
        let start = (*self.drive_cpu.lock().ok()?)?;
        Some((start, Cpu::read(self.server_pid, &self.other_servers)?))
    }

    /// (setup peak, drive peak) of the sampled VmRSS, in KiB.
    pub fn rss_peaks(&self) -> (u64, u64) {
        (
            self.setup_rss_peak_kib.load(Ordering::Relaxed),
            self.rss_peak_kib.load(Ordering::Relaxed),
        )
    }

    pub fn error(&self, key: String) {
        if let Ok(mut inner) = self.inner.lock() {
            *inner.errors.entry(key).or_default() += 1;
        }
    }

    pub fn errors(&self) -> BTreeMap<String, u64> {
        self.inner
            .lock()
            .map(|i| i.errors.clone())
            .unwrap_or_default()
    }

    /// Percentiles (nearest rank) of the samples of `kind` that ended in
    /// `[from_us, to_us)`.
    pub fn summary(&self, kind: Kind, from_us: u64, to_us: u64) -> Summary {
        let mut v: Vec<u32> = self
            .inner
            .lock()
            .map(|i| {
                i.samples
                    .get(&kind)
                    .map(|s| {
                        s.iter()
                            .filter(|s| s.at_us >= from_us && s.at_us < to_us)
                            .map(|s| s.took_us)
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .unwrap_or_default();
        v.sort_unstable();
        let pick = |q: f64| -> f64 {
            if v.is_empty() {
                return 0.0;
            }
            let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
            v[rank - 1] as f64 / 1000.0
        };
        let mean = if v.is_empty() {
            0.0
        } else {
            v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64 / 1000.0
        };
        Summary {
            count: v.len(),
            p50: pick(0.50),
            p95: pick(0.95),
            p99: pick(0.99),
            max: pick(1.0),
            mean,
        }
    }
}
