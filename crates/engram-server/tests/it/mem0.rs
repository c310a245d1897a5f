//! The Mem0-compatible routes over raw HTTP, as Mem0's clients send them
//! (`Authorization: Token <key>`, trailing slashes): the operations, the
//! error shape the clients read (JSON with `detail`), bound keys through
//! every route, and bad input. The released clients themselves run in
//! `clients/mem0-compat` (make test-mem0-clients).

use crate::common::{spawn_app, Reply, TestApp, KEY};
use reqwest::Method;
use serde_json::{json, Value};
use sqlx::PgPool;

async fn m0(app: &TestApp, key: &str, method: Method, path: &str, body: Option<Value>) -> Reply {
    let mut req = app
        .client
        .request(method, app.url(path))
        .header("authorization", format!("Token {key}"));
    if let Some(b) = body {
        req = req.json(&b);
    }
    app.raw(req).await
}

/// A Mem0 error as the clients read it: JSON, `detail`, the status.
fn assert_mem0_error(r: &Reply, status: u16, field: Option<&str>) {
    assert_eq!(r.status.as_u16(), status, "{}", r.body);
    assert_eq!(r.content_type, "application/json", "{}", r.body);
    assert!(r.body["detail"].is_string(), "{}", r.body);
    if let Some(f) = field {
        assert_eq!(r.body["field"], f, "{}", r.body);
    }
}

async fn bound_key(app: &TestApp, user: &str) -> String {
    let r = app
        .post(
            "/v1/admin/keys",
            json!({"role": "tenant", "tenant": "default", "name": "device", "user_id": user}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.body["key"].as_str().unwrap().to_owned()
}

async fn add_verbatim(app: &TestApp, key: &str, user: &str, text: &str, extra: Value) -> String {
    let mut body =
        json!({"messages": [{"role": "user", "content": text}], "user_id": user, "infer": false});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    let r = m0(app, key, Method::POST, "/mem0/v3/memories/add/", Some(body)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.body["status"], "SUCCEEDED", "{}", r.body);
    r.body["results"][0]["id"].as_str().unwrap().to_owned()
}

#[sqlx::test(migrations = false)]
async fn the_platform_routes_do_what_the_client_asks(pool: PgPool) {
    let app = spawn_app(pool).await;
    let ping = m0(&app, KEY, Method::GET, "/mem0/v1/ping/", None).await;
    assert_eq!(ping.status, 200);
    assert_eq!(ping.body["status"], "ok");
    assert_mem0_error(
        &m0(&app, "nope", Method::GET, "/mem0/v1/ping/", None).await,
        401,
        None,
    );

    let id = add_verbatim(
        &app,
        KEY,
        "alice",
        "I live in Lisbon.",
        json!({"metadata": {"topic": "home"}, "app_id": "shop"}),
    )
    .await;
    add_verbatim(
        &app,
        KEY,
        "alice",
        "I play the cello.",
        json!({"run_id": "r1"}),
    )
    .await;
    add_verbatim(&app, KEY, "bob", "I live in Oslo.", json!({})).await;

    let got = m0(
        &app,
        KEY,
        Method::GET,
        &format!("/mem0/v1/memories/{id}/"),
        None,
    )
    .await;
    assert_eq!(got.status, 200, "{}", got.body);
    assert_eq!(got.body["memory"], "I live in Lisbon.");
    assert_eq!(got.body["app_id"], "shop");
    assert_eq!(got.body["metadata"], json!({"topic": "home"}));

    let search = |filters: Value| {
        let app = &app;
        async move {
            let r = m0(app, KEY, Method::POST, "/mem0/v3/memories/search/",
                Some(json!({"query": "where do I live", "filters": filters, "output_format": "v1.1"}))).await;
            assert_eq!(r.status, 200, "{}", r.body);
            r.body["results"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["memory"].as_str().unwrap().to_owned())
                .collect::<Vec<_>>()
        }
    };
    let hits = search(json!({"user_id": "alice"})).await;
    assert_eq!(hits[0], "I live in Lisbon.", "{hits:?}");
    assert!(!hits.contains(&"I live in Oslo.".to_owned()));
    let both = search(json!({"OR": [{"user_id": "alice"}, {"user_id": "bob"}]})).await;
    assert!(
        both.contains(&"I live in Oslo.".to_owned())
            && both.contains(&"I live in Lisbon.".to_owned()),
        "{both:?}"
    );
    assert_eq!(
        search(json!({"AND": [{"user_id": "alice"}, {"run_id": "*"}]})).await,
        vec!["I play the cello."]
    );
    assert_eq!(
        search(json!({"AND": [{"user_id": "alice"}, {"metadata": {"topic": "home"}}]})).await,
        vec!["I live in Lisbon."]
    );
    assert_eq!(
        search(json!({"user_id": "alice", "app_id": "shop"})).await,
        vec!["I live in Lisbon."]
    );

    let page = m0(
        &app,
        KEY,
        Method::POST,
        "/mem0/v3/memories/?page=1&page_size=1",
        Some(json!({"filters": {"user_id": "alice"}})),
    )
    .await;
    assert_eq!(page.status, 200, "{}", page.body);
    assert_eq!(page.body["count"], 2);
    assert_eq!(page.body["results"].as_array().unwrap().len(), 1);
    assert!(page.body["next"].as_str().unwrap().contains("page=2"));
    assert!(page.body["previous"].is_null());
    let page2 = m0(
        &app,
        KEY,
        Method::POST,
        "/mem0/v3/memories/?page=2&page_size=1",
        Some(json!({"filters": {"user_id": "alice"}})),
    )
    .await;
    assert!(
        page2.body["next"].is_null() && page2.body["previous"].is_string(),
        "{}",
        page2.body
    );
    assert_ne!(
        page.body["results"][0]["id"],
        page2.body["results"][0]["id"]
    );

    let upd = m0(
        &app,
        KEY,
        Method::PUT,
        &format!("/mem0/v1/memories/{id}/"),
        Some(json!({"text": "I live in Porto.", "metadata": {"topic": "moved"}})),
    )
    .await;
    assert_eq!(upd.status, 200, "{}", upd.body);
    assert_eq!(upd.body["memory"], "I live in Porto.");
    assert_eq!(
        upd.body["app_id"], "shop",
        "app_id survives a metadata replacement"
    );
    let hist = m0(
        &app,
        KEY,
        Method::GET,
        &format!("/mem0/v1/memories/{id}/history/"),
        None,
    )
    .await;
    let events: Vec<&str> = hist
        .body
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["event"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["ADD", "UPDATE"], "{}", hist.body);
    assert_eq!(hist.body[1]["old_memory"], "I live in Lisbon.");
    assert_eq!(hist.body[1]["new_memory"], "I live in Porto.");
    assert_eq!(hist.body[1]["user_id"], "alice");

    let users = m0(&app, KEY, Method::GET, "/mem0/v1/entities/", None).await;
    let names: Vec<(String, String)> = users.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap().to_owned(),
                e["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("user".into(), "alice".into()),
            ("user".into(), "bob".into()),
            ("run".into(), "r1".into())
        ]
    );

    let del = m0(
        &app,
        KEY,
        Method::DELETE,
        &format!("/mem0/v1/memories/{id}/"),
        None,
    )
    .await;
    assert_eq!(del.status, 200, "{}", del.body);
    assert_mem0_error(
        &m0(
            &app,
            KEY,
            Method::GET,
            &format!("/mem0/v1/memories/{id}/"),
            None,
        )
        .await,
        404,
        None,
    );
    let gone = m0(
        &app,
        KEY,
        Method::DELETE,
        "/mem0/v2/entities/user/bob/",
        None,
    )
    .await;
    assert_eq!(gone.status, 200, "{}", gone.body);
    assert!(search(json!({"user_id": "bob"})).await.is_empty());
    let run = m0(&app, KEY, Method::DELETE, "/mem0/v2/entities/run/r1/", None).await;
    assert_eq!(run.body["deleted"], 1, "{}", run.body);
}

#[sqlx::test(migrations = false)]
async fn an_inferred_add_is_an_event_that_ends_with_engram_decisions(pool: PgPool) {
    let app = spawn_app(pool).await;
    let add = |text: &'static str| {
        let app = &app;
        async move {
            let r = m0(
                app,
                KEY,
                Method::POST,
                "/mem0/v3/memories/add/",
                Some(json!({"messages": [{"role": "user", "content": text}], "user_id": "carol"})),
            )
            .await;
            assert_eq!(r.status, 200, "{}", r.body);
            assert_eq!(r.body["status"], "PENDING", "{}", r.body);
            let event = r.body["event_id"].as_str().unwrap().to_owned();
            app.settle().await;
            let e = m0(
                app,
                KEY,
                Method::GET,
                &format!("/mem0/v1/event/{event}/"),
                None,
            )
            .await;
            assert_eq!(e.status, 200, "{}", e.body);
            assert_eq!(e.body["status"], "SUCCEEDED", "{}", e.body);
            e.body
        }
    };
    let first = add("I live in Berlin.").await;
    assert_eq!(first["results"][0]["event"], "ADD", "{first}");
    let second = add("I moved to Hamburg.").await;
    let r = &second["results"][0];
    assert_eq!(r["event"], "UPDATE", "{second}");
    assert_eq!(r["engram_event"], "SUPERSEDE");
    assert!(r["reason"].is_string());
    let new_id = r["id"].as_str().unwrap();
    let hist = m0(
        &app,
        KEY,
        Method::GET,
        &format!("/mem0/v1/memories/{new_id}/history/"),
        None,
    )
    .await;
    assert_eq!(hist.body[0]["event"], "ADD", "{}", hist.body);
    // The superseded one stays out of search and lists.
    let list = m0(
        &app,
        KEY,
        Method::POST,
        "/mem0/v3/memories/",
        Some(json!({"filters": {"user_id": "carol"}})),
    )
    .await;
    let texts: Vec<&str> = list.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["memory"].as_str().unwrap())
        .collect();
    assert!(!texts.iter().any(|t| t.contains("Berlin")), "{texts:?}");
    assert_mem0_error(
        &m0(
            &app,
            KEY,
            Method::GET,
            &format!("/mem0/v1/event/{}/", uuid::Uuid::now_v7()),
            None,
        )
        .await,
        404,
        None,
    );
}

#[sqlx::test(migrations = false)]
async fn a_bound_key_reaches_no_other_user_through_the_compat_routes(pool: PgPool) {
    let app = spawn_app(pool).await;
    let bobs = add_verbatim(&app, KEY, "bob", "I live in Oslo.", json!({})).await;
    let alice = bound_key(&app, "alice").await;
    add_verbatim(&app, &alice, "alice", "I live in Rome.", json!({})).await;
    let before: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM memories WHERE user_id = 'bob' AND deleted_at IS NULL",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();

    let id_path = format!("/mem0/v1/memories/{bobs}/");
    assert_mem0_error(
        &m0(&app, &alice, Method::GET, &id_path, None).await,
        404,
        None,
    );
    assert_mem0_error(
        &m0(
            &app,
            &alice,
            Method::PUT,
            &id_path,
            Some(json!({"text": "I live in Paris."})),
        )
        .await,
        404,
        None,
    );
    assert_mem0_error(
        &m0(&app, &alice, Method::DELETE, &id_path, None).await,
        404,
        None,
    );
    assert_mem0_error(
        &m0(
            &app,
            &alice,
            Method::GET,
            &format!("{id_path}history/"),
            None,
        )
        .await,
        404,
        None,
    );
    for filters in [
        json!({"user_id": "bob"}),
        json!({"OR": [{"user_id": "alice"}, {"user_id": "bob"}]}),
    ] {
        let r = m0(
            &app,
            &alice,
            Method::POST,
            "/mem0/v3/memories/search/",
            Some(json!({"query": "live", "filters": filters})),
        )
        .await;
        assert_mem0_error(&r, 403, None);
        let r = m0(
            &app,
            &alice,
            Method::POST,
            "/mem0/v3/memories/",
            Some(json!({"filters": filters})),
        )
        .await;
        assert_mem0_error(&r, 403, None);
    }
    // "*" is every user the key may see: alice only.
    let all = m0(
        &app,
        &alice,
        Method::POST,
        "/mem0/v3/memories/",
        Some(json!({"filters": {"user_id": "*"}})),
    )
    .await;
    assert_eq!(all.body["count"], 1, "{}", all.body);
    assert_mem0_error(
        &m0(
            &app,
            &alice,
            Method::DELETE,
            "/mem0/v1/memories/?user_id=bob",
            None,
        )
        .await,
        403,
        None,
    );
    assert_mem0_error(
        &m0(
            &app,
            &alice,
            Method::DELETE,
            "/mem0/v2/entities/user/bob/",
            None,
        )
        .await,
        403,
        None,
    );
    let batch = m0(
        &app,
        &alice,
        Method::DELETE,
        "/mem0/v1/batch/",
        Some(json!({"memories": [{"memory_id": bobs}]})),
    )
    .await;
    assert_mem0_error(&batch, 404, None);
    let users = m0(&app, &alice, Method::GET, "/mem0/v1/entities/", None).await;
    assert_eq!(users.body["count"], 1, "{}", users.body);
    assert_eq!(users.body["results"][0]["name"], "alice");
    // The OSS routes too.
    let oss = app
        .raw(
            app.client
                .get(app.url(&format!("/mem0-oss/memories/{bobs}")))
                .header("x-api-key", &alice),
        )
        .await;
    assert_mem0_error(&oss, 404, None);
    let oss = app
        .raw(
            app.client
                .post(app.url("/mem0-oss/reset"))
                .header("x-api-key", &alice),
        )
        .await;
    assert_mem0_error(&oss, 403, None);

    let after: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM memories WHERE user_id = 'bob' AND deleted_at IS NULL",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(before, after, "bob's memories are untouched");
}

#[sqlx::test(migrations = false)]
async fn a_batch_is_all_or_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let a = add_verbatim(&app, KEY, "dan", "I like tea.", json!({})).await;
    let b = add_verbatim(&app, KEY, "dan", "I like jazz.", json!({})).await;
    let missing = uuid::Uuid::now_v7().to_string();
    let r = m0(
        &app,
        KEY,
        Method::PUT,
        "/mem0/v1/batch/",
        Some(json!({"memories": [
        {"memory_id": a, "text": "I like green tea."}, {"memory_id": missing, "text": "x"}]})),
    )
    .await;
    assert_mem0_error(&r, 404, None);
    let got = m0(
        &app,
        KEY,
        Method::GET,
        &format!("/mem0/v1/memories/{a}/"),
        None,
    )
    .await;
    assert_eq!(got.body["memory"], "I like tea.", "nothing half-written");
    let r = m0(
        &app,
        KEY,
        Method::PUT,
        "/mem0/v1/batch/",
        Some(json!({"memories": [
        {"memory_id": a, "text": "I like green tea."}, {"memory_id": b, "metadata": {"k": 1}}]})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = m0(
        &app,
        KEY,
        Method::DELETE,
        "/mem0/v1/batch/",
        Some(json!({"memories": [{"memory_id": a}, {"memory_id": b}]})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let list = m0(
        &app,
        KEY,
        Method::POST,
        "/mem0/v3/memories/",
        Some(json!({"filters": {"user_id": "dan"}})),
    )
    .await;
    assert_eq!(list.body["count"], 0, "{}", list.body);
}

#[sqlx::test(migrations = false)]
async fn bad_input_is_a_clear_4xx_in_mem0s_shape(pool: PgPool) {
    let app = spawn_app(pool).await;
    let id = add_verbatim(&app, KEY, "erin", "I like chess.", json!({})).await;
    let search = |body: Value| {
        m0(
            &app,
            KEY,
            Method::POST,
            "/mem0/v3/memories/search/",
            Some(body),
        )
    };
    let mut deep = json!({"user_id": "erin"});
    for _ in 0..50 {
        deep = json!({"AND": [deep]});
    }
    for (body, field) in [
        (
            json!({"query": "chess", "filters": {"user_id": "erin"}, "colour": "red"}),
            "colour",
        ),
        (
            json!({"query": "chess", "filters": deep}),
            "filters.AND[0].AND[0].AND[0].AND[0].AND[0].AND[0].AND[0].AND[0].AND[0]",
        ),
        (
            json!({"query": "chess", "filters": {"user_id": "erin"}, "top_k": 0}),
            "top_k",
        ),
        (
            json!({"query": "chess", "filters": {"user_id": "erin"}, "top_k": 1_000_000_000}),
            "top_k",
        ),
        (
            json!({"query": "chess", "filters": {"user_id": "erin", "colour": "red"}}),
            "filters.colour",
        ),
        (
            json!({"query": "chess", "filters": {"created_at": {"between": [1, 2]}}}),
            "filters.created_at.between",
        ),
        (json!({"query": "chess"}), "filters"),
        (
            json!({"query": "chess", "user_id": "erin", "filters": {"user_id": "erin"}}),
            "user_id",
        ),
        (
            json!({"query": "", "filters": {"user_id": "erin"}}),
            "query",
        ),
        (
            json!({"query": "chess", "filters": {"user_id": "erin"}, "threshold": 7}),
            "threshold",
        ),
    ] {
        assert_mem0_error(&search(body.clone()).await, 400, Some(field));
    }
    let add = |body: Value| {
        m0(
            &app,
            KEY,
            Method::POST,
            "/mem0/v3/memories/add/",
            Some(body),
        )
    };
    for (body, field) in [
        (
            json!({"messages": [{"role": "user", "content": "hi"}]}),
            "user_id",
        ),
        (json!({"messages": [], "user_id": "erin"}), "messages"),
        (
            json!({"messages": [{"role": "robot", "content": "hi"}], "user_id": "erin"}),
            "messages[0].role",
        ),
        (
            json!({"messages": [{"role": "user", "content": {"type": "image_url"}}], "user_id": "erin"}),
            "messages[0].content",
        ),
        (
            json!({"messages": "hi", "user_id": "erin", "custom_instructions": "be nice"}),
            "custom_instructions",
        ),
        (
            json!({"messages": "hi", "user_id": "erin", "expiration_date": "tomorrow"}),
            "expiration_date",
        ),
        (
            json!({"messages": "hi", "user_id": "erin", "mood": 1}),
            "mood",
        ),
    ] {
        assert_mem0_error(&add(body.clone()).await, 400, Some(field));
    }
    // The calendar's edges and huge numbers: refused (by Engram's own
    // range checks underneath), never a 500.
    for body in [
        json!({"messages": "hi", "user_id": "erin", "infer": false, "expiration_date": "9999-12-31"}),
        json!({"messages": "hi", "user_id": "erin", "infer": false, "timestamp": 1_000_000_000_000_000_i64}),
        json!({"messages": "hi", "user_id": "erin", "infer": false, "timestamp": -100_000_000_000_i64}),
    ] {
        assert_mem0_error(&add(body.clone()).await, 400, None);
    }
    for filters in [
        json!({"AND": [{"user_id": "erin"}, {"created_at": {"gte": "0000-01-01"}}]}),
        json!({"AND": [{"user_id": "erin"}, {"created_at": {"lte": 99_999_999_999_999_i64}}]}),
    ] {
        let r = search(json!({"query": "chess", "filters": filters})).await;
        assert!(
            r.status == 200 || r.status == 400,
            "{} {}",
            r.status,
            r.body
        );
        assert_eq!(r.content_type, "application/json");
    }
    // Ids that are no memory id, with slashes and unicode, encoded or not.
    for path in [
        "/mem0/v1/memories/not-a-uuid/",
        "/mem0/v1/memories/%E2%9C%93%2F..%2F/",
        "/mem0/v1/memories/✓/",
    ] {
        let r = m0(&app, KEY, Method::GET, path, None).await;
        assert!(
            r.status == 400 || r.status == 404,
            "{path}: {} {}",
            r.status,
            r.body
        );
        assert_eq!(r.content_type, "application/json", "{path}");
    }
    let r = m0(&app, KEY, Method::GET, "/mem0/v1/memories/a/b/c/", None).await;
    assert_mem0_error(&r, 404, None);
    let r = m0(
        &app,
        KEY,
        Method::POST,
        "/mem0/v3/memories/?page=0",
        Some(json!({"filters": {"user_id": "erin"}})),
    )
    .await;
    assert_mem0_error(&r, 400, Some("page"));
    // 10 MB: refused before anything is read into a write.
    let huge = "x".repeat(10 << 20);
    let r = add(
        json!({"messages": [{"role": "user", "content": huge}], "user_id": "erin", "infer": false}),
    )
    .await;
    assert_mem0_error(&r, 413, None);
    let r = app
        .raw(
            app.client
                .post(app.url("/mem0/v3/memories/add/"))
                .header("authorization", format!("Token {KEY}"))
                .header("content-type", "application/json")
                .body("{not json"),
        )
        .await;
    assert_mem0_error(&r, 400, None);
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM memories WHERE user_id = 'erin'")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(count, 1, "nothing was written by the refused calls");
    let got = m0(
        &app,
        KEY,
        Method::GET,
        &format!("/mem0/v1/memories/{id}/"),
        None,
    )
    .await;
    assert_eq!(got.status, 200);
}

#[sqlx::test(migrations = false)]
async fn the_oss_routes_speak_the_oss_servers_shape(pool: PgPool) {
    let app = spawn_app(pool).await;
    let oss = |method: Method, path: &str, body: Option<Value>| {
        let mut req = app
            .client
            .request(method, app.url(path))
            .header("x-api-key", KEY);
        if let Some(b) = body {
            req = req.json(&b);
        }
        app.raw(req)
    };
    let r = oss(Method::POST, "/mem0-oss/memories", Some(json!({"messages": [{"role": "user", "content": "I live in Madrid."}], "user_id": "fay"}))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body["results"][0]["event"], "ADD",
        "an inferred add is waited for: {}",
        r.body
    );
    let id = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    let r = oss(
        Method::POST,
        "/mem0-oss/search",
        Some(json!({"query": "where does fay live", "user_id": "fay"})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(
        r.body["results"][0]["memory"]
            .as_str()
            .unwrap()
            .contains("Madrid"),
        "{}",
        r.body
    );
    // The fact, and the message kept as it was said (episodic).
    let r = oss(Method::GET, "/mem0-oss/memories?user_id=fay", None).await;
    let kinds: Vec<&str> = r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["semantic", "episodic"], "{}", r.body);
    let r = oss(
        Method::PUT,
        &format!("/mem0-oss/memories/{id}"),
        Some(json!({"text": "Fay lives in Seville."})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = oss(
        Method::GET,
        &format!("/mem0-oss/memories/{id}/history"),
        None,
    )
    .await;
    assert_eq!(r.body.as_array().unwrap().len(), 2, "{}", r.body);
    let r = oss(Method::DELETE, &format!("/mem0-oss/memories/{id}"), None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    oss(Method::POST, "/mem0-oss/memories", Some(json!({"messages": [{"role": "user", "content": "I like opera."}], "user_id": "gus", "infer": false}))).await;
    let r = oss(Method::POST, "/mem0-oss/reset", None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = oss(Method::GET, "/mem0-oss/memories?user_id=gus", None).await;
    assert_eq!(r.body["results"], json!([]), "{}", r.body);
    let r = app
        .raw(
            app.client
                .get(app.url("/mem0-oss/memories?user_id=gus"))
                .header("x-api-key", "wrong"),
        )
        .await;
    assert_mem0_error(&r, 401, None);
}

/// Issue 51 (low): a Mem0 request is made of several REST calls, each
/// counted against the key's rate limit, so a batch refused halfway had
/// done part of its work. Now the request is counted once, as a whole.
#[sqlx::test(migrations = false)]
async fn a_mem0_fan_out_is_counted_once_and_never_refused_halfway(pool: PgPool) {
    let config = engram_api::ApiConfig {
        rate_limit: Some(engram_api::RateLimit {
            per_second: std::num::NonZeroU32::new(1).unwrap(),
            burst: std::num::NonZeroU32::new(4).unwrap(),
        }),
        ..Default::default()
    };
    let app = crate::common::TestApp::builder(pool)
        .config(config)
        .spawn()
        .await;
    let mut ids = Vec::new();
    for text in ["I like tea.", "I like jazz.", "I like chess."] {
        ids.push(add_verbatim(&app, KEY, "eve", text, json!({})).await);
    }
    // The bucket refills to its burst: one request's worth is four calls.
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    let memories: Vec<Value> = ids.iter().map(|id| json!({"memory_id": id})).collect();
    let r = m0(
        &app,
        KEY,
        Method::DELETE,
        "/mem0/v1/batch/",
        Some(json!({"memories": memories})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let live: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM memories WHERE user_id = 'eve' AND deleted_at IS NULL AND said_by IS NULL",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(live, 0, "every memory of the batch was deleted");
}
