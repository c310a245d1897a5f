//! Benchmark: a bystander tenant's `wait` add while another tenant has a
//! burst of extraction jobs queued (issue 51's fair queue).
//!
//!     make env && . .data/env
//!     cargo run --release -p engram-server --example queue_bench [burst]
//!
//! One server on a scratch database, the rules extractor, one worker (the
//! default). First the bystander's `wait` adds on a quiet queue; then a burst
//! of `burst` (default 2,000) extraction jobs is queued for another tenant
//! and the same adds are timed again, side by side in one run. The burst's
//! messages are generated from templates of chat-length turns (the cost of a
//! job, not its content, is what matters here).

use std::time::{Duration, Instant};

use engram_core::extract::ExtractionRequest;
use engram_store::{NewJob, Store};
use sqlx::postgres::PgPoolOptions;

#[path = "common/scratch.rs"]
mod scratch;

const KEY: &str = "bench-key";
const ADDS: usize = 40;

const TURNS: &[&str] = &[
    "We spent the weekend at the lake with the kids, and I finally fixed the old canoe my dad left me. I live in Portland now, so it's a long drive, but worth it.",
    "Work has been hectic this month. I work at a small design studio and we are launching a new site for a bakery chain next week, so lots of late nights.",
    "I tried that pasta recipe you suggested, with less garlic because my partner hates it. I like cooking on Sundays; it's the one quiet evening we get.",
    "My sister is visiting from Madrid in June. I have a dog named Pixel who goes crazy whenever anyone new comes over, so that should be fun.",
];

fn burst_job(n: usize) -> NewJob<ExtractionRequest> {
    let text = format!("{} (note {n})", TURNS[n % TURNS.len()]);
    NewJob::extraction(
        &format!("busy-user-{}", n % 50),
        ExtractionRequest::user_said(&text),
    )
}

fn percentile(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

async fn bystander_adds(
    client: &reqwest::Client,
    base: &str,
    round: &str,
) -> anyhow::Result<Vec<f64>> {
    let mut took = Vec::new();
    for i in 0..ADDS {
        let body = serde_json::json!({
            "user_id": format!("calm-{round}-{i}"),
            "wait": true,
            "messages": [{"role": "user", "content": format!("I live in Oslo and I have a cat named Nr{i}.")}],
        });
        let t = Instant::now();
        let r: serde_json::Value = client
            .post(format!("{base}/v1/memories"))
            .bearer_auth(KEY)
            .json(&body)
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        took.push(t.elapsed().as_secs_f64() * 1000.0);
        anyhow::ensure!(
            r["status"] == "done",
            "the bystander's job was not done: {r}"
        );
    }
    Ok(took)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let burst: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(2000);
    let scratch = scratch::Scratch::create("engram_queue_bench").await?;
    let result = run(&scratch.url, &scratch.model_dir, burst).await;
    scratch.drop().await?;
    result
}

async fn run(url: &str, model_dir: &str, burst: usize) -> anyhow::Result<()> {
    let pool = PgPoolOptions::new().max_connections(8).connect(url).await?;
    let config = engram_api::ApiConfig {
        rate_limit: None,
        ..Default::default()
    };
    let (base, _) = scratch::serve_with_rules(&pool, model_dir, config, KEY).await?;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()?;
    let store = Store::new(pool.clone());

    let quiet = bystander_adds(&client, &base, "quiet").await?;

    let busy = store.ensure_tenant("busy").await?;
    let t = Instant::now();
    for n in 0..burst {
        store
            .enqueue_extraction(busy, &burst_job(n), &[], None, "bench")
            .await?;
    }
    println!(
        "queued a burst of {burst} jobs for another tenant in {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    let loaded = bystander_adds(&client, &base, "burst").await?;
    let during = t.elapsed().as_secs_f64();
    let left: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM jobs WHERE tenant_id = $1 AND status IN ('queued', 'running')",
    )
    .bind(busy)
    .fetch_one(&pool)
    .await?;
    let ran = burst as i64 - left;
    println!(
        "bystander wait add, {ADDS} sequential, ms: quiet p50 {:.1} p95 {:.1}; beside the burst p50 {:.1} p95 {:.1} (p95 ratio {:.2})",
        percentile(&quiet, 0.5),
        percentile(&quiet, 0.95),
        percentile(&loaded, 0.5),
        percentile(&loaded, 0.95),
        percentile(&loaded, 0.95) / percentile(&quiet, 0.95),
    );
    println!(
        "in those {during:.1} s the burst's tenant had {ran} jobs run and {left} still waiting",
    );
    Ok(())
}
