//! The bodies of `GET /v1/jobs`, `GET /v1/jobs/{id}` and of an add that
//! waited for its job.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

#[derive(Debug, Serialize)]
pub struct JobOut {
    pub job_id: Uuid,
    /// extract, summarize or consolidate.
    pub kind: &'static str,
    pub status: engram_core::JobStatus,
    pub attempts: i32,
    pub max_attempts: i32,
    pub error: Option<String>,
    pub results: serde_json::Value,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

impl From<engram_store::JobRow> for JobOut {
    fn from(j: engram_store::JobRow) -> Self {
        Self {
            job_id: j.id,
            kind: j.kind.as_str(),
            status: j.status,
            attempts: j.attempts,
            max_attempts: j.max_attempts,
            error: j.last_error,
            results: j.results,
            user_id: j.user_id,
            agent_id: j.agent_id,
            session_id: j.session_id,
            created_at: j.created_at,
            updated_at: j.updated_at,
            finished_at: j.finished_at,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JobsQuery {
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub status: Option<String>,
    pub kind: Option<String>,
    pub limit: Option<i64>,
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct JobListResponse {
    pub results: Vec<JobOut>,
    pub next_cursor: Option<String>,
}
