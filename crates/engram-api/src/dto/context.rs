//! Bodies of the context block and the profile.

use chrono::{DateTime, Utc};
use engram_core::time::Timestamp;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::MemoryOut;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextRequest {
    pub user_id: String,
    pub session_id: Option<String>,
    pub query: String,
    #[serde(deserialize_with = "crate::dto::whole::required")]
    pub token_budget: i64,
    /// The sections to use, in priority order (default profile, memories,
    /// summary, recent).
    pub include: Option<Vec<engram_context::Section>>,
    /// Memories searched for the query (default: enough to fill the budget).
    #[serde(default, deserialize_with = "crate::dto::whole::option")]
    pub top_k: Option<i64>,
    /// "Now" for periods named in the query.
    pub reference_time: Option<Timestamp>,
}

#[derive(Debug, Serialize)]
pub struct ContextResponse {
    /// The block to paste into a system prompt; empty when nothing fits.
    pub text: String,
    pub tokens_used: usize,
    pub token_budget: usize,
    pub tokenizer: engram_context::Encoding,
    pub parts: Vec<engram_context::Part>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_time: Option<engram_core::querytime::QueryTime>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProfileQuery {
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
pub struct ProfileSummaryOut {
    pub session_id: String,
    pub content: String,
    pub first_seq: i64,
    pub last_seq: i64,
    pub updated_at: DateTime<Utc>,
}

impl From<engram_store::UserSummary> for ProfileSummaryOut {
    fn from(s: engram_store::UserSummary) -> Self {
        Self {
            session_id: s.session_id,
            content: s.summary.content,
            first_seq: s.summary.first_seq,
            last_seq: s.summary.last_seq,
            updated_at: s.summary.updated_at,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct ProfileResponse {
    pub user_id: String,
    /// Current values per subject + attribute and pinned memories, pinned
    /// first, then by importance.
    pub entries: Vec<MemoryOut>,
    /// The user's latest session summary.
    pub summary: Option<ProfileSummaryOut>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PatchProfileRequest {
    /// The entry (a memory id from the profile).
    pub id: Uuid,
    pub value: Option<String>,
    pub memory: Option<String>,
    pub remove: Option<bool>,
}
