//! Wiring for the `engram` binary: configuration, telemetry, the database pool,
//! the embedder and the HTTP server. Tests use these same functions.

pub mod cli;
pub mod config;
pub mod http;
pub mod mcp;
pub mod telemetry;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use engram_api::{ApiConfig, ApiKey, AppState, KeyLimiter, UsageRecorder};
use engram_context::{Encoding, ExtractiveSummarizer, Summarizer, TokenCounter};
use engram_core::consolidate::ConflictReviewer;
use engram_core::extract::{Extractor, RulesExtractor};
use engram_core::{Clock, Embedder};
use engram_embed::{CachedEmbedder, E5Small, MiniLm, OpenAiEmbedder, OpenAiEmbedderConfig};
use engram_store::Store;
use engram_worker::{HandlerConfig, JobHandlers};
use sqlx::postgres::PgPoolOptions;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use config::{DatabaseArgs, EmbedArgs, EmbedderKind};

/// Connects to Postgres. Acquiring fails fast (`ENGRAM_DB_ACQUIRE_TIMEOUT_MS`)
/// so an outage answers 503 quickly.
pub async fn connect(db: &DatabaseArgs) -> anyhow::Result<Store> {
    let pool = PgPoolOptions::new()
        .max_connections(db.max_connections)
        .acquire_timeout(db.acquire_timeout()?)
        .connect(&db.url.0)
        .await
        .context("could not connect to Postgres (ENGRAM_DATABASE_URL)")?;
    Ok(Store::new(pool))
}

/// Serves `GET /metrics` for a process that runs workers and no API, until
/// `stopped` turns true.
pub async fn serve_metrics(
    bind: std::net::SocketAddr,
    store: Store,
    mut stopped: tokio::sync::watch::Receiver<bool>,
) -> anyhow::Result<JoinHandle<()>> {
    // Installs the recorder, so what the workers record is kept.
    engram_api::metrics::handle();
    let listener = TcpListener::bind(bind)
        .await
        .with_context(|| format!("could not bind {bind} (ENGRAM_WORKER_METRICS_BIND)"))?;
    let app = engram_api::metrics::metrics_only(store);
    Ok(tokio::spawn(async move {
        let shutdown = async move {
            let _ = stopped.wait_for(|stop| *stop).await;
        };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(shutdown)
            .await
        {
            tracing::warn!(error = %e, "the metrics listener stopped");
        }
    }))
}

/// Builds the configured embedder, wrapped in the query cache.
pub fn embedder(args: &EmbedArgs) -> anyhow::Result<Arc<dyn Embedder>> {
    let inner: Arc<dyn Embedder> = match args.kind {
        EmbedderKind::Local => Arc::new(MiniLm::load(&args.model_dir).with_context(|| {
            format!(
                "could not load the embedding model from {} (ENGRAM_EMBED_MODEL_DIR; `make run` installs it)",
                args.model_dir.display()
            )
        })?),
        EmbedderKind::E5 => Arc::new(E5Small::load(&args.e5_model).with_context(|| {
            format!(
                "could not load the e5 model from {} (ENGRAM_E5_MODEL; `make env` installs it)",
                args.e5_model.display()
            )
        })?),
        EmbedderKind::Openai => Arc::new(OpenAiEmbedder::new(OpenAiEmbedderConfig {
            base_url: args.base_url.0.clone(),
            api_key: args.api_key.as_ref().map(|s| s.0.clone()),
            model: args.model.clone(),
            dimensions: args.dimensions,
            request_dimensions: args.send_dimensions,
        })),
    };
    Ok(Arc::new(CachedEmbedder::new(inner, args.cache)))
}

/// Migrates, checks the embedder against the stored vectors, and assembles the
/// API state. The returned task records memory usage until the state is dropped.
pub async fn prepare(
    store: Store,
    embedder: Arc<dyn Embedder>,
    config: ApiConfig,
    api_key: &str,
    clock: Arc<dyn Clock>,
) -> anyhow::Result<(AppState, JoinHandle<()>)> {
    // The metrics recorder first, so nothing recorded from here is lost.
    engram_api::metrics::handle();
    store.migrate().await.context("applying migrations")?;
    store
        .check_embedder(embedder.id(), embedder.dimensions())
        .await?;
    let (usage, usage_task) = UsageRecorder::spawn(store.clone(), config.episodic.retention());
    let limiter = config.rate_limit.map(|r| {
        Arc::new(KeyLimiter::keyed(
            governor::Quota::per_second(r.per_second).allow_burst(r.burst),
        ))
    });
    let admission = Arc::new(engram_api::Admission::new(&config));
    let state = AppState {
        admission,
        shown: Default::default(),
        store: store
            .with_statement_timeout(config.statement_timeout)
            .with_queue_cap(config.max_queued_jobs),
        embedder,
        config: Arc::new(config),
        api_key: ApiKey::new(api_key),
        limiter,
        usage,
        clock,
    };
    Ok((state, usage_task))
}

/// What extracts, summarises and reviews conflicts, in words: logged at
/// start-up and shown by `/readyz`.
pub fn models_info(llm: &config::LlmArgs) -> engram_api::ModelsInfo {
    match llm.llm_config() {
        Some(c) => {
            let model = format!(
                "llm {} at {}",
                c.model,
                config::without_userinfo(&c.base_url)
            );
            engram_api::ModelsInfo {
                extractor: model.clone(),
                summarizer: model.clone(),
                conflict_reviewer: Some(model),
                structured_output: Some(
                    match llm.response_format {
                        config::LlmResponseFormat::Auto => {
                            "auto: json_schema, then json_object with the schema if refused"
                        }
                        config::LlmResponseFormat::JsonSchema => "json_schema (configured)",
                        config::LlmResponseFormat::JsonObject => {
                            "json_object with the schema (configured)"
                        }
                    }
                    .to_owned(),
                ),
            }
        }
        None => engram_api::ModelsInfo::default(),
    }
}

/// With `ENGRAM_LLM_RESPONSE_FORMAT=auto`, asks the endpoint once which
/// structured output it takes, and pins json_object in `llm` when it
/// refuses json_schema; what was found, in
/// words, for the log and `/readyz` (`None`: no LLM, or the format was
/// configured).
pub async fn probe_structured_output(llm: &mut config::LlmArgs) -> Option<String> {
    if llm.response_format != config::LlmResponseFormat::Auto {
        return None;
    }
    let llm_config = llm.llm_config()?;
    let found = match engram_llm::probe_response_format(&llm_config).await {
        // Not pinned: an endpoint may take the probe's tiny schema and still
        // refuse the extraction's, and auto then falls back per call.
        Ok(engram_llm::ResponseFormat::JsonSchema) => {
            "json_schema (probed at start; json_object with the schema if a call is refused)"
                .to_owned()
        }
        Ok(_) => {
            llm.response_format = config::LlmResponseFormat::JsonObject;
            "json_object with the schema as a grammar (probed at start: the endpoint refused json_schema)".to_owned()
        }
        Err(e) => format!(
            "auto: json_schema, then json_object with the schema if refused (the probe at start failed: {})",
            engram_core::text::without_quoted(&e)
        ),
    };
    tracing::info!(structured_output = %found, "LLM structured output");
    Some(found)
}

/// The extractor: an LLM when one is configured, built-in rules otherwise.
pub fn extractor(llm: &config::LlmArgs) -> Arc<dyn Extractor> {
    match llm.llm_config() {
        Some(config) => Arc::new(engram_llm::LlmExtractor::new(config)),
        None => Arc::new(RulesExtractor),
    }
}

/// The summarizer: an LLM when one is configured, extractive otherwise.
pub fn summarizer(llm: &config::LlmArgs, counter: &TokenCounter) -> Arc<dyn Summarizer> {
    match llm.llm_config() {
        Some(config) => Arc::new(engram_llm::LlmSummarizer::new(config)),
        None => Arc::new(ExtractiveSummarizer {
            counter: counter.clone(),
        }),
    }
}

/// Who reviews consolidation's weak conflicts: the LLM when one is
/// configured; the rules alone otherwise.
pub fn conflict_reviewer(llm: &config::LlmArgs) -> Option<Arc<dyn ConflictReviewer>> {
    llm.llm_config().map(|config| {
        Arc::new(engram_llm::LlmConflictReviewer::new(config)) as Arc<dyn ConflictReviewer>
    })
}

/// The job handlers the workers run, with the extractive summarizer and
/// default sizes; `configured_handlers` sets them from the configuration.
pub fn job_handlers(
    store: Store,
    embedder: Arc<dyn Embedder>,
    extractor: Arc<dyn Extractor>,
    clock: Arc<dyn Clock>,
) -> JobHandlers {
    let counter = TokenCounter::new(Encoding::O200kBase);
    JobHandlers {
        store,
        embedder,
        extractor,
        clock,
        summarizer: Arc::new(ExtractiveSummarizer {
            counter: counter.clone(),
        }),
        counter,
        config: HandlerConfig::default(),
        reviewer: None,
    }
}

/// The job handlers as configured: the LLM (or rules and extractive
/// summaries), the tokenizer, the summary size, and what consolidation jobs
/// change.
pub fn configured_handlers(
    store: Store,
    embedder: Arc<dyn Embedder>,
    llm: &config::LlmArgs,
    context: &config::ContextArgs,
    consolidation: engram_worker::ConsolidationSettings,
    clock: Arc<dyn Clock>,
) -> Arc<JobHandlers> {
    let counter = TokenCounter::new(context.tokenizer);
    let mut handlers = job_handlers(store, embedder, extractor(llm), clock);
    handlers.summarizer = summarizer(llm, &counter);
    handlers.counter = counter;
    handlers.config.summary_max_tokens = context.summary_max_tokens as usize;
    handlers.config.consolidation = consolidation;
    handlers.config.unread_messages = match llm.unread_messages {
        config::UnreadMessagesArg::Keep => engram_worker::UnreadMessages::Keep,
        config::UnreadMessagesArg::Skip => engram_worker::UnreadMessages::Skip,
    };
    handlers.reviewer = conflict_reviewer(llm);
    Arc::new(handlers)
}

/// How long in-flight requests may run on after a shutdown signal: a client
/// that stalls a streamed export must not keep the process alive for ever.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// Serves until `shutdown` resolves, then finishes in-flight requests for up
/// to [`SHUTDOWN_GRACE`] and closes whatever is still open. Connections are
/// held to the configured header and idle timeouts (`http`).
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = http::ConnectionLimits {
        header_timeout: state.config.header_timeout,
        idle_timeout: state.config.idle_timeout,
        write_timeout: state.config.write_timeout,
    };
    http::serve(listener, router(state), limits, shutdown, SHUTDOWN_GRACE).await
}

/// Everything `engram serve` answers: the REST API with the MCP endpoint
/// and the Mem0-compatible routes beside it, behind the same keys and
/// limits, and the console's static page (it calls the API with the key
/// the user signs in with).
pub fn router(state: AppState) -> axum::Router {
    // The REST calls an MCP tool call or a Mem0 request is made of: the
    // request that makes them was counted against its key's rate limit,
    // so they are not counted again (a fan-out refused halfway would have
    // done part of its work). Keys, roles, bindings and audit still apply.
    let rest = engram_api::app(AppState {
        limiter: None,
        ..state.clone()
    });
    let extra =
        mcp::router(&state, rest.clone()).merge(engram_mem0::router(engram_mem0::Rest(rest)));
    engram_api::app_with(state, Some(extra))
        .merge(engram_console::router())
        .layer(axum::middleware::from_fn(engram_mem0::adapt))
}

/// Resolves on Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

/// An `ENGRAM_*` variable set to an empty (or blank) value counts as unset,
/// so a compose file can pass settings through with `${NAME:-}`: an empty
/// ENGRAM_LLM_BASE_URL means the built-in rules, not an LLM at "", and an
/// empty ENGRAM_API_KEY refuses to serve ("no API key") instead of starting
/// with an admin key nobody can send. Call before any thread starts.
pub fn unset_blank_settings() {
    let blank: Vec<std::ffi::OsString> = std::env::vars_os()
        .filter(|(name, value)| {
            name.to_str().is_some_and(|n| n.starts_with("ENGRAM_"))
                && value.to_str().is_some_and(|v| v.trim().is_empty())
        })
        .map(|(name, _)| name)
        .collect();
    for name in blank {
        std::env::remove_var(name);
    }
}

/// Threads per local embedding call (candle reads `RAYON_NUM_THREADS`, e5 `OMP_NUM_THREADS`):
/// `ENGRAM_EMBED_THREADS` when set, else candle's default, every core. One
/// request at a time, two threads were faster end to end on this 2-core
/// machine (LoCoMo search p50 10.1-10.7 ms against 11.8-12.0 ms with one;
/// docs/EVALUATION.md); under many concurrent requests one thread per call
/// may serve more. Set before any thread starts.
pub fn set_inference_threads() {
    if let Some(threads) = std::env::var_os("ENGRAM_EMBED_THREADS") {
        // candle's pool (MiniLM) and OpenMP's (e5), unless set directly.
        for pool in ["RAYON_NUM_THREADS", "OMP_NUM_THREADS"] {
            if std::env::var_os(pool).is_none() {
                std::env::set_var(pool, &threads);
            }
        }
    }
}
