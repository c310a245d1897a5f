//! `/v1/jobs/{id}`: where a background job is, and what it did.

use std::time::Duration;

use axum::extract::State;
use axum::{Extension, Json};
use engram_store::JobRow;
use uuid::Uuid;

use engram_core::JobStatus;

use crate::dto::JobOut;
use crate::error::ApiError;
use crate::extractors::IdPath;
use crate::state::{AppState, Caller};

pub async fn get_job(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<Json<JobOut>, ApiError> {
    let job = state.store.get_job(caller.tenant_id, id).await?;
    caller.see(job.user_id.as_deref(), job.agent_id.as_deref())?;
    Ok(Json(job.into()))
}

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
