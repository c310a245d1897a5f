//! What the write path carries: the messages an extraction job holds and
//! the candidate facts an extractor proposes from them. Here, apart from
//! the extractors, so the write policy and the decision rules read them
//! without depending on extraction.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::{MemoryKind, Source, SourceType};

/// The attribute of a request to forget everything about the user: it
/// names every memory of the scope.
pub const FORGET_EVERYTHING: &str = "*";

/// Key families already about someone (or something) of the user's rather
/// than the user: a fact under them is never the user's own.
pub const OTHERS_KEYS: &[&str] = &["family", "pet", "friend", "relationship"];

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
    /// Where each message was in the request, when empty ones before it
    /// were skipped (empty: as listed): what a job's results name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub positions: Vec<usize>,
    /// The pieces of what was said stored with this job, by message: a
    /// fact read from a message names the piece it was read from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
}

/// A piece of a message kept as what was said (an episodic memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    pub message: usize,
    pub memory_id: uuid::Uuid,
}

impl ExtractionRequest {
    /// One message the user stated now, with the defaults (no sensitive
    /// categories, untrusted): what tests and benchmarks queue.
    pub fn user_said(text: &str) -> Self {
        Self {
            messages: vec![InputMessage {
                role: Role::User,
                content: text.to_owned(),
                created_at: Utc::now(),
            }],
            source: Source {
                source_type: SourceType::UserStated,
                source_ref: None,
            },
            allow_sensitive: false,
            trusted: false,
            positions: Vec::new(),
            evidence: Vec::new(),
        }
    }

    /// The position in the request of the message at `index`.
    pub fn position(&self, index: usize) -> usize {
        self.positions.get(index).copied().unwrap_or(index)
    }
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
    /// For a correction that names no key ("I meant Graz, not Salzburg"):
    /// the wrong value it replaces; the fact that holds it lends its key
    /// (`decide::resolve_correction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
}

impl Candidate {
    /// A stated semantic fact about the user from message 0, for tests.
    #[cfg(test)]
    pub(crate) fn stated_fact(attribute: &str, value: &str, statement: &str) -> Self {
        Self {
            statement: statement.into(),
            kind: MemoryKind::Semantic,
            subject: "user".into(),
            attribute: attribute.into(),
            value: value.into(),
            importance: 0.5,
            confidence: 0.9,
            sensitivity: None,
            expires_at: None,
            stated: true,
            message_index: 0,
            action: FactAction::Assert,
            replaces: None,
        }
    }
}
