//! Fact extraction: turning what a user said into candidate facts. Every
//! extractor (LLM or rules) produces the same [`Candidate`] structure.

pub mod rules;
pub mod statement;

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

pub use rules::{clauses, RulesExtractor};

/// The attribute of a request to forget everything about the user: it
/// names every memory of the scope.
pub const FORGET_EVERYTHING: &str = "*";

use crate::{MemoryKind, Source};

/// What an extraction job holds until it ends: the messages (secrets already
/// redacted) and how to treat them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExtractionRequest {
    pub messages: Vec<InputMessage>,
    pub source: Source,
    /// Sensitive categories may be stored (when stated, never inferred).
    #[serde(default)]
    pub allow_sensitive: bool,
    /// Non-user messages (assistant, tool, document) may create facts too.
    #[serde(default)]
    pub trusted: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    System,
    Tool,
}

/// A message to extract from, with the time it was said resolved.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InputMessage {
    pub role: Role,
    pub content: String,
    pub created_at: DateTime<Utc>,
}

/// What a candidate asks for: a fact stated, a fact taken back ("I no
/// longer work at X", "I'm not vegetarian any more"), or a request to forget
/// ("forget that I live in Berlin").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FactAction {
    #[default]
    Assert,
    /// The user says it is no longer (or never was) true: the matching fact
    /// is retired, nothing replaces it.
    Retract,
    /// The user asks that it be forgotten: the matching memories are
    /// retired; the request itself is not stored.
    Forget,
}

/// One fact an extractor believes the messages state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    /// A short third-person statement, e.g. "User lives in Austin."
    pub statement: String,
    pub kind: MemoryKind,
    /// Who the fact is about: "user", or e.g. "user.sister".
    pub subject: String,
    /// A normalised key such as `location.city`, `employer`, `diet`, `pet.dog.name`.
    pub attribute: String,
    pub value: String,
    pub importance: f32,
    pub confidence: f32,
    /// A sensitive category the fact touches (health, religion, ...), if any.
    pub sensitivity: Option<String>,
    /// When the fact stops being true, if the wording bounds it.
    pub expires_at: Option<DateTime<Utc>>,
    /// True when the user said it; false when it was inferred.
    pub stated: bool,
    /// Index of the message it came from.
    pub message_index: usize,
    /// Assert (the default), retract or forget. For the last two `value`
    /// may be empty (any value of the attribute), and `attribute` empty when
    /// only the wording identifies what to forget.
    #[serde(default)]
    pub action: FactAction,
}

#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("the model's output could not be used: {0}")]
    Output(String),
    #[error("the model service failed: {0}")]
    Service(String),
}

#[async_trait]
pub trait Extractor: Send + Sync {
    /// e.g. "rules" or "llm".
    fn id(&self) -> &str;
    /// The model behind it, if any.
    fn model(&self) -> Option<&str> {
        None
    }
    /// Version of the prompt files used, recorded on every memory created.
    fn prompt_version(&self) -> Option<&str> {
        None
    }
    async fn extract(&self, messages: &[InputMessage]) -> Result<Vec<Candidate>, ExtractError>;
}

/// Lower-case, underscore-separated key fragment for a free-text value, at
/// most 40 characters. A longer one keeps its first 31 and a hash of the
/// whole, so two values that share a beginning never share a key
/// ("…documentaries about ancient Roman history" and "…aqueducts").
pub fn slug(value: &str) -> String {
    let mut out = String::new();
    for c in value.trim().to_lowercase().chars() {
        if c.is_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    bounded_key(out.trim_end_matches('_'), 40)
}

/// `key` if it has at most `max` characters; else its first `max - 9` and
/// 8 hex digits of its SHA-256.
pub fn bounded_key(key: &str, max: usize) -> String {
    if key.chars().count() <= max {
        return key.to_owned();
    }
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(key.as_bytes());
    let head: String = key.chars().take(max.saturating_sub(9)).collect();
    format!(
        "{}_{}",
        head.trim_end_matches(['_', '.']),
        &hex::encode(digest)[..8]
    )
}

/// Values compared for equality: case, spacing and punctuation ignored.
pub fn same_value(a: &str, b: &str) -> bool {
    slug(a) == slug(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_never_share_a_key() {
        let a = slug("watching documentaries about ancient Roman history");
        let b = slug("watching documentaries about ancient Roman aqueducts");
        assert_ne!(a, b);
        assert!(
            a.chars().count() <= 40 && b.chars().count() <= 40,
            "{a} {b}"
        );
        assert_eq!(
            a,
            slug("Watching documentaries about ancient Roman history!")
        );
        assert_eq!(slug("green tea"), "green_tea");
    }
}
