//! Benchmark: `POST /v1/context` for a user with 10k memories and a
//! 2,000-token budget, beside a plain search of the same query in the same
//! run (the context call is a search plus the profile, the session and the
//! assembly, so the ratio shows what assembly costs).
//!
//!     make env && . .data/env
//!     cargo run --release -p engram-server --example context_bench [memories] [requests]
//!
//! A scratch database beside ENGRAM_TEST_DATABASE_URL's, the local MiniLM
//! embedder (every query embedded, no cache), served on a loopback port.
//! Memory vectors are random (search cost does not depend on their values:
//! within a user every distance is computed); 40 memories carry profile
//! attributes; the session has 30 turns. Requests alternate context and
//! search, so machine noise hits both alike.

use std::sync::Arc;
use std::time::Instant;

use engram_core::{Embedder, MemoryKind, NewMemory, Scope, Source, SourceType, SystemClock};
use engram_store::Store;
use serde_json::json;
use sqlx::postgres::PgPoolOptions;

#[path = "common/scratch.rs"]
mod scratch;

const KEY: &str = "bench-key";
const TOPICS: [&str; 10] = [
    "the garden",
    "a trip to Lisbon",
    "the Rust rewrite",
    "running shoes",
    "a sourdough recipe",
    "the quarterly budget",
    "piano lessons",
    "a new laptop",
    "the kids' school",
    "a cycling holiday",
];

fn memory(i: usize) -> NewMemory {
    NewMemory {
        scope: Scope {
            user_id: Some("bench-user".into()),
            agent_id: None,
            session_id: Some(format!("s{}", i / 50)),
        },
        kind: MemoryKind::Episodic,
        content: format!(
            "On day {} the user talked about {} and mentioned item {} with a friend from city {}.",
            i / 20,
            TOPICS[i % TOPICS.len()],
            i,
            i % 97
        ),
        importance: 0.5,
        source: Source {
            source_type: SourceType::UserStated,
            source_ref: None,
        },
        metadata: json!({}),
        pinned: false,
        expires_at: None,
        created_at: None,
    }
}

fn random_vector(seed: usize) -> Vec<f32> {
    let mut x = seed as u64 * 6364136223846793005 + 1442695040888963407;
    (0..384)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        })
        .collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
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
        .unwrap_or(10_000);
    let requests: usize = args.next().map(|s| s.parse()).transpose()?.unwrap_or(200);
    let scratch = scratch::Scratch::create("engram_context_bench").await?;
    let result = run(&scratch.url, &scratch.model_dir, n, requests).await;
    scratch.drop().await?;
    result
}

async fn run(url: &str, model_dir: &str, n: usize, requests: usize) -> anyhow::Result<()> {
    let pool = PgPoolOptions::new().max_connections(8).connect(url).await?;
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
    for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
        let items: Vec<(NewMemory, Vec<f32>)> = chunk
            .iter()
            .map(|&i| (memory(i), random_vector(i)))
            .collect();
        store
            .insert_memories(engram_core::DEFAULT_TENANT, &items, "bench")
            .await?;
    }
    // Profile facts: 40 attributes with a current value each.
    sqlx::query(
        "UPDATE memories m SET subject = 'user', attribute = 'fact.' || r.n, value = 'value ' || r.n,
                confidence = 0.9
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM memories ORDER BY id LIMIT 40) r
         WHERE m.id = r.id",
    )
    .execute(&pool)
    .await?;
    sqlx::query("ANALYZE memories").execute(&pool).await?;
    println!(
        "seeded {n} memories in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let base = scratch::serve_on_loopback(state).await?;
    let client = reqwest::Client::new();
    for t in 0..30 {
        let role = if t % 2 == 0 { "user" } else { "assistant" };
        client
            .post(format!("{base}/v1/sessions/bench-session/messages"))
            .bearer_auth(KEY)
            .json(&json!({"user_id": "bench-user", "infer": false, "messages": [
                {"role": role, "content": format!("Turn {t}: let us talk about {} and what to do next.", TOPICS[t % TOPICS.len()])}]}))
            .send()
            .await?
            .error_for_status()?;
    }

    let (mut context_ms, mut search_ms, mut tokens) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..requests {
        let query = format!(
            "What did I say about {} on day {}?",
            TOPICS[i % TOPICS.len()],
            i % 50
        );
        let t = Instant::now();
        let c: serde_json::Value = client
            .post(format!("{base}/v1/context"))
            .bearer_auth(KEY)
            .json(
                &json!({"user_id": "bench-user", "session_id": "bench-session",
                          "query": query, "token_budget": 2000}),
            )
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        context_ms.push(t.elapsed().as_secs_f64() * 1e3);
        tokens.push(c["tokens_used"].as_f64().unwrap_or(0.0));
        anyhow::ensure!(c["tokens_used"].as_u64() <= Some(2000), "over budget");
        // Another query text, so the search embeds too.
        let query = format!(
            "Tell me about {} from day {}",
            TOPICS[(i + 3) % TOPICS.len()],
            i % 50
        );
        let t = Instant::now();
        client
            .post(format!("{base}/v1/memories/search"))
            .bearer_auth(KEY)
            .json(&json!({"user_id": "bench-user", "query": query, "top_k": 10}))
            .send()
            .await?
            .error_for_status()?;
        search_ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    context_ms.sort_by(f64::total_cmp);
    search_ms.sort_by(f64::total_cmp);
    let (c50, c95) = (percentile(&context_ms, 0.5), percentile(&context_ms, 0.95));
    let (s50, s95) = (percentile(&search_ms, 0.5), percentile(&search_ms, 0.95));
    println!(
        "| call ({requests} requests, {n} memories) | p50 ms | p95 ms |\n|---|---|---|\n| POST /v1/context (budget 2000, profile 40, session 30 turns) | {c50:.2} | {c95:.2} |\n| POST /v1/memories/search (hybrid, top_k 10) | {s50:.2} | {s95:.2} |\n| ratio context / search | {:.2} | {:.2} |",
        c50 / s50,
        c95 / s95
    );
    println!(
        "context tokens used: mean {:.0} of 2000",
        tokens.iter().sum::<f64>() / tokens.len() as f64
    );
    Ok(())
}
