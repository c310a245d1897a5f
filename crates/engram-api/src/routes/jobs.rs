//! `/v1/jobs/{id}`: where a background job is, and what it did.

use axum::extract::State;
use axum::{Extension, Json};

use crate::dto::JobOut;
use crate::error::ApiError;
use crate::extract::IdPath;
use crate::state::{AppState, Caller};

pub async fn get_job(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<Json<JobOut>, ApiError> {
    Ok(Json(
        state.store.get_job(caller.tenant_id, id).await?.into(),
    ))
}
