//! `/v1/sessions/{session_id}`: the turns of a conversation, its short-term
//! window (the newest turns within a token budget) and the running summary
//! of the turns that left it.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use engram_core::validate;
use engram_store::Apply;

use crate::dto::{
    self, AppendMessagesRequest, AppendMessagesResponse, ErasureReceipt, ListTurnsQuery,
    ListTurnsResponse, SessionOut,
};
use crate::error::ApiError;
use crate::extractors::path_identifier;
use crate::extractors::{ApiJson, ApiQuery};
use crate::state::{AppState, Caller};
use crate::usecases::ingest;
use crate::usecases::purge::run_source_purge;

fn session_path(state: &AppState, raw: &str) -> Result<String, ApiError> {
    path_identifier(state, "session_id", raw)
}

pub async fn append_messages(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(session_id): Path<String>,
    ApiJson(req): ApiJson<AppendMessagesRequest>,
) -> Result<(StatusCode, Json<AppendMessagesResponse>), ApiError> {
    let session_id = session_path(&state, &session_id)?;
    let limits = &state.config.limits;
    // Stored with every turn: no secret in either.
    validate::identifier("session_id", &session_id, limits)?;
    let user_id = validate::identifier("user_id", &req.user_id, limits)?;
    caller.check_user(&user_id)?;
    let said = dto::messages(&req.messages, limits, state.config.max_add_chars)?;
    let window_tokens = match req.window_tokens {
        Some(w) if !(1..=1_000_000).contains(&w) => {
            return Err(ApiError::validation(
                "window_tokens",
                "must be between 1 and 1000000",
            ))
        }
        Some(w) => w as i32,
        None => state.config.session_window_tokens as i32,
    };
    let opts = ingest::AppendOptions {
        infer: req.infer.unwrap_or(true),
        keep: ingest::kept_turns(&state, req.store_raw),
        allow_sensitive: req.allow_sensitive.unwrap_or(false),
        trusted: req.trusted.unwrap_or(false),
    };
    let appended = ingest::append(
        &state,
        &caller,
        (&session_id, &user_id),
        said.messages,
        window_tokens,
        opts,
    )
    .await?;
    Ok((
        StatusCode::CREATED,
        Json(AppendMessagesResponse {
            session_id,
            user_id,
            messages: appended.turns,
            left_window: appended.left_window.len(),
            summarize_job_id: appended.summarize_job,
            extract_job_id: appended.extract_job,
            skipped: dto::skipped_empty(&said.skipped),
        }),
    ))
}

pub async fn list_messages(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(session_id): Path<String>,
    ApiQuery(q): ApiQuery<ListTurnsQuery>,
) -> Result<Json<ListTurnsResponse>, ApiError> {
    let session_id = session_path(&state, &session_id)?;
    let limit = dto::page_limit(q.limit, 100)?;
    let after = match &q.cursor {
        Some(c) => Some(c.parse::<i64>().ok().filter(|s| *s >= 0).ok_or_else(|| {
            ApiError::validation("cursor", "is not a cursor returned by this API")
        })?),
        None => None,
    };
    let (info, turns) = state
        .store
        .list_turns(caller.tenant_id, &session_id, after, limit)
        .await?;
    caller.see_session(&info.user_id)?;
    let next_cursor = (turns.len() == limit)
        .then(|| turns.last().map(|t| t.seq.to_string()))
        .flatten();
    Ok(Json(ListTurnsResponse {
        session_id: info.session_id,
        user_id: info.user_id,
        messages: turns,
        next_cursor,
    }))
}

pub async fn get_session(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(session_id): Path<String>,
) -> Result<Json<SessionOut>, ApiError> {
    let session_id = session_path(&state, &session_id)?;
    let s = state
        .store
        .session_state(caller.tenant_id, &session_id)
        .await?;
    caller.see_session(&s.info.user_id)?;
    Ok(Json(SessionOut::from(s)))
}

/// Deletes the session and everything derived only from it: its turns,
/// summary and jobs, and the facts extracted from it, as a source purge of
/// `session:{id}` does (what they superseded comes back, merges are undone),
/// in one transaction with a receipt.
pub async fn delete_session(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(session_id): Path<String>,
) -> Result<Json<ErasureReceipt>, ApiError> {
    let session_id = session_path(&state, &session_id)?;
    caller.check_session(&state, &session_id).await?;
    let mut plan = state
        .store
        .unbounded()
        .plan_source_purge(caller.tenant_id, &ingest::session_source(&session_id))
        .await?;
    plan.session = Some(session_id);
    Ok(Json(
        run_source_purge(&state, &caller, &plan, "session.delete", Apply::Commit).await?,
    ))
}
