//! The match as the tenant of a distributed Postgres: the schema's keys fit it (on
//! every Postgres), the server lays the tables out itself (on Citus), and a worker
//! that goes down stops only the matches it holds (on Citus, when the test is told
//! how to stop one).

use std::collections::HashSet;

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};
use serde_json::json;

use crate::helpers::{TestApp, spawn_app, spawn_app_with};

/// A connection to the test's own schema, on Postgres; `None` on SQLite.
async fn schema_connection(app: &TestApp) -> Option<(DatabaseConnection, String)> {
    let schema = app.settings.database_schema.clone()?;
    let mut opts = sea_orm::ConnectOptions::new(app.settings.database_url.clone());
    opts.max_connections(1)
        .set_schema_search_path(schema.clone());
    let db = sea_orm::Database::connect(opts).await.expect("connect");
    Some((db, schema))
}

async fn strings(db: &DatabaseConnection, sql: &str, schema: &str) -> Vec<(String, String)> {
    db.query_all_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        sql,
        [schema.into()],
    ))
    .await
    .expect("catalogue query")
    .iter()
    .map(|r| {
        (
            r.try_get::<String>("", "a").expect("a"),
            r.try_get::<String>("", "b").expect("b"),
        )
    })
    .collect()
}

#[tokio::test]
async fn every_key_and_unique_index_of_a_table_holding_match_id_begins_with_it() {
    let app = spawn_app().await;
    let Some((db, schema)) = schema_connection(&app).await else {
        return; // SQLite: nothing is distributed there (docs/decisions.md).
    };
    // Every unique index (primary keys included) of every table that has a
    // match_id column, with its first column.
    let keys = strings(
        &db,
        "SELECT c.relname::text || '.' || i.relname::text AS a, a.attname::text AS b \
         FROM pg_index x \
         JOIN pg_class c ON c.oid = x.indrelid \
         JOIN pg_class i ON i.oid = x.indexrelid \
         JOIN pg_namespace n ON n.oid = c.relnamespace \
         JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = x.indkey[0] \
         WHERE n.nspname = $1 AND x.indisunique \
           AND EXISTS (SELECT 1 FROM pg_attribute m WHERE m.attrelid = c.oid \
                       AND m.attname = 'match_id' AND NOT m.attisdropped) \
         ORDER BY 1",
        &schema,
    )
    .await;
    let tables: HashSet<&str> = keys
        .iter()
        .filter_map(|(k, _)| k.split('.').next())
        .collect();
    for t in [
        "moves",
        "events",
        "ledger",
        "rating_history",
        "match_seats",
        "rounds",
    ] {
        assert!(
            tables.contains(t),
            "{t} has no unique index at all: {keys:?}"
        );
    }
    let wrong: Vec<_> = keys
        .iter()
        .filter(|(_, first)| first != "match_id")
        .collect();
    assert!(
        wrong.is_empty(),
        "keys or unique indexes of per-match tables that do not begin with match_id: {wrong:?}"
    );
}

async fn is_citus(db: &DatabaseConnection) -> bool {
    db.query_one_raw(Statement::from_string(
        DbBackend::Postgres,
        "SELECT 1 AS one FROM pg_extension WHERE extname = 'citus'",
    ))
    .await
    .expect("extension query")
    .is_some()
}

#[tokio::test]
async fn on_citus_the_server_lays_the_tables_out_with_the_match_as_tenant_and_again_changes_nothing()
 {
    let app = spawn_app().await;
    let Some((db, schema)) = schema_connection(&app).await else {
        return;
    };
    if !is_citus(&db).await {
        return;
    }
    let layout = |db: DatabaseConnection, schema: String| async move {
        strings(
            &db,
            "SELECT c.relname::text AS a, \
               CASE WHEN p.partmethod = 'n' THEN 'reference' \
                    WHEN p.colocationid = (SELECT colocationid FROM pg_dist_partition \
                      WHERE logicalrelid = (quote_ident($1) || '.matches')::regclass) \
                    THEN 'by ' || column_to_column_name(p.logicalrelid, p.partkey) \
                    ELSE 'elsewhere' END AS b \
             FROM pg_dist_partition p JOIN pg_class c ON c.oid = p.logicalrelid \
             JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 ORDER BY 1",
            &schema,
        )
        .await
    };
    let first = layout(db.clone(), schema.clone()).await;
    let per_match: Vec<String> = strings(
        &db,
        "SELECT table_name::text AS a, column_name::text AS b FROM information_schema.columns \
         WHERE table_schema = $1 AND column_name = 'match_id'",
        &schema,
    )
    .await
    .into_iter()
    .map(|(t, _)| t)
    .collect();
    for (table, place) in &first {
        let expected = if table == "matches" {
            "by id"
        } else if per_match.contains(table) {
            "by match_id"
        } else {
            "reference"
        };
        assert_eq!(place, expected, "{table}: {first:?}");
    }
    for t in [
        "matches",
        "moves",
        "events",
        "players",
        "ratings",
        "match_deadlines",
    ] {
        assert!(
            first.iter().any(|(n, _)| n == t),
            "{t} not laid out: {first:?}"
        );
    }
    // A second start (another replica, a restart) finds everything laid out.
    let conn = sealed_orders::store::connect(&app.settings)
        .await
        .expect("connect");
    sealed_orders::store::migrate(&conn, &app.settings)
        .await
        .expect("a second layout is a no-op");
    assert_eq!(layout(db, schema).await, first);
}

/// The worker (its port) holding match `id`'s shard.
async fn worker_of(db: &DatabaseConnection, id: &str) -> i32 {
    db.query_one_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        "SELECT n.nodeport AS port FROM pg_dist_placement p \
         JOIN pg_dist_node n ON n.groupid = p.groupid \
         WHERE p.shardid = get_shard_id_for_distribution_column('matches', $1::uuid)",
        [id.into()],
    ))
    .await
    .expect("placement query")
    .expect("a placement")
    .try_get("", "port")
    .expect("port")
}

/// Runs the cluster script named by `CITUS_WORKER_CONTROL` (.ci/citus-cluster.sh).
fn control(script: &str, what: &str, worker: &str) {
    let ok = std::process::Command::new(script)
        .args([what, worker])
        .status()
        .expect("run the cluster script")
        .success();
    assert!(ok, "{script} {what} {worker} failed");
}

/// Needs a Citus cluster of two workers and the script that stops and starts
/// them: `CITUS_WORKER_CONTROL=.ci/citus-cluster.sh` (CI runs it so, with
/// `--ignored`). It stops worker 2 (port 5442) for a while.
#[tokio::test]
#[ignore = "stops a Citus worker: run by CI's Citus stage with CITUS_WORKER_CONTROL"]
async fn with_a_citus_worker_down_its_matches_answer_503_the_others_play_and_nothing_is_lost() {
    let Ok(script) = std::env::var("CITUS_WORKER_CONTROL") else {
        return;
    };
    // Up to 64 new matches in a few seconds, far past a minute's allowance.
    let (app, _clock) = spawn_app_with(|s| s.rate_limit_matches_per_min = 0).await;
    let (db, _) = schema_connection(&app)
        .await
        .expect("the test runs on Postgres");
    assert!(
        is_citus(&db).await,
        "TEST_DATABASE_URL must be a Citus coordinator"
    );
    let players = app.players(2).await;
    // Matches until each worker holds some.
    let mut on = std::collections::HashMap::<i32, Vec<String>>::new();
    for _ in 0..64 {
        let id = app
            .started_match(&players, "malacca", json!({"ships": [9, 6, 11]}))
            .await;
        on.entry(worker_of(&db, &id).await).or_default().push(id);
        if on.get(&5441).is_some_and(|v| v.len() >= 2)
            && on.get(&5442).is_some_and(|v| v.len() >= 2)
        {
            break;
        }
    }
    let (kept, lost) = (on[&5441].clone(), on[&5442].clone());
    let mut acknowledged = std::collections::HashMap::<String, usize>::new();

    // One move in every match, so the snapshots in the server's memory are warm:
    // the lost matches must answer 503 even so, never from memory.
    for id in kept.iter().chain(&lost) {
        play_one(&app, id, &players, &mut acknowledged).await;
    }

    control(&script, "stop-worker", "2");
    let outcome = std::panic::AssertUnwindSafe(async {
        for id in &kept {
            play_one(&app, id, &players, &mut acknowledged).await;
        }
        for id in &lost {
            for reply in [
                app.get(&format!("/api/v1/matches/{id}"), None).await,
                app.get(&format!("/api/v1/matches/{id}"), Some(&players[0].token))
                    .await,
                app.submit(
                    id,
                    &players[0],
                    1,
                    json!({"type": "play", "card": "trade", "stake": 0}),
                )
                .await,
                app.submit(
                    id,
                    &players[1],
                    1,
                    json!({"type": "play", "card": "trade", "stake": 0}),
                )
                .await,
            ] {
                reply.problem(503, "database_unavailable");
                assert!(
                    reply.headers.get("retry-after").is_some(),
                    "a 503 without Retry-After: {}",
                    reply.text
                );
            }
        }
    });
    let result = futures_util::FutureExt::catch_unwind(outcome).await;
    control(&script, "start-worker", "2");
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }

    // Back: every match plays on, and every acknowledged move is there.
    for id in kept.iter().chain(&lost) {
        play_one(&app, id, &players, &mut acknowledged).await;
        let moves = app
            .get(&format!("/api/v1/matches/{id}/moves?limit=200"), None)
            .await
            .expect(200);
        let stored = moves["items"].as_array().expect("items").len();
        assert_eq!(stored, acknowledged[id], "match {id}");
    }
}

/// The awaited seat's first legal move, counted when acknowledged.
async fn play_one(
    app: &TestApp,
    id: &str,
    players: &[crate::helpers::Player],
    acknowledged: &mut std::collections::HashMap<String, usize>,
) {
    let m = app.match_as(id, None).await;
    let seat = m["prompt"]["awaiting"][0].as_u64().expect("a seat awaited") as usize;
    let mine = app.match_as(id, Some(&players[seat])).await;
    let legal = mine["prompt"]["legal"].as_array().expect("legal").clone();
    let action = sealed_orders::games::legal::sample(
        &legal,
        &mut sealed_orders::games::rng::GameRng::from_key([7; 32]),
    )
    .expect("a legal move");
    let step = mine["prompt"]["step"].as_i64().expect("step");
    app.submit(id, &players[seat], step, action)
        .await
        .expect(200);
    *acknowledged.entry(id.to_owned()).or_default() += 1;
}
