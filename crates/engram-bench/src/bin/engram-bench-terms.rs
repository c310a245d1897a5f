//! engram-bench-terms: what a search costs as its query grows, over a scope
//! of 5,000 memories, in a scope the planner has statistics for and in one
//! bulk-loaded after the last ANALYZE (issue 15, cases 3 and 4).
//!
//! ```sh
//! make env && . .data/env
//! cargo build --release -p engram-server -p engram-bench
//! target/release/engram-bench-terms            # --memories 5000 --queries 40
//! ```
//!
//! A scratch database with autovacuum off gets 200 background users (20
//! memories each) and the users `fresh` and `analysed` (N memories each).
//! `fresh` is measured first, while the table has never been analysed (as
//! after a bulk load into a new deployment: the planner has no statistics
//! at all), `analysed` after `ANALYZE`. Memories are sentences of a Zipf-distributed vocabulary, so query
//! terms range from very common to absent. The real `engram serve` answers
//! searches (hybrid, the default, and lexical) with 1, 8, 64 and 256-term
//! queries; latency is the server's own total from its `Server-Timing`
//! header minus its embedding time, so the query's embedding (which a
//! 4,000-character query makes dominant) is excluded. Beside it, the lexical
//! statement of the previous version (one column per term) runs as raw SQL
//! on the same data once per size, for the ratio.

use std::time::Instant;

use clap::Parser;
use engram_bench::{post, run_on_scratch, start_server, Dist, Lcg};
use pgvector::Vector;
use serde_json::json;
use sqlx::postgres::PgPoolOptions;
use sqlx::PgPool;

const TENANT: uuid::Uuid = engram_core::DEFAULT_TENANT;

#[derive(Parser, Debug)]
struct Args {
    /// Memories in each of the two measured scopes.
    #[arg(long, default_value_t = 5_000)]
    memories: usize,
    /// Distinct queries per size and mode (each asked twice: the first
    /// warms the server's embedding cache, the second is measured).
    #[arg(long, default_value_t = 40)]
    queries: usize,
    /// Queries per size for the previous version's statement (slow on the
    /// unanalysed scope: about 35 s each at 256 terms).
    #[arg(long, default_value_t = 3)]
    previous_queries: usize,
    /// Keep the scratch database afterwards.
    #[arg(long)]
    keep_db: bool,
}

const VOCABULARY: usize = 6_000;
const SIZES: [usize; 4] = [1, 8, 64, 256];

/// A pronounceable pseudo-word per rank (stemming leaves most as they are).
fn word(rank: usize) -> String {
    const SYL: [&str; 16] = [
        "ka", "lo", "mi", "ra", "te", "vu", "si", "no", "pe", "da", "gu", "ze", "fi", "bo", "ha",
        "ly",
    ];
    let mut w = String::from("q");
    let mut r = rank + 17;
    while r > 0 {
        w.push_str(SYL[r % 16]);
        r /= 16;
    }
    w.push('x');
    w
}

/// A rank drawn from a Zipf-like distribution (s ≈ 1) over the vocabulary.
fn zipf(rng: &mut Lcg) -> usize {
    let u = f64::from(rng.uniform() + 0.5).clamp(1e-9, 1.0);
    ((VOCABULARY as f64).powf(u) as usize).saturating_sub(1) % VOCABULARY
}

fn sentence(rng: &mut Lcg) -> String {
    let n = 8 + rng.below(12);
    (0..n)
        .map(|_| word(zipf(rng)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn unit_vector(rng: &mut Lcg) -> Vector {
    let v: Vec<f32> = (0..384).map(|_| rng.uniform()).collect();
    let n = v.iter().map(|a| a * a).sum::<f32>().sqrt().max(1e-6);
    Vector::from(v.into_iter().map(|a| a / n).collect::<Vec<_>>())
}

async fn load(pool: &PgPool, user: &str, count: usize, rng: &mut Lcg) -> anyhow::Result<()> {
    for start in (0..count).step_by(1_000) {
        let n = 1_000.min(count - start);
        let (mut ids, mut contents, mut vectors) = (vec![], vec![], vec![]);
        for _ in 0..n {
            ids.push(uuid::Uuid::now_v7());
            contents.push(sentence(rng));
            vectors.push(unit_vector(rng));
        }
        sqlx::query(
            "INSERT INTO memories (tenant_id, id, user_id, content, embedding, content_hash)
             SELECT $1, id, $2, content, embedding, md5(content)
             FROM unnest($3::uuid[], $4::text[], $5::vector[]) AS t(id, content, embedding)",
        )
        .bind(TENANT)
        .bind(user)
        .bind(&ids)
        .bind(&contents)
        .bind(&vectors)
        .execute(pool)
        .await?;
    }
    Ok(())
}

/// A query of `terms` distinct words: ranks spread over the vocabulary (so
/// common and rare alike), a tenth of them absent words.
fn query(terms: usize, rng: &mut Lcg) -> String {
    let mut seen = std::collections::HashSet::new();
    let mut words = Vec::new();
    while words.len() < terms {
        let w = if rng.below(10) == 0 {
            format!("zz{}absent", rng.below(1_000_000))
        } else {
            word(rng.below(VOCABULARY))
        };
        if seen.insert(w.clone()) {
            words.push(w);
        }
    }
    words.join(" ")
}

/// The previous version's lexical statement (one column per term, each
/// tested against every row), as raw SQL with the terms inlined.
fn old_lexical_sql(user: &str, terms: &[String]) -> String {
    let lit = |t: &str| format!("'{}'", t.replace('\'', "''"));
    let mut q = String::from("WITH scope AS MATERIALIZED (SELECT id, lexeme_count");
    for (i, t) in terms.iter().enumerate() {
        q += &format!(
            ", content_tsv @@ (SELECT quote_literal({}::text)::tsquery) AS h{i}",
            lit(t)
        );
    }
    q += &format!(
        " FROM memories WHERE tenant_id = '{TENANT}' AND user_id = {} AND deleted_at IS NULL
          AND archived_at IS NULL AND superseded_by IS NULL AND (expires_at IS NULL OR expires_at > now())),
          stats AS (SELECT count(*)::float8 AS n, greatest(avg(lexeme_count), 1)::float8 AS avgdl",
        lit(user)
    );
    for i in 0..terms.len() {
        q += &format!(", count(*) FILTER (WHERE h{i})::float8 AS df{i}");
    }
    q += " FROM scope), idf AS (SELECT avgdl";
    for i in 0..terms.len() {
        q += &format!(", ln(1 + (n - df{i} + 0.5) / (df{i} + 0.5)) AS idf{i}");
    }
    q += " FROM stats) SELECT id, ((0";
    for i in 0..terms.len() {
        q += &format!(" + CASE WHEN h{i} THEN idf{i} ELSE 0 END");
    }
    q += ") * 2.2 / (1 + 1.2 * (0.25 + 0.75 * lexeme_count / avgdl)))::float8 AS bm25 FROM scope CROSS JOIN idf WHERE false";
    for i in 0..terms.len() {
        q += &format!(" OR h{i}");
    }
    q + " ORDER BY bm25 DESC, id LIMIT 50"
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    run_on_scratch(
        "engram_bench_terms",
        args.keep_db,
        |url, model_dir| async move { bench(&args, &url, &model_dir).await },
    )
}

async fn bench(args: &Args, url: &str, model_dir: &str) -> anyhow::Result<()> {
    let (server, _) = start_server(url, model_dir).await?;
    let pool = PgPoolOptions::new().max_connections(2).connect(url).await?;
    let mut rng = Lcg(11);
    // Phase 1: the table has never been analysed (autovacuum off from the
    // start), as after a bulk load into a new deployment; `fresh` is
    // measured. Phase 2: after ANALYZE, `analysed` (the same size) is.
    sqlx::query("ALTER TABLE memories SET (autovacuum_enabled = false)")
        .execute(&pool)
        .await?;
    for u in 0..200 {
        load(&pool, &format!("bg-{u}"), 20, &mut rng).await?;
    }
    load(&pool, "fresh", args.memories, &mut rng).await?;
    load(&pool, "analysed", args.memories, &mut rng).await?;
    let plan: Vec<String> = sqlx::query_scalar(
        "EXPLAIN SELECT id FROM memories WHERE tenant_id = $1 AND user_id = 'fresh' AND deleted_at IS NULL",
    )
    .bind(TENANT)
    .fetch_all(&pool)
    .await?;
    println!(
        "engram-bench-terms: {} memories in each scope (+4,000 background), {} queries per size; \
         before ANALYZE the planner's plan for `fresh`: {}",
        args.memories,
        args.queries,
        plan.first().map(String::as_str).unwrap_or("?")
    );
    let client = reqwest::Client::builder().tcp_nodelay(true).build()?;
    let search = format!("{}/v1/memories/search", server.base);
    let store = engram_store::Store::new(pool.clone());
    let mut qrng = Lcg(5);
    let mut api_rows = Vec::new();
    let mut sql_rows = Vec::new();
    for user in ["fresh", "analysed"] {
        if user == "analysed" {
            sqlx::query("ANALYZE memories").execute(&pool).await?;
        }
        for mode in ["hybrid", "lexical"] {
            for terms in SIZES {
                let mut times = Vec::new();
                for _ in 0..args.queries {
                    let q = query(terms, &mut qrng);
                    let body = json!({"user_id": user, "query": q, "mode": mode, "top_k": 10});
                    // The first ask embeds the query (cached afterwards).
                    post(&client, &search, &body).await?;
                    let t = post(&client, &search, &body).await?;
                    times.push(t.server_ms - t.embed_ms.max(0.0));
                }
                let d = Dist(times);
                api_rows.push(format!(
                    "| {user} | {mode} | {terms} | {} | {:.2} | {:.2} | {:.2} |",
                    d.0.len(),
                    d.at(0.5),
                    d.at(0.95),
                    d.at(0.99)
                ));
            }
        }
        let filter = engram_core::MemoryFilter {
            scope: engram_core::Scope {
                user_id: Some(user.into()),
                agent_id: None,
                session_id: None,
            },
            ..Default::default()
        };
        let mut conn = pool.acquire().await?;
        sqlx::query("SET statement_timeout = '120s'")
            .execute(&mut *conn)
            .await?;
        for terms in SIZES {
            let (mut this, mut previous) = (Vec::new(), Vec::new());
            for i in 0..args.queries {
                let q = query(terms, &mut qrng);
                let exact = engram_core::exact_terms(&q);
                let started = Instant::now();
                store
                    .lexical_scores(TENANT, &filter, &q, &exact, 50, 32)
                    .await?;
                this.push(started.elapsed().as_secs_f64() * 1000.0);
                if i < args.previous_queries {
                    let lexemes: Vec<String> = sqlx::query_scalar(
                        "SELECT lexeme FROM unnest(to_tsvector('english', $1)) ORDER BY 1 LIMIT 256",
                    )
                    .bind(&q)
                    .fetch_all(&mut *conn)
                    .await?;
                    let sql = old_lexical_sql(user, &lexemes);
                    let started = Instant::now();
                    let done = sqlx::query(&sql).fetch_all(&mut *conn).await;
                    let ms = started.elapsed().as_secs_f64() * 1000.0;
                    // A statement stopped by the timeout counts as its time.
                    if let Err(e) = done {
                        eprintln!("previous version, {user}, {terms} terms: {e}");
                    }
                    previous.push(ms);
                }
            }
            let (a, b) = (Dist(this).at(0.5), Dist(previous).at(0.5));
            sql_rows.push(format!(
                "| {user} | {terms} | {a:.2} | {b:.2} | {:.1}× |",
                b / a
            ));
        }
    }
    println!("\nServer time excluding embedding (Server-Timing total − embed), ms:\n");
    println!("| scope | mode | terms | n | p50 | p95 | p99 |");
    println!("|---|---|---|---|---|---|---|");
    for r in api_rows {
        println!("{r}");
    }
    println!(
        "\nThe lexical statement alone on the same scopes: this version's (Store::lexical_scores, \
         as the server runs it) and the previous version's (raw SQL, one column per term), \
         {} queries per size (previous: {}), p50 ms:\n",
        args.queries, args.previous_queries
    );
    println!("| scope | terms | this version | previous version | previous / this |");
    println!("|---|---|---|---|---|");
    for r in sql_rows {
        println!("{r}");
    }
    drop(server);
    Ok(())
}
