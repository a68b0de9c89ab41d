//! Statistics are exact on a hand-built history (rules §11 example 3).

use serde_json::{Value, json};

use crate::helpers::spawn_app;

fn find<'a>(items: &'a Value, key: &str, value: &str) -> &'a Value {
    items
        .as_array()
        .expect("array")
        .iter()
        .find(|i| i[key] == value)
        .unwrap_or_else(|| panic!("no {key} = {value} in {items}"))
}

#[tokio::test]
async fn player_and_game_statistics_match_a_round_worked_by_hand() {
    let app = spawn_app().await;
    let players = app.players(4).await;
    let position = json!({
        "round": 1, "captain": 1, "ships": [12],
        "special_deck": ["trade2", "wait_attack_defense"],
        "players": [
            {"coins": 9, "specials": ["defense2"]},
            {"coins": 6, "specials": []},
            {"coins": 14, "specials": []},
            {"coins": 4, "specials": []}
        ]
    });
    let id = app
        .started_match(&players, "malacca", json!({"position": position}))
        .await;
    // Before the round resolves, nothing counts (and nothing sealed can show).
    app.submit(
        &id,
        &players[1],
        0,
        json!({"type": "play", "card": "defense", "stake": 0}),
    )
    .await
    .expect(200);
    let early = app
        .get("/api/v1/games/malacca/stats?include=positions", None)
        .await
        .expect(200);
    assert_eq!(early["kinds"], json!([]));
    assert_eq!(early["by_value"], json!([]));
    for (step, (seat, action)) in [
        (2, json!({"type": "play", "card": "attack", "stake": 3})),
        (3, json!({"type": "play", "card": "trade", "stake": 4})),
        (0, json!({"type": "play", "card": "defense2", "stake": 1})),
    ]
    .into_iter()
    .enumerate()
    {
        app.submit(&id, &players[seat], step as i64 + 1, action)
            .await
            .expect(200);
    }
    assert_eq!(app.match_as(&id, None).await["status"], "finished");

    // A position match counts only when asked for.
    let plain = app
        .get(&format!("/api/v1/players/{}/stats", players[2].name), None)
        .await
        .expect(200);
    assert_eq!(plain["games"], json!([]));
    let s = app
        .get(
            &format!(
                "/api/v1/players/{}/stats?game=malacca&include=positions",
                players[2].name
            ),
            None,
        )
        .await
        .expect(200);
    let g = &s["games"][0];
    assert_eq!(g["game"], "malacca");
    assert_eq!(g["played"], 1);
    assert_eq!(g["finished"], 1);
    assert_eq!(g["won"], 0);
    assert_eq!(g["win_rate"], 0.0);
    assert_eq!(
        g["average_rank"], 4.0,
        "coins [10, 8, 6, 8]: seat 2 is last"
    );
    assert_eq!(g["average_score"], 6.0);
    assert_eq!(g["rating"], Value::Null, "a position match is unrated");
    let attack = find(&g["kinds"], "key", "attack");
    assert_eq!(attack["plays"], 1);
    assert_eq!(attack["successes"], 0);
    assert_eq!(attack["average_stake"], 3.0);
    assert_eq!(
        attack["average_payoff"], -8.0,
        "14 → 6: stake 3 lost, penalty 5"
    );
    assert_eq!(g["best_round"]["delta"], -8);
    let winner = app
        .get(
            &format!(
                "/api/v1/players/{}/stats?include=positions",
                players[0].name
            ),
            None,
        )
        .await
        .expect(200);
    assert_eq!(winner["games"][0]["won"], 1);
    assert_eq!(
        find(&winner["games"][0]["cards"], "key", "defense2")["plays"],
        1
    );

    let gs = app
        .get("/api/v1/games/malacca/stats?include=positions", None)
        .await
        .expect(200);
    assert_eq!(
        gs["matches"],
        json!([{"players": 4, "variant": gs["matches"][0]["variant"], "matches": 1}])
    );
    assert_eq!(gs["by_value"][0]["value"], 12);
    assert_eq!(gs["by_value"][0]["outcomes"], json!({"defended": 1}));
    assert_eq!(gs["by_value"][0]["outcome_rates"], json!({"defended": 1.0}));
    let defense = find(&gs["kinds"], "key", "defense");
    assert_eq!(defense["plays"], 2);
    assert_eq!(defense["successes"], 2);
    assert_eq!(defense["average_stake"], 0.5);
    assert_eq!(defense["average_payoff"], 1.5, "seat 1 +2, seat 0 +1");
    let trade = find(&gs["kinds"], "key", "trade");
    assert_eq!(trade["average_payoff"], 4.0);
    // Captain 1 first: seat 0 (the winner) sits 3 seats after it.
    let offsets = &gs["seat_offsets"];
    assert_eq!(find(offsets, "key", "3")["wins"], 1);
    assert_eq!(find(offsets, "key", "0")["wins"], 0);
    assert_eq!(gs["roles"], json!([]));
    // Filters: other seat counts and a window before the match see nothing.
    let none = app
        .get(
            "/api/v1/games/malacca/stats?include=positions&players=3",
            None,
        )
        .await
        .expect(200);
    assert_eq!(none["matches"], json!([]));
    let before = app
        .get(
            "/api/v1/games/malacca/stats?include=positions&until=2000-01-01T00:00:00Z",
            None,
        )
        .await
        .expect(200);
    assert_eq!(before["kinds"], json!([]));
    app.get("/api/v1/games/chess/stats", None)
        .await
        .problem(404, "game_not_found");
    app.get("/api/v1/games/malacca/stats?include=all", None)
        .await
        .problem(400, "invalid_include");
}

#[tokio::test]
async fn simulated_matches_are_counted_by_the_statistics() {
    let (app, process) = crate::helpers::spawn_process(&[]).await;
    simulate(&app, &["--matches", "3", "--players", "2-3"]);
    let gs = app
        .get("/api/v1/games/malacca/stats", None)
        .await
        .expect(200);
    assert_eq!(total_matches(&gs), 3);
    let board = app
        .get("/api/v1/leaderboards/malacca", None)
        .await
        .expect(200);
    assert!(
        !board["items"].as_array().expect("items").is_empty(),
        "simulated matches are rated"
    );
    drop(process);
}

fn simulate(app: &crate::helpers::TestApp, args: &[&str]) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sealed-orders"))
        .arg("simulate")
        .args(args)
        .env("DATABASE_URL", &app.settings.database_url)
        .env("JWT_SECRET", "test-secret-test-secret-test-secret!")
        .envs(
            app.settings
                .database_schema
                .as_ref()
                .map(|s| ("DATABASE_SCHEMA", s.clone())),
        )
        .output()
        .expect("run simulate");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Every count of a game's figures by what it counts, for adding windows up:
/// the figures that are ratios are left out, their parts are in.
fn figure_counts(stats: &Value) -> std::collections::BTreeMap<String, i64> {
    let mut out = std::collections::BTreeMap::new();
    let mut put = |k: String, v: &Value| *out.entry(k).or_default() += v.as_i64().unwrap_or(0);
    let list = |name: &str| stats[name].as_array().cloned().unwrap_or_default();
    for m in list("matches") {
        put(
            format!("matches {} {}", m["players"], m["variant"]),
            &m["matches"],
        );
    }
    for v in list("by_value") {
        for (outcome, n) in v["outcomes"].as_object().cloned().unwrap_or_default() {
            put(format!("value {} {outcome}", v["value"]), &n);
        }
    }
    for k in list("kinds") {
        put(format!("kind {} plays", k["key"]), &k["plays"]);
        put(format!("kind {} successes", k["key"]), &k["successes"]);
    }
    for (name, field) in [
        ("seat_offsets", "seats"),
        ("seat_offsets", "wins"),
        ("roles", "seats"),
        ("roles", "wins"),
    ] {
        for g in list(name) {
            put(format!("{name} {} {field}", g["key"]), &g[field]);
        }
    }
    out
}

fn total_matches(stats: &Value) -> i64 {
    stats["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| m["matches"].as_i64().unwrap_or(0))
        .sum()
}

#[tokio::test]
async fn running_totals_equal_a_rebuild_from_the_history_and_windows_add_up() {
    let (app, process) = crate::helpers::spawn_process(&[]).await;
    // Spread over 200 days, so windows cross hour, day, 8-day and 64-day buckets.
    simulate(
        &app,
        &[
            "--matches",
            "12",
            "--players",
            "2-4",
            "--concurrency",
            "3",
            "--population",
            "5",
            "--span-days",
            "200",
            "--prefix",
            "tot",
        ],
    );
    let now = chrono::Utc::now();
    let since = now - chrono::Duration::days(150) - chrono::Duration::minutes(433);
    let cut = since + chrono::Duration::days(97) + chrono::Duration::minutes(311);
    let late = now - chrono::Duration::hours(50);
    let fmt = |t: chrono::DateTime<chrono::Utc>| t.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string();
    let windows = [
        (None, None),
        (Some(since), None),
        (None, Some(since)),
        (Some(since), Some(cut)),
        (Some(cut), None),
        (Some(since), Some(late)),
        (Some(late), None),
    ];
    let path = |(s, u): &(Option<chrono::DateTime<chrono::Utc>>, Option<_>)| {
        let mut q = Vec::new();
        if let Some(s) = s {
            q.push(format!("since={}", fmt(*s)));
        }
        if let Some(u) = u {
            q.push(format!("until={}", fmt(*u)));
        }
        format!("/api/v1/games/malacca/stats?{}", q.join("&"))
    };
    let mut paths: Vec<String> = windows.iter().map(path).collect();
    paths.extend([
        "/api/v1/games/malacca/stats?players=3".to_owned(),
        "/api/v1/players/tot-0/stats".to_owned(),
        "/api/v1/players/tot-1/stats?game=malacca".to_owned(),
    ]);
    // The oracle: every finished match's finishing time, from the match list.
    let list = app
        .get("/api/v1/matches?status=finished&limit=100", None)
        .await
        .expect(200);
    let finished: Vec<chrono::DateTime<chrono::Utc>> = list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|m| {
            m["finished_at"]
                .as_str()
                .expect("finished_at")
                .parse()
                .expect("time")
        })
        .collect();
    assert_eq!(finished.len(), 12);
    let oldest = finished.iter().min().copied().expect("some");
    assert!(
        now - oldest > chrono::Duration::days(150),
        "spread: {oldest}"
    );
    let mut before = Vec::new();
    for (p, (s, u)) in paths.iter().zip(&windows) {
        let got = app.get(p, None).await.expect(200);
        let expected = finished
            .iter()
            .filter(|t| s.is_none_or(|s| **t >= s) && u.is_none_or(|u| **t < u))
            .count() as i64;
        assert_eq!(total_matches(&got), expected, "{p}");
    }
    for p in &paths {
        before.push(app.get(p, None).await.expect(200));
    }
    assert_eq!(
        total_matches(&before[2]) + total_matches(&before[3]) + total_matches(&before[4]),
        12,
        "disjoint windows add up to every match"
    );
    // And every other figure: the windows' ragged edges are read from the
    // history tables, their insides from the totals, the unbounded one from the
    // coarsest totals alone.
    let mut added = figure_counts(&before[2]);
    for w in [&before[3], &before[4]] {
        for (k, v) in figure_counts(w) {
            *added.entry(k).or_default() += v;
        }
    }
    added.retain(|_, v| *v != 0);
    let mut all = figure_counts(&before[0]);
    all.retain(|_, v| *v != 0);
    assert!(all.keys().any(|k| k.starts_with("kind ")), "{all:?}");
    assert_eq!(added, all, "disjoint windows add up, figure by figure");
    let db = sealed_orders::store::connect(&app.settings)
        .await
        .expect("connect");
    // Row for row at every grain, as well as through the API: the rebuild adds the
    // coarser grains up from the finer ones, the finishes fold each grain alone.
    let running = game_totals(&db).await;
    assert!(
        migration::GRAINS
            .iter()
            .all(|g| running.iter().any(|r| r.starts_with(&format!("{g}|")))),
        "every grain has totals"
    );
    sealed_orders::store::rebuild_stat_totals(&db, &mut |_, _, _| {})
        .await
        .expect("rebuild");
    assert_eq!(game_totals(&db).await, running, "the rebuilt game totals");
    for (p, b) in paths.iter().zip(&before) {
        assert_eq!(&app.get(p, None).await.expect(200), b, "{p}");
    }
    drop(process);
}

/// Every row of the game totals as text, grain first, in one order.
async fn game_totals(db: &sea_orm::DatabaseConnection) -> Vec<String> {
    use sea_orm::{ConnectionTrait, Statement};
    let sql = "SELECT CAST(grain AS TEXT) || '|' || game || '|' || metric || '|' || \
        CAST(bucket AS TEXT) || '|' || CAST(seat_count AS TEXT) || '|' || variant || '|' || \
        CAST(positional AS TEXT) || '|' || k_text || '|' || CAST(k_num AS TEXT) || '|' || \
        CAST(k_null AS TEXT) || '|' || k2 || '|' || CAST(n AS TEXT) || '|' || \
        CAST(s1 AS TEXT) || '|' || CAST(s2 AS TEXT) || '|' || CAST(s3 AS TEXT) || '|' || \
        CAST(s4 AS TEXT) AS r FROM stat_game_totals";
    let mut rows: Vec<String> = db
        .query_all_raw(Statement::from_string(db.get_database_backend(), sql))
        .await
        .expect("game totals")
        .iter()
        .map(|r| r.try_get::<String>("", "r").expect("row"))
        .collect();
    rows.sort();
    rows
}
