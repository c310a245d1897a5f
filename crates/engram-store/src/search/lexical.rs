//! Lexical (BM25) search within a scope.
//!
//! Its cost must stay bounded whatever the query and whatever the planner
//! knows. Measured on the previous version (docs/BENCHMARKS.md, *Query
//! cost*): 1.6-2 s for a 256-term query over 5,000 memories, and 2-20 s on
//! a table never analysed, where the planner inlined the one-row statistics
//! into a nested loop and recomputed them once per row of the scope. So:
//!
//! - every step is a `MATERIALIZED` CTE and the only joins are with one-row
//!   relations: no plan can rescan the scope per row, statistics or not;
//! - a query of at most [`FEW_TERMS`] terms is scored term by term (one
//!   column per term, each an `@@` per row: the cheapest for the short
//!   questions people ask);
//! - a longer one looks each row's own lexemes (a dozen or two) up in the
//!   query's term set instead, a hash lookup (`= ANY` over a constant array,
//!   which Postgres hashes from nine elements): rows × lexemes, whatever the
//!   number of terms. Of its terms found in the scope only the `max_terms`
//!   rarest (lowest document frequency: the most informative) are scored.
//!   Sent unprepared, so it is planned with the arrays as constants (what
//!   lets Postgres hash them).

use sqlx::{Postgres, QueryBuilder};
use uuid::Uuid;

use crate::memories::push_filter;
use crate::tenant::end_read;
use crate::{Store, StoreError};
use engram_core::MemoryFilter;

/// Query terms considered at most (exact words first): what a query of the
/// maximum length can hold, with room to spare.
const MAX_QUERY_TERMS: i64 = 256;

/// The longest lexeme Postgres stores is 2,047 bytes (its MAXSTRLEN).
const MAX_LEXEME_BYTES: usize = 2047;

/// Up to this many terms a query is scored term by term; measured to be
/// the faster shape up to about 16 terms, the lexeme lookup beyond.
const FEW_TERMS: usize = 16;

/// In the lexeme lookup, a branch with at most this many terms first skips
/// the rows that have none of them by one `@@` test; beyond it the test
/// costs more than it saves.
const PREFILTER_MAX_TERMS: usize = 40;

/// A term quoted as one tsquery lexeme, around it: `'…'` with `'` doubled
/// and `\` escaped. (`quote_literal` writes a string with a backslash as
/// `E'…'`, which tsquery input cannot read: such a term failed the search.)
const QUOTED_START: &str = r"'''' || replace(replace(";
const QUOTED_END: &str = r", '\', '\\'), '''', '''''') || ''''";

/// The query's terms: English lexemes, and exact words (names, numbers).
struct Terms {
    stemmed: Vec<String>,
    exact: Vec<String>,
}

impl Terms {
    fn len(&self) -> usize {
        self.stemmed.len() + self.exact.len()
    }
}

impl Store {
    /// The ids of the `limit` memories in view with the best BM25 for `text`,
    /// best first (ties by id, so results are stable). It needs no query
    /// vector, so search runs it while the query is being embedded.
    ///
    /// Terms are the query's English lexemes (stemmed, stop words dropped),
    /// except that its `exact` words (names, numbers: see
    /// engram_core::exact_terms) are matched unstemmed in `content_exact_tsv`
    /// instead; OR semantics. A query with more than [`FEW_TERMS`] terms is
    /// scored on the `max_terms` of them with the lowest document frequency
    /// in the scope. Rarity is counted over the rows in view, not the whole
    /// table, so what is rare for this user weighs most. k1 = 1.2, b = 0.75,
    /// document length is the number of distinct lexemes, and term
    /// frequency counts as 1: a memory is a sentence or two where a term
    /// rarely repeats (docs/EVALUATION.md).
    pub async fn lexical_scores(
        &self,
        tenant: Uuid,
        filter: &MemoryFilter,
        text: &str,
        exact: &[String],
        limit: usize,
        max_terms: usize,
    ) -> Result<Vec<(Uuid, f32)>, StoreError> {
        // A word Postgres cannot hold as one lexeme (2,047 bytes and more: a
        // long run of CJK text is one word to its parser) matches nothing
        // stored, and as a tsquery it is an error that quotes it: dropped.
        let exact: Vec<&String> = exact
            .iter()
            .filter(|t| t.len() < MAX_LEXEME_BYTES)
            .collect();
        let mut tx = self.tenant_tx(tenant).await?;
        let found: Vec<(bool, String)> = sqlx::query_as(
            "SELECT false, lexeme FROM unnest(to_tsvector('english', $1))
             WHERE lexeme NOT IN (
                 SELECT lexeme FROM unnest(to_tsvector('english', array_to_string($2::text[], ' '))))
             UNION
             SELECT true, t FROM unnest($2::text[]) t
             ORDER BY 1 DESC, 2 LIMIT $3",
        )
        .bind(text)
        .bind(&exact)
        .bind(MAX_QUERY_TERMS)
        .fetch_all(&mut *tx)
        .await?;
        if found.is_empty() {
            end_read(tx);
            return Ok(Vec::new());
        }
        let (exact, stemmed): (Vec<_>, Vec<_>) = found.into_iter().partition(|(e, _)| *e);
        let terms = Terms {
            stemmed: stemmed.into_iter().map(|(_, t)| t).collect(),
            exact: exact.into_iter().map(|(_, t)| t).collect(),
        };
        let few = terms.len() <= FEW_TERMS;
        let mut q = if few {
            per_term_query(tenant, filter, &terms, limit)
        } else {
            lookup_query(tenant, filter, &terms, limit, max_terms)
        };
        let rows: Vec<(Uuid, f64)> = q
            .build_query_as()
            .persistent(few)
            .fetch_all(&mut *tx)
            .await?;
        end_read(tx);
        Ok(rows.into_iter().map(|(id, s)| (id, s as f32)).collect())
    }
}

/// The statistics every shape needs of `scope`: its size and average
/// document length (a shape may add columns, then closes with `FROM scope)`).
const STATS: &str = "stats AS MATERIALIZED (
    SELECT count(*)::float8 AS n, greatest(avg(lexeme_count), 1)::float8 AS avgdl";

/// BM25's length norm times 2.2 (k1 + 1), for a row's `lexeme_count`.
const NORM: &str = "2.2 / (1 + 1.2 * (0.25 + 0.75 * lexeme_count / avgdl))";

/// Few terms: column `h{i}` marks the rows with term i, `df{i}` counts them,
/// and a row's score is the sum of its terms' idf times the length norm.
fn per_term_query<'a>(
    tenant: Uuid,
    filter: &'a MemoryFilter,
    terms: &'a Terms,
    limit: usize,
) -> QueryBuilder<'a, Postgres> {
    let all: Vec<(&str, &String)> = terms
        .exact
        .iter()
        .map(|t| ("content_exact_tsv", t))
        .chain(terms.stemmed.iter().map(|t| ("content_tsv", t)))
        .collect();
    let mut q = QueryBuilder::new("WITH scope AS MATERIALIZED (SELECT id, lexeme_count");
    for (i, (column, term)) in all.iter().enumerate() {
        // A scalar subquery is evaluated once, not per row.
        q.push(format!(", {column} @@ (SELECT ({QUOTED_START}"))
            .push_bind(*term)
            .push(format!("::text{QUOTED_END})::tsquery) AS h{i}"));
    }
    q.push(" FROM memories");
    push_filter(&mut q, tenant, filter);
    q.push(format!("), {STATS}"));
    for i in 0..all.len() {
        q.push(format!(", count(*) FILTER (WHERE h{i})::float8 AS df{i}"));
    }
    q.push(" FROM scope), idf AS MATERIALIZED (SELECT avgdl");
    for i in 0..all.len() {
        q.push(format!(
            ", ln(1 + (n - df{i} + 0.5) / (df{i} + 0.5)) AS idf{i}"
        ));
    }
    q.push(" FROM stats) SELECT id, ((0");
    for i in 0..all.len() {
        q.push(format!(" + CASE WHEN h{i} THEN idf{i} ELSE 0 END"));
    }
    q.push(format!(
        ") * {NORM})::float8 AS bm25 FROM scope CROSS JOIN idf WHERE false"
    ));
    for i in 0..all.len() {
        q.push(format!(" OR h{i}"));
    }
    q.push(" ORDER BY bm25 DESC, id LIMIT ")
        .push_bind(limit as i64);
    q
}

/// Many terms: `hits` holds (row, term) for every query term a row has
/// (`s:` before an English lexeme, `e:` before an exact word, so the two
/// never meet); `weights` the idf of the `max_terms` rarest terms in scope;
/// a row's score is the sum of its chosen terms' idf times the length norm.
fn lookup_query<'a>(
    tenant: Uuid,
    filter: &'a MemoryFilter,
    terms: &'a Terms,
    limit: usize,
    max_terms: usize,
) -> QueryBuilder<'a, Postgres> {
    let branches = [
        ("s:", "content_tsv", &terms.stemmed),
        ("e:", "content_exact_tsv", &terms.exact),
    ];
    // Only the tsvectors that have terms to look up are read.
    let mut q = QueryBuilder::new("WITH scope AS MATERIALIZED (SELECT id, lexeme_count");
    for (_, column, branch) in branches {
        if !branch.is_empty() {
            q.push(format!(", {column}"));
        }
    }
    q.push(" FROM memories");
    push_filter(&mut q, tenant, filter);
    q.push("), hits AS MATERIALIZED (");
    let mut first = true;
    for (prefix, column, branch) in branches {
        if branch.is_empty() {
            continue;
        }
        if !first {
            q.push(" UNION ALL ");
        }
        first = false;
        q.push(format!(
            "SELECT s.id, s.lexeme_count, '{prefix}' || l AS term
             FROM scope s, unnest(tsvector_to_array(s.{column})) l WHERE l = ANY("
        ))
        .push_bind(branch)
        .push(")");
        if branch.len() <= PREFILTER_MAX_TERMS {
            q.push(format!(
                " AND s.{column} @@ (SELECT string_agg({QUOTED_START}t{QUOTED_END}, ' | ')::tsquery FROM unnest("
            ))
            .push_bind(branch)
            .push(") t)");
        }
    }
    q.push(format!(
        "), {STATS} FROM scope),
         weights AS MATERIALIZED (
             SELECT coalesce(jsonb_object_agg(term, idf), '{{}}'::jsonb) AS idf, (SELECT avgdl FROM stats) AS avgdl
             FROM (SELECT d.term, ln(1 + (st.n - d.df + 0.5) / (d.df + 0.5)) AS idf
                   FROM (SELECT term, count(*)::float8 AS df FROM hits GROUP BY term) d, stats st
                   ORDER BY d.df, d.term LIMIT "
    ))
    .push_bind(max_terms.max(1) as i64)
    .push(format!(
        ") chosen)
         SELECT h.id, (sum((w.idf ->> h.term)::float8) * min({NORM_HITS}))::float8 AS bm25
         FROM hits h, weights w WHERE w.idf ? h.term
         GROUP BY h.id ORDER BY bm25 DESC, h.id LIMIT "
    ))
    .push_bind(limit as i64);
    q
}

/// [`NORM`] over a hit row of the lookup shape.
const NORM_HITS: &str = "2.2 / (1 + 1.2 * (0.25 + 0.75 * h.lexeme_count / w.avgdl))";
