//! Prometheus metrics, per process: each replica is scraped on its own.

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounter, IntCounterVec, IntGauge, IntGaugeVec, Opts,
    Registry, TextEncoder,
};

/// The server's metrics, registered in a registry of its own (not the global one),
/// so several servers in one process (the tests) never share counters.
pub struct Metrics {
    registry: Registry,
    pub requests: IntCounterVec,
    pub latency: HistogramVec,
    pub moves_accepted: IntCounterVec,
    pub steps_resolved: IntCounterVec,
    pub matches: IntGaugeVec,
    pub pool: IntGaugeVec,
    pub webhook_attempts: IntCounterVec,
    /// Password hashes computing now, and the most ever at once (`running`, `peak`).
    pub password_hashes: IntGaugeVec,
    /// The parsed-state cache: `entries` and `bytes` (its weight).
    pub match_cache: IntGaugeVec,
    /// One-statement moves by how they were written: `alone`, `batched` (with
    /// others, one commit), `refused_batch` (in a batch refused or failed as a whole, then
    /// written alone).
    pub move_writes: IntCounterVec,
    /// Statements that wrote more than one move.
    pub move_batches: IntCounter,
    /// 1 while a match read answers from the kept snapshot without asking the
    /// database (this replica takes itself for the only one and hears every
    /// change), 0 while every read asks.
    pub reads_from_snapshots: IntGauge,
    /// Reads of a match's latest version, by how the kept snapshot was known
    /// current: `kept` (this replica hears of every change), `home` (it is
    /// the match's home), `checked` (the database gave the version), `read`
    /// (none kept, or stale: read whole).
    pub match_reads: IntCounterVec,
}

impl Metrics {
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new_custom(Some("sealed_orders".into()), None)?;
        let requests = IntCounterVec::new(
            Opts::new(
                "http_requests_total",
                "HTTP requests by route, method and status.",
            ),
            &["route", "method", "status"],
        )?;
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "http_request_duration_seconds",
                "HTTP request latency by route and method.",
            )
            .buckets(vec![
                0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
            ]),
            &["route", "method"],
        )?;
        let moves_accepted = IntCounterVec::new(
            Opts::new("moves_accepted_total", "Moves accepted, by game."),
            &["game"],
        )?;
        let steps_resolved = IntCounterVec::new(
            Opts::new("steps_resolved_total", "Steps completed, by game."),
            &["game"],
        )?;
        let matches = IntGaugeVec::new(
            Opts::new(
                "matches",
                "Matches by status (read from the database at scrape time).",
            ),
            &["status"],
        )?;
        let pool = IntGaugeVec::new(
            Opts::new("db_pool_connections", "Database pool connections by state."),
            &["state"],
        )?;
        let webhook_attempts = IntCounterVec::new(
            Opts::new(
                "webhook_attempts_total",
                "Webhook delivery attempts by outcome: delivered, retry, failed.",
            ),
            &["outcome"],
        )?;
        let password_hashes = IntGaugeVec::new(
            Opts::new(
                "password_hashes",
                "argon2 computations: running now, and the peak at once since start.",
            ),
            &["state"],
        )?;
        let match_cache = IntGaugeVec::new(
            Opts::new(
                "match_cache",
                "Match snapshots kept in this process: entries, and their estimated bytes.",
            ),
            &["measure"],
        )?;
        let move_writes = IntCounterVec::new(
            Opts::new(
                "move_writes_total",
                "One-statement moves by how they were written: alone, batched, refused_batch.",
            ),
            &["how"],
        )?;
        let move_batches = IntCounter::new(
            "move_batches_total",
            "Statements that wrote several moves in one commit.",
        )?;
        let reads_from_snapshots = IntGauge::new(
            "reads_from_snapshots",
            "1 while match reads answer from kept snapshots without asking the database, else 0.",
        )?;
        let match_reads = IntCounterVec::new(
            Opts::new(
                "match_reads_total",
                "Reads of a match's latest version by how the kept snapshot was known current: kept, home, checked, read.",
            ),
            &["how"],
        )?;
        for c in [
            Box::new(requests.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(match_reads.clone()),
            Box::new(latency.clone()),
            Box::new(moves_accepted.clone()),
            Box::new(steps_resolved.clone()),
            Box::new(matches.clone()),
            Box::new(pool.clone()),
            Box::new(webhook_attempts.clone()),
            Box::new(password_hashes.clone()),
            Box::new(match_cache.clone()),
            Box::new(move_writes.clone()),
            Box::new(move_batches.clone()),
            Box::new(reads_from_snapshots.clone()),
        ] {
            registry.register(c)?;
        }
        Ok(Self {
            registry,
            requests,
            latency,
            moves_accepted,
            steps_resolved,
            matches,
            pool,
            webhook_attempts,
            password_hashes,
            match_cache,
            move_writes,
            move_batches,
            reads_from_snapshots,
            match_reads,
        })
    }

    /// The Prometheus text exposition of every metric.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}
