//! Durable background jobs in Postgres.
//!
//! Why not apalis or underway: both keep jobs in tables of their own shape, with
//! no tenant_id to distribute by (Citus) or to filter by (isolation), and no
//! place to erase a user's job payloads for GDPR. The queue Engram needs is small:
//! rows claimed under a lease by a conditional single-row UPDATE (not `FOR
//! UPDATE SKIP LOCKED`, which Citus refuses across shards: see `claim_job`),
//! enqueued in the same transaction as the write that needs them, woken with
//! LISTEN/NOTIFY, retried with backoff, failed visibly after `max_attempts`.
//!
//! A job's kind and its payload's type are tied by [`JobPayload`]: a
//! [`NewJob`] of a payload can only be enqueued as that payload's kind, and a
//! [`JobRow`] hands its payload out only as the type of its kind.

use chrono::{DateTime, Utc};
use engram_core::extract::ExtractionRequest;
use engram_core::{JobStatus, Scope};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;
use sqlx::{Postgres, QueryBuilder};
use uuid::Uuid;

use crate::error::ConflictKind;
use crate::memories::{insert_pieces_in, NewPiece, PieceOutcome, Retention};
use crate::ownership::refuse_foreign_sessions;
use crate::{Store, StoreError};

/// Jobs a claim reads at once: enough that workers racing for the oldest
/// still find one left.
const CLAIM_CANDIDATES: i64 = 8;

/// The channel workers LISTEN on; a NOTIFY is sent when a job is enqueued.
pub const JOBS_CHANNEL: &str = "engram_jobs";

/// A job to enqueue, carrying a payload of one kind.
#[derive(Debug, Clone)]
pub struct NewJob<P: JobPayload> {
    pub scope: Scope,
    pub payload: P,
    pub idempotency_key: Option<String>,
    /// What the idempotency key stands for (a hash of the scope and the
    /// request): the same key with a different request is refused.
    pub fingerprint: Option<String>,
    pub max_attempts: i32,
    /// Where the messages came from, kept after the payload is cleared so a
    /// source purge can find what the job did.
    pub source_ref: Option<String>,
}

impl NewJob<ExtractionRequest> {
    /// An extraction of `request` for `user`, with no idempotency key and
    /// three attempts: what tests and benchmarks queue.
    pub fn extraction(user: &str, request: ExtractionRequest) -> Self {
        Self {
            scope: Scope {
                user_id: Some(user.to_owned()),
                ..Default::default()
            },
            payload: request,
            idempotency_key: None,
            fingerprint: None,
            max_attempts: 3,
            source_ref: None,
        }
    }
}

/// Jobs of one kind and status still to finish.
#[derive(Debug, sqlx::FromRow)]
pub struct QueueStat {
    #[sqlx(try_from = "String")]
    pub kind: JobKind,
    #[sqlx(try_from = "String")]
    pub status: JobStatus,
    pub count: i64,
    pub oldest_age_secs: f64,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct JobRow {
    pub tenant_id: Uuid,
    pub id: Uuid,
    /// The table's CHECK constraints hold both to the enums' values.
    #[sqlx(try_from = "String")]
    pub kind: JobKind,
    #[sqlx(try_from = "String")]
    pub status: JobStatus,
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub payload: Option<Value>,
    pub results: Value,
    pub attempts: i32,
    pub max_attempts: i32,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub finished_at: Option<DateTime<Utc>>,
}

impl JobRow {
    /// The payload as its kind's type; an error when the job is of another
    /// kind, or its payload is gone (finished, failed) or unreadable.
    pub fn payload<P: JobPayload>(&self) -> Result<P, PayloadError> {
        if self.kind != P::KIND {
            return Err(PayloadError::Kind {
                job: self.kind,
                wanted: P::KIND,
            });
        }
        let payload = self.payload.clone().ok_or(PayloadError::Missing)?;
        serde_json::from_value(payload).map_err(|e| PayloadError::Unreadable(e.to_string()))
    }

    pub fn scope(&self) -> Scope {
        Scope {
            user_id: self.user_id.clone(),
            agent_id: self.agent_id.clone(),
            session_id: self.session_id.clone(),
        }
    }
}

const JOB_COLUMNS: &str =
    "tenant_id, id, kind, status, user_id, agent_id, session_id, payload, results, attempts, \
    max_attempts, last_error, created_at, updated_at, finished_at";

/// Which jobs `list_jobs` reads: every field narrows when set.
#[derive(Debug, Clone, Default)]
pub struct JobQuery {
    pub user_id: Option<String>,
    pub agent_id: Option<String>,
    pub session_id: Option<String>,
    pub status: Option<JobStatus>,
    pub kind: Option<JobKind>,
    /// Jobs created before this (created_at, id): the page after a cursor.
    pub before: Option<(DateTime<Utc>, Uuid)>,
    pub limit: usize,
}

/// What an enqueue did.
#[derive(Debug)]
pub struct Enqueued {
    pub job_id: Uuid,
    /// False when the idempotency key named an existing job (nothing was written).
    pub created: bool,
    /// The pieces of what was said stored with the job (`store_raw`).
    pub raw: Vec<PieceOutcome>,
}

/// What a job does. Each kind has one payload type, defined here, that
/// both the side that enqueues it and the worker that runs it use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobKind {
    /// Extract facts from messages (payload: the extraction request, built
    /// by the API's ingest use-case).
    Extract,
    /// Fold a session's turns that left its window into its summary
    /// ([`SummarizePayload`]).
    Summarize,
    /// A consolidation run ([`ConsolidatePayload`]).
    Consolidate,
}

impl JobKind {
    pub const ALL: [JobKind; 3] = [JobKind::Extract, JobKind::Summarize, JobKind::Consolidate];
    /// What the ordinary workers run: the work behind requests, which must
    /// not wait behind a consolidation run (that has a worker of its own).
    pub const REQUEST_WORK: [JobKind; 2] = [JobKind::Extract, JobKind::Summarize];

    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Extract => "extract",
            JobKind::Summarize => "summarize",
            JobKind::Consolidate => "consolidate",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

impl std::fmt::Display for JobKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Read from the `kind` column (held to these values by a CHECK).
impl TryFrom<String> for JobKind {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        Self::parse(&s).ok_or_else(|| format!("unknown job kind {s:?}"))
    }
}

/// The type a job of one kind carries: the one tie between a kind and its
/// payload, so an enqueue cannot pair them wrongly.
pub trait JobPayload: Serialize + DeserializeOwned + Send + Sync {
    const KIND: JobKind;
}

impl JobPayload for ExtractionRequest {
    const KIND: JobKind = JobKind::Extract;
}

impl JobPayload for SummarizePayload {
    const KIND: JobKind = JobKind::Summarize;
}

impl JobPayload for ConsolidatePayload {
    const KIND: JobKind = JobKind::Consolidate;
}

/// Why a claimed job's payload cannot be read.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PayloadError {
    #[error("a {job} job read as a {wanted} payload")]
    Kind { job: JobKind, wanted: JobKind },
    #[error("the job has no payload")]
    Missing,
    #[error("the job payload is unreadable: {0}")]
    Unreadable(String),
}

/// What a summarize job carries.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SummarizePayload {
    pub session_id: String,
    /// The last turn to fold in.
    pub through_seq: i64,
}

/// What a consolidation job carries: one user of the job's tenant, or
/// (`user_id` absent) everyone in every tenant.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ConsolidatePayload {
    pub user_id: Option<String>,
    pub dry_run: bool,
}

/// A finished consolidation job's one result: the run it made, or that
/// another run held the cluster lock.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum ConsolidateOutcome {
    Run { run_id: Uuid },
    Busy,
}

/// Inserts a job inside the caller's transaction and wakes the workers when
/// it commits; `None` when the idempotency key names an existing job. With
/// a `cap`, a new job is refused (`QueueFull`) while the tenant has that
/// many waiting (two enqueues at once may both pass at the edge); a retry
/// of a job already there is not.
pub(crate) async fn insert_job_in<P: JobPayload>(
    tx: &mut sqlx::PgConnection,
    tenant: Uuid,
    job: &NewJob<P>,
    cap: Option<i64>,
) -> Result<Option<Uuid>, StoreError> {
    let payload = serde_json::to_value(&job.payload)
        .map_err(|e| StoreError::Internal(format!("a job payload did not serialise: {e}")))?;
    if let Some(cap) = cap {
        let waiting: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM (SELECT 1 FROM jobs
              WHERE tenant_id = $1 AND status = 'queued' LIMIT $2) w",
        )
        .bind(tenant)
        .bind(cap)
        .fetch_one(&mut *tx)
        .await?;
        // Full: still the answer to a retry of a job already queued.
        let retry = match &job.idempotency_key {
            Some(key) if waiting >= cap => sqlx::query_scalar::<_, i32>(
                "SELECT 1 FROM jobs WHERE tenant_id = $1 AND idempotency_key = $2",
            )
            .bind(tenant)
            .bind(key)
            .fetch_optional(&mut *tx)
            .await?
            .is_some(),
            _ => false,
        };
        if waiting >= cap && !retry {
            return Err(StoreError::QueueFull(cap));
        }
    }
    let turn = user_turn(tx, tenant, job.scope.user_id.as_deref()).await?;
    let id: Option<Uuid> = sqlx::query_scalar(
        "INSERT INTO jobs (tenant_id, id, kind, user_id, agent_id, session_id, payload, idempotency_key, max_attempts, source_ref, request_fingerprint, user_turn)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
         ON CONFLICT (tenant_id, idempotency_key) DO NOTHING
         RETURNING id",
    )
    .bind(tenant)
    .bind(Uuid::now_v7())
    .bind(P::KIND.as_str())
    .bind(&job.scope.user_id)
    .bind(&job.scope.agent_id)
    .bind(&job.scope.session_id)
    .bind(&payload)
    .bind(&job.idempotency_key)
    .bind(job.max_attempts)
    .bind(&job.source_ref)
    .bind(&job.fingerprint)
    .bind(turn)
    .fetch_optional(&mut *tx)
    .await?;
    if id.is_some() {
        // Delivered at commit, so a worker never sees a job it cannot read.
        sqlx::query("SELECT pg_notify($1, '')")
            .bind(JOBS_CHANNEL)
            .execute(&mut *tx)
            .await?;
    }
    Ok(id)
}

/// A new job's turn among its tenant's users (start-time fair queuing): one
/// after its user's last waiting job, and never before the tenant's oldest
/// waiting turn, so a user new to the queue is served in the next round and
/// one who queued a burst takes a turn per round. Read apart from the
/// insert: Citus takes no subquery in an INSERT's values.
async fn user_turn(
    tx: &mut sqlx::PgConnection,
    tenant: Uuid,
    user: Option<&str>,
) -> Result<i64, StoreError> {
    let (users_last, tenants_first): (Option<i64>, Option<i64>) = sqlx::query_as(
        "SELECT (SELECT max(user_turn) FROM jobs WHERE tenant_id = $1
                   AND user_id IS NOT DISTINCT FROM $2 AND status IN ('queued', 'running')),
                (SELECT min(user_turn) FROM jobs WHERE tenant_id = $1
                   AND status IN ('queued', 'running'))",
    )
    .bind(tenant)
    .bind(user)
    .fetch_one(&mut *tx)
    .await?;
    Ok(users_last
        .map_or(0, |t| t + 1)
        .max(tenants_first.unwrap_or(0)))
}

/// Marks a job done with `results` (its payload cleared) inside the
/// caller's transaction; `NotFound` when it was deleted meanwhile (erasure,
/// a source purge).
pub(crate) async fn finish_job_in(
    tx: &mut sqlx::PgConnection,
    tenant: Uuid,
    id: Uuid,
    results: &serde_json::Value,
) -> Result<(), StoreError> {
    let done = sqlx::query(
        "UPDATE jobs SET status = 'done', results = $3, payload = NULL, finished_at = now(),
                locked_by = NULL, locked_until = NULL, last_error = NULL, updated_at = now()
         WHERE tenant_id = $1 AND id = $2",
    )
    .bind(tenant)
    .bind(id)
    .bind(results)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if done == 0 {
        return Err(StoreError::NotFound);
    }
    Ok(())
}

impl Store {
    /// Stores an extraction job and, in the same transaction, any raw memories.
    /// A repeated idempotency key returns the first job and writes nothing.
    pub async fn enqueue_extraction(
        &self,
        tenant: Uuid,
        job: &NewJob<ExtractionRequest>,
        said: &[NewPiece],
        retention: Retention,
        actor: &str,
    ) -> Result<Enqueued, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let named: Vec<(Option<&str>, &str)> =
            engram_core::named_sessions(&job.scope, job.source_ref.as_deref())
                .map(|s| (job.scope.user_id.as_deref(), s))
                .collect();
        refuse_foreign_sessions(&mut tx, tenant, &named).await?;
        // The pieces first, so the job names them; a retried request (its
        // idempotency key known) rolls them back with everything else.
        let raw = insert_pieces_in(&mut tx, tenant, said, &[], actor, retention).await?;
        let mut job = job.clone();
        job.payload.evidence = crate::memories::evidence(&raw);
        let id = insert_job_in(&mut tx, tenant, &job, self.queue_cap).await?;
        let Some(job_id) = id else {
            let (existing, fingerprint): (Uuid, Option<String>) = sqlx::query_as(
                "SELECT id, request_fingerprint FROM jobs WHERE tenant_id = $1 AND idempotency_key = $2",
            )
            .bind(tenant)
            .bind(&job.idempotency_key)
            .fetch_one(&mut *tx)
            .await?;
            // Jobs from before fingerprints (NULL) are taken as the same request.
            if fingerprint.is_some() && fingerprint != job.fingerprint {
                return Err(StoreError::IdempotencyKeyReused);
            }
            return Ok(Enqueued {
                job_id: existing,
                created: false,
                raw: Vec::new(),
            });
        };
        tx.commit().await?;
        Ok(Enqueued {
            job_id,
            created: true,
            raw,
        })
    }

    /// Enqueues a consolidation run; its job row names the user (so erasing
    /// them removes it too).
    pub async fn enqueue_consolidation(
        &self,
        tenant: Uuid,
        payload: &ConsolidatePayload,
    ) -> Result<Uuid, StoreError> {
        let job = NewJob {
            scope: engram_core::Scope {
                user_id: payload.user_id.clone(),
                ..Default::default()
            },
            payload: payload.clone(),
            idempotency_key: None,
            fingerprint: None,
            // A run resumes where it stopped; one attempt more is enough.
            max_attempts: 2,
            source_ref: None,
        };
        let mut tx = self.tenant_tx(tenant).await?;
        // An operator's run: not bounded by the tenants' queue cap.
        let id = insert_job_in(&mut tx, tenant, &job, None)
            .await?
            .ok_or_else(|| StoreError::Internal("the job was not created".into()))?;
        tx.commit().await?;
        Ok(id)
    }

    /// Ends a job that wrote its work elsewhere (a consolidation) with
    /// `results`; `NotFound` when it was deleted meanwhile.
    pub async fn finish_job(
        &self,
        tenant: Uuid,
        id: Uuid,
        results: &serde_json::Value,
    ) -> Result<(), StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        finish_job_in(&mut tx, tenant, id, results).await?;
        tx.commit().await?;
        Ok(())
    }

    /// Holds a claimed job for `secs` from now (long work such as a
    /// consolidation run, which heartbeats on its own record).
    pub async fn extend_lease(&self, id: Uuid, secs: f64) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE jobs SET locked_until = now() + make_interval(secs => $2) WHERE id = $1",
        )
        .bind(id)
        .bind(secs)
        .execute(&self.pool)
        .await?;
        Ok(())
    }

    pub async fn get_job(&self, tenant: Uuid, id: Uuid) -> Result<JobRow, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let job = sqlx::query_as(&format!(
            "SELECT {JOB_COLUMNS} FROM jobs WHERE tenant_id = $1 AND id = $2"
        ))
        .bind(tenant)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?;
        tx.commit().await?;
        Ok(job)
    }

    /// One tenant's jobs, newest first, narrowed by owner, status and kind
    /// (the operations view; `GET /v1/jobs`).
    pub async fn list_jobs(&self, tenant: Uuid, q: &JobQuery) -> Result<Vec<JobRow>, StoreError> {
        let mut b: QueryBuilder<'_, Postgres> =
            QueryBuilder::new(format!("SELECT {JOB_COLUMNS} FROM jobs WHERE tenant_id = "));
        b.push_bind(tenant);
        for (column, value) in [
            ("user_id", &q.user_id),
            ("agent_id", &q.agent_id),
            ("session_id", &q.session_id),
        ] {
            if let Some(v) = value {
                b.push(format!(" AND {column} = ")).push_bind(v.clone());
            }
        }
        if let Some(s) = q.status {
            b.push(" AND status = ").push_bind(s.as_str());
        }
        if let Some(k) = q.kind {
            b.push(" AND kind = ").push_bind(k.as_str());
        }
        if let Some((at, id)) = q.before {
            b.push(" AND (created_at, id) < (")
                .push_bind(at)
                .push(", ")
                .push_bind(id)
                .push(")");
        }
        b.push(" ORDER BY created_at DESC, id DESC LIMIT ")
            .push_bind(q.limit as i64);
        let mut tx = self.tenant_tx(tenant).await?;
        let jobs = b.build_query_as().fetch_all(&mut *tx).await?;
        tx.commit().await?;
        Ok(jobs)
    }

    /// Jobs waiting or running, by kind and status, with the age of the
    /// oldest (every tenant: for metrics).
    pub async fn queue_stats(&self) -> Result<Vec<QueueStat>, StoreError> {
        Ok(sqlx::query_as(
            "SELECT kind, status, count(*) AS count,
                    coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest_age_secs
             FROM jobs WHERE status IN ('queued', 'running') GROUP BY kind, status",
        )
        .fetch_all(&self.pool)
        .await?)
    }

    /// Takes the next runnable job of one of `kinds` (queued and due, or
    /// running with an expired lease) for `lease_secs`, counting an attempt. A job whose
    /// lease ran out on its last attempt (its worker died or hung on it,
    /// perhaps because of the job itself) is failed first and never handed
    /// out again.
    pub async fn claim_job(
        &self,
        worker: &str,
        lease_secs: f64,
        kinds: &[JobKind],
    ) -> Result<Option<JobRow>, StoreError> {
        let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
        let spent = sqlx::query(
            "UPDATE jobs SET status = 'failed', finished_at = now(), updated_at = now(),
                    locked_by = NULL, locked_until = NULL,
                    last_error = 'the lease ran out on the last attempt (' || attempts::text || ' of '
                        || max_attempts::text || '): the worker stopped or hung while running it'
             WHERE status = 'running' AND locked_until < now() AND attempts >= max_attempts",
        )
        .execute(&self.pool)
        .await?;
        if spent.rows_affected() > 0 {
            tracing::warn!(
                jobs = spent.rows_affected(),
                "failed jobs whose lease ran out on their last attempt"
            );
        }
        // Fair turns (issue 51): the tenants with work, the one served longest
        // ago first; then, within a tenant, its jobs by their users' turns
        // (`user_turn`), oldest first. Each candidate is claimed by a
        // conditional single-row UPDATE that re-checks it is still claimable:
        // of two workers racing for one job, the second's UPDATE waits for the
        // first's, re-reads the row and matches nothing. (No FOR UPDATE SKIP
        // LOCKED: Citus refuses it across shards; the UPDATE is one shard's.)
        let tenants: Vec<Uuid> = sqlx::query_scalar(
            "SELECT w.tenant_id FROM (
                 SELECT DISTINCT tenant_id FROM jobs
                 WHERE ((status = 'queued' AND run_at <= now())
                        OR (status = 'running' AND locked_until < now()))
                   AND attempts < max_attempts AND kind = ANY($2)
             ) w LEFT JOIN job_turns t ON t.tenant_id = w.tenant_id
             ORDER BY t.served_at NULLS FIRST, w.tenant_id
             LIMIT $1",
        )
        .bind(CLAIM_CANDIDATES)
        .bind(&kinds)
        .fetch_all(&self.pool)
        .await?;
        for tenant in tenants {
            let candidates: Vec<Uuid> = sqlx::query_scalar(
                "SELECT id FROM jobs
                 WHERE tenant_id = $3
                   AND ((status = 'queued' AND run_at <= now())
                        OR (status = 'running' AND locked_until < now()))
                   AND attempts < max_attempts AND kind = ANY($2)
                 ORDER BY user_turn, run_at
                 LIMIT $1",
            )
            .bind(CLAIM_CANDIDATES)
            .bind(&kinds)
            .bind(tenant)
            .fetch_all(&self.pool)
            .await?;
            for id in candidates {
                let row: Option<JobRow> = sqlx::query_as(&format!(
                    "UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $3,
                            locked_until = now() + make_interval(secs => $4), updated_at = now()
                     WHERE tenant_id = $1 AND id = $2
                       AND ((status = 'queued' AND run_at <= now())
                            OR (status = 'running' AND locked_until < now()))
                       AND attempts < max_attempts
                     RETURNING {JOB_COLUMNS}"
                ))
                .bind(tenant)
                .bind(id)
                .bind(worker)
                .bind(lease_secs)
                .fetch_optional(&self.pool)
                .await?;
                if row.is_some() {
                    // The time as a parameter: Citus evaluates no clock in
                    // a distributed table's upsert.
                    sqlx::query(
                        "INSERT INTO job_turns (tenant_id, served_at) VALUES ($1, $2)
                         ON CONFLICT (tenant_id) DO UPDATE SET served_at = EXCLUDED.served_at",
                    )
                    .bind(tenant)
                    .bind(Utc::now())
                    .execute(&self.pool)
                    .await?;
                    return Ok(row);
                }
            }
        }
        Ok(None)
    }

    /// Records a failed attempt: retried after `retry_in_secs`, or failed for
    /// good once attempts reach the maximum or at once when `give_up` (a
    /// failure retrying will not mend, such as a model answer that stayed
    /// unusable after its repair). A failed job keeps its payload, so
    /// [`Store::retry_job`] can run it again once the cause is fixed.
    /// `None` when the job no longer exists (its user was erased meanwhile).
    pub async fn fail_job(
        &self,
        tenant: Uuid,
        id: Uuid,
        error: &str,
        retry_in_secs: f64,
        give_up: bool,
    ) -> Result<Option<JobStatus>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let status: Option<String> = sqlx::query_scalar(
            "UPDATE jobs SET
                status = CASE WHEN attempts >= max_attempts OR $6 THEN 'failed' ELSE 'queued' END,
                run_at = now() + make_interval(secs => $4),
                finished_at = CASE WHEN attempts >= max_attempts OR $6 THEN $5 END,
                last_error = $3, locked_by = NULL, locked_until = NULL, updated_at = now()
             WHERE tenant_id = $1 AND id = $2
             RETURNING status",
        )
        .bind(tenant)
        .bind(id)
        .bind(error)
        .bind(retry_in_secs)
        // A parameter: Citus refuses now() in a CASE.
        .bind(chrono::Utc::now())
        .bind(give_up)
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(status.map(|s| JobStatus::parse(&s).unwrap_or(JobStatus::Failed)))
    }

    /// Queues a failed job again with its attempts reset (`POST
    /// /v1/jobs/{id}/retry`); its last error stays until the next attempt
    /// ends. `NotFound` when there is no such job; `JobNotFailed` when it
    /// is queued, running or done.
    pub async fn retry_job(&self, tenant: Uuid, id: Uuid) -> Result<JobRow, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let row: Option<JobRow> = sqlx::query_as(&format!(
            "UPDATE jobs SET status = 'queued', attempts = 0, run_at = now(), finished_at = NULL,
                    locked_by = NULL, locked_until = NULL, updated_at = now()
             WHERE tenant_id = $1 AND id = $2 AND status = 'failed' AND payload IS NOT NULL
             RETURNING {JOB_COLUMNS}"
        ))
        .bind(tenant)
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
        let Some(row) = row else {
            let status: Option<(String, bool)> = sqlx::query_as(
                "SELECT status, payload IS NOT NULL FROM jobs WHERE tenant_id = $1 AND id = $2",
            )
            .bind(tenant)
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
            return Err(match status {
                None => StoreError::NotFound,
                Some((status, with_payload)) => StoreError::Conflict(
                    ConflictKind::JobNotFailed,
                    if status == "failed" && !with_payload {
                        "it failed before failed jobs kept their input; add the messages again"
                            .to_owned()
                    } else {
                        format!("it is {status}; only a failed job can be retried")
                    },
                ),
            });
        };
        sqlx::query("SELECT pg_notify($1, '')")
            .bind(JOBS_CHANNEL)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Jobs waiting to run, and the age in seconds of the oldest.
    pub async fn queue_depth(&self) -> Result<(i64, f64), StoreError> {
        let (n, age): (i64, Option<f64>) = sqlx::query_as(
            "SELECT count(*), extract(epoch FROM now() - min(created_at))::float8 FROM jobs WHERE status IN ('queued', 'running')",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok((n, age.unwrap_or(0.0)))
    }
}
