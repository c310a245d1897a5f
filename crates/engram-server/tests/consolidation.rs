//! Consolidation against a real Postgres: one user's plan applied in one
//! transaction (the scheduler, CLI and HTTP endpoint are still to come).

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use chrono::{Duration, Utc};
use common::{spawn_app, TestApp};
use engram_core::consolidate::{plan, ConsolidationParams};
use engram_core::DEFAULT_TENANT;
use engram_store::Store;
use reqwest::StatusCode;
use serde_json::{json, Value};
use sqlx::PgPool;

async fn add_at(app: &TestApp, user: &str, text: &str, at: chrono::DateTime<Utc>) -> String {
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": user, "infer": false,
                   "messages": [{"role": "user", "content": text, "created_at": at}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    r.body["results"][0]["id"].as_str().unwrap().to_owned()
}

/// Consolidates `user` as of now (after everything the test wrote).
async fn consolidate(pool: &PgPool, user: &str, dry_run: bool) -> engram_store::Counts {
    let store = Store::new(pool.clone());
    let now = Utc::now();
    let params = ConsolidationParams::defaults(now);
    let (_, counts) = store
        .consolidate_user(DEFAULT_TENANT, user, dry_run, now, |v| plan(v, &params))
        .await
        .unwrap();
    counts
}

async fn live(app: &TestApp, user: &str) -> Vec<Value> {
    app.get(&format!("/v1/memories?user_id={user}&limit=100"))
        .await
        .body["results"]
        .as_array()
        .unwrap()
        .clone()
}

#[sqlx::test(migrations = false)]
async fn fifty_near_identical_memories_become_one(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let now = Utc::now();
    let mut n = 0;
    for case in [
        "likes coffee",
        "Likes coffee",
        "LIKES COFFEE",
        "Likes Coffee",
        "likes Coffee",
    ] {
        for mark in ["", ".", "!", "!!", "...", " !", ",", ";", "~", " ."] {
            add_at(&app, "cafe", &format!("{case}{mark}"), now).await;
            n += 1;
        }
    }
    add_at(&app, "cafe", "Lives in Leeds and works as a nurse.", now).await;
    assert_eq!(live(&app, "cafe").await.len(), n + 1);

    let dry = consolidate(&pool, "cafe", true).await;
    assert_eq!(dry["merge"], 1, "{dry:?}");
    assert_eq!(
        live(&app, "cafe").await.len(),
        n + 1,
        "a dry run writes nothing"
    );

    consolidate(&pool, "cafe", false).await;
    let after = live(&app, "cafe").await;
    assert_eq!(after.len(), 2, "{after:?}");
    let coffee = after
        .iter()
        .find(|m| {
            m["memory"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains("coffee")
        })
        .unwrap();
    assert_eq!(coffee["access_count"], 0);
    let history = app
        .get(&format!(
            "/v1/memories/{}/history",
            coffee["id"].as_str().unwrap()
        ))
        .await
        .body;
    assert!(history.to_string().contains("MERGE"), "{history}");
    // Running again changes nothing: consolidation is idempotent.
    let again = consolidate(&pool, "cafe", false).await;
    assert!(!again.contains_key("merge"), "{again:?}");
}

#[sqlx::test(migrations = false)]
async fn conflicts_resolve_to_the_latest_explicit_statement(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let now = Utc::now();
    let jan = add_at(&app, "dev", "prefers PostgreSQL", now - Duration::days(150)).await;
    let feb = add_at(
        &app,
        "dev",
        "mentioned liking PostgreSQL",
        now - Duration::days(120),
    )
    .await;
    let jun = add_at(
        &app,
        "dev",
        "switched to MongoDB for the new project",
        now - Duration::days(5),
    )
    .await;
    for (id, value, source) in [
        (&jan, "PostgreSQL", "user_stated"),
        (&feb, "PostgreSQL", "inferred"),
        (&jun, "MongoDB", "user_stated"),
    ] {
        sqlx::query(
            "UPDATE memories SET subject = 'user', attribute = 'preference.database', value = $2, source_type = $3,
                    access_count = CASE WHEN $2 = 'PostgreSQL' AND $3 = 'user_stated' THEN 3 ELSE 0 END
             WHERE id = $1::uuid",
        )
        .bind(id)
        .bind(value)
        .bind(source)
        .execute(&pool)
        .await
        .unwrap();
    }
    let counts = consolidate(&pool, "dev", false).await;
    assert_eq!(counts["resolve"], 2, "{counts:?}");
    let after = live(&app, "dev").await;
    assert_eq!(after.len(), 1);
    assert_eq!(after[0]["id"], jun.as_str());
    for id in [&jan, &feb] {
        let m = app.get(&format!("/v1/memories/{id}")).await.body;
        assert_eq!(m["superseded_by"], jun.as_str());
        let h = app
            .get(&format!("/v1/memories/{id}/history"))
            .await
            .body
            .to_string();
        assert!(
            h.contains("PostgreSQL → MongoDB"),
            "the reason is kept: {h}"
        );
    }
}

#[sqlx::test(migrations = false)]
async fn pinned_memories_survive_and_stale_ones_archive_and_come_back(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let now = Utc::now();
    let pinned = add_at(
        &app,
        "old",
        "is allergic to penicillin",
        now - Duration::days(365),
    )
    .await;
    app.send(
        reqwest::Method::PATCH,
        &format!("/v1/memories/{pinned}"),
        Some(json!({"pinned": true})),
    )
    .await;
    let stale = add_at(
        &app,
        "old",
        "watched a cooking show once",
        now - Duration::days(720),
    )
    .await;
    let counts = consolidate(&pool, "old", false).await;
    assert_eq!(counts["archive"], 1, "{counts:?}");
    let after = live(&app, "old").await;
    assert_eq!(after.len(), 1);
    assert_eq!(after[0]["id"], pinned.as_str());
    assert_eq!(after[0]["importance"], 0.5, "pinned: no decay");
    let found = app
        .search(json!({"user_id": "old", "query": "cooking show"}))
        .await;
    assert!(
        found.iter().all(|m| m["id"] != stale.as_str()),
        "archived: out of search"
    );
    let admin = app
        .get("/v1/admin/users/old/memories?states=archived")
        .await
        .body;
    assert_eq!(admin["results"][0]["id"], stale.as_str(), "{admin}");
    // Restorable: a revert of the ARCHIVE brings it back.
    let r = app
        .post(&format!("/v1/memories/{stale}/revert"), json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(live(&app, "old").await.len(), 2);
}

fn consolidator(pool: &PgPool) -> engram_worker::Consolidator {
    engram_worker::Consolidator {
        store: Store::new(pool.clone()),
        clock: std::sync::Arc::new(engram_core::SystemClock),
        settings: Default::default(),
    }
}

#[sqlx::test(migrations = false)]
async fn two_servers_started_together_consolidate_once(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let now = Utc::now();
    for user in ["a", "b", "c"] {
        for text in ["likes tea", "Likes tea.", "likes tea!"] {
            add_at(&app, user, text, now).await;
        }
    }
    let (one, two) = (consolidator(&pool), consolidator(&pool));
    let (r1, r2) = tokio::join!(
        one.run(engram_worker::RunTarget::Everyone, false, "schedule", None),
        two.run(engram_worker::RunTarget::Everyone, false, "schedule", None)
    );
    let runs: Vec<_> = [r1.unwrap(), r2.unwrap()].into_iter().flatten().collect();
    // Either one ran and the other found the lock taken, or they ran one
    // after the other and the second found nothing left to merge.
    let merges: i64 = runs
        .iter()
        .map(|r| r.counts["merge"].as_i64().unwrap_or(0))
        .sum();
    assert_eq!(merges, 3, "one merge per user, never twice: {runs:?}");
    for user in ["a", "b", "c"] {
        assert_eq!(live(&app, user).await.len(), 1, "{user}");
    }
}

#[sqlx::test(migrations = false)]
async fn a_run_killed_midway_resumes_without_redoing_users(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let now = Utc::now();
    for user in ["a", "b"] {
        for text in ["likes tea", "Likes tea.", "likes tea!"] {
            add_at(&app, user, text, now).await;
        }
    }
    let store = Store::new(pool.clone());
    // A run that finished user "a", then died (no heartbeat since).
    let dead = store
        .start_run(None, None, false, "schedule")
        .await
        .unwrap();
    let params = ConsolidationParams::defaults(Utc::now());
    let (_, counts) = store
        .consolidate_user(DEFAULT_TENANT, "a", false, Utc::now(), |v| plan(v, &params))
        .await
        .unwrap();
    store
        .record_user(dead.id, DEFAULT_TENANT, "a", &counts, None)
        .await
        .unwrap();
    sqlx::query(
        "UPDATE consolidation_runs SET heartbeat_at = now() - interval '1 hour' WHERE id = $1",
    )
    .bind(dead.id)
    .execute(&pool)
    .await
    .unwrap();

    let run = consolidator(&pool)
        .run(engram_worker::RunTarget::Everyone, false, "schedule", None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(run.id, dead.id, "the same run, resumed");
    assert_eq!(run.status, "done");
    assert_eq!(run.users_done, 2);
    assert_eq!(
        run.counts["merge"], 2,
        "a once before the crash, b once after: {run:?}"
    );
    let progress: i64 =
        sqlx::query_scalar("SELECT count(*) FROM consolidation_progress WHERE run_id = $1")
            .bind(run.id)
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(progress, 2);
    for user in ["a", "b"] {
        assert_eq!(live(&app, user).await.len(), 1, "{user}");
    }
}

#[sqlx::test(migrations = false)]
async fn a_dry_run_reports_the_plan_and_changes_nothing(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let now = Utc::now();
    for text in ["likes tea", "Likes tea.", "likes tea!"] {
        add_at(&app, "d", text, now).await;
    }
    let run = consolidator(&pool)
        .run(engram_worker::RunTarget::Everyone, true, "cli", None)
        .await
        .unwrap()
        .unwrap();
    assert!(run.dry_run);
    assert_eq!(run.counts["merge"], 1);
    let planned = run.planned.unwrap();
    assert_eq!(planned[0]["operations"][0]["op"], "merge", "{planned}");
    assert_eq!(live(&app, "d").await.len(), 3);
}
