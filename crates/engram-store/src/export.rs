//! The user export format (`engram.user-export`, version 1) and its two ends: a
//! paged reader over one consistent snapshot, and the import that loads a
//! document back in one transaction.
//!
//! The document mirrors the tables, not the API: every column a deployment
//! needs to restore the user, except embeddings, which the importing side
//! recomputes with its own embedder (so a user can move to a deployment that
//! embeds differently, and the export stays readable).

use chrono::{DateTime, Utc};
use pgvector::Vector;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{Postgres, QueryBuilder, Transaction};
use uuid::Uuid;

use crate::admin::{commit_with_receipt, Counts};
use crate::audit::{AuditEntry, AuditRecord};
use crate::ownership::refuse_foreign_sessions;
use crate::tenant::enter_tenant;
use crate::{ConflictKind, Store, StoreError};

pub const EXPORT_FORMAT: &str = "engram.user-export";
pub const EXPORT_VERSION: u32 = 1;

/// The document's opening fields.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExportHeader {
    pub format: String,
    pub version: u32,
    pub exported_at: DateTime<Utc>,
    pub tenant: ExportTenant,
    pub user_id: String,
    /// The embedder of the exporting deployment (informational).
    pub embedder: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExportTenant {
    pub id: Uuid,
    pub name: String,
}

/// A whole document, as `engram import` reads it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExportDocument {
    #[serde(flatten)]
    pub header: ExportHeader,
    pub memories: Vec<ExportedMemory>,
    pub jobs: Vec<ExportedJob>,
    /// Sessions with every turn and the running summary (absent in
    /// documents written before sessions existed).
    #[serde(default)]
    pub sessions: Vec<ExportedSession>,
    #[serde(default)]
    pub audit: Vec<AuditRecord>,
}

#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow)]
pub struct ExportedSession {
    pub session_id: String,
    pub window_tokens: i32,
    pub next_seq: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    #[sqlx(skip)]
    pub messages: Vec<crate::SessionTurn>,
    #[sqlx(skip)]
    pub summary: Option<crate::SessionSummary>,
}

#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow)]
pub struct ExportedMemory {
    pub id: Uuid,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub kind: String,
    pub subject: Option<String>,
    pub attribute: Option<String>,
    pub value: Option<String>,
    pub content: String,
    pub importance: f32,
    pub sensitivity: Option<String>,
    pub source_type: String,
    pub source_ref: Option<String>,
    pub confidence: Option<f32>,
    pub metadata: Value,
    pub pinned: bool,
    pub access_count: i64,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub superseded_by: Option<Uuid>,
    pub deleted_at: Option<DateTime<Utc>>,
    /// The importance as stated, which decay works from (null: `importance`).
    #[serde(default)]
    pub base_importance: Option<f32>,
    #[serde(default)]
    pub archived_at: Option<DateTime<Utc>>,
    pub job_id: Option<Uuid>,
    pub extractor: Option<String>,
    pub model: Option<String>,
    pub prompt_version: Option<String>,
    /// A piece of what was said: who said it, its turn and its place in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub said_by: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_seq: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_piece: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_pieces: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub said_as: Option<String>,
    /// A fact: the piece of what was said it was read from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence_id: Option<Uuid>,
    #[sqlx(skip)]
    #[serde(default)]
    pub history: Vec<ExportedHistory>,
}

#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow)]
pub struct ExportedHistory {
    pub id: Uuid,
    pub memory_id: Uuid,
    pub event: String,
    pub old_content: Option<String>,
    pub new_content: Option<String>,
    pub old_metadata: Option<Value>,
    pub new_metadata: Option<Value>,
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

#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow)]
pub struct ExportedJob {
    pub id: Uuid,
    pub kind: String,
    pub status: String,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub source_ref: Option<String>,
    /// The job's input while it is still held (queued or running jobs).
    pub payload: Option<Value>,
    pub results: Value,
    pub attempts: i32,
    pub max_attempts: i32,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

impl ExportedMemory {
    fn scope(&self) -> engram_core::Scope {
        engram_core::Scope {
            user_id: self.user_id.clone(),
            agent_id: self.agent_id.clone(),
            session_id: self.session_id.clone(),
        }
    }
}

impl ExportedJob {
    fn scope(&self) -> engram_core::Scope {
        engram_core::Scope {
            user_id: self.user_id.clone(),
            agent_id: self.agent_id.clone(),
            session_id: self.session_id.clone(),
        }
    }
}

/// One piece of a streamed export, in document order.
#[derive(Debug)]
pub enum ExportChunk {
    Memories(Vec<ExportedMemory>),
    Jobs(Vec<ExportedJob>),
    Sessions(Vec<ExportedSession>),
    Audit(Vec<AuditRecord>),
}

enum Stage {
    Memories {
        after: Option<(DateTime<Utc>, Uuid)>,
    },
    Jobs,
    Sessions,
    Audit,
    Done,
}

/// A user's data read page by page inside one REPEATABLE READ transaction, so
/// the whole export is one consistent snapshot. The API reads it whole into
/// a spool before sending it, so the transaction lasts as long as the
/// database takes, not as long as the client.
pub struct UserExport {
    tx: Transaction<'static, Postgres>,
    tenant: Uuid,
    user_id: String,
    /// The user's pseudonym, which the audit log's entries about them carry.
    subject_hash: String,
    page: i64,
    stage: Stage,
}

const EXPORT_MEMORY_COLUMNS: &str = "id, user_id, agent_id, session_id, kind, subject, attribute, \
    value, content, importance, sensitivity, source_type, source_ref, confidence, metadata, pinned, \
    access_count, created_at, updated_at, last_used_at, expires_at, superseded_by, deleted_at, \
    job_id, extractor, model, prompt_version, base_importance, archived_at, said_by, turn_seq, \
    turn_piece, turn_pieces, said_as, evidence_id";

const EXPORT_HISTORY_COLUMNS: &str = "id, memory_id, event, old_content, new_content, \
    old_metadata, new_metadata, actor, reason, created_at, job_id, source_message, extractor, \
    model, prompt_version, confidence";

impl Store {
    /// Starts an export of everything held about `user_id`. The header comes
    /// back at once; `UserExport::next_chunk` yields the rest.
    pub async fn export_user(
        &self,
        tenant: Uuid,
        user_id: &str,
        page: usize,
    ) -> Result<(ExportHeader, UserExport), StoreError> {
        let subject_hash = self.subject_hash(tenant, user_id).await?;
        let mut tx = self.pool.begin().await?;
        sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            .execute(&mut *tx)
            .await?;
        // A client that stops reading holds this snapshot open; Postgres ends
        // the session after a minute of that rather than keep it for ever.
        sqlx::query("SET LOCAL idle_in_transaction_session_timeout = '60s'")
            .execute(&mut *tx)
            .await?;
        let (tenant_id, name): (Uuid, String) =
            sqlx::query_as("SELECT id, name FROM tenants WHERE id = $1")
                .bind(tenant)
                .fetch_one(&mut *tx)
                .await?;
        let embedder: Option<String> =
            sqlx::query_scalar("SELECT embedder_id FROM embedder_settings")
                .fetch_optional(&mut *tx)
                .await?;
        enter_tenant(&mut tx, tenant).await?;
        let header = ExportHeader {
            format: EXPORT_FORMAT.into(),
            version: EXPORT_VERSION,
            exported_at: Utc::now(),
            tenant: ExportTenant {
                id: tenant_id,
                name,
            },
            user_id: user_id.to_owned(),
            embedder,
        };
        Ok((
            header,
            UserExport {
                tx,
                tenant,
                user_id: user_id.to_owned(),
                subject_hash,
                page: page.max(1) as i64,
                stage: Stage::Memories { after: None },
            },
        ))
    }

    /// Loads an export into `tenant` in one transaction: memories in every state
    /// with their history (ids, times and provenance kept), and jobs (a job
    /// that was running is queued again). `embeddings` are the memories', in
    /// order. Fails without writing anything if any id already exists.
    pub async fn import_user(
        &self,
        tenant: Uuid,
        doc: &ExportDocument,
        embeddings: &[Vec<f32>],
        audit: AuditEntry,
    ) -> Result<Counts, StoreError> {
        if embeddings.len() != doc.memories.len() {
            return Err(StoreError::Internal(
                "one embedding per memory is needed".into(),
            ));
        }
        let subject_hash = self.subject_hash(tenant, &doc.header.user_id).await?;
        let mut tx = self.tenant_tx(tenant).await?;
        // What the document's memories and jobs name must be its user's.
        let scopes: Vec<(engram_core::Scope, Option<&str>)> = doc
            .memories
            .iter()
            .map(|m| (m.scope(), m.source_ref.as_deref()))
            .chain(
                doc.jobs
                    .iter()
                    .map(|j| (j.scope(), j.source_ref.as_deref())),
            )
            .collect();
        let named: Vec<(Option<&str>, &str)> = scopes
            .iter()
            .flat_map(|(scope, source)| {
                engram_core::named_sessions(scope, *source).map(|s| (scope.user_id.as_deref(), s))
            })
            .collect();
        refuse_foreign_sessions(&mut tx, tenant, &named).await?;
        let mut counts = Counts::new();
        // Bind parameters are capped at 65535 per statement: 37 per memory row.
        for (chunk, vectors) in doc.memories.chunks(1000).zip(embeddings.chunks(1000)) {
            let mut q: QueryBuilder<'_, Postgres> = QueryBuilder::new(
                "INSERT INTO memories (tenant_id, id, user_id, agent_id, session_id, kind, subject, attribute, \
                 value, content, embedding, content_hash, importance, sensitivity, source_type, source_ref, \
                 confidence, metadata, pinned, access_count, created_at, updated_at, last_used_at, expires_at, \
                 deleted_at, job_id, extractor, model, prompt_version, base_importance, archived_at, \
                 said_by, turn_seq, turn_piece, turn_pieces, said_as, evidence_id) ",
            );
            q.push_values(chunk.iter().zip(vectors), |mut b, (m, v)| {
                b.push_bind(tenant)
                    .push_bind(m.id)
                    .push_bind(&m.user_id)
                    .push_bind(&m.agent_id)
                    .push_bind(&m.session_id)
                    .push_bind(&m.kind)
                    .push_bind(&m.subject)
                    .push_bind(&m.attribute)
                    .push_bind(&m.value)
                    .push_bind(&m.content)
                    .push_bind(Vector::from(v.clone()))
                    .push_bind(engram_core::content_hash(&m.content))
                    .push_bind(m.importance)
                    .push_bind(&m.sensitivity)
                    .push_bind(&m.source_type)
                    .push_bind(&m.source_ref)
                    .push_bind(m.confidence)
                    .push_bind(&m.metadata)
                    .push_bind(m.pinned)
                    .push_bind(m.access_count)
                    .push_bind(m.created_at)
                    .push_bind(m.updated_at)
                    .push_bind(m.last_used_at)
                    .push_bind(m.expires_at)
                    .push_bind(m.deleted_at)
                    .push_bind(m.job_id)
                    .push_bind(&m.extractor)
                    .push_bind(&m.model)
                    .push_bind(&m.prompt_version)
                    .push_bind(m.base_importance)
                    .push_bind(m.archived_at)
                    .push_bind(&m.said_by)
                    .push_bind(m.turn_seq)
                    .push_bind(m.turn_piece)
                    .push_bind(m.turn_pieces)
                    .push_bind(&m.said_as)
                    .push_bind(m.evidence_id);
            });
            q.build().execute(&mut *tx).await.map_err(already_there)?;
        }
        // Supersession links last: a memory may point at one in a later chunk.
        let (ids, successors): (Vec<Uuid>, Vec<Uuid>) = doc
            .memories
            .iter()
            .filter_map(|m| m.superseded_by.map(|s| (m.id, s)))
            .unzip();
        sqlx::query(
            "UPDATE memories m SET superseded_by = t.successor
             FROM unnest($2::uuid[], $3::uuid[]) AS t(id, successor)
             WHERE m.tenant_id = $1 AND m.id = t.id",
        )
        .bind(tenant)
        .bind(&ids)
        .bind(&successors)
        .execute(&mut *tx)
        .await
        .map_err(already_there)?;
        counts.insert("memories".into(), doc.memories.len() as i64);

        let history: Vec<&ExportedHistory> = doc.memories.iter().flat_map(|m| &m.history).collect();
        for chunk in history.chunks(2000) {
            let mut q: QueryBuilder<'_, Postgres> = QueryBuilder::new(
                "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, new_content, \
                 old_metadata, new_metadata, actor, reason, created_at, job_id, source_message, extractor, \
                 model, prompt_version, confidence) ",
            );
            q.push_values(chunk, |mut b, h| {
                b.push_bind(tenant)
                    .push_bind(h.id)
                    .push_bind(h.memory_id)
                    .push_bind(&h.event)
                    .push_bind(&h.old_content)
                    .push_bind(&h.new_content)
                    .push_bind(&h.old_metadata)
                    .push_bind(&h.new_metadata)
                    .push_bind(&h.actor)
                    .push_bind(&h.reason)
                    .push_bind(h.created_at)
                    .push_bind(h.job_id)
                    .push_bind(&h.source_message)
                    .push_bind(&h.extractor)
                    .push_bind(&h.model)
                    .push_bind(&h.prompt_version)
                    .push_bind(h.confidence);
            });
            q.build().execute(&mut *tx).await.map_err(already_there)?;
        }
        counts.insert("memory_history".into(), history.len() as i64);

        for j in &doc.jobs {
            let status = if j.status == "running" {
                "queued"
            } else {
                &j.status
            };
            sqlx::query(
                "INSERT INTO jobs (tenant_id, id, kind, status, user_id, agent_id, session_id, source_ref,
                     payload, results, attempts, max_attempts, last_error, created_at, updated_at, finished_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
            )
            .bind(tenant)
            .bind(j.id)
            .bind(&j.kind)
            .bind(status)
            .bind(&j.user_id)
            .bind(&j.agent_id)
            .bind(&j.session_id)
            .bind(&j.source_ref)
            .bind(&j.payload)
            .bind(&j.results)
            .bind(j.attempts)
            .bind(j.max_attempts)
            .bind(&j.last_error)
            .bind(j.created_at)
            .bind(j.updated_at)
            .bind(j.finished_at)
            .execute(&mut *tx)
            .await
            .map_err(already_there)?;
        }
        counts.insert("jobs".into(), doc.jobs.len() as i64);
        import_sessions(
            &mut tx,
            tenant,
            &doc.header.user_id,
            &doc.sessions,
            &mut counts,
        )
        .await?;
        let entry = AuditEntry {
            tenant_id: Some(tenant),
            target: Some("user".into()),
            subject_hash: Some(subject_hash),
            ..audit
        };
        commit_with_receipt(tx, entry, counts).await
    }
}

async fn import_sessions(
    tx: &mut sqlx::PgConnection,
    tenant: Uuid,
    user_id: &str,
    sessions: &[ExportedSession],
    counts: &mut Counts,
) -> Result<(), StoreError> {
    let mut turns = 0;
    for s in sessions {
        sqlx::query(
            "INSERT INTO sessions (tenant_id, session_id, user_id, window_tokens, next_seq, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(tenant)
        .bind(&s.session_id)
        .bind(user_id)
        .bind(s.window_tokens)
        .bind(s.next_seq)
        .bind(s.created_at)
        .bind(s.updated_at)
        .execute(&mut *tx)
        .await
        .map_err(already_there)?;
        for t in &s.messages {
            sqlx::query(
                "INSERT INTO session_messages (tenant_id, session_id, seq, id, role, content, tokens, created_at, summarized_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(tenant)
            .bind(&s.session_id)
            .bind(t.seq)
            .bind(t.id)
            .bind(&t.role)
            .bind(&t.content)
            .bind(t.tokens)
            .bind(t.created_at)
            .bind(t.summarized_at)
            .execute(&mut *tx)
            .await
            .map_err(already_there)?;
        }
        turns += s.messages.len();
        if let Some(m) = &s.summary {
            sqlx::query(
                "INSERT INTO session_summaries (tenant_id, session_id, content, tokens, first_seq, last_seq, summarizer, updated_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
            )
            .bind(tenant)
            .bind(&s.session_id)
            .bind(&m.content)
            .bind(m.tokens)
            .bind(m.first_seq)
            .bind(m.last_seq)
            .bind(&m.summarizer)
            .bind(m.updated_at)
            .execute(&mut *tx)
            .await
            .map_err(already_there)?;
        }
    }
    counts.insert("sessions".into(), sessions.len() as i64);
    counts.insert("session_messages".into(), turns as i64);
    Ok(())
}

fn already_there(e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => StoreError::Conflict(
            ConflictKind::ImportCollision,
            format!(
                "the import collides with data already here ({}); nothing was written",
                db.constraint().unwrap_or("unique key")
            ),
        ),
        sqlx::Error::Database(db) if db.is_foreign_key_violation() => StoreError::Conflict(
            ConflictKind::ImportCollision,
            "the document refers to a memory it does not contain; nothing was written".into(),
        ),
        _ => e.into(),
    }
}

impl UserExport {
    /// Ends the snapshot (its connection goes back to the pool).
    pub async fn finish(self) -> Result<(), StoreError> {
        self.tx.commit().await?;
        Ok(())
    }

    /// The next piece of the document, or `None` when everything was read.
    pub async fn next_chunk(&mut self) -> Result<Option<ExportChunk>, StoreError> {
        loop {
            match self.stage {
                Stage::Memories { after } => {
                    let mut q: QueryBuilder<'_, Postgres> = QueryBuilder::new(format!(
                        "SELECT {EXPORT_MEMORY_COLUMNS} FROM memories WHERE tenant_id = "
                    ));
                    q.push_bind(self.tenant)
                        .push(" AND user_id = ")
                        .push_bind(self.user_id.clone());
                    if let Some((at, id)) = after {
                        q.push(" AND (created_at, id) > (")
                            .push_bind(at)
                            .push(", ")
                            .push_bind(id)
                            .push(")");
                    }
                    q.push(" ORDER BY created_at, id LIMIT ")
                        .push_bind(self.page);
                    let mut memories: Vec<ExportedMemory> =
                        q.build_query_as().fetch_all(&mut *self.tx).await?;
                    let Some(last) = memories.last() else {
                        self.stage = Stage::Jobs;
                        continue;
                    };
                    self.stage = if (memories.len() as i64) < self.page {
                        Stage::Jobs
                    } else {
                        Stage::Memories {
                            after: Some((last.created_at, last.id)),
                        }
                    };
                    let ids: Vec<Uuid> = memories.iter().map(|m| m.id).collect();
                    let history: Vec<ExportedHistory> = sqlx::query_as(&format!(
                        "SELECT {EXPORT_HISTORY_COLUMNS} FROM memory_history
                         WHERE tenant_id = $1 AND memory_id = ANY($2) ORDER BY created_at, id"
                    ))
                    .bind(self.tenant)
                    .bind(&ids)
                    .fetch_all(&mut *self.tx)
                    .await?;
                    let mut by_memory: std::collections::HashMap<Uuid, Vec<ExportedHistory>> =
                        Default::default();
                    for h in history {
                        by_memory.entry(h.memory_id).or_default().push(h);
                    }
                    for m in &mut memories {
                        m.history = by_memory.remove(&m.id).unwrap_or_default();
                    }
                    return Ok(Some(ExportChunk::Memories(memories)));
                }
                Stage::Jobs => {
                    self.stage = Stage::Sessions;
                    let jobs: Vec<ExportedJob> = sqlx::query_as(
                        "SELECT id, kind, status, user_id, agent_id, session_id, source_ref, payload, results,
                                attempts, max_attempts, last_error, created_at, updated_at, finished_at
                         FROM jobs WHERE tenant_id = $1 AND user_id = $2 ORDER BY created_at, id",
                    )
                    .bind(self.tenant)
                    .bind(&self.user_id)
                    .fetch_all(&mut *self.tx)
                    .await?;
                    return Ok(Some(ExportChunk::Jobs(jobs)));
                }
                Stage::Sessions => {
                    self.stage = Stage::Audit;
                    let mut sessions: Vec<ExportedSession> = sqlx::query_as(
                        "SELECT session_id, window_tokens, next_seq, created_at, updated_at
                         FROM sessions WHERE tenant_id = $1 AND user_id = $2 ORDER BY created_at, session_id",
                    )
                    .bind(self.tenant)
                    .bind(&self.user_id)
                    .fetch_all(&mut *self.tx)
                    .await?;
                    for s in &mut sessions {
                        s.messages = sqlx::query_as(
                            "SELECT seq, id, role, content, tokens, created_at, summarized_at
                             FROM session_messages WHERE tenant_id = $1 AND session_id = $2 ORDER BY seq",
                        )
                        .bind(self.tenant)
                        .bind(&s.session_id)
                        .fetch_all(&mut *self.tx)
                        .await?;
                        s.summary = sqlx::query_as(
                            "SELECT content, tokens, first_seq, last_seq, summarizer, updated_at
                             FROM session_summaries WHERE tenant_id = $1 AND session_id = $2",
                        )
                        .bind(self.tenant)
                        .bind(&s.session_id)
                        .fetch_optional(&mut *self.tx)
                        .await?;
                    }
                    return Ok(Some(ExportChunk::Sessions(sessions)));
                }
                Stage::Audit => {
                    self.stage = Stage::Done;
                    let audit: Vec<AuditRecord> = sqlx::query_as(
                        "SELECT id, tenant_id, at, actor, action, target, subject_hash, request_id, details
                         FROM audit_log WHERE tenant_id = $1 AND subject_hash = $2 ORDER BY at, id",
                    )
                    .bind(self.tenant)
                    .bind(&self.subject_hash)
                    .fetch_all(&mut *self.tx)
                    .await?;
                    return Ok(Some(ExportChunk::Audit(audit)));
                }
                Stage::Done => return Ok(None),
            }
        }
    }
}
