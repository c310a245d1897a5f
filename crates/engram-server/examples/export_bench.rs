//! Benchmark: exporting (and importing) one user with 10k memories.
//!
//!     make env && . .data/env
//!     cargo run --release -p engram-server --example export_bench [memories]
//!
//! Creates a scratch database beside ENGRAM_TEST_DATABASE_URL's, fills it with
//! the user's memories (each with an ADD history row) and as many of another
//! user's, serves it on a loopback port, and measures, alternating runs so
//! machine noise hits both alike: the streamed export, and the same memories
//! read as ordinary 1000-row list pages. Then `engram import` of the export
//! into a second tenant, which re-embeds every memory with MiniLM, and the
//! erasure of the user. Vectors are
//! random: the export never carries them.

use std::sync::Arc;
use std::time::{Duration, Instant};

use engram_core::{Embedder, MemoryKind, NewMemory, Scope, Source, SourceType, SystemClock};
use engram_store::Store;
use sqlx::postgres::PgPoolOptions;

#[path = "common/scratch.rs"]
mod scratch;

const KEY: &str = "bench-key";

fn memory(user: &str, i: usize) -> NewMemory {
    NewMemory {
        scope: Scope {
            user_id: Some(user.into()),
            agent_id: None,
            session_id: Some(format!("s{}", i / 50)),
        },
        kind: MemoryKind::Episodic,
        content: format!(
            "Memory {i} of {user}: on day {} we talked about the garden, the {} project and a trip to city {}.",
            i / 20,
            ["alpha", "beta", "gamma", "delta"][i % 4],
            i % 97
        ),
        importance: 0.5,
        source: Source { source_type: SourceType::Api, source_ref: Some(format!("conv-{}", i / 100)) },
        metadata: serde_json::json!({"n": i}),
        pinned: false,
        expires_at: None,
        created_at: None,
    }
}

fn random_vector(seed: usize) -> Vec<f32> {
    // A cheap deterministic spread; the export never reads it.
    (0..384)
        .map(|d| (((seed * 31 + d * 17) % 1000) as f32 / 1000.0) - 0.5)
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let n: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(10_000);
    let scratch = scratch::Scratch::create("engram_export_bench").await?;
    let result = run(&scratch.url, &scratch.model_dir, n).await;
    scratch.drop().await?;
    result
}

async fn run(url: &str, model_dir: &str, n: usize) -> anyhow::Result<()> {
    let pool = PgPoolOptions::new().max_connections(8).connect(url).await?;
    let store = Store::new(pool);
    let embedder: Arc<dyn Embedder> = Arc::new(engram_embed::MiniLm::load(model_dir.as_ref())?);
    let (state, _usage) = engram_server::prepare(
        store.clone(),
        embedder.clone(),
        engram_api::ApiConfig::default(),
        KEY,
        Arc::new(SystemClock),
    )
    .await?;

    let started = Instant::now();
    for user in ["bench-user", "someone-else"] {
        for chunk in (0..n).collect::<Vec<_>>().chunks(1000) {
            let items: Vec<(NewMemory, Vec<f32>)> = chunk
                .iter()
                .map(|&i| (memory(user, i), random_vector(i)))
                .collect();
            store
                .insert_memories(engram_core::DEFAULT_TENANT, &items, "bench")
                .await?;
        }
    }
    println!(
        "seeded 2 x {n} memories in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    let base = scratch::serve_on_loopback(state).await?;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(300))
        .build()?;

    let (mut export_s, mut first_byte_ms, mut list_s) = (Vec::new(), Vec::new(), Vec::new());
    let mut export = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut resp = client
            .get(format!("{base}/v1/admin/users/bench-user/export"))
            .bearer_auth(KEY)
            .send()
            .await?
            .error_for_status()?;
        first_byte_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await? {
            body.extend_from_slice(&chunk);
        }
        export_s.push(t.elapsed().as_secs_f64());
        export = body;

        let t = Instant::now();
        let mut cursor: Option<String> = None;
        let mut seen = 0;
        loop {
            let mut url = format!("{base}/v1/memories?user_id=bench-user&limit=1000");
            if let Some(c) = &cursor {
                url.push_str(&format!("&cursor={c}"));
            }
            let page: serde_json::Value = client
                .get(url)
                .bearer_auth(KEY)
                .send()
                .await?
                .error_for_status()?
                .json()
                .await?;
            seen += page["results"].as_array().map_or(0, Vec::len);
            match page["next_cursor"].as_str() {
                Some(c) => cursor = Some(c.to_owned()),
                None => break,
            }
        }
        anyhow::ensure!(seen == n, "listed {seen} of {n}");
        list_s.push(t.elapsed().as_secs_f64());
    }
    let doc: serde_json::Value = serde_json::from_slice(&export)?;
    anyhow::ensure!(
        doc["memories"].as_array().map_or(0, Vec::len) == n,
        "exported all memories"
    );
    let (e, l) = (median(export_s.clone()), median(list_s.clone()));
    println!(
        "export of {n} memories (with history): {:.0} KiB, median {:.2} s over 5 runs (runs: {}), first byte median {:.0} ms",
        export.len() as f64 / 1024.0,
        e,
        export_s.iter().map(|s| format!("{s:.2}")).collect::<Vec<_>>().join(", "),
        median(first_byte_ms)
    );
    println!(
        "the same memories as 1000-row list pages: median {:.2} s (runs: {}); export / list = {:.2}",
        l,
        list_s.iter().map(|s| format!("{s:.2}")).collect::<Vec<_>>().join(", "),
        e / l
    );

    let file =
        std::env::temp_dir().join(format!("engram-bench-export-{}.json", std::process::id()));
    std::fs::write(&file, &export)?;
    let t = Instant::now();
    let counts = engram_server::cli::import(&store, embedder, &file, Some("bench-import")).await?;
    println!(
        "engram import into another tenant (MiniLM re-embeds {} memories): {:.1} s, counts {}",
        counts["memories"],
        t.elapsed().as_secs_f64(),
        serde_json::to_string(&counts)?
    );
    std::fs::remove_file(&file).ok();

    let t = Instant::now();
    let receipt: serde_json::Value = client
        .delete(format!("{base}/v1/admin/users/bench-user"))
        .bearer_auth(KEY)
        .send()
        .await?
        .error_for_status()?
        .json()
        .await?;
    println!(
        "erasure of the user (one transaction): {:.2} s, counts {}",
        t.elapsed().as_secs_f64(),
        receipt["counts"]
    );
    Ok(())
}
