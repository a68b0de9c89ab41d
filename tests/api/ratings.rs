use serde_json::json;

use crate::helpers::spawn_app;

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
    let mut ids = Vec::new();
    for _ in 0..n {
        ids.push(
            app.started_match(
                &players,
                "malacca",
                json!({"stakes": "sealed", "ships": [7]}),
            )
            .await,
        );
    }
    for id in &ids {
        app.submit(
            id,
            &players[0],
            0,
            json!({"type": "play", "card": "trade", "stake": 2}),
        )
        .await
        .expect(200);
    }
    // Every match's last move at once: each finishes and rates the same two rows.
    let last = ids.iter().map(|id| {
        app.submit(
            id,
            &players[1],
            0,
            json!({"type": "play", "card": "trade", "stake": 1}),
        )
    });
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
