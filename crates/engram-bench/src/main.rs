//! engram-bench: loads N memories across U users into a scratch database,
//! starts the real `engram serve` binary on it (the one built beside this
//! tool), and measures over HTTP, side by side in one run:
//!
//! - start-up to ready, and the server's RSS with the model loaded;
//! - search within a user: client latency, the server's own embedding time
//!   (from its `Server-Timing` header) and so the latency without it, next
//!   to the same top-10 as one raw SQL statement on the same database;
//! - search throughput at each concurrency;
//! - context latency;
//! - add throughput (`infer: false`, one text per request and batches of
//!   10) against the local embedder's own throughput on the same texts.
//!
//! ```sh
//! make env && . .data/env
//! cargo build --release -p engram-server -p engram-bench
//! target/release/engram-bench --memories 100000 --users 1000
//! ```
//!
//! Memory vectors are precomputed for scale: MiniLM vectors of 200 varied
//! sentences, each memory one of them plus noise, so real queries find real
//! neighbours. Everything is dropped afterwards (`--keep-db` keeps the data).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::bail;
use clap::Parser;
use engram_bench::{noisy, post, run_on_database, run_on_scratch, start_server, Dist, Lcg};
use engram_core::Embedder;
use pgvector::{HalfVector, Vector};
use serde_json::{json, Value};
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

const TENANT: uuid::Uuid = engram_core::DEFAULT_TENANT;

#[derive(Parser, Debug)]
struct Args {
    /// Memories loaded for search.
    #[arg(long, default_value_t = 100_000)]
    memories: usize,
    /// Users they are spread over.
    #[arg(long, default_value_t = 1_000)]
    users: usize,
    /// One more user with this many memories (0: none).
    #[arg(long, default_value_t = 0)]
    big_user: usize,
    /// Searches measured one at a time (each also run as raw SQL).
    #[arg(long, default_value_t = 300)]
    searches: usize,
    /// Concurrencies for the search throughput runs.
    #[arg(long, value_delimiter = ',', default_value = "1,2,4")]
    concurrency: Vec<usize>,
    /// Seconds each throughput run lasts.
    #[arg(long, default_value_t = 8)]
    seconds: u64,
    /// Texts added through the API (and embedded by the bench for comparison).
    #[arg(long, default_value_t = 300)]
    adds: usize,
    /// Keep the scratch database afterwards.
    #[arg(long)]
    keep_db: bool,
    /// Run on this empty, prepared database instead of a scratch one, and
    /// leave it afterwards (`scripts/bench-citus.sh` passes a Citus
    /// coordinator's, and a plain database on the same server to compare).
    #[arg(long, env = "ENGRAM_BENCH_DATABASE_URL", hide_env_values = true)]
    database_url: Option<String>,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    match args.database_url.clone() {
        Some(url) => run_on_database(url, |url, model_dir| async move {
            bench(&args, &url, &model_dir).await
        }),
        None => run_on_scratch("engram_bench", args.keep_db, |url, model_dir| async move {
            bench(&args, &url, &model_dir).await
        }),
    }
}

/// Sentences memories are made of (and queries asked about).
fn sentences() -> Vec<String> {
    let subjects = [
        "prefers",
        "is learning",
        "works on",
        "asked about",
        "recommended",
        "is worried about",
        "booked",
        "bought",
        "cancelled",
        "wants to try",
    ];
    let objects = [
        "PostgreSQL for the analytics project",
        "a trip to Lisbon in May",
        "oat milk flat whites",
        "the Rust async book",
        "running a half marathon",
        "Japanese lessons on Tuesdays",
        "a standing desk for the home office",
        "the quarterly budget review",
        "vegetarian recipes for the week",
        "a birthday present for Ana",
        "moving the team to Kubernetes",
        "jazz concerts in the autumn",
        "a dentist appointment on Friday",
        "the new mechanical keyboard",
        "sleep tracking with a smart ring",
        "learning to sail this summer",
        "the migration to Python 3.12",
        "a pottery class downtown",
        "switching banks for lower fees",
        "the book club's next novel",
    ];
    subjects
        .iter()
        .flat_map(|s| objects.iter().map(move |o| format!("User {s} {o}")))
        .collect()
}

const QUESTIONS: &[&str] = &[
    "what database does the user like",
    "any travel plans coming up",
    "how does the user take their coffee",
    "what is the user reading about programming",
    "is the user training for a race",
    "which language lessons did they sign up for",
    "what office furniture did they want",
    "when is the budget meeting",
    "what does the user cook",
    "gift ideas for Ana",
    "infrastructure plans for the team",
    "music events they like",
    "upcoming medical appointments",
    "what keyboard did they get",
    "how do they track sleep",
    "summer hobbies",
    "python upgrade status",
    "craft classes nearby",
    "banking changes",
    "what is the book club reading",
];

/// Inserts `count` memories for the users `user(i)`, in batches; rows/s.
async fn load(
    pool: &PgPool,
    count: usize,
    user: impl Fn(usize) -> String,
    texts: &[String],
    vectors: &[Vec<f32>],
    seed: u64,
) -> anyhow::Result<f64> {
    let started = Instant::now();
    let mut rng = Lcg(seed);
    for chunk in (0..count).collect::<Vec<_>>().chunks(2_000) {
        let (mut ids, mut users, mut contents, mut embeddings, mut ages) =
            (vec![], vec![], vec![], vec![], vec![]);
        for &i in chunk {
            let k = rng.below(texts.len());
            ids.push(uuid::Uuid::now_v7());
            users.push(user(i));
            contents.push(format!("{} (note {seed}-{i})", texts[k]));
            embeddings.push(Vector::from(noisy(&vectors[k], &mut rng, 0.08)));
            ages.push((rng.uniform() + 0.5) as f64 * 365.0);
        }
        sqlx::query(
            "INSERT INTO memories (tenant_id, id, user_id, content, embedding, content_hash, created_at, updated_at)
             SELECT $1, id, user_id, content, embedding, md5(content),
                    now() - make_interval(secs => age * 86400), now() - make_interval(secs => age * 86400)
             FROM unnest($2::uuid[], $3::text[], $4::text[], $5::vector[], $6::float8[])
                  AS t(id, user_id, content, embedding, age)",
        )
        .bind(TENANT)
        .bind(&ids)
        .bind(&users)
        .bind(&contents)
        .bind(&embeddings)
        .bind(&ages)
        .execute(pool)
        .await?;
    }
    Ok(count as f64 / started.elapsed().as_secs_f64())
}

/// Exact top 10 by cosine at full precision: what a plain pgvector app runs.
const RAW_TOP_K: &str =
    "SELECT id, content, (1 - (embedding <=> $3))::float8 AS cosine FROM memories
     WHERE tenant_id = $1 AND user_id = $2 AND deleted_at IS NULL AND superseded_by IS NULL
       AND archived_at IS NULL AND (expires_at IS NULL OR expires_at > now())
     ORDER BY embedding <=> $3 LIMIT 10";

/// The same over the half-precision copy, as the server's search scans it.
const RAW_TOP_K_HALF: &str =
    "SELECT id, content, (1 - (embedding_half <=> $3))::float8 AS cosine FROM memories
     WHERE tenant_id = $1 AND user_id = $2 AND deleted_at IS NULL AND superseded_by IS NULL
       AND archived_at IS NULL AND (expires_at IS NULL OR expires_at > now())
     ORDER BY cosine DESC LIMIT 10";

async fn bench(args: &Args, url: &str, model_dir: &str) -> anyhow::Result<()> {
    println!(
        "engram-bench: {} memories across {} users{}, {} cores",
        args.memories,
        args.users,
        if args.big_user > 0 {
            format!(" + one user with {}", args.big_user)
        } else {
            String::new()
        },
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    let embedder = engram_embed::MiniLm::load(model_dir.as_ref())?;
    let texts = sentences();
    let vectors = embedder.embed(&texts).await?;

    let (server, ready_in) = start_server(url, model_dir).await?;
    let (rss_ready, _) = server.rss_mib();
    println!(
        "\nstart-up to ready: {:.2} s; RSS at ready {rss_ready:.0} MiB",
        ready_in.as_secs_f64()
    );

    let pool = PgPoolOptions::new().max_connections(4).connect(url).await?;
    let users = args.users.max(1);
    let rate = load(
        &pool,
        args.memories,
        |i| format!("user-{}", i % users),
        &texts,
        &vectors,
        1,
    )
    .await?;
    if args.big_user > 0 {
        load(&pool, args.big_user, |_| "big".into(), &texts, &vectors, 2).await?;
    }
    sqlx::query("VACUUM ANALYZE memories")
        .execute(&pool)
        .await?;
    println!("loaded at {rate:.0} rows/s (SQL, precomputed vectors)");

    let client = reqwest::Client::builder().tcp_nodelay(true).build()?;
    let search_url = format!("{}/v1/memories/search", server.base);
    let mut rng = Lcg(7);

    // One at a time: raw SQL, then the server in dense and hybrid modes, on
    // the same user and question (made unique, so the server's embedding
    // cache never answers).
    let targets: Vec<(String, &str)> = std::iter::once(("user-*".to_owned(), "per user"))
        .chain((args.big_user > 0).then(|| ("big".to_owned(), "big user")))
        .collect();
    // The floors under any difference between server and raw SQL: one
    // round trip to Postgres, one HTTP request that does no work.
    let (mut pg_trip, mut http_trip) = (vec![], vec![]);
    let health_url = format!("{}/healthz", server.base);
    for _ in 0..args.searches {
        let t = Instant::now();
        sqlx::query("SELECT 1").execute(&pool).await?;
        pg_trip.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        client.get(&health_url).send().await?.bytes().await?;
        http_trip.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!("\n### Round trips on this machine, one at a time, ms\n");
    println!("| what | n | p50 | p95 | p99 |\n|---|---|---|---|---|");
    println!(
        "{}",
        Dist(pg_trip).row("Postgres: `SELECT 1` on a pooled connection")
    );
    println!(
        "{}",
        Dist(http_trip).row("HTTP: `GET /healthz` (no work, no database)")
    );

    for (who, label) in targets {
        let (mut raw_full, mut raw, mut embed, mut first_ask) = (vec![], vec![], vec![], vec![]);
        let (mut same_top10, mut same_set, mut max_cosine_error) = (0usize, 0usize, 0f64);
        let (mut dense, mut dense_server, mut hybrid, mut hybrid_server) =
            (vec![], vec![], vec![], vec![]);
        for i in 0..args.searches {
            let user = if who == "big" {
                "big".to_owned()
            } else {
                format!("user-{}", rng.below(users))
            };
            let question = format!("{} {i} {label}", QUESTIONS[i % QUESTIONS.len()]);
            let vector = embedder
                .embed_queries(std::slice::from_ref(&question))
                .await?
                .remove(0);
            let mut top10 = vec![];
            for (sql, ms) in [(RAW_TOP_K, &mut raw_full), (RAW_TOP_K_HALF, &mut raw)] {
                let query = sqlx::query_as(sql).bind(TENANT).bind(&user);
                let query = if sql == RAW_TOP_K {
                    query.bind(Vector::from(vector.clone()))
                } else {
                    query.bind(HalfVector::from_f32_slice(&vector))
                };
                let t = Instant::now();
                let rows: Vec<(uuid::Uuid, String, f64)> = query.fetch_all(&pool).await?;
                ms.push(t.elapsed().as_secs_f64() * 1000.0);
                if rows.is_empty() {
                    bail!("no memories for {user}");
                }
                top10.push(rows);
            }
            let (full, half) = (&top10[0], &top10[1]);
            if full.iter().map(|r| r.0).eq(half.iter().map(|r| r.0)) {
                same_top10 += 1;
            }
            if full.iter().all(|f| half.iter().any(|h| h.0 == f.0)) {
                same_set += 1;
            }
            for (f, h) in full.iter().zip(half) {
                max_cosine_error = max_cosine_error.max((f.2 - h.2).abs());
            }
            // First ask: the server embeds the question (a cache miss).
            let first = post(
                &client,
                &search_url,
                &json!({"user_id": user, "query": question, "mode": "dense", "top_k": 10}),
            )
            .await?;
            embed.push(first.embed_ms);
            first_ask.push(first.client_ms - first.embed_ms);
            // Then the same question again: its vector is cached, so what is
            // measured is the search itself, with no embedding in it at all.
            for (mode, client_ms, server_ms) in [
                ("dense", &mut dense, &mut dense_server),
                ("hybrid", &mut hybrid, &mut hybrid_server),
            ] {
                let r = post(
                    &client,
                    &search_url,
                    &json!({"user_id": user, "query": question, "mode": mode, "top_k": 10}),
                )
                .await?;
                client_ms.push(r.client_ms - r.embed_ms);
                server_ms.push(r.server_ms - r.embed_ms);
            }
        }
        println!("\n### Search within a user ({label}), one at a time, ms\n");
        println!("| what | n | p50 | p95 | p99 |\n|---|---|---|---|---|");
        let raw = Dist(raw);
        let dense = Dist(dense);
        let hybrid = Dist(hybrid);
        for line in [
            Dist(raw_full).row("raw SQL: exact top-10 by cosine, full precision"),
            raw.row("raw SQL: the same over the half-precision copy (the server's scan)"),
            dense.row("server, dense, query vector cached (client-measured)"),
            Dist(dense_server).row("  of which inside the server"),
            hybrid.row("server, hybrid (default), query vector cached"),
            Dist(hybrid_server).row("  of which inside the server"),
            Dist(first_ask).row("server, dense, first ask: client time − reported embedding"),
            Dist(embed).row("query embedding (server's, reported)"),
        ] {
            println!("{line}");
        }
        println!(
            "\ndense − raw: p50 {:+.2} ms, p95 {:+.2} ms (ratio p50 {:.2}); hybrid − raw: p50 {:+.2}, p95 {:+.2}",
            dense.at(0.5) - raw.at(0.5),
            dense.at(0.95) - raw.at(0.95),
            dense.at(0.5) / raw.at(0.5),
            hybrid.at(0.5) - raw.at(0.5),
            hybrid.at(0.95) - raw.at(0.95),
        );
        println!(
            "half precision against full: the same top 10 in {same_set} of {} searches, \
             in the same order in {same_top10}; largest cosine difference {max_cosine_error:.1e}",
            args.searches
        );
    }

    // Throughput: C clients searching (hybrid, unique questions, so each
    // request embeds) for a fixed time.
    println!("\n### Search throughput (hybrid, query embedded every time)\n");
    println!("| concurrency | requests | errors | req/s | p50 ms | p95 ms | embedding p50 ms |\n|---|---|---|---|---|---|---|");
    for &c in &args.concurrency {
        let until = Instant::now() + Duration::from_secs(args.seconds);
        let started = Instant::now();
        let tasks = (0..c).map(|w| {
            let (client, url) = (client.clone(), search_url.clone());
            tokio::spawn(async move {
                let (mut lat, mut embed, mut errors, mut i) = (vec![], vec![], 0usize, 0usize);
                while Instant::now() < until {
                    let body = json!({"user_id": format!("user-{}", (w * 7919 + i * 31) % users),
                                      // Unique across runs: the server's cache must never answer.
                                      "query": format!("{} {c}-{w}-{i} throughput", QUESTIONS[i % QUESTIONS.len()])});
                    match post(&client, &url, &body).await {
                        Ok(r) => {
                            lat.push(r.client_ms);
                            embed.push(r.embed_ms);
                        }
                        Err(_) => errors += 1,
                    }
                    i += 1;
                }
                (lat, embed, errors)
            })
        });
        let (mut lat, mut embed, mut errors) = (vec![], vec![], 0);
        for t in futures::future::join_all(tasks).await {
            let (l, m, e) = t?;
            lat.extend(l);
            embed.extend(m);
            errors += e;
        }
        let secs = started.elapsed().as_secs_f64();
        let d = Dist(lat);
        println!(
            "| {c} | {} | {errors} | {:.1} | {:.2} | {:.2} | {:.2} |",
            d.0.len(),
            d.0.len() as f64 / secs,
            d.at(0.5),
            d.at(0.95),
            Dist(embed).at(0.5)
        );
    }

    // Context: one at a time.
    let context_url = format!("{}/v1/context", server.base);
    let (mut ctx, mut ctx_embed) = (vec![], vec![]);
    for i in 0..args.searches.min(200) {
        let r = post(
            &client,
            &context_url,
            &json!({"user_id": format!("user-{}", rng.below(users)),
                    "query": format!("{} {i} context", QUESTIONS[i % QUESTIONS.len()]),
                    "token_budget": 1000}),
        )
        .await?;
        ctx.push(r.client_ms - r.embed_ms);
        ctx_embed.push(r.embed_ms);
    }
    println!("\n### Context (token budget 1000), one at a time, ms\n");
    println!("| what | n | p50 | p95 | p99 |\n|---|---|---|---|---|");
    println!("{}", Dist(ctx).row("context, excl. embedding"));
    println!("{}", Dist(ctx_embed).row("query embedding"));

    // Adds: the embedder alone on the same texts, then the API.
    // Run `run` adds the texts of `add_text(run, i)`: unique per run, and
    // the same length in every run (the embedder's cost is by tokens).
    let add_text = |run: usize, i: usize| {
        format!(
            "{} and then note {run}{i:05} about it",
            texts[i % texts.len()]
        )
    };
    let add_texts: Vec<String> = (0..args.adds).map(|i| add_text(0, i)).collect();
    let t = Instant::now();
    for chunk in add_texts.chunks(10) {
        embedder.embed(chunk).await?;
    }
    let embedder_rate = add_texts.len() as f64 / t.elapsed().as_secs_f64();
    let add_url = format!("{}/v1/memories", server.base);
    println!("\n### Add (infer: false)\n");
    println!("| what | clients | texts | texts/s | server ms p50 | of it embedding p50 | of it the rest (database) p50 |\n|---|---|---|---|---|---|---|");
    println!(
        "| local embedder alone, batches of 10 | 1 | {} | {embedder_rate:.1} | | | |",
        add_texts.len()
    );
    let mut run = 0;
    for (label, per_request) in [("API, 1 text per request", 1), ("API, batches of 10", 10)] {
        for &c in &args.concurrency {
            run += 1;
            let add_texts: Arc<Vec<String>> =
                Arc::new((0..args.adds).map(|i| add_text(run, i)).collect());
            let next = Arc::new(AtomicUsize::new(0));
            let t = Instant::now();
            let tasks = (0..c).map(|_| {
                let (client, url, texts, next) =
                    (client.clone(), add_url.clone(), add_texts.clone(), next.clone());
                tokio::spawn(async move {
                    let mut timings = vec![];
                    loop {
                        let n = next.fetch_add(1, Ordering::Relaxed);
                        let Some(chunk) = texts.chunks(per_request).nth(n) else {
                            break;
                        };
                        let messages: Vec<Value> = chunk
                            .iter()
                            .map(|t| json!({"role": "user", "content": t}))
                            .collect();
                        let r = post(
                            &client,
                            &url,
                            &json!({"user_id": format!("adder-{}", n % 20), "infer": false, "messages": messages}),
                        )
                        .await?;
                        if r.body["results"].as_array().map_or(0, Vec::len) != chunk.len() {
                            bail!("add returned {}", r.body);
                        }
                        timings.push((r.server_ms, r.embed_ms));
                    }
                    anyhow::Ok(timings)
                })
            });
            let mut timings = vec![];
            for task in futures::future::join_all(tasks).await {
                timings.extend(task??);
            }
            let rate = add_texts.len() as f64 / t.elapsed().as_secs_f64();
            let dist = |f: fn(&(f64, f64)) -> f64| Dist(timings.iter().map(f).collect()).at(0.5);
            println!(
                "| {label} | {c} | {} | {rate:.1} ({:.0}% of the embedder's) | {:.2} | {:.2} | {:.2} |",
                add_texts.len(),
                100.0 * rate / embedder_rate,
                dist(|t| t.0),
                dist(|t| t.1),
                dist(|t| t.0 - t.1),
            );
        }
    }

    let (rss, peak) = server.rss_mib();
    println!("\nserver RSS after the run: {rss:.0} MiB (peak {peak:.0} MiB)");
    drop(server);
    Ok(())
}
