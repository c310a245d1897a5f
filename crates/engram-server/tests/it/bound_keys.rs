//! Keys bound to one user (and agent): through every authenticated route, a
//! key bound to ann neither reads nor changes anything of bob's, whether it
//! names bob, one of bob's ids, or a scope that would include him. A test
//! that misses a route fails: the routes tried are compared with the router.

use std::collections::BTreeSet;

use crate::common::{spawn_app, Reply, TestApp};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::PgPool;

struct Bound<'a> {
    app: &'a TestApp,
    key: String,
    tried: BTreeSet<(String, &'static str)>,
}

impl Bound<'_> {
    async fn call(
        &mut self,
        method: Method,
        template: &'static str,
        path: &str,
        body: Option<Value>,
    ) -> Reply {
        self.tried.insert((method.to_string(), template));
        self.app
            .send_as(Some(&self.key), None, method, path, body)
            .await
    }
}

async fn bound_key(app: &TestApp, role: &str, user: &str, agent: Option<&str>) -> String {
    let r = app
        .post(
            "/v1/admin/keys",
            json!({"role": role, "tenant": "default", "name": "device", "user_id": user, "agent_id": agent}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(r.body["user_id"], user);
    assert_eq!(r.body["agent_id"], json!(agent));
    r.body["key"].as_str().unwrap().to_owned()
}

/// Sends as `key` and checks the status; the reply.
async fn expect(
    app: &TestApp,
    key: &str,
    (method, path, body): (Method, &str, Option<Value>),
    status: StatusCode,
) -> Reply {
    let r = app
        .send_as(Some(key), None, method.clone(), path, body)
        .await;
    assert_eq!(r.status, status, "{method} {path}: {}", r.body);
    r
}

/// What bob has, as the admin sees it: every row of his, for before/after.
async fn bobs_rows(app: &TestApp) -> Value {
    let memories: Vec<(String, String, bool)> = sqlx::query_as(
        "SELECT id::text, content, deleted_at IS NOT NULL FROM memories WHERE user_id = 'bob' ORDER BY id",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let turns: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM session_messages JOIN sessions USING (tenant_id, session_id)
         WHERE sessions.user_id = 'bob'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    let history: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM memory_history h JOIN memories m ON m.id = h.memory_id WHERE m.user_id = 'bob'",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    json!({"memories": memories, "turns": turns, "history": history})
}

fn assert_no_bob(r: &Reply, what: &str) {
    let text = r.body.to_string();
    assert!(
        !text.contains("bob") && !text.contains("Bob's secret"),
        "{what}: {text}"
    );
}

#[sqlx::test(migrations = false)]
async fn a_bound_key_never_reaches_another_users_data(pool: PgPool) {
    let app = spawn_app(pool).await;
    // bob's data in every kind of row: memories (one with history), a
    // session with turns, a job.
    let bob_memory = app
        .add_text("bob", "Bob's secret: the vault code is 1234.")
        .await;
    app.patch(
        &format!("/v1/memories/{bob_memory}"),
        json!({"memory": "Bob's secret: the vault code is 4321."}),
    )
    .await;
    let r = app
        .post(
            "/v1/sessions/bob-chat/messages",
            json!({"user_id": "bob", "messages": [{"role": "user", "content": "Bob's secret hobby is fencing."}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let bob_job = app
        .infer("bob", "I work at Bob's secret employer Acme.")
        .await["job_id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.settle().await;
    let ann_memory = app.add_text("ann", "I like green tea.").await;
    let before = bobs_rows(&app).await;

    let mut ann = Bound {
        app: &app,
        key: bound_key(&app, "tenant", "ann", None).await,
        tried: BTreeSet::new(),
    };
    let bob_m = format!("/v1/memories/{bob_memory}");

    // Who the key is.
    let r = ann.call(Method::GET, "/v1/me", "/v1/me", None).await;
    assert_eq!(r.body["user_id"], "ann", "{}", r.body);

    // Who holds memories: only ann, whatever the kind.
    for kind in ["user", "agent", "session"] {
        let path = format!("/v1/entities?type={kind}");
        let r = ann.call(Method::GET, "/v1/entities", &path, None).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        assert!(!r.body.to_string().contains("bob"), "{}", r.body);
    }
    // A batch naming one of bob's memories is refused whole, as not found.
    let b = "/v1/memories/batch";
    for body in [
        json!({"update": [{"id": ann_memory, "memory": "I like tea."}, {"id": bob_memory, "memory": "x"}]}),
        json!({"delete": [bob_memory]}),
    ] {
        ann.call(Method::POST, b, b, Some(body))
            .await
            .assert_problem(404, None);
    }
    let r = ann
        .call(
            Method::GET,
            "/v1/memories/{id}",
            &format!("/v1/memories/{ann_memory}"),
            None,
        )
        .await;
    assert_eq!(
        r.body["memory"], "I like green tea.",
        "nothing of the batch was written"
    );

    // Naming bob: 403, whatever the route.
    for (method, template, path, body) in [
        (
            Method::POST,
            "/v1/memories",
            "/v1/memories".to_owned(),
            Some(json!({"user_id": "bob", "text": "I am bob now.", "infer": false})),
        ),
        (
            Method::GET,
            "/v1/memories",
            "/v1/memories?user_id=bob".to_owned(),
            None,
        ),
        (
            Method::GET,
            "/v1/jobs",
            "/v1/jobs?user_id=bob".to_owned(),
            None,
        ),
        (
            Method::DELETE,
            "/v1/memories",
            "/v1/memories?user_id=bob".to_owned(),
            None,
        ),
        (
            Method::POST,
            "/v1/memories/search",
            "/v1/memories/search".to_owned(),
            Some(json!({"user_id": "bob", "query": "secret"})),
        ),
        (
            Method::POST,
            "/v1/context",
            "/v1/context".to_owned(),
            Some(json!({"user_id": "bob", "query": "secret", "token_budget": 500})),
        ),
        (
            Method::GET,
            "/v1/users/{user_id}/profile",
            "/v1/users/bob/profile".to_owned(),
            None,
        ),
        (
            Method::PATCH,
            "/v1/users/{user_id}/profile",
            "/v1/users/bob/profile".to_owned(),
            Some(json!({"id": bob_memory, "remove": true})),
        ),
        (
            Method::POST,
            "/v1/sessions/{session_id}/messages",
            "/v1/sessions/bob-chat/messages".to_owned(),
            Some(json!({"user_id": "bob", "messages": [{"role": "user", "content": "hi"}]})),
        ),
    ] {
        let r = ann.call(method.clone(), template, &path, body).await;
        assert_eq!(
            r.status,
            StatusCode::FORBIDDEN,
            "{method} {path}: {}",
            r.body
        );
        assert_no_bob(&r, &path);
    }

    // bob's ids: not found, as in another tenant.
    for (method, template, path, body) in [
        (Method::GET, "/v1/memories/{id}", bob_m.clone(), None),
        (
            Method::PATCH,
            "/v1/memories/{id}",
            bob_m.clone(),
            Some(json!({"memory": "I am ann's now."})),
        ),
        (
            Method::GET,
            "/v1/memories/{id}/history",
            format!("{bob_m}/history"),
            None,
        ),
        (
            Method::POST,
            "/v1/memories/{id}/revert",
            format!("{bob_m}/revert"),
            None,
        ),
        (Method::DELETE, "/v1/memories/{id}", bob_m.clone(), None),
        (
            Method::GET,
            "/v1/jobs/{id}",
            format!("/v1/jobs/{bob_job}"),
            None,
        ),
        (
            Method::POST,
            "/v1/jobs/{id}/retry",
            format!("/v1/jobs/{bob_job}/retry"),
            Some(json!({})),
        ),
        (
            Method::GET,
            "/v1/sessions/{session_id}",
            "/v1/sessions/bob-chat".to_owned(),
            None,
        ),
        (
            Method::GET,
            "/v1/sessions/{session_id}/messages",
            "/v1/sessions/bob-chat/messages".to_owned(),
            None,
        ),
        (
            Method::DELETE,
            "/v1/sessions/{session_id}/messages",
            "/v1/sessions/bob-chat/messages".to_owned(),
            None,
        ),
        // Appending as ann to bob's session.
        (
            Method::POST,
            "/v1/sessions/{session_id}/messages",
            "/v1/sessions/bob-chat/messages".to_owned(),
            Some(json!({"user_id": "ann", "messages": [{"role": "user", "content": "hi"}]})),
        ),
        // A profile entry of bob's through ann's profile.
        (
            Method::PATCH,
            "/v1/users/{user_id}/profile",
            "/v1/users/ann/profile".to_owned(),
            Some(json!({"id": bob_memory, "remove": true})),
        ),
    ] {
        let r = ann.call(method.clone(), template, &path, body).await;
        assert_eq!(
            r.status,
            StatusCode::NOT_FOUND,
            "{method} {path}: {}",
            r.body
        );
        assert_no_bob(&r, &path);
    }

    // Scopes that would include bob are narrowed to ann.
    for body in [
        json!({"query": "secret vault code fencing employer"}),
        json!({"session_id": "bob-chat", "query": "secret hobby"}),
        json!({"agent_id": "any", "query": "secret"}),
    ] {
        let r = ann
            .call(
                Method::POST,
                "/v1/memories/search",
                "/v1/memories/search",
                Some(body.clone()),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{body}: {}", r.body);
        assert_no_bob(&r, &body.to_string());
    }
    let r = ann
        .call(Method::GET, "/v1/memories", "/v1/memories", None)
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let listed: Vec<&str> = r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["user_id"].as_str().unwrap())
        .collect();
    assert_eq!(listed, ["ann"]);
    let r = ann
        .call(
            Method::GET,
            "/v1/memories",
            "/v1/memories?session_id=bob-chat",
            None,
        )
        .await;
    assert_eq!(r.body["results"], json!([]), "{}", r.body);
    let r = ann
        .call(
            Method::POST,
            "/v1/context",
            "/v1/context",
            Some(json!({"user_id": "ann", "session_id": "bob-chat", "query": "secret", "token_budget": 500})),
        )
        .await;
    assert_eq!(r.status, StatusCode::NOT_FOUND, "bob's session: {}", r.body);
    let r = ann
        .call(
            Method::POST,
            "/v1/context",
            "/v1/context",
            Some(json!({"user_id": "ann", "query": "secret vault", "token_budget": 500})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_no_bob(&r, "context");
    let r = ann
        .call(
            Method::GET,
            "/v1/users/{user_id}/profile",
            "/v1/users/ann/profile",
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);

    // What ann's key writes is ann's, with or without naming her.
    let r = ann
        .call(
            Method::POST,
            "/v1/memories",
            "/v1/memories",
            Some(json!({"text": "I play the cello.", "infer": false})),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let cello = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    let r = ann
        .call(
            Method::GET,
            "/v1/memories/{id}",
            &format!("/v1/memories/{cello}"),
            None,
        )
        .await;
    assert_eq!(r.body["user_id"], "ann", "{}", r.body);
    let r = ann
        .call(
            Method::POST,
            "/v1/memories",
            "/v1/memories",
            Some(json!({"text": "I moved to Lisbon.", "wait": true})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let job = r.body["job_id"].as_str().unwrap().to_owned();
    let r = ann
        .call(
            Method::GET,
            "/v1/jobs/{id}",
            &format!("/v1/jobs/{job}"),
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "ann's own job: {}", r.body);
    // The job list: ann's jobs only, whatever it narrows by.
    for path in [
        "/v1/jobs",
        "/v1/jobs?session_id=bob-chat",
        "/v1/jobs?status=done",
    ] {
        let r = ann.call(Method::GET, "/v1/jobs", path, None).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.body);
        assert_no_bob(&r, path);
        assert!(r.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|j| j["user_id"] == "ann"));
    }
    for (method, template, path, body) in [
        (
            Method::PATCH,
            "/v1/memories/{id}",
            format!("/v1/memories/{ann_memory}"),
            Some(json!({"pinned": true})),
        ),
        (
            Method::GET,
            "/v1/memories/{id}/history",
            format!("/v1/memories/{ann_memory}/history"),
            None,
        ),
        (
            Method::POST,
            "/v1/memories/{id}/revert",
            format!("/v1/memories/{ann_memory}/revert"),
            None,
        ),
        (
            Method::POST,
            "/v1/sessions/{session_id}/messages",
            "/v1/sessions/ann-chat/messages".to_owned(),
            Some(
                json!({"user_id": "ann", "messages": [{"role": "user", "content": "I like jazz."}]}),
            ),
        ),
        (
            Method::GET,
            "/v1/sessions/{session_id}",
            "/v1/sessions/ann-chat".to_owned(),
            None,
        ),
        (
            Method::GET,
            "/v1/sessions/{session_id}/messages",
            "/v1/sessions/ann-chat/messages".to_owned(),
            None,
        ),
        (
            Method::DELETE,
            "/v1/sessions/{session_id}/messages",
            "/v1/sessions/ann-chat/messages".to_owned(),
            None,
        ),
        (
            Method::DELETE,
            "/v1/memories/{id}",
            format!("/v1/memories/{cello}"),
            None,
        ),
        (
            Method::DELETE,
            "/v1/memories",
            "/v1/memories?agent_id=nobody".to_owned(),
            None,
        ),
    ] {
        let r = ann.call(method.clone(), template, &path, body).await;
        assert!(
            r.status.is_success(),
            "{method} {path}: {} {}",
            r.status,
            r.body
        );
    }

    // Its own deleted memory: history and undo reach it.
    let r = ann
        .call(
            Method::GET,
            "/v1/memories/{id}/history",
            &format!("/v1/memories/{cello}/history"),
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = ann
        .call(
            Method::POST,
            "/v1/memories/{id}/revert",
            &format!("/v1/memories/{cello}/revert"),
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "undelete: {}", r.body);

    // Tenant-wide and deployment-wide operations: refused.
    for (method, template, path) in [
        (
            Method::GET,
            "/v1/admin/users/{user_id}",
            "/v1/admin/users/ann".to_owned(),
        ),
        (
            Method::GET,
            "/v1/admin/users/{user_id}/memories",
            "/v1/admin/users/ann/memories".to_owned(),
        ),
        (
            Method::POST,
            "/v1/admin/users/{user_id}/search",
            "/v1/admin/users/ann/search".to_owned(),
        ),
        (
            Method::DELETE,
            "/v1/admin/users/{user_id}/memories/{id}",
            format!("/v1/admin/users/bob/memories/{bob_memory}"),
        ),
        (
            Method::GET,
            "/v1/admin/users/{user_id}/export",
            "/v1/admin/users/ann/export".to_owned(),
        ),
        (
            Method::DELETE,
            "/v1/admin/users/{user_id}",
            "/v1/admin/users/bob".to_owned(),
        ),
        (
            Method::DELETE,
            "/v1/admin/sources/{source_ref}",
            "/v1/admin/sources/session:bob-chat".to_owned(),
        ),
        (Method::POST, "/v1/admin/keys", "/v1/admin/keys".to_owned()),
        (Method::GET, "/v1/admin/keys", "/v1/admin/keys".to_owned()),
        (
            Method::DELETE,
            "/v1/admin/keys/{id}",
            "/v1/admin/keys/00000000-0000-0000-0000-000000000001".to_owned(),
        ),
        (Method::GET, "/v1/admin/audit", "/v1/admin/audit".to_owned()),
        (
            Method::POST,
            "/v1/admin/consolidate",
            "/v1/admin/consolidate".to_owned(),
        ),
        (
            Method::GET,
            "/v1/admin/consolidation-runs",
            "/v1/admin/consolidation-runs".to_owned(),
        ),
    ] {
        let body = (method == Method::POST).then(|| json!({"query": "x"}));
        let r = ann.call(method.clone(), template, &path, body).await;
        assert_eq!(
            r.status,
            StatusCode::FORBIDDEN,
            "{method} {path}: {}",
            r.body
        );
    }

    // bob's rows are as they were.
    app.settle().await;
    assert_eq!(bobs_rows(&app).await, before);

    // Every authenticated route was tried.
    let authenticated: BTreeSet<(String, &'static str)> = engram_api::route_access()
        .into_iter()
        .filter(|(_, _, access)| access.is_some())
        .map(|(m, p, _)| (m.to_string(), p))
        .collect();
    let missed: Vec<_> = authenticated.difference(&ann.tried).collect();
    assert!(
        missed.is_empty(),
        "routes not tried with a bound key: {missed:?}"
    );
}

#[sqlx::test(migrations = false)]
async fn an_agent_binding_narrows_to_that_agent(pool: PgPool) {
    let app = spawn_app(pool).await;
    for (agent, text) in [("helper", "I like sushi."), ("coach", "I run 5k daily.")] {
        let r = app
            .post(
                "/v1/memories",
                json!({"user_id": "ann", "agent_id": agent, "text": text, "infer": false}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    let coach_memory: String =
        sqlx::query_scalar("SELECT id::text FROM memories WHERE agent_id = 'coach'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    let key = bound_key(&app, "read-only", "ann", Some("helper")).await;
    let r = expect(
        &app,
        &key,
        (Method::GET, "/v1/memories", None),
        StatusCode::OK,
    )
    .await;
    let texts: Vec<&str> = r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["memory"].as_str().unwrap())
        .collect();
    assert_eq!(texts, ["I like sushi."], "{}", r.body);
    expect(
        &app,
        &key,
        (Method::GET, "/v1/memories?agent_id=coach", None),
        StatusCode::FORBIDDEN,
    )
    .await;
    expect(
        &app,
        &key,
        (Method::GET, &format!("/v1/memories/{coach_memory}"), None),
        StatusCode::NOT_FOUND,
    )
    .await;
    let r = expect(
        &app,
        &key,
        (Method::GET, "/v1/users/ann/profile", None),
        StatusCode::OK,
    )
    .await;
    assert!(!r.body.to_string().contains("5k"), "{}", r.body);
    // A session is its user's, whatever agent the key is bound to.
    for (user, session) in [("ann", "ann-talk"), ("bob", "bob-talk")] {
        let r = app
            .post(
                &format!("/v1/sessions/{session}/messages"),
                json!({"user_id": user, "infer": false, "messages": [{"role": "user", "content": "hello"}]}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    expect(
        &app,
        &key,
        (Method::GET, "/v1/sessions/ann-talk", None),
        StatusCode::OK,
    )
    .await;
    expect(
        &app,
        &key,
        (Method::GET, "/v1/sessions/ann-talk/messages", None),
        StatusCode::OK,
    )
    .await;
    expect(
        &app,
        &key,
        (Method::GET, "/v1/sessions/bob-talk", None),
        StatusCode::NOT_FOUND,
    )
    .await;
    // Read-only stays read-only.
    expect(
        &app,
        &key,
        (
            Method::POST,
            "/v1/memories",
            Some(json!({"text": "x", "infer": false})),
        ),
        StatusCode::FORBIDDEN,
    )
    .await;
}

#[sqlx::test(migrations = false)]
async fn bindings_are_checked_when_keys_are_made(pool: PgPool) {
    let app = spawn_app(pool).await;
    for (body, field) in [
        (
            json!({"role": "admin", "name": "a", "user_id": "ann"}),
            "user_id",
        ),
        (
            json!({"role": "tenant", "tenant": "default", "name": "a", "agent_id": "x"}),
            "agent_id",
        ),
        (
            json!({"role": "tenant", "tenant": "default", "name": "a", "user_id": ""}),
            "user_id",
        ),
        (
            json!({"role": "tenant", "tenant": "default", "name": "a", "user_id": "a".repeat(300)}),
            "user_id",
        ),
        (
            json!({"role": "tenant", "tenant": "default", "name": "a", "user_id": "ann\u{0}"}),
            "user_id",
        ),
        (
            json!({"role": "tenant", "tenant": "default", "name": "a", "user_id": 5}),
            "user_id",
        ),
    ] {
        let r = app.post("/v1/admin/keys", body.clone()).await;
        r.assert_problem(422, Some(field));
    }
    let keys: i64 = sqlx::query_scalar("SELECT count(*) FROM api_keys")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(keys, 0, "nothing half-made");
    // Unicode ids bind and compare exactly.
    let key = bound_key(&app, "tenant", "Zoë-🦊", None).await;
    expect(
        &app,
        &key,
        (
            Method::POST,
            "/v1/memories",
            Some(json!({"text": "I like foxes.", "infer": false})),
        ),
        StatusCode::CREATED,
    )
    .await;
    expect(
        &app,
        &key,
        (
            Method::GET,
            "/v1/memories?user_id=Zoe%CC%88-%F0%9F%A6%8A",
            None,
        ),
        StatusCode::FORBIDDEN,
    )
    .await;
    let listed = app.get("/v1/admin/keys").await;
    assert_eq!(listed.body["results"][0]["user_id"], "Zoë-🦊");
}

/// bob's turns as stored, oldest first.
async fn bobs_turns(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT content FROM session_messages JOIN sessions USING (tenant_id, session_id)
         WHERE sessions.user_id = 'bob' ORDER BY seq",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

/// A session belongs to one user: naming bob's session in an add (as its
/// `session_id` or as a `session:` source) is "not found" to a key bound to
/// ann and a conflict to an unbound key, whatever the path (verbatim,
/// inferred, raw copies); and a delete of ann's memories never redacts bob's
/// turns or summary, nor do its counts say whether a word is in them.
#[sqlx::test(migrations = false)]
async fn naming_another_users_session_is_refused_and_reaches_nothing(pool: PgPool) {
    let app = spawn_app(pool).await;
    let r = app
        .post(
            "/v1/sessions/bob-chat/messages",
            json!({"user_id": "bob", "infer": false, "messages": [
                {"role": "user", "content": "I live in Reykjavik."},
                {"role": "assistant", "content": "Noted."}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let turns_before = bobs_turns(&app).await;
    let ann = bound_key(&app, "tenant", "ann", None).await;

    let adds = [
        json!({"text": "I live in Reykjavik.", "infer": false, "session_id": "bob-chat"}),
        json!({"text": "I live in Reykjavik.", "infer": false,
               "source": {"type": "document", "ref": "session:bob-chat"}}),
        json!({"messages": [{"role": "user", "content": "I live in Reykjavik."}],
               "session_id": "bob-chat", "store_raw": true}),
        json!({"messages": [{"role": "user", "content": "I live in Reykjavik."}],
               "source": {"type": "user_stated", "ref": "session:bob-chat"}}),
    ];
    for body in &adds {
        let r = expect(
            &app,
            &ann,
            (Method::POST, "/v1/memories", Some(body.clone())),
            StatusCode::NOT_FOUND,
        )
        .await;
        r.assert_problem(404, None);
        // The admin key, for ann: a conflict, not a write.
        let mut as_admin = body.clone();
        as_admin["user_id"] = "ann".into();
        let r = app.post("/v1/memories", as_admin).await;
        r.assert_problem(409, None);
        assert_eq!(r.body["type"], "urn:engram:problem:session-owner");
    }
    // An agent-only memory may not name a user's session either.
    let r = app
        .post(
            "/v1/memories",
            json!({"agent_id": "helper", "text": "x", "infer": false, "session_id": "bob-chat"}),
        )
        .await;
    r.assert_problem(409, None);
    // bob's own turn is kept as he said it; nothing of ann's was written.
    let others: i64 =
        sqlx::query_scalar("SELECT count(*) FROM memories WHERE user_id IS DISTINCT FROM 'bob'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(others, 0, "nothing was written");
    assert_eq!(app.count_rows("jobs").await, 0, "nothing was queued");

    // Rows that name bob's session anyway (written before this check, or
    // a session bob opened after ann's memory named it): deleting them
    // reaches only ann's own sessions, and the counts say nothing of bob's.
    for (agent, text) in [("a1", "I live in Reykjavik."), ("a2", "I live in Oslo.")] {
        let r = app
            .post(
                "/v1/memories",
                json!({"user_id": "ann", "agent_id": agent, "text": text, "infer": false}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    }
    sqlx::query(
        "UPDATE memories SET session_id = 'bob-chat', source_ref = 'session:bob-chat' WHERE user_id = 'ann'",
    )
    .execute(&app.pool)
    .await
    .unwrap();
    let mut counts = Vec::new();
    for agent in ["a1", "a2"] {
        let r = expect(
            &app,
            &ann,
            (
                Method::DELETE,
                &format!("/v1/memories?agent_id={agent}&session_id=bob-chat"),
                None,
            ),
            StatusCode::OK,
        )
        .await;
        counts.push(r.body["counts"].clone());
    }
    assert_eq!(
        counts[0], counts[1],
        "a word in bob's turns or not: the same counts"
    );
    assert_eq!(counts[0]["session_messages_redacted"], 0, "{}", counts[0]);
    let id = app.add_text("ann", "I live in Reykjavik.").await;
    sqlx::query("UPDATE memories SET session_id = 'bob-chat' WHERE id = $1::uuid")
        .bind(&id)
        .execute(&app.pool)
        .await
        .unwrap();
    expect(
        &app,
        &ann,
        (Method::DELETE, &format!("/v1/memories/{id}"), None),
        StatusCode::NO_CONTENT,
    )
    .await;
    assert_eq!(
        bobs_turns(&app).await,
        turns_before,
        "bob's turns unchanged"
    );
}

/// Undoing a SUPERSEDE retires the memory that replaced it; for a key bound
/// to one agent that must be its agent's too (consolidation resolves a
/// user's conflicts across agents).
#[sqlx::test(migrations = false)]
async fn a_revert_never_retires_another_agents_memory(pool: PgPool) {
    let app = spawn_app(pool).await;
    let add = |agent: &'static str, text: &'static str| {
        let app = &app;
        async move {
            let r = app
                .post(
                    "/v1/memories",
                    json!({"user_id": "ann", "agent_id": agent, "text": text, "infer": false}),
                )
                .await;
            r.body["results"][0]["id"].as_str().unwrap().to_owned()
        }
    };
    let old = add("a1", "I live in Rome.").await;
    let new = add("a2", "I live in Oslo.").await;
    sqlx::query("UPDATE memories SET superseded_by = $2::uuid WHERE id = $1::uuid")
        .bind(&old)
        .bind(&new)
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, new_content, actor, reason)
         SELECT tenant_id, gen_random_uuid(), id, 'SUPERSEDE', content, 'I live in Oslo.', 'test', 'consolidation'
         FROM memories WHERE id = $1::uuid",
    )
    .bind(&old)
    .execute(&app.pool)
    .await
    .unwrap();
    let a1 = bound_key(&app, "tenant", "ann", Some("a1")).await;
    let r = expect(
        &app,
        &a1,
        (Method::POST, &format!("/v1/memories/{old}/revert"), None),
        StatusCode::CONFLICT,
    )
    .await;
    assert_eq!(r.body["type"], "urn:engram:problem:not-revertible");
    let successor: Option<String> =
        sqlx::query_scalar("SELECT superseded_by::text FROM memories WHERE id = $1::uuid")
            .bind(&new)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(successor, None, "a2's memory is untouched");
    // A key bound to the user (any agent) may.
    let ann = bound_key(&app, "tenant", "ann", None).await;
    expect(
        &app,
        &ann,
        (Method::POST, &format!("/v1/memories/{old}/revert"), None),
        StatusCode::OK,
    )
    .await;
}
