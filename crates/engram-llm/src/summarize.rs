//! Running summaries with an LLM behind any OpenAI-compatible chat API.

use async_openai::config::OpenAIConfig;
use async_openai::Client;
use async_trait::async_trait;
use engram_core::session::{SummarizeError, Summarizer, Turn};
use serde_json::json;

use crate::{completion_text, http_client, LlmConfig};

pub const SUMMARIZE_PROMPT: &str = include_str!("../prompts/summarize-v1.md");

pub struct LlmSummarizer {
    client: Client<OpenAIConfig>,
    config: LlmConfig,
}

impl LlmSummarizer {
    pub fn new(config: LlmConfig) -> Self {
        Self {
            client: http_client(&config),
            config,
        }
    }
}

fn render(previous: &str, turns: &[Turn]) -> String {
    let mut out = String::from("Summary so far:\n");
    out.push_str(if previous.trim().is_empty() {
        "(none)"
    } else {
        previous
    });
    out.push_str("\n\nNew turns leaving the window:\n");
    for t in turns {
        out.push_str(&format!("{}: {}\n", t.role, t.content));
    }
    out
}

#[async_trait]
impl Summarizer for LlmSummarizer {
    fn id(&self) -> &str {
        &self.config.model
    }

    async fn summarize(
        &self,
        previous: &str,
        turns: &[Turn],
        max_tokens: usize,
    ) -> Result<String, SummarizeError> {
        // About three words per four tokens in English.
        let max_words = (max_tokens * 3 / 4).max(20);
        let request = json!({
            "model": self.config.model,
            "messages": [
                {"role": "system", "content": SUMMARIZE_PROMPT.replace("{max_words}", &max_words.to_string())},
                {"role": "user", "content": render(previous, turns)},
            ],
            "temperature": 0,
            "max_tokens": max_tokens * 2,
            "stream": false,
        });
        let text = completion_text(&self.client, "summarize", request)
            .await
            .map_err(|e| {
                SummarizeError::Service(engram_core::policy::without_url_credentials(
                    &e.to_string(),
                ))
            })?
            .trim()
            .to_owned();
        if text.is_empty() {
            return Err(SummarizeError::Service(
                "the LLM returned an empty summary".into(),
            ));
        }
        Ok(text)
    }
}
