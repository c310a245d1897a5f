//! Hardening (issue 15): no request, stored value or slow client can stop,
//! stall or slow Engram for everyone else. Each case was reproduced on the
//! code before the fix; each now gets a 4xx problem or completes, and the
//! server keeps serving everyone else.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{fast_workers, TestApp, KEY};
use async_trait::async_trait;
use engram_api::ApiConfig;
use engram_core::consolidate::{ConflictGroup, ConflictReviewer, Review, ReviewError};
use engram_core::extract::{Candidate, ExtractError, Extractor, InputMessage, RulesExtractor};
use engram_core::DEFAULT_TENANT;
use engram_store::Store;
use reqwest::StatusCode;
use serde_json::{json, Value};
use sqlx::PgPool;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Timestamps outside 0001-01-01T00:00:00Z ..= 9999-12-31T23:59:59Z (UTC).
const BAD_TIMES: [&str; 6] = [
    "+262142-12-31T23:59:59Z",
    "-262143-01-01T00:00:00Z",
    "-5000-01-01T00:00:00Z",
    "0000-12-31T23:59:59Z",
    "+10000-01-01T00:00:00Z",
    "9999-12-31T23:00:00-05:00",
];

// ---- 1, 6, 7: one range for every timestamp ---------------------------------

#[sqlx::test(migrations = false)]
async fn every_timestamp_field_refuses_the_calendars_edges_with_a_422(pool: PgPool) {
    let app = crate::common::spawn_app(pool).await;
    let id = app.add_text("u", "I like tea.").await;
    for bad in BAD_TIMES {
        let msg = |extra: Value| {
            let mut m = json!({"role": "user", "content": "I am on holiday."});
            m.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            m
        };
        let cases: Vec<(&str, String, Value, &str)> = vec![
            // issue case 1 (infer: true) and 7 (infer: false)
            (
                "POST",
                "/v1/memories".into(),
                json!({"user_id": "mallory", "messages": [msg(json!({"created_at": bad}))]}),
                "messages[0].created_at",
            ),
            (
                "POST",
                "/v1/memories".into(),
                json!({"user_id": "mallory", "infer": false, "messages": [msg(json!({"created_at": bad}))]}),
                "messages[0].created_at",
            ),
            (
                "POST",
                "/v1/sessions/s1/messages".into(),
                json!({"user_id": "mallory", "messages": [msg(json!({"created_at": bad}))]}),
                "messages[0].created_at",
            ),
            // issue case 2
            (
                "POST",
                "/v1/memories".into(),
                json!({"user_id": "mallory", "infer": false, "text": "On holiday.", "expires_at": bad}),
                "expires_at",
            ),
            (
                "PATCH",
                format!("/v1/memories/{id}"),
                json!({"expires_at": bad}),
                "expires_at",
            ),
            // issue case 6
            (
                "POST",
                "/v1/memories/search".into(),
                json!({"user_id": "u", "query": "what did I do yesterday", "reference_time": bad}),
                "reference_time",
            ),
            (
                "POST",
                "/v1/context".into(),
                json!({"user_id": "u", "query": "what happened 3 days ago", "token_budget": 500, "reference_time": bad}),
                "reference_time",
            ),
            (
                "POST",
                "/v1/memories/search".into(),
                json!({"user_id": "u", "query": "tea", "filters": {"created_at": {"gte": bad}}}),
                "filters.created_at.gte",
            ),
            (
                "POST",
                "/v1/memories/search".into(),
                json!({"user_id": "u", "query": "tea", "filters": {"created_at": {"lte": bad}}}),
                "filters.created_at.lte",
            ),
        ];
        for (method, path, body, field) in cases {
            let r = app.send(method.parse().unwrap(), &path, Some(body)).await;
            r.assert_problem(422, Some(field));
            assert!(
                r.body["detail"]
                    .as_str()
                    .unwrap()
                    .contains("0001-01-01T00:00:00Z"),
                "{bad} {path}: {}",
                r.body
            );
        }
    }
    // A ttl that would end past the range is refused by its own bound.
    app.post(
        "/v1/memories",
        json!({"user_id": "u", "infer": false, "text": "x", "ttl_seconds": i64::MAX}),
    )
    .await
    .assert_problem(422, Some("ttl_seconds"));
    // Nothing was written by any of it: mallory has no memory, job or session.
    for table in ["memories", "jobs", "sessions"] {
        let n: i64 = sqlx::query_scalar(&format!(
            "SELECT count(*) FROM {table} WHERE user_id = 'mallory'"
        ))
        .fetch_one(&app.pool)
        .await
        .unwrap();
        assert_eq!(n, 0, "{table}");
    }
}

#[sqlx::test(migrations = false)]
async fn the_ends_of_the_range_are_usable_everywhere(pool: PgPool) {
    let app = crate::common::spawn_app(pool).await;
    for (at, text) in [
        ("0001-01-01T00:00:00Z", "I was in Rome yesterday."),
        ("9999-12-31T23:59:59Z", "I am on holiday next week."),
        (
            "9999-12-31T23:59:59Z",
            "I'm in Lisbon until Friday, for 999 days.",
        ),
        ("0001-01-01T00:00:00Z", "I moved to Austin this month."),
    ] {
        // Verbatim (201) and through the extractor (200 with the finished
        // job), whose date arithmetic starts from the time it was said.
        for (infer, status) in [(false, StatusCode::CREATED), (true, StatusCode::OK)] {
            let r = app
                .post(
                    "/v1/memories",
                    json!({"user_id": "edge", "infer": infer, "wait": infer.then_some(true),
                           "messages": [{"role": "user", "content": text, "created_at": at}]}),
                )
                .await;
            assert_eq!(r.status, status, "{}", r.body);
            assert!(!infer || r.body["status"] == "done", "{}", r.body);
        }
    }
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "edge", "infer": false, "text": "Forever.",
                   "expires_at": "9999-12-31T23:59:59.999999Z"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    for reference in ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"] {
        for query in [
            "what did I do yesterday",
            "what happened 3 days ago",
            "what did I do last year",
            "what happened in December",
            "plans this weekend",
            "what did I do last month",
            "notes from 9999-12-31",
            "what about 0001-01-01",
        ] {
            for query_time in ["prefer", "filter"] {
                let body = json!({"user_id": "edge", "query": query, "reference_time": reference,
                                  "query_time": query_time});
                ok(&app, "/v1/memories/search", body, query).await;
            }
            let body = json!({"user_id": "edge", "query": query, "token_budget": 300,
                              "reference_time": reference});
            ok(&app, "/v1/context", body, query).await;
        }
    }
    let r = app
        .get("/v1/memories?user_id=edge&include_expired=true&limit=100")
        .await;
    assert_eq!(r.status, StatusCode::OK);
    // Consolidation plans over them (grace periods, decay since year 1).
    let r = app
        .post(
            "/v1/admin/consolidate",
            json!({"user_id": "edge", "wait": true}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["status"], "done", "{}", r.body);
}

/// Posts `body` and asserts a 200, naming `label` if not.
async fn ok(app: &TestApp, path: &str, body: Value, label: &str) {
    let r = app.post(path, body.clone()).await;
    assert_eq!(r.status, StatusCode::OK, "{label} {body}: {}", r.body);
}

// ---- 1: a poison job among good ones -----------------------------------------

/// The rules extractor, except that it panics on "POISON" and never returns
/// on "HANG".
struct Booby;

#[async_trait]
impl Extractor for Booby {
    fn id(&self) -> &str {
        "rules"
    }
    async fn extract(&self, messages: &[InputMessage]) -> Result<Vec<Candidate>, ExtractError> {
        if messages.iter().any(|m| m.content.contains("POISON")) {
            panic!("a bug that only this input reaches");
        }
        if messages.iter().any(|m| m.content.contains("HANG")) {
            std::future::pending::<()>().await;
        }
        RulesExtractor.extract(messages).await
    }
}

async fn booby_app(pool: PgPool, workers: usize, lease: Duration) -> TestApp {
    TestApp::builder(pool)
        .config(ApiConfig {
            job_max_attempts: 3,
            add_wait_timeout: Duration::from_secs(20),
            ..ApiConfig::default()
        })
        .workers(engram_worker::WorkerConfig {
            lease,
            ..fast_workers(workers)
        })
        .extractor(Arc::new(Booby))
        .spawn()
        .await
}

async fn queue(app: &TestApp, user: &str, text: &str) -> String {
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": user, "messages": [{"role": "user", "content": text}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    r.body["job_id"].as_str().unwrap().to_owned()
}

async fn wait_for_end(app: &TestApp, job: &str, within: Duration) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let j = app.get(&format!("/v1/jobs/{job}")).await.body;
        if j["status"] == "done" || j["status"] == "failed" {
            return j;
        }
        assert!(Instant::now() < deadline, "job {job} still {}", j["status"]);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether a new worker (as after a restart) finds a job to run, and runs it.
async fn claim_one(app: &TestApp, pool: &PgPool) -> bool {
    let handlers = Arc::new(engram_server::job_handlers(
        Store::new(pool.clone()),
        crate::common::embedder(),
        Arc::new(Booby),
        app.clock.clone(),
    ));
    engram_worker::run_one(
        &handlers,
        &fast_workers(1),
        "restarted",
        &engram_store::JobKind::ALL,
    )
    .await
    .unwrap()
}

#[sqlx::test(migrations = false)]
async fn a_panicking_job_fails_alone_and_the_workers_live_on(pool: PgPool) {
    let app = booby_app(pool.clone(), 1, Duration::from_secs(30)).await;
    let mut good = Vec::new();
    let poison = queue(&app, "mallory", "POISON: I live in Berlin.").await;
    for (i, city) in ["Oslo", "Lima", "Rome", "Kyiv"].iter().enumerate() {
        good.push(queue(&app, &format!("u{i}"), &format!("I live in {city}.")).await);
    }
    for job in &good {
        let j = wait_for_end(&app, job, Duration::from_secs(30)).await;
        assert_eq!(j["status"], "done", "{j}");
    }
    let j = wait_for_end(&app, &poison, Duration::from_secs(30)).await;
    assert_eq!(j["status"], "failed", "{j}");
    assert_eq!(j["attempts"], 3, "{j}");
    let error = j["error"].as_str().unwrap();
    assert!(error.contains("panicked"), "{error}");
    // Nothing of what the panic said (it could quote user data).
    assert!(!error.contains("only this input"), "{error}");

    // The worker is alive: a normal add with wait finishes quickly.
    let started = Instant::now();
    app.infer("after", "I work at Initech.").await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    // "Restart": new workers on the same database claim nothing again.
    let _ = app.stop_workers.send(true);
    let claimed = claim_one(&app, &pool).await;
    assert!(!claimed, "a finished or failed job was handed out again");
    let again = app.get(&format!("/v1/jobs/{poison}")).await.body;
    assert_eq!(again["attempts"], 3);
}

#[sqlx::test(migrations = false)]
async fn a_hanging_job_is_abandoned_at_its_lease_and_others_go_on(pool: PgPool) {
    let app = booby_app(pool, 1, Duration::from_millis(600)).await;
    let hang = queue(&app, "mallory", "HANG: I live in Berlin.").await;
    let good = queue(&app, "alice", "I live in Oslo.").await;
    let j = wait_for_end(&app, &good, Duration::from_secs(20)).await;
    assert_eq!(j["status"], "done", "{j}");
    let j = wait_for_end(&app, &hang, Duration::from_secs(20)).await;
    assert_eq!(j["status"], "failed", "{j}");
    assert!(
        j["error"]
            .as_str()
            .unwrap()
            .contains("longer than its lease"),
        "{j}"
    );
}

#[sqlx::test(migrations = false)]
async fn a_job_whose_lease_ran_out_on_its_last_attempt_is_failed_not_claimed(pool: PgPool) {
    // The worker died on it (a crash, an OOM kill) on every attempt.
    let app = booby_app(pool.clone(), 0, Duration::from_secs(30)).await;
    let job = queue(&app, "mallory", "I live in Berlin.").await;
    sqlx::query(
        "UPDATE jobs SET status = 'running', attempts = max_attempts, locked_by = 'dead',
                locked_until = now() - interval '1 second' WHERE id = $1::uuid",
    )
    .bind(&job)
    .execute(&pool)
    .await
    .unwrap();
    let claimed = claim_one(&app, &pool).await;
    assert!(!claimed);
    let j = app.get(&format!("/v1/jobs/{job}")).await.body;
    assert_eq!(j["status"], "failed", "{j}");
    assert_eq!(j["attempts"], 3, "{j}");
    assert!(
        j["error"].as_str().unwrap().contains("lease ran out"),
        "{j}"
    );
    // It keeps its payload (the messages), so it can be retried.
    let payload: Option<Value> = sqlx::query_scalar("SELECT payload FROM jobs WHERE id = $1::uuid")
        .bind(&job)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert!(payload.is_some());
}

// ---- 2: consolidation survives bad rows ---------------------------------------

/// Reviews every weak conflict by panicking.
struct PanickingReviewer;

#[async_trait]
impl ConflictReviewer for PanickingReviewer {
    fn id(&self) -> &str {
        "panics"
    }
    async fn review(&self, _: &ConflictGroup) -> Result<Review, ReviewError> {
        panic!("reviewer bug");
    }
}

fn consolidator(
    pool: &PgPool,
    reviewer: Option<Arc<dyn ConflictReviewer>>,
) -> engram_worker::Consolidator {
    engram_worker::Consolidator {
        store: Store::new(pool.clone()),
        clock: Arc::new(engram_core::SystemClock),
        settings: Default::default(),
        reviewer,
    }
}

/// Sets columns of a memory directly, as a row written by an older version
/// or restored from elsewhere might be.
async fn set(pool: &PgPool, id: &str, assignments: &str) {
    sqlx::query(&format!(
        "UPDATE memories SET {assignments} WHERE id = $1::uuid"
    ))
    .bind(id)
    .execute(pool)
    .await
    .unwrap();
}

#[sqlx::test(migrations = false)]
async fn consolidation_records_a_failing_user_goes_on_and_releases_its_lock(pool: PgPool) {
    let app = crate::common::spawn_app(pool.clone()).await;
    // Far in the future but within chrono's calendar: planning must saturate.
    // At the end of the range: planning must saturate.
    let far = app.add_text("far", "I keep this for ever.").await;
    set(&pool, &far, "expires_at = '9999-12-31T23:59:59Z'").await;
    // Beyond the calendar the database refuses the row now (migration 17:
    // such a row used to make reading the user fail).
    let beyond = app.add_text("beyond", "I keep this even longer.").await;
    let refused = sqlx::query(
        "UPDATE memories SET expires_at = '290000-01-01T00:00:00Z' WHERE id = $1::uuid",
    )
    .bind(&beyond)
    .execute(&pool)
    .await;
    assert!(refused.is_err(), "an off-calendar time was stored");
    // A weak conflict the reviewer is asked about, and panics on.
    let a = app.add_text("quarrel", "I live in Oslo.").await;
    let b = app.add_text("quarrel", "I live in Lima.").await;
    set(
        &pool,
        &a,
        "subject = 'user', attribute = 'location.city', value = 'Oslo'",
    )
    .await;
    set(
        &pool,
        &b,
        "subject = 'user', attribute = 'location.city', value = 'Lima'",
    )
    .await;
    let fine = app.add_text("fine", "I like tea.").await;
    let _ = fine;

    let c = consolidator(&pool, Some(Arc::new(PanickingReviewer)));
    let run = c
        .run(engram_worker::RunTarget::Everyone, false, "cli", None)
        .await
        .unwrap()
        .expect("the lock was free");
    assert_eq!(run.status, "failed", "{run:?}");
    let errors = run.errors.as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors
            .iter()
            .any(|e| e.as_str().unwrap().contains("panicked")),
        "{errors:?}"
    );
    // Errors name users by hash only.
    for e in errors {
        let e = e.as_str().unwrap();
        assert!(!e.contains("beyond") && !e.contains("quarrel"), "{e}");
    }
    // Progress rows name users by their keyed pseudonym.
    let statuses: Vec<(String, String)> =
        sqlx::query_as("SELECT subject_hash, status FROM consolidation_progress WHERE run_id = $1")
            .bind(run.id)
            .fetch_all(&pool)
            .await
            .unwrap();
    let store = Store::new(pool.clone());
    for (user, expected) in [
        ("beyond", "done"),
        ("quarrel", "failed"),
        ("far", "done"),
        ("fine", "done"),
    ] {
        let hash = store.subject_hash(DEFAULT_TENANT, user).await.unwrap();
        let status = statuses
            .iter()
            .find(|(h, _)| *h == hash)
            .map(|(_, s)| s.as_str());
        assert_eq!(status, Some(expected), "{user}");
    }

    // The lock went with the run: the next one starts (and finishes).
    let r = app
        .post("/v1/admin/consolidate", json!({"wait": true}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let again = consolidator(&pool, None)
        .run(engram_worker::RunTarget::Everyone, true, "cli", None)
        .await
        .unwrap();
    assert!(again.is_some(), "the consolidation lock was still held");
}

#[sqlx::test(migrations = false)]
async fn a_resumed_run_skips_the_user_it_died_on(pool: PgPool) {
    let app = crate::common::spawn_app(pool.clone()).await;
    app.add_text("a", "I like tea.").await;
    app.add_text("b", "I like coffee.").await;
    let store = Store::new(pool.clone());
    // A run that died while on user "a": left running, heartbeat stale.
    let run = store.start_run(None, false, "schedule").await.unwrap();
    assert_eq!(
        store.begin_user(run.id, DEFAULT_TENANT, "a").await.unwrap(),
        engram_store::UserStart::Begun
    );
    sqlx::query(
        "UPDATE consolidation_runs SET heartbeat_at = now() - interval '1 hour' WHERE id = $1",
    )
    .bind(run.id)
    .execute(&pool)
    .await
    .unwrap();
    let resumed = consolidator(&pool, None)
        .run(engram_worker::RunTarget::Everyone, false, "schedule", None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(resumed.id, run.id, "the abandoned run is resumed");
    assert_eq!(resumed.status, "failed");
    let errors = resumed.errors.to_string();
    assert!(errors.contains("stopped while consolidating"), "{errors}");
    let b: String = sqlx::query_scalar(
        "SELECT status FROM consolidation_progress WHERE run_id = $1 AND subject_hash = $2",
    )
    .bind(run.id)
    .bind(store.subject_hash(DEFAULT_TENANT, "b").await.unwrap())
    .fetch_one(&pool)
    .await
    .unwrap();
    assert_eq!(b, "done");
}

// ---- 3, 4: bounded search cost --------------------------------------------------

/// Loads `n` memories for `user` in one statement (as a bulk import would),
/// with autovacuum off for the table so the planner never gets statistics.
async fn bulk_load(pool: &PgPool, user: &str, n: usize) {
    sqlx::query("ALTER TABLE memories SET (autovacuum_enabled = false)")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO memories (tenant_id, id, user_id, content, embedding, content_hash)
         SELECT $1, gen_random_uuid(), $2,
                'memory ' || g || ' about ' || (ARRAY['hiking','piano','sourdough','chess','kayaks','tango'])[1 + g % 6]
                    || ' and word' || (g % 997) || ' with token' || (g % 101),
                (SELECT array_agg(sin(g * 0.37 + d))::vector(384) FROM generate_series(1, 384) d),
                md5(g::text)
         FROM generate_series(1, $3) g",
    )
    .bind(DEFAULT_TENANT)
    .bind(user)
    .bind(n as i64)
    .execute(pool)
    .await
    .unwrap();
}

/// A query of up to `n` distinct words (at most `chars` characters), some
/// of them in the scope.
fn long_query(n: usize, chars: usize) -> String {
    let mut q = String::new();
    for i in 0..n {
        let word = match i % 4 {
            0 => format!("word{i}"),
            1 => format!("token{i}"),
            2 => format!("zq{i}x"),
            _ => ["hiking", "piano", "sourdough", "chess", "kayaks", "tango"][i % 6].to_owned(),
        };
        if q.len() + word.len() + 1 > chars {
            break;
        }
        if !q.is_empty() {
            q.push(' ');
        }
        q.push_str(&word);
    }
    q
}

#[sqlx::test(migrations = false)]
async fn long_queries_over_an_unanalysed_scope_stay_within_the_statement_timeout(pool: PgPool) {
    // The statement timeout is the bound: the per-row rescan this replaces
    // took 25 s on such a scope, and a 256-term query 1.6-2 s.
    let app = TestApp::builder(pool.clone())
        .config(ApiConfig {
            statement_timeout: Some(Duration::from_secs(3)),
            ..ApiConfig::default()
        })
        .spawn()
        .await;
    bulk_load(&pool, "bulk", 3000).await;
    let analysed: Option<chrono::DateTime<chrono::Utc>> = sqlx::query_scalar(
        "SELECT greatest(last_analyze, last_autoanalyze) FROM pg_stat_user_tables WHERE relname = 'memories'",
    )
    .fetch_one(&pool)
    .await
    .unwrap();
    assert!(
        analysed.is_none(),
        "the table must be unanalysed for this test"
    );
    let query = long_query(600, 4000);
    assert!(query.len() > 3900);
    for mode in ["lexical", "hybrid"] {
        let r = app
            .post(
                "/v1/memories/search",
                json!({"user_id": "bulk", "query": query, "mode": mode, "top_k": 5}),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{mode}: {}", r.body);
        assert_eq!(r.body["results"].as_array().unwrap().len(), 5, "{mode}");
    }
    // The rarest terms are the ones scored: a word that occurs in one
    // memory finds it first among thousands sharing the common words.
    let r = app
        .post(
            "/v1/memories/search",
            json!({"user_id": "bulk", "mode": "lexical", "top_k": 1,
                   "query": format!("{} memory 1234", long_query(300, 3900))}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let top = r.body["results"][0]["memory"].as_str().unwrap();
    assert!(top.starts_with("memory 1234 "), "{top}");
    // Longer than the query limit: 422 on the field.
    app.post(
        "/v1/memories/search",
        json!({"user_id": "bulk", "query": "a ".repeat(2001)}),
    )
    .await
    .assert_problem(422, Some("query"));
}

#[sqlx::test(migrations = false)]
async fn a_statement_past_the_timeout_is_a_503_and_load_beyond_the_cap_is_shed(pool: PgPool) {
    let app = TestApp::builder(pool.clone())
        .config(ApiConfig {
            statement_timeout: Some(Duration::from_millis(1500)),
            max_concurrent_requests: 1,
            ..ApiConfig::default()
        })
        .spawn()
        .await;
    app.add_text("u", "I like tea.").await;
    // Someone holds the table: every read of it waits.
    let mut blocker = pool.begin().await.unwrap();
    sqlx::query("LOCK TABLE memories IN ACCESS EXCLUSIVE MODE")
        .execute(&mut *blocker)
        .await
        .unwrap();
    let slow = {
        let app_url = app.url("/v1/memories/search");
        let client = app.client.clone();
        tokio::spawn(async move {
            client
                .post(app_url)
                .bearer_auth(KEY)
                .json(&json!({"user_id": "u", "query": "tea", "mode": "lexical"}))
                .send()
                .await
                .unwrap()
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    // The one slot is taken: the next request is shed at once.
    let started = Instant::now();
    let r = app.get("/v1/memories?user_id=u").await;
    r.assert_problem(503, None);
    assert_eq!(r.body["type"], "urn:engram:problem:overloaded");
    assert!(started.elapsed() < Duration::from_millis(500));
    // Health is outside the cap.
    let health = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(health.status(), StatusCode::OK);
    // The blocked search ends at the statement timeout: 503, Retry-After,
    // and no driver text in the detail.
    let resp = slow.await.unwrap();
    assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(resp.headers()["retry-after"], "1");
    let body: Value = resp.json().await.unwrap();
    assert_eq!(body["type"], "urn:engram:problem:query-timeout", "{body}");
    assert!(
        !body["detail"].as_str().unwrap().contains("canceling"),
        "{body}"
    );
    drop(blocker);
    let r = app
        .post(
            "/v1/memories/search",
            json!({"user_id": "u", "query": "tea"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
}

// ---- 8: one add cannot monopolise the embedder ----------------------------------

#[sqlx::test(migrations = false)]
async fn the_text_of_one_add_is_bounded_as_a_whole(pool: PgPool) {
    let app = crate::common::spawn_app(pool).await;
    let messages: Vec<Value> = (0..100)
        .map(|i| json!({"role": "user", "content": format!("{i} {}", "x".repeat(7990))}))
        .collect();
    let started = Instant::now();
    for infer in [false, true] {
        app.post(
            "/v1/memories",
            json!({"user_id": "u", "infer": infer, "messages": messages}),
        )
        .await
        .assert_problem(422, Some("messages"));
    }
    app.post(
        "/v1/sessions/s/messages",
        json!({"user_id": "u", "messages": messages}),
    )
    .await
    .assert_problem(422, Some("messages"));
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    // Within the budget it is an ordinary add.
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "infer": false, "messages": &messages[..3]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
}

// ---- 5: slow clients ------------------------------------------------------------

async fn slow_client_app(pool: PgPool) -> TestApp {
    TestApp::builder(pool)
        .config(ApiConfig {
            header_timeout: Duration::from_secs(1),
            idle_timeout: Duration::from_secs(2),
            ..ApiConfig::default()
        })
        .spawn()
        .await
}

/// Seconds until the server closes `stream` (reads until EOF or reset),
/// given up after `limit`.
async fn closed_after(stream: &mut tokio::net::TcpStream, limit: Duration) -> Option<Duration> {
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(
            limit.saturating_sub(started.elapsed()),
            stream.read(&mut buf),
        )
        .await
        {
            Ok(Ok(0)) | Ok(Err(_)) => return Some(started.elapsed()),
            Ok(Ok(_)) => continue,
            Err(_) => return None,
        }
    }
}

#[sqlx::test(migrations = false)]
async fn silent_and_trickling_connections_are_closed_at_the_header_timeout(pool: PgPool) {
    let app = slow_client_app(pool).await;
    // Sends nothing.
    let mut silent = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    let t = closed_after(&mut silent, Duration::from_secs(5)).await;
    assert!(t.is_some_and(|t| t >= Duration::from_millis(900)), "{t:?}");

    // One header line every 300 ms, never finishing.
    let mut trickle = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    trickle
        .write_all(b"GET /healthz HTTP/1.1\r\n")
        .await
        .unwrap();
    let started = Instant::now();
    let mut closed = false;
    for i in 0..30 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        if trickle
            .write_all(format!("X-Slow-{i}: y\r\n").as_bytes())
            .await
            .is_err()
        {
            closed = true;
            break;
        }
        let mut probe = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(1), trickle.read(&mut probe)).await
        {
            closed = true;
            break;
        }
    }
    assert!(closed, "a trickling connection was still open after 9 s");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );

    // A slow but complete request within the timeout is served.
    let mut slowish = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    slowish
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(400)).await;
    slowish
        .write_all(b"Connection: close\r\n\r\n")
        .await
        .unwrap();
    let mut reply = String::new();
    slowish.read_to_string(&mut reply).await.unwrap();
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
}

#[sqlx::test(migrations = false)]
async fn an_idle_kept_alive_connection_is_closed_at_the_idle_timeout(pool: PgPool) {
    let app = slow_client_app(pool).await;
    let mut conn = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = conn.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // Idle longer than the header timeout, shorter than the idle timeout:
    // still open, and serves a second request.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .unwrap();
    let n = conn.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
    // Then closed once idle past the idle timeout.
    let t = closed_after(&mut conn, Duration::from_secs(6)).await;
    assert!(
        t.is_some_and(|t| t >= Duration::from_millis(1900) && t < Duration::from_secs(4)),
        "{t:?}"
    );
}

// ---- all of it in a row ----------------------------------------------------------

#[sqlx::test(migrations = false)]
async fn after_every_attack_in_a_row_normal_work_is_prompt(pool: PgPool) {
    let app = TestApp::builder(pool.clone())
        .config(ApiConfig {
            header_timeout: Duration::from_secs(1),
            statement_timeout: Some(Duration::from_secs(3)),
            ..ApiConfig::default()
        })
        .spawn()
        .await;
    let mallory = |m: Value| json!({"user_id": "mallory", "messages": [m]});
    let bad = [
        mallory(
            json!({"role": "user", "content": "I am on holiday.", "created_at": "+262142-12-31T23:59:59Z"}),
        ),
        json!({"user_id": "mallory", "infer": false, "text": "x", "expires_at": "+262142-12-31T23:59:59Z"}),
        mallory(
            json!({"role": "user", "content": "I am on holiday.", "created_at": "-5000-01-01T00:00:00Z"}),
        ),
        json!({"user_id": "mallory", "infer": false, "messages": (0..100)
            .map(|_| json!({"role": "user", "content": "y".repeat(8000)})).collect::<Vec<_>>()}),
    ];
    for body in bad {
        let r = app.post("/v1/memories", body).await;
        assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);
    }
    let r = app
        .post(
            "/v1/memories/search",
            json!({"user_id": "u", "query": "what did I do yesterday", "reference_time": "-262143-01-01T00:00:00Z"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    bulk_load(&pool, "bulk", 2000).await;
    let r = app
        .post(
            "/v1/memories/search",
            json!({"user_id": "bulk", "query": long_query(600, 4000)}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let _silent = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    let mut trickle = tokio::net::TcpStream::connect(app.addr).await.unwrap();
    trickle
        .write_all(b"GET /healthz HTTP/1.1\r\n")
        .await
        .unwrap();

    let started = Instant::now();
    app.infer("alice", "I live in Austin.").await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    let r = app
        .post("/v1/admin/consolidate", json!({"wait": true}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["status"], "done", "{}", r.body);
}

// ---- every write path: an import -------------------------------------------------

#[sqlx::test(migrations = false)]
async fn an_import_with_a_date_off_the_calendar_writes_nothing(pool: PgPool) {
    let app = crate::common::spawn_app(pool.clone()).await;
    app.add_text("carol", "I live in Bergen.").await;
    let mut doc: Value = serde_json::from_slice(&app.export("carol").await).unwrap();
    app.delete("/v1/admin/users/carol").await;
    doc["memories"][0]["expires_at"] = json!("+262142-12-31T23:59:59Z");
    let file = std::env::temp_dir().join(format!("engram-bad-dates-{}.json", uuid::Uuid::now_v7()));
    std::fs::write(&file, serde_json::to_vec(&doc).unwrap()).unwrap();
    let err = engram_server::cli::import(
        &Store::new(pool.clone()),
        crate::common::embedder(),
        &file,
        None,
    )
    .await
    .unwrap_err();
    std::fs::remove_file(&file).ok();
    assert!(
        format!("{err:#}").contains("memories[0].expires_at"),
        "{err:#}"
    );
    assert_eq!(app.count_rows("memories").await, 0);
}

#[sqlx::test(migrations = false)]
async fn query_terms_with_quotes_backslashes_and_operators_are_only_words(pool: PgPool) {
    let app = crate::common::spawn_app(pool).await;
    let text = r"O'Brien keeps /usr/bin/x and C:\Users\bob\notes; it's a|b & c:* (d) !e <-> f";
    app.add_text("u", text).await;
    app.add_text("u", "Something else entirely.").await;
    for mode in ["lexical", "hybrid", "dense"] {
        for query in [text, r"'\ ''' \\ | & ! <-> :* ( )", "O'Brien's /usr/bin/x"] {
            let r = app
                .post(
                    "/v1/memories/search",
                    json!({"user_id": "u", "query": query, "mode": mode}),
                )
                .await;
            assert_eq!(r.status, StatusCode::OK, "{mode} {query}: {}", r.body);
        }
        let top = app
            .search(json!({"user_id": "u", "query": "O'Brien /usr/bin/x", "mode": mode}))
            .await;
        assert_eq!(top[0]["memory"], text, "{mode}");
    }
}
