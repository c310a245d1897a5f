//! Every kind of bad input gets a problem document naming the field, never a
//! 5xx, and nothing is written.

use crate::common::{spawn_app, TestApp, KEY};
use engram_api::ApiConfig;
use reqwest::{header, Method};
use serde_json::json;
use sqlx::PgPool;

#[sqlx::test(migrations = false)]
async fn bad_bodies_are_rejected_with_the_offending_field(pool: PgPool) {
    let app = spawn_app(pool).await;
    let add = "/v1/memories";
    let ok = json!({"user_id": "u", "infer": false, "text": "I like tea."});
    let with = |key: &str, value: serde_json::Value| {
        let mut b = ok.clone();
        b[key] = value;
        b
    };
    let cases: Vec<(serde_json::Value, u16, &str)> = vec![
        (with("bogus", json!(1)), 422, "bogus"),
        (
            json!({"infer": false, "text": "I like tea."}),
            422,
            "user_id",
        ),
        (with("user_id", json!("")), 422, "user_id"),
        (with("user_id", json!("x".repeat(129))), 422, "user_id"),
        (with("user_id", json!(7)), 422, "user_id"),
        (with("text", json!("   ")), 422, "text"),
        (with("text", json!("x".repeat(8001))), 422, "text"),
        (json!({"user_id": "u", "infer": false}), 422, "messages"),
        (
            with("messages", json!([{"role": "user", "content": "a"}])),
            422,
            "text",
        ),
        (
            json!({"user_id": "u", "infer": false, "messages": []}),
            422,
            "messages",
        ),
        (
            json!({"user_id": "u", "infer": false, "messages": [{"role": "robot", "content": "hi"}]}),
            422,
            "messages[0].role",
        ),
        (
            json!({"user_id": "u", "infer": false, "messages": [{"role": "user"}]}),
            422,
            "messages[0].content",
        ),
        (
            json!({"user_id": "u", "infer": false, "messages": [{"role": "user", "content": "hi", "mood": "ok"}]}),
            422,
            "messages[0].mood",
        ),
        (
            json!({"user_id": "u", "infer": false, "messages": [{"role": "assistant", "content": "hi"}]}),
            422,
            "messages",
        ),
        (with("importance", json!(1.5)), 422, "importance"),
        (with("importance", json!("high")), 422, "importance"),
        (with("metadata", json!([1, 2])), 422, "metadata"),
        (
            with("metadata", json!({"k": "x".repeat(20_000)})),
            422,
            "metadata",
        ),
        (with("ttl_seconds", json!(0)), 422, "ttl_seconds"),
        (
            with("expires_at", json!("2001-01-01T00:00:00Z")),
            422,
            "expires_at",
        ),
        (with("expires_at", json!("tomorrow")), 422, "expires_at"),
        (
            with("source", json!({"type": "rumour"})),
            422,
            "source.type",
        ),
        (with("kind", json!("dream")), 422, "kind"),
    ];
    for (body, status, field) in cases {
        let r = app.post(add, body.clone()).await;
        assert!(r.status.as_u16() < 500);
        r.assert_problem(status, Some(field));
    }

    // A multi-message add with one bad message writes none of them.
    let mut messages: Vec<serde_json::Value> = (0..5)
        .map(|i| json!({"role": "user", "content": format!("fact {i}")}))
        .collect();
    messages.push(json!({"role": "user", "content": "x".repeat(9000)}));
    app.post(
        add,
        json!({"user_id": "u", "infer": false, "messages": messages}),
    )
    .await
    .assert_problem(422, Some("messages[5].content"));

    let search = "/v1/memories/search";
    // JSON Schema counts 3.0 as an integer, and so does the API.
    let r = app
        .post(
            search,
            json!({"query": "tea", "user_id": "u", "top_k": 3.0}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = app
        .post(
            "/v1/context",
            json!({"query": "tea", "user_id": "u", "token_budget": 2000.0}),
        )
        .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let q = json!({"query": "tea", "user_id": "u"});
    let with_q = |key: &str, value: serde_json::Value| {
        let mut b = q.clone();
        b[key] = value;
        b
    };
    for (body, status, field) in [
        (with_q("top_k", json!(0)), 422, "top_k"),
        (with_q("top_k", json!(101)), 422, "top_k"),
        (with_q("top_k", json!(-3)), 422, "top_k"),
        (with_q("top_k", json!(2.5)), 422, "top_k"),
        (with_q("top_k", json!("3")), 422, "top_k"),
        (with_q("top_k", json!(1e30)), 422, "top_k"),
        (with_q("query", json!("")), 422, "query"),
        (json!({"query": "tea"}), 422, "user_id"),
        (with_q("threshold", json!(2)), 422, "threshold"),
        (with_q("half_life_days", json!(0)), 422, "half_life_days"),
        (
            with_q(
                "weights",
                json!({"relevance": -1, "recency": 0, "importance": 0}),
            ),
            422,
            "weights.relevance",
        ),
        (
            with_q(
                "weights",
                json!({"relevance": 0, "recency": 0, "importance": 0}),
            ),
            422,
            "weights",
        ),
        (
            with_q("weights", json!({"relevance": 1})),
            422,
            "weights.recency",
        ),
        (
            with_q("filters", json!({"colour": "red"})),
            422,
            "filters.colour",
        ),
        (
            with_q("filters", json!({"metadata": "x"})),
            422,
            "filters.metadata",
        ),
        (
            with_q(
                "filters",
                json!({"created_at": {"gte": "2024-01-02T00:00:00Z", "lte": "2024-01-01T00:00:00Z"}}),
            ),
            422,
            "filters.created_at",
        ),
    ] {
        app.post(search, body)
            .await
            .assert_problem(status, Some(field));
    }

    assert_eq!(
        app.count_rows("memories").await,
        0,
        "nothing partial was written"
    );
    assert_eq!(app.count_rows("memory_history").await, 0);
}

#[sqlx::test(migrations = false)]
async fn malformed_requests_get_problems_not_500s(pool: PgPool) {
    let config = ApiConfig {
        max_body_bytes: 4096,
        ..ApiConfig::default()
    };
    let app = TestApp::builder(pool).config(config).spawn().await;
    let url = app.url("/v1/memories");
    let c = &app.client;

    // Malformed JSON: 400. Trailing garbage too.
    let r = app
        .raw(
            c.post(&url)
                .bearer_auth(KEY)
                .header(header::CONTENT_TYPE, "application/json")
                .body("{\"user_id\": "),
        )
        .await;
    r.assert_problem(400, None);
    let r = app
        .raw(
            c.post(&url)
                .bearer_auth(KEY)
                .header(header::CONTENT_TYPE, "application/json")
                .body("{} {}"),
        )
        .await;
    r.assert_problem(400, None);
    // Wrong or missing content type: 415.
    let r = app
        .raw(
            c.post(&url)
                .bearer_auth(KEY)
                .header(header::CONTENT_TYPE, "text/plain")
                .body("{}"),
        )
        .await;
    r.assert_problem(415, None);
    let r = app.raw(c.post(&url).bearer_auth(KEY).body("{}")).await;
    r.assert_problem(415, None);
    // Oversized body: 413.
    let big = json!({"user_id": "u", "infer": false, "text": "x".repeat(5000)}).to_string();
    let r = app
        .raw(
            c.post(&url)
                .bearer_auth(KEY)
                .header(header::CONTENT_TYPE, "application/json")
                .body(big),
        )
        .await;
    r.assert_problem(413, None);

    // Missing, wrong and malformed keys: 401 with a challenge.
    let r = app.raw(c.get(app.url("/v1/memories?user_id=u"))).await;
    r.assert_problem(401, None);
    let r = c
        .get(app.url("/v1/memories?user_id=u"))
        .bearer_auth("wrong")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.headers()[header::WWW_AUTHENTICATE], "Bearer");
    let r = app
        .raw(
            c.get(app.url("/v1/memories?user_id=u"))
                .header(header::AUTHORIZATION, format!("Basic {KEY}")),
        )
        .await;
    r.assert_problem(401, None);

    // Ids: malformed is 400, unknown is 404, on every id route.
    for method in [Method::GET, Method::PATCH, Method::DELETE] {
        let body = (method == Method::PATCH).then(|| json!({"importance": 0.2}));
        app.send(method.clone(), "/v1/memories/not-a-uuid", body.clone())
            .await
            .assert_problem(400, Some("id"));
        app.send(
            method,
            "/v1/memories/7f0c4a8e-27c1-4b7e-9a55-0d1f6f7c2b11",
            body,
        )
        .await
        .assert_problem(404, None);
    }
    app.get("/v1/memories/not-a-uuid/history")
        .await
        .assert_problem(400, Some("id"));
    app.get("/v1/memories/7f0c4a8e-27c1-4b7e-9a55-0d1f6f7c2b11/history")
        .await
        .assert_problem(404, None);

    // PATCH bodies.
    let id = app.add_text("u", "I like tea.").await;
    let path = format!("/v1/memories/{id}");
    app.patch(&path, json!({}))
        .await
        .assert_problem(422, Some("memory"));
    app.patch(&path, json!({"memory": ""}))
        .await
        .assert_problem(422, Some("memory"));
    app.patch(&path, json!({"importance": -0.1}))
        .await
        .assert_problem(422, Some("importance"));
    app.patch(&path, json!({"content": "x"}))
        .await
        .assert_problem(422, Some("content"));
    app.patch(&path, json!({"metadata": 3}))
        .await
        .assert_problem(422, Some("metadata"));

    // Query strings.
    app.get("/v1/memories")
        .await
        .assert_problem(422, Some("user_id"));
    app.get("/v1/memories?user_id=u&limit=0")
        .await
        .assert_problem(422, Some("limit"));
    app.get("/v1/memories?user_id=u&limit=many")
        .await
        .assert_problem(422, Some("limit"));
    app.get("/v1/memories?user_id=u&cursor=garbage")
        .await
        .assert_problem(422, Some("cursor"));
    app.get("/v1/memories?user_id=u&colour=red")
        .await
        .assert_problem(422, Some("colour"));

    // Unknown routes and methods.
    app.get("/v1/nothing-here").await.assert_problem(404, None);
    app.send(Method::PUT, "/v1/memories", Some(json!({})))
        .await
        .assert_problem(405, None);

    // Only the one good memory was written, with its one history row.
    assert_eq!(app.count_rows("memories").await, 1);
    assert_eq!(app.count_rows("memory_history").await, 1);
    let m = app.get(&path).await.body;
    assert_eq!(m["memory"], "I like tea.");
    assert_eq!(m["importance"].as_f64(), Some(0.5));
}

/// Bad input under load: many clients at once send oversized, malformed,
/// mistyped and invalid requests between good ones. Every bad one gets its
/// problem document, never a 5xx; every good add is stored exactly once.
#[sqlx::test(migrations = false)]
async fn bad_input_under_load_gets_problems_and_good_writes_all_land(pool: PgPool) {
    let config = ApiConfig {
        max_body_bytes: 64 * 1024,
        ..ApiConfig::default()
    };
    let app = std::sync::Arc::new(TestApp::builder(pool).config(config).spawn().await);
    let url = app.url("/v1/memories");
    let bad: Vec<(String, &str, u16, Option<&str>)> = vec![
        (
            json!({"user_id": "u", "infer": false, "text": "x".repeat(70 * 1024)}).to_string(),
            "application/json",
            413,
            None,
        ),
        ("{\"user_id\": ".into(), "application/json", 400, None),
        ("{}".into(), "text/plain", 415, None),
        (
            json!({"user_id": "", "infer": false, "text": "hi"}).to_string(),
            "application/json",
            422,
            Some("user_id"),
        ),
        (
            json!({"user_id": "u", "infer": false, "messages": [{"role": "robot", "content": "x"}]})
                .to_string(),
            "application/json",
            422,
            Some("messages[0].role"),
        ),
        (
            json!({"user_id": "u", "infer": "yes", "text": "hi"}).to_string(),
            "application/json",
            422,
            Some("infer"),
        ),
        // Postgres stores no NUL: found by the fuzzer as a 500.
        (
            json!({"user_id": "u", "infer": false, "text": "a\u{0}b"}).to_string(),
            "application/json",
            422,
            Some("text"),
        ),
        (
            json!({"user_id": "u", "infer": false, "text": "hi", "metadata": {"k": "a\u{0}"}})
                .to_string(),
            "application/json",
            422,
            Some("metadata"),
        ),
    ];
    let bad = std::sync::Arc::new(bad);
    let tasks = (0..8).map(|client| {
        let (app, url, bad) = (app.clone(), url.clone(), bad.clone());
        tokio::spawn(async move {
            let mut stored = 0;
            for i in 0..12 {
                let (body, media, status, field) = &bad[(client + i) % bad.len()];
                let r = app
                    .raw(
                        app.client
                            .post(&url)
                            .bearer_auth(KEY)
                            .header(header::CONTENT_TYPE, *media)
                            .body(body.clone()),
                    )
                    .await;
                r.assert_problem(*status, *field);
                let good = app
                    .post(
                        "/v1/memories",
                        json!({"user_id": "load", "infer": false, "text": format!("fact {client}-{i}")}),
                    )
                    .await;
                assert_eq!(good.status, 201, "{}", good.body);
                stored += 1;
            }
            stored
        })
    });
    let mut acknowledged = 0;
    for t in futures::future::join_all(tasks).await {
        acknowledged += t.unwrap();
    }
    let listed = app.get("/v1/memories?user_id=load&limit=100").await.body;
    assert_eq!(listed["results"].as_array().unwrap().len(), acknowledged);
    assert_eq!(acknowledged, 96);
}
