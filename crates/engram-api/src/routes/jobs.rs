//! `/v1/jobs`: where background jobs are, and what they did.

use axum::extract::State;
use axum::{Extension, Json};
use engram_core::{JobStatus, Scope};
use engram_store::{JobKind, JobQuery};

use crate::dto::{self, next_cursor, JobListResponse, JobOut, JobsQuery};
use crate::error::ApiError;
use crate::extractors::{ApiQuery, IdPath};
use crate::state::{AppState, Caller};

pub async fn get_job(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<Json<JobOut>, ApiError> {
    Ok(Json(visible_job(&state, &caller, id).await?.into()))
}

/// The job, if the caller may see it (a bound key: its user's only).
async fn visible_job(
    state: &AppState,
    caller: &Caller,
    id: uuid::Uuid,
) -> Result<engram_store::JobRow, ApiError> {
    let job = state.store.get_job(caller.tenant_id, id).await?;
    caller.see(job.user_id.as_deref(), job.agent_id.as_deref())?;
    Ok(job)
}

/// Runs a failed job again from its first attempt, with the input it kept
/// (after the model or the endpoint behind the failure was fixed).
pub async fn retry_job(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<Json<JobOut>, ApiError> {
    visible_job(&state, &caller, id).await?;
    let job = state.store.retry_job(caller.tenant_id, id).await?;
    Ok(Json(job.into()))
}

/// The tenant's jobs, newest first; a bound key sees only its user's (and
/// agent's).
pub async fn list_jobs(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiQuery(q): ApiQuery<JobsQuery>,
) -> Result<Json<JobListResponse>, ApiError> {
    let limit = dto::page_limit(q.limit, 50)?;
    // Unlike a memory read, no owner is needed: the whole tenant's queue.
    let unscoped = q.user_id.is_none() && q.agent_id.is_none() && q.session_id.is_none();
    let scope = if unscoped && caller.binding.is_none() {
        Scope::default()
    } else {
        caller.scope(
            &q.user_id,
            &q.agent_id,
            &q.session_id,
            false,
            &state.config.limits,
        )?
    };
    let status = match q.status.as_deref() {
        Some(s) => Some(JobStatus::parse(s).ok_or_else(|| {
            ApiError::validation("status", "must be queued, running, done or failed")
        })?),
        None => None,
    };
    let kind = match q.kind.as_deref() {
        Some(k) => Some(JobKind::parse(k).ok_or_else(|| {
            ApiError::validation("kind", "must be extract, summarize or consolidate")
        })?),
        None => None,
    };
    let jobs = state
        .store
        .list_jobs(
            caller.tenant_id,
            &JobQuery {
                user_id: scope.user_id,
                agent_id: scope.agent_id,
                session_id: scope.session_id,
                status,
                kind,
                before: dto::cursor(&q.cursor)?.map(|c| (c.created_at, c.id)),
                limit,
            },
        )
        .await?;
    let next_cursor = next_cursor(&jobs, limit, |j| (j.created_at, j.id));
    Ok(Json(JobListResponse {
        results: jobs.into_iter().map(JobOut::from).collect(),
        next_cursor,
    }))
}
