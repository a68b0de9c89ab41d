//! `sealed-orders` serves the API; `sealed-orders migrate` runs the migrations
//! alone; `sealed-orders openapi` prints the OpenAPI document.

use sealed_orders::config::Settings;
use sealed_orders::startup::Application;
use sealed_orders::{openapi, service, store, telemetry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let command = std::env::args().nth(1);
    match command.as_deref() {
        Some("openapi") => {
            print!("{}", openapi::spec_pretty(&service::registry::all_games()));
            Ok(())
        }
        Some("migrate") => {
            let settings = Settings::from_env()?;
            telemetry::init(&settings.log_format, "info");
            let db = store::connect(&settings).await?;
            store::migrate(&db).await?;
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
            anyhow::bail!("unknown command {other:?}; use serve (default), migrate or openapi")
        }
    }
}
