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

/// Replaces the default panic message (which can quote the data being
/// handled: a string slice's panic prints the string) with an error event
/// that says only where it happened. A panic in a job or a consolidation is
/// caught and recorded as that job's or user's failure; this says where.
pub fn log_panics_without_data() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_else(|| "an unknown place".into());
        let thread = std::thread::current();
        tracing::error!(
            location = %location,
            thread = thread.name().unwrap_or("unnamed"),
            "panicked (the message is not logged: it may quote user data)"
        );
    }));
}
