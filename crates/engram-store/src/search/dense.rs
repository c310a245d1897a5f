//! Dense (pgvector) candidates within a scope: the nearest by exact
//! cosine, joined in one statement with what the lexical ranker chose.

use chrono::{DateTime, Utc};
use engram_core::{Memory, MemoryFilter};
use pgvector::HalfVector;
use sqlx::{Postgres, QueryBuilder};
use uuid::Uuid;

use crate::memories::push_filter;
use crate::rows::{CandidateRow, MEMORY_COLUMNS};
use crate::tenant::end_read;
use crate::{Store, StoreError};

/// A memory in scope with its cosine similarity to the query.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub memory: Memory,
    pub cosine: f32,
    /// (seed, offset): this memory was stored `offset` places after the
    /// seed in its session (negative: before it). See [`Seeds`].
    pub neighbour_of: Vec<(Uuid, i32)>,
}

/// Whose neighbours to fetch with the candidates: the `nearest` closest
/// and these `ids`. A neighbour is a memory in view in the same session
/// (or both in none) stored within [`NEIGHBOUR_WITHIN`] of the seed, at
/// most [`NEIGHBOURS_PER_SIDE`] on each side, in (created_at, id) order —
/// ids are UUIDv7, so the order they were stored in.
#[derive(Debug, Clone, Copy, Default)]
pub struct Seeds<'a> {
    pub nearest: usize,
    pub ids: &'a [Uuid],
}

pub const NEIGHBOURS_PER_SIDE: i64 = 2;

/// Farther apart in time, two memories are not one exchange.
pub const NEIGHBOUR_WITHIN: &str = "1 hour";

/// A candidate's cosine to the query (bound between the two halves): from
/// the half-precision copy, which search scans because it stays in the row
/// (migration 9); it differs from full precision by about 1e-4.
const COSINE: &str = "(1 - (embedding_half <=> ";
const COSINE_END: &str = "))::float8 AS cosine";

impl Store {
    /// The `limit` memories in view nearest to `query` by exact cosine
    /// distance, plus those of `also` that are still in view, plus (given a
    /// `window`) the `limit` nearest created within it, each with its cosine
    /// to `query`, nearest first, plus the neighbours of `seeds`. One
    /// statement, so hybrid search joins the lexical ranker's choices and
    /// the neighbours without a second round trip.
    #[allow(clippy::too_many_arguments)]
    pub async fn dense_candidates(
        &self,
        tenant: Uuid,
        filter: &MemoryFilter,
        query: &[f32],
        limit: usize,
        also: &[Uuid],
        window: Option<(DateTime<Utc>, DateTime<Utc>)>,
        seeds: Seeds<'_>,
    ) -> Result<Vec<Candidate>, StoreError> {
        // Bound as halfvec, so no statement converts it once per row.
        let query = HalfVector::from_f32_slice(query);
        let no_seeds = seeds.nearest == 0 && seeds.ids.is_empty();
        if also.is_empty() && window.is_none() && no_seeds {
            // Plain dense search. The scan keeps only each row's address and
            // cosine (computed once: ordering by the output column); the
            // winners' columns are then read by address. Carrying every
            // column through the scan cost 4 ms at 20,000 rows in scope.
            let mut q = QueryBuilder::new(format!(
                "WITH nearest AS MATERIALIZED (SELECT ctid AS tid, {COSINE}"
            ));
            q.push_bind(query).push(COSINE_END).push(" FROM memories");
            push_filter(&mut q, tenant, filter);
            q.push(" ORDER BY cosine DESC, id LIMIT ")
                .push_bind(limit as i64)
                .push(format!(
                    ") SELECT {MEMORY_COLUMNS}, nearest.cosine, NULL::uuid[] AS seeds, \
                     NULL::int4[] AS offsets FROM memories \
                     JOIN nearest ON memories.ctid = nearest.tid WHERE tenant_id = "
                ))
                .push_bind(tenant)
                .push(" ORDER BY nearest.cosine DESC, id");
            return self.fetch_candidates(tenant, q).await;
        }
        let mut q =
            QueryBuilder::new("WITH nearest AS MATERIALIZED ((SELECT id, embedding_half <=> ");
        q.push_bind(query.clone()).push(" AS d FROM memories");
        push_filter(&mut q, tenant, filter);
        q.push(" ORDER BY d LIMIT ")
            .push_bind(limit as i64)
            .push(")");
        if let Some((from, to)) = window {
            q.push(" UNION (SELECT id, embedding_half <=> ")
                .push_bind(query.clone())
                .push(" AS d FROM memories");
            push_filter(&mut q, tenant, filter);
            q.push(" AND created_at >= ")
                .push_bind(from)
                .push(" AND created_at < ")
                .push_bind(to)
                .push(" ORDER BY d LIMIT ")
                .push_bind(limit as i64)
                .push(")");
        }
        q.push(")");
        push_neighbours(&mut q, tenant, filter, seeds);
        q.push(format!(" SELECT {MEMORY_COLUMNS}, {COSINE}"))
            .push_bind(query)
            .push(COSINE_END)
            .push(", links.seeds, links.offsets FROM memories LEFT JOIN links ON links.linked = memories.id");
        push_filter(&mut q, tenant, filter);
        // By primary key, not by rereading the scope.
        q.push(" AND id = ANY(ARRAY(SELECT id FROM nearest) || ")
            .push_bind(also.to_vec())
            .push("::uuid[] || ARRAY(SELECT linked FROM links)) ORDER BY cosine DESC, id");
        self.fetch_candidates(tenant, q).await
    }

    /// Runs a candidate query in the tenant's transaction.
    async fn fetch_candidates(
        &self,
        tenant: Uuid,
        mut q: QueryBuilder<'_, Postgres>,
    ) -> Result<Vec<Candidate>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let rows: Vec<CandidateRow> = q.build_query_as().fetch_all(&mut *tx).await?;
        end_read(tx);
        Ok(rows
            .into_iter()
            .map(|r| Candidate {
                cosine: r.cosine as f32,
                neighbour_of: r
                    .seeds
                    .unwrap_or_default()
                    .into_iter()
                    .zip(r.offsets.unwrap_or_default())
                    .collect(),
                memory: r.memory.into(),
            })
            .collect())
    }
}

/// `, near AS (…), links AS (…)`: for each seed (the `seeds.nearest` first
/// of `nearest`, and `seeds.ids`), the memories in view stored just before
/// and after it in its session; `links` has one row per neighbour with the
/// seeds it neighbours and its offset from each. Each side is one short
/// scan of the scope's (created_at, id) index, backwards or forwards.
fn push_neighbours<'a>(
    q: &mut QueryBuilder<'a, Postgres>,
    tenant: Uuid,
    filter: &'a MemoryFilter,
    seeds: Seeds<'_>,
) {
    q.push(", seed AS MATERIALIZED (SELECT id FROM (SELECT id FROM nearest ORDER BY d LIMIT ")
        .push_bind(seeds.nearest as i64)
        .push(") n UNION SELECT unnest(")
        .push_bind(seeds.ids.to_vec())
        .push("::uuid[])), near AS MATERIALIZED (SELECT c.id AS seed, n.id, n.off FROM memories c CROSS JOIN LATERAL (");
    for (cmp, order, sign) in [("<", "DESC", "-"), (">", "ASC", "")] {
        if sign.is_empty() {
            q.push(" UNION ALL ");
        }
        q.push(format!(
            "(SELECT id, {sign}(row_number() OVER (ORDER BY created_at {order}, id {order}))::int4 AS off FROM memories"
        ));
        push_filter(q, tenant, filter);
        q.push(format!(
            " AND session_id IS NOT DISTINCT FROM c.session_id \
             AND (created_at, id) {cmp} (c.created_at, c.id) \
             AND created_at {} c.created_at {} interval '{NEIGHBOUR_WITHIN}' \
             ORDER BY created_at {order}, id {order} LIMIT {NEIGHBOURS_PER_SIDE})",
            if cmp == "<" { ">=" } else { "<=" },
            if cmp == "<" { "-" } else { "+" },
        ));
    }
    q.push(") n WHERE c.tenant_id = ").push_bind(tenant).push(
        " AND c.id IN (SELECT id FROM seed)), \
           links AS MATERIALIZED (SELECT id AS linked, array_agg(seed) AS seeds, \
           array_agg(off) AS offsets FROM near GROUP BY id)",
    );
}
