//! `/v1/context` and `/v1/users/{user_id}/profile`: what a chat model should
//! see now, in one call, and the user's core facts.

use axum::extract::{Path, State};
use axum::{Extension, Json};
use engram_core::{Memory, MemoryPatch};
use engram_store::StoreError;

use crate::dto::{
    self, ContextRequest, ContextResponse, MemoryOut, PatchProfileRequest, ProfileQuery,
    ProfileResponse, ProfileSummaryOut,
};
use crate::error::ApiError;
use crate::extractors::path_identifier;
use crate::extractors::{ApiJson, ApiQuery};
use crate::state::{AppState, Caller};
use crate::usecases::context_block::{self, PROFILE_LIMIT};
use crate::usecases::search::embed_one;

pub async fn build_context(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiJson(req): ApiJson<ContextRequest>,
) -> Result<Json<ContextResponse>, ApiError> {
    let plan = context_block::plan(&state, &caller, req)?;
    Ok(Json(context_block::build(&state, &caller, plan).await?))
}

pub async fn get_profile(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(user_id): Path<String>,
    ApiQuery(q): ApiQuery<ProfileQuery>,
) -> Result<Json<ProfileResponse>, ApiError> {
    let user_id = path_identifier(&state, "user_id", &user_id)?;
    caller.check_user(&user_id)?;
    let limit = match q.limit {
        Some(l) if !(1..=PROFILE_LIMIT as i64).contains(&l) => {
            return Err(ApiError::validation(
                "limit",
                format!("must be between 1 and {PROFILE_LIMIT}"),
            ))
        }
        Some(l) => l as usize,
        None => PROFILE_LIMIT,
    };
    let entries = state
        .store
        .profile(caller.tenant_id, &user_id, state.clock.now(), limit)
        .await?;
    let summary = state
        .store
        .latest_user_summary(caller.tenant_id, &user_id)
        .await?;
    Ok(Json(ProfileResponse {
        user_id,
        entries: caller
            .profile(entries)
            .into_iter()
            .map(MemoryOut::from)
            .collect(),
        summary: summary.map(|mut s| {
            s.summary.content = engram_core::policy::without_instructions(&s.summary.content);
            ProfileSummaryOut::from(s)
        }),
    }))
}

/// Corrects or removes one profile entry, recorded in its history like any
/// change (UPDATE or DELETE).
pub async fn patch_profile(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(user_id): Path<String>,
    ApiJson(req): ApiJson<PatchProfileRequest>,
) -> Result<Json<ProfileResponse>, ApiError> {
    let user_id = path_identifier(&state, "user_id", &user_id)?;
    caller.check_user(&user_id)?;
    let current: Memory = state.store.get_memory(caller.tenant_id, req.id).await?;
    if current.scope.user_id.as_deref() != Some(user_id.as_str()) {
        return Err(ApiError::from(StoreError::NotFound));
    }
    caller.see(
        current.scope.user_id.as_deref(),
        current.scope.agent_id.as_deref(),
    )?;
    if req.remove.unwrap_or(false) {
        if req.value.is_some() || req.memory.is_some() {
            return Err(ApiError::validation(
                "remove",
                "remove an entry or correct it, not both",
            ));
        }
        let audit = caller.audit("profile.remove");
        state
            .store
            .delete_memory(caller.tenant_id, req.id, audit)
            .await?;
    } else {
        correct_entry(&state, &caller, &current, &req).await?;
    }
    get_profile(
        State(state),
        Extension(caller),
        Path(user_id),
        ApiQuery(ProfileQuery { limit: None }),
    )
    .await
}

/// Corrects a profile entry: a new value (the text follows it) or new
/// wording, re-embedded, with an UPDATE in its history.
async fn correct_entry(
    state: &AppState,
    caller: &Caller,
    current: &Memory,
    req: &PatchProfileRequest,
) -> Result<(), ApiError> {
    let limits = &state.config.limits;
    let value = req
        .value
        .as_deref()
        .map(|v| dto::stored_text("value", v, limits).map(|(text, _)| text))
        .transpose()?;
    let mut value = value;
    let content = match (&req.memory, &value) {
        (Some(m), _) => dto::stored_text("memory", m, limits)?.0,
        // The text as it will be stored, screened whole: a value that is no
        // secret alone can be one in its sentence ("… wifi password is" +
        // "Aspen77tree").
        (None, Some(v)) => {
            let (content, kinds) = engram_core::policy::redact(&corrected_content(current, v));
            if let Some(kind) = kinds.first() {
                value = Some(format!("[REDACTED {kind}]"));
            }
            content
        }
        (None, None) => {
            return Err(ApiError::validation(
                "value",
                "give value or memory to correct, or remove: true",
            ))
        }
    };
    let embedding = embed_one(state, &content).await?;
    let patch = MemoryPatch {
        content: Some(content),
        value,
        ..Default::default()
    };
    state
        .store
        .update_memory(
            caller.tenant_id,
            req.id,
            &patch,
            Some(embedding),
            &caller.actor,
        )
        .await?;
    Ok(())
}

/// The memory's text with its old value replaced by the new one, or a plain
/// statement of the new value when the old one is not in the text.
fn corrected_content(m: &Memory, value: &str) -> String {
    match &m.value {
        Some(old) if !old.is_empty() && m.content.contains(old.as_str()) => {
            m.content.replace(old.as_str(), value)
        }
        _ => match &m.attribute {
            Some(a) => format!("{a}: {value}"),
            None => value.to_owned(),
        },
    }
}
