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
}

/// A candidate's cosine to the query (bound between the two halves): from
/// the half-precision copy, which search scans because it stays in the row
/// (migration 9); it differs from full precision by about 1e-4.
const COSINE: &str = "(1 - (embedding_half <=> ";
const COSINE_END: &str = "))::float8 AS cosine";

impl Store {
    /// The `limit` memories in view nearest to `query` by exact cosine
    /// distance, plus those of `also` that are still in view, plus (given a
    /// `window`) the `limit` nearest created within it, each with its cosine
    /// to `query`, nearest first. One statement, so hybrid search joins the
    /// lexical ranker's choices without a second round trip.
    pub async fn dense_candidates(
        &self,
        tenant: Uuid,
        filter: &MemoryFilter,
        query: &[f32],
        limit: usize,
        also: &[Uuid],
        window: Option<(DateTime<Utc>, DateTime<Utc>)>,
    ) -> Result<Vec<Candidate>, StoreError> {
        // Bound as halfvec, so no statement converts it once per row.
        let query = HalfVector::from_f32_slice(query);
        if also.is_empty() && window.is_none() {
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
                    ") SELECT {MEMORY_COLUMNS}, nearest.cosine FROM memories \
                     JOIN nearest ON memories.ctid = nearest.tid WHERE tenant_id = "
                ))
                .push_bind(tenant)
                .push(" ORDER BY nearest.cosine DESC, id");
            return self.fetch_candidates(tenant, q).await;
        }
        let mut q = QueryBuilder::new("WITH nearest AS ((SELECT id FROM memories");
        push_filter(&mut q, tenant, filter);
        q.push(" ORDER BY embedding_half <=> ")
            .push_bind(query.clone())
            .push(" LIMIT ")
            .push_bind(limit as i64)
            .push(")");
        if let Some((from, to)) = window {
            q.push(" UNION (SELECT id FROM memories");
            push_filter(&mut q, tenant, filter);
            q.push(" AND created_at >= ")
                .push_bind(from)
                .push(" AND created_at < ")
                .push_bind(to)
                .push(" ORDER BY embedding_half <=> ")
                .push_bind(query.clone())
                .push(" LIMIT ")
                .push_bind(limit as i64)
                .push(")");
        }
        q.push(format!(") SELECT {MEMORY_COLUMNS}, {COSINE}"))
            .push_bind(query)
            .push(COSINE_END)
            .push(" FROM memories");
        push_filter(&mut q, tenant, filter);
        // By primary key, not by rereading the scope.
        q.push(" AND id = ANY(ARRAY(SELECT id FROM nearest) || ")
            .push_bind(also.to_vec())
            .push("::uuid[]) ORDER BY cosine DESC, id");
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
                memory: r.memory.into(),
            })
            .collect())
    }
}
