//! Logging set-up: human-readable or JSON lines, filtered by RUST_LOG, on
//! stderr (stdout is the output of `engram keys` and `engram import`).
//! Never log memory content, messages or keys.

use tracing_subscriber::EnvFilter;

pub fn init(json: bool) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stderr);
    let _ = if json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
