//! Tenants and keys: isolation by query and by row-level security, roles, the
//! leakage matrix over every endpoint, revocation, rate limits, CORS, timeouts
//! and the audit log.

use std::time::Duration;

use crate::common::{spawn_app, TestApp};
use engram_api::ApiConfig;
use engram_core::Access;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::PgPool;
use uuid::Uuid;

/// Tenant A's data: a fact for alice (with a finished job), an id of each kind.
struct Seed {
    memory: String,
    job: String,
}

async fn seed_tenant_a(app: &TestApp, key_a: &str) -> Seed {
    let r = app
        .send_as(
            Some(key_a),
            None,
            Method::POST,
            "/v1/memories",
            Some(json!({"user_id": "alice", "infer": false, "text": "Alice's locker code is on a blue card.",
                        "source": {"type": "document", "ref": "src-a"}})),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let memory = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    let r = app
        .send_as(
            Some(key_a),
            None,
            Method::POST,
            "/v1/memories",
            Some(json!({"user_id": "alice", "text": "I live in Lisbon.", "wait": true})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let job = r.body["job_id"].as_str().unwrap().to_owned();
    let r = app
        .send_as(
            Some(key_a),
            None,
            Method::POST,
            "/v1/sessions/s-a/messages",
            Some(json!({"user_id": "alice", "infer": false,
                        "messages": [{"role": "user", "content": "The locker is in Lisbon."}]})),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    Seed { memory, job }
}

/// Tenant A's rows as they are, to prove an attacker changed nothing.
async fn snapshot_a(app: &TestApp, tenant: Uuid) -> Vec<(String, bool, bool)> {
    sqlx::query_as(
        "SELECT content, deleted_at IS NULL, superseded_by IS NULL FROM memories
         WHERE tenant_id = $1 ORDER BY id",
    )
    .bind(tenant)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

async fn tenant_id(app: &TestApp, name: &str) -> Uuid {
    sqlx::query_scalar("SELECT id FROM tenants WHERE name = $1")
        .bind(name)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

/// A concrete request for an operation, aimed at tenant A's resources.
fn request_for(method: &Method, template: &str, seed: &Seed) -> (String, Option<Value>) {
    let path = template
        .replace("{user_id}", "alice")
        .replace("{source_ref}", "src-a")
        .replace("{session_id}", "s-a")
        .replace(
            "{id}",
            if template.starts_with("/v1/jobs") {
                &seed.job
            } else if template.starts_with("/v1/admin/keys") {
                "00000000-0000-0000-0000-0000000000aa"
            } else {
                &seed.memory
            },
        );
    let body = match (method.as_str(), template) {
        ("POST", "/v1/memories") => {
            Some(json!({"user_id": "alice", "infer": false, "text": "Planted by an attacker."}))
        }
        ("POST", "/v1/memories/search") => {
            Some(json!({"user_id": "alice", "query": "locker code"}))
        }
        ("POST", "/v1/admin/users/{user_id}/search") => Some(json!({"query": "locker code"})),
        ("POST", "/v1/sessions/{session_id}/messages") => Some(
            json!({"user_id": "alice", "messages": [{"role": "user", "content": "Planted by an attacker."}]}),
        ),
        ("POST", "/v1/context") => Some(
            json!({"user_id": "alice", "session_id": "s-a", "query": "locker code", "token_budget": 500}),
        ),
        ("PATCH", "/v1/users/{user_id}/profile") => {
            Some(json!({"id": seed.memory, "memory": "Overwritten by an attacker."}))
        }
        ("POST", "/v1/admin/keys") => {
            Some(json!({"role": "tenant", "tenant": "acme", "name": "x"}))
        }
        ("POST", "/v1/memories/batch") => {
            Some(json!({"update": [{"id": seed.memory, "memory": "Overwritten by an attacker."}]}))
        }
        ("PATCH", _) => Some(json!({"memory": "Overwritten by an attacker."})),
        _ => None,
    };
    let path = match (method.as_str(), template) {
        ("GET", "/v1/memories") | ("DELETE", "/v1/memories") => format!("{path}?user_id=alice"),
        ("GET", "/v1/entities") => format!("{path}?type=user"),
        _ => path,
    };
    (path, body)
}

async fn list_as(app: &TestApp, key: &str) -> crate::common::Reply {
    app.send_as(Some(key), None, Method::GET, "/v1/memories?user_id=u", None)
        .await
}

/// No result of any kind in a successful reply.
fn holds_nothing_of_a(body: &Value) -> bool {
    let text = body.to_string();
    !text.contains("locker") && !text.contains("Lisbon")
}

#[sqlx::test(migrations = false)]
async fn the_leakage_matrix_holds_for_every_endpoint(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, key_a) = app.create_key("tenant", Some("tenant-a")).await;
    let (_, read_a) = app.create_key("read-only", Some("tenant-a")).await;
    let (_, key_b) = app.create_key("tenant", Some("tenant-b")).await;
    let (revoked_id, revoked) = app.create_key("tenant", Some("tenant-a")).await;
    assert_eq!(
        app.delete(&format!("/v1/admin/keys/{revoked_id}"))
            .await
            .status,
        StatusCode::NO_CONTENT
    );
    let seed = seed_tenant_a(&app, &key_a).await;
    let a = tenant_id(&app, "tenant-a").await;
    let before = snapshot_a(&app, a).await;

    let mut rows = Vec::new();
    for (method, template, access) in engram_api::route_access() {
        let Some(access) = access else { continue };
        let (path, body) = request_for(&method, template, &seed);
        let mut row = format!("{method:<6} {template:<45}");

        // No key, a garbage key, a well-formed unknown key, a revoked key: 401.
        let unknown = engram_core::access::format_key(Uuid::now_v7(), &[9; 32]);
        for key in [
            None,
            Some("garbage"),
            Some(unknown.as_str()),
            Some(&revoked),
        ] {
            let r = app
                .send_as(key, None, method.clone(), &path, body.clone())
                .await;
            r.assert_problem(401, None);
        }
        row.push_str(" anon/unknown/revoked=401");

        // Read-only key of A: reads succeed, anything else is 403.
        let r = app
            .send_as(Some(&read_a), None, method.clone(), &path, body.clone())
            .await;
        if access == Access::Read {
            assert!(r.status.is_success(), "{method} {path}: {}", r.body);
        } else {
            r.assert_problem(403, None);
        }
        row.push_str(&format!(" read-only={}", r.status.as_u16()));

        // Tenant B's key on A's resources: 404 for A's ids, an empty view of its
        // own namespace for scopes, 403 for admin-only operations; never A's data.
        let r = app
            .send_as(Some(&key_b), None, method.clone(), &path, body.clone())
            .await;
        match access {
            Access::Admin => r.assert_problem(403, None),
            // A's ids (in a path or a batch) and A's memory behind a profile entry.
            _ if template.contains("{id}")
                || template == "/v1/memories/batch"
                || (method == Method::PATCH && template.contains("/profile")) =>
            {
                r.assert_problem(404, None)
            }
            // A session name is per tenant: B sees its own "s-a" (which its
            // POST may have opened) or none, never A's.
            _ if template.contains("{session_id}") && !r.status.is_success() => {
                r.assert_problem(404, None)
            }
            _ => {
                assert!(r.status.is_success(), "{method} {path}: {}", r.body);
                assert!(holds_nothing_of_a(&r.body), "{method} {path}: {}", r.body);
            }
        }
        row.push_str(&format!(" other-tenant={}", r.status.as_u16()));

        // B naming A's tenant in the header: as if A did not exist.
        let r = app
            .send_as(
                Some(&key_b),
                Some("tenant-a"),
                method.clone(),
                &path,
                body.clone(),
            )
            .await;
        r.assert_problem(404, Some("x-engram-tenant"));

        // A's own tenant key: everything but admin-only operations is allowed.
        if access == Access::Admin {
            let r = app
                .send_as(Some(&key_a), None, method.clone(), &path, body.clone())
                .await;
            r.assert_problem(403, None);
            row.push_str(" tenant-key=403");
        }
        rows.push(row);
    }
    // Nothing B, the read-only key or the revoked key did touched A's data.
    assert_eq!(snapshot_a(&app, a).await, before);
    println!("{}", rows.join("\n"));
    assert!(rows.len() >= 20, "every /v1 endpoint is in the matrix");
}

#[sqlx::test(migrations = false)]
async fn row_level_security_hides_other_tenants_from_unfiltered_queries(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, key_a) = app.create_key("tenant", Some("tenant-a")).await;
    let (_, key_b) = app.create_key("tenant", Some("tenant-b")).await;
    seed_tenant_a(&app, &key_a).await;
    let r = app
        .send_as(
            Some(&key_b),
            None,
            Method::POST,
            "/v1/memories",
            Some(json!({"user_id": "bob", "text": "I work at the harbour.", "wait": true})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    let (a, b) = (
        tenant_id(&app, "tenant-a").await,
        tenant_id(&app, "tenant-b").await,
    );

    // The same transaction setup the store uses, then queries with no tenant filter.
    let mut tx = app.pool.begin().await.unwrap();
    engram_store::enter_tenant(&mut tx, b).await.unwrap();
    for table in [
        "memories",
        "memory_history",
        "jobs",
        "audit_log",
        "sessions",
        "session_messages",
        "session_summaries",
    ] {
        let tenants: Vec<Option<Uuid>> =
            sqlx::query_scalar(&format!("SELECT DISTINCT tenant_id FROM {table}"))
                .fetch_all(&mut *tx)
                .await
                .unwrap();
        assert!(
            tenants.iter().all(|t| *t == Some(b)),
            "{table} shows {tenants:?}"
        );
    }
    let contents: Vec<String> = sqlx::query_scalar("SELECT content FROM memories")
        .fetch_all(&mut *tx)
        .await
        .unwrap();
    assert!(!contents.is_empty() && contents.iter().all(|c| !c.contains("Lisbon")));
    // An unfiltered UPDATE reaches only B's rows.
    let touched = sqlx::query("UPDATE memories SET importance = 0.9")
        .execute(&mut *tx)
        .await
        .unwrap()
        .rows_affected();
    assert_eq!(touched as usize, contents.len());
    tx.rollback().await.unwrap();

    // Writing into another tenant is refused by the policy's WITH CHECK.
    let mut tx = app.pool.begin().await.unwrap();
    engram_store::enter_tenant(&mut tx, b).await.unwrap();
    let err = sqlx::query(
        "UPDATE jobs SET tenant_id = $1 WHERE tenant_id = $2", // move B's job into A
    )
    .bind(a)
    .bind(b)
    .execute(&mut *tx)
    .await
    .unwrap_err();
    assert!(err.to_string().contains("row-level security"), "{err}");
    tx.rollback().await.unwrap();

    // Without entering a tenant, the application role sees nothing at all.
    let mut tx = app.pool.begin().await.unwrap();
    sqlx::query("SET LOCAL ROLE engram_app")
        .execute(&mut *tx)
        .await
        .unwrap();
    let n: i64 = sqlx::query_scalar("SELECT count(*) FROM memories")
        .fetch_one(&mut *tx)
        .await
        .unwrap();
    assert_eq!(n, 0);
    tx.rollback().await.unwrap();
}

#[sqlx::test(migrations = false)]
async fn keys_are_shown_once_stored_hashed_and_revocable(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (id, key) = app.create_key("tenant", Some("acme")).await;
    assert!(key.starts_with("egm_") && key.len() > 90);

    let listed = app.get("/v1/admin/keys").await;
    assert_eq!(listed.status, StatusCode::OK);
    let entry = listed.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|k| k["id"] == id.as_str())
        .unwrap()
        .clone();
    assert_eq!(entry["tenant"], "acme");
    assert_eq!(entry["role"], "tenant");
    assert!(entry.get("key").is_none() && !listed.body.to_string().contains(&key));
    // The database holds only the hash: the key's text is in no column.
    let dump: String = sqlx::query_scalar("SELECT (SELECT string_agg(row_to_json(k)::text, '') FROM api_keys k) || (SELECT string_agg(row_to_json(a)::text, '') FROM audit_log a)")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert!(!dump.contains(&key[20..]), "the key is stored in clear");

    let ok = app
        .send_as(
            Some(&key),
            None,
            Method::GET,
            "/v1/memories?user_id=u",
            None,
        )
        .await;
    assert_eq!(ok.status, StatusCode::OK);
    // A key with one wrong character is refused.
    let mut wrong = key.clone();
    let last = wrong.pop().unwrap();
    wrong.push(if last == '0' { '1' } else { '0' });
    list_as(&app, &wrong).await.assert_problem(401, None);

    assert_eq!(
        app.delete(&format!("/v1/admin/keys/{id}")).await.status,
        StatusCode::NO_CONTENT
    );
    list_as(&app, &key).await.assert_problem(401, None);
    // Revoking again is fine; an unknown id is 404; a bad one 400.
    assert_eq!(
        app.delete(&format!("/v1/admin/keys/{id}")).await.status,
        StatusCode::NO_CONTENT
    );
    app.delete(&format!("/v1/admin/keys/{}", Uuid::now_v7()))
        .await
        .assert_problem(404, None);
    app.delete("/v1/admin/keys/nope")
        .await
        .assert_problem(400, Some("id"));

    // Bad requests name their field.
    for (body, field) in [
        (
            json!({"role": "owner", "tenant": "acme", "name": "x"}),
            "role",
        ),
        (json!({"role": "tenant", "name": "x"}), "tenant"),
        (
            json!({"role": "admin", "tenant": "acme", "name": "x"}),
            "tenant",
        ),
        (
            json!({"role": "tenant", "tenant": "Not Valid!", "name": "x"}),
            "tenant",
        ),
        (
            json!({"role": "tenant", "tenant": Uuid::now_v7().to_string(), "name": "x"}),
            "tenant",
        ),
        (
            json!({"role": "tenant", "tenant": "acme", "name": ""}),
            "name",
        ),
        (json!({"role": "tenant", "tenant": "acme"}), "name"),
    ] {
        app.post("/v1/admin/keys", body)
            .await
            .assert_problem(422, Some(field));
    }
}

#[sqlx::test(migrations = false)]
async fn an_admin_key_acts_in_the_tenant_it_names(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (_, key_a) = app.create_key("tenant", Some("tenant-a")).await;
    let (admin_id, admin) = app.create_key("admin", None).await;
    seed_tenant_a(&app, &key_a).await;
    let search = json!({"user_id": "alice", "query": "where does alice live"});
    // Without the header the admin acts in the default tenant: nothing there.
    let r = app
        .send_as(
            Some(&admin),
            None,
            Method::POST,
            "/v1/memories/search",
            Some(search.clone()),
        )
        .await;
    assert_eq!(r.body["results"], json!([]));
    // By name and by id.
    let a = tenant_id(&app, "tenant-a").await.to_string();
    for t in ["tenant-a", a.as_str()] {
        let r = app
            .send_as(
                Some(&admin),
                Some(t),
                Method::POST,
                "/v1/memories/search",
                Some(search.clone()),
            )
            .await;
        assert!(r.body.to_string().contains("Lisbon"), "{}", r.body);
    }
    // A tenant key may name its own tenant.
    let r = app
        .send_as(
            Some(&key_a),
            Some("tenant-a"),
            Method::POST,
            "/v1/memories/search",
            Some(search.clone()),
        )
        .await;
    assert!(r.body.to_string().contains("Lisbon"));
    app.send_as(
        Some(&admin),
        Some("nope"),
        Method::GET,
        "/v1/memories?user_id=alice",
        None,
    )
    .await
    .assert_problem(404, Some("x-engram-tenant"));
    // The created admin key may manage keys.
    let r = app
        .send_as(Some(&admin), None, Method::GET, "/v1/admin/keys", None)
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.body.to_string().contains(&admin_id));
}

#[sqlx::test(migrations = false)]
async fn a_key_over_its_rate_limit_gets_429_with_retry_after(pool: PgPool) {
    let config = ApiConfig {
        rate_limit: Some(engram_api::RateLimit {
            per_second: 1.try_into().unwrap(),
            burst: 3.try_into().unwrap(),
        }),
        ..Default::default()
    };
    let app = TestApp::builder(pool).config(config).spawn().await;
    let (_, key) = app.create_key("tenant", Some("acme")).await;
    let (_, other) = app.create_key("tenant", Some("acme")).await;
    let path = "/v1/memories?user_id=u";
    let mut statuses = Vec::new();
    let mut limited = None;
    for _ in 0..6 {
        let r = app
            .client
            .get(app.url(path))
            .bearer_auth(&key)
            .send()
            .await
            .unwrap();
        statuses.push(r.status().as_u16());
        if r.status() == StatusCode::TOO_MANY_REQUESTS && limited.is_none() {
            let retry: u64 = r.headers()["retry-after"]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!((1..=2).contains(&retry), "Retry-After {retry}");
            assert_eq!(
                r.headers()["content-type"].to_str().unwrap(),
                "application/problem+json"
            );
            limited = Some(retry);
        }
    }
    assert!(statuses.contains(&429), "{statuses:?}");
    assert_eq!(statuses[0], 200);
    // Another key is not affected; after the wait the first key is served again.
    let r = app
        .send_as(Some(&other), None, Method::GET, path, None)
        .await;
    assert_eq!(r.status, StatusCode::OK);
    tokio::time::sleep(Duration::from_secs(limited.unwrap())).await;
    let r = app.send_as(Some(&key), None, Method::GET, path, None).await;
    assert_eq!(r.status, StatusCode::OK);
}

#[sqlx::test(migrations = false)]
async fn cors_is_off_unless_configured_and_slow_requests_time_out(pool: PgPool) {
    let preflight = |app: &TestApp| {
        app.client
            .request(Method::OPTIONS, app.url("/v1/memories/search"))
            .header("origin", "https://app.example")
            .header("access-control-request-method", "POST")
            .send()
    };
    let app = spawn_app(pool.clone()).await;
    let r = preflight(&app).await.unwrap();
    assert!(r.headers().get("access-control-allow-origin").is_none());

    let config = ApiConfig {
        cors_origins: vec!["https://app.example".into()],
        request_timeout: Duration::from_millis(1),
        ..Default::default()
    };
    let app = TestApp::builder(pool).config(config).spawn().await;
    let r = preflight(&app).await.unwrap();
    assert_eq!(
        r.headers()["access-control-allow-origin"],
        "https://app.example"
    );
    // Embedding a query alone takes longer than 1 ms.
    app.post(
        "/v1/memories/search",
        json!({"user_id": "u", "query": "anything at all"}),
    )
    .await
    .assert_problem(503, None);
}

#[sqlx::test(migrations = false)]
async fn the_audit_log_records_who_did_what_without_content(pool: PgPool) {
    let app = spawn_app(pool).await;
    let (key_id, key_a) = app.create_key("tenant", Some("tenant-a")).await;
    seed_tenant_a(&app, &key_a).await;
    let export = app
        .send_as(
            Some(&key_a),
            None,
            Method::GET,
            "/v1/admin/users/alice/export",
            None,
        )
        .await;
    assert_eq!(export.status, StatusCode::OK);
    let mem = app
        .send_as(
            Some(&key_a),
            None,
            Method::GET,
            "/v1/memories?user_id=alice",
            None,
        )
        .await;
    let id = mem.body["results"][0]["id"].as_str().unwrap().to_owned();
    let r = app
        .send_as(
            Some(&key_a),
            None,
            Method::DELETE,
            &format!("/v1/memories/{id}"),
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let r = app
        .send_as(
            Some(&key_a),
            None,
            Method::DELETE,
            "/v1/admin/users/alice",
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    tokio::time::sleep(Duration::from_millis(200)).await; // request entries are written after the response

    let log = app.get("/v1/admin/audit?limit=100").await;
    assert_eq!(log.status, StatusCode::OK);
    let entries = log.body["results"].as_array().unwrap();
    let actions: Vec<&str> = entries
        .iter()
        .map(|e| e["action"].as_str().unwrap())
        .collect();
    for wanted in ["key.create", "admin.request", "memory.delete", "user.erase"] {
        assert!(
            actions.contains(&wanted),
            "{wanted} missing from {actions:?}"
        );
    }
    let erase = entries
        .iter()
        .find(|e| e["action"] == "user.erase")
        .unwrap();
    assert_eq!(erase["actor"], format!("key:{key_id}"));
    assert!(erase["request_id"].is_string());
    assert!(erase["details"]["memories"].as_i64().unwrap() >= 1);
    // By user: the hash finds the entries; nothing stores the id or any content.
    let by_user = app
        .send_as(
            Some(crate::common::KEY),
            Some("tenant-a"),
            Method::GET,
            "/v1/admin/audit?user_id=alice&limit=100",
            None,
        )
        .await;
    let about_alice = by_user.body["results"].as_array().unwrap().len();
    assert!(about_alice >= 3, "{}", by_user.body);
    let text = log.body.to_string();
    for secret in ["alice", "Lisbon", "locker", &key_a] {
        assert!(!text.contains(secret), "the audit log holds {secret:?}");
    }
    // Only admin keys read the audit log.
    app.send_as(Some(&key_a), None, Method::GET, "/v1/admin/audit", None)
        .await
        .assert_problem(403, None);
    app.get("/v1/admin/audit?limit=0")
        .await
        .assert_problem(422, Some("limit"));
}
