//! `engram serve`: migrations, then the HTTP API with its workers and the
//! consolidation schedule, until a shutdown signal.

use std::sync::Arc;

use anyhow::Context;
use engram_core::{Clock, SystemClock};
use engram_server::config::{
    ConsolidationArgs, ContextArgs, DatabaseArgs, EmbedArgs, LlmArgs, ServeArgs, WorkerArgs,
};
use engram_server::{configured_handlers, connect, embedder, prepare, serve, shutdown_signal};

#[derive(clap::Args)]
pub struct ServeCommand {
    #[command(flatten)]
    db: DatabaseArgs,
    #[command(flatten)]
    embed: EmbedArgs,
    #[command(flatten)]
    serve: ServeArgs,
    #[command(flatten)]
    worker: WorkerArgs,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    context: ContextArgs,
    #[command(flatten)]
    consolidation: ConsolidationArgs,
}

pub async fn run(cmd: ServeCommand) -> anyhow::Result<()> {
    let ServeCommand {
        db,
        embed,
        serve: args,
        worker,
        llm,
        context,
        consolidation,
    } = cmd;
    let schedule = consolidation.schedule()?;
    let rules = consolidation.rules.settings()?;
    let api_key = args.api_key.clone().context(
        "no API key: set ENGRAM_API_KEY (`make run` generates one and keeps it in .data/api-key)",
    )?;
    tracing::info!(db = ?db, embed = ?embed, serve = ?args, worker = ?worker, llm = ?llm, context = ?context, consolidation = ?consolidation, "effective configuration");
    let store = connect(&db).await?;
    let embedder = embedder(&embed)?;
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let reviewer = engram_server::conflict_reviewer(&llm);
    let mut llm = llm;
    let probed = engram_server::probe_structured_output(&mut llm).await;
    let mut api_config = args.api_config(&context);
    api_config.models = engram_server::models_info(&llm);
    if probed.is_some() {
        api_config.models.structured_output = probed;
    }
    tracing::info!(extractor = %api_config.models.extractor, summarizer = %api_config.models.summarizer, "models");
    let (state, usage_task) = prepare(
        store.clone(),
        embedder.clone(),
        api_config,
        &api_key.0,
        clock.clone(),
    )
    .await?;
    let (stop, stopped) = tokio::sync::watch::channel(false);
    let mut workers = engram_worker::spawn_workers(
        configured_handlers(
            store.clone(),
            embedder,
            &llm,
            &context,
            rules,
            clock.clone(),
        ),
        worker.worker_config(&llm),
        stopped.clone(),
    );
    if let Some(schedule) = schedule {
        let consolidator = Arc::new(engram_worker::Consolidator {
            store,
            clock,
            settings: rules,
            reviewer,
        });
        workers.push(engram_worker::spawn_schedule(
            consolidator,
            schedule,
            stopped,
        ));
    }
    let listener = tokio::net::TcpListener::bind(args.bind)
        .await
        .with_context(|| format!("could not bind {}", args.bind))?;
    tracing::info!(addr = %args.bind, workers = worker.workers, "engram is serving");
    serve(listener, state, shutdown_signal()).await?;
    // In-flight jobs stop at their next step; an unfinished one is taken
    // again after its lease, so nothing is lost.
    let _ = stop.send(true);
    for w in workers {
        let _ = w.await;
    }
    // Bounded: after a forced shutdown a stalled connection may still
    // hold a sender until the runtime ends.
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), usage_task).await;
    tracing::info!("stopped");
    Ok(())
}
