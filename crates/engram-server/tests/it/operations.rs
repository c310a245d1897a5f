//! What the console's operations and people views read: the job list
//! (newest first, filters, paging, scoped like every read), one person's
//! overview, erasures and purges as dry runs that change nothing and count
//! exactly what the real ones remove, and the audit log's filters.

use crate::common::{spawn_app, TestApp};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::PgPool;

fn ids(body: &Value) -> Vec<String> {
    body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["job_id"].as_str().unwrap().to_owned())
        .collect()
}

async fn queue_job(app: &TestApp, user: &str, text: &str) -> String {
    let r = app
        .post("/v1/memories", json!({"user_id": user, "text": text}))
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    r.body["job_id"].as_str().unwrap().to_owned()
}

#[sqlx::test(migrations = false)]
async fn the_job_list_is_newest_first_filtered_paged_and_per_tenant(pool: PgPool) {
    let app = spawn_app(pool).await;
    let mut jobs = Vec::new();
    for (user, text) in [
        ("una", "I live in Oslo."),
        ("una", "I like tea."),
        ("vic", "I play chess."),
    ] {
        jobs.push(queue_job(&app, user, text).await);
        app.clock.advance(chrono::Duration::seconds(1));
    }
    app.settle().await;
    // A job that failed for good, as a worker leaves it.
    sqlx::query(
        "UPDATE jobs SET status = 'failed', attempts = max_attempts, payload = NULL,
                last_error = 'the model endpoint refused the connection' WHERE id = $1::uuid",
    )
    .bind(&jobs[1])
    .execute(&app.pool)
    .await
    .unwrap();

    let r = app.get("/v1/jobs").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let newest_first: Vec<String> = jobs.iter().rev().cloned().collect();
    assert_eq!(ids(&r.body), newest_first);
    assert!(r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .all(|j| j["kind"] == "extract"));
    assert_eq!(r.body["next_cursor"], Value::Null);

    let failed = app.get("/v1/jobs?status=failed").await;
    assert_eq!(ids(&failed.body), [jobs[1].clone()]);
    let job = &failed.body["results"][0];
    assert_eq!(job["error"], "the model endpoint refused the connection");
    assert_eq!(job["attempts"], job["max_attempts"]);
    assert_eq!(
        ids(&app.get("/v1/jobs?user_id=vic").await.body),
        [jobs[2].clone()]
    );
    assert_eq!(
        ids(&app.get("/v1/jobs?kind=consolidate").await.body),
        Vec::<String>::new()
    );

    // Paged: one at a time, every job once, in order.
    let (mut seen, mut cursor) = (Vec::new(), String::new());
    loop {
        let page = app.get(&format!("/v1/jobs?limit=1{cursor}")).await;
        assert_eq!(page.status, StatusCode::OK, "{}", page.body);
        seen.extend(ids(&page.body));
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => break,
        }
        assert!(seen.len() <= 3, "paging does not end: {seen:?}");
    }
    assert_eq!(seen, newest_first);

    for (query, field) in [
        ("status=lost", "status"),
        ("kind=dream", "kind"),
        ("limit=0", "limit"),
        ("cursor=nope", "cursor"),
        ("user_id=%20", "user_id"),
    ] {
        app.get(&format!("/v1/jobs?{query}"))
            .await
            .assert_problem(422, Some(field));
    }
    app.get("/v1/jobs?colour=red")
        .await
        .assert_problem(422, Some("colour"));

    // Another tenant's key sees none of them; a read-only key of this one does.
    let (_, other) = app.create_key("tenant", Some("elsewhere")).await;
    let r = app
        .send_as(Some(&other), None, Method::GET, "/v1/jobs", None)
        .await;
    assert_eq!(r.body["results"], json!([]), "{}", r.body);
    let (_, reader) = app.create_key("read-only", Some("default")).await;
    let r = app
        .send_as(Some(&reader), None, Method::GET, "/v1/jobs", None)
        .await;
    assert_eq!(ids(&r.body).len(), 3, "{}", r.body);
}

#[sqlx::test(migrations = false)]
async fn a_person_overview_counts_every_state_kind_and_session(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.add_text("fay", "I like green tea.").await;
    for said in ["I live in Oslo.", "I moved to Bergen."] {
        let r = app
            .post(
                "/v1/memories",
                json!({"user_id": "fay", "wait": true, "text": said}),
            )
            .await;
        assert_eq!(r.body["status"], "done", "{}", r.body);
    }
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "fay", "infer": false, "kind": "episodic",
                   "text": "Dentist at noon.", "ttl_seconds": 60}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let gone = app.add_text("fay", "I own a red kayak.").await;
    app.delete(&format!("/v1/memories/{gone}")).await;
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "fay", "infer": false, "kind": "episodic", "session_id": "fay-chat",
                   "text": "We planned a trip to Rome."}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let r = app
        .post(
            "/v1/sessions/fay-talk/messages",
            json!({"user_id": "fay", "infer": false, "messages": [
                {"role": "user", "content": "Hello."}, {"role": "assistant", "content": "Hi."}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    app.add_text("gus", "I like coffee.").await;
    app.clock.advance(chrono::Duration::hours(1));

    let r = app.get("/v1/admin/users/fay").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let o = &r.body;
    assert_eq!(o["user_id"], "fay");
    // What was said counts too: "I live in Oslo." (superseded with its
    // fact), "I moved to Bergen.", "Hello." and the assistant's "Hi." are
    // episodic pieces.
    assert_eq!(
        o["by_state"],
        json!({"live": 6, "superseded": 2, "archived": 0, "expired": 1, "deleted": 1}),
        "{o}"
    );
    assert_eq!(o["memories"], 10);
    assert_eq!(o["by_kind"]["episodic"], 6, "{o}");
    assert_eq!(o["by_kind"]["semantic"], 4, "{o}");
    assert_eq!(o["sessions_total"], 2, "{o}");
    let sessions: Vec<(&str, i64, i64)> = o["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["session_id"].as_str().unwrap(),
                s["turns"].as_i64().unwrap(),
                s["memories"].as_i64().unwrap(),
            )
        })
        .collect();
    assert!(sessions.contains(&("fay-talk", 2, 2)), "{sessions:?}");
    assert!(sessions.contains(&("fay-chat", 0, 1)), "{sessions:?}");
    assert!(o["last_activity_at"].is_string());
    assert!(!o.to_string().contains("gus"));

    // Nobody: zeros, the same shape (existence is not revealed by a 404).
    let r = app.get("/v1/admin/users/nobody").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["memories"], 0);
    assert_eq!(r.body["by_state"]["live"], 0);
    assert_eq!(r.body["last_activity_at"], Value::Null);
    let (_, reader) = app.create_key("read-only", Some("default")).await;
    app.send_as(
        Some(&reader),
        None,
        Method::GET,
        "/v1/admin/users/fay",
        None,
    )
    .await
    .assert_problem(403, None);
}

/// Row counts of the tables an erasure touches, and the erasure audit entries:
/// what a dry run must leave exactly as it was.
async fn rows_of(app: &TestApp) -> Vec<(String, i64)> {
    let mut out = Vec::new();
    for table in [
        "memories",
        "memory_history",
        "jobs",
        "sessions",
        "session_messages",
        "api_keys",
    ] {
        out.push((table.to_owned(), app.count_rows(table).await));
    }
    let erasures: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_log WHERE action IN ('user.erase', 'source.purge')",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    out.push(("erasure audit entries".into(), erasures));
    out
}

#[sqlx::test(migrations = false)]
async fn dry_runs_count_exactly_what_goes_and_change_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.add_text("hal", "I collect stamps.").await;
    for (said, source) in [
        ("I live in Oslo.", "doc-1"),
        ("I moved to Bergen.", "doc-2"),
    ] {
        let r = app
            .post(
                "/v1/memories",
                json!({"user_id": "hal", "wait": true, "text": said,
                       "source": {"type": "document", "ref": source}}),
            )
            .await;
        assert_eq!(r.body["status"], "done", "{}", r.body);
    }
    let r = app
        .post(
            "/v1/sessions/hal-chat/messages",
            json!({"user_id": "hal", "infer": false, "messages": [{"role": "user", "content": "Hi."}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    app.post(
        "/v1/admin/keys",
        json!({"role": "tenant", "tenant": "default", "name": "hal's phone", "user_id": "hal"}),
    )
    .await;
    app.add_text("ivy", "I collect shells.").await;
    app.settle().await;

    // A source purge: the dry run's counts are the purge's.
    let before = rows_of(&app).await;
    let dry = app.delete("/v1/admin/sources/doc-2?dry_run=true").await;
    assert_eq!(dry.status, StatusCode::OK, "{}", dry.body);
    assert_eq!(dry.body["dry_run"], true);
    // The fact and the message kept as it was said, both from doc-2.
    assert_eq!(dry.body["counts"]["memories"], 2, "{}", dry.body);
    assert_eq!(rows_of(&app).await, before, "the dry run changed nothing");
    let live = app.get("/v1/memories?user_id=hal").await;
    assert!(live.body.to_string().contains("Bergen"));
    let real = app.delete("/v1/admin/sources/doc-2").await;
    assert_eq!(real.body["dry_run"], false);
    assert_eq!(real.body["counts"], dry.body["counts"]);

    // A user's erasure: the same.
    let before = rows_of(&app).await;
    let dry = app.delete("/v1/admin/users/hal?dry_run=true").await;
    assert_eq!(dry.status, StatusCode::OK, "{}", dry.body);
    assert_eq!(dry.body["dry_run"], true);
    assert_eq!(dry.body["counts"]["sessions"], 1, "{}", dry.body);
    assert_eq!(dry.body["counts"]["api_keys"], 1, "{}", dry.body);
    assert!(dry.body["counts"]["memories"].as_i64().unwrap() >= 2);
    assert_eq!(rows_of(&app).await, before, "the dry run changed nothing");
    let real = app.delete("/v1/admin/users/hal?dry_run=false").await;
    assert_eq!(real.body["dry_run"], false);
    assert_eq!(real.body["counts"], dry.body["counts"]);
    assert_eq!(
        app.get("/v1/admin/users/hal").await.body["memories"],
        0,
        "erased"
    );
    app.delete("/v1/admin/users/ivy?dry_run=maybe")
        .await
        .assert_problem(422, Some("dry_run"));
    assert_eq!(
        app.get("/v1/admin/users/ivy").await.body["memories"],
        1,
        "a malformed dry_run erases nothing"
    );
}

#[sqlx::test(migrations = false)]
async fn the_audit_log_filters_by_who_what_and_when(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (key_id, key) = app.create_key("tenant", Some("default")).await;
    let gone = app.add_text("kim", "I like figs.").await;
    app.clock.advance(chrono::Duration::minutes(5));
    let r = app
        .send_as(
            Some(&key),
            None,
            Method::DELETE,
            &format!("/v1/memories/{gone}"),
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);

    let actor = format!("key:{key_id}");
    let r = app
        .get(&format!("/v1/admin/audit?actor={}", urlencode(&actor)))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let entries = r.body["results"].as_array().unwrap();
    assert!(!entries.is_empty());
    assert!(
        entries.iter().all(|e| e["actor"] == actor.as_str()),
        "{entries:?}"
    );
    assert!(entries.iter().any(|e| e["action"] == "memory.delete"));

    let all = app.get("/v1/admin/audit?limit=1000").await.body["results"]
        .as_array()
        .unwrap()
        .clone();
    let at = |e: &Value| chrono::DateTime::parse_from_rfc3339(e["at"].as_str().unwrap()).unwrap();
    let newest = all.iter().map(at).max().unwrap();
    let since = (newest - chrono::Duration::milliseconds(1)).to_rfc3339();
    let recent = app
        .get(&format!("/v1/admin/audit?since={}", urlencode(&since)))
        .await;
    let recent = recent.body["results"].as_array().unwrap();
    assert!(!recent.is_empty());
    assert!(recent
        .iter()
        .all(|e| at(e) >= newest - chrono::Duration::milliseconds(1)));
    let until = app
        .get(&format!("/v1/admin/audit?until={}", urlencode(&since)))
        .await;
    let older = until.body["results"].as_array().unwrap();
    let cut = newest - chrono::Duration::milliseconds(1);
    assert_eq!(
        older.len(),
        all.iter().filter(|e| at(e) < cut).count(),
        "until keeps exactly the entries before it"
    );
    assert!(older.iter().all(|e| at(e) < cut));
    for (query, field) in [("since=yesterday", "since"), ("until=12:00", "until")] {
        app.get(&format!("/v1/admin/audit?{query}"))
            .await
            .assert_problem(422, Some(field));
    }
}

/// `s` as a query-string value.
fn urlencode(s: &str) -> String {
    reqwest::Url::parse_with_params("http://x/", &[("v", s)])
        .unwrap()
        .query()
        .unwrap()["v=".len()..]
        .to_owned()
}

#[sqlx::test(migrations = false)]
async fn the_admin_list_filters_by_kind_attribute_source_time_and_text(pool: PgPool) {
    let app = spawn_app(pool).await;
    let add = |body: Value| {
        let app = &app;
        async move {
            let r = app.post("/v1/memories", body).await;
            assert!(r.status.is_success(), "{}", r.body);
        }
    };
    let said = |text: &str, at: &str| json!([{"role": "user", "content": text, "created_at": at}]);
    add(json!({"user_id": "lea", "infer": false, "kind": "semantic",
               "messages": said("I like 100% dark chocolate.", "2026-01-01T10:00:00Z"),
               "source": {"type": "document", "ref": "diary"}}))
    .await;
    add(json!({"user_id": "lea", "infer": false, "kind": "episodic",
               "messages": said("Lunch with Tom today.", "2026-03-01T12:00:00Z")}))
    .await;
    add(json!({"user_id": "lea", "wait": true,
               "messages": said("I live in Lyon.", "2026-03-02T09:00:00Z")}))
    .await;
    add(json!({"user_id": "max", "infer": false, "text": "I like dark chocolate too."})).await;

    let list = |q: &str| {
        let app = &app;
        let q = q.to_owned();
        async move {
            let r = app.get(&format!("/v1/admin/users/lea/memories?{q}")).await;
            assert_eq!(r.status, StatusCode::OK, "{q}: {}", r.body);
            let mut v: Vec<String> = r.body["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["memory"].as_str().unwrap().to_owned())
                .collect();
            v.sort();
            v
        }
    };
    // A verbatim episodic add, and a message kept as it was said.
    assert_eq!(
        list("kinds=episodic").await,
        ["I live in Lyon.", "Lunch with Tom today."]
    );
    assert_eq!(
        list("source_type=document").await,
        ["I like 100% dark chocolate."]
    );
    assert_eq!(
        list("source_ref=diary").await,
        ["I like 100% dark chocolate."]
    );
    // Plain text, case ignored; `%` is a character, not a wildcard.
    assert_eq!(list("text=DARK").await, ["I like 100% dark chocolate."]);
    assert_eq!(list("text=0%25%20d").await, ["I like 100% dark chocolate."]);
    assert_eq!(list("text=l%25n").await, Vec::<String>::new());
    let lyon = list("attribute=location.city").await;
    assert_eq!(lyon.len(), 1, "{lyon:?}");
    assert!(lyon[0].contains("Lyon"));
    assert_eq!(
        list("created_before=2026-02-01T00:00:00Z").await,
        ["I like 100% dark chocolate."]
    );
    assert_eq!(
        list("created_after=2026-02-01T00:00:00Z&kinds=semantic").await,
        lyon
    );
    for (q, field) in [
        ("kinds=dreamy", "kinds"),
        ("source_type=rumour", "source_type"),
        ("text=%20", "text"),
        ("created_after=soon", "created_after"),
        (
            "created_after=2026-02-01T00:00:00Z&created_before=2026-01-01T00:00:00Z",
            "created_after",
        ),
    ] {
        app.get(&format!("/v1/admin/users/lea/memories?{q}"))
            .await
            .assert_problem(422, Some(field));
    }
}

/// Issue 51: one tenant's burst (within its rate limit) held up every other
/// tenant's extraction, first in, first out. Now the workers serve the
/// tenant served longest ago first: a bystander's `wait` add is answered
/// with its job done while the burst is still queued.
#[sqlx::test(migrations = false)]
async fn a_bystander_tenants_wait_add_does_not_wait_behind_a_burst(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.create_key("tenant", Some("busy")).await;
    let store = engram_store::Store::new(app.pool.clone());
    let (busy, _) = store.find_tenant("busy").await.unwrap();
    for n in 0..300 {
        let job = extraction_job("ann", &format!("I like tea number {n}."));
        store
            .enqueue_extraction(busy, &job, &[], None, "test")
            .await
            .unwrap();
    }
    let started = std::time::Instant::now();
    let done = app.infer("bob", "I live in Oslo.").await;
    let took = started.elapsed();
    assert_eq!(
        done["results"][0]["new_content"], "User lives in Oslo.",
        "{done}"
    );
    let waiting: i64 =
        sqlx::query_scalar("SELECT count(*) FROM jobs WHERE tenant_id = $1 AND status = 'queued'")
            .bind(busy)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(waiting > 200, "the burst is still queued ({waiting} left)");
    // Behind the burst it would wait for ~300 jobs; one or two at most now.
    assert!(took < std::time::Duration::from_secs(3), "{took:?}");
}

/// A tenant's queue is bounded: past `max_queued_jobs` an inferred add is
/// refused whole (429 `queue-full`, Retry-After; nothing written), while a
/// verbatim add, which never queues, is stored at once.
#[sqlx::test(migrations = false)]
async fn a_full_tenant_queue_refuses_inferred_adds_not_verbatim_ones(pool: PgPool) {
    let config = engram_api::ApiConfig {
        max_queued_jobs: Some(2),
        ..Default::default()
    };
    let app = TestApp::builder(pool)
        .config(config)
        .workers(crate::common::fast_workers(0))
        .spawn()
        .await;
    queue_job(&app, "u", "I like tea.").await;
    queue_job(&app, "u", "I have a cat.").await;
    let before = app.count_rows("memories").await;
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "messages": [{"role": "user", "content": "I live in Oslo."}]}),
        )
        .await;
    r.assert_problem(429, None);
    assert_eq!(
        r.body["type"], "urn:engram:problem:queue-full",
        "{}",
        r.body
    );
    assert_eq!(app.count_rows("jobs").await, 2);
    assert_eq!(
        app.count_rows("memories").await,
        before,
        "nothing was written"
    );
    let appended = app
        .post(
            "/v1/sessions/s1/messages",
            json!({"user_id": "u", "messages": [{"role": "user", "content": "I live in Oslo."}]}),
        )
        .await;
    appended.assert_problem(429, None);
    assert_eq!(app.count_rows("session_messages").await, 0);
    let verbatim = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "text": "I live in Oslo.", "infer": false}),
        )
        .await;
    assert_eq!(verbatim.status, StatusCode::CREATED, "{}", verbatim.body);
}

fn extraction_job(
    user: &str,
    text: &str,
) -> engram_store::NewJob<engram_core::extract::ExtractionRequest> {
    let request = engram_core::extract::ExtractionRequest::user_said(text);
    engram_store::NewJob::extraction(user, request)
}
