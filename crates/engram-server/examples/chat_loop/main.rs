//! The chat loop as a benchmark (issue 50): real multi-session
//! conversations appended session by session through the sessions API, as
//! the README's chat loop does, with defaults everywhere; then each
//! question asked in a new conversation through `POST /v1/context` at
//! several budgets. Reported: the share of the question's evidence turns
//! whose words reach the block (split by who said them: the user, or the
//! assistant), whether the answer's words do, the tokens used, ingest
//! turns/s and context latency; per question category for each system.
//!
//!     make env && . .data/env
//!     cargo run --release -p engram-server --example chat_loop            # every system, both datasets
//!     EVAL_SYSTEMS=chat,verbatim EVAL_DATASETS=locomo cargo run … --example chat_loop
//!
//! Systems, each on a scratch database of its own with its own server:
//! - `chat-all`: the chat loop with the defaults (every turn kept as said,
//!   the assistant's with a lower prior);
//! - `chat`: the same with `ENGRAM_EPISODIC=user` (the user's turns only);
//! - `chat-facts`: the same with `ENGRAM_EPISODIC=off`: facts only, what
//!   the chat loop kept before the episodic layer;
//! - `verbatim`: the user's turns added as memories with `infer: false`;
//! - `verbatim-all`: every turn so;
//! - `fts`: Postgres `ts_rank` over every turn (`verbatim-all`'s rows), the
//!   best lines taken until the budget, in SQL, no Engram ranking.
//!
//! Speaker a is the user, b the assistant. `EVAL_BUDGETS` (250,500,1000),
//! `EVAL_DATASETS` (locomo,realtalk), `ENGRAM_SHARED_DIR` (../shared);
//! `EVAL_DUMP=FILE` writes each block with its question, to study misses;
//! `EVAL_TOP_K` asks the block for that many candidates; `EVAL_INFER=false`
//! appends without extraction (what was said only); `EVAL_NAMES=true` names
//! each message's speaker; `EVAL_ALLOW_SENSITIVE=true` appends with consent
//! to keep sensitive categories; `EVAL_NOISE=N` first adds N real ShareGPT
//! chats with an assistant to each user (their other conversations: long
//! assistant answers), to measure what keeping the assistant's turns costs;
//! `EVAL_WEIGHTS=r,t,i` the ranking's blend of relevance, recency, importance.

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Instant;

use anyhow::bail;
use engram_context::block::escape;
use engram_context::{Encoding, TokenCounter};
use serde_json::{json, Value};
use sqlx::postgres::PgPoolOptions;

mod data;
#[path = "../common/scratch.rs"]
mod scratch;

use data::{Conversation, Dataset};

const KEY: &str = "chat-loop-key";
/// What one request may carry (ENGRAM_MAX_MESSAGES, ENGRAM_MAX_ADD_CHARS).
const MAX_MESSAGES: usize = 100;
const MAX_CHARS: usize = 30_000;

/// A block's answer to one question at one budget.
#[derive(Default, Clone, Copy)]
struct Tally {
    questions: usize,
    /// Evidence turns reached / all, per question (averaged).
    recall: f64,
    /// The same over the user's and the assistant's evidence turns (each
    /// question that has some).
    user: (f64, usize),
    assistant: (f64, usize),
    answer: usize,
    tokens: usize,
}

impl Tally {
    fn rate(v: (f64, usize)) -> String {
        if v.1 == 0 {
            "–".into()
        } else {
            format!("{:.3}", v.0 / v.1 as f64)
        }
    }
}

/// (dataset, system, budget, category: 0 for all) → tally.
type Tallies = BTreeMap<(String, String, usize, u64), Tally>;

fn main() -> anyhow::Result<()> {
    engram_server::set_inference_threads();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(evaluate())
}

fn list(var: &str, default: &str) -> Vec<String> {
    std::env::var(var)
        .unwrap_or_else(|_| default.into())
        .split(',')
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

async fn evaluate() -> anyhow::Result<()> {
    let shared = std::env::var("ENGRAM_SHARED_DIR").unwrap_or_else(|_| "../shared".into());
    let wanted = list("EVAL_DATASETS", "locomo,realtalk");
    let mut datasets = Vec::new();
    if wanted.iter().any(|d| d == "locomo") {
        datasets.extend(data::locomo(&shared)?);
    }
    if wanted.iter().any(|d| d == "realtalk") {
        datasets.extend(data::realtalk(&shared)?);
    }
    if datasets.is_empty() {
        println!("no data under {shared}/data (it lives outside the repository); nothing to do");
        return Ok(());
    }
    let budgets: Vec<usize> = list("EVAL_BUDGETS", "250,500,1000")
        .iter()
        .filter_map(|b| b.parse().ok())
        .collect();
    let systems = list(
        "EVAL_SYSTEMS",
        "chat-facts,chat,chat-all,verbatim,verbatim-all,fts",
    );
    let mut dump = match std::env::var("EVAL_DUMP") {
        Ok(path) => Some(std::io::BufWriter::new(std::fs::File::create(path)?)),
        Err(_) => None,
    };
    let mut tallies = Tallies::new();
    let mut costs: Vec<String> = Vec::new();
    // fts reads verbatim-all's rows: run it there.
    let served: Vec<&String> = systems.iter().filter(|s| *s != "fts").collect();
    for system in served {
        let with_fts = system == "verbatim-all" && systems.iter().any(|s| s == "fts");
        let scratch =
            scratch::Scratch::create(&format!("engram_chat_loop_{}", system.replace('-', "_")))
                .await?;
        let result = run_system(
            system,
            &scratch,
            &datasets,
            &budgets,
            with_fts,
            &mut tallies,
            &mut costs,
            dump.as_mut(),
        )
        .await;
        scratch.drop().await?;
        result?;
    }
    print_tables(&datasets, &systems, &budgets, &tallies);
    println!("\n| system | cost |\n|---|---|");
    for c in costs {
        println!("{c}");
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
async fn run_system(
    system: &str,
    scratch: &scratch::Scratch,
    datasets: &[Dataset],
    budgets: &[usize],
    with_fts: bool,
    tallies: &mut Tallies,
    costs: &mut Vec<String>,
    mut dump: Option<&mut std::io::BufWriter<std::fs::File>>,
) -> anyhow::Result<()> {
    let pool = PgPoolOptions::new()
        .max_connections(8)
        .connect(&scratch.url)
        .await?;
    let mut config = engram_api::ApiConfig {
        rate_limit: None,
        ..Default::default()
    };
    config.episodic.keep = match system {
        "chat-all" => engram_core::said::KeepTurns::All,
        "chat-facts" => engram_core::said::KeepTurns::Off,
        _ => engram_core::said::KeepTurns::User,
    };
    // EVAL_WEIGHTS=relevance,recency,importance: the ranking's blend.
    if let Ok(w) = std::env::var("EVAL_WEIGHTS") {
        let w: Vec<f32> = w.split(',').filter_map(|x| x.parse().ok()).collect();
        if let [relevance, recency, importance] = w[..] {
            config.weights = engram_core::SearchWeights {
                relevance,
                recency,
                importance,
            };
        }
    }
    // EVAL_ASSISTANT_IMPORTANCE: the prior of the assistant's words.
    if let Some(w) = std::env::var("EVAL_ASSISTANT_IMPORTANCE")
        .ok()
        .and_then(|w| w.parse().ok())
    {
        config.episodic.assistant_importance = Some(w);
    }
    let (base, _) = scratch::serve_with_rules(&pool, &scratch.model_dir, config, KEY).await?;
    let client = reqwest::Client::new();

    // Ingest: EVAL_NOISE real ShareGPT chats of each user first (their
    // other conversations with an assistant), then the conversation.
    let noise_per_user: usize = std::env::var("EVAL_NOISE")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    let noise = if noise_per_user > 0 {
        data::sharegpt(&std::env::var("ENGRAM_SHARED_DIR").unwrap_or_else(|_| "../shared".into()))?
    } else {
        Vec::new()
    };
    let started = Instant::now();
    let mut turns = 0usize;
    let mut next_noise = 0;
    for d in datasets {
        for c in &d.conversations {
            for _ in 0..noise_per_user.min(noise.len()) {
                let chat = &noise[next_noise % noise.len()];
                next_noise += 1;
                turns +=
                    ingest_noise(&client, &base, system, &user_id(d, c), next_noise, chat).await?;
            }
            turns += ingest(&client, &base, system, d, c).await?;
        }
    }
    settle(&pool).await?;
    sqlx::query("ANALYZE memories").execute(&pool).await?;
    let ingest_s = started.elapsed().as_secs_f64();
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM memories WHERE deleted_at IS NULL")
        .fetch_one(&pool)
        .await?;
    let bytes: i64 = sqlx::query_scalar("SELECT pg_total_relation_size('memories')")
        .fetch_one(&pool)
        .await?;

    // Questions, each in a new conversation.
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut latencies: Vec<f64> = Vec::new();
    let mut fts_latencies: Vec<f64> = Vec::new();
    for d in datasets {
        for c in &d.conversations {
            let user = user_id(d, c);
            for q in &c.questions {
                for &budget in budgets {
                    let t = Instant::now();
                    let r = client
                        .post(format!("{base}/v1/context"))
                        .bearer_auth(KEY)
                        .json(&context_body(&user, &q.text, budget, c))
                        .send()
                        .await?;
                    let status = r.status();
                    let body: Value = r.json().await?;
                    latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                    if !status.is_success() {
                        bail!("context failed: {status} {body}");
                    }
                    let block = body["text"].as_str().unwrap_or("");
                    let tokens = body["tokens_used"].as_u64().unwrap_or(0) as usize;
                    score(tallies, d, system, budget, c, q, block, tokens);
                    if let Some(out) = dump.as_deref_mut() {
                        writeln!(
                            out,
                            "{}",
                            json!({"system": system, "dataset": d.name, "user": user,
                                   "question": q.text, "answer": q.answer, "category": q.category,
                                   "evidence": q.evidence, "budget": budget, "block": block})
                        )?;
                    }
                    if with_fts {
                        let t = Instant::now();
                        let block = fts_block(&pool, &counter, &user, &q.text, budget).await?;
                        fts_latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                        let tokens = counter.count(&block);
                        score(tallies, d, "fts", budget, c, q, &block, tokens);
                    }
                }
            }
        }
    }
    latencies.sort_by(f64::total_cmp);
    costs.push(format!(
        "| {system} | ingest {turns} turns in {ingest_s:.0} s ({:.1} turns/s), {rows} live memories, table {:.1} MiB; context p50 {:.1} ms, p95 {:.1} ms |",
        turns as f64 / ingest_s,
        bytes as f64 / 1_048_576.0,
        pct(&latencies, 0.5),
        pct(&latencies, 0.95)
    ));
    if with_fts {
        fts_latencies.sort_by(f64::total_cmp);
        costs.push(format!(
            "| fts | SQL p50 {:.1} ms, p95 {:.1} ms (no embedding) |",
            pct(&fts_latencies, 0.5),
            pct(&fts_latencies, 0.95)
        ));
    }
    Ok(())
}

/// A context request for a new conversation; EVAL_TOP_K sets its `top_k`.
fn context_body(user: &str, query: &str, budget: usize, c: &Conversation) -> Value {
    let mut body = json!({"user_id": user, "query": query, "token_budget": budget,
                          "reference_time": c.asked_at});
    if let Some(k) = std::env::var("EVAL_TOP_K")
        .ok()
        .and_then(|k| k.parse::<u64>().ok())
    {
        body["top_k"] = json!(k);
    }
    body
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn user_id(d: &Dataset, c: &Conversation) -> String {
    format!(
        "{}-{}",
        d.name
            .split_whitespace()
            .next()
            .unwrap_or("d")
            .to_lowercase(),
        c.id
    )
}

/// Sends one conversation to the server as `system` does; the turns sent.
async fn ingest(
    client: &reqwest::Client,
    base: &str,
    system: &str,
    d: &Dataset,
    c: &Conversation,
) -> anyhow::Result<usize> {
    let user = user_id(d, c);
    let mut sent = 0;
    for s in &c.sessions {
        let session = format!("{user}-s{}", s.n);
        let turns: Vec<&data::Turn> = s
            .turns
            .iter()
            .filter(|t| system.starts_with("chat") || system.ends_with("-all") || t.by_user)
            .collect();
        // Requests within the server's limits, in order.
        let mut batch: Vec<Value> = Vec::new();
        let mut chars = 0;
        let mut batches: Vec<Vec<Value>> = Vec::new();
        for t in turns {
            let role = if t.by_user || system.starts_with("verbatim") {
                "user"
            } else {
                "assistant"
            };
            let mut m = json!({"role": role, "content": t.text});
            if let Some(at) = t.at {
                m["created_at"] = json!(at);
            }
            // EVAL_NAMES=true: each message names its speaker (OpenAI's `name`).
            if std::env::var("EVAL_NAMES").is_ok_and(|v| v == "true") && !t.speaker.is_empty() {
                m["name"] = json!(t.speaker.split_whitespace().next().unwrap_or(""));
            }
            if batch.len() == MAX_MESSAGES || chars + t.text.len() > MAX_CHARS {
                batches.push(std::mem::take(&mut batch));
                chars = 0;
            }
            chars += t.text.len();
            batch.push(m);
            sent += 1;
        }
        batches.push(batch);
        for messages in batches.into_iter().filter(|b| !b.is_empty()) {
            let (path, body) = if system.starts_with("chat") {
                let mut body = json!({"user_id": user, "messages": messages});
                // EVAL_INFER=false: what was said only, no extraction.
                if std::env::var("EVAL_INFER").is_ok_and(|v| v == "false") {
                    body["infer"] = json!(false);
                }
                // EVAL_ALLOW_SENSITIVE=true: the app has the user's consent to
                // keep sensitive categories (health, orientation, ...).
                if std::env::var("EVAL_ALLOW_SENSITIVE").is_ok_and(|v| v == "true") {
                    body["allow_sensitive"] = json!(true);
                }
                (format!("{base}/v1/sessions/{session}/messages"), body)
            } else {
                // Verbatim: what the user said (or everyone, `-all`), one
                // memory per turn, no inference.
                let messages: Vec<Value> = messages
                    .into_iter()
                    .filter(|m| !m["content"].as_str().unwrap_or("").trim().is_empty())
                    .collect();
                if messages.is_empty() {
                    continue;
                }
                (
                    format!("{base}/v1/memories"),
                    json!({"user_id": user, "session_id": session, "infer": false,
                           "messages": messages}),
                )
            };
            post(client, path, &body, &format!("{system}: {user} {session}")).await?;
        }
    }
    Ok(sent)
}

/// One noise chat, as `system` sends turns (one request a turn pair,
/// long turns cut to what a request may carry).
async fn ingest_noise(
    client: &reqwest::Client,
    base: &str,
    system: &str,
    user: &str,
    n: usize,
    chat: &[(bool, String)],
) -> anyhow::Result<usize> {
    let session = format!("{user}-noise-{n}");
    let mut sent = 0;
    for pair in chat.chunks(2) {
        let messages: Vec<Value> = pair
            .iter()
            .filter(|(by_user, _)| {
                system.starts_with("chat") || system.ends_with("-all") || *by_user
            })
            .map(|(by_user, text)| {
                let role = if *by_user || system.starts_with("verbatim") {
                    "user"
                } else {
                    "assistant"
                };
                let text: String = text.chars().take(7_000).collect();
                json!({"role": role, "content": text, "created_at": "2022-01-01T00:00:00Z"})
            })
            .collect();
        if messages.is_empty() {
            continue;
        }
        sent += messages.len();
        let (path, body) = if system.starts_with("chat") {
            (
                format!("{base}/v1/sessions/{session}/messages"),
                json!({"user_id": user, "messages": messages}),
            )
        } else {
            (
                format!("{base}/v1/memories"),
                json!({"user_id": user, "session_id": session, "infer": false, "messages": messages}),
            )
        };
        post(client, path, &body, &format!("{system}: noise {session}")).await?;
    }
    Ok(sent)
}

/// Posts `body` to `path`. Real data is never refused: an append that is
/// fails the run, naming `what`.
async fn post(
    client: &reqwest::Client,
    path: String,
    body: &Value,
    what: &str,
) -> anyhow::Result<()> {
    let r = client.post(path).bearer_auth(KEY).json(body).send().await?;
    if !r.status().is_success() {
        let status = r.status();
        bail!("{what}: {status} {}", r.text().await?);
    }
    Ok(())
}

/// Waits until every job has ended.
async fn settle(pool: &sqlx::PgPool) -> anyhow::Result<()> {
    loop {
        let open: i64 =
            sqlx::query_scalar("SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')")
                .fetch_one(pool)
                .await?;
        if open == 0 {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// Text as the block writes it, for finding a turn in it: on one line,
/// tags and quotation marks as the block shows them.
fn normal(text: &str) -> String {
    escape(text)
        .chars()
        .map(|c| match c {
            '"' | '“' | '”' | '„' | '«' | '»' => '\'',
            c => c,
        })
        .collect()
}

/// Whether a turn's words reach the block: the whole turn, or (a long turn
/// is kept in pieces) one of its sentences of four words or more.
fn reached(block: &str, turn: &str) -> bool {
    let whole = normal(turn);
    if whole.trim().is_empty() {
        return false;
    }
    if block.contains(&whole) {
        return true;
    }
    engram_core::text::sentences(turn)
        .into_iter()
        .filter(|s| s.split_whitespace().count() >= 4)
        .any(|s| block.contains(&normal(s)))
}

/// Whether the answer's words are all in the block (case aside): a rough
/// second measure (a date said as "yesterday" is not found as "7 May").
fn answered(block: &str, answer: &str) -> bool {
    let block = block.to_lowercase();
    let words: Vec<String> = answer
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| {
            w.len() >= 3 && !["the", "and", "for", "with", "her", "his", "their"].contains(w)
        })
        .map(str::to_owned)
        .collect();
    !words.is_empty() && words.iter().all(|w| block.contains(w.as_str()))
}

#[allow(clippy::too_many_arguments)]
fn score(
    tallies: &mut Tallies,
    d: &Dataset,
    system: &str,
    budget: usize,
    c: &Conversation,
    q: &data::Question,
    block: &str,
    tokens: usize,
) {
    let block = normal(block);
    let evidence: Vec<(&String, Option<&data::Turn>)> =
        q.evidence.iter().map(|e| (e, c.turn(e))).collect();
    let hit = |t: &Option<&data::Turn>| t.is_some_and(|t| reached(&block, &t.text));
    let share = |keep: &dyn Fn(&data::Turn) -> bool| -> Option<f64> {
        let of: Vec<&Option<&data::Turn>> = evidence
            .iter()
            .map(|(_, t)| t)
            .filter(|t| t.is_some_and(keep))
            .collect();
        (!of.is_empty()).then(|| of.iter().filter(|t| hit(t)).count() as f64 / of.len() as f64)
    };
    let all = evidence.iter().filter(|(_, t)| hit(t)).count() as f64 / evidence.len().max(1) as f64;
    let user = share(&|t| t.by_user);
    let assistant = share(&|t| !t.by_user);
    let answer = answered(&block, &q.answer);
    for cat in [0, q.category] {
        let e = tallies
            .entry((d.name.into(), system.into(), budget, cat))
            .or_default();
        e.questions += 1;
        e.recall += all;
        if let Some(u) = user {
            e.user.0 += u;
            e.user.1 += 1;
        }
        if let Some(a) = assistant {
            e.assistant.0 += a;
            e.assistant.1 += 1;
        }
        e.answer += usize::from(answer);
        e.tokens += tokens;
    }
}

/// The FTS baseline's block: the user's turns ranked by `ts_rank` (the
/// question's words OR-ed), a line each, until the budget is spent.
async fn fts_block(
    pool: &sqlx::PgPool,
    counter: &TokenCounter,
    user: &str,
    question: &str,
    budget: usize,
) -> anyhow::Result<String> {
    let rows: Vec<(String, chrono::DateTime<chrono::Utc>)> = sqlx::query_as(
        "WITH q AS (
             SELECT to_tsquery('english', replace(plainto_tsquery('english', $2)::text, '&', '|')) AS q)
         SELECT m.content, m.created_at FROM memories m, q
         WHERE m.user_id = $1 AND m.deleted_at IS NULL AND m.content_tsv @@ q.q
         ORDER BY ts_rank(m.content_tsv, q.q) DESC, m.created_at, m.id
         LIMIT 200",
    )
    .bind(user)
    .bind(question)
    .fetch_all(pool)
    .await?;
    let mut block = String::from("<memory>");
    for (content, at) in rows {
        let line = format!("\n- {}: {}", at.format("%Y-%m-%d"), escape(&content));
        if counter.count(&format!("{block}{line}\n</memory>")) > budget {
            continue;
        }
        block.push_str(&line);
    }
    block.push_str("\n</memory>");
    Ok(block)
}

fn print_tables(datasets: &[Dataset], systems: &[String], budgets: &[usize], t: &Tallies) {
    for d in datasets {
        println!(
            "\n### {} ({} conversations, {} questions)\n",
            d.name,
            d.conversations.len(),
            d.conversations
                .iter()
                .map(|c| c.questions.len())
                .sum::<usize>()
        );
        println!("| system | budget | evidence reached | user's | assistant's | answer's words | tokens used |");
        println!("|---|---|---|---|---|---|---|");
        for s in systems {
            for &b in budgets {
                let Some(x) = t.get(&(d.name.into(), s.clone(), b, 0)) else {
                    continue;
                };
                let n = x.questions.max(1) as f64;
                println!(
                    "| {s} | {b} | {:.3} | {} | {} | {:.3} | {:.0} |",
                    x.recall / n,
                    Tally::rate(x.user),
                    Tally::rate(x.assistant),
                    x.answer as f64 / n,
                    x.tokens as f64 / n
                );
            }
        }
        let mut cats: Vec<u64> = t
            .keys()
            .filter(|k| k.0 == d.name && k.3 != 0)
            .map(|k| k.3)
            .collect();
        cats.sort_unstable();
        cats.dedup();
        println!(
            "\n| system / category | questions | {} |",
            budgets
                .iter()
                .map(|b| format!("reached at {b}"))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        println!("|---|---|{}", "---|".repeat(budgets.len()));
        for s in systems {
            for &cat in &cats {
                let cells: Vec<String> = budgets
                    .iter()
                    .map(|&b| {
                        t.get(&(d.name.into(), s.clone(), b, cat))
                            .map_or("–".into(), |x| {
                                format!("{:.3}", x.recall / x.questions.max(1) as f64)
                            })
                    })
                    .collect();
                let n = t
                    .get(&(d.name.into(), s.clone(), budgets[0], cat))
                    .map_or(0, |x| x.questions);
                println!("| {s} / {cat} | {n} | {} |", cells.join(" | "));
            }
        }
    }
}
