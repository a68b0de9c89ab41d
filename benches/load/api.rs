//! The few API calls the load generator makes, each timed and, when it fails,
//! counted by kind, status and problem `code`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use crate::stats::{Kind, Stats};

pub struct Api {
    http: reqwest::Client,
    /// `…/api/v1`
    base: String,
    pub stats: Arc<Stats>,
    /// Whether moves ask for the mover's next prompt in their answer
    /// (`Prefer: return=representation`).
    pub prefer_prompt: bool,
}

/// A response that arrived (any status).
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

impl Answer {
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// A registered player and its bearer token.
#[derive(Clone)]
pub struct Player {
    pub token: String,
}

pub const PASSWORD: &str = "load-generator-password";

/// Accepts only loopback addresses: the load generator is for a server on this
/// machine.
pub fn check_loopback(base_url: &str) -> Result<String, String> {
    let url = reqwest::Url::parse(base_url).map_err(|e| format!("--base-url: {e}"))?;
    if url.scheme() != "http" {
        return Err("--base-url must be http:// (a local server)".into());
    }
    let host = url
        .host_str()
        .unwrap_or("")
        .trim_start_matches('[')
        .trim_end_matches(']');
    let loopback = host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if !loopback {
        return Err(format!(
            "--base-url {base_url}: only loopback addresses (127.0.0.0/8, ::1, localhost) are allowed"
        ));
    }
    Ok(format!("{}/api/v1", base_url.trim_end_matches('/')))
}

impl Api {
    pub fn new(base: String, connections: usize, stats: Arc<Stats>) -> Result<Self, String> {
        let http = reqwest::Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(connections)
            .timeout(Duration::from_secs(30))
            .connect_timeout(Duration::from_secs(5))
            .tcp_nodelay(true)
            .build()
            .map_err(|e| format!("HTTP client: {e}"))?;
        Ok(Api {
            http,
            base,
            stats,
            prefer_prompt: false,
        })
    }

    /// The same client and counters against another replica (`…/api/v1` of it).
    pub fn at(&self, base: String) -> Api {
        Api {
            http: self.http.clone(),
            base,
            stats: self.stats.clone(),
            prefer_prompt: self.prefer_prompt,
        }
    }

    /// One timed request; `None` when no response arrived (counted as `transport`).
    async fn call(
        &self,
        kind: Kind,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> Option<Answer> {
        let mut req = self.http.request(method, format!("{}{}", self.base, path));
        if kind == Kind::Submit && self.prefer_prompt {
            req = req.header("Prefer", "return=representation");
        }
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(b);
        }
        let started = Instant::now();
        let result = async {
            let resp = req.send().await?;
            let status = resp.status().as_u16();
            let bytes = resp.bytes().await?;
            Ok::<_, reqwest::Error>((status, bytes))
        }
        .await;
        let took = started.elapsed();
        match result {
            Ok((status, bytes)) => {
                self.stats.record(kind, took);
                let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                let answer = Answer { status, body };
                if !answer.ok() {
                    let code = answer
                        .body
                        .get("code")
                        .and_then(Value::as_str)
                        .unwrap_or("-");
                    self.stats
                        .error(format!("{} {} {}", kind.name(), status, code));
                }
                Some(answer)
            }
            Err(e) => {
                let what = if e.is_timeout() {
                    "timeout"
                } else if e.is_connect() {
                    "connect"
                } else {
                    "other"
                };
                self.stats
                    .error(format!("{} transport {}", kind.name(), what));
                None
            }
        }
    }

    /// Registers `name` and logs in; `None` on any failure (already counted).
    pub async fn register(&self, name: &str) -> Option<Player> {
        let body = json!({"name": name, "password": PASSWORD});
        let created = self.setup_call("/players", &body).await?;
        if !created.ok() {
            return None;
        }
        let token = self.setup_call("/auth/token", &body).await?;
        if !token.ok() {
            return None;
        }
        Some(Player {
            token: token.body.get("access_token")?.as_str()?.to_owned(),
        })
    }

    /// A setup POST that waits out the server's limit on authentication attempts
    /// per address (60 a minute): short drives run back to back register more
    /// players than that within a minute.
    async fn setup_call(&self, path: &str, body: &Value) -> Option<Answer> {
        for _ in 0..120 {
            let answer = self
                .call(Kind::Setup, Method::POST, path, None, Some(body))
                .await?;
            if answer.status != 429 {
                return Some(answer);
            }
            let wait = answer.body["retry_after"]
                .as_u64()
                .unwrap_or(1)
                .clamp(1, 60);
            tokio::time::sleep(Duration::from_secs(wait)).await;
        }
        None
    }

    /// Creates a Malacca match as `owner` (seat 0); answers its id.
    pub async fn create_match(
        &self,
        owner: &Player,
        seats: usize,
        options: &Value,
    ) -> Option<String> {
        let body = json!({"game": "malacca", "seats": seats, "options": options});
        let a = self
            .call(
                Kind::Create,
                Method::POST,
                "/matches",
                Some(&owner.token),
                Some(&body),
            )
            .await?;
        if !a.ok() {
            return None;
        }
        Some(a.body.get("id")?.as_str()?.to_owned())
    }

    /// Joins; answers the match's status after the join.
    pub async fn join(&self, id: &str, player: &Player) -> Option<String> {
        let a = self
            .call(
                Kind::Create,
                Method::POST,
                &format!("/matches/{id}/join"),
                Some(&player.token),
                None,
            )
            .await?;
        if !a.ok() {
            return None;
        }
        Some(a.body.get("status")?.as_str()?.to_owned())
    }

    /// The match as `player` sees it.
    pub async fn read(&self, id: &str, player: &Player) -> Option<Answer> {
        self.call(
            Kind::Read,
            Method::GET,
            &format!("/matches/{id}"),
            Some(&player.token),
            None,
        )
        .await
    }

    /// The match as `player` sees it once its version passes `after` (a long
    /// poll of at most `wait_s` seconds).
    pub async fn wait_past(
        &self,
        id: &str,
        player: &Player,
        after: i64,
        wait_s: u64,
    ) -> Option<Answer> {
        self.call(
            Kind::Wait,
            Method::GET,
            &format!("/matches/{id}?after_version={after}&wait={wait_s}"),
            Some(&player.token),
            None,
        )
        .await
    }

    /// Opens an event stream (`path` under `/api/v1`) as `player`, after
    /// `last_id` when reopening; `None` (counted) when it could not be opened.
    async fn open_stream(
        &self,
        path: &str,
        player: &Player,
        last_id: Option<&str>,
    ) -> Option<reqwest::Response> {
        let mut req = self
            .http
            .get(format!("{}{}", self.base, path))
            .bearer_auth(&player.token)
            .header("Accept", "text/event-stream")
            // A stream lives as long as the run; the client's request
            // timeout does not apply to it.
            .timeout(Duration::from_secs(24 * 3600));
        if let Some(id) = last_id {
            req = req.header("Last-Event-ID", id);
        }
        match req.send().await {
            Ok(r) if r.status().is_success() => Some(r),
            Ok(r) => {
                self.stats.error(format!("stream {}", r.status().as_u16()));
                None
            }
            Err(_) => {
                self.stats.error("stream transport".into());
                None
            }
        }
    }

    /// Holds an event stream (`path` under `/api/v1`) open until `stop`, counting
    /// the events that arrive, and sending the `data` of every `event: prompt`
    /// frame to `prompts` when given; answers whether it could be opened. The
    /// stream is reopened (from its last position) if the server ends it early.
    pub async fn subscribe(
        &self,
        path: &str,
        player: &Player,
        stop: &tokio::sync::watch::Receiver<bool>,
        opened_count: &std::sync::atomic::AtomicUsize,
        prompts: Option<&tokio::sync::mpsc::UnboundedSender<Value>>,
    ) -> bool {
        let mut stop = stop.clone();
        let mut last_id: Option<String> = None;
        let mut opened = false;
        while !*stop.borrow() {
            let Some(mut resp) = self.open_stream(path, player, last_id.as_deref()).await else {
                return opened;
            };
            if !opened {
                opened_count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            opened = true;
            let mut pending = String::new();
            let mut name = String::new();
            loop {
                let chunk = tokio::select! {
                    c = resp.chunk() => c,
                    _ = stop.changed() => return true,
                };
                let Ok(Some(bytes)) = chunk else { break };
                pending.push_str(&String::from_utf8_lossy(&bytes));
                // Whole lines only; an event ends with a blank line.
                let Some(cut) = pending.rfind('\n') else {
                    continue;
                };
                let mut events = 0;
                for line in pending[..cut].lines() {
                    if let Some(id) = line.strip_prefix("id:") {
                        last_id = Some(id.trim().to_owned());
                    } else if let Some(n) = line.strip_prefix("event:") {
                        name = n.trim().to_owned();
                    } else if let Some(data) = line.strip_prefix("data:") {
                        match prompts {
                            Some(sink) if name == "prompt" => {
                                if let Ok(v) = serde_json::from_str(data.trim()) {
                                    let _ = sink.send(v);
                                }
                            }
                            _ => events += 1,
                        }
                    } else if line.is_empty() {
                        name.clear();
                    }
                }
                pending.drain(..=cut);
                if events > 0 {
                    self.stats.streamed(events);
                }
            }
            // Ended by the server (a finished match's stream ends by itself).
            if path.starts_with("/matches/") {
                return opened;
            }
        }
        opened
    }

    /// Every match where `player` owes a move, with its prompt
    /// (`/players/me/turns?prompts=true`; counted as a read).
    pub async fn turns(&self, player: &Player) -> Option<Answer> {
        self.call(
            Kind::Read,
            Method::GET,
            "/players/me/turns?prompts=true",
            Some(&player.token),
            None,
        )
        .await
    }

    /// Submits a move; a 200 is counted as an accepted move.
    pub async fn submit(
        &self,
        id: &str,
        player: &Player,
        step: i64,
        action: Value,
    ) -> Option<Answer> {
        let body = json!({"step": step, "action": action});
        let a = self
            .call(
                Kind::Submit,
                Method::POST,
                &format!("/matches/{id}/moves"),
                Some(&player.token),
                Some(&body),
            )
            .await?;
        if a.ok() {
            self.stats.accepted();
        }
        Some(a)
    }
}
