//! `engram worker`: the job workers alone (no HTTP API), optionally with
//! `/metrics`, until a shutdown signal.

use std::sync::Arc;

use engram_core::SystemClock;
use engram_server::config::{
    ConsolidationRules, ContextArgs, DatabaseArgs, EmbedArgs, LlmArgs, WorkerArgs,
};
use engram_server::{configured_handlers, embedder, serve_metrics, shutdown_signal};

#[derive(clap::Args)]
pub struct WorkerCommand {
    #[command(flatten)]
    db: DatabaseArgs,
    #[command(flatten)]
    embed: EmbedArgs,
    #[command(flatten)]
    worker: WorkerArgs,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    context: ContextArgs,
    /// What the consolidation jobs this worker takes change.
    #[command(flatten)]
    rules: ConsolidationRules,
    /// Address to serve `GET /metrics` on, e.g. 127.0.0.1:9091 (none by default).
    #[arg(long = "metrics-bind", env = "ENGRAM_WORKER_METRICS_BIND")]
    metrics_bind: Option<std::net::SocketAddr>,
}

pub async fn run(cmd: WorkerCommand) -> anyhow::Result<()> {
    let WorkerCommand {
        db,
        embed,
        worker,
        llm,
        context,
        rules,
        metrics_bind,
    } = cmd;
    let rules = rules.settings()?;
    tracing::info!(db = ?db, embed = ?embed, worker = ?worker, llm = ?llm, context = ?context, "effective configuration");
    let mut llm = llm;
    engram_server::probe_structured_output(&mut llm).await;
    let models = engram_server::models_info(&llm);
    tracing::info!(extractor = %models.extractor, summarizer = %models.summarizer, "models");
    let store = super::migrated(&db).await?;
    let embedder = embedder(&embed)?;
    store
        .check_embedder(embedder.id(), embedder.dimensions())
        .await?;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let metrics = match metrics_bind {
        Some(bind) => Some(serve_metrics(bind, store.clone(), stopped.clone()).await?),
        None => None,
    };
    let workers = engram_worker::spawn_workers(
        configured_handlers(
            store,
            embedder,
            &llm,
            &context,
            rules,
            Arc::new(SystemClock),
        ),
        worker.worker_config(&llm),
        stopped,
    );
    tracing::info!(workers = worker.workers, metrics = ?metrics_bind, "engram worker is running");
    shutdown_signal().await;
    let _ = stop.send(true);
    for w in workers.into_iter().chain(metrics) {
        let _ = w.await;
    }
    Ok(())
}
