//! Real multi-session conversations with questions, in one shape, read
//! from `../shared/data` (never copied into the repository):
//!
//! - LoCoMo conversations 0-4 (`locomo/locomo-dev.json`): two speakers, one
//!   date per session; questions of categories 1-4 (5 is adversarial).
//! - REALTALK (`realtalk/Chat_*.json`, github.com/danny911kr/REALTALK): ten
//!   real 21-day messaging-app conversations between people, each message
//!   dated; questions of categories 1-3.
//!
//! Speaker a is the user of the chat loop, speaker b its assistant.

use std::collections::HashSet;

use anyhow::Context;
use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use serde_json::Value;

pub struct Turn {
    pub dia_id: String,
    /// Said by speaker a (the user); b is the assistant.
    pub by_user: bool,
    pub speaker: String,
    pub text: String,
    pub at: Option<DateTime<Utc>>,
}

pub struct Session {
    pub n: usize,
    pub turns: Vec<Turn>,
}

pub struct Question {
    pub text: String,
    pub answer: String,
    pub evidence: HashSet<String>,
    pub category: u64,
}

pub struct Conversation {
    pub id: String,
    pub sessions: Vec<Session>,
    pub questions: Vec<Question>,
    /// When the questions are asked: the last session's time.
    pub asked_at: Option<DateTime<Utc>>,
}

pub struct Dataset {
    pub name: &'static str,
    pub conversations: Vec<Conversation>,
}

impl Conversation {
    pub fn turn(&self, dia_id: &str) -> Option<&Turn> {
        self.sessions
            .iter()
            .flat_map(|s| &s.turns)
            .find(|t| t.dia_id == dia_id)
    }
}

fn evidence(qa: &Value) -> HashSet<String> {
    qa["evidence"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .flat_map(|e| e.split(';').map(|s| s.trim().to_owned()))
        .filter(|e| !e.is_empty())
        .collect()
}

fn answer(qa: &Value) -> String {
    match &qa["answer"] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// Real user-assistant conversations (ShareGPT, the sample the fact set
/// reads: `sharegpt-sample/sharegpt-1003.json`), as (said by the user,
/// text) turns: the noise a user's other chats add (`EVAL_NOISE`).
pub fn sharegpt(shared: &str) -> anyhow::Result<Vec<Vec<(bool, String)>>> {
    let path = format!("{shared}/data/sharegpt-sample/sharegpt-1003.json");
    let Ok(text) = std::fs::read(&path) else {
        return Ok(Vec::new());
    };
    let convs: Vec<Value> = serde_json::from_slice(&text).context("ShareGPT")?;
    Ok(convs
        .iter()
        .map(|c| {
            c["conversations"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| {
                    (
                        t["from"].as_str() == Some("human"),
                        t["value"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .filter(|(_, text)| !text.trim().is_empty())
                .collect()
        })
        .collect())
}

/// LoCoMo, or `None` when its file is absent.
pub fn locomo(shared: &str) -> anyhow::Result<Option<Dataset>> {
    let path = format!("{shared}/data/locomo/locomo-dev.json");
    let Ok(text) = std::fs::read(&path) else {
        return Ok(None);
    };
    let data: Vec<Value> = serde_json::from_slice(&text).context("LoCoMo")?;
    let mut conversations = Vec::new();
    for sample in &data {
        let conv = &sample["conversation"];
        let a = conv["speaker_a"].as_str().unwrap_or("");
        let mut sessions = Vec::new();
        let mut asked_at = None;
        for n in 1.. {
            let Some(turns) = conv.get(format!("session_{n}")).and_then(Value::as_array) else {
                break;
            };
            let at = conv[format!("session_{n}_date_time")]
                .as_str()
                .and_then(|s| NaiveDateTime::parse_from_str(s.trim(), "%I:%M %p on %d %B, %Y").ok())
                .map(|t| Utc.from_utc_datetime(&t));
            asked_at = at.or(asked_at);
            sessions.push(Session {
                n,
                turns: turns
                    .iter()
                    .map(|t| Turn {
                        dia_id: t["dia_id"].as_str().unwrap_or("").to_owned(),
                        by_user: t["speaker"].as_str() == Some(a),
                        speaker: t["speaker"].as_str().unwrap_or("").to_owned(),
                        text: t["text"].as_str().unwrap_or("").to_owned(),
                        at,
                    })
                    .collect(),
            });
        }
        let questions = sample["qa"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|qa| {
                let category = qa["category"].as_u64()?;
                let evidence = evidence(qa);
                ((1..=4).contains(&category) && !evidence.is_empty()).then(|| Question {
                    text: qa["question"].as_str().unwrap_or("").to_owned(),
                    answer: answer(qa),
                    evidence,
                    category,
                })
            })
            .collect();
        conversations.push(Conversation {
            id: sample["sample_id"]
                .as_str()
                .context("sample_id")?
                .to_owned(),
            sessions,
            questions,
            asked_at,
        });
    }
    Ok(Some(Dataset {
        name: "LoCoMo 0-4",
        conversations,
    }))
}

/// REALTALK, or `None` when its files are absent.
pub fn realtalk(shared: &str) -> anyhow::Result<Option<Dataset>> {
    let dir = format!("{shared}/data/realtalk");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(None);
    };
    let mut paths: Vec<std::path::PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    let mut conversations = Vec::new();
    for path in paths {
        let chat: Value = serde_json::from_slice(&std::fs::read(&path)?)
            .with_context(|| format!("{}", path.display()))?;
        let a = chat["name"]["speaker_1"].as_str().unwrap_or("");
        let mut sessions = Vec::new();
        let mut asked_at = None;
        for n in 1.. {
            let Some(turns) = chat.get(format!("session_{n}")).and_then(Value::as_array) else {
                break;
            };
            let turns: Vec<Turn> = turns
                .iter()
                .map(|t| {
                    let at = t["date_time"]
                        .as_str()
                        .and_then(|s| {
                            NaiveDateTime::parse_from_str(s.trim(), "%d.%m.%Y, %H:%M:%S").ok()
                        })
                        .map(|t| Utc.from_utc_datetime(&t));
                    Turn {
                        dia_id: t["dia_id"].as_str().unwrap_or("").to_owned(),
                        by_user: t["speaker"].as_str() == Some(a),
                        speaker: t["speaker"].as_str().unwrap_or("").to_owned(),
                        text: t["clean_text"].as_str().unwrap_or("").to_owned(),
                        at,
                    }
                })
                .collect();
            asked_at = turns.iter().filter_map(|t| t.at).max().or(asked_at);
            sessions.push(Session { n, turns });
        }
        let questions = chat["qa"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|qa| {
                let evidence = evidence(qa);
                (!evidence.is_empty()).then(|| Question {
                    text: qa["question"].as_str().unwrap_or("").to_owned(),
                    answer: answer(qa),
                    evidence,
                    category: qa["category"].as_u64().unwrap_or(0),
                })
            })
            .collect();
        let id = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("chat")
            .to_lowercase();
        conversations.push(Conversation {
            id,
            sessions,
            questions,
            asked_at,
        });
    }
    Ok(Some(Dataset {
        name: "REALTALK",
        conversations,
    }))
}
