use std::sync::Arc;

use chrono::SubsecRound;
use reqwest::{Method, StatusCode};
use sealed_orders::config::Settings;
use sealed_orders::games::legal;
use sealed_orders::games::rng::GameRng;
use sealed_orders::service::clock::{Clock, ManualClock, SystemClock};
use sealed_orders::startup::Application;
use secrecy::SecretString;
use serde_json::{Value, json};

/// An HTTP client that drops idle connections before the server's keep-alive
/// (5 s) ends them, so a request never goes out on a connection being closed.
pub fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(2))
        .build()
        .expect("an HTTP client")
}

/// Where a test's data lives; removed when the test ends.
enum DbGuard {
    Sqlite(#[allow(dead_code)] tempfile::TempDir),
    Postgres {
        url: String,
        schema: String,
    },
    /// Another server's database: that server's guard removes it.
    #[allow(dead_code)]
    Shared,
}

impl Drop for DbGuard {
    fn drop(&mut self) {
        if let DbGuard::Postgres { url, schema } = self {
            let (url, schema) = (url.clone(), schema.clone());
            // Drop runs outside async, on the test's runtime thread: a thread of its
            // own drops the schema, and this waits a bounded time, because a task of
            // the blocked runtime may hold a lock the DROP needs. A schema left
            // behind is dropped by .ci/run (`test_%`).
            let (done, wait) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build();
                if let Ok(rt) = rt {
                    rt.block_on(async {
                        if let Ok(db) = sea_orm::Database::connect(url).await {
                            use sea_orm::ConnectionTrait;
                            let _ = db.execute_unprepared("SET lock_timeout = '3s'").await;
                            let _ = db
                                .execute_unprepared(&format!(
                                    "DROP SCHEMA IF EXISTS {schema} CASCADE"
                                ))
                                .await;
                        }
                    });
                }
                let _ = done.send(());
            });
            let _ = wait.recv_timeout(std::time::Duration::from_secs(5));
        }
    }
}

pub struct TestApp {
    pub address: String,
    pub client: reqwest::Client,
    #[allow(dead_code)]
    pub settings: Settings,
    _db: DbGuard,
}

/// The shard count CI's Citus stage runs the suite with: set only when the
/// database is a Citus coordinator.
fn citus_shard_count() -> Option<u32> {
    std::env::var("CITUS_SHARD_COUNT")
        .ok()
        .and_then(|n| n.parse().ok())
}

/// Whether the suite runs against Citus, where moves are written alone and
/// replicas have no homes: what only plain Postgres has is skipped there.
pub fn on_citus() -> bool {
    citus_shard_count().is_some()
}

/// A fresh database for one test, and the settings that point at it.
pub async fn test_settings() -> (Settings, DbGuardHandle) {
    let mut settings = Settings {
        database_url: String::new(),
        database_schema: None,
        host: "127.0.0.1".into(),
        port: 0,
        jwt_secret: Some(SecretString::from("test-secret-test-secret-test-secret!")),
        jwt_ttl_seconds: 3600,
        // The defaults, so that the suite proves ordinary play never meets them.
        rate_limit_auth_per_min: 60,
        rate_limit_moves_per_min: 600,
        rate_limit_moves_per_min_per_address: 3000,
        rate_limit_chat_per_min: 20,
        rate_limit_matches_per_min: 10,
        rate_limit_invitations_per_min: 30,
        rate_limit_clubs_per_min: 5,
        rate_limit_tournaments_per_min: 5,
        caps: Default::default(),
        trusted_proxies: Vec::new(),
        cors_origins: Vec::new(),
        data_dir: None,
        max_connections: None,
        citus_shard_count: citus_shard_count(),
        log_format: "pretty".into(),
        // Off unless a test needs it: see spawn_app_with_manual_clock.
        deadline_poll_ms: 0,
        webhooks: Default::default(),
        mail: Default::default(),
        password_hash_threads: 2,
        password_hash_wait_ms: 60_000,
        match_cache_mib: 32,
        credential_cache_ms: 2000,
        stale_lobby_days: 14,
        invitation_hours: 168,
        vacation_days_per_year: 30,
        move_lists: std::env::var("MOVE_LISTS").unwrap_or_else(|_| "auto".into()),
        match_reads: "auto".into(),
        // One server per test: it takes itself for the only replica at once, so
        // the suite reads through what it keeps (the replica tests run separate
        // processes, with the default).
        replica_silence_ms: 0,
        home_lease_ms: sealed_orders::config::DEFAULT_HOME_LEASE_MS,
        move_batch: sealed_orders::config::DEFAULT_MOVE_BATCH,
        move_writers: sealed_orders::config::DEFAULT_MOVE_WRITERS,
        move_batch_wait_us: 0,
    };
    let guard = match std::env::var("TEST_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
    {
        Some(url) => {
            let schema = format!("test_{}", uuid::Uuid::new_v4().simple());
            let admin = sea_orm::Database::connect(url.clone())
                .await
                .expect("connect to TEST_DATABASE_URL");
            use sea_orm::ConnectionTrait;
            admin
                .execute_unprepared(&format!("CREATE SCHEMA {schema}"))
                .await
                .expect("create the test schema");
            admin.close().await.ok();
            settings.database_url = url.clone();
            settings.database_schema = Some(schema.clone());
            DbGuard::Postgres { url, schema }
        }
        None => {
            let dir = tempfile::tempdir().expect("temp dir");
            settings.database_url = format!("sqlite://{}/test.db?mode=rwc", dir.path().display());
            DbGuard::Sqlite(dir)
        }
    };
    (settings, DbGuardHandle(guard))
}

pub struct DbGuardHandle(DbGuard);

pub async fn spawn_app() -> TestApp {
    spawn_app_with_clock(Arc::new(SystemClock), |_| {}).await
}

/// A server whose clock the test moves.
pub async fn spawn_app_with_manual_clock() -> (TestApp, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(chrono::Utc::now().trunc_subsecs(6)));
    let app = spawn_app_with_clock(clock.clone(), |s| s.deadline_poll_ms = 20).await;
    (app, clock)
}

/// A server with adjusted settings, whose clock the test moves.
#[allow(dead_code)]
pub async fn spawn_app_with(adjust: impl FnOnce(&mut Settings)) -> (TestApp, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new(chrono::Utc::now().trunc_subsecs(6)));
    (spawn_app_with_clock(clock.clone(), adjust).await, clock)
}

async fn spawn_app_with_clock(
    clock: Arc<dyn Clock>,
    adjust: impl FnOnce(&mut Settings),
) -> TestApp {
    if std::env::var("TEST_LOG").is_ok() {
        sealed_orders::telemetry::init("pretty", "debug");
    }
    let (mut settings, guard) = test_settings().await;
    adjust(&mut settings);
    let app = Application::build_with_clock(settings.clone(), clock)
        .await
        .expect("build the application");
    let address = format!("http://127.0.0.1:{}", app.port());
    tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        client: client(),
        settings,
        _db: guard.0,
    }
}

/// A second server in this process on `app`'s database, as another replica
/// would be; `app` must outlive it.
#[allow(dead_code)]
pub async fn another_replica(app: &TestApp) -> TestApp {
    replica_with_clock(app, Arc::new(SystemClock)).await
}

/// A second server in this process on `app`'s database, reading the same
/// clock `app` was given: another replica whose time a test moves with it.
#[allow(dead_code)]
pub async fn another_replica_with_clock(app: &TestApp, clock: Arc<ManualClock>) -> TestApp {
    replica_with_clock(app, clock).await
}

async fn replica_with_clock(app: &TestApp, clock: Arc<dyn Clock>) -> TestApp {
    let server = Application::build_with_clock(app.settings.clone(), clock)
        .await
        .expect("build the second replica");
    let address = format!("http://127.0.0.1:{}", server.port());
    tokio::spawn(server.run_until_stopped());
    TestApp {
        address,
        client: client(),
        settings: app.settings.clone(),
        _db: DbGuard::Shared,
    }
}

/// A server running as its own process (the release path: main, env settings).
pub struct Process {
    child: std::process::Child,
    pub log: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl Process {
    /// The port of the log's "listening" line, once it is written.
    pub fn logged_port(&self) -> Option<u16> {
        let log = std::fs::read_to_string(&self.log).ok()?;
        log.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|l| l["message"] == "listening")?["port"]
            .as_u64()
            .and_then(|p| u16::try_from(p).ok())
    }

    /// How the process ended, if it has, and the end of its log.
    pub fn post_mortem(&mut self) -> String {
        let status = match self.child.try_wait() {
            Ok(Some(status)) => format!("exited with {status}"),
            _ => "still running".to_owned(),
        };
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        // An error that ends the process is followed by its backtrace, which
        // would fill the tail and hide the message.
        let log = log.split("\nStack backtrace:").next().unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        let tail = lines[lines.len().saturating_sub(20)..].join("\n");
        format!("{status}; its log ends:\n{tail}")
    }

    /// Ends the server at once (SIGKILL), as a crash would, and waits for it.
    #[allow(dead_code)]
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Asks the server to stop, as an orchestrator does (SIGTERM).
    pub fn terminate(&self) {
        let _ = std::process::Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status();
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the `sealed-orders` binary on a fresh database with JSON logs captured
/// to a file, and waits until it is ready.
///
/// The process picks its port (`PORT=0`) and the log tells it: a port picked
/// here and released would stay free only until the process binds it, after
/// its migrations, while the tests beside this one bind ports of their own.
pub async fn spawn_process(env: &[(&str, &str)]) -> (TestApp, Process) {
    let (settings, guard) = test_settings().await;
    let mut app = TestApp {
        address: String::new(),
        client: client(),
        settings,
        _db: guard.0,
    };
    let mut process = start_process(&app.settings, "0", env);
    for _ in 0..600 {
        if let Some(port) = process.logged_port() {
            app.address = format!("http://127.0.0.1:{port}");
            wait_until_ready(&app, &mut process).await;
            return (app, process);
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!(
        "the server process never listened: {}",
        process.post_mortem()
    );
}

/// Starts the binary again for `app`: the same database and port (the previous
/// process must have ended), and waits until it is ready.
pub async fn restart_process(app: &TestApp, env: &[(&str, &str)]) -> Process {
    let port = app.address.rsplit(':').next().expect("a port");
    let mut process = start_process(&app.settings, port, env);
    wait_until_ready(app, &mut process).await;
    process
}

pub fn start_process(settings: &Settings, port: &str, env: &[(&str, &str)]) -> Process {
    use secrecy::ExposeSecret;
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("server.log");
    let out = std::fs::File::create(&log).expect("log file");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_sealed-orders"));
    cmd.env("DATABASE_URL", &settings.database_url)
        .env("PORT", port)
        .env(
            "JWT_SECRET",
            settings
                .jwt_secret
                .as_ref()
                .expect("secret")
                .expose_secret(),
        )
        .env("LOG_FORMAT", "json")
        .env_remove("DATABASE_SCHEMA")
        .env_remove("RUST_LOG")
        .stdout(out.try_clone().expect("log file"))
        .stderr(out);
    if let Some(schema) = &settings.database_schema {
        cmd.env("DATABASE_SCHEMA", schema);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    Process {
        child: cmd.spawn().expect("start the server"),
        log,
        _dir: dir,
    }
}

async fn wait_until_ready(app: &TestApp, process: &mut Process) {
    for _ in 0..600 {
        if app
            .client
            .get(app.url("/readyz"))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success())
        {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!(
        "the server process never became ready: {}",
        process.post_mortem()
    );
}

/// A response read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: StatusCode,
    pub content_type: String,
    pub headers: reqwest::header::HeaderMap,
    pub text: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|_| panic!("not JSON: {}", self.text))
    }
    /// Asserts the status and answers the body.
    pub fn expect(&self, status: u16) -> Value {
        assert_eq!(
            self.status.as_u16(),
            status,
            "unexpected status; body: {}",
            self.text
        );
        // An empty body (204, 202) reads as null.
        if self.text.is_empty() {
            return Value::Null;
        }
        self.json()
    }
    /// Asserts a problem document with this status and code.
    pub fn problem(&self, status: u16, code: &str) -> Value {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.text);
        assert_eq!(
            self.content_type, "application/problem+json",
            "body: {}",
            self.text
        );
        let body = self.json();
        assert_eq!(body["code"], code, "body: {}", self.text);
        assert_eq!(body["status"], status);
        for field in ["type", "title", "detail"] {
            assert!(
                body[field].is_string(),
                "problem lacks {field}: {}",
                self.text
            );
        }
        body
    }
}

#[derive(Clone)]
pub struct Player {
    pub name: String,
    pub token: String,
    #[allow(dead_code)]
    pub id: String,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub async fn send(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Reply {
        self.send_with_headers(method, path, token, body, &[]).await
    }

    /// A request with extra headers (a proxy's X-Forwarded-For, a browser's Origin).
    pub async fn send_with_headers(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut req = self.client.request(method, self.url(path));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        for (name, value) in headers {
            req = req.header(*name, *value);
        }
        let resp = req.send().await.expect("request");
        let status = resp.status();
        let headers = resp.headers().clone();
        let content_type = headers
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        let text = resp.text().await.expect("body");
        Reply {
            status,
            content_type,
            headers,
            text,
        }
    }

    /// Opens an event stream (`Accept: text/event-stream`) and reads it until
    /// `done` says the text so far is enough, the server ends it, or `quiet`
    /// passes without a new chunk. Answers the status and the text read.
    pub async fn stream(
        &self,
        path: &str,
        token: Option<&str>,
        last_event_id: Option<&str>,
        quiet: std::time::Duration,
        done: impl Fn(&str) -> bool,
    ) -> (StatusCode, String) {
        let mut req = self
            .client
            .get(self.url(path))
            .header("accept", "text/event-stream");
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(id) = last_event_id {
            req = req.header("last-event-id", id);
        }
        let mut resp = req.send().await.expect("request");
        let status = resp.status();
        let text = read_until(&mut resp, |text, silent| done(text) || silent >= quiet).await;
        (status, text)
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        self.send(Method::GET, path, token, None).await
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Reply {
        self.send(Method::POST, path, token, Some(body)).await
    }

    pub async fn player(&self, name: &str) -> Player {
        let created = self
            .post(
                "/api/v1/players",
                None,
                &json!({"name": name, "password": "password1"}),
            )
            .await
            .expect(201);
        let token = self
            .post(
                "/api/v1/auth/token",
                None,
                &json!({"name": name, "password": "password1"}),
            )
            .await
            .expect(200);
        Player {
            name: name.to_owned(),
            token: token["access_token"].as_str().expect("token").to_owned(),
            id: created["id"].as_str().expect("id").to_owned(),
        }
    }

    pub async fn players(&self, n: usize) -> Vec<Player> {
        let mut out = Vec::new();
        for i in 0..n {
            out.push(self.player(&format!("player{i}")).await);
        }
        out
    }

    /// Creates a match as `owner` with `body` as `POST /matches` takes it: its id.
    pub async fn create_match(&self, owner: &Player, body: &Value) -> String {
        self.post("/api/v1/matches", Some(&owner.token), body)
            .await
            .expect(201)["id"]
            .as_str()
            .expect("id")
            .to_owned()
    }

    /// Creates a match of `players.len()` seats and seats everybody (it starts).
    pub async fn started_match(&self, players: &[Player], game: &str, options: Value) -> String {
        let m = self
            .post(
                "/api/v1/matches",
                Some(&players[0].token),
                &json!({"game": game, "seats": players.len(), "options": options}),
            )
            .await
            .expect(201);
        let id = m["id"].as_str().expect("id").to_owned();
        for p in &players[1..] {
            self.post(
                &format!("/api/v1/matches/{id}/join"),
                Some(&p.token),
                &json!({}),
            )
            .await
            .expect(200);
        }
        id
    }

    pub async fn match_as(&self, id: &str, player: Option<&Player>) -> Value {
        self.get(
            &format!("/api/v1/matches/{id}"),
            player.map(|p| p.token.as_str()),
        )
        .await
        .expect(200)
    }

    pub async fn submit(&self, id: &str, player: &Player, step: i64, action: Value) -> Reply {
        self.post(
            &format!("/api/v1/matches/{id}/moves"),
            Some(&player.token),
            &json!({"step": step, "action": action}),
        )
        .await
    }

    /// Plays a started match to its end with moves drawn from `legal`; answers the
    /// finished match and the number of moves made.
    pub async fn play_to_end(&self, id: &str, players: &[Player], seed: u8) -> (Value, usize) {
        let mut rng = GameRng::from_key([seed; 32]);
        let mut moves = 0;
        loop {
            let m = self.match_as(id, None).await;
            if m["status"] != "active" {
                return (m, moves);
            }
            let awaiting = m["prompt"]["awaiting"]
                .as_array()
                .expect("awaiting")
                .clone();
            for seat in awaiting {
                let seat = seat.as_u64().expect("seat") as usize;
                let p = &players[seat];
                let mine = self.match_as(id, Some(p)).await;
                let prompt = &mine["prompt"];
                assert_eq!(prompt["your_turn"], true);
                let legal_moves = prompt["legal"]
                    .as_array()
                    .expect("legal for the awaited seat")
                    .clone();
                let action = legal::sample(&legal_moves, &mut rng).expect("a legal move");
                let step = prompt["step"].as_i64().expect("step");
                self.submit(id, p, step, action).await.expect(200);
                moves += 1;
                assert!(moves < 5000, "the game does not end");
            }
        }
    }
}

/// A Heretics position of three seats with two cards each and three plain
/// cities: seat 0 holds `hussites:1` and `hussites:11`.
pub fn heretics_position() -> Value {
    json!({
        "factions": ["hussites", "reformers", "catholics"],
        "hand": [
            ["hussites:1", "hussites:11"],
            ["reformers:2", "reformers:5"],
            ["catholics:3", "catholics:4"]
        ],
        "city_deck": ["brno", "olomouc", "wroclaw"]
    })
}

/// Reads the player's feed until an event of `kind` shows (the feed holds
/// events back while older transactions are open, on Postgres).
pub async fn feed_kinds(app: &TestApp, p: &Player, kind: &str) -> Vec<String> {
    let mut kinds = Vec::new();
    for _ in 0..100 {
        let feed = app
            .get("/api/v1/players/me/events", Some(&p.token))
            .await
            .expect(200);
        kinds = feed["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|e| e["kind"].as_str().unwrap_or("").to_owned())
            .collect();
        if kinds.iter().any(|k| k == kind) {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    kinds
}

/// Reads a stream's frames until `done(text so far, time since the last
/// frame)`, the stream's end, or two minutes. `done` is asked every tenth of a
/// second, not only after a frame: it may turn true on what the test learnt
/// meanwhile, and a stream's keepalives never let it go quiet for long.
pub async fn read_until(
    resp: &mut reqwest::Response,
    done: impl Fn(&str, std::time::Duration) -> bool,
) -> String {
    let tick = std::time::Duration::from_millis(100);
    let cap = tokio::time::Instant::now() + std::time::Duration::from_secs(120);
    let (mut text, mut silent) = (String::new(), std::time::Duration::ZERO);
    while !done(&text, silent) && tokio::time::Instant::now() < cap {
        match tokio::time::timeout(tick, resp.chunk()).await {
            Ok(Ok(Some(bytes))) => {
                text.push_str(&String::from_utf8_lossy(&bytes));
                silent = std::time::Duration::ZERO;
            }
            Ok(_) => break,
            Err(_) => silent += tick,
        }
    }
    text
}
