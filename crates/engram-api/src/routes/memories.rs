//! `/v1/memories`: add, search, list, read, change, delete, history.

use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use engram_core::time::Timestamp;
use engram_core::{MemoryFilter, MemoryPatch, Page};

use crate::dto::{
    self, BatchRequest, BatchResponse, DeleteScopeResponse, HistoryResponse, ListQuery,
    ListResponse, MemoryOut, PatchMemoryRequest, ScopeQuery, SearchHit, SearchRequest,
    SearchResponse,
};
use crate::error::ApiError;
use crate::extractors::{ApiJson, ApiQuery, IdPath};
use crate::state::{AppState, Caller};
use crate::usecases::search::{embed_one, run_search, SearchPlan};

pub async fn search_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiJson(req): ApiJson<SearchRequest>,
) -> Result<Json<SearchResponse>, ApiError> {
    let plan = SearchPlan::from_request(&state, &caller, req)?;
    let (ranked, query_time) = run_search(&state, &caller, plan).await?;
    Ok(Json(SearchResponse {
        results: ranked.into_iter().map(SearchHit::from).collect(),
        query_time,
    }))
}

pub async fn list_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<ListResponse>, ApiError> {
    let limits = &state.config.limits;
    let scope = caller.scope(&q.user_id, &q.agent_id, &q.session_id, false, limits)?;
    let page = Page {
        limit: dto::page_limit(q.limit, 50)?,
        after: dto::cursor(&q.cursor)?,
    };
    let filter = MemoryFilter {
        scope,
        include_superseded: q.include_superseded.unwrap_or(false),
        include_expired: q.include_expired.unwrap_or(false),
        said: q.said,
        now: Some(state.clock.now()),
        ..Default::default()
    };
    let memories = state
        .store
        .list_memories(caller.tenant_id, &filter, &page)
        .await?;
    let next_cursor = crate::dto::next_cursor(&memories, page.limit, |m| (m.created_at, m.id));
    Ok(Json(ListResponse {
        results: memories.into_iter().map(MemoryOut::from).collect(),
        next_cursor,
    }))
}

pub async fn get_memory(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<Json<MemoryOut>, ApiError> {
    let memory = state.store.get_memory(caller.tenant_id, id).await?;
    caller.see(
        memory.scope.user_id.as_deref(),
        memory.scope.agent_id.as_deref(),
    )?;
    Ok(Json(memory.into()))
}

pub async fn update_memory(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
    ApiJson(req): ApiJson<PatchMemoryRequest>,
) -> Result<Json<MemoryOut>, ApiError> {
    caller.check_memory(&state, id).await?;
    let patch = memory_patch(req, "", &state.config.limits)?;
    // Embed before the transaction so no lock is held during inference.
    let embedding = match &patch.content {
        Some(c) => Some(embed_one(&state, c).await?),
        None => None,
    };
    let memory = state
        .store
        .update_memory(caller.tenant_id, id, &patch, embedding, &caller.actor)
        .await?;
    Ok(Json(memory.into()))
}

/// Several changes and deletes in one transaction: all of them, or none
/// when one is refused (an id not found, or not this key's).
pub async fn batch_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiJson(req): ApiJson<BatchRequest>,
) -> Result<Json<BatchResponse>, ApiError> {
    let total = req.update.len() + req.delete.len();
    if total == 0 || total > 1000 {
        return Err(ApiError::validation(
            "update",
            "give 1 to 1000 changes and deletes in all",
        ));
    }
    let mut seen = std::collections::HashSet::new();
    let ids = req
        .update
        .iter()
        .map(|u| u.id)
        .chain(req.delete.iter().copied());
    for id in ids {
        if !seen.insert(id) {
            return Err(ApiError::validation(
                "delete",
                format!("memory {id} is named twice"),
            ));
        }
        caller.check_memory(&state, id).await?;
    }
    let mut updates = Vec::with_capacity(req.update.len());
    for (i, u) in req.update.into_iter().enumerate() {
        let (id, change) = u.split();
        let patch = memory_patch(change, &format!("update[{i}]."), &state.config.limits)?;
        let embedding = match &patch.content {
            Some(c) => Some(embed_one(&state, c).await?),
            None => None,
        };
        updates.push((id, patch, embedding));
    }
    let (updated, counts) = state
        .store
        .batch_memories(
            caller.tenant_id,
            updates,
            &req.delete,
            caller.audit("memory.batch"),
        )
        .await?;
    Ok(Json(BatchResponse {
        updated: updated.into_iter().map(MemoryOut::from).collect(),
        deleted: req.delete,
        counts,
    }))
}

/// A change as the store takes it; errors name `prefix` + the field.
fn memory_patch(
    req: PatchMemoryRequest,
    prefix: &str,
    limits: &engram_core::Limits,
) -> Result<MemoryPatch, ApiError> {
    let field = |f: &str| format!("{prefix}{f}");
    let patch = MemoryPatch {
        content: req
            .memory
            .as_deref()
            .map(|c| dto::stored_text(&field("memory"), c, limits).map(|(text, _)| text))
            .transpose()?,
        value: None,
        metadata: dto::metadata(req.metadata, limits).map_err(|mut e| {
            e.field = field(&e.field);
            e
        })?,
        importance: dto::importance(&field("importance"), req.importance)?,
        pinned: req.pinned,
        expires_at: req.expires_at.map(|e| e.map(Timestamp::get)),
    };
    if patch.is_empty() {
        return Err(ApiError::validation(
            field("memory"),
            "give at least one of memory, metadata, importance, pinned, expires_at",
        ));
    }
    Ok(patch)
}

pub async fn delete_memory(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<StatusCode, ApiError> {
    caller.check_memory(&state, id).await?;
    state
        .store
        .delete_memory(caller.tenant_id, id, caller.audit("memory.delete"))
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

pub async fn delete_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiQuery(q): ApiQuery<ScopeQuery>,
) -> Result<Json<DeleteScopeResponse>, ApiError> {
    let scope = caller.scope(
        &q.user_id,
        &q.agent_id,
        &q.session_id,
        true,
        &state.config.limits,
    )?;
    let counts = state
        .store
        .unbounded()
        .delete_scope(caller.tenant_id, &scope, caller.audit("scope.delete"))
        .await?;
    Ok(Json(DeleteScopeResponse {
        deleted: counts.get("memories").copied().unwrap_or(0),
        counts,
    }))
}

pub async fn get_memory_history(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<Json<HistoryResponse>, ApiError> {
    caller.check_memory(&state, id).await?;
    Ok(Json(HistoryResponse {
        results: state.store.memory_history(caller.tenant_id, id).await?,
    }))
}

pub async fn revert_memory(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<Json<MemoryOut>, ApiError> {
    caller.check_memory(&state, id).await?;
    let change = state.store.latest_change(caller.tenant_id, id).await?;
    // Undoing a SUPERSEDE retires the memory that replaced it: a key bound
    // to one agent may do that only to its own agent's (consolidation
    // resolves conflicts across a user's agents).
    if let Some(next) = change.successor {
        if caller.check_memory(&state, next).await.is_err() {
            return Err(ApiError::Conflict(
                engram_store::ConflictKind::NotRevertible,
                "the memory that replaced this one is not this key's to retire".into(),
            ));
        }
    }
    let embedding = match (&change.old_content, change.restores_content()) {
        (Some(old), true) => Some(embed_one(&state, old).await?),
        _ => None,
    };
    let memory = state
        .store
        .revert_change(caller.tenant_id, id, &change, embedding, &caller.actor)
        .await?;
    Ok(Json(memory.into()))
}
