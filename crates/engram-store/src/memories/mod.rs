//! Memory reads and writes. Multi-row writes are single statements or one
//! transaction, and each change writes its history row in the same statement.
//! Inserts are in `insert`, the WHERE clauses every read shares in `filter`;
//! search (dense and lexical) is in `crate::search`.

mod filter;
mod insert;
mod said;

pub(crate) use filter::push_filter;
use filter::push_scope;
pub use insert::InsertOutcome;
pub(crate) use said::{evidence, insert_pieces_in};
pub use said::{NewPiece, PieceOutcome, Retention, EARLIER};

use engram_core::{HistoryEntry, Memory, MemoryFilter, MemoryPatch, Page, Scope};
use pgvector::Vector;
use sqlx::QueryBuilder;
use uuid::Uuid;

use crate::admin::{commit_with_receipt, delete_memories, delete_user_sessions, Counts};
use crate::audit::AuditEntry;
use crate::derived::redact_derived;
use crate::rows::{HistoryRow, MemoryRow, MEMORY_COLUMNS};
use crate::tenant::end_read;
use crate::{Store, StoreError};

impl Store {
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

    /// Records that memories were returned to a caller (feeds decay later);
    /// a piece of what was said with an expiry is kept `retention` from now.
    pub async fn touch_memories(
        &self,
        tenant: Uuid,
        ids: &[Uuid],
        retention: Retention,
    ) -> Result<(), StoreError> {
        let renewed = retention.and_then(|r| chrono::Utc::now().checked_add_signed(r));
        let mut tx = self.tenant_tx(tenant).await?;
        sqlx::query(
            // Use restores what decay took (consolidation decays from
            // base_importance since last use).
            "UPDATE memories SET last_used_at = now(), access_count = access_count + 1,
                    importance = coalesce(base_importance, importance),
                    expires_at = CASE WHEN said_by IS NOT NULL AND expires_at IS NOT NULL
                                           AND $3::timestamptz IS NOT NULL
                                      THEN greatest(expires_at, $3) ELSE expires_at END
             WHERE tenant_id = $1 AND id = ANY($2)",
        )
        .bind(tenant)
        .bind(ids)
        .bind(renewed)
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
        let updated = update_in(&mut tx, tenant, id, patch, embedding, actor).await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// Changes and deletes several memories in one transaction (`POST
    /// /v1/memories/batch`): all of them or, when one id is not found,
    /// none. Deletes redact what they stated from their sessions, as
    /// [`Store::delete_memory`] does; one audit entry covers the batch.
    pub async fn batch_memories(
        &self,
        tenant: Uuid,
        updates: Vec<(Uuid, MemoryPatch, Option<Vec<f32>>)>,
        deletes: &[Uuid],
        audit: AuditEntry,
    ) -> Result<(Vec<Memory>, Counts), StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let mut updated = Vec::with_capacity(updates.len());
        for (id, patch, embedding) in updates {
            updated.push(update_in(&mut tx, tenant, id, &patch, embedding, &audit.actor).await?);
        }
        let mut counts = Counts::new();
        for id in deletes {
            delete_in(&mut tx, tenant, *id, &audit.actor, &mut counts).await?;
        }
        counts.insert("memories_updated".into(), updated.len() as i64);
        counts.insert("memories_deleted".into(), deletes.len() as i64);
        commit_with_receipt(
            tx,
            AuditEntry {
                tenant_id: Some(tenant),
                target: Some(format!("memories:{}", updated.len() + deletes.len())),
                ..audit
            },
            counts.clone(),
        )
        .await?;
        Ok((updated, counts))
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
        let mut counts = Counts::new();
        let user_id = delete_in(&mut tx, tenant, id, &audit.actor, &mut counts).await?;
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

/// One memory's change with its UPDATE history row, inside `tx`.
async fn update_in(
    tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
    tenant: Uuid,
    id: Uuid,
    patch: &MemoryPatch,
    embedding: Option<Vec<f32>>,
    actor: &str,
) -> Result<Memory, StoreError> {
    let old: (String, serde_json::Value) = sqlx::query_as(
        "SELECT content, metadata FROM memories
             WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE",
    )
    .bind(tenant)
    .bind(id)
    .fetch_optional(&mut **tx)
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
    .fetch_one(&mut **tx)
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
        .execute(&mut **tx)
        .await?;
    Ok(updated)
}

/// One memory's soft delete with its DELETE history row and the redaction
/// of its sessions, inside `tx`; the memory's user.
async fn delete_in(
    tx: &mut sqlx::Transaction<'static, sqlx::Postgres>,
    tenant: Uuid,
    id: Uuid,
    actor: &str,
    counts: &mut Counts,
) -> Result<Option<String>, StoreError> {
    let user_id: Option<Option<String>> = sqlx::query_scalar(
            "SELECT user_id FROM memories WHERE tenant_id = $1 AND id = $2 AND deleted_at IS NULL FOR UPDATE",
        )
        .bind(tenant)
        .bind(id)
        .fetch_optional(&mut **tx)
        .await?;
    let user_id = user_id.ok_or(StoreError::NotFound)?;
    redact_derived(tx, tenant, &[id], None, counts).await?;
    // Two statements, not a modifying CTE feeding an INSERT (which Citus
    // runs through COPY, refused under row-level security).
    let content: String = sqlx::query_scalar(
        "UPDATE memories SET deleted_at = now(), updated_at = now()
             WHERE tenant_id = $1 AND id = $2
             RETURNING content",
    )
    .bind(tenant)
    .bind(id)
    .fetch_one(&mut **tx)
    .await?;
    sqlx::query(
        "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, actor, reason)
             VALUES ($1, $2, $3, 'DELETE', $4, $5, 'deleted via API')",
    )
    .bind(tenant)
    .bind(Uuid::now_v7())
    .bind(id)
    .bind(content)
    .bind(actor)
    .execute(&mut **tx)
    .await?;
    Ok(user_id)
}
