//! `/v1/context` and `/v1/users/{user_id}/profile`: what a chat model should
//! see now, in one call, and the user's core facts.

use std::collections::HashSet;

use axum::extract::{Path, State};
use axum::{Extension, Json};
use engram_context::lines::{memory_line, profile_line, turn_line};
use engram_context::{assemble, Candidates, Section};
use engram_core::time::Timestamp;
use engram_core::validate;
use engram_core::{Memory, MemoryFilter, MemoryPatch, Scope};
use engram_store::StoreError;

use crate::dto::{
    self, ContextRequest, ContextResponse, MemoryOut, PatchProfileRequest, ProfileQuery,
    ProfileResponse, ProfileSummaryOut,
};
use crate::error::ApiError;
use crate::extractors::{ApiJson, ApiQuery};
use crate::routes::gdpr::path_identifier;
use crate::search::{embed_one, run_search, SearchPlan};
use crate::state::{AppState, Caller};

/// The most profile entries a profile or a context call considers.
const PROFILE_LIMIT: usize = 50;

pub async fn build_context(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiJson(req): ApiJson<ContextRequest>,
) -> Result<Json<ContextResponse>, ApiError> {
    let limits = &state.config.limits;
    let user_id = validate::identifier("user_id", &req.user_id, limits)?;
    let session_id = req
        .session_id
        .as_deref()
        .map(|s| validate::identifier("session_id", s, limits))
        .transpose()?;
    let query = validate::query("query", &req.query, limits)?;
    if !(1..=200_000).contains(&req.token_budget) {
        return Err(ApiError::validation(
            "token_budget",
            "must be between 1 and 200000",
        ));
    }
    let top_k = req.top_k.unwrap_or(10);
    if !(1..=50).contains(&top_k) {
        return Err(ApiError::validation("top_k", "must be between 1 and 50"));
    }
    let priority: Vec<Section> = match req.include {
        Some(list) => {
            let mut seen = HashSet::new();
            if list.is_empty() || !list.iter().all(|s| seen.insert(*s)) {
                return Err(ApiError::validation(
                    "include",
                    "name each section at most once, at least one",
                ));
            }
            list
        }
        None => Section::DEFAULT_PRIORITY.to_vec(),
    };
    let wants = |s: Section| priority.contains(&s);
    let now = state.clock.now();
    let tenant = caller.tenant_id;

    // The profile, the search and the session are independent reads: run
    // them at once (the search's embedding overlaps the other two).
    let profile = async {
        if wants(Section::Profile) {
            state
                .store
                .profile(tenant, &user_id, now, PROFILE_LIMIT)
                .await
                .map_err(ApiError::from)
        } else {
            Ok(Vec::new())
        }
    };
    let search = async {
        if !wants(Section::Memories) {
            return Ok((Vec::new(), None));
        }
        let filter = MemoryFilter {
            scope: Scope {
                user_id: Some(user_id.clone()),
                ..Default::default()
            },
            now: Some(now),
            ..Default::default()
        };
        let mut plan = SearchPlan::defaults(&state, query.clone(), filter, top_k as usize);
        plan.reference_time = req.reference_time.map(Timestamp::get);
        run_search(&state, &caller, plan).await
    };
    let session = async {
        match &session_id {
            Some(sid) if wants(Section::Summary) || wants(Section::Recent) => {
                match state.store.session_state(tenant, sid).await {
                    Ok(s) if s.info.user_id == user_id => Ok(Some(s)),
                    // Another user's session is as unknown as a missing one.
                    Ok(_) => Err(ApiError::from(StoreError::NotFound)),
                    // No turns yet: nothing recent, nothing summarised.
                    Err(StoreError::NotFound) => Ok(None),
                    Err(e) => Err(e.into()),
                }
            }
            _ => Ok(None),
        }
    };
    let (profile, (ranked, query_time), session) = tokio::try_join!(profile, search, session)?;

    // What the profile already says is not repeated.
    let shown: HashSet<uuid::Uuid> = profile.iter().map(|m| m.id).collect();
    let (summary, recent) = match session {
        Some(s) => (
            s.summary
                .map(|m| m.content.lines().map(str::to_owned).collect())
                .unwrap_or_default(),
            s.window
                .iter()
                .rev()
                .map(|t| turn_line(&t.role, &t.content))
                .collect(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let candidates = Candidates {
        profile: profile.iter().map(profile_line).collect(),
        memories: ranked
            .iter()
            .filter(|r| !shown.contains(&r.memory.id))
            .map(|r| memory_line(&r.memory))
            .collect(),
        summary,
        recent,
    };
    let block = assemble(
        &candidates,
        &priority,
        req.token_budget as usize,
        &state.config.tokens,
    );
    Ok(Json(ContextResponse {
        text: block.text,
        tokens_used: block.tokens_used,
        token_budget: req.token_budget as usize,
        tokenizer: state.config.tokens.encoding(),
        parts: block.parts,
        query_time,
    }))
}

pub async fn get_profile(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(user_id): Path<String>,
    ApiQuery(q): ApiQuery<ProfileQuery>,
) -> Result<Json<ProfileResponse>, ApiError> {
    let user_id = path_identifier(&state, "user_id", &user_id)?;
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
        entries: entries.into_iter().map(MemoryOut::from).collect(),
        summary: summary.map(ProfileSummaryOut::from),
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
    let limits = &state.config.limits;
    let current: Memory = state.store.get_memory(caller.tenant_id, req.id).await?;
    if current.scope.user_id.as_deref() != Some(user_id.as_str()) {
        return Err(ApiError::from(StoreError::NotFound));
    }
    if req.remove.unwrap_or(false) {
        if req.value.is_some() || req.memory.is_some() {
            return Err(ApiError::validation(
                "remove",
                "remove an entry or correct it, not both",
            ));
        }
        state
            .store
            .delete_memory(caller.tenant_id, req.id, caller.audit("profile.remove"))
            .await?;
    } else {
        let value = req
            .value
            .as_deref()
            .map(|v| dto::stored_text("value", v, limits).map(|(text, _)| text))
            .transpose()?;
        let content = match (&req.memory, &value) {
            (Some(m), _) => Some(dto::stored_text("memory", m, limits)?.0),
            (None, Some(v)) => Some(corrected_content(&current, v)),
            (None, None) => {
                return Err(ApiError::validation(
                    "value",
                    "give value or memory to correct, or remove: true",
                ))
            }
        };
        let embedding = match &content {
            Some(c) => Some(embed_one(&state, c).await?),
            None => None,
        };
        let patch = MemoryPatch {
            content,
            value,
            ..Default::default()
        };
        state
            .store
            .update_memory(caller.tenant_id, req.id, &patch, embedding, &caller.actor)
            .await?;
    }
    get_profile(
        State(state),
        Extension(caller),
        Path(user_id),
        ApiQuery(ProfileQuery { limit: None }),
    )
    .await
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
