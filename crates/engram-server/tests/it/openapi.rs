//! `openapi.yaml` describes exactly what the server does: the same operations as
//! the router, and every response of a scenario that touches each operation
//! (successes and errors) matches the documented status, content type and schema.

use std::collections::BTreeSet;

use crate::common::{spawn_app, Reply, TestApp, KEY};
use reqwest::{header, Method};
use serde_json::{json, Value};
use sqlx::PgPool;

fn spec() -> Value {
    serde_yaml::from_str(engram_api::OPENAPI_YAML).expect("openapi.yaml parses")
}

const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

fn spec_operations(spec: &Value) -> BTreeSet<(String, String)> {
    let mut ops = BTreeSet::new();
    for (path, item) in spec["paths"].as_object().expect("paths") {
        for m in METHODS {
            if item.get(m).is_some() {
                ops.insert((m.to_uppercase(), path.clone()));
            }
        }
    }
    ops
}

#[test]
fn the_router_and_the_spec_have_the_same_operations() {
    let spec = spec();
    let router: BTreeSet<(String, String)> = engram_api::route_table()
        .into_iter()
        .map(|(m, p)| (m.to_string(), p.to_owned()))
        .collect();
    let documented = spec_operations(&spec);
    assert_eq!(
        router, documented,
        "router (left) and openapi.yaml (right) disagree"
    );

    // Every operation id is a handler name, unique.
    let mut ids = BTreeSet::new();
    for (_, item) in spec["paths"].as_object().unwrap() {
        for m in METHODS {
            if let Some(op) = item.get(m) {
                assert!(ids.insert(op["operationId"].as_str().expect("operationId").to_owned()));
            }
        }
    }
}

/// The endpoints that are not REST operations (the MCP endpoint) are listed
/// in the spec as such, and served: behind the API's keys, speaking JSON-RPC.
#[sqlx::test(migrations = false)]
async fn the_non_rest_endpoints_are_documented_and_served(pool: PgPool) {
    let spec = spec();
    let documented: Vec<&str> = spec["x-non-rest-endpoints"]
        .as_array()
        .expect("x-non-rest-endpoints")
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(documented, engram_server::mcp::NON_REST_ENDPOINTS);
    assert!(spec["paths"].get("/mcp").is_none(), "not a REST operation");
    let app = spawn_app(pool).await;
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let post = |key: Option<&'static str>| {
        let mut req = app
            .client
            .post(app.url("/mcp"))
            .header("accept", "application/json, text/event-stream")
            .json(&init);
        if let Some(k) = key {
            req = req.bearer_auth(k);
        }
        app.raw(req)
    };
    post(None).await.assert_problem(401, None);
    let r = post(Some(KEY)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body["result"]["serverInfo"]["name"], "engram",
        "{}",
        r.body
    );
}

/// Checks replies against the documented response of their operation.
struct Conformance {
    spec: Value,
    checked: BTreeSet<(String, String, u16)>,
}

impl Conformance {
    fn check(&mut self, method: &str, template: &str, reply: &Reply) {
        let op = &self.spec["paths"][template][method.to_lowercase()];
        assert!(op.is_object(), "{method} {template} is not documented");
        let status = reply.status.as_u16().to_string();
        let mut response = &op["responses"][&status];
        assert!(
            response.is_object(),
            "{method} {template} answered {status}, which is not documented: {}",
            reply.body
        );
        if let Some(r) = response.get("$ref").and_then(Value::as_str) {
            response = self.resolve(r);
        }
        match response.get("content").and_then(Value::as_object) {
            None => assert!(
                reply.body.is_null(),
                "{method} {template} {status}: documented without a body"
            ),
            Some(content) => {
                let (media, body) = content.iter().next().expect("one media type");
                assert_eq!(&reply.content_type, media, "{method} {template} {status}");
                let mut schema = body["schema"].clone();
                schema["components"] = self.spec["components"].clone();
                let validator = jsonschema::draft202012::new(&schema).expect("schema compiles");
                let errors: Vec<String> = validator
                    .iter_errors(&reply.body)
                    .map(|e| format!("{e} at {}", e.instance_path()))
                    .collect();
                assert!(
                    errors.is_empty(),
                    "{method} {template} {status}: {errors:?}\nbody: {}",
                    reply.body
                );
            }
        }
        self.checked.insert((
            method.to_owned(),
            template.to_owned(),
            reply.status.as_u16(),
        ));
    }

    fn resolve(&self, reference: &str) -> &Value {
        let mut node = &self.spec;
        for part in reference.trim_start_matches("#/").split('/') {
            node = &node[part];
        }
        node
    }
}

async fn call(
    app: &TestApp,
    c: &mut Conformance,
    method: Method,
    path: &str,
    template: &str,
    body: Option<Value>,
) -> Reply {
    let reply = app.send(method.clone(), path, body).await;
    c.check(method.as_str(), template, &reply);
    reply
}

#[sqlx::test(migrations = false)]
async fn every_response_matches_the_spec(pool: PgPool) {
    let app = spawn_app(pool).await;
    let mut c = Conformance {
        spec: spec(),
        checked: BTreeSet::new(),
    };
    let (m, ms, s, h) = (
        "/v1/memories",
        "/v1/memories/{id}",
        "/v1/memories/search",
        "/v1/memories/{id}/history",
    );

    call(&app, &mut c, Method::GET, "/healthz", "/healthz", None).await;
    call(&app, &mut c, Method::GET, "/readyz", "/readyz", None).await;
    let served = app
        .client
        .get(app.url("/openapi.yaml"))
        .send()
        .await
        .unwrap();
    assert_eq!(served.status(), 200);
    assert_eq!(served.headers()[header::CONTENT_TYPE], "application/yaml");
    assert!(
        c.spec["paths"]["/openapi.yaml"]["get"]["responses"]["200"]["content"]["application/yaml"]
            .is_object()
    );
    assert_eq!(served.text().await.unwrap(), engram_api::OPENAPI_YAML);
    c.checked
        .insert(("GET".into(), "/openapi.yaml".into(), 200));
    // /metrics is text: its media type as documented (tests/metrics.rs reads it).
    let metrics = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(metrics.status(), 200);
    let media = metrics.headers()[header::CONTENT_TYPE].to_str().unwrap();
    assert!(
        c.spec["paths"]["/metrics"]["get"]["responses"]["200"]["content"][media].is_object(),
        "{media}"
    );
    c.checked.insert(("GET".into(), "/metrics".into(), 200));

    let add = json!({"user_id": "u", "session_id": "s", "infer": false, "metadata": {"k": 1},
                     "messages": [{"role": "user", "content": "I keep bees."}, {"role": "user", "content": "I keep bees."}]});
    let r = call(&app, &mut c, Method::POST, m, m, Some(add)).await;
    let id = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    // Extraction: 202 with a job, 200 with the finished job, the job itself, revert.
    let queued = call(
        &app,
        &mut c,
        Method::POST,
        m,
        m,
        Some(json!({"user_id": "u", "text": "I live in Oslo.", "store_raw": true})),
    )
    .await;
    assert_eq!(queued.status, 202);
    let job_path = format!("/v1/jobs/{}", queued.body["job_id"].as_str().unwrap());
    call(&app, &mut c, Method::GET, &job_path, "/v1/jobs/{id}", None).await;
    // Retry: 409 for a job that has not failed, 200 for a failed one (made
    // so here while it is still queued, before a worker takes it).
    let retry = "/v1/jobs/{id}/retry";
    call(
        &app,
        &mut c,
        Method::POST,
        &format!("{job_path}/retry"),
        retry,
        Some(json!({})),
    )
    .await;
    let mut failed = None;
    for n in 0..20 {
        let q = call(
            &app,
            &mut c,
            Method::POST,
            m,
            m,
            Some(json!({"user_id": "u", "text": format!("I live in Oslo {n}.")})),
        )
        .await;
        let id: uuid::Uuid = q.body["job_id"].as_str().unwrap().parse().unwrap();
        let flipped = sqlx::query("UPDATE jobs SET status = 'failed', last_error = 'x' WHERE id = $1 AND status = 'queued'")
            .bind(id)
            .execute(&app.pool)
            .await
            .unwrap()
            .rows_affected();
        if flipped == 1 {
            failed = Some(id);
            break;
        }
    }
    let failed = failed.expect("a job flipped to failed before a worker took it");
    let r = call(
        &app,
        &mut c,
        Method::POST,
        &format!("/v1/jobs/{failed}/retry"),
        retry,
        Some(json!({})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    call(
        &app,
        &mut c,
        Method::POST,
        "/v1/jobs/00000000-0000-0000-0000-000000000009/retry",
        retry,
        Some(json!({})),
    )
    .await; // 404
    for q in ["", "?status=queued&kind=extract&limit=5", "?user_id=u"] {
        call(
            &app,
            &mut c,
            Method::GET,
            &format!("/v1/jobs{q}"),
            "/v1/jobs",
            None,
        )
        .await;
    }
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/jobs?status=lost",
        "/v1/jobs",
        None,
    )
    .await; // 422
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/jobs/00000000-0000-0000-0000-000000000009",
        "/v1/jobs/{id}",
        None,
    )
    .await; // 404
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/jobs/x",
        "/v1/jobs/{id}",
        None,
    )
    .await; // 400
            // Redaction reported on a verbatim add; RETRACT and FORGET results.
    let redacted = call(
        &app,
        &mut c,
        Method::POST,
        m,
        m,
        Some(json!({"user_id": "w", "infer": false, "text": "My PIN is 4821."})),
    )
    .await;
    assert_eq!(
        redacted.body["results"][0]["redacted"][0], "PIN or code",
        "{}",
        redacted.body
    );
    for (text, event) in [
        ("I work at Initech and I live in Oslo.", "ADD"),
        ("I no longer work at Initech.", "RETRACT"),
        ("Please forget that I live in Oslo.", "FORGET"),
    ] {
        let r = call(
            &app,
            &mut c,
            Method::POST,
            m,
            m,
            Some(json!({"user_id": "w", "text": text, "wait": true})),
        )
        .await;
        assert_eq!(r.body["results"][0]["event"], event, "{}", r.body);
    }
    let done = call(&app, &mut c, Method::POST, m, m, Some(json!({"user_id": "u", "text": "I moved to Bergen. My password is hunter22", "wait": true}))).await;
    assert_eq!(done.status, 200, "{}", done.body);
    let bergen = done.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["event"] == "SUPERSEDE")
        .expect("a supersede")["replaced"][0]
        .as_str()
        .unwrap()
        .to_owned();
    let revert = "/v1/memories/{id}/revert";
    call(
        &app,
        &mut c,
        Method::POST,
        &format!("/v1/memories/{bergen}/revert"),
        revert,
        None,
    )
    .await; // 200
    let fresh = app.add_text("u", "I like chess.").await;
    call(
        &app,
        &mut c,
        Method::POST,
        &format!("/v1/memories/{fresh}/revert"),
        revert,
        None,
    )
    .await; // 409
    call(
        &app,
        &mut c,
        Method::POST,
        "/v1/memories/00000000-0000-0000-0000-000000000009/revert",
        revert,
        None,
    )
    .await; // 404
    call(
        &app,
        &mut c,
        Method::POST,
        m,
        m,
        Some(json!({"user_id": "u", "nope": 1})),
    )
    .await; // 422
    let raw = app
        .raw(
            app.client
                .post(app.url(m))
                .bearer_auth(KEY)
                .header(header::CONTENT_TYPE, "application/json")
                .body("{"),
        )
        .await;
    c.check("POST", m, &raw); // 400
    let raw = app
        .raw(app.client.post(app.url(m)).bearer_auth(KEY).body("{}"))
        .await;
    c.check("POST", m, &raw); // 415
    let big = json!({"user_id": "u", "infer": false, "text": "x".repeat(2 << 20)});
    let raw = app
        .raw(app.client.post(app.url(m)).bearer_auth(KEY).json(&big))
        .await;
    c.check("POST", m, &raw); // 413
    let raw = app.raw(app.client.post(app.url(m)).json(&json!({}))).await;
    c.check("POST", m, &raw); // 401

    call(
        &app,
        &mut c,
        Method::POST,
        s,
        s,
        Some(json!({"query": "hobbies", "user_id": "u", "threshold": -1})),
    )
    .await;
    call(
        &app,
        &mut c,
        Method::POST,
        s,
        s,
        Some(
            json!({"query": "my hobbies last week", "user_id": "u", "mode": "dense",
                    "reference_time": "2026-11-30T12:00:00Z", "query_time": "prefer"}),
        ),
    )
    .await;
    call(
        &app,
        &mut c,
        Method::POST,
        s,
        s,
        Some(json!({"query": "hobbies", "user_id": "u", "top_k": 0})),
    )
    .await;
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/memories?user_id=u&limit=1",
        m,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/memories?user_id=u&limit=x",
        m,
        None,
    )
    .await;

    let one = format!("/v1/memories/{id}");
    call(&app, &mut c, Method::GET, &one, ms, None).await;
    call(&app, &mut c, Method::GET, "/v1/memories/zzz", ms, None).await; // 400
    call(
        &app,
        &mut c,
        Method::PATCH,
        &one,
        ms,
        Some(json!({"memory": "I keep two hives of bees.", "expires_at": null})),
    )
    .await;
    call(
        &app,
        &mut c,
        Method::PATCH,
        &one,
        ms,
        Some(json!({"importance": 7})),
    )
    .await; // 422
    let other = app.add_text("u", "I keep chickens.").await;
    call(
        &app,
        &mut c,
        Method::PATCH,
        &format!("/v1/memories/{other}"),
        ms,
        Some(json!({"memory": "I keep two hives of bees."})),
    )
    .await; // 409
    call(
        &app,
        &mut c,
        Method::GET,
        &format!("{one}/history"),
        h,
        None,
    )
    .await;
    call(&app, &mut c, Method::DELETE, &one, ms, None).await; // 204
    call(&app, &mut c, Method::DELETE, &one, ms, None).await; // 404
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/memories/00000000-0000-0000-0000-000000000009/history",
        h,
        None,
    )
    .await; // 404
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/memories?user_id=u",
        m,
        None,
    )
    .await;
    call(&app, &mut c, Method::DELETE, m, m, None).await; // 422

    // Keys, roles, tenants, rate limits.
    let keys = "/v1/admin/keys";
    let created = call(
        &app,
        &mut c,
        Method::POST,
        keys,
        keys,
        Some(json!({"role": "tenant", "tenant": "acme", "name": "app"})),
    )
    .await; // 201
    let key_id = created.body["id"].as_str().unwrap().to_owned();
    let tenant_key = created.body["key"].as_str().unwrap().to_owned();
    call(
        &app,
        &mut c,
        Method::POST,
        keys,
        keys,
        Some(json!({"role": "x", "name": "app"})),
    )
    .await; // 422
    call(&app, &mut c, Method::GET, keys, keys, None).await;
    let read = call(
        &app,
        &mut c,
        Method::POST,
        keys,
        keys,
        Some(json!({"role": "read-only", "tenant": "acme", "name": "dash"})),
    )
    .await;
    let read_key = read.body["key"].as_str().unwrap().to_owned();
    let as_key =
        |key: &str, tenant: Option<&str>, method: Method, path: &str, body: Option<Value>| {
            let mut req = app.client.request(method, app.url(path)).bearer_auth(key);
            if let Some(t) = tenant {
                req = req.header("x-engram-tenant", t);
            }
            if let Some(b) = body {
                req = req.json(&b);
            }
            app.raw(req)
        };
    let r = as_key(
        &read_key,
        None,
        Method::POST,
        m,
        Some(json!({"user_id": "u", "text": "x", "infer": false})),
    )
    .await;
    c.check("POST", m, &r); // 403
    let r = as_key(&tenant_key, None, Method::GET, keys, None).await;
    c.check("GET", keys, &r); // 403
    let r = as_key(
        &tenant_key,
        Some("elsewhere"),
        Method::GET,
        "/v1/memories?user_id=u",
        None,
    )
    .await;
    c.check("GET", m, &r); // 404 tenant
                           // A key bound to one user: who it is, and 403 when it names another.
    let bound = call(
        &app,
        &mut c,
        Method::POST,
        keys,
        keys,
        Some(json!({"role": "tenant", "tenant": "acme", "name": "device", "user_id": "ann"})),
    )
    .await; // 201
    assert_eq!(bound.body["user_id"], "ann");
    let bound_key = bound.body["key"].as_str().unwrap().to_owned();
    let r = as_key(&bound_key, None, Method::GET, "/v1/me", None).await;
    c.check("GET", "/v1/me", &r); // 200
    assert_eq!(
        (r.body["user_id"].as_str(), r.body["role"].as_str()),
        (Some("ann"), Some("tenant"))
    );
    call(&app, &mut c, Method::GET, "/v1/me", "/v1/me", None).await; // 200, unbound
    for (method, path, template, body) in [
        (Method::GET, "/v1/memories?user_id=bob", m, None),
        (
            Method::POST,
            s,
            s,
            Some(json!({"user_id": "bob", "query": "x"})),
        ),
        (
            Method::POST,
            "/v1/context",
            "/v1/context",
            Some(json!({"user_id": "bob", "query": "x", "token_budget": 100})),
        ),
        (
            Method::GET,
            "/v1/users/bob/profile",
            "/v1/users/{user_id}/profile",
            None,
        ),
    ] {
        let r = as_key(&bound_key, None, method.clone(), path, body).await;
        c.check(method.as_str(), template, &r);
        assert_eq!(r.status, 403, "{method} {path}: {}", r.body);
    }
    let key_path = "/v1/admin/keys/{id}";
    call(
        &app,
        &mut c,
        Method::DELETE,
        &format!("/v1/admin/keys/{key_id}"),
        key_path,
        None,
    )
    .await; // 204
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/admin/keys/nope",
        key_path,
        None,
    )
    .await; // 400
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/admin/keys/00000000-0000-0000-0000-000000000009",
        key_path,
        None,
    )
    .await; // 404

    // The GDPR endpoints.
    app.add_text("v", "I grow tomatoes.").await;
    let kept = app.add_text("v", "I sail on weekends.").await;
    let (um, us, one_t, ex, user) = (
        "/v1/admin/users/{user_id}/memories",
        "/v1/admin/users/{user_id}/search",
        "/v1/admin/users/{user_id}/memories/{id}",
        "/v1/admin/users/{user_id}/export",
        "/v1/admin/users/{user_id}",
    );
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/admin/users/v/memories?limit=1",
        um,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/admin/users/v/memories?states=nope",
        um,
        None,
    )
    .await; // 422
    call(
        &app,
        &mut c,
        Method::POST,
        "/v1/admin/users/v/search",
        us,
        Some(json!({"query": "garden", "states": ["live"]})),
    )
    .await;
    call(
        &app,
        &mut c,
        Method::POST,
        "/v1/admin/users/v/search",
        us,
        Some(json!({"query": "garden", "top_k": 0})),
    )
    .await; // 422
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/admin/users/v/export",
        ex,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::DELETE,
        &format!("/v1/admin/users/v/memories/{kept}"),
        one_t,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::DELETE,
        &format!("/v1/admin/users/v/memories/{kept}"),
        one_t,
        None,
    )
    .await; // 404
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/admin/users/v/memories/zz",
        one_t,
        None,
    )
    .await; // 400
    call(&app, &mut c, Method::GET, "/v1/admin/users/v", user, None).await;
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/admin/users/v?dry_run=true",
        user,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/admin/users/v?dry_run=often",
        user,
        None,
    )
    .await; // 422
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/admin/users/v",
        user,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/admin/sources/doc-1?dry_run=true",
        "/v1/admin/sources/{source_ref}",
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/admin/sources/doc-1",
        "/v1/admin/sources/{source_ref}",
        None,
    )
    .await;
    let audit = "/v1/admin/audit";
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/admin/audit?limit=5&action=user.erase",
        audit,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/admin/audit?actor=key:env-admin&since=2026-01-01T00:00:00Z&until=2100-01-01T00:00:00Z",
        audit,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/admin/audit?limit=x",
        audit,
        None,
    )
    .await; // 422

    // Consolidation.
    let (cons, runs) = ("/v1/admin/consolidate", "/v1/admin/consolidation-runs");
    let r = call(
        &app,
        &mut c,
        Method::POST,
        cons,
        cons,
        Some(json!({"dry_run": true, "wait": true})),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = call(
        &app,
        &mut c,
        Method::POST,
        cons,
        cons,
        Some(json!({"user_id": "u"})),
    )
    .await;
    assert_eq!(r.status, 202, "{}", r.body);
    call(
        &app,
        &mut c,
        Method::POST,
        cons,
        cons,
        Some(json!({"user_id": ""})),
    )
    .await; // 422
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/admin/consolidation-runs?limit=5",
        runs,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/admin/consolidation-runs?limit=0",
        runs,
        None,
    )
    .await; // 422

    // Sessions, context and the profile.
    let (sm, ss, ctx, prof) = (
        "/v1/sessions/{session_id}/messages",
        "/v1/sessions/{session_id}",
        "/v1/context",
        "/v1/users/{user_id}/profile",
    );
    for (body, status) in [
        (
            json!({"user_id": "sam", "window_tokens": 12, "messages": [
                {"role": "user", "content": "I live in Oslo and I work at Acme."},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "I prefer tea over coffee."}]}),
            201,
        ),
        (json!({"user_id": "sam", "messages": []}), 422),
        (
            json!({"user_id": "other", "messages": [{"role": "user", "content": "hi"}]}),
            409,
        ),
    ] {
        let r = call(
            &app,
            &mut c,
            Method::POST,
            "/v1/sessions/s1/messages",
            sm,
            Some(body),
        )
        .await;
        assert_eq!(r.status.as_u16(), status, "{}", r.body);
    }
    for _ in 0..200 {
        let s = call(&app, &mut c, Method::GET, "/v1/sessions/s1", ss, None).await;
        if s.body["summary"].is_object()
            && app.get("/v1/users/sam/profile").await.body["entries"]
                .as_array()
                .is_some_and(|e| !e.is_empty())
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    call(&app, &mut c, Method::GET, "/v1/sessions/nope", ss, None).await; // 404
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/sessions/s1/messages?limit=2",
        sm,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/sessions/s1/messages?cursor=x",
        sm,
        None,
    )
    .await; // 422
    call(
        &app,
        &mut c,
        Method::POST,
        ctx,
        ctx,
        Some(json!({"user_id": "sam", "session_id": "s1", "query": "where do I live last week", "token_budget": 300})),
    )
    .await;
    call(
        &app,
        &mut c,
        Method::POST,
        ctx,
        ctx,
        Some(json!({"user_id": "sam", "query": "q", "token_budget": 0})),
    )
    .await; // 422
    let profile = call(
        &app,
        &mut c,
        Method::GET,
        "/v1/users/sam/profile",
        prof,
        None,
    )
    .await;
    let entry = profile.body["entries"][0]["id"].clone();
    assert!(entry.is_string(), "{}", profile.body);
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/users/sam/profile?limit=0",
        prof,
        None,
    )
    .await; // 422
    call(
        &app,
        &mut c,
        Method::PATCH,
        "/v1/users/sam/profile",
        prof,
        Some(json!({"id": entry, "value": "Bergen"})),
    )
    .await;
    call(
        &app,
        &mut c,
        Method::PATCH,
        "/v1/users/sam/profile",
        prof,
        Some(json!({"id": entry})),
    )
    .await; // 422
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/sessions/s1/messages",
        sm,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::DELETE,
        "/v1/sessions/s1/messages",
        sm,
        None,
    )
    .await; // 404

    // Who holds memories, and a batch (all or none).
    let ents = "/v1/entities";
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/entities?type=user",
        ents,
        None,
    )
    .await;
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/entities?type=planet",
        ents,
        None,
    )
    .await; // 400
    call(
        &app,
        &mut c,
        Method::GET,
        "/v1/entities?type=user&limit=0",
        ents,
        None,
    )
    .await; // 422
    let b = "/v1/memories/batch";
    let one = app.add_text("batcher", "I like tea.").await;
    let two = app.add_text("batcher", "I like jazz.").await;
    let change = json!({"update": [{"id": one, "memory": "I like green tea."}], "delete": [two]});
    call(&app, &mut c, Method::POST, b, b, Some(change)).await;
    let missing = json!({"delete": [uuid::Uuid::now_v7()]});
    call(&app, &mut c, Method::POST, b, b, Some(missing)).await; // 404
    call(&app, &mut c, Method::POST, b, b, Some(json!({}))).await; // 422
    call(
        &app,
        &mut c,
        Method::POST,
        b,
        b,
        Some(json!({"delete": ["x"]})),
    )
    .await; // 400

    // Every documented operation was exercised at least once.
    let touched: BTreeSet<(String, String)> = c
        .checked
        .iter()
        .map(|(m, p, _)| (m.clone(), p.clone()))
        .collect();
    assert_eq!(touched, spec_operations(&c.spec));
}

#[sqlx::test(migrations = false)]
async fn undocumented_methods_are_405(pool: PgPool) {
    let app = spawn_app(pool).await;
    let documented = spec_operations(&spec());
    let paths: BTreeSet<&String> = documented.iter().map(|(_, p)| p).collect();
    for path in paths {
        let concrete = path
            .replace("{id}", "00000000-0000-0000-0000-000000000001")
            .replace("{user_id}", "u")
            .replace("{source_ref}", "s");
        for m in METHODS {
            let method = m.to_uppercase();
            if documented.contains(&(method.clone(), path.clone())) {
                continue;
            }
            let reply = app
                .send(
                    Method::from_bytes(method.as_bytes()).unwrap(),
                    &concrete,
                    None,
                )
                .await;
            reply.assert_problem(405, None);
        }
    }
}

/// Every authenticated operation documents what authentication can answer:
/// 401, 404 (a tenant it may not act in), 429 and 503; and 403 exactly when
/// some role may not perform it.
#[test]
fn every_operation_documents_its_auth_answers() {
    let spec = spec();
    for (method, path, access) in engram_api::route_access() {
        let responses = &spec["paths"][path][method.as_str().to_lowercase()]["responses"];
        let Some(access) = access else {
            assert!(responses.get("401").is_none(), "{method} {path} is public");
            continue;
        };
        for status in ["401", "404", "429", "503"] {
            assert!(
                responses.get(status).is_some(),
                "{method} {path} lacks {status}"
            );
        }
        // A body that does not arrive in time is a 408.
        let has_body = spec["paths"][path][method.as_str().to_lowercase()]
            .get("requestBody")
            .is_some();
        assert_eq!(
            responses.get("408").is_some(),
            has_body,
            "{method} {path}: 408 documented iff it takes a body"
        );
        // Reads that name a user answer 403 to a key bound to another.
        let names_user = [
            "/v1/memories",
            "/v1/jobs",
            "/v1/memories/search",
            "/v1/context",
            "/v1/users/{user_id}/profile",
        ]
        .contains(&path);
        assert_eq!(
            responses.get("403").is_some(),
            access != engram_core::Access::Read || names_user,
            "{method} {path}: 403 documented iff a role is refused or a bound key may be"
        );
    }
}

/// The conformance check can fail: an extra or a missing field is caught.
#[test]
fn the_schemas_reject_undocumented_and_missing_fields() {
    let spec = spec();
    let validator = |name: &str| {
        let mut schema = json!({"$ref": format!("#/components/schemas/{name}")});
        schema["components"] = spec["components"].clone();
        jsonschema::draft202012::new(&schema).expect("compiles")
    };
    let memory = json!({
        "id": "00000000-0000-0000-0000-000000000001", "memory": "m", "user_id": "u", "agent_id": null,
        "session_id": null, "kind": "semantic", "subject": null, "attribute": null, "importance": 0.5,
        "sensitivity": null, "source": {"type": "api"}, "confidence": null, "metadata": {}, "pinned": false,
        "access_count": 0, "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
        "last_used_at": null, "expires_at": null, "superseded_by": null, "archived_at": null, "value": null,
        "provenance": {"job_id": null, "extractor": null, "model": null, "prompt_version": null}
    });
    assert!(validator("Memory").is_valid(&memory));
    let mut extra = memory.clone();
    extra["secret"] = json!(1);
    assert!(!validator("Memory").is_valid(&extra));
    let mut missing = memory.clone();
    missing.as_object_mut().unwrap().remove("expires_at");
    assert!(!validator("Memory").is_valid(&missing));
    assert!(
        !validator("SearchHit").is_valid(&memory),
        "a hit needs its scores"
    );
    let mut hit = memory.clone();
    hit["score"] = json!(0.5);
    hit["scores"] = json!({"relevance": 0.5, "dense": 0.5, "lexical": null, "time": null, "neighbours": null, "session": null, "names": null, "recency": 1.0, "importance": 0.5});
    assert!(validator("SearchHit").is_valid(&hit));
}

fn mem0_spec() -> Value {
    serde_yaml::from_str(engram_mem0::OPENAPI_YAML).expect("openapi-mem0.yaml parses")
}

/// The Mem0-compatible routes: the same operations as their router, and the
/// spec linked from openapi.yaml.
#[test]
fn the_compat_router_and_its_spec_have_the_same_operations() {
    let router: BTreeSet<(String, String)> = engram_mem0::route_table()
        .into_iter()
        .map(|(m, p)| (m.to_string(), p.to_owned()))
        .collect();
    assert_eq!(router, spec_operations(&mem0_spec()));
    let linked = &spec()["x-compat-specs"][0];
    assert_eq!(linked["spec"], "openapi-mem0.yaml");
    assert_eq!(linked["prefixes"], json!(["/mem0", "/mem0-oss"]));
}

/// Every compat operation's answers, successes and errors, match
/// openapi-mem0.yaml.
#[sqlx::test(migrations = false)]
async fn every_compat_response_matches_its_spec(pool: PgPool) {
    let app = spawn_app(pool).await;
    let mut c = Conformance {
        spec: mem0_spec(),
        checked: BTreeSet::new(),
    };
    let bound = app
        .post(
            "/v1/admin/keys",
            json!({"role": "tenant", "tenant": "default", "name": "b", "user_id": "zoe"}),
        )
        .await
        .body["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut call =
        async |key: &str, method: Method, path: &str, template: &str, body: Option<Value>| {
            let mut req = app.client.request(method.clone(), app.url(path));
            req = if template.starts_with("/mem0-oss") {
                req.header("x-api-key", key)
            } else {
                req.header("authorization", format!("Token {key}"))
            };
            if let Some(b) = body {
                req = req.json(&b);
            }
            let reply = app.raw(req).await;
            c.check(method.as_str(), template, &reply);
            reply
        };
    let (get, post, put, del) = (Method::GET, Method::POST, Method::PUT, Method::DELETE);
    let ping = "/mem0/v1/ping/";
    call(KEY, get.clone(), ping, ping, None).await;
    call("wrong", get.clone(), ping, ping, None).await;
    let add = "/mem0/v3/memories/add/";
    let verbatim = json!({"messages": [{"role": "user", "content": "I live in Lisbon."}], "user_id": "ann", "infer": false, "metadata": {"k": "v"}});
    let r = call(KEY, post.clone(), add, add, Some(verbatim)).await;
    let id = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    let r = call(
        KEY,
        post.clone(),
        add,
        add,
        Some(json!({"messages": "I work at Acme.", "user_id": "ann", "run_id": "r1"})),
    )
    .await;
    let event = r.body["event_id"].as_str().unwrap().to_owned();
    call(
        KEY,
        post.clone(),
        add,
        add,
        Some(json!({"messages": [], "user_id": "ann"})),
    )
    .await;
    call(
        &bound,
        post.clone(),
        add,
        add,
        Some(json!({"messages": "hi", "user_id": "ann"})),
    )
    .await;
    app.settle().await;
    let ev = "/mem0/v1/event/{event_id}/";
    call(
        KEY,
        get.clone(),
        &format!("/mem0/v1/event/{event}/"),
        ev,
        None,
    )
    .await;
    call(
        KEY,
        get.clone(),
        &format!("/mem0/v1/event/{}/", uuid::Uuid::now_v7()),
        ev,
        None,
    )
    .await;
    call(KEY, get.clone(), "/mem0/v1/event/nope/", ev, None).await;
    let search = "/mem0/v3/memories/search/";
    call(
        KEY,
        post.clone(),
        search,
        search,
        Some(json!({"query": "where", "filters": {"user_id": "ann"}})),
    )
    .await;
    call(
        KEY,
        post.clone(),
        search,
        search,
        Some(json!({"query": "where", "filters": {"bogus": 1}})),
    )
    .await;
    call(
        &bound,
        post.clone(),
        search,
        search,
        Some(json!({"query": "where", "filters": {"user_id": "ann"}})),
    )
    .await;
    let list = "/mem0/v3/memories/";
    call(
        KEY,
        post.clone(),
        "/mem0/v3/memories/?page=1&page_size=1",
        list,
        Some(json!({"filters": {"user_id": "ann"}})),
    )
    .await;
    call(
        KEY,
        post.clone(),
        "/mem0/v3/memories/?page=0",
        list,
        Some(json!({"filters": {"user_id": "ann"}})),
    )
    .await;
    call(
        &bound,
        post.clone(),
        list,
        list,
        Some(json!({"filters": {"user_id": "ann"}})),
    )
    .await;
    let one = "/mem0/v1/memories/{memory_id}/";
    let path = format!("/mem0/v1/memories/{id}/");
    call(KEY, get.clone(), &path, one, None).await;
    call(KEY, get.clone(), "/mem0/v1/memories/nope/", one, None).await;
    call(&bound, get.clone(), &path, one, None).await;
    call(
        KEY,
        put.clone(),
        &path,
        one,
        Some(json!({"text": "I live in Porto."})),
    )
    .await;
    call(KEY, put.clone(), &path, one, Some(json!({"timestamp": 1}))).await;
    call(&bound, put.clone(), &path, one, Some(json!({"text": "x"}))).await;
    let h = "/mem0/v1/memories/{memory_id}/history/";
    call(KEY, get.clone(), &format!("{path}history/"), h, None).await;
    call(KEY, get.clone(), "/mem0/v1/memories/nope/history/", h, None).await;
    call(&bound, get.clone(), &format!("{path}history/"), h, None).await;
    let ents = "/mem0/v1/entities/";
    call(KEY, get.clone(), ents, ents, None).await;
    let batch = "/mem0/v1/batch/";
    call(
        KEY,
        put.clone(),
        batch,
        batch,
        Some(json!({"memories": [{"memory_id": id, "text": "I live in Faro."}]})),
    )
    .await;
    call(
        KEY,
        put.clone(),
        batch,
        batch,
        Some(json!({"memories": [{"memory_id": uuid::Uuid::now_v7(), "text": "x"}]})),
    )
    .await;
    call(
        KEY,
        put.clone(),
        batch,
        batch,
        Some(json!({"memories": []})),
    )
    .await;
    call(
        &bound,
        put.clone(),
        batch,
        batch,
        Some(json!({"memories": [{"memory_id": id, "text": "x"}]})),
    )
    .await;
    call(
        &bound,
        del.clone(),
        batch,
        batch,
        Some(json!({"memories": [{"memory_id": id}]})),
    )
    .await;
    call(
        KEY,
        del.clone(),
        batch,
        batch,
        Some(json!({"memories": [{"memory_id": "nope"}]})),
    )
    .await;
    call(&bound, del.clone(), &path, one, None).await;
    call(KEY, del.clone(), "/mem0/v1/memories/nope/", one, None).await;
    call(KEY, del.clone(), &path, one, None).await;
    call(KEY, del.clone(), &path, one, None).await;
    let r = call(
        KEY,
        post.clone(),
        add,
        add,
        Some(json!({"messages": "I like tea.", "user_id": "ann", "infer": false})),
    )
    .await;
    let tea = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    call(
        KEY,
        del.clone(),
        batch,
        batch,
        Some(json!({"memories": [{"memory_id": tea}]})),
    )
    .await;
    let all = "/mem0/v1/memories/";
    call(
        KEY,
        del.clone(),
        "/mem0/v1/memories/?user_id=ann",
        all,
        None,
    )
    .await;
    call(KEY, del.clone(), all, all, None).await;
    call(
        &bound,
        del.clone(),
        "/mem0/v1/memories/?user_id=ann",
        all,
        None,
    )
    .await;
    for (template, prefix) in [
        ("/mem0/v2/entities/{entity_type}/{entity_id}/", "/mem0/v2"),
        ("/mem0/v1/entities/{entity_type}/{entity_id}/", "/mem0/v1"),
    ] {
        call(
            KEY,
            del.clone(),
            &format!("{prefix}/entities/user/ann/"),
            template,
            None,
        )
        .await;
        call(
            KEY,
            del.clone(),
            &format!("{prefix}/entities/app/shop/"),
            template,
            None,
        )
        .await;
        call(
            &bound,
            del.clone(),
            &format!("{prefix}/entities/user/ann/"),
            template,
            None,
        )
        .await;
    }

    // The OSS server's shape.
    let mems = "/mem0-oss/memories";
    let r = call(KEY, post.clone(), mems, mems, Some(json!({"messages": [{"role": "user", "content": "I live in Madrid."}], "user_id": "fay"}))).await;
    let oid = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    call(
        KEY,
        post.clone(),
        mems,
        mems,
        Some(json!({"messages": [{"role": "user", "content": "hi"}]})),
    )
    .await;
    call(
        &bound,
        post.clone(),
        mems,
        mems,
        Some(json!({"messages": "hi", "user_id": "fay", "infer": false})),
    )
    .await;
    call(
        KEY,
        get.clone(),
        "/mem0-oss/memories?user_id=fay",
        mems,
        None,
    )
    .await;
    call(KEY, get.clone(), "/mem0-oss/memories?top_k=0", mems, None).await;
    call(
        &bound,
        get.clone(),
        "/mem0-oss/memories?user_id=fay",
        mems,
        None,
    )
    .await;
    let oone = "/mem0-oss/memories/{memory_id}";
    let opath = format!("/mem0-oss/memories/{oid}");
    call(KEY, get.clone(), &opath, oone, None).await;
    call(KEY, get.clone(), "/mem0-oss/memories/nope", oone, None).await;
    call(&bound, get.clone(), &opath, oone, None).await;
    call(
        KEY,
        put.clone(),
        &opath,
        oone,
        Some(json!({"text": "I live in Seville."})),
    )
    .await;
    call(KEY, put.clone(), &opath, oone, Some(json!({}))).await;
    call(
        &bound,
        put.clone(),
        &opath,
        oone,
        Some(json!({"text": "x"})),
    )
    .await;
    let oh = "/mem0-oss/memories/{memory_id}/history";
    call(KEY, get.clone(), &format!("{opath}/history"), oh, None).await;
    call(
        KEY,
        get.clone(),
        "/mem0-oss/memories/nope/history",
        oh,
        None,
    )
    .await;
    call(&bound, get.clone(), &format!("{opath}/history"), oh, None).await;
    let os = "/mem0-oss/search";
    call(
        KEY,
        post.clone(),
        os,
        os,
        Some(json!({"query": "where", "user_id": "fay"})),
    )
    .await;
    call(
        KEY,
        post.clone(),
        os,
        os,
        Some(json!({"query": "where", "user_id": "fay", "top_k": 0})),
    )
    .await;
    call(
        &bound,
        post.clone(),
        os,
        os,
        Some(json!({"query": "where", "user_id": "fay"})),
    )
    .await;
    call(&bound, del.clone(), &opath, oone, None).await;
    call(KEY, del.clone(), "/mem0-oss/memories/nope", oone, None).await;
    call(KEY, del.clone(), &opath, oone, None).await;
    call(
        KEY,
        del.clone(),
        "/mem0-oss/memories?user_id=fay",
        mems,
        None,
    )
    .await;
    call(KEY, del.clone(), mems, mems, None).await;
    call(
        &bound,
        del.clone(),
        "/mem0-oss/memories?user_id=fay",
        mems,
        None,
    )
    .await;
    let reset = "/mem0-oss/reset";
    call(KEY, post.clone(), reset, reset, None).await;
    call(&bound, post.clone(), reset, reset, None).await;
    call("wrong", post.clone(), reset, reset, None).await;

    let answered: BTreeSet<(String, String)> = c
        .checked
        .iter()
        .filter(|(_, _, s)| *s == 200)
        .map(|(m, t, _)| (m.clone(), t.clone()))
        .collect();
    assert_eq!(
        answered,
        spec_operations(&c.spec),
        "every operation answered 200 once"
    );
}

/// Issue 51 (low): a tool call whose arguments nest deeper than the JSON
/// reader allows was answered HTTP 415; it is a JSON-RPC parse error.
#[sqlx::test(migrations = false)]
async fn mcp_arguments_nested_too_deep_are_a_json_rpc_error(pool: PgPool) {
    let app = spawn_app(pool).await;
    let deep = format!("{}1{}", "[".repeat(300), "]".repeat(300));
    let body = format!(
        r#"{{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {{"name": "add_memory", "arguments": {{"text": "I like tea.", "user_id": "u", "metadata": {{"x": {deep}}}}}}}}}"#
    );
    let req = app
        .client
        .post(app.url("/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("content-type", "application/json")
        .bearer_auth(KEY)
        .body(body);
    let r = app.raw(req).await;
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(r.body["jsonrpc"], "2.0", "{}", r.body);
    assert_eq!(r.body["error"]["code"], -32700, "{}", r.body);
    assert_eq!(app.count_rows("memories").await, 0);
}
