//! A real SMTP server for the tests: it listens on a loopback port, speaks
//! enough of RFC 5321 for a client (EHLO, MAIL, RCPT, DATA, RSET, NOOP, QUIT),
//! and keeps every message it accepted, as received on the wire.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

/// A message as it arrived.
#[derive(Debug, Clone)]
pub struct Received {
    pub to: Vec<String>,
    pub raw: String,
}

impl Received {
    /// A header's value, unfolded; None without it.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.raw.split("\r\n\r\n").next()?;
        let mut value: Option<String> = None;
        for line in head.split("\r\n") {
            if let Some(v) = value.as_mut()
                && (line.starts_with(' ') || line.starts_with('\t'))
            {
                v.push_str(line.trim_start());
                continue;
            }
            if value.is_some() {
                break;
            }
            if let Some((n, v)) = line.split_once(':')
                && n.eq_ignore_ascii_case(name)
            {
                value = Some(v.trim().to_owned());
            }
        }
        value
    }

    /// The decoded `Subject` (RFC 2047 words of UTF-8 in base64 or Q).
    pub fn subject(&self) -> String {
        decode_words(&self.header("Subject").unwrap_or_default())
    }

    /// The decoded body of the part of this content type (`text/plain`).
    pub fn part(&self, content_type: &str) -> Option<String> {
        let at = self
            .raw
            .to_ascii_lowercase()
            .find(&format!("content-type: {content_type}"))?;
        let rest = &self.raw[at..];
        let (head, body) = rest.split_once("\r\n\r\n")?;
        let body = body.split("\r\n--").next()?;
        let cte = head
            .split("\r\n")
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-transfer-encoding:")
                    .map(|v| v.trim().to_owned())
            })
            .unwrap_or_default();
        Some(match cte.as_str() {
            "base64" => String::from_utf8_lossy(
                &base64::engine::general_purpose::STANDARD
                    .decode(body.replace("\r\n", ""))
                    .unwrap_or_default(),
            )
            .into_owned(),
            "quoted-printable" => quoted_printable(body),
            _ => body.to_owned(),
        })
    }

    pub fn text(&self) -> String {
        self.part("text/plain").unwrap_or_default()
    }

    pub fn html(&self) -> String {
        self.part("text/html").unwrap_or_default()
    }

    /// The first URL in the text part that starts with `prefix`.
    pub fn link(&self, prefix: &str) -> Option<String> {
        let text = self.text();
        let at = text.find(prefix)?;
        Some(
            text[at..]
                .split(|c: char| c.is_whitespace())
                .next()?
                .to_owned(),
        )
    }
}

fn quoted_printable(s: &str) -> String {
    let s = s.replace("=\r\n", "");
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'='
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn decode_words(s: &str) -> String {
    let mut out = String::new();
    for word in s.split_whitespace() {
        let decoded = word
            .strip_prefix("=?")
            .and_then(|w| w.strip_suffix("?="))
            .and_then(|w| {
                let mut p = w.splitn(3, '?');
                let (_charset, enc, text) = (p.next()?, p.next()?, p.next()?);
                match enc {
                    "B" | "b" => base64::engine::general_purpose::STANDARD
                        .decode(text)
                        .ok()
                        .map(|b| String::from_utf8_lossy(&b).into_owned()),
                    _ => Some(quoted_printable(&text.replace('_', " "))),
                }
            });
        match decoded {
            Some(d) => out.push_str(&d),
            None => {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(word);
            }
        }
    }
    out
}

/// The sink: its port, and what arrived.
#[derive(Clone)]
pub struct MailSink {
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    /// Messages to refuse (451) before accepting again: a server in trouble.
    refuse: Arc<AtomicUsize>,
}

impl MailSink {
    pub async fn start() -> MailSink {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let sink = MailSink {
            port,
            received: Arc::default(),
            refuse: Arc::default(),
        };
        let s = sink.clone();
        tokio::spawn(async move {
            while let Ok((conn, _)) = listener.accept().await {
                let s = s.clone();
                tokio::spawn(async move {
                    let _ = s.serve(conn).await;
                });
            }
        });
        sink
    }

    pub fn url(&self) -> String {
        format!("smtp://127.0.0.1:{}", self.port)
    }

    /// Refuses the next `n` messages with a temporary error.
    pub fn refuse_next(&self, n: usize) {
        self.refuse.store(n, Ordering::SeqCst);
    }

    async fn serve(&self, conn: tokio::net::TcpStream) -> std::io::Result<()> {
        let (r, mut w) = conn.into_split();
        let mut r = BufReader::new(r);
        w.write_all(b"220 sink ESMTP\r\n").await?;
        let mut to = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            if r.read_line(&mut line).await? == 0 {
                return Ok(());
            }
            let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
            match verb.as_str() {
                "EHLO" => w.write_all(b"250-sink\r\n250 8BITMIME\r\n").await?,
                "HELO" => w.write_all(b"250 sink\r\n").await?,
                "MAIL" => {
                    to.clear();
                    w.write_all(b"250 ok\r\n").await?
                }
                "RCPT" => {
                    let addr = line
                        .split('<')
                        .nth(1)
                        .and_then(|x| x.split('>').next())
                        .unwrap_or("")
                        .to_owned();
                    to.push(addr);
                    w.write_all(b"250 ok\r\n").await?
                }
                "DATA" => {
                    w.write_all(b"354 go on\r\n").await?;
                    let mut raw = String::new();
                    loop {
                        line.clear();
                        if r.read_line(&mut line).await? == 0 {
                            return Ok(());
                        }
                        if line == ".\r\n" {
                            break;
                        }
                        // Dot-stuffing (RFC 5321 4.5.2).
                        raw.push_str(line.strip_prefix('.').unwrap_or(&line));
                    }
                    let refused = self
                        .refuse
                        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| n.checked_sub(1))
                        .is_ok();
                    if refused {
                        w.write_all(b"451 try again later\r\n").await?;
                    } else {
                        if let Ok(mut got) = self.received.lock() {
                            got.push(Received {
                                to: to.clone(),
                                raw,
                            });
                        }
                        w.write_all(b"250 queued\r\n").await?;
                    }
                }
                "QUIT" => {
                    w.write_all(b"221 bye\r\n").await?;
                    return Ok(());
                }
                _ => w.write_all(b"250 ok\r\n").await?,
            }
        }
    }

    /// Everything received so far.
    pub fn all(&self) -> Vec<Received> {
        self.received.lock().map(|g| g.clone()).unwrap_or_default()
    }

    /// Waits (up to 15 s) for a message to `to` whose subject contains
    /// `subject`, and answers it.
    pub async fn wait_for(&self, to: &str, subject: &str) -> Received {
        for _ in 0..300 {
            if let Some(m) = self
                .all()
                .into_iter()
                .find(|m| m.to.iter().any(|t| t == to) && m.subject().contains(subject))
            {
                return m;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "no mail to {to} about {subject:?}; received: {:?}",
            self.all()
                .iter()
                .map(|m| (m.to.clone(), m.subject()))
                .collect::<Vec<_>>()
        );
    }

    /// The messages to `to` whose subject contains `subject`.
    pub fn to(&self, to: &str, subject: &str) -> Vec<Received> {
        self.all()
            .into_iter()
            .filter(|m| m.to.iter().any(|t| t == to) && m.subject().contains(subject))
            .collect()
    }
}
