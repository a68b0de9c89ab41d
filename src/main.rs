//! `sealed-orders` serves the API; `sealed-orders migrate` runs the migrations
//! alone; `sealed-orders openapi` prints the OpenAPI document; `sealed-orders
//! simulate --game malacca --matches N --players 2-8` plays random matches into
//! the database; `sealed-orders verify BUNDLE.json` replays an exported match and exits 0 only when it
//! verifies; `sealed-orders healthcheck` asks a local server's `/readyz` (for container healthchecks, where
//! no curl is installed).

/// mimalloc instead of glibc's malloc: measured in docs/benchmarks.md ("API load"),
/// it costs less CPU per request and returns freed memory to the system.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use sealed_orders::config::Settings;
use sealed_orders::startup::Application;
use sealed_orders::{openapi, service, store, telemetry};

const USAGE: &str = "\
usage: sealed-orders [COMMAND]

  serve          serve the API (the default); settings from the environment, see README.md
  migrate        apply the database migrations and exit
  openapi        print the OpenAPI document
  verify FILE    replay an exported match bundle; exit 0 only when it verifies
  simulate --game G --matches N --players A-B [--seed S] [--concurrency C]
           [--population P] [--skew X] [--span-days D] [--prefix NAME]
                 play random legal matches through the service into the database
  rebuild-stats  empty the statistics' running totals and build them again from
                 the history tables, in one transaction (after a bulk load or repair)
  healthcheck    ask the local server's /readyz (for container healthchecks)
  help           this text
";

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let command = std::env::args().nth(1);
    match command.as_deref() {
        Some("openapi") => {
            print!("{}", openapi::spec_pretty(&service::registry::all_games()));
            Ok(())
        }
        Some("help" | "--help" | "-h") => {
            print!("{USAGE}");
            Ok(())
        }
        Some("healthcheck") => healthcheck(),
        Some("verify") => verify(std::env::args().nth(2)),
        Some("simulate") => {
            let settings = Settings::from_env()?;
            telemetry::init(&settings.log_format, "warn,sealed_orders::simulate=info");
            let args: Vec<String> = std::env::args().skip(2).collect();
            let args = sealed_orders::simulate::SimulateArgs::parse(&args)?;
            let (count, started) = (args.matches, std::time::Instant::now());
            let moves = sealed_orders::simulate::run(settings, args).await?;
            println!(
                "simulated {count} matches, {moves} moves, in {:.1} s",
                started.elapsed().as_secs_f64()
            );
            Ok(())
        }
        Some("rebuild-stats") => {
            let settings = Settings::from_env()?;
            telemetry::init(&settings.log_format, "info");
            let db = store::connect(&settings).await?;
            store::migrate(&db, &settings).await?;
            let started = std::time::Instant::now();
            store::rebuild_stat_totals(&db).await?;
            tracing::info!(
                seconds = started.elapsed().as_secs_f64(),
                "statistics totals rebuilt"
            );
            Ok(())
        }
        Some("migrate") => {
            let settings = Settings::from_env()?;
            telemetry::init(&settings.log_format, "info");
            let db = store::connect(&settings).await?;
            store::migrate(&db, &settings).await?;
            tracing::info!("migrations applied");
            Ok(())
        }
        None | Some("serve") => {
            let settings = Settings::from_env()?;
            telemetry::init(&settings.log_format, "info");
            let app = Application::build(settings).await?;
            app.run_until_stopped().await?;
            Ok(())
        }
        Some(other) => {
            anyhow::bail!(
                "unknown command {other:?}; use serve (default), migrate, openapi, verify, simulate, rebuild-stats, healthcheck or help"
            )
        }
    }
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

fn verify(path: Option<String>) -> anyhow::Result<()> {
    let path = path.ok_or_else(|| anyhow::anyhow!("usage: sealed-orders verify BUNDLE.json"))?;
    let bundle: service::replay::ReplayBundle =
        serde_json::from_str(&std::fs::read_to_string(&path)?)?;
    let report = service::replay::verify(&service::registry::all_games(), &bundle);
    println!("{}", serde_json::to_string_pretty(&report)?);
    if report.valid {
        Ok(())
    } else {
        std::process::exit(1)
    }
}
