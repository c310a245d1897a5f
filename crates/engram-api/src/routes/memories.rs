//! `/v1/memories`: add, search, list, read, change, delete, history.

use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use chrono::{DateTime, Utc};
use engram_core::querytime::{self, QueryTime};
use engram_core::time::Timestamp;
use engram_core::validate;
use engram_core::{
    fuse, rank, Memory, MemoryFilter, MemoryPatch, Page, RankParams, ScoredMemory, SearchMode,
    Signals,
};

use crate::dto::{self, *};
use crate::error::ApiError;
use crate::extract::{ApiJson, ApiQuery, IdPath};
use crate::state::{AppState, Caller};

/// Candidates fetched per result before blending: blending may reorder, never
/// reach past the nearest few hundred.
fn candidate_pool(top_k: usize) -> usize {
    (top_k * 4).clamp(50, 400)
}

/// One vector per text, or an error: never a silently shorter list.
pub(crate) async fn embed_all(
    state: &AppState,
    texts: &[String],
) -> Result<Vec<Vec<f32>>, ApiError> {
    let started = std::time::Instant::now();
    let vectors = state.embedder.embed(texts).await;
    crate::metrics::add_embedding_time(started.elapsed());
    let vectors = vectors?;
    if vectors.len() != texts.len() {
        return Err(ApiError::Internal(format!(
            "the embedder returned {} vectors for {} texts",
            vectors.len(),
            texts.len()
        )));
    }
    Ok(vectors)
}

pub(crate) async fn embed_one(state: &AppState, text: &str) -> Result<Vec<f32>, ApiError> {
    let mut vectors = embed_all(state, &[text.to_owned()]).await?;
    Ok(vectors.remove(0))
}

pub async fn search_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiJson(req): ApiJson<SearchRequest>,
) -> Result<Json<SearchResponse>, ApiError> {
    let limits = &state.config.limits;
    let query = validate::query("query", &req.query, limits)?;
    let scope = dto::scope(&req.user_id, &req.agent_id, &req.session_id, false, limits)?;
    let top_k = req.top_k.unwrap_or(10);
    if !(1..=100).contains(&top_k) {
        return Err(ApiError::validation("top_k", "must be between 1 and 100"));
    }
    let min_relevance = match req.threshold {
        Some(t) => validate::in_range("threshold", t, -1.0, 1.0)? as f32,
        None => state.config.min_relevance,
    };
    let half_life_days = match req.half_life_days {
        Some(h) => validate::in_range("half_life_days", h, 0.001, 36_500.0)?,
        None => state.config.half_life_days,
    };
    let weights = match req.weights {
        Some(w) => {
            for (field, v) in [
                ("weights.relevance", w.relevance),
                ("weights.recency", w.recency),
                ("weights.importance", w.importance),
            ] {
                validate::in_range(field, v as f64, 0.0, 1.0)?;
            }
            if w.relevance + w.recency + w.importance <= 0.0 {
                return Err(ApiError::validation(
                    "weights",
                    "at least one weight must be positive",
                ));
            }
            w
        }
        None => state.config.weights,
    };
    let mut filter = MemoryFilter {
        scope,
        include_superseded: req.include_superseded.unwrap_or(false),
        include_expired: req.include_expired.unwrap_or(false),
        now: Some(state.clock.now()),
        ..Default::default()
    };
    req.filters.unwrap_or_default().apply(&mut filter, limits)?;

    let lexical_weight = match req.lexical_weight {
        Some(w) => validate::in_range("lexical_weight", w, 0.0, 1.0)? as f32,
        None => state.config.lexical_weight,
    };
    let plan = SearchPlan {
        query,
        filter,
        mode: req.mode.unwrap_or_default(),
        lexical_weight,
        time_use: req.query_time.unwrap_or_default(),
        reference_time: req.reference_time.map(Timestamp::get),
        params: RankParams {
            weights,
            half_life_days,
            min_relevance,
            top_k: top_k as usize,
            now: state.clock.now(),
        },
    };
    let (ranked, query_time) = run_search(&state, &caller, plan).await?;
    Ok(Json(SearchResponse {
        results: ranked.into_iter().map(SearchHit::from).collect(),
        query_time,
    }))
}

/// A validated search.
pub(crate) struct SearchPlan {
    pub query: String,
    pub filter: MemoryFilter,
    pub mode: SearchMode,
    pub lexical_weight: f32,
    pub time_use: QueryTimeUse,
    pub reference_time: Option<DateTime<Utc>>,
    pub params: RankParams,
}

impl SearchPlan {
    /// The server's defaults for `query` within `filter`.
    pub fn defaults(state: &AppState, query: String, filter: MemoryFilter, top_k: usize) -> Self {
        Self {
            query,
            filter,
            mode: SearchMode::default(),
            lexical_weight: state.config.lexical_weight,
            time_use: QueryTimeUse::default(),
            reference_time: None,
            params: RankParams {
                weights: state.config.weights,
                half_life_days: state.config.half_life_days,
                min_relevance: state.config.min_relevance,
                top_k,
                now: state.clock.now(),
            },
        }
    }
}

/// Runs a search: candidates, fusion, the period the query names, ranking;
/// records the returned memories' use unless the caller's key is read-only
/// (read-only means no stored row changes). Also returns the period as read.
pub(crate) async fn run_search(
    state: &AppState,
    caller: &Caller,
    plan: SearchPlan,
) -> Result<(Vec<ScoredMemory>, Option<QueryTime>), ApiError> {
    let tenant = caller.tenant_id;
    let SearchPlan {
        query,
        mut filter,
        mode,
        lexical_weight,
        time_use,
        reference_time,
        params,
    } = plan;
    let query_time = match time_use {
        QueryTimeUse::Off => None,
        _ => querytime::detect(&query, reference_time.unwrap_or(params.now)),
    };
    let window = match (&query_time, time_use) {
        (Some(t), QueryTimeUse::Filter) => {
            restrict_to(&mut filter, t);
            None
        }
        (Some(t), _) => Some(t.window()),
        (None, _) => None,
    };

    let candidates = candidates(
        state,
        tenant,
        &filter,
        &query,
        mode,
        candidate_pool(params.top_k),
        window,
    )
    .await?;
    let signals: Vec<Signals> = candidates.iter().map(|(_, s)| *s).collect();
    let mut relevance = fuse(&signals, mode, lexical_weight);
    if let (Some(t), QueryTimeUse::Prefer) = (&query_time, time_use) {
        for (r, (m, _)) in relevance.iter_mut().zip(&candidates) {
            *r = r.with_time(t.closeness(m.created_at), state.config.time_weight);
        }
    }
    let ranked = rank(
        candidates
            .into_iter()
            .map(|(m, _)| m)
            .zip(relevance)
            .collect(),
        &params,
    );
    if caller.role.records_use() {
        state
            .usage
            .record(tenant, ranked.iter().map(|r| r.memory.id).collect());
    }
    Ok((ranked, query_time))
}

/// `query_time: filter`: only the named period, within any explicit
/// `filters.created_at` range.
fn restrict_to(filter: &mut MemoryFilter, t: &QueryTime) {
    let last = engram_core::time::sub(t.to, chrono::TimeDelta::microseconds(1));
    filter.created_gte = Some(filter.created_gte.map_or(t.from, |g| g.max(t.from)));
    filter.created_lte = Some(filter.created_lte.map_or(last, |l| l.min(last)));
}

/// The candidates of a mode with their signals. The lexical ranker needs no
/// vector, so it runs in Postgres while the query is embedded here; one more
/// statement then fetches the nearest memories together with the lexical
/// picks (and, when the query names a period, the nearest from around it),
/// each with its cosine. Hybrid thus costs about what dense does. When BM25
/// takes longer than the embedding (a scope of many thousands, or a cached
/// vector), the nearest are found at the same time instead, on the other
/// core, and the picks not among them fetched after.
async fn candidates(
    state: &AppState,
    tenant: uuid::Uuid,
    filter: &MemoryFilter,
    text: &str,
    mode: SearchMode,
    pool: usize,
    window: Option<(DateTime<Utc>, DateTime<Utc>)>,
) -> Result<Vec<(Memory, Signals)>, ApiError> {
    let store = &state.store;
    let lexical = async {
        match mode {
            SearchMode::Dense => Ok(Vec::new()),
            _ => {
                let exact = engram_core::exact_terms(text);
                store
                    .lexical_scores(
                        tenant,
                        filter,
                        text,
                        &exact,
                        pool,
                        state.config.search_max_terms,
                    )
                    .await
            }
        }
    };
    let mut lexical = std::pin::pin!(async { lexical.await.map_err(ApiError::from) });
    let mut lexical_done = None;
    let vector = {
        let mut embed = std::pin::pin!(embed_one(state, text));
        loop {
            tokio::select! {
                biased;
                l = &mut lexical, if lexical_done.is_none() => lexical_done = Some(l?),
                v = &mut embed => break v?,
            }
        }
    };
    let dense_pool = if mode == SearchMode::Lexical { 0 } else { pool };
    let (found, lexical) = match lexical_done {
        // The usual case: BM25 was ready before the vector, so one statement
        // fetches the nearest together with its picks.
        Some(lexical) => {
            let ids: Vec<uuid::Uuid> = lexical.iter().map(|(id, _)| *id).collect();
            let found = store
                .dense_candidates(tenant, filter, &vector, dense_pool, &ids, window)
                .await?;
            (found, lexical)
        }
        // BM25 is still reading a large scope (or the vector was cached):
        // find the nearest beside it, then fetch the picks not among them.
        None => {
            let nearest = async {
                store
                    .dense_candidates(tenant, filter, &vector, dense_pool, &[], window)
                    .await
                    .map_err(ApiError::from)
            };
            let (mut found, lexical) = tokio::try_join!(nearest, lexical)?;
            let missing: Vec<uuid::Uuid> = lexical
                .iter()
                .map(|(id, _)| *id)
                .filter(|id| !found.iter().any(|c| c.memory.id == *id))
                .collect();
            if !missing.is_empty() {
                found.extend(
                    store
                        .dense_candidates(tenant, filter, &vector, 0, &missing, None)
                        .await?,
                );
            }
            (found, lexical)
        }
    };
    let bm25: std::collections::HashMap<uuid::Uuid, f32> = lexical.into_iter().collect();
    Ok(found
        .into_iter()
        .map(|c| {
            let bm25 = bm25.get(&c.memory.id).copied().unwrap_or(0.0);
            (
                c.memory,
                Signals {
                    cosine: c.cosine,
                    bm25,
                },
            )
        })
        .collect())
}

pub async fn list_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<ListResponse>, ApiError> {
    let limits = &state.config.limits;
    let scope = dto::scope(&q.user_id, &q.agent_id, &q.session_id, false, limits)?;
    let page = Page {
        limit: dto::page_limit(q.limit, 50)?,
        after: dto::cursor(&q.cursor)?,
    };
    let filter = MemoryFilter {
        scope,
        include_superseded: q.include_superseded.unwrap_or(false),
        include_expired: q.include_expired.unwrap_or(false),
        now: Some(state.clock.now()),
        ..Default::default()
    };
    let memories = state
        .store
        .list_memories(caller.tenant_id, &filter, &page)
        .await?;
    let next_cursor = (memories.len() == page.limit)
        .then(|| {
            memories.last().map(|m| {
                engram_core::Cursor {
                    created_at: m.created_at,
                    id: m.id,
                }
                .encode()
            })
        })
        .flatten();
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
    Ok(Json(
        state.store.get_memory(caller.tenant_id, id).await?.into(),
    ))
}

pub async fn update_memory(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
    ApiJson(req): ApiJson<PatchMemoryRequest>,
) -> Result<Json<MemoryOut>, ApiError> {
    let limits = &state.config.limits;
    let patch = MemoryPatch {
        content: req
            .memory
            .as_deref()
            .map(|c| dto::stored_text("memory", c, limits).map(|(text, _)| text))
            .transpose()?,
        value: None,
        metadata: dto::metadata(req.metadata, limits)?,
        importance: dto::importance("importance", req.importance)?,
        pinned: req.pinned,
        expires_at: req.expires_at.map(|e| e.map(Timestamp::get)),
    };
    if patch.is_empty() {
        return Err(ApiError::validation(
            "memory",
            "give at least one of memory, metadata, importance, pinned, expires_at",
        ));
    }
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

pub async fn delete_memory(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<StatusCode, ApiError> {
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
    let scope = dto::scope(
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
    Ok(Json(HistoryResponse {
        results: state.store.memory_history(caller.tenant_id, id).await?,
    }))
}

pub async fn revert_memory(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    IdPath(id): IdPath,
) -> Result<Json<MemoryOut>, ApiError> {
    let change = state.store.latest_change(caller.tenant_id, id).await?;
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
