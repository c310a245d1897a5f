//! Sessions: turns in order, the short-term window and the running summary.

use chrono::{DateTime, Utc};
use serde_json::json;
use uuid::Uuid;

use crate::jobs::{finish_job_in, insert_job_in, NewJob, SummarizePayload};
use crate::memories::{insert_pieces_in, NewPiece, PieceOutcome, Retention};
use crate::tenant::end_read;
use crate::{ConflictKind, Store, StoreError};

/// A turn to append, its tokens already counted.
#[derive(Debug, Clone)]
pub struct NewTurn {
    pub role: String,
    pub content: String,
    pub tokens: i32,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize, serde::Deserialize)]
pub struct SessionTurn {
    pub seq: i64,
    pub id: Uuid,
    pub role: String,
    pub content: String,
    pub tokens: i32,
    pub created_at: DateTime<Utc>,
    pub summarized_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize, serde::Deserialize)]
pub struct SessionSummary {
    pub content: String,
    pub tokens: i32,
    pub first_seq: i64,
    pub last_seq: i64,
    pub summarizer: String,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SessionInfo {
    pub session_id: String,
    pub user_id: String,
    pub window_tokens: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// Turns to append to a session, and what they set in motion.
#[derive(Debug, Clone, Copy)]
pub struct Append<'a> {
    pub session_id: &'a str,
    /// The session's owner: opens it if new, must match otherwise.
    pub user_id: &'a str,
    /// The window's budget if the session is new.
    pub window_tokens: i32,
    pub turns: &'a [NewTurn],
    /// The extraction job for these turns, if any.
    pub extract: Option<&'a NewJob<engram_core::extract::ExtractionRequest>>,
    /// Attempts for the summarize job.
    pub max_attempts: i32,
    /// Earlier turns to redact with this append: (seq, content as read,
    /// content redacted), for a secret split across turns. A turn that
    /// changed since it was read is left alone.
    pub redact_earlier: &'a [(i64, String, String)],
    /// The pieces of these turns kept as what was said, and those of the
    /// earlier turns redacted (with their seq), which replace their old ones.
    pub said: &'a [NewPiece],
    pub retention: Retention,
    /// Who appends, for the pieces' history.
    pub actor: &'a str,
}

/// A user's turns at the end of a session.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TrailingTurn {
    pub seq: i64,
    pub content: String,
    pub created_at: DateTime<Utc>,
}

/// What an append did.
#[derive(Debug)]
pub struct Appended {
    pub turns: Vec<SessionTurn>,
    /// Turns that left the window with this append, to be summarised.
    pub left_window: Vec<i64>,
    pub summarize_job: Option<Uuid>,
    pub extract_job: Option<Uuid>,
    /// What became of each piece kept as what was said.
    pub said: Vec<PieceOutcome>,
}

/// The session as a context call needs it.
#[derive(Debug)]
pub struct SessionState {
    pub info: SessionInfo,
    pub summary: Option<SessionSummary>,
    /// The turns still in the window, oldest first.
    pub window: Vec<SessionTurn>,
}

/// A summary to store and the turns it folds in.
#[derive(Debug)]
pub struct NewSummary<'a> {
    pub content: &'a str,
    pub tokens: i32,
    pub seqs: &'a [i64],
    pub summarizer: &'a str,
    /// The `last_seq` of the summary it was built on (`None`: none yet).
    /// Another job that saved meanwhile makes this one retry on top of it.
    pub built_on: Option<i64>,
    /// The session's redaction count when the work was read
    /// (`SummaryWork::redactions`): a fact deleted meanwhile makes it retry.
    pub redactions: i64,
}

/// The turns a summarize job folds in, with the summary so far.
#[derive(Debug)]
pub struct SummaryWork {
    pub previous: Option<SessionSummary>,
    pub turns: Vec<SessionTurn>,
    /// How many times the session's text was redacted before this read.
    pub redactions: i64,
}

const TURN_COLUMNS: &str = "seq, id, role, content, tokens, created_at, summarized_at";
const SUMMARY_COLUMNS: &str = "content, tokens, first_seq, last_seq, summarizer, updated_at";

impl Store {
    /// Appends turns in one transaction: opens the session for `user_id` if
    /// new (with `window_tokens`), refuses it if another user owns it,
    /// numbers the turns, and enqueues the summarize job when turns left the
    /// window and the extraction job when given. Appends to one session are
    /// serialised by its row.
    pub async fn append_turns(
        &self,
        tenant: Uuid,
        append: &Append<'_>,
    ) -> Result<Appended, StoreError> {
        let Append {
            session_id,
            user_id,
            window_tokens,
            turns,
            extract,
            max_attempts,
            redact_earlier,
            said,
            retention,
            actor,
        } = *append;
        let mut tx = self.tenant_tx(tenant).await?;
        let n = turns.len() as i64;
        let (owner, window, next): (String, i32, i64) = sqlx::query_as(
            "INSERT INTO sessions (tenant_id, session_id, user_id, window_tokens, next_seq)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (tenant_id, session_id) DO UPDATE
                SET next_seq = sessions.next_seq + EXCLUDED.next_seq, updated_at = EXCLUDED.updated_at
             RETURNING user_id, window_tokens, next_seq",
        )
        .bind(tenant)
        .bind(session_id)
        .bind(user_id)
        .bind(window_tokens)
        .bind(n)
        .fetch_one(&mut *tx)
        .await?;
        if owner != user_id {
            return Err(StoreError::Conflict(
                ConflictKind::SessionOwner,
                "this session belongs to another user".into(),
            ));
        }
        // The pieces kept of an earlier turn redacted now held the secret:
        // gone for good, replaced by the redacted turn's pieces below.
        let redone: Vec<i64> = said.iter().filter_map(|p| p.seq).collect();
        if !redone.is_empty() {
            sqlx::query(
                "DELETE FROM memories WHERE tenant_id = $1 AND session_id = $2
                 AND turn_seq = ANY($3) AND said_by IS NOT NULL",
            )
            .bind(tenant)
            .bind(session_id)
            .bind(&redone)
            .execute(&mut *tx)
            .await?;
        }
        for (seq, read, redacted) in redact_earlier {
            sqlx::query(
                "UPDATE session_messages SET content = $5, redacted_at = now()
                 WHERE tenant_id = $1 AND session_id = $2 AND seq = $3 AND content = $4",
            )
            .bind(tenant)
            .bind(session_id)
            .bind(seq)
            .bind(read)
            .bind(redacted)
            .execute(&mut *tx)
            .await?;
        }
        let first = next - n;
        // All turns in one statement.
        let mut q = sqlx::QueryBuilder::new(
            "INSERT INTO session_messages (tenant_id, session_id, seq, id, role, content, tokens, created_at) ",
        );
        q.push_values(turns.iter().enumerate(), |mut b, (i, t)| {
            b.push_bind(tenant)
                .push_bind(session_id)
                .push_bind(first + i as i64)
                .push_bind(Uuid::now_v7())
                .push_bind(&t.role)
                .push_bind(&t.content)
                .push_bind(t.tokens)
                .push_bind(t.created_at);
        });
        q.push(format!(" RETURNING {TURN_COLUMNS}"));
        let mut stored: Vec<SessionTurn> = q.build_query_as().fetch_all(&mut *tx).await?;
        stored.sort_by_key(|t| t.seq);
        let seqs: Vec<i64> = stored.iter().map(|t| t.seq).collect();
        let said = insert_pieces_in(&mut tx, tenant, said, &seqs, actor, retention).await?;
        let pending: Vec<(i64, i32)> = sqlx::query_as(
            "SELECT seq, tokens FROM session_messages
             WHERE tenant_id = $1 AND session_id = $2 AND summarized_at IS NULL ORDER BY seq",
        )
        .bind(tenant)
        .bind(session_id)
        .fetch_all(&mut *tx)
        .await?;
        let tokens: Vec<usize> = pending.iter().map(|(_, t)| *t as usize).collect();
        let start = engram_core::session::window_start(&tokens, window as usize);
        let left_window: Vec<i64> = pending[..start].iter().map(|(s, _)| *s).collect();
        let summarize_job = match left_window.last() {
            Some(&through) => {
                let job = NewJob {
                    scope: engram_core::Scope {
                        user_id: Some(user_id.to_owned()),
                        agent_id: None,
                        session_id: Some(session_id.to_owned()),
                    },
                    payload: SummarizePayload {
                        session_id: session_id.to_owned(),
                        through_seq: through,
                    },
                    idempotency_key: Some(format!("summarize:{session_id}:{through}")),
                    fingerprint: None,
                    max_attempts,
                    source_ref: None,
                };
                // A session's own upkeep, one per window move: not capped.
                insert_job_in(&mut tx, tenant, &job, None).await?
            }
            None => None,
        };
        let extract_job = match extract {
            Some(job) => {
                let mut job = job.clone();
                job.payload.evidence = crate::memories::evidence(&said);
                insert_job_in(&mut tx, tenant, &job, self.queue_cap).await?
            }
            None => None,
        };
        tx.commit().await?;
        Ok(Appended {
            turns: stored,
            left_window,
            summarize_job,
            extract_job,
            said,
        })
    }

    /// A page of a session's turns in order, after `after_seq`.
    pub async fn list_turns(
        &self,
        tenant: Uuid,
        session_id: &str,
        after_seq: Option<i64>,
        limit: usize,
    ) -> Result<(SessionInfo, Vec<SessionTurn>), StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let info = session_info(&mut tx, tenant, session_id).await?;
        let turns = sqlx::query_as(&format!(
            "SELECT {TURN_COLUMNS} FROM session_messages
             WHERE tenant_id = $1 AND session_id = $2 AND seq > $3 ORDER BY seq LIMIT $4"
        ))
        .bind(tenant)
        .bind(session_id)
        .bind(after_seq.unwrap_or(-1))
        .bind(limit as i64)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok((info, turns))
    }

    /// The turns the user sent last in a session (the last `limit` of those
    /// after its latest turn by anyone else), oldest first, if the session
    /// is `user_id`'s; none for a new session or another user's.
    pub async fn trailing_user_turns(
        &self,
        tenant: Uuid,
        session_id: &str,
        user_id: &str,
        limit: usize,
    ) -> Result<Vec<TrailingTurn>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let rows: Vec<(i64, String, String, DateTime<Utc>)> = sqlx::query_as(
            "SELECT m.seq, m.role, m.content, m.created_at FROM session_messages m
             JOIN sessions s ON s.tenant_id = m.tenant_id AND s.session_id = m.session_id
             WHERE m.tenant_id = $1 AND m.session_id = $2 AND s.user_id = $3
             ORDER BY m.seq DESC LIMIT $4",
        )
        .bind(tenant)
        .bind(session_id)
        .bind(user_id)
        .bind(limit as i64)
        .fetch_all(&mut *tx)
        .await?;
        end_read(tx);
        let mut turns: Vec<TrailingTurn> = rows
            .into_iter()
            .take_while(|(_, role, _, _)| role == "user")
            .map(|(seq, _, content, created_at)| TrailingTurn {
                seq,
                content,
                created_at,
            })
            .collect();
        turns.reverse();
        Ok(turns)
    }

    /// The user a session belongs to.
    pub async fn session_owner(
        &self,
        tenant: Uuid,
        session_id: &str,
    ) -> Result<String, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let info = session_info(&mut tx, tenant, session_id).await?;
        end_read(tx);
        Ok(info.user_id)
    }

    /// The session's summary and the turns still in its window.
    pub async fn session_state(
        &self,
        tenant: Uuid,
        session_id: &str,
    ) -> Result<SessionState, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let info = session_info(&mut tx, tenant, session_id).await?;
        let summary = summary_in(&mut tx, tenant, session_id).await?;
        let pending: Vec<SessionTurn> = sqlx::query_as(&format!(
            "SELECT {TURN_COLUMNS} FROM session_messages
             WHERE tenant_id = $1 AND session_id = $2 AND summarized_at IS NULL ORDER BY seq"
        ))
        .bind(tenant)
        .bind(session_id)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        // Turns that left the window but whose summary job has not run yet
        // are not in the window either.
        let tokens: Vec<usize> = pending.iter().map(|t| t.tokens as usize).collect();
        let start = engram_core::session::window_start(&tokens, info.window_tokens as usize);
        Ok(SessionState {
            info,
            summary,
            window: pending[start..].to_vec(),
        })
    }

    /// The work of a summarize job: the summary so far and the unsummarised
    /// turns up to `through_seq`.
    pub async fn summary_work(
        &self,
        tenant: Uuid,
        session_id: &str,
        through_seq: i64,
    ) -> Result<SummaryWork, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let redactions: i64 = sqlx::query_scalar(
            "SELECT redactions FROM sessions WHERE tenant_id = $1 AND session_id = $2",
        )
        .bind(tenant)
        .bind(session_id)
        .fetch_optional(&mut *tx)
        .await?
        .unwrap_or(0);
        let previous = summary_in(&mut tx, tenant, session_id).await?;
        let turns = sqlx::query_as(&format!(
            "SELECT {TURN_COLUMNS} FROM session_messages
             WHERE tenant_id = $1 AND session_id = $2 AND summarized_at IS NULL AND seq <= $3
             ORDER BY seq"
        ))
        .bind(tenant)
        .bind(session_id)
        .bind(through_seq)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(SummaryWork {
            previous,
            turns,
            redactions,
        })
    }

    /// Stores the new summary, marks the turns it folded in and finishes
    /// the job, in one transaction. `NotFound` when the job is gone (the
    /// session was deleted or its user erased meanwhile): nothing is written.
    pub async fn save_summary(
        &self,
        tenant: Uuid,
        job_id: Uuid,
        session_id: &str,
        summary: &NewSummary<'_>,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        // Job results are a list of fact outcomes; a summary has none (it
        // lives on the session, with the turns it covers).
        finish_job_in(&mut tx, tenant, job_id, &json!([])).await?;
        let (Some(&first), Some(&last)) = (summary.seqs.first(), summary.seqs.last()) else {
            tx.commit().await?;
            return Ok(());
        };
        // Summaries of one session are saved one at a time (the session row
        // is the lock), each on top of the one it read: two jobs folding
        // overlapping turns must not overwrite each other's work.
        let redactions: i64 = sqlx::query_scalar(
            "SELECT redactions FROM sessions WHERE tenant_id = $1 AND session_id = $2 FOR UPDATE",
        )
        .bind(tenant)
        .bind(session_id)
        .fetch_one(&mut *tx)
        .await?;
        if redactions != summary.redactions {
            return Err(StoreError::Conflict(
                ConflictKind::ChangedMeanwhile,
                "a fact of this session was deleted while its summary was written; retrying on the redacted turns"
                    .into(),
            ));
        }
        let current: Option<i64> = sqlx::query_scalar(
            "SELECT last_seq FROM session_summaries WHERE tenant_id = $1 AND session_id = $2",
        )
        .bind(tenant)
        .bind(session_id)
        .fetch_optional(&mut *tx)
        .await?;
        if current != summary.built_on {
            return Err(StoreError::Conflict(
                ConflictKind::ChangedMeanwhile,
                "the session's summary changed while this one was written; retrying on top of it"
                    .into(),
            ));
        }
        sqlx::query(
            "INSERT INTO session_summaries (tenant_id, session_id, content, tokens, first_seq, last_seq, summarizer, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             ON CONFLICT (tenant_id, session_id) DO UPDATE
                SET content = EXCLUDED.content, tokens = EXCLUDED.tokens,
                    first_seq = least(session_summaries.first_seq, EXCLUDED.first_seq),
                    last_seq = greatest(session_summaries.last_seq, EXCLUDED.last_seq),
                    summarizer = EXCLUDED.summarizer, updated_at = EXCLUDED.updated_at",
        )
        .bind(tenant)
        .bind(session_id)
        .bind(summary.content)
        .bind(summary.tokens)
        .bind(first)
        .bind(last)
        .bind(summary.summarizer)
        .bind(now)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE session_messages SET summarized_at = $3
             WHERE tenant_id = $1 AND session_id = $2 AND seq = ANY($4) AND summarized_at IS NULL",
        )
        .bind(tenant)
        .bind(session_id)
        .bind(now)
        .bind(summary.seqs)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(())
    }
}

async fn session_info(
    tx: &mut sqlx::PgConnection,
    tenant: Uuid,
    session_id: &str,
) -> Result<SessionInfo, StoreError> {
    Ok(sqlx::query_as(
        "SELECT session_id, user_id, window_tokens, created_at, updated_at FROM sessions
         WHERE tenant_id = $1 AND session_id = $2",
    )
    .bind(tenant)
    .bind(session_id)
    .fetch_one(&mut *tx)
    .await?)
}

async fn summary_in(
    tx: &mut sqlx::PgConnection,
    tenant: Uuid,
    session_id: &str,
) -> Result<Option<SessionSummary>, StoreError> {
    Ok(sqlx::query_as(&format!(
        "SELECT {SUMMARY_COLUMNS} FROM session_summaries WHERE tenant_id = $1 AND session_id = $2"
    ))
    .bind(tenant)
    .bind(session_id)
    .fetch_optional(&mut *tx)
    .await?)
}
