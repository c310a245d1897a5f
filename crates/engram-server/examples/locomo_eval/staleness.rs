//! The staleness check: does search still return a value after it was
//! replaced? Each scenario is its own user: a fact, then its replacement,
//! both through `infer: true` (extraction decides the update), then a
//! question about it in each mode. Stale = the old value appears anywhere in
//! the results; current = the new value is the first result.

use anyhow::bail;
use serde_json::{json, Value};

/// A fact, its replacement and the question about it; `{a}` and `{b}` take
/// the old and the new value of each pair.
struct Template {
    first: &'static str,
    then: &'static str,
    question: &'static str,
    pairs: &'static [(&'static str, &'static str)],
}

const TEMPLATES: &[Template] = &[
    Template {
        first: "I live in {a}.",
        then: "I just moved to {b}.",
        question: "Where do I live?",
        pairs: &[
            ("Boston", "Denver"),
            ("Lisbon", "Porto"),
            ("Osaka", "Kyoto"),
            ("Leeds", "Glasgow"),
            ("Austin", "Seattle"),
            ("Munich", "Hamburg"),
        ],
    },
    Template {
        first: "I work at {a}.",
        then: "I joined {b}.",
        question: "Where do I work?",
        pairs: &[
            ("Netflix", "Spotify"),
            ("Siemens", "Bosch"),
            ("Oracle", "Stripe"),
            ("Airbus", "Boeing"),
            ("Deloitte", "Accenture"),
            ("Shopify", "Atlassian"),
        ],
    },
    Template {
        first: "My favorite color is {a}.",
        then: "My favorite color is {b} now.",
        question: "What is my favorite color?",
        pairs: &[
            ("green", "purple"),
            ("blue", "orange"),
            ("red", "teal"),
            ("yellow", "black"),
            ("pink", "grey"),
            ("white", "navy"),
        ],
    },
    Template {
        first: "I am {a} years old.",
        then: "I'm {b} years old.",
        question: "How old am I?",
        pairs: &[
            ("29", "30"),
            ("41", "42"),
            ("18", "19"),
            ("35", "36"),
            ("63", "64"),
            ("50", "51"),
        ],
    },
    Template {
        first: "My dog's name is {a}.",
        then: "My dog is called {b}.",
        question: "What is my dog's name?",
        pairs: &[
            ("Rex", "Bruno"),
            ("Luna", "Daisy"),
            ("Max", "Toby"),
            ("Bella", "Coco"),
            ("Rocky", "Milo"),
            ("Nala", "Ziggy"),
        ],
    },
    Template {
        first: "My favorite food is {a}.",
        then: "My favorite food is {b}.",
        question: "What is my favorite food?",
        pairs: &[
            ("sushi", "ramen"),
            ("pizza", "tacos"),
            ("lasagna", "curry"),
            ("paella", "dumplings"),
            ("falafel", "risotto"),
            ("pierogi", "goulash"),
        ],
    },
];

#[derive(Default)]
pub struct Staleness {
    pub searches: usize,
    pub stale: usize,
    pub current_first: usize,
}

fn mentions(text: &str, value: &str) -> bool {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| w == value.to_lowercase())
}

async fn add(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    user: &str,
    text: &str,
) -> anyhow::Result<()> {
    let r = client
        .post(format!("{base}/v1/memories"))
        .bearer_auth(key)
        .json(&json!({"user_id": user, "infer": true, "wait": true,
                      "messages": [{"role": "user", "content": text}]}))
        .send()
        .await?;
    let status = r.status();
    let body: Value = r.json().await?;
    if status != reqwest::StatusCode::OK || body["status"] != "done" {
        bail!("extraction of {text:?} did not finish: {status} {body}");
    }
    Ok(())
}

/// Runs every scenario; one tally per mode.
pub async fn check(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    body_for: impl Fn(&str, &str, &str) -> Value,
    modes: &[String],
) -> anyhow::Result<Vec<Staleness>> {
    let mut tallies: Vec<Staleness> = modes.iter().map(|_| Staleness::default()).collect();
    let mut n = 0;
    for t in TEMPLATES {
        for (old, new) in t.pairs {
            n += 1;
            let user = format!("staleness-{n}");
            add(client, base, key, &user, &t.first.replace("{a}", old)).await?;
            add(client, base, key, &user, &t.then.replace("{b}", new)).await?;
            for (mode, tally) in modes.iter().zip(tallies.iter_mut()) {
                let r = client
                    .post(format!("{base}/v1/memories/search"))
                    .bearer_auth(key)
                    .json(&body_for(&user, t.question, mode))
                    .send()
                    .await?;
                let status = r.status();
                let body: Value = r.json().await?;
                if !status.is_success() {
                    bail!("search failed: {status} {body}");
                }
                let texts: Vec<&str> = body["results"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|h| h["memory"].as_str())
                    .collect();
                tally.searches += 1;
                tally.stale += usize::from(texts.iter().any(|t| mentions(t, old)));
                tally.current_first += usize::from(texts.first().is_some_and(|t| mentions(t, new)));
            }
        }
    }
    Ok(tallies)
}
