//! The core profile: a user's current value for each subject + attribute,
//! and their pinned memories.

use chrono::{DateTime, Utc};
use engram_core::Memory;
use uuid::Uuid;

use crate::rows::{MemoryRow, MEMORY_COLUMNS};
use crate::{SessionSummary, Store, StoreError};

/// The latest session summary of a user, with its session.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct UserSummary {
    pub session_id: String,
    #[sqlx(flatten)]
    pub summary: SessionSummary,
}

impl Store {
    /// Live memories that make up the profile, most important first, at most
    /// `limit`: for each (subject, attribute) the newest live value, and every
    /// pinned memory. Superseded, expired and deleted memories never appear.
    pub async fn profile(
        &self,
        tenant: Uuid,
        user_id: &str,
        now: DateTime<Utc>,
        limit: usize,
    ) -> Result<Vec<Memory>, StoreError> {
        let live = "tenant_id = $1 AND user_id = $2 AND deleted_at IS NULL AND archived_at IS NULL
                    AND superseded_by IS NULL AND (expires_at IS NULL OR expires_at > $3)";
        let sql = format!(
            "SELECT {MEMORY_COLUMNS} FROM memories WHERE tenant_id = $1 AND id IN (
                SELECT id FROM (
                    SELECT DISTINCT ON (coalesce(subject, ''), attribute) id FROM memories
                    WHERE {live} AND attribute IS NOT NULL
                    ORDER BY coalesce(subject, ''), attribute, created_at DESC, id DESC
                ) current
                UNION SELECT id FROM memories WHERE {live} AND pinned)
             ORDER BY pinned DESC, importance DESC, created_at DESC, id
             LIMIT $4"
        );
        let mut tx = self.tenant_tx(tenant).await?;
        let rows: Vec<MemoryRow> = sqlx::query_as(&sql)
            .bind(tenant)
            .bind(user_id)
            .bind(now)
            .bind(limit as i64)
            .fetch_all(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(rows.into_iter().map(Memory::from).collect())
    }

    /// The user's most recently updated session summary, if any.
    pub async fn latest_user_summary(
        &self,
        tenant: Uuid,
        user_id: &str,
    ) -> Result<Option<UserSummary>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let row = sqlx::query_as(
            "SELECT s.session_id, s.content, s.tokens, s.first_seq, s.last_seq, s.summarizer, s.updated_at
             FROM session_summaries s JOIN sessions USING (tenant_id, session_id)
             WHERE s.tenant_id = $1 AND sessions.user_id = $2
             ORDER BY s.updated_at DESC LIMIT 1",
        )
        .bind(tenant)
        .bind(user_id)
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row)
    }
}
