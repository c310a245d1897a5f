//! Consolidation against a real Postgres: one user's plan applied in one
//! transaction, runs through the scheduler's entry point, and what a
//! restatement does to what a run archived.

use crate::common::{events, spawn_app, TestApp};
use chrono::{Duration, Utc};
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

/// A memory said at `at` that states `attribute` = `value`.
async fn fact_at(
    app: &TestApp,
    pool: &PgPool,
    user: &str,
    text: &str,
    at: chrono::DateTime<Utc>,
    (attribute, value, source): (&str, &str, &str),
) -> String {
    let id = add_at(app, user, text, at).await;
    sqlx::query(
        "UPDATE memories SET subject = 'user', attribute = $2, value = $3, source_type = $4 WHERE id = $1::uuid",
    )
    .bind(&id)
    .bind(attribute)
    .bind(value)
    .bind(source)
    .execute(pool)
    .await
    .unwrap();
    id
}

/// Consolidates `user` as of now (after everything the test wrote).
async fn consolidate(pool: &PgPool, user: &str, dry_run: bool) -> engram_store::Counts {
    let store = Store::new(pool.clone());
    let now = Utc::now();
    let params = ConsolidationParams::defaults(now);
    let (_, counts) = store
        .consolidate_user(DEFAULT_TENANT, user, dry_run, now, move |v| {
            plan(v, &params)
        })
        .await
        .unwrap();
    counts
}

/// The user's live memories but the pieces of what was said (consolidation
/// never merges or decays those: `pieces_of_what_was_said_are_never_merged_or_decayed`).
async fn live(app: &TestApp, user: &str) -> Vec<Value> {
    app.get(&format!("/v1/memories?user_id={user}&limit=100&said=false"))
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
    let db = |value, source| ("preference.database", value, source);
    let jan = fact_at(
        &app,
        &pool,
        "dev",
        "prefers PostgreSQL",
        now - Duration::days(150),
        db("PostgreSQL", "user_stated"),
    )
    .await;
    sqlx::query("UPDATE memories SET access_count = 3 WHERE id = $1::uuid")
        .bind(&jan)
        .execute(&pool)
        .await
        .unwrap();
    let feb = fact_at(
        &app,
        &pool,
        "dev",
        "mentioned liking PostgreSQL",
        now - Duration::days(120),
        db("PostgreSQL", "inferred"),
    )
    .await;
    let jun = fact_at(
        &app,
        &pool,
        "dev",
        "switched to MongoDB for the new project",
        now - Duration::days(5),
        db("MongoDB", "user_stated"),
    )
    .await;
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

#[sqlx::test(migrations = false)]
async fn restating_an_archived_fact_restores_it(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let long_ago = Utc::now() - Duration::days(720);
    let verbatim = add_at(&app, "u", "watched a cooking show once", long_ago).await;
    let inferred = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "wait": true,
                   "messages": [{"role": "user", "content": "I work at Acme.", "created_at": long_ago}]}),
        )
        .await;
    assert_eq!(inferred.body["status"], "done", "{}", inferred.body);
    let fact = inferred.body["results"][0]["memory_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let counts = consolidate(&pool, "u", false).await;
    assert_eq!(counts["archive"], 2, "{counts:?}");
    assert!(live(&app, "u").await.is_empty());

    // Said again verbatim: the same memory is back, at its stated importance.
    let again = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "infer": false,
                   "messages": [{"role": "user", "content": "watched a cooking show once"}]}),
        )
        .await;
    assert_eq!(again.body["results"][0]["id"], verbatim.as_str());
    assert_eq!(again.body["results"][0]["event"], "NOOP");
    let back = app.get(&format!("/v1/memories/{verbatim}")).await.body;
    assert_eq!(back["archived_at"], Value::Null);
    assert_eq!(back["importance"], 0.5, "decay undone: {back}");
    let restored = app.last_history(&verbatim).await;
    assert_eq!(restored["event"], "REVERT", "{restored}");
    assert!(restored["reason"]
        .as_str()
        .unwrap()
        .contains("restored from the archive"));

    // Said again in conversation: extraction finds the archived fact and
    // restores it rather than keeping a second copy.
    let said = app.infer("u", "I work at Acme.").await;
    assert_eq!(events(&said), ["NOOP"], "{said}");
    assert_eq!(said["results"][0]["memory_id"], fact.as_str());
    let ids: Vec<Value> = live(&app, "u")
        .await
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    assert_eq!(ids.len(), 2, "{ids:?}");
    assert!(ids.contains(&json!(fact)));
    let history = app.last_history(&fact).await;
    assert!(
        history["reason"]
            .as_str()
            .unwrap()
            .contains("restored from the archive"),
        "{history}"
    );
    // And it is not archived again by the next run: its decay starts over.
    let counts = consolidate(&pool, "u", false).await;
    assert_eq!(counts.get("archive"), None, "{counts:?}");
}

/// A reviewing "model": the morning's tea holds over the afternoon's coffee,
/// hiking and chess both hold, anything about jazz fails.
struct FakeReviewer(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl wiremock::Respond for FakeReviewer {
    fn respond(&self, req: &wiremock::Request) -> wiremock::ResponseTemplate {
        let body: Value = serde_json::from_slice(&req.body).unwrap();
        let shown = body["messages"][1]["content"].as_str().unwrap().to_owned();
        self.0.lock().unwrap().push(shown.clone());
        let answer = if shown.contains("jazz") {
            return wiremock::ResponseTemplate::new(500);
        } else if shown.contains("coffee") {
            json!({"current": 1, "reason": "coffee was only for that afternoon"})
        } else {
            json!({"current": 0, "reason": "both are hobbies"})
        };
        wiremock::ResponseTemplate::new(200).set_body_json(json!({
            "id": "x", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": answer.to_string()}}]
        }))
    }
}

#[sqlx::test(migrations = false)]
async fn an_llm_reviews_weak_conflicts_and_the_rules_decide_the_rest(pool: PgPool) {
    let server = wiremock::MockServer::start().await;
    let shown = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(FakeReviewer(shown.clone()))
        .mount(&server)
        .await;
    let reviewer = engram_llm::LlmConflictReviewer::new(engram_llm::LlmConfig {
        base_url: format!("{}/v1", server.uri()),
        model: "fake-1".into(),
        timeout: std::time::Duration::from_secs(2),
        ..Default::default()
    });
    let app = crate::common::TestApp::builder(pool.clone())
        .config(engram_api::ApiConfig::default())
        .workers(crate::common::fast_workers(1))
        .extractor(std::sync::Arc::new(engram_core::extract::RulesExtractor))
        .reviewer(std::sync::Arc::new(reviewer))
        .spawn()
        .await;
    let day = Utc::now() - Duration::days(3);
    let stated = |attribute, value| (attribute, value, "user_stated");
    let mut ids = Vec::new();
    for (text, hours, fact) in [
        // Weak: two statements the same day. Reviewed: the first holds.
        ("prefers tea", 9, stated("preference.drink", "tea")),
        (
            "wants coffee this afternoon",
            15,
            stated("preference.drink", "coffee"),
        ),
        // Weak, reviewed: both hold.
        ("enjoys hiking", 9, stated("hobby", "hiking")),
        ("enjoys chess", 10, stated("hobby", "chess")),
        // Weak, but the review fails: the rules decide (the later wins).
        ("likes jazz", 9, stated("music", "jazz")),
        ("likes techno", 11, stated("music", "techno")),
    ] {
        let at = day + Duration::hours(hours);
        ids.push(fact_at(&app, &pool, "rev", text, at, fact).await);
    }
    // Clear: months apart. The rules decide; the reviewer is never asked.
    let leeds = ("location.city", "Leeds", "user_stated");
    let york = ("location.city", "York", "user_stated");
    let old = Utc::now() - Duration::days(200);
    fact_at(&app, &pool, "rev", "lives in Leeds", old, leeds).await;
    let york = fact_at(&app, &pool, "rev", "lives in York", day, york).await;

    let r = app
        .post(
            "/v1/admin/consolidate",
            json!({"user_id": "rev", "wait": true}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let counts = &r.body["counts"];
    assert_eq!(
        (
            &counts["reviewed"],
            &counts["review_failed"],
            &counts["resolve"]
        ),
        (&json!(2), &json!(1), &json!(3)),
        "{}",
        r.body
    );
    // Three groups asked about (the failing one retried by the client).
    let mut asked = shown.lock().unwrap().clone();
    asked.dedup();
    assert_eq!(asked.len(), 3, "{asked:?}");
    assert!(asked.iter().all(|a| !a.contains("Leeds")), "{asked:?}");
    assert!(asked
        .iter()
        .any(|a| a.contains("1. (") && a.contains("said by the user) prefers tea")));

    let live: Vec<Value> = live(&app, "rev")
        .await
        .iter()
        .map(|m| m["id"].clone())
        .collect();
    let (tea, coffee, hiking, chess, jazz, techno) =
        (&ids[0], &ids[1], &ids[2], &ids[3], &ids[4], &ids[5]);
    for id in [tea, hiking, chess, techno, &york] {
        assert!(live.contains(&json!(id)), "{id} stays live: {live:?}");
    }
    for id in [coffee, jazz] {
        assert!(!live.contains(&json!(id)), "{id} is superseded");
    }
    let why = app.last_history(coffee).await;
    assert!(
        why["reason"]
            .as_str()
            .unwrap()
            .contains("coffee → tea (reviewed: coffee was only for that afternoon (fake-1))"),
        "{why}"
    );
}

fn consolidator(pool: &PgPool) -> engram_worker::Consolidator {
    engram_worker::Consolidator {
        store: Store::new(pool.clone()),
        clock: std::sync::Arc::new(engram_core::SystemClock),
        settings: Default::default(),
        reviewer: None,
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
    let dead = store.start_run(None, false, "schedule").await.unwrap();
    let params = ConsolidationParams::defaults(Utc::now());
    let (_, counts) = store
        .consolidate_user(DEFAULT_TENANT, "a", false, Utc::now(), move |v| {
            plan(v, &params)
        })
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
