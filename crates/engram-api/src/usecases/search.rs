//! The search use-case, shared by search, the context block and the admin
//! view: embedding, candidates from the dense and lexical rankers, fusion,
//! the period a query names, ranking, and recording use.

use chrono::{DateTime, Utc};
use engram_core::querytime::{self, QueryTime};
use engram_core::time::Timestamp;
use engram_core::validate;
use engram_core::{
    fuse, query_names, rank, with_evidence, Memory, MemoryFilter, RankParams, ScoredMemory,
    SearchMode, SignalWeights, Signals, Surroundings,
};
use engram_store::{Candidate, Seeds};

use crate::dto::{QueryTimeUse, SearchRequest};
use crate::error::ApiError;
use crate::state::{AppState, Caller};

/// Candidates fetched per result before blending: blending may reorder, never
/// reach past the nearest few hundred.
pub(crate) fn candidate_pool(top_k: usize) -> usize {
    (top_k * 4).clamp(50, 400)
}

/// One vector per text, or an error: never a silently shorter list.
pub(crate) async fn embed_all(
    state: &AppState,
    texts: &[String],
) -> Result<Vec<Vec<f32>>, ApiError> {
    timed(texts, state.embedder.embed(texts)).await
}

/// The vector of what is stored (a memory's content).
pub(crate) async fn embed_one(state: &AppState, text: &str) -> Result<Vec<f32>, ApiError> {
    let mut vectors = embed_all(state, &[text.to_owned()]).await?;
    Ok(vectors.remove(0))
}

/// The vector of a search (E5 embeds a query differently from a passage).
pub(crate) async fn embed_query(state: &AppState, text: &str) -> Result<Vec<f32>, ApiError> {
    let texts = [text.to_owned()];
    let mut vectors = timed(&texts, state.embedder.embed_queries(&texts)).await?;
    Ok(vectors.remove(0))
}

async fn timed(
    texts: &[String],
    call: impl std::future::Future<Output = Result<Vec<Vec<f32>>, engram_core::EmbedError>>,
) -> Result<Vec<Vec<f32>>, ApiError> {
    let started = std::time::Instant::now();
    let vectors = call.await;
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

/// Each weight 0..=1, or an error naming the first that is not.
fn shares(weights: [(&str, f32); 3]) -> Result<(), ApiError> {
    for (field, v) in weights {
        validate::in_range(field, v as f64, 0.0, 1.0)?;
    }
    Ok(())
}

/// A validated search.
pub(crate) struct SearchPlan {
    pub query: String,
    pub filter: MemoryFilter,
    pub mode: SearchMode,
    pub lexical_weight: f32,
    pub signal_weights: SignalWeights,
    pub time_use: QueryTimeUse,
    pub reference_time: Option<DateTime<Utc>>,
    pub params: RankParams,
}

impl SearchPlan {
    /// A search request, every field checked and named when at fault, with
    /// the server's defaults where it says nothing.
    pub fn from_request(
        state: &AppState,
        caller: &Caller,
        req: SearchRequest,
    ) -> Result<Self, ApiError> {
        let limits = &state.config.limits;
        let query = validate::query("query", &req.query, limits)?;
        let scope = caller.scope(&req.user_id, &req.agent_id, &req.session_id, false, limits)?;
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
                shares([
                    ("weights.relevance", w.relevance),
                    ("weights.recency", w.recency),
                    ("weights.importance", w.importance),
                ])?;
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
        let signal_weights = match req.signal_weights {
            Some(w) => {
                shares([
                    ("signal_weights.neighbours", w.neighbours),
                    ("signal_weights.session", w.session),
                    ("signal_weights.names", w.names),
                ])?;
                w
            }
            None => state.config.signal_weights,
        };
        Ok(SearchPlan {
            query,
            filter,
            mode: req.mode.unwrap_or_default(),
            lexical_weight,
            signal_weights,
            time_use: req.query_time.unwrap_or_default(),
            reference_time: req.reference_time.map(Timestamp::get),
            params: RankParams {
                weights,
                half_life_days,
                min_relevance,
                top_k: top_k as usize,
                now: state.clock.now(),
            },
        })
    }

    /// The server's defaults for `query` within `filter`.
    pub fn defaults(state: &AppState, query: String, filter: MemoryFilter, top_k: usize) -> Self {
        Self {
            query,
            filter,
            mode: SearchMode::default(),
            lexical_weight: state.config.lexical_weight,
            signal_weights: state.config.signal_weights,
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
        signal_weights,
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
        mode == SearchMode::Hybrid && signal_weights.neighbours > 0.0,
    )
    .await?;
    let signals: Vec<Signals> = candidates.iter().map(|(_, s, _)| *s).collect();
    let mut relevance = fuse(&signals, mode, lexical_weight);
    if let (Some(t), QueryTimeUse::Prefer) = (&query_time, time_use) {
        for (r, (m, _, _)) in relevance.iter_mut().zip(&candidates) {
            *r = r.with_time(t.closeness(m.created_at), state.config.time_weight);
        }
    }
    if mode == SearchMode::Hybrid {
        relevance = evidence(&candidates, &relevance, &query, signal_weights);
    }
    let ranked = rank(
        candidates
            .into_iter()
            .map(|(m, _, _)| m)
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

/// A candidate with its signals and the seeds it neighbours (seed, offset).
type Found = (Memory, Signals, Vec<(uuid::Uuid, i32)>);

/// The fused relevance with the evidence around each candidate mixed in
/// (engram_core::evidence): neighbours as the store linked them, sessions,
/// the query's names.
fn evidence(
    candidates: &[Found],
    fused: &[engram_core::Relevance],
    query: &str,
    weights: SignalWeights,
) -> Vec<engram_core::Relevance> {
    let index: std::collections::HashMap<uuid::Uuid, usize> = candidates
        .iter()
        .enumerate()
        .map(|(i, (m, _, _))| (m.id, i))
        .collect();
    let around: Vec<Surroundings<'_>> = candidates
        .iter()
        .map(|(m, _, links)| Surroundings {
            content: &m.content,
            speaker: m.provenance.said.as_ref().and_then(|s| s.name.as_deref()),
            session: m.scope.session_id.as_deref(),
            neighbour_of: links
                .iter()
                .filter_map(|(seed, offset)| Some((*index.get(seed)?, *offset)))
                .collect(),
        })
        .collect();
    with_evidence(fused, &around, &query_names(query), weights)
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
#[allow(clippy::too_many_arguments)] // each is one fact of the search plan
async fn candidates(
    state: &AppState,
    tenant: uuid::Uuid,
    filter: &MemoryFilter,
    text: &str,
    mode: SearchMode,
    pool: usize,
    window: Option<(DateTime<Utc>, DateTime<Utc>)>,
    neighbours: bool,
) -> Result<Vec<Found>, ApiError> {
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
        let mut embed = std::pin::pin!(embed_query(state, text));
        loop {
            tokio::select! {
                biased;
                l = &mut lexical, if lexical_done.is_none() => lexical_done = Some(l?),
                v = &mut embed => break v?,
            }
        }
    };
    let dense_pool = if mode == SearchMode::Lexical { 0 } else { pool };
    // Hybrid: the neighbours of the best few of each ranker come along
    // (unless their weight is 0).
    let seeds_of = |lexical: &[(uuid::Uuid, f32)]| -> Vec<uuid::Uuid> {
        if !neighbours {
            return Vec::new();
        }
        lexical.iter().take(SEEDS).map(|(id, _)| *id).collect()
    };
    let nearest_seeds = if neighbours { SEEDS } else { 0 };
    let (found, lexical) = match lexical_done {
        // The usual case: BM25 was ready before the vector, so one statement
        // fetches the nearest together with its picks.
        Some(lexical) => {
            let ids: Vec<uuid::Uuid> = lexical.iter().map(|(id, _)| *id).collect();
            let seed_ids = seeds_of(&lexical);
            let seeds = Seeds {
                nearest: nearest_seeds,
                ids: &seed_ids,
            };
            let found = store
                .dense_candidates(tenant, filter, &vector, dense_pool, &ids, window, seeds)
                .await?;
            (found, lexical)
        }
        // BM25 is still reading a large scope (or the vector was cached):
        // find the nearest beside it, then fetch the picks not among them.
        None => {
            // The plain scan (no seeds): the neighbours come with the picks.
            let nearest = async {
                store
                    .dense_candidates(
                        tenant,
                        filter,
                        &vector,
                        dense_pool,
                        &[],
                        window,
                        Seeds::default(),
                    )
                    .await
                    .map_err(ApiError::from)
            };
            let (mut found, lexical) = tokio::try_join!(nearest, lexical)?;
            let missing: Vec<uuid::Uuid> = lexical
                .iter()
                .map(|(id, _)| *id)
                .filter(|id| !found.iter().any(|c| c.memory.id == *id))
                .collect();
            // `found` is nearest first.
            let mut seed_ids = seeds_of(&lexical);
            seed_ids.extend(found.iter().take(nearest_seeds).map(|c| c.memory.id));
            if !missing.is_empty() || !seed_ids.is_empty() {
                let seeds = Seeds {
                    nearest: 0,
                    ids: &seed_ids,
                };
                let more = store
                    .dense_candidates(tenant, filter, &vector, 0, &missing, None, seeds)
                    .await?;
                merge(&mut found, more);
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
                c.neighbour_of,
            )
        })
        .collect())
}

/// The seeds per ranker whose neighbours hybrid search fetches: the
/// answer sits next to one of the best few matches, rarely farther down.
const SEEDS: usize = 10;

/// Adds `more` to `found`: a memory already there gains the links.
fn merge(found: &mut Vec<Candidate>, more: Vec<Candidate>) {
    for c in more {
        match found.iter_mut().find(|f| f.memory.id == c.memory.id) {
            Some(f) => f.neighbour_of.extend(c.neighbour_of),
            None => found.push(c),
        }
    }
}
