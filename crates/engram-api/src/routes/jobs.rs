//! `/v1/jobs/{id}`: where a background job is, and what it did.

use crate::dto::JobOut;
use crate::error::ApiError;
use crate::extractors::IdPath;
use crate::state::{AppState, Caller};
use axum::extract::State;
use axum::{Extension, Json};

pub async fn get_job(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<Json<JobOut>, ApiError> {
    let job = state.store.get_job(caller.tenant_id, id).await?;
    caller.see(job.user_id.as_deref(), job.agent_id.as_deref())?;
    Ok(Json(job.into()))
}
