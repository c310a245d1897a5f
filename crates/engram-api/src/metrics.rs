//! Prometheus metrics at `GET /metrics`.
//!
//! Every crate records through the `metrics` facade (requests here, embedding
//! in engram-embed, jobs and extraction outcomes in engram-worker, LLM calls
//! in engram-llm); one process-wide recorder from `metrics-exporter-prometheus`
//! keeps them and renders the text format. Gauges that describe the database
//! (pool use, the job queue) are read when scraped. Labels carry route
//! templates, statuses, kinds and model names: never ids, users or content.
//! A process running only workers can serve the same at its own address
//! ([`metrics_only`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use engram_store::Store;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::{ApiError, AppState};

/// Seconds, from a cached query embedding to a slow LLM call.
const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];
const BATCH_BUCKETS: &[f64] = &[1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0];

static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();

/// The process-wide recorder's handle, installing the recorder the first
/// time. Should another recorder be installed already, metrics render empty
/// rather than stop the server.
pub fn handle() -> PrometheusHandle {
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)
                .and_then(|b| {
                    b.set_buckets_for_metric(
                        Matcher::Full("engram_embed_batch_size".into()),
                        BATCH_BUCKETS,
                    )
                })
                .unwrap_or_else(|_| PrometheusBuilder::new());
            let recorder = builder.build_recorder();
            let handle = recorder.handle();
            if metrics::set_global_recorder(recorder).is_err() {
                tracing::warn!("another metrics recorder is installed; /metrics will be empty");
            }
            handle
        })
        .clone()
}

tokio::task_local! {
    /// Nanoseconds the current request spent embedding.
    static EMBEDDING: Arc<AtomicU64>;
}

/// Adds to the current request's embedding time (outside a request, e.g.
/// in a worker, it does nothing).
pub(crate) fn add_embedding_time(spent: Duration) {
    let _ = EMBEDDING.try_with(|t| t.fetch_add(spent.as_nanos() as u64, Ordering::Relaxed));
}

/// Counts every request and times it to its response head, by method,
/// route template and status; tells the client where the time went in a
/// `Server-Timing` header (`embed`: embedding the request's texts, `total`:
/// the whole request in the server), so benchmarks can take the embedding
/// out.
pub async fn track(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| "unmatched".into());
    let method = req.method().as_str().to_owned();
    let started = Instant::now();
    let embedding = Arc::new(AtomicU64::new(0));
    let mut response = EMBEDDING.scope(embedding.clone(), next.run(req)).await;
    let ms = |nanos: f64| nanos / 1e6;
    let timing = format!(
        "embed;dur={:.3}, total;dur={:.3}",
        ms(embedding.load(Ordering::Relaxed) as f64),
        ms(started.elapsed().as_nanos() as f64)
    );
    if let Ok(v) = HeaderValue::from_str(&timing) {
        response.headers_mut().insert("server-timing", v);
    }
    let labels = [
        ("method", method),
        ("route", route),
        ("status", response.status().as_u16().to_string()),
    ];
    metrics::counter!("engram_http_requests_total", &labels).increment(1);
    metrics::histogram!("engram_http_request_duration_seconds", &labels)
        .record(started.elapsed().as_secs_f64());
    response
}

/// The Prometheus text exposition: what was recorded, then the gauges read
/// now from this server's pool and the job queue (written here rather than
/// kept in the recorder, so a kind with no jobs left reads 0, not its last
/// value).
pub async fn get_metrics(State(state): State<AppState>) -> Result<Response, ApiError> {
    exposition(&state.store).await
}

/// A router serving only `GET /metrics`, for a process that runs workers
/// and no API (`engram worker --metrics-bind`).
pub fn metrics_only(store: Store) -> Router {
    Router::new()
        .route(
            "/metrics",
            get(|State(store): State<Store>| async move { exposition(&store).await }),
        )
        .fallback(|| async { ApiError::RouteNotFound })
        .with_state(store)
}

async fn exposition(store: &Store) -> Result<Response, ApiError> {
    let queue = store.queue_stats().await?;
    let handle = handle();
    handle.run_upkeep();
    let mut out = handle.render();
    let pool = store.pool();
    let idle = pool.num_idle() as u32;
    gauge(
        &mut out,
        "engram_db_pool_connections",
        "Connections of the database pool, by state.",
        &[
            ("state=\"idle\"".into(), idle.into()),
            (
                "state=\"in_use\"".into(),
                pool.size().saturating_sub(idle).into(),
            ),
        ],
    );
    gauge(
        &mut out,
        "engram_db_pool_max_connections",
        "The pool's size limit.",
        &[(String::new(), pool.options().get_max_connections().into())],
    );
    let mut depth = Vec::new();
    let mut age = Vec::new();
    for kind in engram_store::JobKind::ALL {
        for status in [
            engram_core::JobStatus::Queued,
            engram_core::JobStatus::Running,
        ] {
            let q = queue.iter().find(|q| q.kind == kind && q.status == status);
            let (kind, status) = (kind.as_str(), status.as_str());
            let labels = format!("kind=\"{kind}\",status=\"{status}\"");
            depth.push((labels.clone(), q.map_or(0.0, |q| q.count as f64)));
            age.push((labels, q.map_or(0.0, |q| q.oldest_age_secs)));
        }
    }
    gauge(
        &mut out,
        "engram_jobs_queued",
        "Jobs waiting or running, every tenant.",
        &depth,
    );
    gauge(
        &mut out,
        "engram_jobs_oldest_age_seconds",
        "Age of the oldest job waiting or running.",
        &age,
    );
    Ok((
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    )
        .into_response())
}

fn gauge(out: &mut String, name: &str, help: &str, samples: &[(String, f64)]) {
    use std::fmt::Write as _;
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} gauge");
    for (labels, value) in samples {
        if labels.is_empty() {
            let _ = writeln!(out, "{name} {value}");
        } else {
            let _ = writeln!(out, "{name}{{{labels}}} {value}");
        }
    }
}
