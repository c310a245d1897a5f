//! Reviews of weak conflicts found by consolidation, by an LLM behind any
//! OpenAI-compatible chat API. The answer is a number and a short reason,
//! checked against the group; anything else is an error, and the rules
//! decide that group.

use async_openai::config::OpenAIConfig;
use async_openai::Client;
use async_trait::async_trait;
use engram_core::consolidate::{ConflictGroup, ConflictReviewer, Review, ReviewError, Verdict};
use serde_json::{json, Value};

use crate::{completion_text, http_client, json_object, LlmConfig};

pub const REVIEW_PROMPT: &str = include_str!("../prompts/review-conflict-v1.md");
/// Reasons are kept in history; a model that rambles is cut short.
const MAX_REASON_CHARS: usize = 200;

pub struct LlmConflictReviewer {
    client: Client<OpenAIConfig>,
    config: LlmConfig,
}

impl LlmConflictReviewer {
    pub fn new(config: LlmConfig) -> Self {
        Self {
            client: http_client(&config),
            config,
        }
    }
}

fn render(group: &ConflictGroup) -> String {
    let mut out = format!(
        "Attribute: {} of {}\n\nStatements:\n",
        group.attribute, group.subject
    );
    for (i, s) in group.statements.iter().enumerate() {
        out.push_str(&format!(
            "{}. ({}, {}) {}\n",
            i + 1,
            s.said_at.format("%Y-%m-%d %H:%M UTC"),
            if s.explicit {
                "said by the user"
            } else {
                "inferred"
            },
            s.content
        ));
    }
    out
}

/// The verdict in an answer, checked against the group.
pub fn parse_review(text: &str, group: &ConflictGroup) -> Result<Review, ReviewError> {
    let invalid = |why: &str| ReviewError::Invalid(format!("{why}: {text:.200}"));
    let object: Value = json_object(text)
        .and_then(|o| serde_json::from_str(o).ok())
        .ok_or_else(|| invalid("no JSON object"))?;
    let current = object["current"]
        .as_u64()
        .ok_or_else(|| invalid("`current` is not a number"))?;
    let verdict = match current {
        0 => Verdict::AllHold,
        n => Verdict::Current(
            group
                .statements
                .get(n as usize - 1)
                .ok_or_else(|| invalid("`current` names no statement"))?
                .id,
        ),
    };
    let reason: String = object["reason"]
        .as_str()
        .unwrap_or("")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_REASON_CHARS)
        .collect();
    Ok(Review {
        verdict,
        reason: if reason.is_empty() {
            "no reason given".into()
        } else {
            reason
        },
    })
}

#[async_trait]
impl ConflictReviewer for LlmConflictReviewer {
    fn id(&self) -> &str {
        &self.config.model
    }

    async fn review(&self, group: &ConflictGroup) -> Result<Review, ReviewError> {
        let request = json!({
            "model": self.config.model,
            "messages": [
                {"role": "system", "content": REVIEW_PROMPT},
                {"role": "user", "content": render(group)},
            ],
            "temperature": 0,
            "max_tokens": 200,
            "response_format": {"type": "json_object"},
            "stream": false,
        });
        let text = completion_text(&self.client, "review", request)
            .await
            .map_err(|e| {
                ReviewError::Service(engram_core::policy::without_url_credentials(&e.to_string()))
            })?;
        parse_review(&text, group)
    }
}

#[cfg(test)]
mod tests {
    use engram_core::consolidate::Statement;
    use uuid::Uuid;

    use super::*;

    fn group() -> ConflictGroup {
        let statement = |content: &str| Statement {
            id: Uuid::now_v7(),
            content: content.into(),
            value: None,
            explicit: true,
            said_at: chrono::Utc::now(),
        };
        ConflictGroup {
            subject: "user".into(),
            attribute: "preference.drink".into(),
            statements: vec![statement("prefers tea"), statement("wants coffee today")],
        }
    }

    #[test]
    fn answers_are_checked_against_the_group() {
        let g = group();
        let r = parse_review(
            "Sure! ```json\n{\"current\": 1, \"reason\": \"coffee was  for today\"}\n```",
            &g,
        )
        .unwrap();
        assert_eq!(r.verdict, Verdict::Current(g.statements[0].id));
        assert_eq!(r.reason, "coffee was for today");
        let all = parse_review(r#"{"current": 0}"#, &g).unwrap();
        assert_eq!(
            (all.verdict, all.reason.as_str()),
            (Verdict::AllHold, "no reason given")
        );
        let long = format!(r#"{{"current": 2, "reason": "{}"}}"#, "x".repeat(500));
        assert_eq!(parse_review(&long, &g).unwrap().reason.len(), 200);
        for bad in [
            "the first one",
            r#"{"current": 3}"#,
            r#"{"current": "1"}"#,
            r#"{"current": -1}"#,
            r#"{"reason": "no verdict"}"#,
        ] {
            assert!(
                matches!(parse_review(bad, &g), Err(ReviewError::Invalid(_))),
                "{bad}"
            );
        }
    }
}
