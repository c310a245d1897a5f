//! The GDPR side of the store: every state of a user's memories with their
//! history, hard deletion of one memory, erasure of a user, and purging what one
//! source produced. Each is one tenant-scoped transaction, audited in the same
//! commit, and returns counts per table (the receipt).

use std::collections::HashMap;

use engram_core::HistoryEntry;
use pgvector::Vector;
use sqlx::PgConnection;
use uuid::Uuid;

use crate::audit::{write_audit, AuditEntry};
use crate::derived::{redact_derived, SCRUB_JOB_RESULTS};
pub use crate::receipt::{Apply, Counts};
use crate::rows::HistoryRow;
use crate::{ConflictKind, Store, StoreError};

/// A memory a source purge restores to its content before the source merged
/// into it; the caller embeds `content`.
#[derive(Debug, Clone, PartialEq)]
pub struct MergeRestore {
    pub memory_id: Uuid,
    pub content: String,
}

/// What a source purge will touch, read before the caller embeds restorations.
#[derive(Debug, Clone)]
pub struct SourcePurgePlan {
    pub source_ref: String,
    pub restores: Vec<MergeRestore>,
    /// The session whose facts the source names (`session:{id}`): deleted
    /// too, with its turns, summary and jobs, in the same transaction.
    pub session: Option<String>,
}

impl Store {
    /// The history of each of `ids`, oldest first.
    pub async fn histories(
        &self,
        tenant: Uuid,
        ids: &[Uuid],
    ) -> Result<HashMap<Uuid, Vec<HistoryEntry>>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let rows: Vec<HistoryRow> = sqlx::query_as(
            "SELECT id, memory_id, event, old_content, new_content, old_metadata, new_metadata, actor,
                    reason, created_at, job_id, source_message, extractor, model, prompt_version, confidence
             FROM memory_history WHERE tenant_id = $1 AND memory_id = ANY($2)
             ORDER BY created_at, id",
        )
        .bind(tenant)
        .bind(ids)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        let mut by_memory: HashMap<Uuid, Vec<HistoryEntry>> = HashMap::new();
        for row in rows {
            let entry = HistoryEntry::from(row);
            by_memory.entry(entry.memory_id).or_default().push(entry);
        }
        Ok(by_memory)
    }

    /// Hard-deletes one memory of `user_id` with its history and the job results
    /// quoting it. Memories it had superseded stay retired (soft-deleted), since
    /// the user chose to remove the newer fact, not to bring back the older.
    pub async fn purge_memory(
        &self,
        tenant: Uuid,
        user_id: &str,
        id: Uuid,
        audit: AuditEntry,
    ) -> Result<Counts, StoreError> {
        let subject_hash = self.subject_hash(tenant, user_id).await?;
        let mut tx = self.tenant_tx(tenant).await?;
        let found: Option<Uuid> = sqlx::query_scalar(
            "SELECT id FROM memories WHERE tenant_id = $1 AND id = $2 AND user_id = $3 FOR UPDATE",
        )
        .bind(tenant)
        .bind(id)
        .bind(user_id)
        .fetch_optional(&mut *tx)
        .await?;
        found.ok_or(StoreError::NotFound)?;
        let mut counts = Counts::new();
        let retired = sqlx::query(
            "UPDATE memories SET superseded_by = NULL, deleted_at = coalesce(deleted_at, $3), updated_at = now()
             WHERE tenant_id = $1 AND superseded_by = $2",
        )
        .bind(tenant)
        .bind(id)
        // A parameter: Citus refuses now() in a COALESCE.
        .bind(chrono::Utc::now())
        .execute(&mut *tx)
        .await?
        .rows_affected();
        counts.insert("memories_retired".into(), retired as i64);
        redact_derived(&mut tx, tenant, &[id], None, &mut counts).await?;
        delete_memories(&mut tx, tenant, &[id], &mut counts).await?;
        let entry = AuditEntry {
            tenant_id: Some(tenant),
            target: Some(format!("memory:{id}")),
            subject_hash: Some(subject_hash),
            ..audit
        };
        commit_with_receipt(tx, entry, counts).await
    }

    /// Erases everything held about a user in one transaction: memories (with
    /// their embeddings), their history, jobs (payloads and results),
    /// sessions (turns, summaries), and the consolidation records about them
    /// (progress rows, runs made for them alone, their part of dry-run
    /// plans). The audit log keeps a content-free entry naming the user only
    /// by their keyed pseudonym.
    pub async fn erase_user(
        &self,
        tenant: Uuid,
        user_id: &str,
        audit: AuditEntry,
        apply: Apply,
    ) -> Result<Counts, StoreError> {
        let subject_hash = self.subject_hash(tenant, user_id).await?;
        let mut tx = self.tenant_tx(tenant).await?;
        let mut counts = Counts::new();
        // Jobs first: a job applying its facts holds its row locked, so this
        // waits for it, and the memories read below include what it wrote. A
        // job not yet applying finds its row gone and writes nothing.
        let jobs = sqlx::query("DELETE FROM jobs WHERE tenant_id = $1 AND user_id = $2")
            .bind(tenant)
            .bind(user_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        counts.insert("jobs".into(), jobs as i64);
        let ids: Vec<Uuid> = sqlx::query_scalar(
            "SELECT id FROM memories WHERE tenant_id = $1 AND user_id = $2 FOR UPDATE",
        )
        .bind(tenant)
        .bind(user_id)
        .fetch_all(&mut *tx)
        .await?;
        // Memories outside the user's scope never supersede into it, but the
        // foreign key must hold whatever happened.
        sqlx::query(
            "UPDATE memories SET superseded_by = NULL
             WHERE tenant_id = $1 AND superseded_by = ANY($2) AND user_id IS DISTINCT FROM $3",
        )
        .bind(tenant)
        .bind(&ids)
        .bind(user_id)
        .execute(&mut *tx)
        .await?;
        delete_memories(&mut tx, tenant, &ids, &mut counts).await?;
        // Sessions hold what the user said verbatim; turns and summaries go
        // with them (ON DELETE CASCADE), counted first.
        for (table, sql) in [
            (
                "session_messages",
                "SELECT count(*) FROM session_messages JOIN sessions USING (tenant_id, session_id)
                 WHERE tenant_id = $1 AND sessions.user_id = $2",
            ),
            (
                "session_summaries",
                "SELECT count(*) FROM session_summaries JOIN sessions USING (tenant_id, session_id)
                 WHERE tenant_id = $1 AND sessions.user_id = $2",
            ),
        ] {
            let n: i64 = sqlx::query_scalar(sql)
                .bind(tenant)
                .bind(user_id)
                .fetch_one(&mut *tx)
                .await?;
            counts.insert(table.into(), n);
        }
        let sessions = sqlx::query("DELETE FROM sessions WHERE tenant_id = $1 AND user_id = $2")
            .bind(tenant)
            .bind(user_id)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        counts.insert("sessions".into(), sessions as i64);
        forget_consolidation_subject(&mut tx, &subject_hash, &mut counts).await?;
        // Keys bound to the user hold their id: they go too (a function
        // owned by the table owner, as keys span tenants).
        let keys: i64 = sqlx::query_scalar("SELECT engram_forget_subject_keys($1)")
            .bind(user_id)
            .fetch_one(&mut *tx)
            .await?;
        counts.insert("api_keys".into(), keys);
        let entry = AuditEntry {
            tenant_id: Some(tenant),
            target: Some("user".into()),
            subject_hash: Some(subject_hash),
            ..audit
        };
        finish_erasure(tx, entry, counts, apply).await
    }

    /// Reads what a purge of `source_ref` will restore: memories the source's
    /// jobs merged into, with their content before the first such merge.
    pub async fn plan_source_purge(
        &self,
        tenant: Uuid,
        source_ref: &str,
    ) -> Result<SourcePurgePlan, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let restores = merge_restores(&mut tx, tenant, source_ref).await?;
        tx.commit().await?;
        Ok(SourcePurgePlan {
            source_ref: source_ref.to_owned(),
            restores,
            session: None,
        })
    }

    /// Purges every memory derived from `source_ref` and the jobs that read it,
    /// restores the memories it superseded (unless an identical live memory
    /// exists, then they stay retired) and un-does its merges, in one
    /// transaction. `embeddings` are those of `plan.restores`, in order; if the
    /// plan no longer matches the data, nothing is written (Conflict: retry).
    pub async fn purge_source(
        &self,
        tenant: Uuid,
        plan: &SourcePurgePlan,
        embeddings: &[Vec<f32>],
        audit: AuditEntry,
        apply: Apply,
    ) -> Result<Counts, StoreError> {
        let source_ref = plan.source_ref.as_str();
        let source_hash = self.source_hash(source_ref).await?;
        let mut tx = self.tenant_tx(tenant).await?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind(format!("{tenant}/source/{source_ref}"))
            .execute(&mut *tx)
            .await?;
        if merge_restores(&mut tx, tenant, source_ref).await? != plan.restores {
            return Err(StoreError::Conflict(
                ConflictKind::ChangedMeanwhile,
                "memories derived from this source changed during the purge; retry".into(),
            ));
        }
        // The source's jobs first, locked: one applying its facts finishes
        // before the memories are read (see `erase_user`).
        sqlx::query("SELECT id FROM jobs WHERE tenant_id = $1 AND source_ref = $2 FOR UPDATE")
            .bind(tenant)
            .bind(source_ref)
            .fetch_all(&mut *tx)
            .await?;
        let purged: Vec<Uuid> = sqlx::query_scalar(
            "SELECT id FROM memories WHERE tenant_id = $1 AND source_ref = $2 FOR UPDATE",
        )
        .bind(tenant)
        .bind(source_ref)
        .fetch_all(&mut *tx)
        .await?;
        let jobs: Vec<Uuid> = sqlx::query_scalar(
            "SELECT id FROM jobs WHERE tenant_id = $1 AND (source_ref = $2
                OR id IN (SELECT job_id FROM memories WHERE tenant_id = $1 AND id = ANY($3)))",
        )
        .bind(tenant)
        .bind(source_ref)
        .bind(&purged)
        .fetch_all(&mut *tx)
        .await?;
        let mut counts = Counts::new();

        // The source's traces in other memories' history (SUPERSEDE, MERGE and
        // NOOP rows quote it).
        let traces = sqlx::query(
            "DELETE FROM memory_history WHERE tenant_id = $1 AND job_id = ANY($2) AND NOT memory_id = ANY($3)",
        )
        .bind(tenant)
        .bind(&jobs)
        .bind(&purged)
        .execute(&mut *tx)
        .await?
        .rows_affected();

        // Restore what the source superseded, unless the same text is live
        // again. The time is a parameter: Citus refuses now() in a CASE.
        let restored: Vec<Uuid> = sqlx::query_scalar(
            "UPDATE memories m SET superseded_by = NULL, updated_at = $3,
                    deleted_at = CASE WHEN EXISTS (
                        SELECT 1 FROM memories d
                        WHERE d.tenant_id = $1 AND d.content_hash = m.content_hash
                          AND d.user_id IS NOT DISTINCT FROM m.user_id AND d.agent_id IS NOT DISTINCT FROM m.agent_id
                          AND d.session_id IS NOT DISTINCT FROM m.session_id
                          AND d.deleted_at IS NULL AND d.superseded_by IS NULL AND d.id <> m.id
                          AND NOT d.id = ANY($2)) THEN $3 END
             WHERE m.tenant_id = $1 AND m.superseded_by = ANY($2) AND NOT m.id = ANY($2)
             RETURNING m.id",
        )
        .bind(tenant)
        .bind(&purged)
        .bind(chrono::Utc::now())
        .fetch_all(&mut *tx)
        .await?;
        counts.insert("memories_restored".into(), restored.len() as i64);
        let mut restore_ids = restored.clone();

        for (r, embedding) in plan.restores.iter().zip(embeddings) {
            sqlx::query(
                "UPDATE memories SET content = $3, content_hash = $4, embedding = $5, updated_at = now()
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant)
            .bind(r.memory_id)
            .bind(&r.content)
            .bind(engram_core::content_hash(&r.content))
            .bind(Vector::from(embedding.clone()))
            .execute(&mut *tx)
            .await?;
            restore_ids.push(r.memory_id);
        }
        counts.insert("memories_unmerged".into(), plan.restores.len() as i64);
        // VALUES, not INSERT … SELECT (which Citus runs through COPY,
        // refused under row-level security).
        for chunk in restore_ids.chunks(1000) {
            let mut q = sqlx::QueryBuilder::<sqlx::Postgres>::new(
                "INSERT INTO memory_history (tenant_id, id, memory_id, event, actor, reason) ",
            );
            q.push_values(chunk, |mut b, id| {
                b.push_bind(tenant)
                    .push_bind(Uuid::now_v7())
                    .push_bind(*id)
                    .push_bind("REVERT")
                    .push_bind(&audit.actor)
                    .push_bind("restored: the source that changed it was purged");
            });
            q.build().execute(&mut *tx).await?;
        }

        delete_memories(&mut tx, tenant, &purged, &mut counts).await?;
        *counts.entry("memory_history".into()).or_default() += traces as i64;
        let deleted_jobs = sqlx::query("DELETE FROM jobs WHERE tenant_id = $1 AND id = ANY($2)")
            .bind(tenant)
            .bind(&jobs)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        counts.insert("jobs".into(), deleted_jobs as i64);
        let target = match &plan.session {
            Some(session_id) => {
                delete_session_in(&mut tx, tenant, session_id, &mut counts).await?;
                "session".to_owned()
            }
            None => format!("source:{source_hash}"),
        };
        let entry = AuditEntry {
            tenant_id: Some(tenant),
            target: Some(target),
            subject_hash: None,
            ..audit
        };
        finish_erasure(tx, entry, counts, apply).await
    }
}

/// Deletes a session with its turns and summary (cascade) and its jobs,
/// counting each; `NotFound` when there is no such session.
async fn delete_session_in(
    tx: &mut sqlx::PgConnection,
    tenant: Uuid,
    session_id: &str,
    counts: &mut Counts,
) -> Result<(), StoreError> {
    let turns: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM session_messages WHERE tenant_id = $1 AND session_id = $2",
    )
    .bind(tenant)
    .bind(session_id)
    .fetch_one(&mut *tx)
    .await?;
    let jobs = sqlx::query("DELETE FROM jobs WHERE tenant_id = $1 AND session_id = $2")
        .bind(tenant)
        .bind(session_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    let sessions = sqlx::query("DELETE FROM sessions WHERE tenant_id = $1 AND session_id = $2")
        .bind(tenant)
        .bind(session_id)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    if sessions == 0 {
        return Err(StoreError::NotFound);
    }
    *counts.entry("jobs".into()).or_default() += jobs as i64;
    counts.insert("sessions".into(), sessions as i64);
    counts.insert("session_messages".into(), turns);
    Ok(())
}

/// Deletes a user's sessions (or the one named) with their turns and
/// summaries (cascade) and jobs, counting each.
pub(crate) async fn delete_user_sessions(
    tx: &mut sqlx::PgConnection,
    tenant: Uuid,
    user_id: &str,
    session_id: Option<&str>,
    counts: &mut Counts,
) -> Result<(), StoreError> {
    let sessions: Vec<String> = sqlx::query_scalar(
        "SELECT session_id FROM sessions
         WHERE tenant_id = $1 AND user_id = $2 AND ($3::text IS NULL OR session_id = $3)",
    )
    .bind(tenant)
    .bind(user_id)
    .bind(session_id)
    .fetch_all(&mut *tx)
    .await?;
    for s in sessions {
        let summaries: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM session_summaries WHERE tenant_id = $1 AND session_id = $2",
        )
        .bind(tenant)
        .bind(&s)
        .fetch_one(&mut *tx)
        .await?;
        let mut one = Counts::new();
        delete_session_in(tx, tenant, &s, &mut one).await?;
        one.insert("session_summaries".into(), summaries);
        for (k, v) in one {
            *counts.entry(k).or_default() += v;
        }
    }
    Ok(())
}

/// Audits a finished GDPR operation with its counts as details, in the same
/// commit as the operation itself.
/// Commits an erasure with its audit entry, or for a dry run rolls it all
/// back (nothing changed, nothing to audit) and returns what it counted.
async fn finish_erasure(
    tx: sqlx::Transaction<'static, sqlx::Postgres>,
    entry: AuditEntry,
    counts: Counts,
    apply: Apply,
) -> Result<Counts, StoreError> {
    match apply {
        Apply::Commit => commit_with_receipt(tx, entry, counts).await,
        Apply::DryRun => {
            tx.rollback().await?;
            Ok(counts)
        }
    }
}

pub(crate) async fn commit_with_receipt(
    mut tx: sqlx::Transaction<'static, sqlx::Postgres>,
    entry: AuditEntry,
    counts: Counts,
) -> Result<Counts, StoreError> {
    let entry = AuditEntry {
        details: serde_json::to_value(&counts).unwrap_or_default(),
        ..entry
    };
    write_audit(&mut tx, &entry).await?;
    tx.commit().await?;
    Ok(counts)
}

/// Deletes memories with their history and scrubs job results quoting them,
/// adding `memories`, `memory_history` and `job_results` to `counts`.
pub(crate) async fn delete_memories(
    conn: &mut PgConnection,
    tenant: Uuid,
    ids: &[Uuid],
    counts: &mut Counts,
) -> Result<(), StoreError> {
    let history =
        sqlx::query("DELETE FROM memory_history WHERE tenant_id = $1 AND memory_id = ANY($2)")
            .bind(tenant)
            .bind(ids)
            .execute(&mut *conn)
            .await?
            .rows_affected();
    let memories = sqlx::query("DELETE FROM memories WHERE tenant_id = $1 AND id = ANY($2)")
        .bind(tenant)
        .bind(ids)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    let results = sqlx::query(SCRUB_JOB_RESULTS)
        .bind(tenant)
        .bind(ids)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    // Dry-run plans name memories by id only; those ids go with them.
    let plans: i64 = sqlx::query_scalar("SELECT engram_forget_planned_memories($1)")
        .bind(ids)
        .fetch_one(&mut *conn)
        .await?;
    *counts.entry("memories".into()).or_default() += memories as i64;
    *counts.entry("memory_history".into()).or_default() += history as i64;
    *counts.entry("job_results_scrubbed".into()).or_default() += results as i64;
    *counts
        .entry("consolidation_plans_scrubbed".into())
        .or_default() += plans;
    Ok(())
}

/// Removes the consolidation records about one user of the transaction's
/// tenant (a function owned by the table owner: the tenant role has no
/// grant on those tables, which span tenants).
async fn forget_consolidation_subject(
    conn: &mut PgConnection,
    subject_hash: &str,
    counts: &mut Counts,
) -> Result<(), StoreError> {
    let (progress, runs, plans): (i64, i64, i64) =
        sqlx::query_as("SELECT progress, runs, plans FROM engram_forget_consolidation_subject($1)")
            .bind(subject_hash)
            .fetch_one(&mut *conn)
            .await?;
    counts.insert("consolidation_progress".into(), progress);
    counts.insert("consolidation_runs".into(), runs);
    *counts
        .entry("consolidation_plans_scrubbed".into())
        .or_default() += plans;
    Ok(())
}

/// Memories outside the source that its jobs merged into, with their content
/// before the first such merge, ordered by id.
async fn merge_restores(
    conn: &mut PgConnection,
    tenant: Uuid,
    source_ref: &str,
) -> Result<Vec<MergeRestore>, StoreError> {
    let rows: Vec<(Uuid, String)> = sqlx::query_as(
        "SELECT DISTINCT ON (h.memory_id) h.memory_id, h.old_content
         FROM memory_history h
         JOIN memories m ON m.tenant_id = h.tenant_id AND m.id = h.memory_id
         WHERE h.tenant_id = $1 AND h.event = 'MERGE' AND h.old_content IS NOT NULL
           AND m.source_ref IS DISTINCT FROM $2
           AND h.job_id IN (SELECT id FROM jobs WHERE tenant_id = $1 AND source_ref = $2
                            UNION SELECT job_id FROM memories WHERE tenant_id = $1 AND source_ref = $2)
         ORDER BY h.memory_id, h.created_at, h.id",
    )
    .bind(tenant)
    .bind(source_ref)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(memory_id, content)| MergeRestore { memory_id, content })
        .collect())
}
