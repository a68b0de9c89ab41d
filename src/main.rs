//! The `sealed-orders` command: serves the API by default; the subcommands
//! migrate, print the OpenAPI document, verify a replay bundle, fill a database
//! with simulated matches, rebuild the statistics' totals, and ask a local server
//! whether it is ready (for container healthchecks, where no curl is installed),
//! and grant or revoke the admin role.
//! `sealed-orders --help` lists them, `sealed-orders <command> --help` explains
//! one.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use sealed_orders::config::Settings;
use sealed_orders::startup::Application;
use sealed_orders::{openapi, service, store, telemetry};

/// mimalloc instead of glibc's malloc: measured in docs/benchmarks.md ("API load"),
/// it costs less CPU per request and returns freed memory to the system.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A play-by-API server for board games played with sealed moves.
///
/// Every setting is an environment variable (DATABASE_URL, PORT, JWT_SECRET, …;
/// see README.md). Without a command, the server runs.
#[derive(Debug, Parser)]
#[command(name = "sealed-orders", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Serve the API (the default); settings from the environment, see README.md.
    Serve,
    /// Apply the database migrations and exit (for a deploy that migrates first).
    Migrate,
    /// Print the OpenAPI document.
    Openapi,
    /// Replay an exported match bundle with the engines; exit 0 only when it verifies.
    Verify {
        /// The bundle, as `GET /api/v1/matches/{id}/export` gives it.
        bundle: PathBuf,
    },
    /// Play random legal matches through the service into the configured database
    /// (for demos and benchmarks).
    Simulate(sealed_orders::simulate::SimulateArgs),
    /// Empty the statistics' running totals and build them again from the history
    /// tables, in one transaction (after a bulk load or a repair); reports each step.
    RebuildStats,
    /// Ask the local server's /readyz (on PORT) and exit 0 when it is ready.
    Healthcheck,
    /// Make a player an admin (the first admin comes from here); recorded in the
    /// audit log with the actor `cli`.
    GrantAdmin {
        /// The player's name.
        name: String,
    },
    /// Take the admin role from a player; recorded in the audit log.
    RevokeAdmin {
        /// The player's name.
        name: String,
    },
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve) {
        Command::Openapi => {
            print!("{}", openapi::spec_pretty(&service::registry::all_games()));
            Ok(())
        }
        Command::Healthcheck => healthcheck(),
        Command::Verify { bundle } => verify(&bundle),
        Command::Simulate(args) => {
            args.check()?;
            let settings = Settings::from_env()?;
            telemetry::init(&settings.log_format, "warn,sealed_orders::simulate=info");
            let (count, started) = (args.matches, std::time::Instant::now());
            let moves = sealed_orders::simulate::run(settings, args).await?;
            println!(
                "simulated {count} matches, {moves} moves, in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Command::RebuildStats => {
            let settings = Settings::from_env()?;
            telemetry::init(&settings.log_format, "info");
            let db = store::connect(&settings).await?;
            store::migrate(&db, &settings).await?;
            let started = std::time::Instant::now();
            store::rebuild_stat_totals(&db, &mut |step, of, what| {
                tracing::info!(
                    step,
                    of,
                    seconds = started.elapsed().as_secs_f64(),
                    "rebuilding statistics: {what}"
                );
            })
            .await?;
            tracing::info!(
                seconds = started.elapsed().as_secs_f64(),
                "statistics totals rebuilt"
            );
            Ok(())
        }
        Command::GrantAdmin { name } => set_admin(&name, true).await,
        Command::RevokeAdmin { name } => set_admin(&name, false).await,
        Command::Migrate => {
            let settings = Settings::from_env()?;
            telemetry::init(&settings.log_format, "info");
            let db = store::connect(&settings).await?;
            store::migrate(&db, &settings).await?;
            tracing::info!("migrations applied");
            Ok(())
        }
        Command::Serve => {
            let settings = Settings::from_env()?;
            telemetry::init(&settings.log_format, "info");
            let app = Application::build(settings).await?;
            app.run_until_stopped().await?;
            Ok(())
        }
    }
}

async fn set_admin(name: &str, admin: bool) -> anyhow::Result<()> {
    let settings = Settings::from_env()?;
    telemetry::init(&settings.log_format, "warn");
    let db = store::connect(&settings).await?;
    store::migrate(&db, &settings).await?;
    if !service::moderation::set_admin_by_cli(&db, name, admin)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?
    {
        anyhow::bail!("no player is named {name}");
    }
    println!(
        "{name} {} an admin",
        if admin { "is now" } else { "is no longer" }
    );
    Ok(())
}

fn healthcheck() -> anyhow::Result<()> {
    use std::io::{Read, Write};
    let port = std::env::var("PORT").unwrap_or_else(|_| "8080".into());
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>()?))?;
    stream.set_read_timeout(Some(std::time::Duration::from_secs(3)))?;
    stream.write_all(b"GET /readyz HTTP/1.0\r\nHost: localhost\r\n\r\n")?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer)?;
    if answer.starts_with("HTTP/1.0 200") || answer.starts_with("HTTP/1.1 200") {
        Ok(())
    } else {
        anyhow::bail!("not ready: {}", answer.lines().next().unwrap_or(""))
    }
}

fn verify(path: &std::path::Path) -> anyhow::Result<()> {
    let bundle: service::replay::ReplayBundle =
        serde_json::from_str(&std::fs::read_to_string(path)?)?;
    let report = service::replay::verify(&service::registry::all_games(), &bundle);
    println!("{}", serde_json::to_string_pretty(&report)?);
    if report.valid {
        Ok(())
    } else {
        std::process::exit(1)
    }
}
