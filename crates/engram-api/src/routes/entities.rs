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
    let entities = state
        .store
        .list_entities(
            caller.tenant_id,
            q.kind.into(),
            caller.binding.as_ref(),
            after.as_deref(),
            limit,
            state.clock.now(),
        )
        .await?;
    let next_after = (entities.len() == limit)
        .then(|| entities.last().map(|e| e.id.clone()))
        .flatten();
    Ok(Json(EntitiesResponse {
        results: entities,
        next_after,
    }))
}
