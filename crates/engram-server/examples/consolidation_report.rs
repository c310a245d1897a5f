//! A dry-run consolidation report on a realistic data set: the five LoCoMo
//! conversations (months of two people talking), as a chat app would store
//! them, then `POST /v1/admin/consolidate {dry_run: true, wait: true}`.
//!
//!     make env && . .data/env
//!     cargo run --release -p engram-server --example consolidation_report [FILE]
//!
//! Each speaker is a user. Every session is added twice for them, as a chat
//! app does: their own turns verbatim (`infer: false`, episodic memories) and
//! the whole session for extraction (`infer: true`, the built-in rules; the
//! other speaker's turns as the assistant's). Dates are shifted so that each
//! conversation's last session was yesterday, keeping the gaps between
//! sessions. The conversation's questions are then asked once as searches
//! (as the speaker they name), which marks what they retrieve as used. The
//! report prints the counts, examples of each operation with the texts, and
//! checks that the dry run changed nothing. FILE defaults to
//! ../shared/data/locomo/locomo-dev.json; without it the tool says so and
//! exits 0.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::{bail, Context};
use chrono::{Duration, Utc};
use serde_json::{json, Value};
use sqlx::postgres::PgPoolOptions;
use uuid::Uuid;

#[path = "common/locomo.rs"]
mod locomo;
#[path = "common/scratch.rs"]
mod scratch;

const KEY: &str = "report-key";
/// Examples printed per operation.
const EXAMPLES: usize = 4;

fn main() -> anyhow::Result<()> {
    engram_server::set_inference_threads();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(report())
}

async fn report() -> anyhow::Result<()> {
    let file = std::env::args()
        .nth(1)
        .unwrap_or_else(|| locomo::DEFAULT_FILE.into());
    let Ok(text) = std::fs::read(&file) else {
        println!("{file} is absent; no report (it lives in ../shared, outside the repository)");
        return Ok(());
    };
    let data: Vec<Value> = serde_json::from_slice(&text).context("a LoCoMo-format file")?;
    let scratch = scratch::Scratch::create("engram_consolidation_report").await?;
    let result = run(&scratch.url, &scratch.model_dir, &data).await;
    scratch.drop().await?;
    result
}

struct Api {
    client: reqwest::Client,
    base: String,
}

impl Api {
    async fn post(&self, path: &str, body: Value) -> anyhow::Result<Value> {
        let r = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(KEY)
            .json(&body)
            .send()
            .await?;
        let status = r.status();
        let body: Value = r.json().await?;
        if !status.is_success() {
            bail!("{path}: {status} {body}");
        }
        Ok(body)
    }
}

fn user_id(sample: &str, speaker: &str) -> String {
    format!("{sample}-{}", speaker.to_lowercase())
}

async fn run(url: &str, model_dir: &str, data: &[Value]) -> anyhow::Result<()> {
    let pool = PgPoolOptions::new().max_connections(4).connect(url).await?;
    let config = engram_api::ApiConfig {
        rate_limit: None,
        ..Default::default()
    };
    let (base, _) = scratch::serve_with_rules(&pool, model_dir, config, KEY).await?;
    let api = Api {
        client: reqwest::Client::new(),
        base,
    };

    let started = Instant::now();
    let yesterday = Utc::now() - Duration::days(1);
    let (mut turns, mut asked) = (0, 0);
    for sample in data {
        let id = sample["sample_id"].as_str().context("sample_id")?;
        let conv = &sample["conversation"];
        let speakers = [
            conv["speaker_a"].as_str().context("speaker_a")?,
            conv["speaker_b"].as_str().context("speaker_b")?,
        ];
        let sessions: Vec<(chrono::DateTime<Utc>, &Vec<Value>)> = (1..)
            .map_while(|n| {
                let turns = conv.get(format!("session_{n}"))?.as_array()?;
                let when = conv[format!("session_{n}_date_time")]
                    .as_str()
                    .and_then(locomo::session_time)?;
                Some((when, turns))
            })
            .collect();
        let last = sessions.last().context("a session")?.0;
        let shift = yesterday - last;
        for (when, session) in &sessions {
            for speaker in speakers {
                let user = user_id(id, speaker);
                let messages: Vec<Value> = session
                    .iter()
                    .enumerate()
                    .map(|(i, t)| {
                        let own = t["speaker"].as_str() == Some(speaker);
                        json!({"role": if own { "user" } else { "assistant" },
                               "content": t["text"].as_str().unwrap_or(""),
                               "created_at": *when + shift + Duration::seconds(i as i64 * 30)})
                    })
                    .collect();
                let own: Vec<Value> = messages
                    .iter()
                    .filter(|m| m["role"] == "user")
                    .cloned()
                    .collect();
                turns += own.len();
                api.post(
                    "/v1/memories",
                    json!({"user_id": user, "infer": false, "messages": own}),
                )
                .await?;
                api.post(
                    "/v1/memories",
                    json!({"user_id": user, "messages": messages}),
                )
                .await?;
            }
        }
        // The questions, once each, as the speaker they name.
        for qa in sample["qa"].as_array().context("qa")? {
            let question = qa["question"].as_str().unwrap_or("");
            let speaker = speakers
                .into_iter()
                .find(|s| question.contains(s))
                .unwrap_or(speakers[0]);
            api.post(
                "/v1/memories/search",
                json!({"user_id": user_id(id, speaker), "query": question}),
            )
            .await?;
            asked += 1;
        }
    }
    // Extraction runs in the background: wait for the queue to empty.
    loop {
        let pending: i64 =
            sqlx::query_scalar("SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')")
                .fetch_one(&pool)
                .await?;
        if pending == 0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    let kinds: Vec<(String, i64)> = sqlx::query_as(
        "SELECT kind, count(*) FROM memories WHERE deleted_at IS NULL AND superseded_by IS NULL
         GROUP BY kind ORDER BY kind",
    )
    .fetch_all(&pool)
    .await?;
    println!(
        "loaded {turns} turns of {} conversations, {asked} questions asked, in {:.0} s; live memories by kind: {kinds:?}",
        data.len(),
        started.elapsed().as_secs_f64(),
    );

    // What a dry run must leave alone: every row's state, importance and content.
    let fingerprint = || async {
        sqlx::query_scalar::<_, Option<String>>(
            "SELECT md5(string_agg(concat_ws('|', id, content, importance, superseded_by, archived_at,
                    deleted_at, access_count, base_importance), ',' ORDER BY id)) FROM memories",
        )
        .fetch_one(&pool)
        .await
    };
    // Searches record their use off the request path: wait until it settles.
    let mut before = fingerprint().await?;
    loop {
        tokio::time::sleep(std::time::Duration::from_secs(1)).await;
        let now = fingerprint().await?;
        if now == before {
            break;
        }
        before = now;
    }
    let t = Instant::now();
    let run = api
        .post(
            "/v1/admin/consolidate",
            json!({"dry_run": true, "wait": true}),
        )
        .await?;
    let wall = t.elapsed();
    let after = fingerprint().await?;
    println!(
        "\ndry run {} in {:.2} s: status {}, users {}, counts {}, errors {}; data unchanged: {}",
        run["id"],
        wall.as_secs_f64(),
        run["status"],
        run["users_done"],
        run["counts"],
        run["errors"],
        before == after
    );
    if before != after {
        bail!("the dry run changed the data");
    }
    print_examples(&pool, &run).await
}

/// Up to EXAMPLES operations of each kind, with the texts they concern.
async fn print_examples(pool: &sqlx::PgPool, run: &Value) -> anyhow::Result<()> {
    let mut by_kind: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    let mut largest_merge: Option<Value> = None;
    for user in run["planned"].as_array().into_iter().flatten() {
        for op in user["operations"].as_array().into_iter().flatten() {
            let mut op = op.clone();
            op["user_id"] = user["user_id"].clone();
            let kind = op["op"].as_str().unwrap_or("?").to_owned();
            if kind == "merge" {
                let size = |o: &Value| o["merged"].as_array().map_or(0, Vec::len);
                if largest_merge.as_ref().is_none_or(|l| size(&op) > size(l)) {
                    largest_merge = Some(op.clone());
                }
            }
            by_kind.entry(kind).or_default().push(op);
        }
    }
    let content = |id: &Value| {
        let id: Option<Uuid> = id.as_str().and_then(|s| s.parse().ok());
        async move {
            let row: Option<(String, chrono::DateTime<Utc>)> =
                sqlx::query_as("SELECT content, created_at FROM memories WHERE id = $1")
                    .bind(id)
                    .fetch_optional(pool)
                    .await?;
            anyhow::Ok(row.map_or_else(
                || "?".to_owned(),
                |(c, at)| format!("{:?} ({})", c, at.format("%Y-%m-%d")),
            ))
        }
    };
    for (kind, ops) in &by_kind {
        println!("\n## {kind}: {} planned", ops.len());
        if kind == "decay" {
            let mut to: Vec<f64> = ops.iter().filter_map(|o| o["to"].as_f64()).collect();
            to.sort_by(f64::total_cmp);
            let at = |p: f64| to[((to.len() - 1) as f64 * p).round() as usize];
            println!(
                "importance after decay: min {:.3}, p10 {:.3}, median {:.3}, max {:.3}",
                at(0.0),
                at(0.1),
                at(0.5),
                at(1.0)
            );
        }
        let mut shown: Vec<&Value> = ops.iter().take(EXAMPLES).collect();
        if kind == "merge" {
            if let Some(l) = &largest_merge {
                shown.insert(0, l);
                shown.truncate(EXAMPLES);
            }
        }
        for op in shown {
            match kind.as_str() {
                "merge" => {
                    println!(
                        "- {}: {} (importance {}, {} uses) from {} and {} others: {}",
                        op["user_id"],
                        op["content"],
                        op["importance"],
                        op["access_count"],
                        content(&op["canonical"]).await?,
                        op["merged"].as_array().map_or(0, Vec::len),
                        op["reason"]
                    );
                    for m in op["merged"].as_array().into_iter().flatten().take(3) {
                        println!("    - {}", content(m).await?);
                    }
                }
                "resolve" => println!(
                    "- {}: {} wins over {}: {}",
                    op["user_id"],
                    content(&op["winner"]).await?,
                    content(&op["loser"]).await?,
                    op["reason"]
                ),
                "decay" => println!(
                    "- {}: {} importance {} → {}",
                    op["user_id"],
                    content(&op["id"]).await?,
                    op["from"],
                    op["to"]
                ),
                "archive" => println!(
                    "- {}: {} at importance {}",
                    op["user_id"],
                    content(&op["id"]).await?,
                    op["importance"]
                ),
                "purge" => println!(
                    "- {}: {}: {}",
                    op["user_id"],
                    content(&op["id"]).await?,
                    op["reason"]
                ),
                _ => println!("- {op}"),
            }
        }
    }
    Ok(())
}
