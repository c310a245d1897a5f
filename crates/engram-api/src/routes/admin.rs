//! `/v1/admin` for admin keys: API keys, the audit log, consolidation runs.
//! (One user's data, for admin or tenant keys, is `gdpr`.)

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use engram_core::time::Timestamp;
use engram_core::{validate, KeyBinding, Role};
use engram_store::AuditQuery;

use crate::dto::next_cursor;
use crate::dto::{
    self, AuditListResponse, AuditQueryParams, CallerOut, ConsolidateRequest, CreateKeyRequest,
    CreatedKeyOut, KeyListResponse, KeyOut, RunsQuery, RunsResponse,
};
use crate::error::ApiError;
use crate::extractors::{ApiJson, ApiQuery, IdPath};
use crate::state::{AppState, Caller};
use crate::usecases::jobs::wait_for_job;

// ---- keys ----------------------------------------------------------------------

pub async fn create_key(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiJson(req): ApiJson<CreateKeyRequest>,
) -> Result<(StatusCode, Json<CreatedKeyOut>), ApiError> {
    let limits = &state.config.limits;
    let role = Role::parse(&req.role)
        .ok_or_else(|| ApiError::validation("role", "must be one of admin, tenant, read-only"))?;
    let name = validate::identifier("name", &req.name, limits)?;
    let tenant = match (role, req.tenant.as_deref()) {
        (Role::Admin, Some(_)) => {
            return Err(ApiError::validation(
                "tenant",
                "admin keys act in every tenant; give no tenant",
            ))
        }
        (Role::Admin, None) => None,
        (_, None) => return Err(ApiError::validation("tenant", "is required for this role")),
        (_, Some(t)) => Some(validate::tenant_name("tenant", t)?),
    };
    let binding = KeyBinding::for_new_key(
        role,
        req.user_id.as_deref(),
        req.agent_id.as_deref(),
        limits,
    )?;
    let created = state
        .store
        .create_key(
            tenant.as_deref(),
            role,
            &name,
            binding.as_ref(),
            caller.audit("key.create"),
        )
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(CreatedKeyOut {
            key: created.key,
            info: created.info.into(),
        }),
    ))
}

/// The calling key: its tenant, role and binding, so a client (an MCP
/// bridge, an app on a user's device) can learn whom its key acts for.
pub async fn whoami(Extension(caller): Extension<Caller>) -> Json<CallerOut> {
    let binding = caller.binding.as_ref();
    Json(CallerOut {
        tenant_id: caller.tenant_id,
        role: caller.role.as_str().to_owned(),
        key_id: caller.key_id,
        user_id: binding.map(|b| b.user_id.clone()),
        agent_id: binding.and_then(|b| b.agent_id.clone()),
    })
}

pub async fn list_keys(State(state): State<AppState>) -> Result<Json<KeyListResponse>, ApiError> {
    let keys = state.store.list_keys().await?;
    Ok(Json(KeyListResponse {
        results: keys.into_iter().map(KeyOut::from).collect(),
    }))
}

pub async fn revoke_key(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<StatusCode, ApiError> {
    state
        .store
        .revoke_key(id, caller.audit("key.revoke"))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

// ---- audit log -----------------------------------------------------------------

pub async fn list_audit(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiQuery(q): ApiQuery<AuditQueryParams>,
) -> Result<Json<AuditListResponse>, ApiError> {
    let limits = &state.config.limits;
    let limit = dto::page_limit(q.limit, 100)?;
    let subject_hash = match q.user_id.as_deref() {
        Some(u) => {
            let u = validate::reference("user_id", u, limits)?;
            Some(state.store.subject_hash(caller.tenant_id, &u).await?)
        }
        None => None,
    };
    let before = dto::cursor(&q.cursor)?.map(|c| (c.created_at, c.id));
    let records = state
        .store
        .list_audit(&AuditQuery {
            action: q.action,
            actor: q.actor,
            subject_hash,
            since: q.since.map(Timestamp::get),
            until: q.until.map(Timestamp::get),
            before,
            limit,
        })
        .await?;
    let next_cursor = next_cursor(&records, limit, |r| (r.at, r.id));
    Ok(Json(AuditListResponse {
        results: records,
        next_cursor,
    }))
}

// ---- consolidation ---------------------------------------------------------------

/// Starts a consolidation run as a job the workers take: one user of the
/// caller's tenant, or everyone. `wait: true` answers with the finished run
/// (as long as the request may last), 409 when another run held the cluster
/// lock; otherwise 202 with the job, whose result names the run.
pub async fn consolidate(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiJson(req): ApiJson<ConsolidateRequest>,
) -> Result<Response, ApiError> {
    let user_id = req
        .user_id
        .as_deref()
        .map(|u| validate::reference("user_id", u, &state.config.limits))
        .transpose()?;
    let payload = engram_store::ConsolidatePayload {
        user_id,
        dry_run: req.dry_run.unwrap_or(false),
    };
    let job_id = state
        .store
        .enqueue_consolidation(caller.tenant_id, &payload)
        .await?;
    if req.wait.unwrap_or(false) {
        let timeout = state
            .config
            .request_timeout
            .saturating_sub(std::time::Duration::from_secs(1));
        if let Some(job) = wait_for_job(&state, caller.tenant_id, job_id, timeout).await? {
            return consolidation_answer(&state, job).await;
        }
    }
    Ok((
        StatusCode::ACCEPTED,
        Json(serde_json::json!({"job_id": job_id, "status": "queued"})),
    )
        .into_response())
}

/// A finished consolidation job as the API answers it: its run, 409 when
/// another run held the lock, or the job's failure.
async fn consolidation_answer(
    state: &AppState,
    job: engram_store::JobRow,
) -> Result<Response, ApiError> {
    let outcome = job
        .results
        .get(0)
        .cloned()
        .and_then(|r| serde_json::from_value::<engram_store::ConsolidateOutcome>(r).ok());
    match outcome {
        Some(engram_store::ConsolidateOutcome::Run { run_id }) => {
            let run = state.store.get_run(run_id).await?;
            Ok((StatusCode::OK, Json(run)).into_response())
        }
        Some(engram_store::ConsolidateOutcome::Busy) => Err(ApiError::Conflict(
            engram_store::ConflictKind::ConsolidationBusy,
            "another consolidation run is in progress".into(),
        )),
        None => Err(ApiError::Internal(format!(
            "the consolidation job failed: {}",
            job.last_error.unwrap_or_default()
        ))),
    }
}

pub async fn list_consolidation_runs(
    State(state): State<AppState>,
    ApiQuery(q): ApiQuery<RunsQuery>,
) -> Result<Json<RunsResponse>, ApiError> {
    let limit = dto::page_limit(q.limit, 20)?;
    Ok(Json(RunsResponse {
        runs: state.store.list_runs(limit).await?,
    }))
}
