//! One history row written beside a change that has no candidate behind
//! it (a revert, what a delete or a later statement does to the pieces of
//! what was said): the event, the text before and after, who and why.

use sqlx::PgConnection;
use uuid::Uuid;

use crate::StoreError;

/// A history row to write for `memory`.
pub(crate) struct HistoryRow<'a> {
    pub memory: Uuid,
    pub event: &'a str,
    pub old: Option<&'a str>,
    pub new: Option<&'a str>,
    pub actor: &'a str,
    pub reason: &'a str,
    /// The job that made the change, when a job did.
    pub job: Option<Uuid>,
}

impl HistoryRow<'_> {
    pub(crate) async fn write(
        &self,
        conn: &mut PgConnection,
        tenant: Uuid,
    ) -> Result<(), StoreError> {
        sqlx::query(
            "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, new_content, actor, reason, job_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(tenant)
        .bind(Uuid::now_v7())
        .bind(self.memory)
        .bind(self.event)
        .bind(self.old)
        .bind(self.new)
        .bind(self.actor)
        .bind(self.reason)
        .bind(self.job)
        .execute(conn)
        .await?;
        Ok(())
    }
}
