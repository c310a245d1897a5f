//! Consolidation's reads and writes: who to consolidate, one user's memories
//! as consolidation sees them, and one user's plan applied in one short
//! transaction (under the same per-scope lock extraction takes, so the two
//! never decide against each other).

use chrono::{DateTime, Utc};
use engram_core::consolidate::{MemoryView, Operation};
use engram_core::{MemoryKind, SourceType};
use pgvector::Vector;
use uuid::Uuid;

use crate::admin::{delete_memories, Counts};
use crate::audit::{write_audit, AuditEntry};
use crate::{Store, StoreError};

/// What consolidation reads of a memory (`ViewRow`).
const VIEW_COLUMNS: &str = "id, kind, content, subject, attribute, value, source_type,
    coalesce(base_importance, importance) AS base_importance, importance, pinned,
    access_count, created_at, last_used_at, expires_at, deleted_at, superseded_by,
    archived_at, said_by IS NOT NULL AS said, embedding";

#[derive(sqlx::FromRow)]
struct ViewRow {
    id: Uuid,
    kind: String,
    content: String,
    subject: Option<String>,
    attribute: Option<String>,
    value: Option<String>,
    source_type: String,
    base_importance: f32,
    importance: f32,
    pinned: bool,
    access_count: i64,
    created_at: DateTime<Utc>,
    last_used_at: Option<DateTime<Utc>>,
    expires_at: Option<DateTime<Utc>>,
    deleted_at: Option<DateTime<Utc>>,
    superseded_by: Option<Uuid>,
    archived_at: Option<DateTime<Utc>>,
    said: bool,
    embedding: Vector,
}

impl From<ViewRow> for MemoryView {
    fn from(r: ViewRow) -> Self {
        MemoryView {
            id: r.id,
            kind: MemoryKind::parse(&r.kind).unwrap_or(MemoryKind::Semantic),
            content: r.content,
            subject: r.subject,
            attribute: r.attribute,
            value: r.value,
            source_type: SourceType::parse(&r.source_type).unwrap_or(SourceType::Api),
            base_importance: r.base_importance,
            importance: r.importance,
            pinned: r.pinned,
            access_count: r.access_count,
            created_at: r.created_at,
            last_used_at: r.last_used_at,
            expires_at: r.expires_at,
            deleted_at: r.deleted_at,
            superseded_by: r.superseded_by,
            archived_at: r.archived_at,
            said: r.said,
            embedding: r.embedding.to_vec(),
        }
    }
}

impl Store {
    /// The next `limit` users with memories after `after`, in (tenant, user)
    /// order, across tenants (consolidation runs as the table owner).
    pub async fn users_to_consolidate(
        &self,
        after: Option<(Uuid, String)>,
        limit: usize,
    ) -> Result<Vec<(Uuid, String)>, StoreError> {
        let (tenant, user) = after.unwrap_or((Uuid::nil(), String::new()));
        Ok(sqlx::query_as(
            "SELECT DISTINCT tenant_id, user_id FROM memories
             WHERE user_id IS NOT NULL AND (tenant_id, user_id) > ($1, $2)
             ORDER BY tenant_id, user_id LIMIT $3",
        )
        .bind(tenant)
        .bind(user)
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?)
    }

    /// The user's memories that carry a subject + attribute (the only ones a
    /// conflict involves), read without locking: what a reviewer looks at
    /// before the run plans in its transaction.
    pub async fn attributed_views(
        &self,
        tenant: Uuid,
        user_id: &str,
    ) -> Result<Vec<MemoryView>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let rows: Vec<ViewRow> = sqlx::query_as(&format!(
            "SELECT {VIEW_COLUMNS} FROM memories
             WHERE tenant_id = $1 AND user_id = $2 AND agent_id IS NULL AND attribute IS NOT NULL
             ORDER BY created_at, id"
        ))
        .bind(tenant)
        .bind(user_id)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(rows.into_iter().map(MemoryView::from).collect())
    }

    /// Reads one user's memories and applies `planner`'s operations to them
    /// in one transaction, holding the user's scope lock throughout, so the
    /// plan is made from exactly what it changes. With `dry_run` nothing is
    /// written. Returns the operations and the counts per operation.
    pub async fn consolidate_user(
        &self,
        tenant: Uuid,
        user_id: &str,
        dry_run: bool,
        now: DateTime<Utc>,
        planner: impl FnOnce(&[MemoryView]) -> Vec<Operation> + Send + 'static,
    ) -> Result<(Vec<Operation>, Counts), StoreError> {
        let subject = self.subject_hash(tenant, user_id).await?;
        let mut tx = self.tenant_tx(tenant).await?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind(format!("{tenant}/{user_id}/"))
            .execute(&mut *tx)
            .await?;
        let rows: Vec<ViewRow> = sqlx::query_as(&format!(
            "SELECT {VIEW_COLUMNS} FROM memories WHERE tenant_id = $1 AND user_id = $2 AND agent_id IS NULL
             ORDER BY created_at, id"
        ))
        .bind(tenant)
        .bind(user_id)
        .fetch_all(&mut *tx)
        .await?;
        let view: Vec<MemoryView> = rows.into_iter().map(MemoryView::from).collect();
        // Planning is CPU work (seconds for tens of thousands of memories):
        // on the blocking pool, so it holds up no other task.
        let ops = tokio::task::spawn_blocking(move || planner(&view))
            .await
            .map_err(|e| StoreError::Internal(format!("planning failed: {e}")))?;
        let mut counts = Counts::new();
        for op in &ops {
            *counts.entry(op.kind().into()).or_default() += 1;
        }
        if dry_run || ops.is_empty() {
            tx.rollback().await?;
            return Ok((ops, counts));
        }
        for op in &ops {
            apply(&mut tx, tenant, op, now).await?;
        }
        // Memories pointed at by others stay as tombstones: purging them
        // would break the chain of what replaced what.
        let purge: Vec<Uuid> = ops
            .iter()
            .filter_map(|o| match o {
                Operation::Purge { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        let pointed: Vec<Uuid> = sqlx::query_scalar(
            "SELECT DISTINCT superseded_by FROM memories
             WHERE tenant_id = $1 AND superseded_by = ANY($2) AND NOT id = ANY($2)",
        )
        .bind(tenant)
        .bind(&purge)
        .fetch_all(&mut *tx)
        .await?;
        let purge: Vec<Uuid> = purge
            .into_iter()
            .filter(|id| !pointed.contains(id))
            .collect();
        let mut purged = Counts::new();
        // Chains wholly inside the purge: unlink before deleting.
        sqlx::query(
            "UPDATE memories SET superseded_by = NULL WHERE tenant_id = $1 AND id = ANY($2)",
        )
        .bind(tenant)
        .bind(&purge)
        .execute(&mut *tx)
        .await?;
        delete_memories(&mut tx, tenant, &purge, &mut purged).await?;
        counts.insert("purge_deferred".into(), pointed.len() as i64);
        write_audit(
            &mut tx,
            &AuditEntry {
                tenant_id: Some(tenant),
                target: Some("user".into()),
                subject_hash: Some(subject),
                details: serde_json::to_value(&counts).unwrap_or_default(),
                ..AuditEntry::new("consolidation", "user.consolidate", None)
            },
        )
        .await?;
        tx.commit().await?;
        Ok((ops, counts))
    }
}

/// One operation's writes (purges are done together afterwards).
async fn apply(
    tx: &mut sqlx::PgConnection,
    tenant: Uuid,
    op: &Operation,
    now: DateTime<Utc>,
) -> Result<(), StoreError> {
    let history = |memory: Uuid,
                   event: &'static str,
                   old: Option<String>,
                   new: Option<String>,
                   reason: String| {
        sqlx::query(
            // Wall time, not the run's clock: history orders what was
            // recorded when (as extraction's does).
            "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, new_content, actor, reason, created_at)
             VALUES ($1, gen_random_uuid(), $2, $3, $4, $5, 'consolidation', $6, now())",
        )
        .bind(tenant)
        .bind(memory)
        .bind(event)
        .bind(old)
        .bind(new)
        .bind(reason)
    };
    match op {
        Operation::Purge { .. } => {}
        Operation::Resolve {
            winner,
            loser,
            reason,
            ..
        } => {
            sqlx::query(
                "UPDATE memories SET superseded_by = $3, updated_at = $4
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant)
            .bind(loser)
            .bind(winner)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            history(*loser, "SUPERSEDE", None, None, reason.clone())
                .execute(&mut *tx)
                .await?;
        }
        Operation::Merge {
            canonical,
            merged,
            content,
            content_from,
            importance,
            access_count,
            reason,
        } => {
            let old: String =
                sqlx::query_scalar("SELECT content FROM memories WHERE tenant_id = $1 AND id = $2")
                    .bind(tenant)
                    .bind(canonical)
                    .fetch_one(&mut *tx)
                    .await?;
            // The duplicates step aside first: the canonical may take one's
            // wording, which the live-content unique index allows only once.
            sqlx::query(
                "UPDATE memories SET superseded_by = $3, updated_at = $4
                 WHERE tenant_id = $1 AND id = ANY($2)",
            )
            .bind(tenant)
            .bind(merged)
            .bind(canonical)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE memories m SET content = $3, content_hash = $4,
                        embedding = (SELECT embedding FROM memories WHERE tenant_id = $1 AND id = $5),
                        importance = $6, base_importance = $6, access_count = $7, updated_at = $8
                 WHERE m.tenant_id = $1 AND m.id = $2",
            )
            .bind(tenant)
            .bind(canonical)
            .bind(content)
            .bind(engram_core::content_hash(content))
            .bind(content_from)
            .bind(importance)
            .bind(access_count)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            history(
                *canonical,
                "MERGE",
                Some(old),
                Some(content.clone()),
                reason.clone(),
            )
            .execute(&mut *tx)
            .await?;
            for m in merged {
                history(
                    *m,
                    "SUPERSEDE",
                    None,
                    None,
                    format!("merged into {canonical}: {reason}"),
                )
                .execute(&mut *tx)
                .await?;
            }
        }
        Operation::Decay { id, to, .. } => {
            sqlx::query(
                "UPDATE memories SET base_importance = coalesce(base_importance, importance), importance = $3
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant)
            .bind(id)
            .bind(to)
            .execute(&mut *tx)
            .await?;
        }
        Operation::Archive { id, importance } => {
            sqlx::query(
                "UPDATE memories SET base_importance = coalesce(base_importance, importance), importance = $3,
                        archived_at = $4, updated_at = $4
                 WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant)
            .bind(id)
            .bind(importance)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            history(
                *id,
                "ARCHIVE",
                None,
                None,
                format!("importance decayed to {importance:.3}, below the floor"),
            )
            .execute(&mut *tx)
            .await?;
        }
    }
    Ok(())
}

/// A consolidation run as recorded. It names no one: a run for one user
/// keeps the user's pseudonym (`subject_hash`, as the audit log does), and a
/// dry run's `planned` keeps operations, memory ids and rules, no text.
#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
pub struct ConsolidationRun {
    pub id: Uuid,
    pub tenant_id: Option<Uuid>,
    /// `everyone` or `user`.
    pub scope: String,
    pub subject_hash: Option<String>,
    pub dry_run: bool,
    pub trigger: String,
    pub status: String,
    pub started_at: DateTime<Utc>,
    pub heartbeat_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
    pub users_done: i32,
    pub counts: serde_json::Value,
    pub errors: serde_json::Value,
    pub planned: Option<serde_json::Value>,
}

const RUN_COLUMNS: &str =
    "id, tenant_id, scope, subject_hash, dry_run, trigger, status, started_at, heartbeat_at, \
    finished_at, users_done, counts, errors, planned";

impl Store {
    /// Records a new run: for everyone, or for one user of a tenant.
    pub async fn start_run(
        &self,
        user: Option<(Uuid, &str)>,
        dry_run: bool,
        trigger: &str,
    ) -> Result<ConsolidationRun, StoreError> {
        let subject = match user {
            Some((tenant, user_id)) => Some(self.subject_hash(tenant, user_id).await?),
            None => None,
        };
        Ok(sqlx::query_as(&format!(
            "INSERT INTO consolidation_runs (id, tenant_id, scope, subject_hash, dry_run, trigger)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING {RUN_COLUMNS}"
        ))
        .bind(Uuid::now_v7())
        .bind(user.map(|(t, _)| t))
        .bind(if user.is_some() { "user" } else { "everyone" })
        .bind(subject)
        .bind(dry_run)
        .bind(trigger)
        .fetch_one(&self.pool)
        .await?)
    }

    /// Whether a scheduled run over everyone started at or after `since`:
    /// on several replicas, the one whose timer fires after another's run
    /// has finished must not run the same occurrence again.
    pub async fn scheduled_run_since(&self, since: DateTime<Utc>) -> Result<bool, StoreError> {
        Ok(sqlx::query_scalar(
            "SELECT EXISTS (SELECT 1 FROM consolidation_runs
                            WHERE trigger = 'schedule' AND scope = 'everyone' AND NOT dry_run
                              AND started_at >= $1)",
        )
        .bind(since)
        .fetch_one(&self.pool)
        .await?)
    }

    /// A run left `running` whose heartbeat is older than `stale_secs`: its
    /// process died; the next one resumes it.
    pub async fn abandoned_run(
        &self,
        stale_secs: f64,
    ) -> Result<Option<ConsolidationRun>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {RUN_COLUMNS} FROM consolidation_runs
             WHERE status = 'running' AND NOT dry_run
               AND heartbeat_at < now() - make_interval(secs => $1)
             ORDER BY started_at LIMIT 1"
        ))
        .bind(stale_secs)
        .fetch_optional(&self.pool)
        .await?)
    }

    /// Marks a user as started in `run` before it is touched, and says what
    /// an earlier attempt of the same run did with them: a resumed run skips
    /// users it finished or failed, and a user left `started` is one the run
    /// died on (a panic, a killed process), which it skips as failed rather
    /// than dying on again.
    pub async fn begin_user(
        &self,
        run: Uuid,
        tenant: Uuid,
        user_id: &str,
    ) -> Result<UserStart, StoreError> {
        let subject = self.subject_hash(tenant, user_id).await?;
        let begun: Option<i32> = sqlx::query_scalar(
            "INSERT INTO consolidation_progress (run_id, tenant_id, subject_hash, counts, status)
             VALUES ($1, $2, $3, '{}'::jsonb, 'started')
             ON CONFLICT DO NOTHING RETURNING 1",
        )
        .bind(run)
        .bind(tenant)
        .bind(&subject)
        .fetch_optional(&self.pool)
        .await?;
        if begun.is_some() {
            return Ok(UserStart::Begun);
        }
        let status: String = sqlx::query_scalar(
            "SELECT status FROM consolidation_progress WHERE run_id = $1 AND tenant_id = $2 AND subject_hash = $3",
        )
        .bind(run)
        .bind(tenant)
        .bind(&subject)
        .fetch_one(&self.pool)
        .await?;
        Ok(if status == "started" {
            UserStart::Interrupted
        } else {
            UserStart::Finished
        })
    }

    /// Records that consolidating a user failed in `run` (the run goes on).
    pub async fn fail_user(
        &self,
        run: Uuid,
        tenant: Uuid,
        user_id: &str,
    ) -> Result<(), StoreError> {
        let subject = self.subject_hash(tenant, user_id).await?;
        sqlx::query(
            "UPDATE consolidation_progress SET status = 'failed', finished_at = now()
             WHERE run_id = $1 AND tenant_id = $2 AND subject_hash = $3",
        )
        .bind(run)
        .bind(tenant)
        .bind(subject)
        .execute(&self.pool)
        .await?;
        sqlx::query("UPDATE consolidation_runs SET heartbeat_at = now() WHERE id = $1")
            .bind(run)
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// Records a finished user: progress row, counts added to the run's,
    /// heartbeat; dry runs also keep (a bounded number of) planned
    /// operations, as reports without text (`Operation::report`).
    pub async fn record_user(
        &self,
        run: Uuid,
        tenant: Uuid,
        user_id: &str,
        counts: &Counts,
        planned: Option<&[Operation]>,
    ) -> Result<(), StoreError> {
        let counts = serde_json::to_value(counts).unwrap_or_default();
        let subject = self.subject_hash(tenant, user_id).await?;
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO consolidation_progress (run_id, tenant_id, subject_hash, counts, status, finished_at)
             VALUES ($1, $2, $3, $4, 'done', now())
             ON CONFLICT (run_id, tenant_id, subject_hash)
             DO UPDATE SET counts = EXCLUDED.counts, status = 'done', finished_at = EXCLUDED.finished_at",
        )
        .bind(run)
        .bind(tenant)
        .bind(&subject)
        .bind(&counts)
        .execute(&mut *tx)
        .await?;
        let planned = planned.map(|ops| {
            let ops: Vec<_> = ops.iter().map(Operation::report).collect();
            serde_json::json!([{"tenant_id": tenant, "subject_hash": subject, "operations": ops}])
        });
        sqlx::query(
            "UPDATE consolidation_runs SET users_done = users_done + 1, heartbeat_at = now(),
                counts = (SELECT coalesce(jsonb_object_agg(k, v), '{}'::jsonb) FROM (
                    SELECT k, sum(v::bigint) AS v FROM (
                        SELECT key AS k, value AS v FROM jsonb_each_text(counts)
                        UNION ALL SELECT key, value FROM jsonb_each_text($2)) kv GROUP BY k) s),
                planned = CASE WHEN $3::jsonb IS NULL THEN planned
                               WHEN jsonb_array_length(coalesce(planned, '[]'::jsonb)) >= 1000 THEN planned
                               ELSE coalesce(planned, '[]'::jsonb) || $3::jsonb END
             WHERE id = $1",
        )
        .bind(run)
        .bind(&counts)
        .bind(planned)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Ends a run: `done`, or `failed` with its errors.
    pub async fn finish_run(
        &self,
        run: Uuid,
        errors: &[String],
    ) -> Result<ConsolidationRun, StoreError> {
        let status = if errors.is_empty() { "done" } else { "failed" };
        Ok(sqlx::query_as(&format!(
            "UPDATE consolidation_runs SET status = $2, finished_at = now(), heartbeat_at = now(),
                    errors = errors || $3
             WHERE id = $1 RETURNING {RUN_COLUMNS}"
        ))
        .bind(run)
        .bind(status)
        .bind(serde_json::to_value(errors).unwrap_or_default())
        .fetch_one(&self.pool)
        .await?)
    }

    /// One run.
    pub async fn get_run(&self, id: Uuid) -> Result<ConsolidationRun, StoreError> {
        sqlx::query_as(&format!(
            "SELECT {RUN_COLUMNS} FROM consolidation_runs WHERE id = $1"
        ))
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(StoreError::NotFound)
    }

    /// The latest runs, newest first.
    pub async fn list_runs(&self, limit: usize) -> Result<Vec<ConsolidationRun>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {RUN_COLUMNS} FROM consolidation_runs ORDER BY started_at DESC, id DESC LIMIT $1"
        ))
        .bind(limit as i64)
        .fetch_all(&self.pool)
        .await?)
    }

    /// Runs `body` holding the cluster-wide consolidation lock, or returns
    /// `None` at once when another process holds it: however many replicas
    /// are up, one consolidates. A session-level advisory lock on a
    /// connection taken out of the pool for the duration: should `body`
    /// panic or be cancelled, the connection is dropped and closed, and
    /// Postgres releases the lock with it (a pooled connection would have
    /// gone back to the pool still holding it).
    pub async fn with_consolidation_lock<T, F>(&self, body: F) -> Result<Option<T>, StoreError>
    where
        F: std::future::Future<Output = T>,
    {
        let mut conn = self.pool.acquire().await?.detach();
        let got: bool = sqlx::query_scalar(
            "SELECT pg_try_advisory_lock(hashtextextended('engram/consolidation', 0))",
        )
        .fetch_one(&mut conn)
        .await?;
        if !got {
            let _ = sqlx::Connection::close(conn).await;
            return Ok(None);
        }
        let out = body.await;
        // Unlocked explicitly first: a closed session's locks are released
        // only when its backend has exited, a moment after the close, and the
        // next run must not find them still held. Closing the session then
        // releases the lock whatever happened meanwhile.
        let _ = sqlx::query("SELECT pg_advisory_unlock_all()")
            .execute(&mut conn)
            .await;
        let _ = sqlx::Connection::close(conn).await;
        Ok(Some(out))
    }
}

/// What a run finds when it comes to a user (see `Store::begin_user`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserStart {
    /// Not seen before in this run: now marked started.
    Begun,
    /// Finished or failed by an earlier attempt of this run.
    Finished,
    /// Started by an earlier attempt that never finished it.
    Interrupted,
}
