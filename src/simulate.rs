//! `sealed-orders simulate`: random legal matches played through the service
//! layer into the configured database, for demos and benchmarks.

use std::sync::Arc;

use anyhow::Context;
use serde_json::json;
use uuid::Uuid;

use crate::auth::AuthenticatedPlayer;
use crate::config::Settings;
use crate::games::legal;
use crate::games::rng::GameRng;
use crate::service::clock::SystemClock;
use crate::service::data::DataStore;
use crate::service::{CreateMatch, Service, SubmitMove, registry};
use crate::store::{self, entities::players};

pub struct SimulateArgs {
    pub game: String,
    pub matches: usize,
    pub min_players: usize,
    pub max_players: usize,
    pub seed: u64,
}

impl SimulateArgs {
    /// `--game G --matches N --players A-B [--seed S]`.
    pub fn parse(args: &[String]) -> anyhow::Result<Self> {
        let mut out = Self {
            game: "malacca".into(),
            matches: 100,
            min_players: 2,
            max_players: 8,
            seed: 1,
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().with_context(|| format!("{flag} needs a value"))?;
            match flag.as_str() {
                "--game" => out.game = value.clone(),
                "--matches" => out.matches = value.parse()?,
                "--seed" => out.seed = value.parse()?,
                "--players" => {
                    let (a, b) = value.split_once('-').unwrap_or((value, value));
                    out.min_players = a.parse()?;
                    out.max_players = b.parse()?;
                }
                other => anyhow::bail!("unknown flag {other}"),
            }
        }
        Ok(out)
    }
}

/// Plays the matches; answers how many moves were made.
pub async fn run(settings: Settings, args: SimulateArgs) -> anyhow::Result<u64> {
    let db = store::connect(&settings).await?;
    store::migrate(&db).await?;
    let games = registry::all_games();
    let info = games
        .iter()
        .find(|g| g.info().id == args.game)
        .map(|g| g.info())
        .with_context(|| format!("no game {}", args.game))?;
    let sizes: Vec<usize> = info
        .seats
        .iter()
        .copied()
        .filter(|n| (args.min_players..=args.max_players).contains(n))
        .collect();
    anyhow::ensure!(
        !sizes.is_empty(),
        "{} is not played by {}-{} players",
        info.name,
        args.min_players,
        args.max_players
    );
    let data = DataStore::load(&games, settings.data_dir.as_deref())?;
    let clock = Arc::new(SystemClock);
    data.persist(&db, chrono::Utc::now()).await?;
    // Simulated players cannot log in: their password hash is no PHC string.
    let run_id = Uuid::now_v7().simple().to_string();
    let mut pool = Vec::new();
    for i in 0..*sizes.iter().max().unwrap_or(&2) {
        let name = format!("sim{}-{i}", &run_id[run_id.len() - 8..]);
        let row = players::Model {
            id: Uuid::now_v7(),
            name_key: name.to_lowercase(),
            name: name.clone(),
            password_hash: "!simulated".into(),
            is_bot: false,
            created_at: chrono::Utc::now(),
        };
        store::insert_player(&db, row.clone()).await?;
        pool.push(AuthenticatedPlayer::server(row.id, name));
    }
    let jwt = crate::auth::JwtKeys::new(&[0; 32], 60);
    let metrics = Arc::new(crate::metrics::Metrics::new()?);
    let service = Service::new(db, games, data, jwt, clock, metrics);
    let mut rng = GameRng::from_key({
        let mut k = [0u8; 32];
        k[..8].copy_from_slice(&args.seed.to_be_bytes());
        k
    });
    let mut moves = 0u64;
    for i in 0..args.matches {
        let n = sizes[rng.index(sizes.len())];
        let seated = &pool[..n];
        let m = service
            .create_match(
                &seated[0],
                CreateMatch {
                    game: args.game.clone(),
                    seats: n as i64,
                    options: Some(json!({})),
                    bots: Vec::new(),
                    join: true,
                },
            )
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        for p in &seated[1..] {
            service
                .join_match(p, m.id)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
        }
        loop {
            let view = service
                .get_match(None, m.id)
                .await
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            let Some(prompt) = view.prompt else { break };
            for seat in prompt.awaiting {
                let p = &seated[seat];
                let mine = service
                    .get_match(Some(p.id), m.id)
                    .await
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                let Some(mp) = mine.prompt else { continue };
                let listed = mp.legal.unwrap_or_default();
                let action = legal::sample(&listed, &mut rng).context("no legal move")?;
                service
                    .submit_move(
                        p,
                        m.id,
                        SubmitMove {
                            step: mp.step,
                            action,
                            idempotency_key: None,
                        },
                    )
                    .await
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                moves += 1;
            }
        }
        if (i + 1) % 100 == 0 {
            tracing::info!(matches = i + 1, moves, "simulated");
        }
    }
    Ok(moves)
}
