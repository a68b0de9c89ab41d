use serde_json::json;

use crate::helpers::{Player, Reply, TestApp, spawn_app};

/// `n` one-ship matches of the two players, each awaiting its last move (the
/// second player's).
async fn awaiting_last_move(app: &TestApp, players: &[Player], n: usize) -> Vec<String> {
    let mut ids = Vec::new();
    for _ in 0..n {
        let id = app
            .started_match(
                players,
                "malacca",
                json!({"stakes": "sealed", "ships": [7]}),
            )
            .await;
        app.submit(
            &id,
            &players[0],
            0,
            json!({"type": "play", "card": "trade", "stake": 2}),
        )
        .await
        .expect(200);
        ids.push(id);
    }
    ids
}

async fn last_move(app: &TestApp, id: &str, player: &Player) -> Reply {
    app.submit(
        id,
        player,
        0,
        json!({"type": "play", "card": "trade", "stake": 1}),
    )
    .await
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().expect("a number")
}

#[tokio::test]
async fn a_won_match_raises_the_winner_and_lowers_the_loser_and_ties_share() {
    let app = spawn_app().await;
    let players = app.players(3).await;
    // One ship; seat order alice, bob, carol; the captain is drawn, so play sealed.
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"stakes": "sealed", "ships": [10]}),
        )
        .await;
    // Everyone trades: the stakes decide (5 → 5+2·stake... ×1 trade: stake back + stake).
    for (p, stake) in players.iter().zip([5, 1, 1]) {
        app.submit(
            &id,
            p,
            0,
            json!({"type": "play", "card": "trade", "stake": stake}),
        )
        .await
        .expect(200);
    }
    let m = app.match_as(&id, None).await;
    assert_eq!(m["status"], "finished");
    let board = app
        .get("/api/v1/leaderboards/malacca", None)
        .await
        .expect(200);
    let items = board["items"].as_array().expect("items");
    assert_eq!(items.len(), 3);
    assert_eq!(
        items[0]["player"]["name"], players[0].name,
        "the winner leads"
    );
    assert_eq!(items[0]["rank"], 1);
    let default_mu = 25.0;
    assert!(f(&items[0]["mu"]) > default_mu);
    let (b, c) = (&items[1], &items[2]);
    assert!(f(&b["mu"]) < default_mu && f(&c["mu"]) < default_mu);
    assert!(
        (f(&b["mu"]) - f(&c["mu"])).abs() < 1e-9,
        "tied seats share their change"
    );
    let hist = app
        .get(
            &format!("/api/v1/players/{}/ratings?game=malacca", players[0].name),
            None,
        )
        .await
        .expect(200);
    assert_eq!(hist["items"].as_array().map(Vec::len), Some(1));
    assert_eq!(hist["items"][0]["rank"], 1);
    assert_eq!(hist["current"][0]["games"], 1);
    assert_eq!(hist["current"][0]["wins"], 1);
    app.get("/api/v1/leaderboards/chess", None)
        .await
        .problem(404, "game_not_found");
    app.get("/api/v1/players/nobody/ratings", None)
        .await
        .problem(404, "player_not_found");
}

#[tokio::test]
async fn a_position_match_or_one_marked_unrated_moves_no_rating() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let id = app
        .started_match(
            &players,
            "malacca",
            json!({"stakes": "sealed", "ships": [10], "rated": false}),
        )
        .await;
    for p in &players {
        app.submit(
            &id,
            p,
            0,
            json!({"type": "play", "card": "trade", "stake": 1}),
        )
        .await
        .expect(200);
    }
    assert_eq!(app.match_as(&id, None).await["status"], "finished");
    let board = app
        .get("/api/v1/leaderboards/malacca?min_games=0", None)
        .await
        .expect(200);
    assert_eq!(board["items"], json!([]));
}

#[tokio::test]
async fn matches_of_the_same_players_finishing_together_lose_no_rating_update() {
    let app = spawn_app().await;
    let players = app.players(2).await;
    let n = 6;
    let ids = awaiting_last_move(&app, &players, n).await;
    // Every match's last move at once: each finishes and rates the same two rows.
    let last = ids.iter().map(|id| last_move(&app, id, &players[1]));
    for r in futures_util::future::join_all(last).await {
        r.expect(200);
    }
    for p in &players {
        let hist = app
            .get(&format!("/api/v1/players/{}/ratings", p.name), None)
            .await
            .expect(200);
        assert_eq!(hist["current"][0]["games"], n, "every match counted once");
        assert_eq!(hist["items"].as_array().map(Vec::len), Some(n));
        // The history chains: each change starts where the previous one ended.
        let items = hist["items"].as_array().expect("items");
        for w in items.windows(2) {
            assert!((f(&w[0]["mu_after"]) - f(&w[1]["mu_before"])).abs() < 1e-9);
        }
    }
}

/// Rows of a query straight from the database (no read of the API, which would
/// fold pending finishes itself).
async fn rows(
    db: &sea_orm::DatabaseConnection,
    sql: &str,
    player: Option<&str>,
) -> Vec<sea_orm::QueryResult> {
    use sea_orm::ConnectionTrait;
    let values = player.map(|p| uuid::Uuid::parse_str(p).expect("an id").into());
    db.query_all_raw(sea_orm::Statement::from_sql_and_values(
        db.get_database_backend(),
        sql,
        values,
    ))
    .await
    .expect(sql)
}

#[tokio::test]
async fn finishes_on_two_replicas_are_folded_once_each_into_one_chained_history() {
    let a = spawn_app().await;
    let b = crate::helpers::another_replica(&a).await;
    let players = a.players(2).await;
    let n = 8;
    let ids = awaiting_last_move(&a, &players, n as usize).await;
    // The last moves at once, half through each replica: each finish is queued
    // beside its results and folded by whichever replica's folder takes it.
    let last = ids
        .iter()
        .enumerate()
        .map(|(i, id)| last_move(if i % 2 == 0 { &a } else { &b }, id, &players[1]));
    for r in futures_util::future::join_all(last).await {
        r.expect(200);
    }
    // The servers fold on their own: nobody reads a rating or a statistic.
    let db = sealed_orders::store::connect(&a.settings)
        .await
        .expect("connect");
    let mut pending = i64::MAX;
    for _ in 0..200 {
        pending = rows(&db, "SELECT COUNT(*) AS n FROM pending_finishes", None).await[0]
            .try_get::<i64>("", "n")
            .expect("n");
        if pending == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(pending, 0, "the folders left finishes pending");
    for p in &players {
        let games = rows(
            &db,
            "SELECT games FROM ratings WHERE player_id = $1",
            Some(&p.id),
        )
        .await;
        assert_eq!(games.len(), 1);
        assert_eq!(games[0].try_get::<i32>("", "games").expect("games"), n);
        // One change per match, each starting where the previous one ended.
        // (Not always in finishing order: a finish that commits after a later
        // one was folded comes after it.)
        let history = rows(
            &db,
            "SELECT mu_before, mu_after, match_id FROM rating_history \
             WHERE player_id = $1 ORDER BY id",
            Some(&p.id),
        )
        .await;
        assert_eq!(history.len(), n as usize);
        let matches: std::collections::HashSet<uuid::Uuid> = history
            .iter()
            .map(|r| r.try_get::<uuid::Uuid>("", "match_id").expect("match_id"))
            .collect();
        assert_eq!(matches.len(), n as usize, "a match folded twice");
        let get = |r: &sea_orm::QueryResult, c: &str| r.try_get::<f64>("", c).expect(c);
        for w in history.windows(2) {
            assert!((get(&w[0], "mu_after") - get(&w[1], "mu_before")).abs() < 1e-9);
        }
    }
    // Every finish counted once in the statistics' totals, read through the
    // other replica with nothing left to fold.
    let stats = b.get("/api/v1/games/malacca/stats", None).await.expect(200);
    let counted: i64 = stats["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| m["matches"].as_i64().unwrap_or(0))
        .sum();
    assert_eq!(counted, i64::from(n));
}
