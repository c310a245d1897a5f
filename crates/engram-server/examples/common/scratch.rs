//! The bench tools' scratch database (shared with engram-bench) and ways
//! to serve Engram over it on loopback.

pub use engram_bench::Scratch;

/// Serves `state` on a free loopback port until the process ends; the base URL.
pub async fn serve_on_loopback(state: engram_api::AppState) -> anyhow::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(engram_server::serve(
        listener,
        state,
        std::future::pending(),
    ));
    Ok(base)
}

/// Serves Engram over `pool` on loopback with the local MiniLM in
/// `model_dir` (or e5 when ENGRAM_EMBEDDER=e5), extraction by the built-in rules (no LLM), workers polling
/// often; the base URL (admin key `key`) and the embedder.
#[allow(dead_code)] // not every bench extracts
pub async fn serve_with_rules(
    pool: &sqlx::PgPool,
    model_dir: &str,
    config: engram_api::ApiConfig,
    key: &str,
) -> anyhow::Result<(String, std::sync::Arc<dyn engram_core::Embedder>)> {
    use std::sync::Arc;
    // ENGRAM_EMBEDDER=e5 compares the multilingual model on the same run.
    let embedder: Arc<dyn engram_core::Embedder> =
        if std::env::var("ENGRAM_EMBEDDER").is_ok_and(|v| v == "e5") {
            let path = std::env::var("ENGRAM_E5_MODEL")
                .unwrap_or_else(|_| ".data/model-e5/e5-small-q4.bin".into());
            Arc::new(engram_embed::E5Small::load(path.as_ref())?)
        } else {
            Arc::new(engram_embed::MiniLm::load(model_dir.as_ref())?)
        };
    let clock: Arc<dyn engram_core::Clock> = Arc::new(engram_core::SystemClock);
    let store = engram_store::Store::new(pool.clone());
    let (state, _usage) =
        engram_server::prepare(store.clone(), embedder.clone(), config, key, clock.clone()).await?;
    // Workers live as long as the process: the sender is leaked on purpose.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    std::mem::forget(stop);
    engram_worker::spawn_workers(
        Arc::new(engram_server::job_handlers(
            store,
            embedder.clone(),
            Arc::new(engram_core::extract::RulesExtractor),
            clock,
        )),
        engram_worker::WorkerConfig {
            poll_interval: std::time::Duration::from_millis(20),
            ..Default::default()
        },
        stopped,
    );
    Ok((serve_on_loopback(state).await?, embedder))
}
