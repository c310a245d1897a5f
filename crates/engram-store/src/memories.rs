//! Memory reads and writes. Multi-row writes are single statements or one
//! transaction, and each change writes its history row in the same statement.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use engram_core::{
    AddEvent, HistoryEntry, Memory, MemoryFilter, MemoryPatch, MemoryState, NewMemory, Page, Scope,
};
use pgvector::{HalfVector, Vector};
use sqlx::{PgConnection, Postgres, QueryBuilder};
use uuid::Uuid;

use crate::admin::{commit_with_receipt, delete_memories, delete_user_sessions, Counts};
use crate::audit::AuditEntry;
use crate::derived::redact_derived;
use crate::rows::{CandidateRow, HistoryRow, MemoryRow, MEMORY_COLUMNS};
use crate::sessions::refuse_foreign_sessions;
use crate::tenant::end_read;
use crate::{Store, StoreError};

/// One input of an add, and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct InsertOutcome {
    pub id: Uuid,
    pub content: String,
    pub event: AddEvent,
}

/// (id, content_hash, user_id, agent_id, session_id, inserted) of each written row.
type WrittenRow = (
    Uuid,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    bool,
);

/// A memory in scope with its cosine similarity to the query.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub memory: Memory,
    pub cosine: f32,
}

impl Store {
    /// Stores memories with their embeddings in one statement: each input either
    /// becomes a new memory (ADD, with a history row) or finds its live exact
    /// duplicate in the same scope (NOOP). A duplicate that had expired is revived
    /// with the new expiry. Outcomes come back in input order.
    pub async fn insert_memories(
        &self,
        tenant: Uuid,
        items: &[(NewMemory, Vec<f32>)],
        actor: &str,
    ) -> Result<Vec<InsertOutcome>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let outcomes = insert_memories_in(&mut tx, tenant, items, actor).await?;
        tx.commit().await?;
        Ok(outcomes)
    }

    /// A memory that is not deleted (it may be superseded or expired).
    pub async fn get_memory(&self, tenant: Uuid, id: Uuid) -> Result<Memory, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let row: MemoryRow = sqlx::query_as(&format!(
            "SELECT {MEMORY_COLUMNS} FROM memories WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL"
        ))
        .bind(tenant)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?;
        end_read(tx);
        Ok(row.into())
    }

    /// Whose a memory is (user, agent), in any state, deleted included: what
    /// a key bound to one user is checked against before acting on an id.
    pub async fn memory_owner(
        &self,
        tenant: Uuid,
        id: Uuid,
    ) -> Result<(Option<String>, Option<String>), StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let owner = sqlx::query_as(
            "SELECT user_id, agent_id FROM memories WHERE tenant_id = $1 AND id = $2",
        )
        .bind(tenant)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?;
        end_read(tx);
        Ok(owner)
    }

    /// Memories in view, newest first, one page at a time.
    pub async fn list_memories(
        &self,
        tenant: Uuid,
        filter: &MemoryFilter,
        page: &Page,
    ) -> Result<Vec<Memory>, StoreError> {
        let mut q = QueryBuilder::new(format!("SELECT {MEMORY_COLUMNS} FROM memories"));
        push_filter(&mut q, tenant, filter);
        if let Some(after) = page.after {
            q.push(" AND (created_at, id) < (")
                .push_bind(after.created_at)
                .push(", ")
                .push_bind(after.id)
                .push(")");
        }
        q.push(" ORDER BY created_at DESC, id DESC LIMIT ")
            .push_bind(page.limit as i64);
        let mut tx = self.tenant_tx(tenant).await?;
        let rows: Vec<MemoryRow> = q.build_query_as().fetch_all(&mut *tx).await?;
        end_read(tx);
        Ok(rows.into_iter().map(Memory::from).collect())
    }

    /// The `limit` memories in view nearest to `query` by exact cosine
    /// distance, plus those of `also` that are still in view, plus (given a
    /// `window`) the `limit` nearest created within it, each with its cosine
    /// to `query`, nearest first. One statement, so hybrid search joins the
    /// lexical ranker's choices without a second round trip.
    pub async fn dense_candidates(
        &self,
        tenant: Uuid,
        filter: &MemoryFilter,
        query: &[f32],
        limit: usize,
        also: &[Uuid],
        window: Option<(DateTime<Utc>, DateTime<Utc>)>,
    ) -> Result<Vec<Candidate>, StoreError> {
        // Bound as halfvec, so no statement converts it once per row.
        let query = HalfVector::from_f32_slice(query);
        if also.is_empty() && window.is_none() {
            // Plain dense search. The scan keeps only each row's address and
            // cosine (computed once: ordering by the output column); the
            // winners' columns are then read by address. Carrying every
            // column through the scan cost 4 ms at 20,000 rows in scope.
            let mut q = QueryBuilder::new(format!(
                "WITH nearest AS MATERIALIZED (SELECT ctid AS tid, {COSINE}"
            ));
            q.push_bind(query).push(COSINE_END).push(" FROM memories");
            push_filter(&mut q, tenant, filter);
            q.push(" ORDER BY cosine DESC, id LIMIT ")
                .push_bind(limit as i64)
                .push(format!(
                    ") SELECT {MEMORY_COLUMNS}, nearest.cosine FROM memories \
                     JOIN nearest ON memories.ctid = nearest.tid WHERE tenant_id = "
                ))
                .push_bind(tenant)
                .push(" ORDER BY nearest.cosine DESC, id");
            return self.fetch_candidates(tenant, q).await;
        }
        let mut q = QueryBuilder::new("WITH nearest AS ((SELECT id FROM memories");
        push_filter(&mut q, tenant, filter);
        q.push(" ORDER BY embedding_half <=> ")
            .push_bind(query.clone())
            .push(" LIMIT ")
            .push_bind(limit as i64)
            .push(")");
        if let Some((from, to)) = window {
            q.push(" UNION (SELECT id FROM memories");
            push_filter(&mut q, tenant, filter);
            q.push(" AND created_at >= ")
                .push_bind(from)
                .push(" AND created_at < ")
                .push_bind(to)
                .push(" ORDER BY embedding_half <=> ")
                .push_bind(query.clone())
                .push(" LIMIT ")
                .push_bind(limit as i64)
                .push(")");
        }
        q.push(format!(") SELECT {MEMORY_COLUMNS}, {COSINE}"))
            .push_bind(query)
            .push(COSINE_END)
            .push(" FROM memories");
        push_filter(&mut q, tenant, filter);
        // By primary key, not by rereading the scope.
        q.push(" AND id = ANY(ARRAY(SELECT id FROM nearest) || ")
            .push_bind(also.to_vec())
            .push("::uuid[]) ORDER BY cosine DESC, id");
        self.fetch_candidates(tenant, q).await
    }

    /// Runs a candidate query in the tenant's transaction.
    async fn fetch_candidates(
        &self,
        tenant: Uuid,
        mut q: QueryBuilder<'_, Postgres>,
    ) -> Result<Vec<Candidate>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let rows: Vec<CandidateRow> = q.build_query_as().fetch_all(&mut *tx).await?;
        end_read(tx);
        Ok(rows
            .into_iter()
            .map(|r| Candidate {
                cosine: r.cosine as f32,
                memory: r.memory.into(),
            })
            .collect())
    }

    /// Records that memories were returned to a caller (feeds decay later).
    pub async fn touch_memories(&self, tenant: Uuid, ids: &[Uuid]) -> Result<(), StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        sqlx::query(
            // Use restores what decay took (consolidation decays from
            // base_importance since last use).
            "UPDATE memories SET last_used_at = now(), access_count = access_count + 1,
                    importance = coalesce(base_importance, importance)
             WHERE tenant_id = $1 AND id = ANY($2)",
        )
        .bind(tenant)
        .bind(ids)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Applies a patch and writes an UPDATE history row, in one transaction.
    /// `embedding` must be given exactly when the content changes.
    pub async fn update_memory(
        &self,
        tenant: Uuid,
        id: Uuid,
        patch: &MemoryPatch,
        embedding: Option<Vec<f32>>,
        actor: &str,
    ) -> Result<Memory, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let old: (String, serde_json::Value) = sqlx::query_as(
            "SELECT content, metadata FROM memories
             WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE",
        )
        .bind(tenant)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?;

        let updated: MemoryRow = sqlx::query_as(&format!(
            "UPDATE memories SET
                content = coalesce($3, content),
                content_hash = coalesce($4, content_hash),
                embedding = coalesce($5, embedding),
                metadata = coalesce($6, metadata),
                importance = coalesce($7, importance),
                pinned = coalesce($8, pinned),
                expires_at = CASE WHEN $9 THEN $10 ELSE expires_at END,
                value = coalesce($11, value),
                updated_at = now()
             WHERE tenant_id = $1 AND id = $2
             RETURNING {MEMORY_COLUMNS}"
        ))
        .bind(tenant)
        .bind(id)
        .bind(&patch.content)
        .bind(patch.content.as_deref().map(engram_core::content_hash))
        .bind(embedding.map(Vector::from))
        .bind(&patch.metadata)
        .bind(patch.importance)
        .bind(patch.pinned)
        .bind(patch.expires_at.is_some())
        .bind(patch.expires_at.flatten())
        .bind(&patch.value)
        .fetch_one(&mut *tx)
        .await?;
        let updated = Memory::from(updated);

        sqlx::query(
            "INSERT INTO memory_history
                (tenant_id, id, memory_id, event, old_content, new_content, old_metadata, new_metadata, actor, reason)
             VALUES ($1, gen_random_uuid(), $2, 'UPDATE', $3, $4, $5, $6, $7, 'updated via API')",
        )
        .bind(tenant)
        .bind(id)
        .bind(&old.0)
        .bind(&updated.content)
        .bind(&old.1)
        .bind(&updated.metadata)
        .bind(actor)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// Soft-deletes one memory (out of every read at once; purged later by
    /// consolidation after the retention period) with a DELETE history row,
    /// and redacts what it stated from the sessions it came from (their
    /// turns and summary), in one transaction.
    pub async fn delete_memory(
        &self,
        tenant: Uuid,
        id: Uuid,
        audit: AuditEntry,
    ) -> Result<(), StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let user_id: Option<Option<String>> = sqlx::query_scalar(
            "SELECT user_id FROM memories WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE",
        )
        .bind(tenant)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        let user_id = user_id.ok_or(StoreError::NotFound)?;
        let mut counts = Counts::new();
        redact_derived(&mut tx, tenant, &[id], None, &mut counts).await?;
        // Two statements, not a modifying CTE feeding an INSERT (which Citus
        // runs through COPY, refused under row-level security).
        let content: String = sqlx::query_scalar(
            "UPDATE memories SET deleted_at = now(), updated_at = now()
             WHERE tenant_id = $1 AND id = $2
             RETURNING content",
        )
        .bind(tenant)
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, actor, reason)
             VALUES ($1, $2, $3, 'DELETE', $4, $5, 'deleted via API')",
        )
        .bind(tenant)
        .bind(Uuid::now_v7())
        .bind(id)
        .bind(content)
        .bind(&audit.actor)
        .execute(&mut *tx)
        .await?;
        let subject_hash = match user_id {
            Some(u) => Some(self.subject_hash(tenant, &u).await?),
            None => None,
        };
        commit_with_receipt(
            tx,
            AuditEntry {
                tenant_id: Some(tenant),
                target: Some(format!("memory:{id}")),
                subject_hash,
                ..audit
            },
            counts,
        )
        .await?;
        Ok(())
    }

    /// Hard-deletes everything a scope holds (`DELETE /v1/memories?...`):
    /// its memories in every state with their embeddings and history, the
    /// job results quoting them, and, when the scope names a user, the
    /// sessions in it (turns, summaries) and its extraction jobs; the
    /// scope's queued jobs go too, so nothing is written into it afterwards.
    /// The scope must name a user or an agent. Returns the counts per table.
    pub async fn delete_scope(
        &self,
        tenant: Uuid,
        scope: &Scope,
        audit: AuditEntry,
    ) -> Result<Counts, StoreError> {
        if scope.user_id.is_none() && scope.agent_id.is_none() {
            return Err(StoreError::Internal(
                "refusing to delete without a user or agent scope".into(),
            ));
        }
        let subject_hash = match &scope.user_id {
            Some(u) => Some(self.subject_hash(tenant, u).await?),
            None => None,
        };
        let mut tx = self.tenant_tx(tenant).await?;
        let mut counts = Counts::new();
        // Jobs first, as erasure does: one applying its facts holds its row,
        // so this waits for it and the memories read below include its work.
        let mut jobs = QueryBuilder::new("DELETE FROM jobs WHERE tenant_id = ");
        jobs.push_bind(tenant);
        push_scope(&mut jobs, scope);
        let n = jobs.build().execute(&mut *tx).await?.rows_affected();
        counts.insert("jobs".into(), n as i64);

        let mut q = QueryBuilder::new("SELECT id FROM memories WHERE tenant_id = ");
        q.push_bind(tenant);
        push_scope(&mut q, scope);
        q.push(" FOR UPDATE");
        let ids: Vec<Uuid> = q.build_query_scalar().fetch_all(&mut *tx).await?;
        // What survives outside the scope keeps no pointer into it.
        sqlx::query(
            "UPDATE memories SET superseded_by = NULL
             WHERE tenant_id = $1 AND superseded_by = ANY($2) AND NOT id = ANY($2)",
        )
        .bind(tenant)
        .bind(&ids)
        .execute(&mut *tx)
        .await?;
        if let (Some(user), None) = (&scope.user_id, &scope.agent_id) {
            delete_user_sessions(
                &mut tx,
                tenant,
                user,
                scope.session_id.as_deref(),
                &mut counts,
            )
            .await?;
        } else {
            redact_derived(&mut tx, tenant, &ids, None, &mut counts).await?;
        }
        delete_memories(&mut tx, tenant, &ids, &mut counts).await?;
        commit_with_receipt(
            tx,
            AuditEntry {
                tenant_id: Some(tenant),
                target: Some("scope".into()),
                subject_hash,
                ..audit
            },
            counts,
        )
        .await
    }

    /// Every change to a memory, oldest first. Deleted memories keep their history
    /// until they are purged, so a deletion can be seen.
    pub async fn memory_history(
        &self,
        tenant: Uuid,
        id: Uuid,
    ) -> Result<Vec<HistoryEntry>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let rows: Vec<HistoryRow> = sqlx::query_as(
            "SELECT h.id, h.memory_id, h.event, h.old_content, h.new_content, h.old_metadata,
                    h.new_metadata, h.actor, h.reason, h.created_at, h.job_id, h.source_message,
                    h.extractor, h.model, h.prompt_version, h.confidence
             FROM memories m JOIN memory_history h ON h.tenant_id = m.tenant_id AND h.memory_id = m.id
             WHERE m.tenant_id = $1 AND m.id = $2
             ORDER BY h.created_at, h.id",
        )
        .bind(tenant)
        .bind(id)
        .fetch_all(&mut *tx)
        .await?;
        if rows.is_empty() {
            let exists: bool = sqlx::query_scalar(
                "SELECT EXISTS (SELECT 1 FROM memories WHERE tenant_id = $1 AND id = $2)",
            )
            .bind(tenant)
            .bind(id)
            .fetch_one(&mut *tx)
            .await?;
            if !exists {
                return Err(StoreError::NotFound);
            }
        }
        tx.commit().await?;
        Ok(rows.into_iter().map(HistoryEntry::from).collect())
    }
}

/// [`Store::insert_memories`] on a given connection, so a job and its raw
/// memories can be written in one transaction.
pub(crate) async fn insert_memories_in(
    conn: &mut PgConnection,
    tenant: Uuid,
    items: &[(NewMemory, Vec<f32>)],
    actor: &str,
) -> Result<Vec<InsertOutcome>, StoreError> {
    let named: Vec<(Option<&str>, &str)> = items
        .iter()
        .flat_map(|(m, _)| {
            engram_core::named_sessions(&m.scope, m.source.source_ref.as_deref())
                .map(|s| (m.scope.user_id.as_deref(), s))
        })
        .collect();
    refuse_foreign_sessions(conn, tenant, &named).await?;
    // Within one request, the same text in the same scope is one memory.
    let mut first_by_key: HashMap<(Scope, String), usize> = HashMap::new();
    let mut unique = Vec::new();
    for (i, (m, _)) in items.iter().enumerate() {
        first_by_key
            .entry((m.scope.clone(), m.content_hash()))
            .or_insert_with(|| {
                unique.push(i);
                i
            });
    }

    // Three statements, no INSERT … SELECT: Citus runs an INSERT fed by a
    // SELECT or a modifying CTE through COPY, which row-level security
    // refuses; multi-row VALUES are routed to their shards.
    let now = Utc::now();
    let rows_in: Vec<(Uuid, &NewMemory, &Vec<f32>)> = unique
        .iter()
        .map(|&i| (Uuid::now_v7(), &items[i].0, &items[i].1))
        .collect();
    let restored = archived_copies(conn, tenant, &rows_in).await?;

    // At most ROWS_PER_STATEMENT rows a statement (Postgres takes 65,535
    // parameters; a memory has 17).
    let mut rows: Vec<WrittenRow> = Vec::with_capacity(rows_in.len());
    for chunk in rows_in.chunks(ROWS_PER_STATEMENT) {
        let mut insert = QueryBuilder::<Postgres>::new(
            "INSERT INTO memories AS m (tenant_id, id, user_id, agent_id, session_id, kind, content, \
             embedding, content_hash, importance, source_type, source_ref, metadata, pinned, expires_at, \
             created_at, updated_at) ",
        );
        insert.push_values(chunk, |mut b, (id, m, embedding)| {
            b.push_bind(tenant)
                .push_bind(*id)
                .push_bind(m.scope.user_id.clone())
                .push_bind(m.scope.agent_id.clone())
                .push_bind(m.scope.session_id.clone())
                .push_bind(m.kind.as_str())
                .push_bind(m.content.clone())
                .push_bind(Vector::from((*embedding).clone()))
                .push_bind(m.content_hash())
                .push_bind(m.importance)
                .push_bind(m.source.source_type.as_str())
                .push_bind(m.source.source_ref.clone())
                .push_bind(m.metadata.clone())
                .push_bind(m.pinned)
                .push_bind(m.expires_at)
                .push_bind(m.created_at.unwrap_or(now))
                .push_bind(now);
        });
        // Said again: an expired copy takes the new expiry, an archived one is
        // back in search at its stated importance, decay starting over. The
        // time is a parameter, not now(): Citus admits only immutable functions
        // in DO UPDATE SET on a distributed table.
        insert.push(
            " ON CONFLICT (tenant_id, (coalesce(user_id, '')), (coalesce(agent_id, '')), \
                 (coalesce(session_id, '')), content_hash) \
             WHERE deleted_at IS NULL AND superseded_by IS NULL \
             DO UPDATE SET expires_at = CASE WHEN m.expires_at <= ",
        );
        insert
            .push_bind(now)
            .push(
                " THEN EXCLUDED.expires_at ELSE m.expires_at END, \
                 importance = CASE WHEN m.archived_at IS NULL THEN m.importance \
                                   ELSE coalesce(m.base_importance, m.importance) END, \
                 last_used_at = CASE WHEN m.archived_at IS NULL THEN m.last_used_at ELSE ",
            )
            .push_bind(now)
            .push(
                " END, archived_at = NULL \
                 RETURNING m.id, m.content_hash, m.user_id, m.agent_id, m.session_id, (m.xmax = 0) AS inserted",
            );
        rows.extend(
            insert
                .build_query_as::<WrittenRow>()
                .fetch_all(&mut *conn)
                .await?,
        );
    }

    // History: an ADD for each new memory, a REVERT for each restored one.
    let by_id: HashMap<Uuid, &NewMemory> = rows_in.iter().map(|(id, m, _)| (*id, *m)).collect();
    let mut history: Vec<NewHistory> = Vec::new();
    for (id, _, _, _, _, inserted) in &rows {
        if let (true, Some(m)) = (*inserted, by_id.get(id)) {
            history.push(NewHistory {
                memory_id: *id,
                event: "ADD",
                old_content: None,
                new_content: m.content.clone(),
                new_metadata: Some(m.metadata.clone()),
                reason: "added verbatim (infer: false)",
            });
        }
    }
    for (id, content) in restored {
        history.push(NewHistory {
            memory_id: id,
            event: "REVERT",
            old_content: Some(content.clone()),
            new_content: content,
            new_metadata: None,
            reason: "restated (infer: false), so restored from the archive",
        });
    }
    for chunk in history.chunks(ROWS_PER_STATEMENT) {
        let mut h = QueryBuilder::<Postgres>::new(
            "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, new_content, \
             new_metadata, actor, reason) ",
        );
        h.push_values(chunk, |mut b, r| {
            b.push_bind(tenant)
                .push_bind(Uuid::now_v7())
                .push_bind(r.memory_id)
                .push_bind(r.event)
                .push_bind(r.old_content.clone())
                .push_bind(r.new_content.clone())
                .push_bind(r.new_metadata.clone())
                .push_bind(actor)
                .push_bind(r.reason);
        });
        h.build().execute(&mut *conn).await?;
    }

    let by_key: HashMap<(Scope, String), (Uuid, bool)> = rows
        .into_iter()
        .map(|(id, hash, user_id, agent_id, session_id, inserted)| {
            (
                (
                    Scope {
                        user_id,
                        agent_id,
                        session_id,
                    },
                    hash,
                ),
                (id, inserted),
            )
        })
        .collect();
    items
        .iter()
        .enumerate()
        .map(|(i, (m, _))| {
            let key = (m.scope.clone(), m.content_hash());
            let (id, inserted) = *by_key.get(&key).ok_or(StoreError::NotFound)?;
            // Only the first occurrence of a text in the request can be the ADD.
            let first = first_by_key.get(&key) == Some(&i);
            let event = if inserted && first {
                AddEvent::Add
            } else {
                AddEvent::Noop
            };
            Ok(InsertOutcome {
                id,
                content: m.content.clone(),
                event,
            })
        })
        .collect()
}

/// A history row the verbatim add writes.
struct NewHistory {
    memory_id: Uuid,
    event: &'static str,
    old_content: Option<String>,
    new_content: String,
    new_metadata: Option<serde_json::Value>,
    reason: &'static str,
}

/// Rows of one multi-row INSERT: within Postgres's 65,535 parameters.
const ROWS_PER_STATEMENT: usize = 1000;

/// The archived copies of these texts (same scope, same content hash) the
/// upsert is about to restore, with their content: read first, each one
/// probe of the live-content index.
async fn archived_copies(
    conn: &mut PgConnection,
    tenant: Uuid,
    rows: &[(Uuid, &NewMemory, &Vec<f32>)],
) -> Result<Vec<(Uuid, String)>, StoreError> {
    let users: Vec<Option<String>> = rows
        .iter()
        .map(|(_, m, _)| m.scope.user_id.clone())
        .collect();
    let agents: Vec<Option<String>> = rows
        .iter()
        .map(|(_, m, _)| m.scope.agent_id.clone())
        .collect();
    let sessions: Vec<Option<String>> = rows
        .iter()
        .map(|(_, m, _)| m.scope.session_id.clone())
        .collect();
    let hashes: Vec<String> = rows.iter().map(|(_, m, _)| m.content_hash()).collect();
    Ok(sqlx::query_as(
        "SELECT m.id, m.content FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
                AS i(user_id, agent_id, session_id, content_hash)
         CROSS JOIN LATERAL (
            SELECT id, content FROM memories m
            WHERE m.tenant_id = $1 AND coalesce(m.user_id, '') = coalesce(i.user_id, '')
              AND coalesce(m.agent_id, '') = coalesce(i.agent_id, '')
              AND coalesce(m.session_id, '') = coalesce(i.session_id, '')
              AND m.content_hash = i.content_hash
              AND m.deleted_at IS NULL AND m.superseded_by IS NULL AND m.archived_at IS NOT NULL
         ) m",
    )
    .bind(tenant)
    .bind(&users)
    .bind(&agents)
    .bind(&sessions)
    .bind(&hashes)
    .fetch_all(conn)
    .await?)
}

/// A candidate's cosine to the query (bound between the two halves): from
/// the half-precision copy, which search scans because it stays in the row
/// (migration 9); it differs from full precision by about 1e-4.
const COSINE: &str = "(1 - (embedding_half <=> ";
const COSINE_END: &str = "))::float8 AS cosine";

/// `FROM memories` is already pushed; appends the WHERE clause for tenant, scope
/// and filters. Only conditions that are present are emitted, so the planner sees
/// `user_id = $n` and can use the partial scope indexes.
pub(crate) fn push_filter(q: &mut QueryBuilder<'_, Postgres>, tenant: Uuid, f: &MemoryFilter) {
    q.push(" WHERE tenant_id = ").push_bind(tenant);
    if f.admin_states.is_none() {
        q.push(" AND deleted_at IS NULL");
    }
    if let Some(u) = &f.scope.user_id {
        q.push(" AND user_id = ").push_bind(u.clone());
    }
    if let Some(a) = &f.scope.agent_id {
        q.push(" AND agent_id = ").push_bind(a.clone());
    }
    if let Some(s) = &f.scope.session_id {
        q.push(" AND session_id = ").push_bind(s.clone());
    }
    match &f.admin_states {
        Some(states) if !states.is_empty() => push_states(q, states, f.now),
        Some(_) => {}
        None => {
            if !f.include_archived {
                q.push(" AND archived_at IS NULL");
            }
            if !f.include_superseded {
                q.push(" AND superseded_by IS NULL");
            }
            if !f.include_expired {
                q.push(" AND (expires_at IS NULL OR expires_at > ");
                push_now(q, f.now);
                q.push(")");
            }
        }
    }
    if let Some(m) = &f.metadata {
        q.push(" AND metadata @> ").push_bind(m.clone());
    }
    if !f.kinds.is_empty() {
        let kinds: Vec<&'static str> = f.kinds.iter().map(|k| k.as_str()).collect();
        q.push(" AND kind = ANY(").push_bind(kinds).push(")");
    }
    if let Some(t) = f.created_gte {
        q.push(" AND created_at >= ").push_bind(t);
    }
    if let Some(t) = f.created_lte {
        q.push(" AND created_at <= ").push_bind(t);
    }
}

/// ` AND` the columns of `scope` that it names (memories and jobs alike).
fn push_scope(q: &mut QueryBuilder<'_, Postgres>, scope: &Scope) {
    if let Some(u) = &scope.user_id {
        q.push(" AND user_id = ").push_bind(u.clone());
    }
    if let Some(a) = &scope.agent_id {
        q.push(" AND agent_id = ").push_bind(a.clone());
    }
    if let Some(s) = &scope.session_id {
        q.push(" AND session_id = ").push_bind(s.clone());
    }
}

/// "Now" for expiry: the injected clock's when given, else the database's.
fn push_now(q: &mut QueryBuilder<'_, Postgres>, now: Option<chrono::DateTime<chrono::Utc>>) {
    match now {
        Some(now) => q.push_bind(now),
        None => q.push("now()"),
    };
}

/// Rows in any of `states` (the SQL twin of `Memory::state`).
fn push_states(
    q: &mut QueryBuilder<'_, Postgres>,
    states: &[MemoryState],
    now: Option<chrono::DateTime<chrono::Utc>>,
) {
    q.push(" AND (false");
    for state in states {
        q.push(" OR ");
        match state {
            MemoryState::Deleted => q.push("deleted_at IS NOT NULL"),
            MemoryState::Superseded => q.push("(deleted_at IS NULL AND superseded_by IS NOT NULL)"),
            MemoryState::Archived => {
                q.push("(deleted_at IS NULL AND superseded_by IS NULL AND archived_at IS NOT NULL)")
            }
            MemoryState::Expired => {
                q.push("(deleted_at IS NULL AND superseded_by IS NULL AND archived_at IS NULL AND expires_at <= ");
                push_now(q, now);
                q.push(")")
            }
            MemoryState::Live => {
                q.push("(deleted_at IS NULL AND superseded_by IS NULL AND archived_at IS NULL AND (expires_at IS NULL OR expires_at > ");
                push_now(q, now);
                q.push("))")
            }
        };
    }
    q.push(")");
}
