//! The HTTP connection itself, spoken to byte by byte: the server's HTTP/1.1
//! layer is carried with a patch that keeps no read or write buffer while a
//! connection waits (vendor/README.md), so what a buffer used to hold across
//! reads and writes is checked here: a request that takes many reads, requests
//! pipelined in one write, a long answer taken slowly, and the same connection
//! used again after each.

use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::spawn_app;

/// A connection read answer by answer: what arrived beyond one answer (the
/// next of pipelined requests) is kept for the next.
struct Conn {
    stream: TcpStream,
    unread: Vec<u8>,
}

async fn connect(address: &str) -> Conn {
    let host = address.trim_start_matches("http://");
    Conn {
        stream: TcpStream::connect(host).await.expect("connect"),
        unread: Vec::new(),
    }
}

impl Conn {
    async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.expect("write");
        self.stream.flush().await.expect("flush");
    }

    /// Reads until `unread` holds `want` bytes, `chunk` bytes a read with
    /// `pause` after each.
    async fn fill(&mut self, want: usize, chunk: usize, pause: Duration) {
        let mut buf = vec![0u8; chunk];
        while self.unread.len() < want {
            let n = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut buf))
                .await
                .expect("bytes within 10 s")
                .expect("read");
            assert!(
                n > 0,
                "the connection closed {} bytes short of {want}",
                want - self.unread.len()
            );
            self.unread.extend_from_slice(&buf[..n]);
            tokio::time::sleep(pause).await;
        }
    }

    /// The next answer (its head, then a body of Content-Length bytes), read
    /// `chunk` bytes at a time with `pause` between reads: its status, head
    /// and body.
    async fn answer(&mut self, chunk: usize, pause: Duration) -> (u16, String, Vec<u8>) {
        let head_end = loop {
            if let Some(i) = self.unread.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let more = self.unread.len() + 1;
            self.fill(more, chunk, pause).await;
        };
        let head = String::from_utf8(self.unread[..head_end].to_vec()).expect("a head in UTF-8");
        let status: u16 = head[9..12].parse().expect("a status");
        let length: usize = head
            .lines()
            .find_map(|l| {
                let (name, value) = l.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())
                    .flatten()
            })
            .expect("a Content-Length");
        self.fill(head_end + length, chunk, pause).await;
        let rest = self.unread.split_off(head_end + length);
        let body = self.unread.split_off(head_end);
        self.unread = rest;
        (status, head, body)
    }
}

fn get(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: test\r\n\r\n")
}

#[tokio::test]
async fn requests_pipelined_in_one_write_are_each_answered_in_order() {
    let app = spawn_app().await;
    let mut conn = connect(&app.address).await;
    let three = format!(
        "{}{}{}",
        get("/api/v1/games"),
        get("/healthz"),
        get("/api/v1/games/malacca")
    );
    conn.send(three.as_bytes()).await;
    let (status, _, body) = conn.answer(4096, Duration::ZERO).await;
    assert_eq!(status, 200);
    let games: Value = serde_json::from_slice(&body).expect("the games as JSON");
    assert!(games.to_string().contains("malacca"), "{games}");
    let (status, _, _) = conn.answer(4096, Duration::ZERO).await;
    assert_eq!(status, 200, "the health check, second");
    let (status, _, body) = conn.answer(4096, Duration::ZERO).await;
    assert_eq!(status, 200);
    let game: Value = serde_json::from_slice(&body).expect("a game as JSON");
    assert!(game.to_string().contains("malacca"), "{game}");
}

#[tokio::test]
async fn a_request_sent_in_small_pieces_larger_than_a_read_arrives_whole() {
    let app = spawn_app().await;
    // A registration padded with 40 KiB of white space: the body takes many
    // reads of the connection, and only all of it parses.
    let body = format!(
        "{{\"name\": \"slow_sender\",{}\"password\": \"password1\"}}",
        " ".repeat(40 * 1024)
    );
    let request = format!(
        "POST /api/v1/players HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    let mut conn = connect(&app.address).await;
    for piece in request.as_bytes().chunks(700) {
        conn.send(piece).await;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let (status, head, body) = conn.answer(4096, Duration::ZERO).await;
    assert_eq!(status, 201, "{head}{}", String::from_utf8_lossy(&body));
    let created: Value = serde_json::from_slice(&body).expect("the player as JSON");
    assert_eq!(created["name"], "slow_sender");
    // The same connection serves the next request.
    conn.send(get("/healthz").as_bytes()).await;
    let (status, _, _) = conn.answer(4096, Duration::ZERO).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn a_long_answer_taken_slowly_arrives_whole_and_the_connection_serves_again() {
    let app = spawn_app().await;
    let mut conn = connect(&app.address).await;
    // The API's description is far larger than a socket takes at once, so the
    // server writes it over many wake-ups while the reader lags.
    conn.send(get("/api/v1/openapi.json").as_bytes()).await;
    let (status, _, body) = conn.answer(1500, Duration::from_micros(200)).await;
    assert_eq!(status, 200);
    assert!(body.len() > 100 * 1024, "{} bytes", body.len());
    let spec: Value = serde_json::from_slice(&body).expect("the description whole");
    assert!(spec["paths"].as_object().is_some_and(|p| !p.is_empty()));
    let direct = app
        .client
        .get(format!("{}/api/v1/openapi.json", app.address))
        .send()
        .await
        .expect("the description")
        .bytes()
        .await
        .expect("its bytes");
    assert_eq!(body, direct.to_vec(), "the same bytes as read at once");
    conn.send(get("/healthz").as_bytes()).await;
    let (status, _, _) = conn.answer(4096, Duration::ZERO).await;
    assert_eq!(status, 200);
}
