//! Context recall at a budget: for each question, the share of its evidence
//! turns whose text reaches the `/v1/context` block built for it, at each
//! token budget. What a chat app that injects the block actually gets.
//! `top_k` candidates (how many memories the block searches for) are
//! chosen per budget by leaving one conversation out, like every constant.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{json, Value};

use super::Question;

#[derive(Default, Clone, Copy)]
pub struct Recall {
    pub n: usize,
    pub share: f64,
    pub tokens: usize,
}

impl Recall {
    fn merge(&mut self, o: &Recall) {
        self.n += o.n;
        self.share += o.share;
        self.tokens += o.tokens;
    }

    fn rate(&self) -> f64 {
        self.share / self.n.max(1) as f64
    }
}

/// (top_k, 0 for the server's default; budget, conversation, category) →
/// recall; category 0 is all.
pub type ByBudget = BTreeMap<(usize, usize, String, u64), Recall>;

pub async fn measure(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    questions: &[Question],
    turns: &HashMap<(String, String), String>,
    budgets: &[usize],
    top_ks: &[usize],
) -> anyhow::Result<ByBudget> {
    let mut out = ByBudget::new();
    for q in questions {
        for &top_k in top_ks {
            for &budget in budgets {
                let mut req = json!({"user_id": q.user, "query": q.text,
                                     "token_budget": budget, "reference_time": q.asked_at});
                if top_k > 0 {
                    req["top_k"] = json!(top_k);
                }
                let r = client
                    .post(format!("{base}/v1/context"))
                    .bearer_auth(key)
                    .json(&req)
                    .send()
                    .await?;
                let status = r.status();
                let body: Value = r.json().await?;
                if !status.is_success() {
                    anyhow::bail!("context failed: {status} {body}");
                }
                let block = body["text"].as_str().unwrap_or("");
                // A turn is in the block when its text is, as the block
                // writes stored text (engram-context's `escape`).
                let found: HashSet<&String> = q
                    .evidence
                    .iter()
                    .filter(|e| {
                        turns
                            .get(&(q.user.clone(), (*e).clone()))
                            .is_some_and(|t| block.contains(&engram_context::block::escape(t)))
                    })
                    .collect();
                let share = found.len() as f64 / q.evidence.len() as f64;
                for cat in [0, q.category] {
                    let e = out.entry((top_k, budget, q.user.clone(), cat)).or_default();
                    e.n += 1;
                    e.share += share;
                    e.tokens += body["tokens_used"].as_u64().unwrap_or(0) as usize;
                }
            }
        }
    }
    Ok(out)
}

fn pooled(
    r: &ByBudget,
    top_k: usize,
    budget: usize,
    cat: u64,
    keep: impl Fn(&str) -> bool,
) -> Recall {
    let mut out = Recall::default();
    for ((k, b, conv, c), v) in r {
        if *k == top_k && *b == budget && *c == cat && keep(conv) {
            out.merge(v);
        }
    }
    out
}

pub fn print(recall: &ByBudget, budgets: &[usize], top_ks: &[usize]) {
    let cats: Vec<u64> = {
        let mut c: Vec<u64> = recall.keys().map(|k| k.3).collect();
        c.sort();
        c.dedup();
        c
    };
    let folds: Vec<String> = {
        let mut f: Vec<String> = recall.keys().map(|k| k.2.clone()).collect();
        f.sort();
        f.dedup();
        f
    };
    println!("\n| top_k / budget / category | questions | context recall | mean tokens used |\n|---|---|---|---|");
    for &k in top_ks {
        for &b in budgets {
            for &cat in &cats {
                let r = pooled(recall, k, b, cat, |_| true);
                let label = if cat == 0 {
                    "**all**".to_owned()
                } else {
                    format!("cat {cat}")
                };
                let k = if k == 0 {
                    "default".to_owned()
                } else {
                    k.to_string()
                };
                println!(
                    "| {k} / {b} / {label} | {} | {:.3} | {:.0} |",
                    r.n,
                    r.rate(),
                    r.tokens as f64 / r.n.max(1) as f64
                );
            }
        }
    }
    // Per budget: for each held-out conversation, the top_k with the best
    // recall on the other four; the held-out recalls pooled.
    println!("\n| budget / category | cross-validated context recall | top_k chosen per fold |\n|---|---|---|");
    for &b in budgets {
        let mut chosen = Vec::new();
        let mut held: BTreeMap<u64, Recall> = BTreeMap::new();
        for f in &folds {
            let best = top_ks
                .iter()
                .copied()
                .max_by(|x, y| {
                    let score = |k| pooled(recall, k, b, 0, |c| c != f).rate();
                    score(*x).total_cmp(&score(*y))
                })
                .unwrap_or(10);
            chosen.push(if best == 0 {
                "default".to_owned()
            } else {
                best.to_string()
            });
            for &cat in &cats {
                held.entry(cat)
                    .or_default()
                    .merge(&pooled(recall, best, b, cat, |c| c == f));
            }
        }
        for (cat, r) in &held {
            let label = if *cat == 0 {
                "**all**".to_owned()
            } else {
                format!("cat {cat}")
            };
            println!(
                "| {b} / {label} | {:.3} | {} |",
                r.rate(),
                chosen.join(", ")
            );
        }
    }
}
