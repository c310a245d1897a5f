//! `/v1/entities`: the users, agents and sessions that hold memories in
//! view, one kind at a time, in name order (what Mem0's `users()` lists).

use axum::extract::State;
use axum::{Extension, Json};

use crate::dto::{self, EntitiesQuery, EntitiesResponse};
use crate::error::ApiError;
use crate::extractors::ApiQuery;
use crate::state::{AppState, Caller};

pub async fn list_entities(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiQuery(q): ApiQuery<EntitiesQuery>,
) -> Result<Json<EntitiesResponse>, ApiError> {
    let limit = dto::page_limit(q.limit, 100)?;
    let after = q
        .after
        .as_deref()
        .map(|a| engram_core::validate::reference("after", a, &state.config.limits))
        .transpose()?;
    let prefix = q
        .prefix
        .as_deref()
        .map(|p| engram_core::validate::reference("prefix", p, &state.config.limits))
        .transpose()?;
    let query = engram_store::EntityQuery {
        kind: q.kind.into(),
        binding: caller.binding.as_ref(),
        prefix: prefix.as_deref(),
        after: after.as_deref(),
        limit,
        now: state.clock.now(),
    };
    let entities = state.store.list_entities(caller.tenant_id, &query).await?;
    let next_after = (entities.len() == limit)
        .then(|| entities.last().map(|e| e.id.clone()))
        .flatten();
    Ok(Json(EntitiesResponse {
        results: entities,
        next_after,
    }))
}
