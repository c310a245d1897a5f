//! Benchmark: one full consolidation run over N memories across U users,
//! and search latency while it runs against idle, side by side.
//!
//!     make env && . .data/env
//!     cargo run --release -p engram-server --example consolidation_bench [memories] [users]
//!
//! A scratch database beside ENGRAM_TEST_DATABASE_URL's, the local MiniLM
//! embedder, served on a loopback port. Each user gets memories with random
//! vectors in groups of three near-identical ones (to merge), a tenth of
//! them a year old and unused (to decay or archive). Searches (a real query
//! embedded each time, hybrid, a random user) run one at a time, first with
//! nothing else running, then while the run goes.

use std::sync::Arc;
use std::time::Instant;

use engram_core::{Embedder, MemoryKind, NewMemory, Scope, Source, SourceType, SystemClock};
use engram_store::Store;
use serde_json::json;
use sqlx::postgres::PgPoolOptions;

#[path = "common/scratch.rs"]
mod scratch;

const KEY: &str = "bench-key";

fn vector(seed: u64) -> Vec<f32> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let v: Vec<f32> = (0..384)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        })
        .collect();
    let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
    v.into_iter().map(|a| a / n).collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

async fn search_once(
    client: &reqwest::Client,
    base: &str,
    i: usize,
    users: usize,
) -> anyhow::Result<f64> {
    let t = Instant::now();
    client
        .post(format!("{base}/v1/memories/search"))
        .bearer_auth(KEY)
        .json(&json!({"user_id": format!("user-{}", (i * 7919) % users),
                      "query": format!("what did we say about topic {} last time", i % 37)}))
        .send()
        .await?
        .error_for_status()?;
    Ok(t.elapsed().as_secs_f64() * 1e3)
}

fn main() -> anyhow::Result<()> {
    engram_server::set_inference_threads();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(bench())
}

async fn bench() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let n: usize = args
        .next()
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(100_000);
    let users: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(1_000);
    let scratch = scratch::Scratch::create("engram_consolidation_bench").await?;
    let result = run(&scratch.url, &scratch.model_dir, n, users).await;
    scratch.drop().await?;
    result
}

async fn run(url: &str, model_dir: &str, n: usize, users: usize) -> anyhow::Result<()> {
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .connect(url)
        .await?;
    let store = Store::new(pool.clone());
    let embedder: Arc<dyn Embedder> = Arc::new(engram_embed::MiniLm::load(model_dir.as_ref())?);
    let (state, _usage) = engram_server::prepare(
        store.clone(),
        embedder,
        engram_api::ApiConfig {
            rate_limit: None,
            ..Default::default()
        },
        KEY,
        Arc::new(SystemClock),
    )
    .await?;
    let started = Instant::now();
    let year_ago = chrono::Utc::now() - chrono::Duration::days(365);
    let per_user = n / users;
    for chunk in (0..n).collect::<Vec<_>>().chunks(2000) {
        let items: Vec<(NewMemory, Vec<f32>)> = chunk
            .iter()
            .map(|&i| {
                let (user, k) = (i / per_user, i % per_user);
                let group = (i / 3) as u64; // three near-identical per group
                let mut v = vector(group);
                v[k % 384] += 0.01;
                let m = NewMemory {
                    scope: Scope {
                        user_id: Some(format!("user-{user}")),
                        agent_id: None,
                        session_id: None,
                    },
                    kind: MemoryKind::Semantic,
                    content: format!(
                        "user {user} said thing {k} about topic {} ({})",
                        group % 37,
                        k % 3
                    ),
                    importance: 0.5,
                    source: Source {
                        source_type: SourceType::UserStated,
                        source_ref: None,
                    },
                    metadata: json!({}),
                    pinned: false,
                    expires_at: None,
                    created_at: (k % 10 == 0).then_some(year_ago),
                };
                (m, v)
            })
            .collect();
        store
            .insert_memories(engram_core::DEFAULT_TENANT, &items, "bench")
            .await?;
    }
    sqlx::query("UPDATE memories SET last_used_at = created_at")
        .execute(&pool)
        .await?;
    sqlx::query("ANALYZE memories").execute(&pool).await?;
    println!(
        "seeded {n} memories across {users} users in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let base = scratch::serve_on_loopback(state).await?;
    let client = reqwest::Client::new();
    let mut idle = Vec::new();
    for i in 0..200 {
        idle.push(search_once(&client, &base, i, users).await?);
    }

    let consolidator = engram_worker::Consolidator {
        store: store.clone(),
        clock: Arc::new(SystemClock),
        settings: Default::default(),
        reviewer: None,
    };
    let t = Instant::now();
    let run = tokio::spawn(async move {
        consolidator
            .run(engram_worker::RunTarget::Everyone, false, "cli", None)
            .await
    });
    let mut busy = Vec::new();
    let mut i = 200;
    while !run.is_finished() {
        busy.push(search_once(&client, &base, i, users).await?);
        i += 1;
    }
    let report = run
        .await??
        .ok_or_else(|| anyhow::anyhow!("the lock was taken"))?;
    let wall = t.elapsed().as_secs_f64();
    idle.sort_by(f64::total_cmp);
    busy.sort_by(f64::total_cmp);
    let live: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM memories WHERE deleted_at IS NULL AND superseded_by IS NULL AND archived_at IS NULL",
    )
    .fetch_one(&pool)
    .await?;
    println!(
        "consolidation of {n} memories / {users} users: {wall:.1} s wall, {} users, counts {}, errors {}; live memories after: {live}",
        report.users_done, report.counts, report.errors
    );
    println!(
        "| search | requests | p50 ms | p95 ms |\n|---|---|---|---|\n| idle | {} | {:.2} | {:.2} |\n| during the run | {} | {:.2} | {:.2} |\n| ratio during / idle | | {:.2} | {:.2} |",
        idle.len(), percentile(&idle, 0.5), percentile(&idle, 0.95),
        busy.len(), percentile(&busy, 0.5), percentile(&busy, 0.95),
        percentile(&busy, 0.5) / percentile(&idle, 0.5), percentile(&busy, 0.95) / percentile(&idle, 0.95)
    );
    Ok(())
}
