//! Bodies of the memory endpoints: add, search, list, get, patch, delete, history.

use chrono::{DateTime, Utc};
use engram_core::time::Timestamp;
use engram_core::{
    HistoryEntry, Memory, MemoryKind, ScoreBreakdown, ScoredMemory, Source, SourceType,
};
use serde::{Deserialize, Deserializer, Serialize};
use uuid::Uuid;

use super::Role;

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MessageIn {
    pub role: Role,
    pub content: String,
    pub created_at: Option<Timestamp>,
    pub name: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SourceIn {
    #[serde(rename = "type")]
    pub source_type: SourceType,
    #[serde(rename = "ref")]
    pub source_ref: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AddMemoriesRequest {
    pub messages: Option<Vec<MessageIn>>,
    pub text: Option<String>,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub kind: Option<MemoryKind>,
    pub metadata: Option<serde_json::Value>,
    pub importance: Option<f64>,
    pub expires_at: Option<Timestamp>,
    #[serde(default, deserialize_with = "crate::dto::whole::option")]
    pub ttl_seconds: Option<i64>,
    pub pinned: Option<bool>,
    pub source: Option<SourceIn>,
    pub infer: Option<bool>,
    /// infer: true — also keep the user messages verbatim as episodic memories.
    pub store_raw: Option<bool>,
    /// infer: true — wait (bounded) for the job and answer with its results.
    pub wait: Option<bool>,
    /// infer: true — sensitive categories the user states may be stored.
    pub allow_sensitive: Option<bool>,
    /// infer: true — assistant, tool and system messages may create facts too.
    pub trusted: Option<bool>,
}

#[derive(Debug, Serialize)]
pub struct AddJobResponse {
    pub job_id: Uuid,
    pub status: engram_core::JobStatus,
    /// Raw memories stored with the job (`store_raw`).
    pub raw: Vec<AddResult>,
    /// Messages not read because they were empty.
    pub skipped: Vec<super::SkippedMessage>,
}

/// A message of the request that was skipped, and why.
#[derive(Debug, Serialize)]
pub struct SkippedMessage {
    pub index: usize,
    pub reason: &'static str,
}

/// The messages skipped because they were empty, as a response lists them.
pub fn skipped_empty(positions: &[usize]) -> Vec<SkippedMessage> {
    positions
        .iter()
        .map(|&index| SkippedMessage {
            index,
            reason: "empty",
        })
        .collect()
}

/// The messages of a verbatim add left out because they give the
/// assistant an order (the rest of the batch is stored).
pub fn skipped_orders(positions: &[usize]) -> Vec<SkippedMessage> {
    positions
        .iter()
        .map(|&index| SkippedMessage {
            index,
            reason: "instruction",
        })
        .collect()
}

#[derive(Debug, Serialize)]
pub struct AddResult {
    pub id: Uuid,
    pub memory: String,
    pub event: engram_core::AddEvent,
    /// Kinds of secret redacted from the text before it was stored.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<&'static str>,
}

#[derive(Debug, Serialize)]
pub struct AddMemoriesResponse {
    pub results: Vec<AddResult>,
    /// Messages not stored because they were empty.
    pub skipped: Vec<SkippedMessage>,
}

/// A kind filter: one kind or several.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum KindFilter {
    One(MemoryKind),
    Many(Vec<MemoryKind>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeRange {
    pub gte: Option<Timestamp>,
    pub lte: Option<Timestamp>,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SearchFilters {
    pub metadata: Option<serde_json::Value>,
    pub kind: Option<KindFilter>,
    /// true: only what was said (pieces of turns); false: only the rest.
    pub said: Option<bool>,
    pub created_at: Option<TimeRange>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    pub query: String,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    #[serde(default, deserialize_with = "crate::dto::whole::option")]
    pub top_k: Option<i64>,
    pub threshold: Option<f64>,
    pub filters: Option<SearchFilters>,
    pub weights: Option<engram_core::SearchWeights>,
    pub half_life_days: Option<f64>,
    pub include_superseded: Option<bool>,
    pub include_expired: Option<bool>,
    /// dense (default) | lexical | hybrid.
    pub mode: Option<engram_core::SearchMode>,
    /// Hybrid only: the lexical share of relevance, 0..=1.
    pub lexical_weight: Option<f64>,
    /// Hybrid only: how much the evidence around a match adds.
    pub signal_weights: Option<engram_core::SignalWeights>,
    /// What a period named in the query does: prefer (default) | filter | off.
    pub query_time: Option<QueryTimeUse>,
    /// "Now" for relative periods in the query ("last week"); default now.
    pub reference_time: Option<Timestamp>,
}

/// What a period named in a search query ("in May 2023") does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryTimeUse {
    /// Memories from (or near) the period rank higher.
    #[default]
    Prefer,
    /// Only memories created within the period are returned.
    Filter,
    /// Dates in the query are ordinary words.
    Off,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub limit: Option<i64>,
    pub cursor: Option<String>,
    pub include_superseded: Option<bool>,
    pub include_expired: Option<bool>,
    /// true: only what was said (pieces of turns); false: only the rest.
    pub said: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeQuery {
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchMemoryRequest {
    pub memory: Option<String>,
    pub metadata: Option<serde_json::Value>,
    pub importance: Option<f64>,
    pub pinned: Option<bool>,
    /// Absent leaves the expiry; `null` clears it.
    #[serde(default, deserialize_with = "present")]
    pub expires_at: Option<Option<Timestamp>>,
}

/// `POST /v1/memories/batch`: changes and deletes, one transaction.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchRequest {
    #[serde(default)]
    pub update: Vec<BatchUpdate>,
    #[serde(default)]
    pub delete: Vec<Uuid>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BatchUpdate {
    pub id: Uuid,
    pub memory: Option<String>,
    pub metadata: Option<serde_json::Value>,
    pub importance: Option<f64>,
    pub pinned: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    pub expires_at: Option<Option<Timestamp>>,
}

impl BatchUpdate {
    pub fn split(self) -> (Uuid, PatchMemoryRequest) {
        let patch = PatchMemoryRequest {
            memory: self.memory,
            metadata: self.metadata,
            importance: self.importance,
            pinned: self.pinned,
            expires_at: self.expires_at,
        };
        (self.id, patch)
    }
}

#[derive(Debug, Serialize)]
pub struct BatchResponse {
    pub updated: Vec<MemoryOut>,
    pub deleted: Vec<Uuid>,
    /// Rows changed per table.
    pub counts: engram_store::Counts,
}

/// Tells an absent field (`None`) from an explicit `null` (`Some(None)`).
pub(crate) fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Debug, Serialize)]
pub struct MemoryOut {
    pub id: Uuid,
    pub memory: String,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub kind: MemoryKind,
    pub subject: Option<String>,
    pub attribute: Option<String>,
    pub value: Option<String>,
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
    /// Set when consolidation archived it: out of default search, restorable.
    pub archived_at: Option<DateTime<Utc>>,
    pub provenance: engram_core::Provenance,
}

impl From<Memory> for MemoryOut {
    fn from(m: Memory) -> Self {
        Self {
            id: m.id,
            memory: m.content,
            user_id: m.scope.user_id,
            agent_id: m.scope.agent_id,
            session_id: m.scope.session_id,
            kind: m.kind,
            subject: m.subject,
            attribute: m.attribute,
            value: m.value,
            importance: m.importance,
            sensitivity: m.sensitivity,
            source: m.source,
            confidence: m.confidence,
            metadata: m.metadata,
            pinned: m.pinned,
            access_count: m.access_count,
            created_at: m.created_at,
            updated_at: m.updated_at,
            last_used_at: m.last_used_at,
            expires_at: m.expires_at,
            superseded_by: m.superseded_by,
            archived_at: m.archived_at,
            provenance: m.provenance,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct SearchHit {
    pub score: f32,
    pub scores: ScoreBreakdown,
    #[serde(flatten)]
    pub memory: MemoryOut,
}

impl From<ScoredMemory> for SearchHit {
    fn from(s: ScoredMemory) -> Self {
        Self {
            score: s.score,
            scores: s.scores,
            memory: s.memory.into(),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct SearchResponse {
    pub results: Vec<SearchHit>,
    /// The period the query named and how it was read; absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_time: Option<engram_core::querytime::QueryTime>,
}

#[derive(Debug, Serialize)]
pub struct ListResponse {
    pub results: Vec<MemoryOut>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct DeleteScopeResponse {
    /// Memories deleted (every state).
    pub deleted: i64,
    /// Rows removed or redacted per table.
    pub counts: engram_store::Counts,
}

#[derive(Debug, Serialize)]
pub struct HistoryResponse {
    pub results: Vec<HistoryEntry>,
}
