//! The GDPR endpoints for one user's data: every state with history, search,
//! hard deletion of one memory, export, erasure, and purging a source.

use std::collections::HashMap;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use engram_core::time::Timestamp;
use engram_core::{validate, Limits, MemoryFilter, MemoryKind, MemoryState, Page, SourceType};
use engram_store::{Apply, ExportChunk, UserExport, UserOverview};
use uuid::Uuid;

use crate::dto::next_cursor;
use crate::dto::{
    self, AdminListQuery, AdminListResponse, AdminMemoryOut, AdminSearchRequest, ErasureQuery,
    ErasureReceipt,
};
use crate::error::ApiError;
use crate::extractors::{path_identifier, ApiJson, ApiQuery};
use crate::spool::Spool;
use crate::state::{AppState, Caller};
use crate::usecases::purge::{receipt, run_source_purge};
use crate::usecases::search::embed_query;

// ---- one user's data -----------------------------------------------------------

/// One person at a glance: memories by state and kind, last activity,
/// sessions.
pub async fn user_overview(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(user_id): Path<String>,
) -> Result<Json<UserOverview>, ApiError> {
    let user_id = user_path(&state, &user_id)?;
    Ok(Json(
        state
            .store
            .user_overview(caller.tenant_id, &user_id, state.clock.now())
            .await?,
    ))
}

pub async fn list_user_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(user_id): Path<String>,
    ApiQuery(q): ApiQuery<AdminListQuery>,
) -> Result<Json<AdminListResponse>, ApiError> {
    let user_id = user_path(&state, &user_id)?;
    let limit = dto::page_limit(q.limit, 100)?;
    let states = match q.states.as_deref() {
        Some(s) => parse_states(s.split(',').map(str::trim), "states")?,
        None => Vec::new(),
    };
    let mut filter = admin_filter(&state, user_id, states);
    narrow(&mut filter, &q, &state.config.limits)?;
    let page = Page {
        limit,
        after: dto::cursor(&q.cursor)?,
    };
    let memories = state
        .store
        .list_memories(caller.tenant_id, &filter, &page)
        .await?;
    let next_cursor = next_cursor(&memories, limit, |m| (m.created_at, m.id));
    let scored = memories.into_iter().map(|m| (m, None)).collect();
    Ok(Json(AdminListResponse {
        results: with_history(&state, &caller, scored).await?,
        next_cursor,
    }))
}

pub async fn search_user_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(user_id): Path<String>,
    ApiJson(req): ApiJson<AdminSearchRequest>,
) -> Result<Json<AdminListResponse>, ApiError> {
    let user_id = user_path(&state, &user_id)?;
    let query = validate::query("query", &req.query, &state.config.limits)?;
    let top_k = req.top_k.unwrap_or(20);
    if !(1..=100).contains(&top_k) {
        return Err(ApiError::validation("top_k", "must be between 1 and 100"));
    }
    let states = match &req.states {
        Some(s) => parse_states(s.iter().map(String::as_str), "states")?,
        None => Vec::new(),
    };
    let filter = admin_filter(&state, user_id, states);
    let vector = embed_query(&state, &query).await?;
    let candidates = state
        .store
        .dense_candidates(
            caller.tenant_id,
            &filter,
            &vector,
            top_k as usize,
            &[],
            None,
            engram_store::Seeds::default(),
        )
        .await?;
    let scored = candidates
        .into_iter()
        .map(|c| (c.memory, Some(c.cosine)))
        .collect();
    Ok(Json(AdminListResponse {
        results: with_history(&state, &caller, scored).await?,
        next_cursor: None,
    }))
}

pub async fn purge_user_memory(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path((user_id, id)): Path<(String, String)>,
) -> Result<Json<ErasureReceipt>, ApiError> {
    let user_id = user_path(&state, &user_id)?;
    let id = Uuid::try_parse(&id).map_err(|_| ApiError::BadParameter {
        field: "id".into(),
        message: format!("`{id}` is not a UUID"),
    })?;
    let counts = state
        .store
        .purge_memory(caller.tenant_id, &user_id, id, caller.audit("memory.purge"))
        .await?;
    Ok(Json(receipt(&caller, counts, Apply::Commit)))
}

pub async fn erase_user(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(user_id): Path<String>,
    ApiQuery(q): ApiQuery<ErasureQuery>,
) -> Result<Json<ErasureReceipt>, ApiError> {
    let user_id = user_path(&state, &user_id)?;
    let counts = state
        .store
        .unbounded()
        .erase_user(
            caller.tenant_id,
            &user_id,
            caller.audit("user.erase"),
            q.apply(),
        )
        .await?;
    Ok(Json(receipt(&caller, counts, q.apply())))
}

pub async fn purge_source(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(source_ref): Path<String>,
    ApiQuery(q): ApiQuery<ErasureQuery>,
) -> Result<Json<ErasureReceipt>, ApiError> {
    let source_ref = path_identifier(&state, "source_ref", &source_ref)?;
    let plan = state
        .store
        .unbounded()
        .plan_source_purge(caller.tenant_id, &source_ref)
        .await?;
    Ok(Json(
        run_source_purge(&state, &caller, &plan, "source.purge", q.apply()).await?,
    ))
}

/// The user's export document (format `engram.user-export` v1, see
/// docs/GDPR.md), read from one database snapshot into a spool at database
/// speed, then sent: a client that reads slowly holds no database
/// connection, only its own place in the admission caps. At most
/// `max_concurrent_exports` are read at once (503 beyond that).
pub async fn export_user(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    Path(user_id): Path<String>,
) -> Result<Response, ApiError> {
    let user_id = user_path(&state, &user_id)?;
    let Ok(permit) = state.admission.exports.clone().try_acquire_owned() else {
        return Err(ApiError::Overloaded);
    };
    let (header, export) = state
        .store
        .unbounded()
        .export_user(caller.tenant_id, &user_id, state.config.export_page)
        .await?;
    let mut opening =
        serde_json::to_string(&header).map_err(|e| ApiError::Internal(e.to_string()))?;
    opening.pop(); // the closing brace: the sections follow
    opening.push_str(",\"memories\":[");
    let mut spool = Spool::new();
    let spooled = |e: std::io::Error| ApiError::Internal(format!("spooling the export: {e}"));
    spool.write(opening.as_bytes()).await.map_err(spooled)?;
    let mut writer = ExportWriter {
        export,
        section: 0,
        first_in_section: true,
    };
    while let Some(bytes) = writer.next_bytes().await? {
        spool.write(&bytes).await.map_err(spooled)?;
    }
    writer.export.finish().await?;
    drop(permit);
    let (body, len) = spool.into_body().await.map_err(spooled)?;
    Ok((
        [
            (header::CONTENT_TYPE, "application/json".to_owned()),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"engram-export.json\"".to_owned(),
            ),
            (header::CONTENT_LENGTH, len.to_string()),
        ],
        body,
    )
        .into_response())
}

/// Turns export chunks into the document's bytes: memories, jobs, sessions, audit.
struct ExportWriter {
    export: UserExport,
    section: usize,
    first_in_section: bool,
}

const SECTIONS: [&str; 4] = ["memories", "jobs", "sessions", "audit"];

impl ExportWriter {
    async fn next_bytes(&mut self) -> Result<Option<Bytes>, engram_store::StoreError> {
        let Some(chunk) = self.export.next_chunk().await? else {
            if self.section == usize::MAX {
                return Ok(None);
            }
            self.section = usize::MAX;
            return Ok(Some(Bytes::from_static(b"]}")));
        };
        let (section, items) = match chunk {
            ExportChunk::Memories(v) => (0, to_json_items(&v)),
            ExportChunk::Jobs(v) => (1, to_json_items(&v)),
            ExportChunk::Sessions(v) => (2, to_json_items(&v)),
            ExportChunk::Audit(v) => (3, to_json_items(&v)),
        };
        let mut out = String::new();
        while self.section < section {
            self.section += 1;
            out.push_str(&format!("],\"{}\":[", SECTIONS[self.section]));
            self.first_in_section = true;
        }
        for item in items {
            if !self.first_in_section {
                out.push(',');
            }
            self.first_in_section = false;
            out.push_str(&item);
        }
        Ok(Some(Bytes::from(out)))
    }
}

fn to_json_items<T: serde::Serialize>(items: &[T]) -> Vec<String> {
    items
        .iter()
        .filter_map(|i| serde_json::to_string(i).ok())
        .collect()
}

// ---- helpers -------------------------------------------------------------------

fn user_path(state: &AppState, raw: &str) -> Result<String, ApiError> {
    path_identifier(state, "user_id", raw)
}

fn parse_states<'a>(
    names: impl Iterator<Item = &'a str>,
    field: &str,
) -> Result<Vec<MemoryState>, ApiError> {
    names
        .map(|n| {
            MemoryState::parse(n).ok_or_else(|| {
                ApiError::validation(
                    field,
                    format!("`{n}` is not a state (live, superseded, expired, archived, deleted)"),
                )
            })
        })
        .collect()
}

/// The admin list's optional filters, validated, onto `filter`.
fn narrow(filter: &mut MemoryFilter, q: &AdminListQuery, limits: &Limits) -> Result<(), ApiError> {
    if let Some(kinds) = &q.kinds {
        filter.kinds = kinds
            .split(',')
            .map(|k| {
                MemoryKind::parse(k.trim()).ok_or_else(|| {
                    ApiError::validation(
                        "kinds",
                        format!("`{k}` is not a kind (semantic, episodic, procedural)"),
                    )
                })
            })
            .collect::<Result<_, _>>()?;
    }
    if let Some(t) = &q.source_type {
        filter.source_type = Some(SourceType::parse(t).ok_or_else(|| {
            ApiError::validation(
                "source_type",
                "must be user_stated, inferred, tool, document or api",
            )
        })?);
    }
    filter.attribute = q
        .attribute
        .as_deref()
        .map(|a| validate::reference("attribute", a, limits))
        .transpose()?;
    filter.source_ref = q
        .source_ref
        .as_deref()
        .map(|r| validate::reference("source_ref", r, limits))
        .transpose()?;
    filter.text_contains = q
        .text
        .as_deref()
        .map(|t| validate::query("text", t, limits))
        .transpose()?;
    filter.created_gte = q.created_after.map(Timestamp::get);
    filter.created_lte = q.created_before.map(Timestamp::get);
    if let (Some(a), Some(b)) = (filter.created_gte, filter.created_lte) {
        if a > b {
            return Err(ApiError::validation(
                "created_after",
                "must not be after created_before",
            ));
        }
    }
    Ok(())
}

fn admin_filter(state: &AppState, user_id: String, states: Vec<MemoryState>) -> MemoryFilter {
    MemoryFilter {
        scope: engram_core::Scope {
            user_id: Some(user_id),
            ..Default::default()
        },
        admin_states: Some(states),
        now: Some(state.clock.now()),
        ..Default::default()
    }
}

async fn with_history(
    state: &AppState,
    caller: &Caller,
    memories: Vec<(engram_core::Memory, Option<f32>)>,
) -> Result<Vec<AdminMemoryOut>, ApiError> {
    let ids: Vec<Uuid> = memories.iter().map(|(m, _)| m.id).collect();
    let mut histories: HashMap<Uuid, Vec<engram_core::HistoryEntry>> =
        state.store.histories(caller.tenant_id, &ids).await?;
    let now = state.clock.now();
    Ok(memories
        .into_iter()
        .map(|(m, relevance)| AdminMemoryOut {
            state: m.state(now),
            deleted_at: m.deleted_at,
            relevance,
            history: histories.remove(&m.id).unwrap_or_default(),
            memory: m.into(),
        })
        .collect())
}
