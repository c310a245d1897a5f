//! Bodies of the session endpoints.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::MessageIn;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppendMessagesRequest {
    pub user_id: String,
    pub messages: Vec<MessageIn>,
    /// Extract facts from these turns (default true).
    pub infer: Option<bool>,
    /// The window's budget for a new session (tokens); ignored afterwards.
    #[serde(default, deserialize_with = "crate::dto::whole::option")]
    pub window_tokens: Option<i64>,
    /// Sensitive categories the user states may be stored (as on add).
    pub allow_sensitive: Option<bool>,
    /// Assistant, tool and system turns may create facts too (as on add).
    pub trusted: Option<bool>,
    /// Keep these turns as what was said (episodic memories): default
    /// `ENGRAM_EPISODIC`; false keeps none.
    pub store_raw: Option<bool>,
}

/// A turn as stored is already its wire form.
pub type TurnOut = engram_store::SessionTurn;

#[derive(Debug, Serialize)]
pub struct AppendMessagesResponse {
    pub session_id: String,
    pub user_id: String,
    pub messages: Vec<TurnOut>,
    /// Turns that left the window with this append (to be summarised).
    pub left_window: usize,
    pub summarize_job_id: Option<Uuid>,
    pub extract_job_id: Option<Uuid>,
    /// Messages not stored because they were empty.
    pub skipped: Vec<super::SkippedMessage>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListTurnsQuery {
    pub limit: Option<i64>,
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct ListTurnsResponse {
    pub session_id: String,
    pub user_id: String,
    pub messages: Vec<TurnOut>,
    pub next_cursor: Option<String>,
}

/// A summary as stored is already its wire form (`first_seq`..`last_seq`
/// are the turns it covers).
pub type SummaryOut = engram_store::SessionSummary;

#[derive(Debug, Serialize)]
pub struct SessionOut {
    pub session_id: String,
    pub user_id: String,
    pub window_tokens: i32,
    pub summary: Option<SummaryOut>,
    /// The turns in the window, oldest first.
    pub window: Vec<TurnOut>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl From<engram_store::SessionState> for SessionOut {
    fn from(s: engram_store::SessionState) -> Self {
        Self {
            session_id: s.info.session_id,
            user_id: s.info.user_id,
            window_tokens: s.info.window_tokens,
            summary: s.summary,
            window: s.window,
            created_at: s.info.created_at,
            updated_at: s.info.updated_at,
        }
    }
}
