//! An extraction's one transaction: all of a job's changes and its result
//! commit together, or none do; a job erased first leaves nothing behind.

use chrono::Utc;
use engram_core::extract::{Candidate, FactAction};
use engram_core::{JobStatus, MemoryKind, Source, SourceType, DEFAULT_TENANT};
use engram_store::{FactContext, JobKind, Store, StoreError};
use sqlx::PgPool;
use uuid::Uuid;

use super::{enqueue, extraction, scope, store, vector};

fn candidate(attribute: &str, value: &str, statement: &str) -> Candidate {
    Candidate {
        statement: statement.into(),
        kind: MemoryKind::Semantic,
        subject: "user".into(),
        attribute: attribute.into(),
        value: value.into(),
        importance: 0.6,
        confidence: 0.9,
        sensitivity: None,
        expires_at: None,
        stated: true,
        message_index: 0,
        action: FactAction::Assert,
        replaces: None,
    }
}

fn context(job_id: Uuid) -> FactContext {
    FactContext {
        job_id,
        source: Source {
            source_type: SourceType::UserStated,
            source_ref: Some(format!("job:{job_id}")),
        },
        source_message: "I live in Oslo.".into(),
        said_at: Utc::now(),
        extractor: "rules".into(),
        model: None,
        prompt_version: None,
        actor: format!("job:{job_id}"),
        evidence_id: None,
    }
}

async fn claimed_job(store: &Store, text: &str) -> Uuid {
    let id = enqueue(store, &extraction("u", text)).await;
    let job = store
        .claim_job("w", 60.0, &[JobKind::Extract])
        .await
        .unwrap()
        .unwrap();
    assert_eq!(job.id, id);
    id
}

async fn count(store: &Store, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(store.pool())
        .await
        .unwrap()
}

#[sqlx::test(migrations = false)]
async fn a_transaction_not_finished_leaves_nothing(pool: PgPool) {
    let store = store(pool).await;
    let job = claimed_job(&store, "I live in Oslo.").await;
    let c = candidate("location.city", "Oslo", "User lives in Oslo.");
    let mut tx = store
        .begin_extraction(DEFAULT_TENANT, scope("u"), job, Utc::now())
        .await
        .unwrap();
    assert!(tx
        .add(&c, &vector(3), &context(job), "new")
        .await
        .unwrap()
        .is_some());
    drop(tx); // a crash before the commit
    assert_eq!(count(&store, "SELECT count(*) FROM memories").await, 0);
    assert_eq!(
        count(&store, "SELECT count(*) FROM memory_history").await,
        0
    );
    let row = store.get_job(DEFAULT_TENANT, job).await.unwrap();
    assert_eq!(
        row.status,
        JobStatus::Running,
        "taken again after its lease"
    );
    assert!(row.payload.is_some());
}

#[sqlx::test(migrations = false)]
async fn a_finished_transaction_writes_facts_history_and_result_together(pool: PgPool) {
    let store = store(pool).await;
    let job = claimed_job(&store, "I live in Dallas.").await;
    let dallas = candidate("location.city", "Dallas", "User lives in Dallas.");
    let mut tx = store
        .begin_extraction(DEFAULT_TENANT, scope("u"), job, Utc::now())
        .await
        .unwrap();
    let first = tx
        .add(&dallas, &vector(3), &context(job), "new")
        .await
        .unwrap()
        .unwrap();
    tx.finish(&serde_json::json!([{"event": "ADD"}]))
        .await
        .unwrap();
    let row = store.get_job(DEFAULT_TENANT, job).await.unwrap();
    assert_eq!(row.status, JobStatus::Done);
    assert!(row.payload.is_none(), "a finished job keeps no messages");
    assert_eq!(row.results, serde_json::json!([{"event": "ADD"}]));

    // The next job supersedes it, inside its own transaction.
    let job2 = claimed_job(&store, "I moved to Austin.").await;
    let austin = candidate("location.city", "Austin", "User lives in Austin.");
    let mut tx = store
        .begin_extraction(DEFAULT_TENANT, scope("u"), job2, Utc::now())
        .await
        .unwrap();
    let known = tx.known(&austin, &vector(4), 5).await.unwrap();
    assert!(
        known.iter().any(|k| k.id == first),
        "the held fact is known"
    );
    let second = tx
        .add(&austin, &vector(4), &context(job2), "new value")
        .await
        .unwrap()
        .unwrap();
    let old = tx
        .supersede(&[first], second, &austin, &context(job2), "new value")
        .await
        .unwrap();
    assert_eq!(old, vec![(first, "User lives in Dallas.".to_owned())]);
    tx.finish(&serde_json::json!([])).await.unwrap();
    let superseded: Option<Uuid> =
        sqlx::query_scalar("SELECT superseded_by FROM memories WHERE id = $1")
            .bind(first)
            .fetch_one(store.pool())
            .await
            .unwrap();
    assert_eq!(superseded, Some(second));
    let events: Vec<String> = sqlx::query_scalar(
        "SELECT event FROM memory_history WHERE memory_id = $1 ORDER BY created_at",
    )
    .bind(first)
    .fetch_all(store.pool())
    .await
    .unwrap();
    assert_eq!(events, ["ADD", "SUPERSEDE"]);
}

#[sqlx::test(migrations = false)]
async fn a_job_erased_first_cannot_write_its_facts_back(pool: PgPool) {
    let store = store(pool).await;
    let job = claimed_job(&store, "I live in Oslo.").await;
    sqlx::query("DELETE FROM jobs WHERE id = $1")
        .bind(job)
        .execute(store.pool())
        .await
        .unwrap();
    let begun = store
        .begin_extraction(DEFAULT_TENANT, scope("u"), job, Utc::now())
        .await;
    assert!(matches!(begun, Err(StoreError::NotFound)));
    assert_eq!(count(&store, "SELECT count(*) FROM memories").await, 0);
}

#[sqlx::test(migrations = false)]
async fn an_erasure_waits_for_a_running_extraction(pool: PgPool) {
    let store = store(pool).await;
    let job = claimed_job(&store, "I live in Oslo.").await;
    let c = candidate("location.city", "Oslo", "User lives in Oslo.");
    let mut tx = store
        .begin_extraction(DEFAULT_TENANT, scope("u"), job, Utc::now())
        .await
        .unwrap();
    tx.add(&c, &vector(3), &context(job), "new").await.unwrap();
    // The job row is locked until the commit: a delete of it waits.
    let pool = store.pool().clone();
    let delete = tokio::spawn(async move {
        sqlx::query("DELETE FROM jobs WHERE id = $1")
            .bind(job)
            .execute(&pool)
            .await
            .unwrap()
            .rows_affected()
    });
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!delete.is_finished(), "the delete waits for the extraction");
    tx.finish(&serde_json::json!([])).await.unwrap();
    assert_eq!(delete.await.unwrap(), 1);
}
