//! Many moves, one commit: a batch writes each current move and nothing of a
//! stale one, a batch refused as a whole writes nothing, and no acknowledged
//! move is lost when the server is killed while batches are in flight.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, EntityTrait, Statement};
use sealed_orders::store::entities::{ledger, matches, moves, round_seats, rounds};
use sealed_orders::store::move_write::{
    BatchWritten, DeadlineWrite, Home, MoveLists, MoveWrite, NewEvent, RoundRows, Written,
    write_move, write_moves,
};
use serde_json::json;
use uuid::Uuid;

use crate::helpers::{Player, TestApp, on_citus, restart_process, spawn_app, spawn_process};

async fn count(db: &DatabaseConnection, sql: &str, id: Uuid) -> i64 {
    db.query_one_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        sql,
        [id.into()],
    ))
    .await
    .expect("count")
    .expect("a row")
    .try_get::<i64>("", "n")
    .expect("n")
}

/// The match's row, read as the server stores it.
async fn row(db: &DatabaseConnection, id: Uuid) -> matches::Model {
    matches::Entity::find_by_id(id)
        .one(db)
        .await
        .expect("read the match")
        .expect("the match")
}

/// The matches' rows, in the order of `ids`.
async fn rows(db: &DatabaseConnection, ids: &[Uuid]) -> Vec<matches::Model> {
    let mut out = Vec::new();
    for id in ids {
        out.push(row(db, *id).await);
    }
    out
}

/// A move's rows: the match after it, the move, its events and rounds.
type Made = (matches::Model, moves::Model, Vec<NewEvent>, Vec<RoundRows>);

/// The writes of `made`, each checked against the version given for it.
fn writes(made: &[Made], versions: impl IntoIterator<Item = i64>) -> Vec<MoveWrite<'_>> {
    made.iter()
        .zip(versions)
        .map(|((after, mv, events, rounds), before_version)| MoveWrite {
            before_version,
            after,
            deadline: DeadlineWrite::Keep,
            mv,
            reveal: false,
            events,
            rounds,
            home: Default::default(),
        })
        .collect()
}

/// A move of seat 0 at the match's step, with one event and, when `rounds`,
/// a round with its seats and a ledger line; the match row after it.
fn a_move(m: &matches::Model, rounds: bool) -> Made {
    let now = Utc::now();
    let mut after = m.clone();
    after.version += 1;
    after.updated_at = now;
    let mv = moves::Model {
        id: 0,
        match_id: m.id,
        step: m.step,
        seat: 0,
        player_id: None,
        action: "{}".into(),
        public_action: None,
        revealed: false,
        completes_step: false,
        version_after: after.version,
        created_at: now,
        idempotency_key: None,
        private_until_end: false,
        author: None,
        nonce: None,
        commitment: None,
        replaced: false,
    };
    let events = vec![NewEvent {
        match_id: m.id,
        version: after.version,
        audience_seat: None,
        kind: "batch_probe".into(),
        data: "{}".into(),
        created_at: now,
    }];
    let rounds = if rounds {
        vec![RoundRows {
            round: rounds::Model {
                match_id: m.id,
                round: 900,
                step: m.step,
                value: Some(1),
                outcome: "probe".into(),
                total_a: None,
                total_b: None,
                lead_seat: None,
                subject: None,
                created_at: now,
            },
            seats: vec![round_seats::Model {
                match_id: m.id,
                round: 900,
                seat: 0,
                player_id: None,
                card: None,
                kind: None,
                stake: None,
                choice: None,
                success: None,
                delta: 0,
                drew: 0,
            }],
            ledger: vec![ledger::Model {
                id: 0,
                match_id: m.id,
                round: 900,
                seat: 0,
                amount: 0,
                reason: "probe".into(),
            }],
        }]
    } else {
        Vec::new()
    };
    (after, mv, events, rounds)
}

#[tokio::test]
async fn a_batch_writes_each_current_move_and_nothing_of_a_stale_or_refused_one() {
    let app = spawn_app().await;
    if !app.settings.database_url.starts_with("postgres") || on_citus() {
        return; // The batch is plain Postgres's (Citus writes a move alone).
    }
    let db = sealed_orders::store::connect(&app.settings)
        .await
        .expect("connect");
    let ids = sealed_matches(&app, 3).await;
    let before = rows(&db, &ids).await;
    let made: Vec<Made> = before.iter().map(|m| a_move(m, m.id == ids[2])).collect();
    // The second was checked against a version the match has left.
    let checked = before
        .iter()
        .enumerate()
        .map(|(i, m)| if i == 1 { m.version - 1 } else { m.version });
    let first = writes(&made, checked);
    let outcome = write_moves(&db, &first).await.expect("written");
    assert_eq!(
        outcome,
        BatchWritten::Each(vec![Written::Done, Written::Stale, Written::Done])
    );
    let probes = "SELECT COUNT(*) AS n FROM events WHERE match_id = $1 AND kind = 'batch_probe'";
    let rounds_of = "SELECT COUNT(*) AS n FROM rounds WHERE match_id = $1 AND round = 900";
    let lines = "SELECT COUNT(*) AS n FROM ledger WHERE match_id = $1 AND round = 900";
    let seats = "SELECT COUNT(*) AS n FROM round_seats WHERE match_id = $1 AND round = 900";
    let moves_of = "SELECT COUNT(*) AS n FROM moves WHERE match_id = $1";
    for (i, m) in before.iter().enumerate() {
        let now = row(&db, m.id).await;
        let written = i != 1;
        assert_eq!(now.version, m.version + i64::from(written), "match {i}");
        assert_eq!(
            count(&db, probes, m.id).await,
            i64::from(written),
            "match {i}"
        );
        assert_eq!(
            count(&db, moves_of, m.id).await,
            i64::from(written),
            "match {i}"
        );
        let with_round = i64::from(i == 2);
        for sql in [rounds_of, lines, seats] {
            assert_eq!(count(&db, sql, m.id).await, with_round, "match {i}: {sql}");
        }
    }

    // The same moves again, each against its match's version now: the first
    // and third are refused by the unique index on (match, step, seat), and the
    // whole batch with them, the second (current now) included.
    let now = rows(&db, &ids).await;
    let again = writes(&made, now.iter().map(|m| m.version));
    assert_eq!(
        write_moves(&db, &again).await.expect("answered"),
        BatchWritten::Refused
    );
    for (i, m) in now.iter().enumerate() {
        assert_eq!(row(&db, m.id).await.version, m.version, "match {i}");
        assert_eq!(
            count(&db, moves_of, m.id).await,
            i64::from(i != 1),
            "match {i}"
        );
    }
}

/// The `move_batches_total` counter of /metrics.
async fn batches(app: &TestApp) -> u64 {
    let text = app.get("/metrics", None).await.text;
    text.lines()
        .find_map(|l| l.strip_prefix("sealed_orders_move_batches_total "))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no move_batches_total in /metrics"))
}

/// Plays `players`' seats of `id` while the server answers, recording every
/// move it acknowledged as (match, step, player).
async fn play(app: &TestApp, id: String, p: Player, acked: Arc<Mutex<Vec<(String, i64, String)>>>) {
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .expect("a client");
    let url = |path: String| format!("{}{}", app.address, path);
    loop {
        let Ok(r) = client
            .get(url(format!("/api/v1/matches/{id}")))
            .bearer_auth(&p.token)
            .send()
            .await
        else {
            return;
        };
        let Ok(m) = r.json::<serde_json::Value>().await else {
            return;
        };
        if m["status"] != "active" {
            return;
        }
        if m["prompt"]["your_turn"] != true {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        }
        let step = m["prompt"]["step"].as_i64().expect("step");
        let sent = client
            .post(url(format!("/api/v1/matches/{id}/moves")))
            .bearer_auth(&p.token)
            .json(&json!({"step": step, "action": {"type": "play", "card": "trade", "stake": 0}}))
            .send()
            .await;
        let Ok(r) = sent else { return };
        let status = r.status().as_u16();
        assert_ne!(status, 500, "{}", r.text().await.unwrap_or_default());
        if status == 200 {
            acked
                .lock()
                .expect("acked")
                .push((id.clone(), step, p.id.clone()));
        }
    }
}

/// Moves gathered into batches (a writer waits 3 ms for more), the server
/// killed with SIGKILL while they are in flight: every move it acknowledged is
/// in the database when it comes back, and the matches play on to their end.
#[tokio::test]
async fn no_acknowledged_move_is_lost_when_the_server_is_killed_between_batches() {
    let env = [
        ("MOVE_BATCH_WAIT_US", "3000"),
        ("RATE_LIMIT_MOVES_PER_MIN", "0"),
        ("RATE_LIMIT_MOVES_PER_MIN_PER_ADDRESS", "0"),
    ];
    let (app, mut process) = spawn_process(&env).await;
    let players = app.players(2).await;
    let mut ids = Vec::new();
    for _ in 0..8 {
        ids.push(
            app.started_match(
                &players,
                "malacca",
                json!({"stakes": "sealed", "ships": vec![4; 40]}),
            )
            .await,
        );
    }
    let acked = Arc::new(Mutex::new(Vec::new()));
    let app = Arc::new(app);
    let mut tasks = Vec::new();
    for id in &ids {
        for p in &players {
            let (app, id, p, acked) = (app.clone(), id.clone(), p.clone(), acked.clone());
            tasks.push(tokio::spawn(async move { play(&app, id, p, acked).await }));
        }
    }
    for _ in 0..600 {
        if acked.lock().expect("acked").len() >= 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let on_postgres = app.settings.database_url.starts_with("postgres");
    let batched = batches(&app).await;
    process.kill();
    for t in tasks {
        t.await.expect("a player");
    }
    let acked: Vec<(String, i64, String)> = acked.lock().expect("acked").clone();
    assert!(
        acked.len() >= 200,
        "only {} moves acknowledged",
        acked.len()
    );
    if on_postgres && !on_citus() {
        assert!(batched > 0, "no move was written in a batch");
    }

    let _process = restart_process(&app, &env).await;
    let db = sealed_orders::store::connect(&app.settings)
        .await
        .expect("connect");
    let kept: HashSet<(String, i64, String)> = db
        .query_all_raw(Statement::from_string(
            db.get_database_backend(),
            "SELECT match_id, step, player_id FROM moves",
        ))
        .await
        .expect("the moves")
        .iter()
        .map(|r| {
            let id: Uuid = r.try_get("", "match_id").expect("match_id");
            let player: Option<Uuid> = r.try_get("", "player_id").expect("player_id");
            (
                id.to_string(),
                r.try_get::<i64>("", "step").expect("step"),
                player.map(|p| p.to_string()).unwrap_or_default(),
            )
        })
        .collect();
    let lost: Vec<_> = acked.iter().filter(|a| !kept.contains(a)).collect();
    println!(
        "durability: {} moves acknowledged before the kill ({batched} batches), {} lost",
        acked.len(),
        lost.len()
    );
    assert!(lost.is_empty(), "acknowledged but lost: {lost:?}");

    // What the batches wrote is a consistent match: play on to the end.
    for id in &ids {
        let again = Arc::new(Mutex::new(Vec::new()));
        futures_util::future::join_all(
            players
                .iter()
                .map(|p| play(&app, id.clone(), p.clone(), again.clone())),
        )
        .await;
        let m = app.match_as(id, None).await;
        assert_eq!(m["status"], "finished", "{id}");
    }
}

/// `n` started two-seat Malacca matches of sealed betting and two ships.
async fn sealed_matches(app: &TestApp, n: usize) -> Vec<Uuid> {
    let players = app.players(2).await;
    let mut ids = Vec::new();
    for _ in 0..n {
        let id = app
            .started_match(
                &players,
                "malacca",
                json!({"stakes": "sealed", "ships": [5, 6]}),
            )
            .await;
        ids.push(Uuid::parse_str(&id).expect("a uuid"));
    }
    ids
}

/// The replica `id` names as home with a lease running, if any.
async fn home_of(db: &DatabaseConnection, id: Uuid) -> Option<Uuid> {
    db.query_one_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT home FROM matches WHERE id = $1 AND home_until > clock_timestamp()",
        [id.into()],
    ))
    .await
    .expect("home")
    .map(|r| r.try_get::<Uuid>("", "home").expect("a home"))
}

#[tokio::test]
async fn a_home_makes_every_other_writer_wait_for_its_lease_and_a_batch_leaves_its_match_out() {
    let app = spawn_app().await;
    if !app.settings.database_url.starts_with("postgres") || on_citus() {
        return; // Homes are plain Postgres's.
    }
    let named = |replica: Uuid| {
        let mut s = app.settings.clone();
        s.database_url =
            sealed_orders::store::naming_the_replica(&s.database_url, replica).expect("a URL");
        s
    };
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    let db_a = sealed_orders::store::connect(&named(a))
        .await
        .expect("connect");
    let db_b = sealed_orders::store::connect(&named(b))
        .await
        .expect("connect");
    let ids = sealed_matches(&app, 2).await;

    // Replica a claims both matches' homes for 800 ms.
    let before = rows(&db_a, &ids).await;
    let made: Vec<Made> = before.iter().map(|m| a_move(m, false)).collect();
    let mut claims = writes(&made, before.iter().map(|m| m.version));
    for w in &mut claims {
        w.home = Home {
            replica: Some(a),
            claim_ms: Some(800),
        };
    }
    let sent = std::time::Instant::now();
    assert_eq!(
        write_moves(&db_a, &claims).await.expect("written"),
        BatchWritten::Each(vec![Written::Done, Written::Done])
    );
    for id in &ids {
        assert_eq!(home_of(&db_a, *id).await, Some(a));
    }

    // Replica b's batch leaves both out, as stale, and writes nothing.
    let now = rows(&db_b, &ids).await;
    let made_b: Vec<Made> = now
        .iter()
        .map(|m| {
            let mut other = a_move(m, false);
            other.1.seat = 1;
            other
        })
        .collect();
    let mut others = writes(&made_b, now.iter().map(|m| m.version));
    for w in &mut others {
        w.home = Home {
            replica: Some(b),
            claim_ms: None,
        };
    }
    assert_eq!(
        write_moves(&db_b, &others).await.expect("answered"),
        BatchWritten::Each(vec![Written::Stale, Written::Stale])
    );
    assert_eq!(rows(&db_b, &ids).await, now);

    // Written alone, b's move of the first waits for a's lease, then clears
    // the home: a trusted its snapshot for less than the lease.
    assert_eq!(
        write_move(&db_b, &others[0], MoveLists::Arrays)
            .await
            .expect("written"),
        Written::Done
    );
    assert!(
        sent.elapsed() >= Duration::from_millis(800),
        "b wrote {:?} after a's claim was sent",
        sent.elapsed()
    );
    assert_eq!(home_of(&db_b, ids[0]).await, None);
    assert_eq!(row(&db_b, ids[0]).await.version, now[0].version + 1);

    // A write of the second by a itself goes through its own home (written in a
    // batch, not left out) and, claiming nothing, clears it.
    let again = writes(&made_b[1..], [now[1].version]);
    let own = MoveWrite {
        home: Home {
            replica: Some(a),
            claim_ms: None,
        },
        ..again.into_iter().next().expect("one")
    };
    let probe = writes(&made_b[..1], [now[0].version]);
    assert_eq!(
        write_moves(&db_a, &[own, probe.into_iter().next().expect("one")])
            .await
            .expect("answered"),
        BatchWritten::Each(vec![Written::Done, Written::Stale])
    );
    assert_eq!(home_of(&db_a, ids[1]).await, None);
}
