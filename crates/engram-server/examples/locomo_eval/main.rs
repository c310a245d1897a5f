//! Retrieval evaluation on LoCoMo, through the HTTP API.
//!
//!     make env && . .data/env
//!     cargo run --release -p engram-server --example locomo_eval -- [FILE] [MODE ...]
//!
//! FILE defaults to ../shared/data/locomo/locomo-dev.json (skipped cleanly when
//! absent); MODEs default to `dense lexical hybrid` (`hybrid:0.3` sets the
//! lexical weight). A scratch database beside
//! ENGRAM_TEST_DATABASE_URL's is served on a loopback port with the local
//! MiniLM embedder. Each conversation becomes one user; each turn one memory
//! "<speaker>: <text>" added with `infer: false`, its session as
//! `session_id`, metadata `{"dia_id"}` and `created_at` from its session's
//! date. Every question of categories 1-4 is
//! asked within its conversation's user (top_k 10) in each mode, the modes
//! alternating question by question so machine noise hits them alike.
//! Reported: recall@1/5/10 and hit@10 of the evidence turns per category and
//! overall, and search latency p50/p95 as the client sees it (HTTP, query
//! embedding, SQL, ranking).
//!
//! Also, leaving one conversation out: every figure per conversation and
//! the mean of the folds; with EVAL_CV=a,b,c (or a;b;c) the cross-validated choice
//! among those modes (chosen on four conversations, scored on the fifth);
//! the mode `fts` is Postgres `ts_rank` over the same turns (a baseline);
//! and context recall at EVAL_BUDGETS (default 250,500,1000) tokens for the
//! block's EVAL_CONTEXT_TOP_K candidates (default: the server's default).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::time::Instant;

use anyhow::{bail, Context};
use chrono::Utc;
use serde_json::{json, Value};
use sqlx::postgres::PgPoolOptions;

mod context_recall;
mod folds;
mod fts;
#[path = "../common/locomo.rs"]
mod locomo;
#[path = "../common/scratch.rs"]
mod scratch;
mod staleness;

const KEY: &str = "eval-key";

#[derive(Default, Clone)]
struct Tally {
    n: usize,
    r1: f64,
    r5: f64,
    r10: f64,
    hit10: f64,
}

impl Tally {
    fn add(&mut self, evidence: &HashSet<String>, ranked: &[String]) {
        let recall = |k: usize| {
            let top: HashSet<&String> = ranked.iter().take(k).collect();
            evidence.iter().filter(|e| top.contains(e)).count() as f64 / evidence.len() as f64
        };
        self.n += 1;
        self.r1 += recall(1);
        self.r5 += recall(5);
        self.r10 += recall(10);
        self.hit10 += f64::from(u8::from(recall(10) > 0.0));
    }

    fn merge(&mut self, other: &Tally) {
        self.n += other.n;
        self.r1 += other.r1;
        self.r5 += other.r5;
        self.r10 += other.r10;
        self.hit10 += other.hit10;
    }

    /// R@1, R@5, R@10, hit@10 as shares.
    fn rates(&self) -> [f64; 4] {
        let n = self.n.max(1) as f64;
        [self.r1 / n, self.r5 / n, self.r10 / n, self.hit10 / n]
    }

    fn row(&self, label: &str) -> String {
        let n = self.n.max(1) as f64;
        format!(
            "| {label} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
            self.n,
            self.r1 / n,
            self.r5 / n,
            self.r10 / n,
            self.hit10 / n
        )
    }
}

struct Question {
    user: String,
    text: String,
    category: u64,
    evidence: HashSet<String>,
    asked_at: Option<chrono::DateTime<Utc>>,
}

/// `hybrid:0.3` asks hybrid with lexical_weight 0.3, `hybrid/off` with
/// `query_time: off`, `hybrid~0.6,0.3,0.2` with those signal weights (for
/// tuning). The reference time of every question is
/// the conversation's last session: questions are asked after it.
fn search_body(q: &Question, mode: &str) -> Value {
    // EVAL_TOP_K (default 10) asks for more, to study what lies below.
    let top_k: u64 = std::env::var("EVAL_TOP_K")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(10);
    let mut body = json!({"user_id": q.user, "query": q.text, "top_k": top_k,
                          "reference_time": q.asked_at});
    set_mode(&mut body, mode);
    body
}

fn set_mode(body: &mut Value, mode: &str) {
    // `hybrid~0.6,0.3,0.2`: the signal weights (neighbours, session, names);
    // `hybrid~0,0,0` is hybrid before them (the old default).
    let mode = match mode.split_once('~') {
        Some((m, w)) => {
            let w: Vec<f64> = w.split(',').filter_map(|x| x.parse().ok()).collect();
            if let [neighbours, session, names] = w[..] {
                body["signal_weights"] =
                    json!({"neighbours": neighbours, "session": session, "names": names});
            }
            m
        }
        None => mode,
    };
    let mode = match mode.split_once('/') {
        Some((m, time)) => {
            body["query_time"] = json!(time);
            m
        }
        None => mode,
    };
    match mode.split_once(':') {
        Some((m, w)) => {
            body["mode"] = json!(m);
            body["lexical_weight"] = json!(w.parse::<f64>().unwrap_or(0.5));
        }
        None => body["mode"] = json!(mode),
    }
}

/// One question asked through the API in `mode`: the dia_ids ranked, the
/// latency recorded, the answer dumped when asked.
async fn search<'a>(
    client: &reqwest::Client,
    base: &str,
    q: &Question,
    mode: &'a str,
    latencies: &mut BTreeMap<&'a str, Vec<f64>>,
    dump: Option<&mut std::io::BufWriter<std::fs::File>>,
) -> anyhow::Result<Vec<String>> {
    let t = Instant::now();
    let r = client
        .post(format!("{base}/v1/memories/search"))
        .bearer_auth(KEY)
        .json(&search_body(q, mode))
        .send()
        .await?;
    let status = r.status();
    let body: Value = r.json().await?;
    latencies
        .entry(mode)
        .or_default()
        .push(t.elapsed().as_secs_f64() * 1000.0);
    if !status.is_success() {
        bail!("search failed: {status} {body}");
    }
    let ranked: Vec<String> = body["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["metadata"]["dia_id"].as_str().map(str::to_owned))
        .collect();
    if let Some(out) = dump {
        let top: Vec<Value> = body["results"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|h| {
                json!([
                    h["metadata"]["dia_id"],
                    h["memory"],
                    h["scores"],
                    h["score"]
                ])
            })
            .collect();
        writeln!(
            out,
            "{}",
            json!({"mode": mode, "user": q.user, "question": q.text, "category": q.category,
                   "evidence": q.evidence, "top": top})
        )?;
    }
    Ok(ranked)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() -> anyhow::Result<()> {
    // The server's threading, so latencies are the server's.
    engram_server::set_inference_threads();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(evaluate())
}

async fn evaluate() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let file = args.next().unwrap_or_else(|| locomo::DEFAULT_FILE.into());
    let mut modes: Vec<String> = args.collect();
    if modes.is_empty() {
        modes = vec!["dense".into(), "lexical".into(), "hybrid".into()];
    }
    let Ok(text) = std::fs::read(&file) else {
        println!(
            "{file} is absent; nothing to evaluate (it lives in ../shared, outside the repository)"
        );
        return Ok(());
    };
    let data: Vec<Value> = serde_json::from_slice(&text).context("a LoCoMo-format file")?;
    let scratch = scratch::Scratch::create("engram_locomo_eval").await?;
    let result = run(&scratch.url, &scratch.model_dir, &data, &modes).await;
    scratch.drop().await?;
    result
}

async fn run(url: &str, model_dir: &str, data: &[Value], modes: &[String]) -> anyhow::Result<()> {
    let pool = PgPoolOptions::new().max_connections(8).connect(url).await?;
    let defaults = engram_api::ApiConfig::default();
    let config = engram_api::ApiConfig {
        rate_limit: None,
        // EVAL_TIME_WEIGHT tunes the server setting ENGRAM_TIME_WEIGHT.
        time_weight: match std::env::var("EVAL_TIME_WEIGHT") {
            Ok(w) => w.parse().context("EVAL_TIME_WEIGHT")?,
            Err(_) => defaults.time_weight,
        },
        ..defaults
    };
    // Extraction for the staleness scenarios: the built-in rules, no LLM.
    let (base, _) = scratch::serve_with_rules(&pool, model_dir, config, KEY).await?;
    let client = reqwest::Client::new();

    // Ingest: one memory per turn, through the API.
    let started = Instant::now();
    let mut turns = 0;
    let mut turn_texts: HashMap<(String, String), String> = HashMap::new();
    let mut questions = Vec::new();
    for sample in data {
        let user = sample["sample_id"]
            .as_str()
            .context("sample_id")?
            .to_owned();
        let conv = &sample["conversation"];
        let mut last_session = None;
        for n in 1.. {
            let Some(session) = conv.get(format!("session_{n}")).and_then(Value::as_array) else {
                break;
            };
            let when = conv[format!("session_{n}_date_time")]
                .as_str()
                .and_then(locomo::session_time);
            last_session = when.or(last_session);
            for turn in session {
                let content = format!(
                    "{}: {}",
                    turn["speaker"].as_str().unwrap_or(""),
                    turn["text"].as_str().unwrap_or("")
                );
                let mut message = json!({"role": "user", "content": content});
                if let Some(t) = when {
                    message["created_at"] = json!(t);
                }
                if let Some(id) = turn["dia_id"].as_str() {
                    turn_texts.insert((user.clone(), id.to_owned()), content.clone());
                }
                // Each LoCoMo session is one session, as a chat app sends it.
                let r = client
                    .post(format!("{base}/v1/memories"))
                    .bearer_auth(KEY)
                    .json(
                        &json!({"user_id": user, "session_id": format!("session_{n}"),
                                  "infer": false, "messages": [message],
                                  "metadata": {"dia_id": turn["dia_id"]}}),
                    )
                    .send()
                    .await?;
                if !r.status().is_success() {
                    bail!("add failed: {} {}", r.status(), r.text().await?);
                }
                turns += 1;
            }
        }
        for qa in sample["qa"].as_array().context("qa")? {
            let category = qa["category"].as_u64().unwrap_or(5);
            if !(1..=4).contains(&category) {
                continue;
            }
            let evidence: HashSet<String> = qa["evidence"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .flat_map(|e| e.split(';').map(|s| s.trim().to_owned()))
                .filter(|e| !e.is_empty())
                .collect();
            if evidence.is_empty() {
                continue;
            }
            questions.push(Question {
                asked_at: last_session,
                user: user.clone(),
                text: qa["question"].as_str().unwrap_or("").to_owned(),
                category,
                evidence,
            });
        }
    }
    // What autovacuum does shortly after a bulk load: planner statistics.
    sqlx::query("ANALYZE memories").execute(&pool).await?;
    println!(
        "ingested {turns} turns of {} conversations in {:.0} s; {} questions (categories 1-4)",
        data.len(),
        started.elapsed().as_secs_f64(),
        questions.len()
    );

    let mut tallies: BTreeMap<&str, BTreeMap<u64, Tally>> = BTreeMap::new();
    let mut by_fold: folds::ByFold = BTreeMap::new();
    let mut latencies: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    // EVAL_DUMP=FILE writes every answer as a JSON line, to study misses.
    let mut dump = match std::env::var("EVAL_DUMP") {
        Ok(path) => Some(std::io::BufWriter::new(std::fs::File::create(path)?)),
        Err(_) => None,
    };
    for q in &questions {
        for mode in modes {
            let t = Instant::now();
            let ranked = if mode == "fts" {
                let ranked = fts::search(&pool, &q.user, &q.text).await?;
                latencies
                    .entry(mode)
                    .or_default()
                    .push(t.elapsed().as_secs_f64() * 1000.0);
                ranked
            } else {
                search(&client, &base, q, mode, &mut latencies, dump.as_mut()).await?
            };
            for cat in [0, q.category] {
                tallies
                    .entry(mode)
                    .or_default()
                    .entry(cat)
                    .or_default()
                    .add(&q.evidence, &ranked);
                by_fold
                    .entry((mode, q.user.clone(), cat))
                    .or_default()
                    .add(&q.evidence, &ranked);
            }
        }
    }

    println!(
        "\n| mode / category | questions | R@1 | R@5 | R@10 | hit@10 |\n|---|---|---|---|---|---|"
    );
    for mode in modes {
        let by_cat = &tallies[mode.as_str()];
        for (cat, tally) in by_cat.iter().filter(|(c, _)| **c != 0) {
            println!("{}", tally.row(&format!("{mode} / cat {cat}")));
        }
        println!("{}", by_cat[&0].row(&format!("**{mode} / all**")));
    }
    folds::print_folds(&by_fold, modes);
    // EVAL_CV=a,b,c: choose among these modes per fold (leave one out).
    if let Ok(list) = std::env::var("EVAL_CV") {
        let candidates: Vec<&str> = modes
            .iter()
            .map(String::as_str)
            // `;` separates when the modes hold commas (`hybrid~0.6,0.3,0.2`).
            .filter(|m| {
                let sep = if list.contains(';') { ';' } else { ',' };
                list.split(sep).any(|c| c.trim() == *m)
            })
            .collect();
        let (chosen, held_out) = folds::cross_validate(&by_fold, &candidates);
        println!("\nCross-validated choice among {candidates:?} (best training R@10, then R@1):");
        for (fold, mode) in &chosen {
            println!("- held out {fold}: chose {mode}");
        }
        println!("\n| cross-validated / category | questions | R@1 | R@5 | R@10 | hit@10 |\n|---|---|---|---|---|---|");
        for (cat, t) in held_out.iter().filter(|(c, _)| **c != 0) {
            println!("{}", t.row(&format!("cv / cat {cat}")));
        }
        if let Some(t) = held_out.get(&0) {
            println!("{}", t.row("**cv / all**"));
        }
    }
    // EVAL_BUDGETS=250,500,1000 (the default); `none` skips.
    let budgets: Vec<usize> = std::env::var("EVAL_BUDGETS")
        .unwrap_or_else(|_| "250,500,1000".into())
        .split(',')
        .filter_map(|b| b.trim().parse().ok())
        .collect();
    // EVAL_CONTEXT_TOP_K=10,20,30: the block's top_k candidates; 0 (the
    // default) sends none, so the server's default applies.
    let top_ks: Vec<usize> = std::env::var("EVAL_CONTEXT_TOP_K")
        .unwrap_or_else(|_| "0".into())
        .split(',')
        .filter_map(|k| k.trim().parse().ok())
        .collect();
    if !budgets.is_empty() {
        let recall = context_recall::measure(
            &client,
            &base,
            KEY,
            &questions,
            &turn_texts,
            &budgets,
            &top_ks,
        )
        .await?;
        context_recall::print(&recall, &budgets, &top_ks);
    }
    let http_modes: Vec<String> = modes.iter().filter(|m| *m != "fts").cloned().collect();
    let modes_for_staleness = &http_modes;
    let stale = staleness::check(
        &client,
        &base,
        KEY,
        |user, query, mode| {
            let mut body = json!({"user_id": user, "query": query, "top_k": 10});
            set_mode(&mut body, mode);
            body
        },
        modes_for_staleness,
    )
    .await?;
    println!(
        "\n| mode | update scenarios | stale (old value returned) | current value first |\n|---|---|---|---|"
    );
    for (mode, s) in modes_for_staleness.iter().zip(&stale) {
        println!(
            "| {mode} | {} | {:.3} | {:.3} |",
            s.searches,
            s.stale as f64 / s.searches.max(1) as f64,
            s.current_first as f64 / s.searches.max(1) as f64
        );
    }

    println!("\n| mode | search p50 ms | p95 ms |\n|---|---|---|");
    for mode in modes {
        let mut l = latencies[mode.as_str()].clone();
        l.sort_by(|a, b| a.total_cmp(b));
        println!(
            "| {mode} | {:.2} | {:.2} |",
            percentile(&l, 0.5),
            percentile(&l, 0.95)
        );
    }
    Ok(())
}
