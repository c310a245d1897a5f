//! The queue: claims under a lease, retries with backoff, the last attempt,
//! idempotency keys, and kinds tied to their payloads.

use std::collections::HashMap;
use std::time::Duration;

use engram_core::extract::ExtractionRequest;
use engram_core::{JobStatus, NewMemory, DEFAULT_TENANT};
use engram_store::{
    ConsolidatePayload, JobKind, NewJob, PayloadError, StoreError, SummarizePayload,
};
use sqlx::PgPool;

use super::{enqueue, extraction, store, vector};

#[sqlx::test(migrations = false)]
async fn racing_workers_claim_each_job_exactly_once(pool: PgPool) {
    let store = store(pool).await;
    let mut ids = Vec::new();
    for n in 0..40 {
        ids.push(enqueue(&store, &extraction("u", &format!("I like tea number {n}."))).await);
    }
    let claimers = (0..6).map(|w| {
        let store = store.clone();
        tokio::spawn(async move {
            let mut mine = Vec::new();
            while let Some(job) = store
                .claim_job(&format!("w{w}"), 60.0, &JobKind::ALL)
                .await
                .unwrap()
            {
                mine.push(job);
            }
            mine
        })
    });
    let mut claimed: HashMap<uuid::Uuid, usize> = HashMap::new();
    for c in claimers {
        for job in c.await.unwrap() {
            assert_eq!(job.status, JobStatus::Running);
            assert_eq!(job.attempts, 1);
            assert_eq!(job.kind, JobKind::Extract);
            *claimed.entry(job.id).or_default() += 1;
        }
    }
    assert_eq!(claimed.len(), ids.len(), "every job was claimed");
    assert!(claimed.values().all(|&n| n == 1), "{claimed:?}");
}

#[sqlx::test(migrations = false)]
async fn an_expired_lease_is_claimed_again_and_counts_an_attempt(pool: PgPool) {
    let store = store(pool).await;
    let id = enqueue(&store, &extraction("u", "I live in Oslo.")).await;
    let first = store
        .claim_job("a", 0.2, &JobKind::ALL)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((first.id, first.attempts), (id, 1));
    // Held: nobody else gets it while the lease runs.
    assert!(store
        .claim_job("b", 60.0, &JobKind::ALL)
        .await
        .unwrap()
        .is_none());
    tokio::time::sleep(Duration::from_millis(400)).await;
    let again = store
        .claim_job("b", 60.0, &JobKind::ALL)
        .await
        .unwrap()
        .unwrap();
    assert_eq!((again.id, again.attempts), (id, 2));
}

#[sqlx::test(migrations = false)]
async fn a_lease_that_runs_out_on_the_last_attempt_fails_the_job(pool: PgPool) {
    let store = store(pool).await;
    let job = NewJob {
        max_attempts: 1,
        ..extraction("u", "I live in Oslo.")
    };
    let id = enqueue(&store, &job).await;
    store
        .claim_job("a", 0.1, &JobKind::ALL)
        .await
        .unwrap()
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(store
        .claim_job("b", 60.0, &JobKind::ALL)
        .await
        .unwrap()
        .is_none());
    let row = store.get_job(DEFAULT_TENANT, id).await.unwrap();
    assert_eq!(row.status, JobStatus::Failed);
    assert!(
        row.payload.is_some(),
        "a failed job keeps its input for a retry"
    );
    assert!(row.last_error.unwrap().contains("lease ran out"));
}

#[sqlx::test(migrations = false)]
async fn a_failure_is_retried_after_its_backoff_then_fails_for_good(pool: PgPool) {
    let store = store(pool).await;
    let job = NewJob {
        max_attempts: 2,
        ..extraction("u", "I live in Oslo.")
    };
    let id = enqueue(&store, &job).await;
    store
        .claim_job("a", 60.0, &JobKind::ALL)
        .await
        .unwrap()
        .unwrap();
    let status = store
        .fail_job(DEFAULT_TENANT, id, "model down", 30.0, false)
        .await
        .unwrap();
    assert_eq!(status, Some(JobStatus::Queued));
    // Not due before its backoff.
    assert!(store
        .claim_job("a", 60.0, &JobKind::ALL)
        .await
        .unwrap()
        .is_none());
    sqlx::query("UPDATE jobs SET run_at = now() WHERE id = $1")
        .bind(id)
        .execute(store.pool())
        .await
        .unwrap();
    let again = store
        .claim_job("a", 60.0, &JobKind::ALL)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.attempts, 2);
    let status = store
        .fail_job(DEFAULT_TENANT, id, "model down again", 0.0, false)
        .await
        .unwrap();
    assert_eq!(status, Some(JobStatus::Failed));
    let row = store.get_job(DEFAULT_TENANT, id).await.unwrap();
    assert_eq!(row.last_error.as_deref(), Some("model down again"));
    // Failed, it keeps its input: a retry runs it again from attempt 1.
    assert!(row.payload.is_some() && row.finished_at.is_some());
    assert!(store
        .claim_job("a", 60.0, &JobKind::ALL)
        .await
        .unwrap()
        .is_none());
    let retried = store.retry_job(DEFAULT_TENANT, id).await.unwrap();
    assert_eq!((retried.status, retried.attempts), (JobStatus::Queued, 0));
    assert!(matches!(
        store.retry_job(DEFAULT_TENANT, id).await,
        Err(engram_store::StoreError::Conflict(
            engram_store::ConflictKind::JobNotFailed,
            _
        ))
    ));
    let again = store
        .claim_job("a", 60.0, &JobKind::ALL)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.attempts, 1);
    // Given up at once: failed on its first attempt.
    let status = store
        .fail_job(DEFAULT_TENANT, id, "unusable answer", 30.0, true)
        .await
        .unwrap();
    assert_eq!(status, Some(JobStatus::Failed));
    // A job deleted meanwhile (an erasure) reports that it is gone.
    sqlx::query("DELETE FROM jobs")
        .execute(store.pool())
        .await
        .unwrap();
    assert_eq!(
        store
            .fail_job(DEFAULT_TENANT, id, "x", 0.0, false)
            .await
            .unwrap(),
        None
    );
}

#[sqlx::test(migrations = false)]
async fn an_idempotency_key_returns_the_first_job_and_refuses_another_request(pool: PgPool) {
    let store = store(pool).await;
    let keyed = |fingerprint: &str| NewJob {
        idempotency_key: Some("client:k1".into()),
        fingerprint: Some(fingerprint.into()),
        ..extraction("u", "I live in Oslo.")
    };
    let raw = |text: &str| {
        vec![engram_store::NewPiece {
            memory: NewMemory {
                scope: super::scope("u"),
                kind: engram_core::MemoryKind::Episodic,
                content: text.into(),
                importance: 0.5,
                source: engram_core::Source {
                    source_type: engram_core::SourceType::UserStated,
                    source_ref: None,
                },
                metadata: serde_json::json!({}),
                pinned: false,
                expires_at: None,
                created_at: None,
            },
            embedding: vector(1),
            by: engram_core::Speaker::User,
            message: 0,
            seq: None,
            piece: 0,
            pieces: 1,
            sensitivity: None,
            name: None,
        }]
    };
    let first = store
        .enqueue_extraction(
            DEFAULT_TENANT,
            &keyed("f1"),
            &raw("I live in Oslo."),
            None,
            "test",
        )
        .await
        .unwrap();
    assert!(first.created && first.raw.len() == 1);
    // The job names the piece kept with it, for the facts it reads.
    let evidence: serde_json::Value =
        sqlx::query_scalar("SELECT payload->'evidence' FROM jobs WHERE id = $1")
            .bind(first.job_id)
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!(
        evidence,
        serde_json::json!([{"message": 0, "memory_id": first.raw[0].id}])
    );

    let repeat = store
        .enqueue_extraction(
            DEFAULT_TENANT,
            &keyed("f1"),
            &raw("I live in Bergen."),
            None,
            "test",
        )
        .await
        .unwrap();
    assert!(!repeat.created && repeat.raw.is_empty());
    assert_eq!(repeat.job_id, first.job_id);
    let other = store
        .enqueue_extraction(
            DEFAULT_TENANT,
            &keyed("f2"),
            &raw("I live in Bergen."),
            None,
            "test",
        )
        .await;
    assert!(
        matches!(other, Err(StoreError::IdempotencyKeyReused)),
        "{other:?}"
    );
    let (jobs, memories): (i64, i64) =
        sqlx::query_as("SELECT (SELECT count(*) FROM jobs), (SELECT count(*) FROM memories)")
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!((jobs, memories), (1, 1), "a repeat writes nothing");
}

#[sqlx::test(migrations = false)]
async fn a_lane_claims_only_its_kinds_and_a_payload_reads_only_as_its_kind(pool: PgPool) {
    let store = store(pool).await;
    enqueue(&store, &extraction("u", "I live in Oslo.")).await;
    let payload = ConsolidatePayload {
        user_id: Some("u".into()),
        dry_run: true,
    };
    let run = store
        .enqueue_consolidation(DEFAULT_TENANT, &payload)
        .await
        .unwrap();
    let job = store
        .claim_job("c", 60.0, &[JobKind::Consolidate])
        .await
        .unwrap()
        .unwrap();
    assert_eq!((job.id, job.kind), (run, JobKind::Consolidate));
    assert_eq!(job.payload::<ConsolidatePayload>().unwrap(), payload);
    assert_eq!(
        job.payload::<ExtractionRequest>().unwrap_err(),
        PayloadError::Kind {
            job: JobKind::Consolidate,
            wanted: JobKind::Extract
        }
    );
    assert!(matches!(
        job.payload::<SummarizePayload>(),
        Err(PayloadError::Kind { .. })
    ));
    assert!(store
        .claim_job("c", 60.0, &[JobKind::Consolidate])
        .await
        .unwrap()
        .is_none());
    let extract = store
        .claim_job("w", 60.0, &JobKind::REQUEST_WORK)
        .await
        .unwrap()
        .unwrap();
    let request: ExtractionRequest = extract.payload().unwrap();
    assert_eq!(request.messages[0].content, "I live in Oslo.");
}

/// Claims until the queue is empty, finishing each: the (tenant, user) of
/// every job, in the order the workers took them.
async fn drain(store: &engram_store::Store) -> Vec<(uuid::Uuid, String)> {
    let mut order = Vec::new();
    while let Some(job) = store.claim_job("w", 60.0, &JobKind::ALL).await.unwrap() {
        order.push((job.tenant_id, job.user_id.clone().unwrap_or_default()));
        store
            .finish_job(job.tenant_id, job.id, &serde_json::json!([]))
            .await
            .unwrap();
    }
    order
}

/// A burst of one tenant does not hold up another: the queue serves the
/// tenant served longest ago, so a bystander's job is taken next.
#[sqlx::test(migrations = false)]
async fn a_bystander_tenant_is_served_next_not_after_a_burst(pool: PgPool) {
    let store = store(pool).await;
    let bystander = store.ensure_tenant("bystander").await.unwrap();
    for n in 0..30 {
        enqueue(
            &store,
            &extraction("busy", &format!("I like tea number {n}.")),
        )
        .await;
    }
    // The burst's tenant is being served when the bystander's job arrives.
    let first = store
        .claim_job("w", 60.0, &JobKind::ALL)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.tenant_id, DEFAULT_TENANT);
    store
        .finish_job(first.tenant_id, first.id, &serde_json::json!([]))
        .await
        .unwrap();
    store
        .enqueue_extraction(
            bystander,
            &extraction("calm", "I live in Oslo."),
            &[],
            None,
            "t",
        )
        .await
        .unwrap();
    let order = drain(&store).await;
    assert_eq!(order.len(), 30);
    assert_eq!(order[0], (bystander, "calm".to_owned()), "{order:?}");
}

/// Within a tenant, each user in turn: a user who queued a burst takes one
/// turn per round, and a user's own jobs keep their order.
#[sqlx::test(migrations = false)]
async fn users_of_a_tenant_take_turns_and_keep_their_own_order(pool: PgPool) {
    let store = store(pool).await;
    let mut burst = Vec::new();
    for n in 0..10 {
        burst.push(
            enqueue(
                &store,
                &extraction("ann", &format!("I like tea number {n}.")),
            )
            .await,
        );
    }
    // Two of ann's jobs run before bob and cy queue theirs.
    for _ in 0..2 {
        let job = store
            .claim_job("w", 60.0, &JobKind::ALL)
            .await
            .unwrap()
            .unwrap();
        store
            .finish_job(job.tenant_id, job.id, &serde_json::json!([]))
            .await
            .unwrap();
    }
    enqueue(&store, &extraction("bob", "I live in Oslo.")).await;
    enqueue(&store, &extraction("bob", "I work at Acme.")).await;
    enqueue(&store, &extraction("cy", "I have a dog.")).await;
    let mut ann_order = Vec::new();
    let mut order = Vec::new();
    while let Some(job) = store.claim_job("w", 60.0, &JobKind::ALL).await.unwrap() {
        let user = job.user_id.clone().unwrap();
        if user == "ann" {
            ann_order.push(job.id);
        }
        order.push(user);
        store
            .finish_job(job.tenant_id, job.id, &serde_json::json!([]))
            .await
            .unwrap();
    }
    // Round one: ann, bob, cy; round two: ann, bob; then ann's rest.
    assert_eq!(&order[..5], ["ann", "bob", "cy", "ann", "bob"], "{order:?}");
    assert!(order[5..].iter().all(|u| u == "ann"), "{order:?}");
    assert_eq!(
        ann_order,
        burst[2..],
        "ann's jobs ran in the order she sent them"
    );
}

/// A tenant with `cap` jobs waiting cannot queue another: refused, nothing
/// written; another tenant still can, and so can the first once one ran.
#[sqlx::test(migrations = false)]
async fn a_tenant_past_its_queue_cap_is_refused_and_nothing_is_written(pool: PgPool) {
    let store = store(pool).await.with_queue_cap(Some(3));
    for n in 0..2 {
        enqueue(&store, &extraction("u", &format!("I like tea number {n}."))).await;
    }
    let keyed = NewJob {
        idempotency_key: Some("k1".into()),
        ..extraction("u", "I have a dog.")
    };
    enqueue(&store, &keyed).await;
    let refused = store
        .enqueue_extraction(
            DEFAULT_TENANT,
            &extraction("u", "I live in Oslo."),
            &[],
            None,
            "t",
        )
        .await;
    assert!(
        matches!(refused, Err(StoreError::QueueFull(3))),
        "{refused:?}"
    );
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM jobs")
        .fetch_one(store.pool())
        .await
        .unwrap();
    assert_eq!(count, 3, "the refused job was not written");
    let other = store.ensure_tenant("other").await.unwrap();
    store
        .enqueue_extraction(other, &extraction("u", "I live in Oslo."), &[], None, "t")
        .await
        .expect("another tenant queues");
    // Full, a retry of a job already queued still answers with that job.
    let again = store
        .enqueue_extraction(DEFAULT_TENANT, &keyed, &[], None, "t")
        .await
        .expect("a retry is not refused");
    assert!(!again.created);
    drain(&store).await;
    store
        .enqueue_extraction(
            DEFAULT_TENANT,
            &extraction("u", "I have a cat."),
            &[],
            None,
            "t",
        )
        .await
        .expect("room again once its jobs ran");
}
