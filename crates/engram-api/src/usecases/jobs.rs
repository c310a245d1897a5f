//! Waiting for a background job (an add or a consolidation with `wait:
//! true`).

use std::time::Duration;

use engram_core::JobStatus;
use engram_store::JobRow;
use uuid::Uuid;

use crate::error::ApiError;
use crate::state::AppState;

/// Polls a job until it has ended or `timeout` has passed: the job then, or
/// `None` if it is still queued or running.
pub(crate) async fn wait_for_job(
    state: &AppState,
    tenant: Uuid,
    id: Uuid,
    timeout: Duration,
) -> Result<Option<JobRow>, ApiError> {
    let now = tokio::time::Instant::now();
    let deadline = now.checked_add(timeout).unwrap_or(now);
    loop {
        let job = state.store.get_job(tenant, id).await?;
        if matches!(job.status, JobStatus::Done | JobStatus::Failed) {
            return Ok(Some(job));
        }
        if tokio::time::Instant::now() >= deadline {
            return Ok(None);
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}
