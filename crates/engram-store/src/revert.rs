//! Undoing the latest change to a memory, itself recorded in history.

use engram_core::{HistoryEvent, Memory};
use pgvector::Vector;
use serde_json::Value;
use uuid::Uuid;

use crate::history::HistoryRow;
use crate::rows::{MemoryRow, MEMORY_COLUMNS};
use crate::{ConflictKind, Store, StoreError};

/// The change a revert would undo.
#[derive(Debug, Clone)]
pub struct LatestChange {
    pub history_id: Uuid,
    pub event: HistoryEvent,
    pub old_content: Option<String>,
    pub old_metadata: Option<Value>,
    /// The memory that replaced this one, which undoing a SUPERSEDE retires.
    pub successor: Option<Uuid>,
}

impl LatestChange {
    /// Whether undoing it restores earlier content (which must be re-embedded).
    pub fn restores_content(&self) -> bool {
        matches!(self.event, HistoryEvent::Update | HistoryEvent::Merge)
            && self.old_content.is_some()
    }
}

/// (history id, event, old content, old metadata, the memory's successor).
type ChangeRow = (Uuid, String, Option<String>, Option<Value>, Option<Uuid>);

impl Store {
    /// The latest change to a memory that can be undone (reinforcements are skipped).
    pub async fn latest_change(&self, tenant: Uuid, id: Uuid) -> Result<LatestChange, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let row: Option<ChangeRow> = sqlx::query_as(
            "SELECT h.id, h.event, h.old_content, h.old_metadata, m.superseded_by
             FROM memories m JOIN memory_history h ON h.tenant_id = m.tenant_id AND h.memory_id = m.id
             WHERE m.tenant_id = $1 AND m.id = $2 AND h.event <> 'NOOP'
             ORDER BY h.created_at DESC, h.id DESC LIMIT 1",
        )
        .bind(tenant)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        let (history_id, event, old_content, old_metadata, successor) =
            row.ok_or(StoreError::NotFound)?;
        let event = HistoryEvent::parse(&event).unwrap_or(HistoryEvent::Add);
        if matches!(event, HistoryEvent::Add | HistoryEvent::Revert) {
            return Err(StoreError::Conflict(
                ConflictKind::NotRevertible,
                format!(
                    "the latest change to this memory is {}; there is nothing to revert",
                    event.as_str()
                ),
            ));
        }
        Ok(LatestChange {
            history_id,
            event,
            old_content,
            old_metadata,
            successor: successor.filter(|_| event == HistoryEvent::Supersede),
        })
    }

    /// Undoes `change` if it is still the latest: un-supersedes (retiring the
    /// successor in its favour), restores content, or undeletes.
    pub async fn revert_change(
        &self,
        tenant: Uuid,
        id: Uuid,
        change: &LatestChange,
        embedding: Option<Vec<f32>>,
        actor: &str,
    ) -> Result<Memory, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let (content, successor): (String, Option<Uuid>) =
            sqlx::query_as("SELECT content, superseded_by FROM memories WHERE tenant_id = $1 AND id = $2 FOR UPDATE")
                .bind(tenant)
                .bind(id)
                .fetch_optional(&mut *tx)
                .await?
                .ok_or(StoreError::NotFound)?;
        let latest: Option<Uuid> = sqlx::query_scalar(
            "SELECT id FROM memory_history WHERE tenant_id = $1 AND memory_id = $2 AND event <> 'NOOP'
             ORDER BY created_at DESC, id DESC LIMIT 1",
        )
        .bind(tenant)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        if latest != Some(change.history_id) {
            return Err(StoreError::Conflict(
                ConflictKind::ChangedMeanwhile,
                "the memory changed meanwhile; read its history and try again".into(),
            ));
        }
        let reason = format!("reverted {}", change.event.as_str());
        let restored = match change.event {
            HistoryEvent::Supersede => {
                sqlx::query("UPDATE memories SET superseded_by = NULL, updated_at = now() WHERE tenant_id = $1 AND id = $2")
                    .bind(tenant)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                if let Some(next) = successor {
                    let retired: Option<String> = sqlx::query_scalar(
                        "UPDATE memories SET superseded_by = $3, updated_at = now()
                         WHERE tenant_id = $1 AND id = $2 AND superseded_by IS NULL RETURNING content",
                    )
                    .bind(tenant)
                    .bind(next)
                    .bind(id)
                    .fetch_optional(&mut *tx)
                    .await?;
                    if let Some(old) = retired {
                        HistoryRow {
                            memory: next,
                            event: "SUPERSEDE",
                            old: Some(&old),
                            new: Some(&content),
                            actor,
                            reason: &format!("superseded by the revert of {id}"),
                            job: None,
                        }
                        .write(&mut tx, tenant)
                        .await?;
                    }
                }
                content.clone()
            }
            HistoryEvent::Update | HistoryEvent::Merge => {
                let old = change.old_content.clone().ok_or_else(|| {
                    StoreError::Conflict(
                        ConflictKind::NotRevertible,
                        "no earlier content to restore".into(),
                    )
                })?;
                let embedding = embedding.ok_or_else(|| {
                    StoreError::Internal("restoring content needs its embedding".into())
                })?;
                sqlx::query(
                    "UPDATE memories SET content = $3, content_hash = $4, embedding = $5,
                            metadata = coalesce($6, metadata), updated_at = now()
                     WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant)
                .bind(id)
                .bind(&old)
                .bind(engram_core::content_hash(&old))
                .bind(Vector::from(embedding))
                .bind(&change.old_metadata)
                .execute(&mut *tx)
                .await?;
                old
            }
            // Restoring an archived memory: back in search at its stated
            // importance, used now (so the next run does not archive it again).
            HistoryEvent::Archive => {
                sqlx::query(
                    "UPDATE memories SET archived_at = NULL, importance = coalesce(base_importance, importance),
                            last_used_at = now(), updated_at = now()
                     WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant)
                .bind(id)
                .execute(&mut *tx)
                .await?;
                content.clone()
            }
            HistoryEvent::Delete | HistoryEvent::Retract | HistoryEvent::Forget => {
                sqlx::query("UPDATE memories SET deleted_at = NULL, updated_at = now() WHERE tenant_id = $1 AND id = $2")
                    .bind(tenant)
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                content.clone()
            }
            other => {
                return Err(StoreError::Conflict(
                    ConflictKind::NotRevertible,
                    format!("{} cannot be reverted", other.as_str()),
                ))
            }
        };
        HistoryRow {
            memory: id,
            event: "REVERT",
            old: Some(&content),
            new: Some(&restored),
            actor,
            reason: &reason,
            job: None,
        }
        .write(&mut tx, tenant)
        .await?;
        let row: MemoryRow = sqlx::query_as(&format!(
            "SELECT {MEMORY_COLUMNS} FROM memories WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant)
        .bind(id)
        .fetch_one(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row.into())
    }
}
