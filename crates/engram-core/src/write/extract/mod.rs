//! Fact extraction: turning what a user said into candidate facts. Every
//! extractor (LLM or rules) produces the same [`Candidate`] structure.

pub mod combine;
pub mod restate;
pub mod rules;

use async_trait::async_trait;

pub use crate::model::candidate::{
    Candidate, Evidence, ExtractionRequest, FactAction, InputMessage, Role, FORGET_EVERYTHING,
    OTHERS_KEYS,
};
pub use crate::text::statement;
pub use crate::text::{clauses, sentences};
pub use combine::{as_said, read_back, rekeyed, unread_parts, with_rules};
pub use restate::{is_label, predicate_of, restated};
pub use rules::RulesExtractor;

#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    #[error("the model's output could not be used: {0}")]
    Output(String),
    #[error("the model service failed: {0}")]
    Service(String),
}

/// What an extractor read: its facts, and why each item of a model's
/// answer that could not be used was refused (no text of the answer: it
/// may quote the user). The rules refuse nothing here.
#[derive(Debug, Default)]
pub struct Extraction {
    pub facts: Vec<Candidate>,
    pub refused: Vec<String>,
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
    /// Whether it reads messages in any language (an LLM) or English only
    /// (the rules): a message it cannot read is kept verbatim instead
    /// (`policy::unread_message`).
    fn reads_any_language(&self) -> bool {
        true
    }
    async fn extract(&self, messages: &[InputMessage]) -> Result<Vec<Candidate>, ExtractError>;
    /// The facts and what was refused on the way (`Extraction`).
    async fn extract_all(&self, messages: &[InputMessage]) -> Result<Extraction, ExtractError> {
        Ok(Extraction {
            facts: self.extract(messages).await?,
            refused: Vec::new(),
        })
    }
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

/// How much a fact under `attribute` matters when its extractor does not
/// say: who the user is and what can harm them first, passing tastes last
/// (the rule table's figures, by key family).
pub fn key_importance(attribute: &str) -> f32 {
    let family = attribute.split('.').next().unwrap_or("");
    match family {
        "name" | "allergy" => 0.9,
        "diet" | "family" => 0.8,
        "employer" | "birthday" | "pet" | "location" => 0.7,
        "role" | "age" | "origin" | "relationship" | "favorite" | "preference" => 0.6,
        _ => 0.5,
    }
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
