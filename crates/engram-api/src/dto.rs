//! Request and response bodies of the HTTP API, and their translation into
//! domain values. Every request type denies unknown fields.

use chrono::{DateTime, Utc};
use engram_core::time::Timestamp;
use engram_core::validate::{self, in_range};
use engram_core::{
    Cursor, FieldError, HistoryEntry, Limits, Memory, MemoryFilter, MemoryKind, Scope,
    ScoreBreakdown, ScoredMemory, Source, SourceType,
};
use serde::{Deserialize, Deserializer, Serialize};
use uuid::Uuid;

pub use engram_core::extract::Role;

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MessageIn {
    pub role: Role,
    pub content: String,
    pub created_at: Option<Timestamp>,
    pub name: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SourceIn {
    #[serde(rename = "type")]
    pub source_type: SourceType,
    #[serde(rename = "ref")]
    pub source_ref: Option<String>,
}

#[derive(Debug, Deserialize, Serialize)]
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
    #[serde(default, deserialize_with = "whole::option")]
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
}

#[derive(Debug, Serialize)]
pub struct JobOut {
    pub job_id: Uuid,
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
            status: j.status(),
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
    pub created_at: Option<TimeRange>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchRequest {
    pub query: String,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    #[serde(default, deserialize_with = "whole::option")]
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

/// Tells an absent field (`None`) from an explicit `null` (`Some(None)`).
fn present<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
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

// ---- translation into domain values ------------------------------------------

/// A page size: `default` when absent, else 1..=1000 (422 naming `limit`).
pub fn page_limit(limit: Option<i64>, default: i64) -> Result<usize, crate::error::ApiError> {
    let limit = limit.unwrap_or(default);
    if !(1..=1000).contains(&limit) {
        return Err(crate::error::ApiError::validation(
            "limit",
            "must be between 1 and 1000",
        ));
    }
    Ok(limit as usize)
}

/// Validates scope identifiers; `require_owner` demands a user or agent.
pub fn scope(
    user_id: &Option<String>,
    agent_id: &Option<String>,
    session_id: &Option<String>,
    require_owner: bool,
    limits: &Limits,
) -> Result<Scope, FieldError> {
    let check = |field: &str, v: &Option<String>| {
        v.as_deref()
            .map(|v| validate::identifier(field, v, limits))
            .transpose()
    };
    let scope = Scope {
        user_id: check("user_id", user_id)?,
        agent_id: check("agent_id", agent_id)?,
        session_id: check("session_id", session_id)?,
    };
    if require_owner && scope.user_id.is_none() && scope.agent_id.is_none() {
        return Err(FieldError::new(
            "user_id",
            "a user_id or agent_id is required",
        ));
    }
    if scope.user_id.is_none() && scope.agent_id.is_none() && scope.session_id.is_none() {
        return Err(FieldError::new(
            "user_id",
            "a user_id, agent_id or session_id is required",
        ));
    }
    Ok(scope)
}

/// A message of an add or a session append, validated, secrets redacted.
pub struct ValidMessage {
    pub role: Role,
    pub content: String,
    pub created_at: Option<DateTime<Utc>>,
    /// The kinds of secret redacted from it.
    pub redacted: Vec<&'static str>,
}

/// A text that will be stored: validated, and every secret in it redacted
/// (the kinds redacted come back, so the response can say so).
pub fn stored_text(
    field: &str,
    value: &str,
    limits: &Limits,
) -> Result<(String, Vec<&'static str>), FieldError> {
    let text = validate::content(field, value, limits)?;
    Ok(engram_core::policy::redact(&text))
}

/// The messages of an add or a session append: 1..=max_messages of them,
/// each a valid content, and all together at most `max_total_chars`
/// characters (what one request may give the embedder).
pub fn messages(
    messages: &[MessageIn],
    limits: &Limits,
    max_total_chars: usize,
) -> Result<Vec<ValidMessage>, FieldError> {
    if messages.is_empty() {
        return Err(FieldError::new("messages", "must not be empty"));
    }
    if messages.len() > limits.max_messages {
        return Err(FieldError::new(
            "messages",
            format!("at most {} messages per request", limits.max_messages),
        ));
    }
    let mut total = 0usize;
    let mut valid = Vec::with_capacity(messages.len());
    for (i, m) in messages.iter().enumerate() {
        let (content, redacted) =
            stored_text(&format!("messages[{i}].content"), &m.content, limits)?;
        total = total.saturating_add(m.content.chars().count());
        if total > max_total_chars {
            return Err(FieldError::new(
                "messages",
                format!(
                    "at most {max_total_chars} characters in all messages of one request (ENGRAM_MAX_ADD_CHARS); send the rest in another request"
                ),
            ));
        }
        valid.push(ValidMessage {
            role: m.role,
            content,
            created_at: m.created_at.map(Timestamp::get),
            redacted,
        });
    }
    Ok(valid)
}

pub fn importance(field: &str, v: Option<f64>) -> Result<Option<f32>, FieldError> {
    v.map(|v| in_range(field, v, 0.0, 1.0).map(|v| v as f32))
        .transpose()
}

/// Metadata: a bounded JSON object, with any secret in its string values
/// redacted before it is stored.
pub fn metadata(
    v: Option<serde_json::Value>,
    limits: &Limits,
) -> Result<Option<serde_json::Value>, FieldError> {
    if let Some(m) = &v {
        validate::metadata("metadata", m, limits)?;
    }
    Ok(v.map(|m| engram_core::policy::redact_json(&m).0))
}

pub fn cursor(v: &Option<String>) -> Result<Option<Cursor>, FieldError> {
    v.as_deref()
        .map(|s| {
            Cursor::decode(s)
                .ok_or_else(|| FieldError::new("cursor", "is not a cursor returned by this API"))
        })
        .transpose()
}

impl SearchFilters {
    pub fn apply(self, filter: &mut MemoryFilter, limits: &Limits) -> Result<(), FieldError> {
        if let Some(m) = self.metadata {
            validate::metadata("filters.metadata", &m, limits)?;
            filter.metadata = Some(m);
        }
        filter.kinds = match self.kind {
            None => Vec::new(),
            Some(KindFilter::One(k)) => vec![k],
            Some(KindFilter::Many(ks)) => ks,
        };
        if let Some(r) = self.created_at {
            if let (Some(a), Some(b)) = (r.gte, r.lte) {
                if a > b {
                    return Err(FieldError::new(
                        "filters.created_at",
                        "gte must not be after lte",
                    ));
                }
            }
            filter.created_gte = r.gte.map(Timestamp::get);
            filter.created_lte = r.lte.map(Timestamp::get);
        }
        Ok(())
    }
}

// ---- admin: keys, audit, the GDPR endpoints ----------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateKeyRequest {
    /// The tenant's name (created if new); absent for admin keys.
    pub tenant: Option<String>,
    pub role: String,
    pub name: String,
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
        }
    }
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
    pub limit: Option<i64>,
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdminSearchRequest {
    pub query: String,
    pub states: Option<Vec<String>>,
    #[serde(default, deserialize_with = "whole::option")]
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
    pub counts: engram_store::Counts,
}

// ---- sessions ----------------------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppendMessagesRequest {
    pub user_id: String,
    pub messages: Vec<MessageIn>,
    /// Extract facts from these turns (default true).
    pub infer: Option<bool>,
    /// The window's budget for a new session (tokens); ignored afterwards.
    #[serde(default, deserialize_with = "whole::option")]
    pub window_tokens: Option<i64>,
    /// Sensitive categories the user states may be stored (as on add).
    pub allow_sensitive: Option<bool>,
    /// Assistant, tool and system turns may create facts too (as on add).
    pub trusted: Option<bool>,
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

// ---- context and profile -----------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContextRequest {
    pub user_id: String,
    pub session_id: Option<String>,
    pub query: String,
    #[serde(deserialize_with = "whole::required")]
    pub token_budget: i64,
    /// The sections to use, in priority order (default profile, memories,
    /// summary, recent).
    pub include: Option<Vec<engram_context::Section>>,
    /// Memories searched for the query (default 10).
    #[serde(default, deserialize_with = "whole::option")]
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

// ---- consolidation -----------------------------------------------------------

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

/// Integer fields of request bodies. JSON Schema, and so `openapi.yaml`,
/// counts `14.0` as the integer 14, so these accept a number with no
/// fractional part; `14.5`, a string, or a value beyond i64 is still refused.
mod whole {
    use serde::de::{Deserializer, Error};
    use serde::Deserialize;
    use serde_json::Number;

    pub fn required<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        let n = Number::deserialize(d)?;
        integer(&n).ok_or_else(|| D::Error::custom(format!("{n} is not a whole number")))
    }

    pub fn option<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        Option::<Number>::deserialize(d)?
            .map(|n| {
                integer(&n).ok_or_else(|| D::Error::custom(format!("{n} is not a whole number")))
            })
            .transpose()
    }

    fn integer(n: &Number) -> Option<i64> {
        n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            // i64::MAX as f64 rounds up to 2^63, so the bound is exclusive.
            (f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64).then_some(f as i64)
        })
    }
}
