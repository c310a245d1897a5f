//! Memory records and the values that describe them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// The tenant every request belongs to until API keys carry tenants.
pub const DEFAULT_TENANT: Uuid = Uuid::from_u128(0);

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    Semantic,
    Episodic,
    Procedural,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SourceType {
    UserStated,
    Inferred,
    Tool,
    Document,
    Api,
    /// Said by the assistant in a conversation (an episodic memory of its turn).
    Assistant,
}

/// Who said a turn that is kept as what was said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Speaker {
    User,
    Assistant,
}

macro_rules! str_enum {
    ($ty:ident { $($variant:ident => $s:literal),+ $(,)? }) => {
        impl $ty {
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $s),+ }
            }
            pub fn parse(s: &str) -> Option<Self> {
                match s { $($s => Some(Self::$variant),)+ _ => None }
            }
        }
        /// Read from a text column (CHECK constraints hold it to these values).
        impl TryFrom<String> for $ty {
            type Error = String;
            fn try_from(s: String) -> Result<Self, String> {
                Self::parse(&s).ok_or_else(|| format!("unknown {} {s:?}", stringify!($ty)))
            }
        }
    };
}
str_enum!(MemoryKind { Semantic => "semantic", Episodic => "episodic", Procedural => "procedural" });
str_enum!(SourceType { UserStated => "user_stated", Inferred => "inferred", Tool => "tool", Document => "document", Api => "api", Assistant => "assistant" });
str_enum!(Speaker { User => "user", Assistant => "assistant" });

/// Who a memory belongs to. At least one of user or agent is set; session narrows.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Scope {
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    #[serde(rename = "type")]
    pub source_type: SourceType,
    #[serde(rename = "ref", skip_serializing_if = "Option::is_none")]
    pub source_ref: Option<String>,
}

/// How a source ref names a session: what a session's extraction records as
/// the source of its facts, and what a source purge of it finds.
pub const SESSION_SOURCE_PREFIX: &str = "session:";

/// The session a source ref names (`session:<id>`), if it names one.
pub fn session_of_source(source_ref: &str) -> Option<&str> {
    source_ref.strip_prefix(SESSION_SOURCE_PREFIX)
}

/// The sessions something in `scope` from `source_ref` names: its own session
/// and a `session:` source. A session is one user's, so whatever names it
/// must be that user's too (the store refuses the rest).
pub fn named_sessions<'a>(
    scope: &'a Scope,
    source_ref: Option<&'a str>,
) -> impl Iterator<Item = &'a str> + 'a {
    scope
        .session_id
        .as_deref()
        .into_iter()
        .chain(source_ref.and_then(session_of_source))
}

/// A memory ready to be written: validated, not yet embedded.
#[derive(Debug, Clone)]
pub struct NewMemory {
    pub scope: Scope,
    pub kind: MemoryKind,
    pub content: String,
    pub importance: f32,
    pub source: Source,
    pub metadata: serde_json::Value,
    pub pinned: bool,
    pub expires_at: Option<DateTime<Utc>>,
    /// When the content was said, if the client knows (message `created_at`).
    pub created_at: Option<DateTime<Utc>>,
}

impl NewMemory {
    pub fn content_hash(&self) -> String {
        content_hash(&self.content)
    }
}

/// Hash used for exact-duplicate detection: whitespace-trimmed content.
pub fn content_hash(content: &str) -> String {
    hex::encode(Sha256::digest(content.trim().as_bytes()))
}

/// A stored memory as the API shows it (no embedding).
#[derive(Debug, Clone, Serialize)]
pub struct Memory {
    pub id: Uuid,
    pub scope: Scope,
    pub kind: MemoryKind,
    pub subject: Option<String>,
    pub attribute: Option<String>,
    pub value: Option<String>,
    pub content: String,
    pub importance: f32,
    pub sensitivity: Option<String>,
    pub source: Source,
    pub confidence: Option<f32>,
    pub metadata: serde_json::Value,
    pub pinned: bool,
    pub access_count: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub superseded_by: Option<Uuid>,
    /// Set by a soft delete; such a memory is out of every read but the admin's
    /// until it is purged.
    pub deleted_at: Option<DateTime<Utc>>,
    /// Set when consolidation archived it (decayed below the floor): kept,
    /// out of default search, restorable.
    pub archived_at: Option<DateTime<Utc>>,
    pub provenance: Provenance,
}

/// Where a memory is in its life, as the admin view shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryState {
    Live,
    Superseded,
    Expired,
    Archived,
    Deleted,
}

impl MemoryState {
    pub const ALL: [MemoryState; 5] = [
        MemoryState::Live,
        MemoryState::Superseded,
        MemoryState::Expired,
        MemoryState::Archived,
        MemoryState::Deleted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            MemoryState::Live => "live",
            MemoryState::Superseded => "superseded",
            MemoryState::Expired => "expired",
            MemoryState::Archived => "archived",
            MemoryState::Deleted => "deleted",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }
}

impl Memory {
    /// Deletion wins over supersession, which wins over archiving, which
    /// wins over expiry.
    pub fn state(&self, now: DateTime<Utc>) -> MemoryState {
        if self.deleted_at.is_some() {
            MemoryState::Deleted
        } else if self.superseded_by.is_some() {
            MemoryState::Superseded
        } else if self.archived_at.is_some() {
            MemoryState::Archived
        } else if self.expires_at.is_some_and(|t| t <= now) {
            MemoryState::Expired
        } else {
            MemoryState::Live
        }
    }
}

/// How a memory came to be: which job, extractor, model and prompt made it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    pub job_id: Option<Uuid>,
    pub extractor: Option<String>,
    pub model: Option<String>,
    pub prompt_version: Option<String>,
    /// An episodic memory of a turn: who said it and which turn it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub said: Option<SaidIn>,
    /// A fact: the piece of what was said it was read from, when kept.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence_id: Option<Uuid>,
}

/// The turn a piece of what was said came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SaidIn {
    pub by: Speaker,
    /// The turn's place in its session (`memory.session_id`); none for an add.
    pub seq: Option<i64>,
    /// Which piece of the turn (from 0), of how many.
    pub piece: i32,
    pub pieces: i32,
    /// The speaker's name, when the message gave one ("Caroline").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// What an add did with one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum AddEvent {
    Add,
    Noop,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum HistoryEvent {
    Add,
    Update,
    Supersede,
    Merge,
    Noop,
    Delete,
    Revert,
    /// Consolidation archived it (decayed below the floor).
    Archive,
    /// The user took the fact back ("I no longer work at X").
    Retract,
    /// The user asked that it be forgotten.
    Forget,
}
str_enum!(HistoryEvent { Add => "ADD", Update => "UPDATE", Supersede => "SUPERSEDE", Merge => "MERGE", Noop => "NOOP", Delete => "DELETE", Revert => "REVERT", Archive => "ARCHIVE", Retract => "RETRACT", Forget => "FORGET" });

/// Where a background job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    Queued,
    Running,
    Done,
    Failed,
}
str_enum!(JobStatus { Queued => "queued", Running => "running", Done => "done", Failed => "failed" });

#[derive(Debug, Clone, Serialize)]
pub struct HistoryEntry {
    pub id: Uuid,
    pub memory_id: Uuid,
    pub event: HistoryEvent,
    pub old_content: Option<String>,
    pub new_content: Option<String>,
    pub old_metadata: Option<serde_json::Value>,
    pub new_metadata: Option<serde_json::Value>,
    pub actor: String,
    pub reason: Option<String>,
    pub created_at: DateTime<Utc>,
    pub job_id: Option<Uuid>,
    pub source_message: Option<String>,
    pub extractor: Option<String>,
    pub model: Option<String>,
    pub prompt_version: Option<String>,
    pub confidence: Option<f32>,
}

/// A partial update of a memory. `None` leaves the field as it is.
#[derive(Debug, Clone, Default)]
pub struct MemoryPatch {
    pub content: Option<String>,
    /// A fact's value (profile corrections); the content changes with it.
    pub value: Option<String>,
    pub metadata: Option<serde_json::Value>,
    pub importance: Option<f32>,
    pub pinned: Option<bool>,
    /// `Some(None)` clears the expiry.
    pub expires_at: Option<Option<DateTime<Utc>>>,
}

impl MemoryPatch {
    pub fn is_empty(&self) -> bool {
        self.content.is_none()
            && self.value.is_none()
            && self.metadata.is_none()
            && self.importance.is_none()
            && self.pinned.is_none()
            && self.expires_at.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_ignores_surrounding_whitespace_only() {
        assert_eq!(content_hash(" likes tea\n"), content_hash("likes tea"));
        assert_ne!(content_hash("likes tea"), content_hash("Likes tea"));
    }

    #[test]
    fn enums_round_trip_through_their_names() {
        for k in [
            MemoryKind::Semantic,
            MemoryKind::Episodic,
            MemoryKind::Procedural,
        ] {
            assert_eq!(MemoryKind::parse(k.as_str()), Some(k));
        }
        assert_eq!(
            SourceType::parse("user_stated"),
            Some(SourceType::UserStated)
        );
        assert_eq!(SourceType::parse("nope"), None);
    }
}
