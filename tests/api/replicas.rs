//! Several server processes on one fresh database: startup is replica-safe.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use secrecy::ExposeSecret;

use crate::helpers::test_settings;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[tokio::test]
async fn two_replicas_started_at_once_on_a_fresh_database_both_come_up_healthy() {
    let (settings, _guard) = test_settings().await;
    let ports = [free_port(), free_port()];
    let servers: Vec<Server> = ports
        .iter()
        .map(|port| {
            let mut cmd = Command::new(env!("CARGO_BIN_EXE_sealed-orders"));
            cmd.env("DATABASE_URL", &settings.database_url)
                .env("PORT", port.to_string())
                .env(
                    "JWT_SECRET",
                    settings
                        .jwt_secret
                        .as_ref()
                        .expect("secret")
                        .expose_secret(),
                )
                .env_remove("DATABASE_SCHEMA")
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            if let Some(schema) = &settings.database_schema {
                cmd.env("DATABASE_SCHEMA", schema);
            }
            Server(cmd.spawn().expect("start a replica"))
        })
        .collect();
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    for port in ports {
        loop {
            let ok = client
                .get(format!("http://127.0.0.1:{port}/readyz"))
                .send()
                .await
                .is_ok_and(|r| r.status().is_success());
            if ok {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "the replica on port {port} never became ready"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    // Both serve the same data: a player made on one logs in on the other.
    let body = serde_json::json!({"name": "replicated", "password": "password1"});
    let r = client
        .post(format!("http://127.0.0.1:{}/api/v1/players", ports[0]))
        .json(&body)
        .send()
        .await
        .expect("register");
    assert_eq!(r.status().as_u16(), 201);
    let r = client
        .post(format!("http://127.0.0.1:{}/api/v1/auth/token", ports[1]))
        .json(&body)
        .send()
        .await
        .expect("login");
    assert_eq!(r.status().as_u16(), 200);
    drop(servers);
}
