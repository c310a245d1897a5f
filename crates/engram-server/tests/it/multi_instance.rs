//! Several processes on one database (docs/SCALING.md): two servers, each
//! with its workers, and a third worker pool, share one job queue; every
//! job runs once. Replicas whose nightly timers fire at different moments
//! make one consolidation run per occurrence.

use std::sync::Arc;

use crate::common::{fast_workers, spawn_app, TestApp};
use engram_core::SystemClock;
use engram_store::Store;
use engram_worker::{ConsolidationSettings, Consolidator};
use reqwest::StatusCode;
use serde_json::json;
use sqlx::PgPool;

#[sqlx::test(migrations = false)]
async fn every_job_runs_once_across_instances(pool: PgPool) {
    let a = TestApp::builder(pool.clone())
        .workers(fast_workers(2))
        .spawn()
        .await;
    let b = TestApp::builder(pool.clone())
        .workers(fast_workers(2))
        .spawn()
        .await;
    // A third process with workers only, as `engram worker` is.
    let (_stop, stopped) = tokio::sync::watch::channel(false);
    engram_worker::spawn_workers(
        Arc::new(engram_server::job_handlers(
            Store::new(pool.clone()),
            crate::common::embedder(),
            Arc::new(engram_core::extract::RulesExtractor),
            Arc::new(SystemClock),
        )),
        fast_workers(2),
        stopped,
    );
    let cities = [
        "Lisbon", "Oslo", "Quito", "Hanoi", "Accra", "Lima", "Perth", "Riga",
    ];
    let n = 32;
    for i in 0..n {
        let app = if i % 2 == 0 { &a } else { &b };
        let r = app
            .post(
                "/v1/memories",
                json!({"user_id": format!("u{i}"), "messages": [
                    {"role": "user", "content": format!("I live in {}.", cities[i % cities.len()])}]}),
            )
            .await;
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    }
    a.settle().await;
    let (done, once): (i64, i64) = sqlx::query_as(
        "SELECT count(*) FILTER (WHERE status = 'done'), count(*) FILTER (WHERE attempts = 1) FROM jobs",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        (done, once),
        (n as i64, n as i64),
        "every job done, in one attempt"
    );
    // Facts only: each message is also kept as it was said, by its request.
    let (memories, adds): (i64, i64) = sqlx::query_as(
        "SELECT (SELECT count(*) FROM memories WHERE said_by IS NULL),
                (SELECT count(*) FROM memory_history h JOIN memories m ON m.id = h.memory_id
                 WHERE h.event = 'ADD' AND m.said_by IS NULL)",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(
        (memories, adds),
        (n as i64, n as i64),
        "each fact added once"
    );
    println!("{n} jobs over 3 processes (6 workers): {done} done, {once} in one attempt, {memories} memories, {adds} ADDs");
    // Stop the third process's workers before the database goes.
    _stop.send(true).unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
}

#[sqlx::test(migrations = false)]
async fn replicas_make_one_scheduled_run_per_occurrence(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    app.add_text("ann", "I like tea.").await;
    let replica = || Consolidator {
        store: Store::new(pool.clone()),
        clock: Arc::new(SystemClock),
        settings: ConsolidationSettings::default(),
        reviewer: None,
    };
    let occurrence = chrono::Utc::now();
    // Two replicas' timers fire together: one runs, the other skips (on the
    // lock, or on the record if the first has already finished).
    let (x, y) = (replica(), replica());
    let (rx, ry) = tokio::join!(x.run_occurrence(occurrence), y.run_occurrence(occurrence));
    let ran = [rx.unwrap(), ry.unwrap()]
        .iter()
        .filter(|r| r.is_some())
        .count();
    assert_eq!(ran, 1, "one of two simultaneous replicas runs");
    // A third replica's timer fires after that run has finished.
    let late = replica().run_occurrence(occurrence).await.unwrap();
    assert!(late.is_none(), "the late replica skips the occurrence");
    let runs: i64 =
        sqlx::query_scalar("SELECT count(*) FROM consolidation_runs WHERE trigger = 'schedule'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(runs, 1, "one scheduled run for the occurrence");
    // The next night's occurrence runs again.
    let next = replica()
        .run_occurrence(occurrence + chrono::Duration::hours(24))
        .await
        .unwrap();
    assert!(next.is_some(), "the next occurrence has its own run");
}
