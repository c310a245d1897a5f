//! Fact extraction with an LLM behind any OpenAI-compatible chat API (OpenAI,
//! Ollama, vLLM, llama.cpp), through async-openai.
//!
//! Structured output first (`response_format: json_schema`); where the endpoint
//! refuses it (llama.cpp's server answers 500), `json_object` with the schema in
//! the prompt. Output is parsed tolerantly (code fences, surrounding prose),
//! validated against hard bounds, and repaired once by showing the model its
//! error; a second failure is an error the job reports, never a silent drop.

mod output;
mod review;
mod summarize;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::LazyLock;
use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::Client;
use async_trait::async_trait;
use engram_core::extract::{Candidate, ExtractError, Extraction, Extractor, InputMessage};
use serde_json::value::RawValue;
use serde_json::{json, Value};

pub(crate) use output::json_object;
pub use output::{
    output_schema, output_schema_text, parse_answer, parse_facts, Invalid, InvalidReason, Parsed,
};
pub use review::{parse_review, LlmConflictReviewer, REVIEW_PROMPT};
pub use summarize::{LlmSummarizer, SUMMARIZE_PROMPT};

/// The extraction prompt; its version is recorded on every memory it creates.
pub const EXTRACT_PROMPT: &str = include_str!("../prompts/extract-v4.md");
pub const EXTRACT_PROMPT_VERSION: &str = "extract-v4";

/// The prompt's own words, lower case, for telling a copied value.
static PROMPT_WORDS: LazyLock<String> = LazyLock::new(|| EXTRACT_PROMPT.to_lowercase());

/// Whether `value` is a word or phrase of the prompt (its examples, or the
/// rules' "User lives in Austin."), whole words only. The values of
/// `likes.*` are the prompt's by design.
fn in_prompt(value: &str) -> bool {
    let value = value.trim().to_lowercase();
    if value.chars().filter(|c| c.is_alphanumeric()).count() < 2
        || matches!(value.as_str(), "likes" | "dislikes")
    {
        return false;
    }
    PROMPT_WORDS.match_indices(&value).any(|(at, _)| {
        let before = PROMPT_WORDS[..at].chars().next_back();
        let after = PROMPT_WORDS[at + value.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// Without the facts a model copied from its prompt: a small model answers
/// "I'm 41, from Kenya" with the example's "User lives in Tromsø." too, and
/// "Please keep answers short" with the rules' "User lives in Austin.".
/// Only a value of the prompt that no message holds goes.
fn not_copied(facts: Vec<Candidate>, messages: &[InputMessage]) -> Vec<Candidate> {
    facts
        .into_iter()
        .filter(|c| {
            let value = c.value.trim().to_lowercase();
            let copied = in_prompt(&value)
                && !messages
                    .iter()
                    .any(|m| m.content.to_lowercase().contains(&value));
            if copied {
                tracing::debug!("dropped a fact copied from the prompt's example");
            }
            !copied
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResponseFormat {
    /// json_schema, falling back to json_object when the endpoint refuses it.
    Auto,
    JsonSchema,
    JsonObject,
}

#[derive(Debug, Clone)]
pub struct LlmConfig {
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub timeout: Duration,
    pub response_format: ResponseFormat,
    /// Facts per call; more are cut off so a small model cannot ramble.
    pub max_facts: usize,
    pub max_tokens: u32,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            base_url: "http://127.0.0.1:11434/v1".into(),
            api_key: None,
            model: "llama3.2".into(),
            timeout: Duration::from_secs(60),
            response_format: ResponseFormat::Auto,
            max_facts: 20,
            max_tokens: 1500,
        }
    }
}

pub struct LlmExtractor {
    client: Client<OpenAIConfig>,
    config: LlmConfig,
    /// Set once the endpoint has refused json_schema, so later calls skip it.
    schema_refused: AtomicBool,
}

impl LlmExtractor {
    pub fn new(config: LlmConfig) -> Self {
        Self {
            client: http_client(&config),
            config,
            schema_refused: AtomicBool::new(false),
        }
    }

    fn system_prompt(&self) -> String {
        EXTRACT_PROMPT
            .replace("{max_facts}", &self.config.max_facts.to_string())
            .replace("{schema}", &output_schema_text(self.config.max_facts))
    }

    fn use_schema(&self) -> bool {
        match self.config.response_format {
            ResponseFormat::JsonSchema => true,
            ResponseFormat::JsonObject => false,
            ResponseFormat::Auto => !self.schema_refused.load(Ordering::Relaxed),
        }
    }

    async fn complete(
        &self,
        messages: &[Value],
        schema: bool,
        max_items: usize,
    ) -> Result<Completion, OpenAIError> {
        // The schema goes as written (`output_schema_text`): a decoder
        // writes its properties in its order.
        let text = output_schema_text(max_items);
        let response_format = if schema {
            format!(
                r#"{{"type": "json_schema", "json_schema": {{"name": "facts", "strict": true, "schema": {text}}}}}"#
            )
        } else {
            // `schema` beside json_object is how llama.cpp's server takes a
            // grammar; servers that do not know it ignore it.
            format!(r#"{{"type": "json_object", "schema": {text}}}"#)
        };
        let request = ExtractRequest {
            model: &self.config.model,
            messages,
            temperature: 0,
            max_tokens: self.config.max_tokens,
            response_format: RawValue::from_string(response_format)
                .map_err(|e| OpenAIError::InvalidArgument(e.to_string()))?,
            stream: false,
        };
        completion(&self.client, "extract", &self.config.model, request).await
    }

    /// One completion, falling back from json_schema to json_object once.
    async fn complete_with_fallback(
        &self,
        messages: &[Value],
        max_items: usize,
    ) -> Result<Completion, ExtractError> {
        let schema = self.use_schema();
        match self.complete(messages, schema, max_items).await {
            Ok(text) => Ok(text),
            Err(e)
                if schema
                    && self.config.response_format == ResponseFormat::Auto
                    && refuses_format(&e) =>
            {
                tracing::warn!(error = %e, "the LLM endpoint refused json_schema; using json_object from now on");
                self.schema_refused.store(true, Ordering::Relaxed);
                self.complete(messages, false, max_items)
                    .await
                    .map_err(service_error)
            }
            Err(e) => Err(service_error(e)),
        }
    }
}

/// An extraction's chat request, its schema as written.
#[derive(serde::Serialize)]
struct ExtractRequest<'a> {
    model: &'a str,
    messages: &'a [Value],
    temperature: u8,
    max_tokens: u32,
    response_format: Box<RawValue>,
    stream: bool,
}

/// What the endpoint takes, found by one tiny request at start: a strict
/// `json_schema`, or (refused, as llama.cpp's server does) `json_object`
/// with the schema as a grammar. `Err` when the endpoint could not be
/// asked (down, a wrong key): the mode is then found on the first call.
pub async fn probe_response_format(config: &LlmConfig) -> Result<ResponseFormat, String> {
    let probe = LlmConfig {
        timeout: config.timeout.min(Duration::from_secs(15)),
        ..config.clone()
    };
    let client = http_client(&probe);
    let schema = json!({"type": "object", "additionalProperties": false,
                        "required": ["ok"], "properties": {"ok": {"type": "boolean"}}});
    let request = json!({
        "model": config.model,
        "messages": [{"role": "user", "content": "Reply with the JSON object {\"ok\": true}."}],
        "temperature": 0,
        "max_tokens": 16,
        "response_format": {"type": "json_schema", "json_schema": {"name": "probe", "strict": true, "schema": schema}},
        "stream": false,
    });
    match completion(&client, "probe", &config.model, request).await {
        Ok(_) => Ok(ResponseFormat::JsonSchema),
        Err(e) if refuses_format(&e) => Ok(ResponseFormat::JsonObject),
        Err(e) => Err(engram_core::policy::without_url_credentials(&e.to_string())),
    }
}

/// A chat client for the configured endpoint, with its timeouts.
pub(crate) fn http_client(config: &LlmConfig) -> Client<OpenAIConfig> {
    let oc = OpenAIConfig::new()
        .with_api_base(config.base_url.trim_end_matches('/'))
        .with_api_key(config.api_key.clone().unwrap_or_default());
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(5))
        .timeout(config.timeout)
        .build()
        .unwrap_or_default();
    Client::with_config(oc).with_http_client(http)
}

/// One chat completion's answer.
pub(crate) struct Completion {
    pub text: String,
    /// The endpoint stopped it at `max_tokens` (`finish_reason: length`).
    pub cut_off: bool,
}

/// The text of one chat completion (`stream: false`); empty when the
/// answer has none.
pub(crate) async fn completion_text(
    client: &Client<OpenAIConfig>,
    purpose: &'static str,
    request: Value,
) -> Result<String, OpenAIError> {
    let model = request["model"].as_str().unwrap_or_default().to_owned();
    completion(client, purpose, &model, request)
        .await
        .map(|c| c.text)
}

/// One chat completion (`stream: false`). Every call is counted by model
/// and `purpose` (extract, summarize, review): outcome, time, and the
/// tokens the endpoint reports.
pub(crate) async fn completion(
    client: &Client<OpenAIConfig>,
    purpose: &'static str,
    model: &str,
    request: impl serde::Serialize + Send,
) -> Result<Completion, OpenAIError> {
    let model = model.to_owned();
    let started = std::time::Instant::now();
    let result: Result<Value, OpenAIError> = client.chat().create_byot(request).await;
    let with = |key: &'static str, value: &'static str| {
        [
            ("model", model.clone()),
            ("purpose", purpose.to_owned()),
            (key, value.to_owned()),
        ]
    };
    let outcome = if result.is_ok() { "ok" } else { "error" };
    metrics::histogram!("engram_llm_duration_seconds", &with("outcome", outcome))
        .record(started.elapsed().as_secs_f64());
    metrics::counter!("engram_llm_requests_total", &with("outcome", outcome)).increment(1);
    let response = result?;
    for (kind, field) in [
        ("prompt", "prompt_tokens"),
        ("completion", "completion_tokens"),
    ] {
        if let Some(n) = response["usage"][field].as_u64() {
            metrics::counter!("engram_llm_tokens_total", &with("type", kind)).increment(n);
        }
    }
    let choice = &response["choices"][0];
    Ok(Completion {
        text: choice["message"]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        cut_off: choice["finish_reason"] == "length",
    })
}

/// An answer about the request (not the network): worth one try without json_schema.
fn refuses_format(e: &OpenAIError) -> bool {
    matches!(
        e,
        OpenAIError::ApiError(_) | OpenAIError::JSONDeserialize(..)
    )
}

fn service_error(e: OpenAIError) -> ExtractError {
    ExtractError::Service(engram_core::policy::without_url_credentials(&e.to_string()))
}

/// The most facts an answer about `messages` may hold: two per clause,
/// and two more, within `max_facts`. The schema's `maxItems` (a grammar on
/// llama.cpp) then ends the answer of a small model that repeats itself,
/// which would otherwise run to `max_tokens` and be cut off.
fn answer_bound(messages: &[InputMessage], max_facts: usize) -> usize {
    let clauses: usize = messages
        .iter()
        .flat_map(|m| engram_core::extract::sentences(&m.content))
        .map(|s| engram_core::extract::clauses(s).len())
        .sum();
    (2 * clauses + 2).clamp(1, max_facts.max(1))
}

fn render(messages: &[InputMessage]) -> String {
    let mut out = String::from("Messages:\n");
    for (i, m) in messages.iter().enumerate() {
        let role = serde_json::to_value(m.role)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        out.push_str(&format!(
            "[{i}] {role} ({}): {}\n",
            m.created_at.format("%Y-%m-%d"),
            m.content
        ));
    }
    out
}

#[async_trait]
impl Extractor for LlmExtractor {
    fn id(&self) -> &str {
        "llm"
    }

    fn model(&self) -> Option<&str> {
        Some(&self.config.model)
    }

    fn prompt_version(&self) -> Option<&str> {
        Some(EXTRACT_PROMPT_VERSION)
    }

    async fn extract(&self, messages: &[InputMessage]) -> Result<Vec<Candidate>, ExtractError> {
        Ok(self.extract_all(messages).await?.facts)
    }

    async fn extract_all(&self, messages: &[InputMessage]) -> Result<Extraction, ExtractError> {
        let read = self.read_answers(messages).await?;
        Ok(Extraction {
            facts: after_model(read.facts, messages, |_, _| {}),
            refused: read.refused,
        })
    }
}

/// The checks after the model, in order; `seen` is shown each stage's
/// facts (the `explain` example prints them).
pub fn after_model(
    model: Vec<Candidate>,
    messages: &[InputMessage],
    mut seen: impl FnMut(&'static str, &[Candidate]),
) -> Vec<Candidate> {
    seen("model", &model);
    let facts = not_copied(model, messages);
    seen("not copied from the prompt", &facts);
    let facts = engram_core::extract::as_said(facts, messages);
    seen("as said", &facts);
    let facts = engram_core::extract::rekeyed(facts, messages);
    seen("rekeyed", &facts);
    let facts = engram_core::extract::restated(facts, messages);
    seen("restated", &facts);
    let rules = engram_core::extract::RulesExtractor.extract_sync(messages);
    seen("rules", &rules);
    // An assertion its message denies or does not bear out is refused
    // later (and shown refused); it keeps no retraction out.
    let borne = |c: &Candidate| {
        messages.get(c.message_index).is_some_and(|m| {
            engram_core::extract::statement::unsupported(&m.content, &c.value).is_none()
        })
    };
    let facts = engram_core::extract::with_rules(facts, rules, borne);
    seen("with the rules", &facts);
    facts
}

/// At most this many parts of a job's messages are asked about again.
const MAX_PARTS: usize = 4;

impl LlmExtractor {
    /// The model's facts about the messages, and about each part of a
    /// message in another language its answer left out, asked on its own
    /// (`unread_parts`): a small model reads the first part of "Moro em
    /// Curitiba e sou professora" and stops. A part that cannot be read is
    /// left to what the first answer gave (the job does not fail for it).
    pub async fn read_facts(
        &self,
        messages: &[InputMessage],
    ) -> Result<Vec<Candidate>, ExtractError> {
        Ok(self.read_answers(messages).await?.facts)
    }

    /// `read_facts`, with the items of the answers that were refused.
    pub async fn read_answers(&self, messages: &[InputMessage]) -> Result<Parsed, ExtractError> {
        let Parsed {
            mut facts,
            mut refused,
        } = self.model_answer(messages).await?;
        let parts = engram_core::extract::unread_parts(messages, &facts);
        for (index, part) in parts.into_iter().take(MAX_PARTS) {
            let Some(message) = messages.get(index) else {
                continue;
            };
            let one = [InputMessage {
                role: message.role,
                content: part,
                created_at: message.created_at,
            }];
            match self.model_answer(&one).await {
                Ok(more) => {
                    facts.extend(more.facts.into_iter().map(|mut c| {
                        c.message_index = index;
                        c
                    }));
                    refused.extend(more.refused);
                }
                Err(e) => tracing::warn!(error = %e, "a part of a message could not be read"),
            }
        }
        Ok(Parsed { facts, refused })
    }

    /// The model's facts: its answer, or its one repair, checked (before
    /// the checks after the model, `after_model`).
    pub async fn model_facts(
        &self,
        messages: &[InputMessage],
    ) -> Result<Vec<Candidate>, ExtractError> {
        Ok(self.model_answer(messages).await?.facts)
    }

    /// `model_facts`, with the items of the answer that were refused.
    pub async fn model_answer(&self, messages: &[InputMessage]) -> Result<Parsed, ExtractError> {
        if messages.iter().all(|m| m.content.trim().is_empty()) {
            return Ok(Parsed::default());
        }
        let mut chat = vec![
            json!({"role": "system", "content": self.system_prompt()}),
            json!({"role": "user", "content": render(messages)}),
        ];
        let max_items = answer_bound(messages, self.config.max_facts);
        let first = self.complete_with_fallback(&chat, max_items).await?;
        let invalid = match self.check(&first, messages) {
            Ok(facts) => {
                self.count_answer("valid");
                return Ok(facts);
            }
            Err(invalid) => invalid,
        };
        // One repair: show the model what was wrong.
        tracing::info!(
            reason = invalid.reason.as_str(),
            "LLM answer unusable; asking for a repair"
        );
        chat.push(json!({"role": "assistant", "content": first.text}));
        chat.push(json!({"role": "user", "content": invalid.repair_prompt(max_items)}));
        let second = self.complete_with_fallback(&chat, max_items).await?;
        match self.check(&second, messages) {
            Ok(facts) => {
                self.count_answer("repaired");
                Ok(facts)
            }
            Err(again) => {
                self.count_answer("unusable");
                // The job's error is shown to API callers and logged: it
                // says what was wrong, never what the answer quoted.
                Err(ExtractError::Output(format!(
                    "{} (also after one repair attempt; the message is kept in the job: retry it once the model is fixed)",
                    again.public(self.config.max_tokens)
                )))
            }
        }
    }

    /// An answer's facts, or what makes it unusable (counted by reason).
    fn check(&self, answer: &Completion, messages: &[InputMessage]) -> Result<Parsed, Invalid> {
        let result = if answer.text.trim().is_empty() {
            Err(Invalid::new(InvalidReason::Empty, "the answer was empty"))
        } else if answer.cut_off {
            Err(Invalid::new(
                InvalidReason::CutOff,
                "the answer was cut off at the token limit before it ended",
            ))
        } else {
            parse_answer(&answer.text, messages, self.config.max_facts)
        };
        if let Err(invalid) = &result {
            metrics::counter!(
                "engram_llm_invalid_answers_total",
                "model" => self.config.model.clone(),
                "reason" => invalid.reason.as_str()
            )
            .increment(1);
        }
        result
    }

    fn count_answer(&self, outcome: &'static str) {
        metrics::counter!(
            "engram_llm_answers_total",
            "model" => self.config.model.clone(),
            "outcome" => outcome
        )
        .increment(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engram_core::extract::Role;

    fn said(texts: &[&str]) -> Vec<InputMessage> {
        texts
            .iter()
            .map(|t| InputMessage {
                role: Role::User,
                content: (*t).into(),
                created_at: chrono::Utc::now(),
            })
            .collect()
    }

    #[test]
    fn a_fact_copied_from_the_prompts_example_is_dropped() {
        assert!(in_prompt("Tromsø") && in_prompt("austin") && in_prompt("Dunder Mifflin"));
        assert!(!in_prompt("likes") && !in_prompt("aus") && !in_prompt("Kisumu"));
        let fact = |value: &str| Candidate {
            statement: format!("User lives in {value}."),
            kind: engram_core::MemoryKind::Semantic,
            subject: "user".into(),
            attribute: "location.city".into(),
            value: value.into(),
            importance: 0.7,
            confidence: 0.9,
            sensitivity: None,
            expires_at: None,
            stated: true,
            message_index: 0,
            action: engram_core::extract::FactAction::Assert,
            replaces: None,
        };
        let kept = not_copied(
            vec![fact("Tromsø"), fact("Kisumu")],
            &said(&["I'm from Kisumu."]),
        );
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].value, "Kisumu");
        // Said by the user, an example's value is theirs.
        let kept = not_copied(vec![fact("Tromsø")], &said(&["I live in Tromsø now."]));
        assert_eq!(kept.len(), 1);
    }

    #[test]
    fn an_answer_may_hold_a_few_facts_per_clause_within_the_cap() {
        let one = answer_bound(&said(&["Can you recommend a good Rust book?"]), 20);
        assert!((2..=4).contains(&one), "{one}");
        let many = answer_bound(
            &said(&["I'm Priya, I live in Pune, work at Infosys and have a cat named Biscuit."]),
            20,
        );
        assert!(many >= 6, "{many}");
        assert_eq!(answer_bound(&said(&[""]), 20), 2);
        let long = "I live in Oslo. ".repeat(50);
        assert_eq!(answer_bound(&said(&[&long]), 20), 20);
        assert_eq!(answer_bound(&said(&["x"]), 0), 1);
    }
}
