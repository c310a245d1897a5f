//! `POST /v1/memories`: verbatim (`infer: false`, 201) or through background
//! extraction (`infer: true`, 202 with a job, or the job's results with
//! `wait`). The work is in `ingest`.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use engram_core::JobStatus;

use crate::dto::{self, AddJobResponse, AddMemoriesRequest, AddMemoriesResponse, JobOut};
use crate::error::ApiError;
use crate::extractors::ApiJson;
use crate::state::{AppState, Caller};
use crate::usecases::ingest;
use crate::usecases::jobs::wait_for_job;

pub async fn add_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<AddMemoriesRequest>,
) -> Result<Response, ApiError> {
    let common = ingest::validate_add(&state, &caller, &req)?;
    if req.infer.unwrap_or(true) {
        return add_inferred(state, caller, headers, req, common).await;
    }
    let (memories, redacted, orders) = ingest::verbatim_memories(&req, &common)?;
    let results = ingest::store_verbatim(&state, &caller, memories, redacted).await?;
    let mut skipped = dto::skipped_empty(&common.skipped);
    skipped.extend(dto::skipped_orders(&orders));
    skipped.sort_by_key(|s| s.index);
    let body = AddMemoriesResponse { results, skipped };
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

async fn add_inferred(
    state: AppState,
    caller: Caller,
    headers: HeaderMap,
    req: AddMemoriesRequest,
    common: ingest::AddCommon,
) -> Result<Response, ApiError> {
    let key = ingest::idempotency_key(&headers, &state.config.limits)?;
    let (enqueued, raw) = ingest::enqueue_inferred(&state, &caller, key, &req, &common).await?;
    if req.wait.unwrap_or(false) {
        let timeout = state.config.add_wait_timeout;
        let waited = wait_for_job(&state, caller.tenant_id, enqueued.job_id, timeout).await?;
        if let Some(job) = waited {
            return Ok((StatusCode::OK, Json(JobOut::from(job))).into_response());
        }
    }
    let status = if enqueued.created {
        JobStatus::Queued
    } else {
        let job = state.store.get_job(caller.tenant_id, enqueued.job_id);
        job.await?.status
    };
    let body = AddJobResponse {
        job_id: enqueued.job_id,
        status,
        raw,
        skipped: dto::skipped_empty(&common.skipped),
    };
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}
