//! Row shapes as Postgres returns them, and their conversion to domain types.

use chrono::{DateTime, Utc};
use engram_core::{
    HistoryEntry, HistoryEvent, Memory, MemoryKind, Provenance, SaidIn, Scope, Source, SourceType,
    Speaker,
};
use uuid::Uuid;

/// Columns every memory read selects (never the embedding).
pub(crate) const MEMORY_COLUMNS: &str =
    "id, user_id, agent_id, session_id, kind, subject, attribute, value, \
    content, importance, sensitivity, source_type, source_ref, confidence, metadata, pinned, \
    access_count, created_at, updated_at, last_used_at, expires_at, superseded_by, deleted_at, job_id, \
    extractor, model, prompt_version, archived_at, said_by, turn_seq, turn_piece, turn_pieces, \
    said_as, evidence_id";

#[derive(sqlx::FromRow)]
pub(crate) struct MemoryRow {
    id: Uuid,
    user_id: Option<String>,
    agent_id: Option<String>,
    session_id: Option<String>,
    kind: String,
    subject: Option<String>,
    attribute: Option<String>,
    value: Option<String>,
    content: String,
    importance: f32,
    sensitivity: Option<String>,
    source_type: String,
    source_ref: Option<String>,
    confidence: Option<f32>,
    metadata: serde_json::Value,
    pinned: bool,
    access_count: i64,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    last_used_at: Option<DateTime<Utc>>,
    expires_at: Option<DateTime<Utc>>,
    superseded_by: Option<Uuid>,
    deleted_at: Option<DateTime<Utc>>,
    job_id: Option<Uuid>,
    extractor: Option<String>,
    model: Option<String>,
    prompt_version: Option<String>,
    archived_at: Option<DateTime<Utc>>,
    said_by: Option<String>,
    turn_seq: Option<i64>,
    turn_piece: Option<i32>,
    turn_pieces: Option<i32>,
    said_as: Option<String>,
    evidence_id: Option<Uuid>,
}

impl From<MemoryRow> for Memory {
    fn from(r: MemoryRow) -> Self {
        Memory {
            id: r.id,
            scope: Scope {
                user_id: r.user_id,
                agent_id: r.agent_id,
                session_id: r.session_id,
            },
            // The CHECK constraints admit only known names.
            kind: MemoryKind::parse(&r.kind).unwrap_or(MemoryKind::Semantic),
            subject: r.subject,
            attribute: r.attribute,
            value: r.value,
            content: r.content,
            importance: r.importance,
            sensitivity: r.sensitivity,
            source: Source {
                source_type: SourceType::parse(&r.source_type).unwrap_or(SourceType::Api),
                source_ref: r.source_ref,
            },
            confidence: r.confidence,
            metadata: r.metadata,
            pinned: r.pinned,
            access_count: r.access_count,
            created_at: r.created_at,
            updated_at: r.updated_at,
            last_used_at: r.last_used_at,
            expires_at: r.expires_at,
            superseded_by: r.superseded_by,
            deleted_at: r.deleted_at,
            archived_at: r.archived_at,
            provenance: Provenance {
                job_id: r.job_id,
                extractor: r.extractor,
                model: r.model,
                prompt_version: r.prompt_version,
                said: r
                    .said_by
                    .as_deref()
                    .and_then(Speaker::parse)
                    .map(|by| SaidIn {
                        by,
                        seq: r.turn_seq,
                        piece: r.turn_piece.unwrap_or(0),
                        pieces: r.turn_pieces.unwrap_or(1),
                        name: r.said_as,
                    }),
                evidence_id: r.evidence_id,
            },
        }
    }
}

#[derive(sqlx::FromRow)]
pub(crate) struct CandidateRow {
    #[sqlx(flatten)]
    pub memory: MemoryRow,
    pub cosine: f64,
    /// The seeds this row neighbours and its offset from each (NULL when
    /// none were asked for).
    pub seeds: Option<Vec<Uuid>>,
    pub offsets: Option<Vec<i32>>,
}

#[derive(sqlx::FromRow)]
pub(crate) struct HistoryRow {
    id: Uuid,
    memory_id: Uuid,
    event: String,
    old_content: Option<String>,
    new_content: Option<String>,
    old_metadata: Option<serde_json::Value>,
    new_metadata: Option<serde_json::Value>,
    actor: String,
    reason: Option<String>,
    created_at: DateTime<Utc>,
    job_id: Option<Uuid>,
    source_message: Option<String>,
    extractor: Option<String>,
    model: Option<String>,
    prompt_version: Option<String>,
    confidence: Option<f32>,
}

impl From<HistoryRow> for HistoryEntry {
    fn from(r: HistoryRow) -> Self {
        HistoryEntry {
            id: r.id,
            memory_id: r.memory_id,
            event: HistoryEvent::parse(&r.event).unwrap_or(HistoryEvent::Update),
            old_content: r.old_content,
            new_content: r.new_content,
            old_metadata: r.old_metadata,
            new_metadata: r.new_metadata,
            actor: r.actor,
            reason: r.reason,
            created_at: r.created_at,
            job_id: r.job_id,
            source_message: r.source_message,
            extractor: r.extractor,
            model: r.model,
            prompt_version: r.prompt_version,
            confidence: r.confidence,
        }
    }
}
