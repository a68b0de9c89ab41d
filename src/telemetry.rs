//! Tracing: pretty for people, JSON for log pipelines (each line carries the
//! request's span, so its `request_id`); silent in tests unless TEST_LOG=1.

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber once; later calls do nothing.
pub fn init(format: &str, default_filter: &str) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    // Colours only for a person at a terminal: a redirected log, a pipe or a
    // container's log driver gets plain text, and NO_COLOR turns them off.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout())
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(ansi);
    let _ = if format == "json" {
        builder
            .json()
            .flatten_event(true)
            .with_current_span(true)
            .with_span_list(false)
            .try_init()
    } else {
        builder.try_init()
    };
}
