//! Bodies of the admin endpoints: keys, audit, the GDPR endpoints, consolidation.

use chrono::{DateTime, Utc};
use engram_core::time::Timestamp;
use engram_core::HistoryEntry;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::MemoryOut;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateKeyRequest {
    /// The tenant's name (created if new); absent for admin keys.
    pub tenant: Option<String>,
    pub role: String,
    pub name: String,
    /// Bind the key to this user of its tenant: it acts only for them.
    pub user_id: Option<String>,
    /// With `user_id`: bind the key to this agent of the user as well.
    pub agent_id: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct KeyOut {
    pub id: Uuid,
    pub tenant_id: Option<Uuid>,
    pub tenant: Option<String>,
    pub role: String,
    pub name: String,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// The user a bound key acts for; null for an unbound key.
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
}

impl From<engram_store::KeyInfo> for KeyOut {
    fn from(k: engram_store::KeyInfo) -> Self {
        Self {
            id: k.id,
            tenant_id: k.tenant_id,
            tenant: k.tenant,
            role: k.role,
            name: k.name,
            created_by: k.created_by,
            created_at: k.created_at,
            last_used_at: k.last_used_at,
            revoked_at: k.revoked_at,
            user_id: k.user_id,
            agent_id: k.agent_id,
        }
    }
}

/// The calling key as the server sees it (`GET /v1/me`).
#[derive(Debug, Serialize)]
pub struct CallerOut {
    pub tenant_id: Uuid,
    pub role: String,
    /// Null for the key in ENGRAM_API_KEY.
    pub key_id: Option<Uuid>,
    /// The user a bound key acts for; null for an unbound key.
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct CreatedKeyOut {
    /// The key itself: shown this once, stored only as a hash.
    pub key: String,
    #[serde(flatten)]
    pub info: KeyOut,
}

#[derive(Debug, Serialize)]
pub struct KeyListResponse {
    pub results: Vec<KeyOut>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditQueryParams {
    pub action: Option<String>,
    pub actor: Option<String>,
    pub since: Option<Timestamp>,
    pub until: Option<Timestamp>,
    /// Entries about one user of the acting tenant.
    pub user_id: Option<String>,
    pub limit: Option<i64>,
    pub cursor: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct AuditListResponse {
    pub results: Vec<engram_store::AuditRecord>,
    pub next_cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminListQuery {
    /// Comma-separated states (live, superseded, expired, deleted); all if absent.
    pub states: Option<String>,
    /// Comma-separated kinds; all if absent.
    pub kinds: Option<String>,
    pub attribute: Option<String>,
    pub source_type: Option<String>,
    pub source_ref: Option<String>,
    pub created_after: Option<Timestamp>,
    pub created_before: Option<Timestamp>,
    /// Content containing this, ignoring case.
    pub text: Option<String>,
    pub limit: Option<i64>,
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminSearchRequest {
    pub query: String,
    pub states: Option<Vec<String>>,
    #[serde(default, deserialize_with = "crate::dto::whole::option")]
    pub top_k: Option<i64>,
}

/// A memory as the admin sees it: any state, with its history.
#[derive(Debug, Serialize)]
pub struct AdminMemoryOut {
    pub state: engram_core::MemoryState,
    pub deleted_at: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevance: Option<f32>,
    #[serde(flatten)]
    pub memory: MemoryOut,
    pub history: Vec<HistoryEntry>,
}

#[derive(Debug, Serialize)]
pub struct AdminListResponse {
    pub results: Vec<AdminMemoryOut>,
    pub next_cursor: Option<String>,
}

/// What an erasure or purge removed, per table.
#[derive(Debug, Serialize)]
pub struct ErasureReceipt {
    pub request_id: Option<String>,
    pub tenant_id: Uuid,
    pub completed_at: DateTime<Utc>,
    /// True when nothing was changed: the counts are what would go.
    pub dry_run: bool,
    pub counts: engram_store::Counts,
}

/// `?dry_run=true` on an erasure or a purge: count, change nothing.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErasureQuery {
    pub dry_run: Option<bool>,
}

impl ErasureQuery {
    pub fn apply(&self) -> engram_store::Apply {
        if self.dry_run == Some(true) {
            engram_store::Apply::DryRun
        } else {
            engram_store::Apply::Commit
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsolidateRequest {
    /// Only this user (of the tenant acted in); everyone when absent.
    pub user_id: Option<String>,
    pub dry_run: Option<bool>,
    pub wait: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunsQuery {
    pub limit: Option<i64>,
}

#[derive(Debug, Serialize)]
pub struct RunsResponse {
    pub runs: Vec<engram_store::ConsolidationRun>,
}
