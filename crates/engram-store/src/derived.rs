//! Deleting a fact reaches the text it was drawn from: the turns and the
//! running summary of the sessions it came from, the source message its
//! job recorded in other facts' history, and the pieces of what was said
//! that state it (its evidence, and any other piece of the user's saying
//! it), which are deleted whole: their vectors hold the fact too
//! (engram-core `forget` decides which clauses state it). Called in the
//! deleting transaction, before the memories' rows change, so a delete and
//! its redactions commit together.

use std::collections::BTreeMap;

use engram_core::forget::{redact_summary, redact_turn, states_any, FactTrace};
use sqlx::PgConnection;
use uuid::Uuid;

use crate::history::HistoryRow;
use crate::receipt::Counts;
use crate::StoreError;

/// Removes job results that mention any of `ids` (they quote the memory's text).
pub(crate) const SCRUB_JOB_RESULTS: &str = "UPDATE jobs SET results = (
        SELECT coalesce(jsonb_agg(e), '[]'::jsonb) FROM jsonb_array_elements(results) e
        WHERE NOT ((e->>'memory_id')::uuid = ANY($2)
                   OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(coalesce(e->'replaced', '[]'::jsonb)) r
                              WHERE r::uuid = ANY($2))))
     WHERE tenant_id = $1 AND jsonb_typeof(results) = 'array' AND EXISTS (
        SELECT 1 FROM jsonb_array_elements(results) e
        WHERE (e->>'memory_id')::uuid = ANY($2)
           OR EXISTS (SELECT 1 FROM jsonb_array_elements_text(coalesce(e->'replaced', '[]'::jsonb)) r
                      WHERE r::uuid = ANY($2)))";

/// A deleted fact and where it came from.
#[derive(sqlx::FromRow)]
struct Provenance {
    user_id: Option<String>,
    content: String,
    value: Option<String>,
    sessions: Vec<String>,
    jobs: Vec<Uuid>,
    /// A piece of what was said itself (then no other piece goes with it).
    said: bool,
    evidence_id: Option<Uuid>,
}

/// Redacts what `ids` stated from their sessions' turns and summaries and
/// from the source messages their jobs left in history (and, given
/// `also_job`, from that job's session and messages too: the job that read
/// a request to forget them), counting
/// `session_messages_redacted`, `session_summaries_redacted` and
/// `history_messages_redacted`.
pub(crate) async fn redact_derived(
    conn: &mut PgConnection,
    tenant: Uuid,
    ids: &[Uuid],
    also_job: Option<Uuid>,
    counts: &mut Counts,
) -> Result<(), StoreError> {
    if ids.is_empty() {
        return Ok(());
    }
    // Each fact with the sessions and jobs it came from: its own session,
    // a `session:` source, the jobs that added, updated or repeated it.
    let rows: Vec<Provenance> = sqlx::query_as(
        "SELECT m.user_id, m.content, m.value,
                array_remove(array_agg(DISTINCT s.session_id), NULL) AS sessions,
                array_remove(array_agg(DISTINCT j.job_id), NULL) AS jobs,
                m.said_by IS NOT NULL AS said, m.evidence_id
         FROM memories m
         LEFT JOIN LATERAL (
             SELECT m.job_id AS job_id
             UNION SELECT $3::uuid WHERE $3::uuid IS NOT NULL
             UNION SELECT h.job_id FROM memory_history h
                   WHERE h.tenant_id = $1 AND h.memory_id = m.id AND h.job_id IS NOT NULL
         ) j ON true
         LEFT JOIN LATERAL (
             SELECT m.session_id AS session_id
             UNION SELECT substr(m.source_ref, 9) WHERE m.source_ref LIKE 'session:%'
             UNION SELECT jb.session_id FROM jobs jb WHERE jb.tenant_id = $1 AND jb.id = j.job_id
         ) s ON true
         WHERE m.tenant_id = $1 AND m.id = ANY($2)
         GROUP BY m.id, m.user_id, m.content, m.value, m.said_by, m.evidence_id",
    )
    .bind(tenant)
    .bind(ids)
    .bind(also_job)
    .fetch_all(&mut *conn)
    .await?;
    // Only a session of the fact's own user: a row naming another user's
    // session (written before such rows were refused, or naming a session
    // opened later by someone else) is no handle on it.
    let mut named: Vec<String> = rows.iter().flat_map(|r| r.sessions.clone()).collect();
    named.sort_unstable();
    named.dedup();
    let owners: BTreeMap<String, String> = if named.is_empty() {
        BTreeMap::new()
    } else {
        sqlx::query_as::<_, (String, String)>(
            "SELECT session_id, user_id FROM sessions WHERE tenant_id = $1 AND session_id = ANY($2)",
        )
        .bind(tenant)
        .bind(&named)
        .fetch_all(&mut *conn)
        .await?
        .into_iter()
        .collect()
    };
    let mut by_session: BTreeMap<String, Vec<FactTrace>> = BTreeMap::new();
    let mut by_job: BTreeMap<Uuid, Vec<FactTrace>> = BTreeMap::new();
    let mut pieces = 0i64;
    for Provenance {
        user_id,
        content,
        value,
        sessions,
        jobs,
        said,
        evidence_id,
    } in rows
    {
        let trace = FactTrace::new(&content, value.as_deref());
        if !said {
            let user = user_id.as_deref();
            let fact = (value.as_deref(), evidence_id, &trace);
            pieces += delete_pieces_stating(conn, tenant, ids, user, fact, also_job).await?;
        }
        for s in sessions {
            if user_id.is_some() && owners.get(&s) == user_id.as_ref() {
                by_session.entry(s).or_default().push(trace.clone());
            }
        }
        for j in jobs {
            by_job.entry(j).or_default().push(trace.clone());
        }
    }

    let mut turns = 0i64;
    let mut summaries = 0i64;
    for (session, facts) in &by_session {
        // The session row first, as a summary being saved takes it: a
        // summary built from the turns before this redaction retries.
        sqlx::query(
            "UPDATE sessions SET redactions = redactions + 1
             WHERE tenant_id = $1 AND session_id = $2",
        )
        .bind(tenant)
        .bind(session)
        .execute(&mut *conn)
        .await?;
        let stored: Vec<(i64, String)> = sqlx::query_as(
            "SELECT seq, content FROM session_messages
             WHERE tenant_id = $1 AND session_id = $2 ORDER BY seq FOR UPDATE",
        )
        .bind(tenant)
        .bind(session)
        .fetch_all(&mut *conn)
        .await?;
        for (seq, content) in stored {
            if let Some(redacted) = redact_turn(&content, facts) {
                sqlx::query(
                    "UPDATE session_messages SET content = $4, redacted_at = now()
                     WHERE tenant_id = $1 AND session_id = $2 AND seq = $3",
                )
                .bind(tenant)
                .bind(session)
                .bind(seq)
                .bind(redacted)
                .execute(&mut *conn)
                .await?;
                turns += 1;
            }
        }
        let summary: Option<String> = sqlx::query_scalar(
            "SELECT content FROM session_summaries WHERE tenant_id = $1 AND session_id = $2 FOR UPDATE",
        )
        .bind(tenant)
        .bind(session)
        .fetch_optional(&mut *conn)
        .await?;
        if let Some(redacted) = summary.and_then(|s| redact_summary(&s, facts)) {
            sqlx::query(
                "UPDATE session_summaries SET content = $3, updated_at = now()
                 WHERE tenant_id = $1 AND session_id = $2",
            )
            .bind(tenant)
            .bind(session)
            .bind(redacted)
            .execute(&mut *conn)
            .await?;
            summaries += 1;
        }
    }

    // The same message is the source of the other facts its job read.
    let mut history = 0i64;
    for (job, facts) in &by_job {
        let stored: Vec<(Uuid, String)> = sqlx::query_as(
            "SELECT id, source_message FROM memory_history
             WHERE tenant_id = $1 AND job_id = $2 AND source_message IS NOT NULL
               AND NOT memory_id = ANY($3)",
        )
        .bind(tenant)
        .bind(job)
        .bind(ids)
        .fetch_all(&mut *conn)
        .await?;
        for (id, message) in stored {
            if let Some(redacted) = redact_turn(&message, facts) {
                sqlx::query(
                    "UPDATE memory_history SET source_message = $3 WHERE tenant_id = $1 AND id = $2",
                )
                .bind(tenant)
                .bind(id)
                .bind(redacted)
                .execute(&mut *conn)
                .await?;
                history += 1;
            }
        }
    }
    // Job results quote the facts they produced or replaced.
    let scrubbed = sqlx::query(SCRUB_JOB_RESULTS)
        .bind(tenant)
        .bind(ids)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    *counts.entry("job_results_scrubbed".into()).or_default() += scrubbed as i64;
    *counts
        .entry("session_messages_redacted".into())
        .or_default() += turns;
    *counts
        .entry("session_summaries_redacted".into())
        .or_default() += summaries;
    *counts
        .entry("history_messages_redacted".into())
        .or_default() += history;
    *counts.entry("said_pieces_deleted".into()).or_default() += pieces;
    Ok(())
}

/// The live pieces of what was said of `user`'s that state a fact: its
/// evidence, and the pieces whose words hold its value (found by full-text
/// search), each confirmed by `states`; never those in `exclude`.
pub(crate) async fn pieces_stating(
    conn: &mut PgConnection,
    tenant: Uuid,
    exclude: &[Uuid],
    user: &str,
    value: Option<&str>,
    evidence_id: Option<Uuid>,
    states: impl Fn(&str) -> bool,
) -> Result<Vec<Uuid>, StoreError> {
    let candidates: Vec<(Uuid, String)> = sqlx::query_as(
        "SELECT id, content FROM memories
         WHERE tenant_id = $1 AND user_id = $2 AND said_by IS NOT NULL AND deleted_at IS NULL
           AND superseded_by IS NULL AND NOT id = ANY($3)
           AND (id = $4 OR ($5::text IS NOT NULL AND content_tsv @@ plainto_tsquery('english', $5)))",
    )
    .bind(tenant)
    .bind(user)
    .bind(exclude)
    .bind(evidence_id)
    .bind(value.filter(|v| !v.trim().is_empty()))
    .fetch_all(&mut *conn)
    .await?;
    Ok(candidates
        .into_iter()
        .filter(|(_, content)| states(content))
        .map(|(id, _)| id)
        .collect())
}

/// Deletes the pieces of what was said that state a deleted fact
/// (`pieces_stating`; the fact as its value, evidence and trace), each with
/// a history row: FORGET when the job `forgotten_by` read a request to
/// forget it, DELETE otherwise. The number deleted.
async fn delete_pieces_stating(
    conn: &mut PgConnection,
    tenant: Uuid,
    deleted: &[Uuid],
    user: Option<&str>,
    (value, evidence_id, trace): (Option<&str>, Option<Uuid>, &FactTrace),
    forgotten_by: Option<Uuid>,
) -> Result<i64, StoreError> {
    let Some(user) = user else {
        return Ok(0);
    };
    let states = |piece: &str| states_any(piece, std::slice::from_ref(trace));
    let gone = pieces_stating(conn, tenant, deleted, user, value, evidence_id, states).await?;
    if gone.is_empty() {
        return Ok(0);
    }
    let removed: Vec<(Uuid, String)> = sqlx::query_as(
        "UPDATE memories SET deleted_at = $3, updated_at = $3
         WHERE tenant_id = $1 AND id = ANY($2) AND deleted_at IS NULL RETURNING id, content",
    )
    .bind(tenant)
    .bind(&gone)
    .bind(chrono::Utc::now())
    .fetch_all(&mut *conn)
    .await?;
    let (event, actor, reason) = match forgotten_by {
        Some(job) => (
            "FORGET",
            format!("job:{job}"),
            "it stated a fact the user asked to forget",
        ),
        None => (
            "DELETE",
            "system".to_owned(),
            "it stated a fact that was deleted",
        ),
    };
    for (id, content) in &removed {
        HistoryRow {
            memory: *id,
            event,
            old: Some(content),
            new: None,
            actor: &actor,
            reason,
            job: forgotten_by,
        }
        .write(conn, tenant)
        .await?;
    }
    Ok(removed.len() as i64)
}
