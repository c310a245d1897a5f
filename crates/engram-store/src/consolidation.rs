//! Consolidation's reads and writes: who to consolidate, one user's memories
//! as consolidation sees them, and one user's plan applied in one short
//! transaction (under the same per-scope lock extraction takes, so the two
//! never decide against each other).

use chrono::{DateTime, Utc};
use engram_core::access::subject_hash;
use engram_core::consolidate::{MemoryView, Operation};
use engram_core::SourceType;
use pgvector::Vector;
use uuid::Uuid;

use crate::admin::{delete_memories, Counts};
use crate::audit::{write_audit, AuditEntry};
use crate::{Store, StoreError};

#[derive(sqlx::FromRow)]
struct ViewRow {
    id: Uuid,
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
    embedding: Vector,
}

impl From<ViewRow> for MemoryView {
    fn from(r: ViewRow) -> Self {
        MemoryView {
            id: r.id,
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
        planner: impl FnOnce(&[MemoryView]) -> Vec<Operation>,
    ) -> Result<(Vec<Operation>, Counts), StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
            .bind(format!("{tenant}/{user_id}/"))
            .execute(&mut *tx)
            .await?;
        let rows: Vec<ViewRow> = sqlx::query_as(
            "SELECT id, content, subject, attribute, value, source_type,
                    coalesce(base_importance, importance) AS base_importance, importance, pinned,
                    access_count, created_at, last_used_at, expires_at, deleted_at, superseded_by,
                    archived_at, embedding
             FROM memories WHERE tenant_id = $1 AND user_id = $2 AND agent_id IS NULL
             ORDER BY created_at, id",
        )
        .bind(tenant)
        .bind(user_id)
        .fetch_all(&mut *tx)
        .await?;
        let view: Vec<MemoryView> = rows.into_iter().map(MemoryView::from).collect();
        let ops = planner(&view);
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
                subject_hash: Some(subject_hash(tenant, user_id)),
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
            "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, new_content, actor, reason, created_at)
             VALUES ($1, gen_random_uuid(), $2, $3, $4, $5, 'consolidation', $6, $7)",
        )
        .bind(tenant)
        .bind(memory)
        .bind(event)
        .bind(old)
        .bind(new)
        .bind(reason)
        .bind(now)
    };
    match op {
        Operation::Purge { .. } => {}
        Operation::Resolve {
            winner,
            loser,
            reason,
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
