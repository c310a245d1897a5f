//! The `engram` binary and the checks it makes before serving.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::common::{database_url, embedder, spawn_app, TestApp, KEY};
use engram_api::ApiConfig;
use engram_embed::{OpenAiEmbedder, OpenAiEmbedderConfig};
use engram_store::{Store, StoreError};
use serde_json::{json, Value};
use sqlx::PgPool;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

fn engram(pool: &PgPool) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_engram"));
    cmd.env("ENGRAM_DATABASE_URL", database_url(pool))
        .env_remove("ENGRAM_API_KEY")
        .env("RUST_LOG", "info")
        .stdin(Stdio::null());
    cmd
}

/// Waits until no other session uses the test's database: a killed server's
/// backends end a moment after its sockets close, and the database can only
/// be dropped after that.
async fn wait_for_disconnect(pool: &PgPool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let others: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
        )
        .fetch_one(pool)
        .await
        .unwrap();
        if others < pool.size() as i64 || Instant::now() > deadline {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[sqlx::test(migrations = false)]
async fn the_binary_serves_with_defaults_and_stops_on_sigterm(pool: PgPool) {
    let port = free_port();
    // Blank settings count as unset, as a compose file's `${NAME:-}` passes
    // them: built-in rules, not an LLM at "".
    let mut child = engram(&pool)
        .arg("serve")
        .env("ENGRAM_API_KEY", KEY)
        .env("ENGRAM_BIND", format!("127.0.0.1:{port}"))
        .env("ENGRAM_LLM_BASE_URL", "")
        .env("ENGRAM_LLM_API_KEY", " ")
        .env("ENGRAM_EMBED_API_KEY", "")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("engram starts");
    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    let ready: Value = loop {
        if let Ok(r) = client.get(format!("{base}/readyz")).send().await {
            if r.status() == 200 {
                break r.json().await.unwrap();
            }
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "engram exited before it was ready"
        );
        assert!(
            Instant::now() < deadline,
            "engram was not ready within 60 s"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(ready["models"]["extractor"], "rules", "{ready}");
    let r = client
        .post(format!("{base}/v1/memories"))
        .bearer_auth(KEY)
        .json(&json!({"user_id": "u", "text": "I play the cello.", "infer": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    let r: Value = client
        .post(format!("{base}/v1/memories/search"))
        .bearer_auth(KEY)
        .json(&json!({"user_id": "u", "query": "which instrument do I play"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["results"][0]["memory"], "I play the cello.");

    let status = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            Instant::now() < deadline,
            "engram did not stop within 10 s of SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(exit.success(), "graceful shutdown exits 0, got {exit:?}");
}

#[sqlx::test(migrations = false)]
async fn serve_without_a_key_refuses_to_start(pool: PgPool) {
    // Unset, empty (compose's `${ENGRAM_API_KEY:-}`) or blank: no admin key
    // anyone could send, so no server.
    for key in [None, Some(""), Some("  ")] {
        let mut cmd = engram(&pool);
        if let Some(key) = key {
            cmd.env("ENGRAM_API_KEY", key);
        }
        let out = cmd.arg("serve").output().unwrap();
        assert!(!out.status.success(), "{key:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("no API key: set ENGRAM_API_KEY"),
            "{key:?}: {stderr}"
        );
    }
}

/// A database setting out of range stops start-up with its variable's name.
#[sqlx::test(migrations = false)]
async fn a_zero_acquire_timeout_refuses_to_start(pool: PgPool) {
    let out = engram(&pool)
        .arg("serve")
        .env("ENGRAM_API_KEY", KEY)
        .env("ENGRAM_DB_ACQUIRE_TIMEOUT_MS", "0")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("ENGRAM_DB_ACQUIRE_TIMEOUT_MS"), "{stderr}");
}

#[sqlx::test(migrations = false)]
async fn an_embedder_of_another_dimension_stops_the_server(pool: PgPool) {
    let out = engram(&pool)
        .arg("serve")
        .env("ENGRAM_API_KEY", KEY)
        .env("ENGRAM_EMBEDDER", "openai")
        .env("ENGRAM_EMBED_BASE_URL", "http://127.0.0.1:9/v1")
        .env("ENGRAM_EMBED_DIMENSIONS", "768")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("768-dimensional") && stderr.contains("vector(384)"),
        "{stderr}"
    );
}

#[sqlx::test(migrations = false)]
async fn migrate_applies_the_schema(pool: PgPool) {
    let out = engram(&pool).arg("migrate").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let applied: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations WHERE success")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(applied as usize, engram_store::MIGRATOR.iter().count());
    // Idempotent.
    assert!(engram(&pool)
        .arg("migrate")
        .output()
        .unwrap()
        .status
        .success());
}

#[sqlx::test(migrations = false)]
async fn vectors_of_one_model_are_never_mixed_with_another(pool: PgPool) {
    let store = Store::new(pool.clone());
    store.migrate().await.unwrap();
    // An empty store may switch models.
    store.check_embedder("some-other-model", 384).await.unwrap();
    let app = spawn_app(pool.clone()).await;
    app.add_text("u", "I like tea.").await;
    match store.check_embedder("some-other-model", 384).await {
        Err(StoreError::EmbedderMismatch(m)) => {
            assert!(m.contains("sentence-transformers/all-MiniLM-L6-v2"), "{m}")
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
    store.check_embedder(embedder().id(), 384).await.unwrap();
}

#[sqlx::test(migrations = false)]
async fn readiness_reports_the_database_and_the_embedder(pool: PgPool) {
    let app = spawn_app(pool).await;
    let r = app.get("/readyz").await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body["checks"],
        json!({"database": "ok", "embedder": "ok"})
    );
    assert_eq!(r.body["embedder"]["dimensions"], 384);
    assert_eq!(app.get("/healthz").await.body, json!({"status": "ok"}));

    app.pool.close().await;
    let r = app.get("/readyz").await;
    assert_eq!(r.status, 503);
    assert_eq!(r.body["status"], "not ready");
    // With the database gone, the API answers 503 problems, not 500s.
    app.get("/v1/memories?user_id=u")
        .await
        .assert_problem(503, None);
    assert_eq!(
        app.get("/healthz").await.status,
        200,
        "liveness does not depend on the database"
    );
}

/// Deterministic 384-d vectors: a one-hot at a position derived from the text.
struct OneHot;

impl Respond for OneHot {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&req.body).unwrap();
        let data: Vec<Value> = body["input"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut v = vec![0.0f32; 384];
                v[t.as_str().unwrap().len() % 384] = 1.0;
                json!({"object": "embedding", "index": i, "embedding": v})
            })
            .collect();
        ResponseTemplate::new(200).set_body_json(json!({"object": "list", "model": "m", "data": data, "usage": {"prompt_tokens": 0, "total_tokens": 0}}))
    }
}

#[sqlx::test(migrations = false)]
async fn a_remote_embedder_gets_one_batch_per_add_and_its_outage_is_a_503(pool: PgPool) {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .respond_with(OneHot)
        .expect(1)
        .mount(&server)
        .await;
    let remote = Arc::new(OpenAiEmbedder::new(OpenAiEmbedderConfig {
        base_url: format!("{}/v1", server.uri()),
        api_key: None,
        model: "m".into(),
        dimensions: 384,
        request_dimensions: false,
    }));
    let (state, _usage) = engram_server::prepare(
        Store::new(pool.clone()),
        remote,
        ApiConfig::default(),
        KEY,
        Arc::new(engram_core::SystemClock),
    )
    .await
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(engram_server::serve(
        listener,
        state,
        std::future::pending(),
    ));
    let client = reqwest::Client::new();
    let messages: Vec<Value> = (0..3)
        .map(|i| json!({"role": "user", "content": format!("fact {i}")}))
        .collect();
    let r = client
        .post(format!("http://{addr}/v1/memories"))
        .bearer_auth(KEY)
        .json(&json!({"user_id": "u", "infer": false, "messages": messages}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    server.verify().await;

    // The embedding service fails: after async-openai's short retries, a 503.
    server.reset().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(500))
        .mount(&server)
        .await;
    let r = client
        .post(format!("http://{addr}/v1/memories/search"))
        .bearer_auth(KEY)
        .json(&json!({"user_id": "u", "query": "a brand new question"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 503);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
}

#[sqlx::test(migrations = false)]
async fn configured_limits_apply(pool: PgPool) {
    let config = ApiConfig {
        limits: engram_core::Limits {
            max_content_chars: 10,
            ..Default::default()
        },
        ..ApiConfig::default()
    };
    let app = TestApp::builder(pool).config(config).spawn().await;
    app.post(
        "/v1/memories",
        json!({"user_id": "u", "infer": false, "text": "eleven char"}),
    )
    .await
    .assert_problem(422, Some("text"));
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "infer": false, "text": "ten chars!"}),
        )
        .await;
    assert_eq!(r.status, 201);
}

#[sqlx::test(migrations = false)]
async fn engram_worker_runs_jobs_that_serve_only_queued(pool: PgPool) {
    // The API with no workers of its own...
    let app = crate::common::TestApp::builder(pool.clone())
        .workers(crate::common::fast_workers(0))
        .spawn()
        .await;
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "text": "I live in Oslo."}),
        )
        .await;
    assert_eq!(r.status, 202);
    let job = r.body["job_id"].as_str().unwrap().to_owned();
    // ...and `engram worker` as a separate process, with its own /metrics.
    let metrics_port = free_port();
    let mut worker = engram(&pool)
        .arg("worker")
        .env(
            "ENGRAM_WORKER_METRICS_BIND",
            format!("127.0.0.1:{metrics_port}"),
        )
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let j = app.get(&format!("/v1/jobs/{job}")).await.body;
        if j["status"] == "done" {
            assert_eq!(j["results"][0]["event"], "ADD");
            break;
        }
        assert!(worker.try_wait().unwrap().is_none(), "engram worker exited");
        assert!(Instant::now() < deadline, "job not done: {j}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let metrics = reqwest::get(format!("http://127.0.0.1:{metrics_port}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for expected in [
        "engram_jobs_total{kind=\"extract\",outcome=\"done\"} 1",
        "engram_extraction_facts_total{event=\"ADD\"} 1",
        "engram_jobs_queued{kind=\"extract\",status=\"queued\"} 0",
        "engram_db_pool_connections{state=\"idle\"}",
    ] {
        assert!(metrics.contains(expected), "{expected} in:\n{metrics}");
    }
    Command::new("kill")
        .arg("-TERM")
        .arg(worker.id().to_string())
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while worker.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < deadline,
            "engram worker did not stop on SIGTERM"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Logs never carry memory content, messages, user ids in bodies, or keys, even at debug level.
#[sqlx::test(migrations = false)]
async fn logs_hold_no_content_or_keys(pool: PgPool) {
    let port = free_port();
    let mut child = engram(&pool)
        .arg("serve")
        .env("ENGRAM_API_KEY", "key-Zq9vX2-secret")
        .env("ENGRAM_BIND", format!("127.0.0.1:{port}"))
        .env("ENGRAM_LOG_JSON", "true")
        .env("RUST_LOG", "debug")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("engram starts");
    // Drain the pipes while the server runs: a full pipe would block its logging.
    let drain = |mut pipe: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let client = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(60);
    while client
        .get(format!("{base}/readyz"))
        .send()
        .await
        .map(|r| r.status() != 200)
        .unwrap_or(true)
    {
        assert!(Instant::now() < deadline, "not ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let post = |path: &str, body: Value| {
        client
            .post(format!("{base}{path}"))
            .bearer_auth("key-Zq9vX2-secret")
            .json(&body)
            .send()
    };
    let user = "user-Gx7-private";
    post(
        "/v1/memories",
        json!({"user_id": user, "infer": false, "text": "Marzipan-Octopus lives in my attic."}),
    )
    .await
    .unwrap();
    post("/v1/memories", json!({"user_id": user, "wait": true, "messages": [{"role": "user", "content": "I live in Quokkaville-Zed. My password is hunter2-Xy."}]})).await.unwrap();
    post(
        "/v1/memories/search",
        json!({"user_id": user, "query": "Platypus-Nebula question"}),
    )
    .await
    .unwrap();
    // One 683-character Chinese "word" (more than 2,047 bytes, the longest
    // lexeme Postgres holds) was a 500 whose log line quoted the query.
    let long_word = "鸭嘴兽星云".repeat(137);
    for mode in ["hybrid", "lexical"] {
        let r = post(
            "/v1/memories/search",
            json!({"user_id": user, "query": long_word.clone(), "mode": mode}),
        )
        .await
        .unwrap();
        assert_eq!(r.status(), 200, "{mode}: {}", r.text().await.unwrap());
    }
    // Keys and the GDPR endpoints log neither keys nor whose data they touch.
    let created: Value = post(
        "/v1/admin/keys",
        json!({"role": "tenant", "tenant": "tenant-lq4", "name": "app"}),
    )
    .await
    .unwrap()
    .json()
    .await
    .unwrap();
    let tenant_key = created["key"].as_str().unwrap().to_owned();
    let as_tenant = client
        .post(format!("{base}/v1/memories/search"))
        .bearer_auth(&tenant_key)
        .json(&json!({"user_id": user, "query": "anything"}))
        .send()
        .await
        .unwrap();
    assert_eq!(as_tenant.status(), 200);
    for (method, path) in [
        (
            reqwest::Method::GET,
            format!("/v1/admin/users/{user}/export"),
        ),
        (reqwest::Method::DELETE, format!("/v1/admin/users/{user}")),
        (
            reqwest::Method::DELETE,
            "/v1/admin/sources/source-Pw3".to_owned(),
        ),
    ] {
        let r = client
            .request(method, format!("{base}{path}"))
            .bearer_auth("key-Zq9vX2-secret")
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200);
        r.bytes().await.unwrap();
    }
    client
        .get(format!("{base}/v1/memories?user_id=u"))
        .bearer_auth("wrong-Kv8-key")
        .send()
        .await
        .unwrap();
    Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .unwrap();
    let out = tokio::task::spawn_blocking(move || {
        let _ = child.wait();
        stdout.join().unwrap() + &stderr.join().unwrap()
    })
    .await
    .unwrap();
    assert!(out.contains("request"), "the run was logged at all");
    for secret in [
        "Marzipan-Octopus",
        "Quokkaville-Zed",
        "hunter2-Xy",
        "Platypus-Nebula",
        "key-Zq9vX2-secret",
        "wrong-Kv8-key",
        "user-Gx7-private",
        "source-Pw3",
        "鸭嘴兽",
        &tenant_key[40..],
    ] {
        assert!(!out.contains(secret), "the logs contain {secret}");
    }
    wait_for_disconnect(&pool).await;
}

/// `engram keys create|list|revoke` and `engram import`, against the same
/// database a server is using.
#[sqlx::test(migrations = false)]
async fn keys_and_import_work_from_the_command_line(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let run = |args: &[&str]| {
        let out = engram(&pool).args(args).output().expect("engram runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).trim().to_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, key, err) = run(&[
        "keys", "create", "--role", "tenant", "--tenant", "acme", "--name", "cli-app",
    ]);
    assert!(ok, "{err}");
    assert!(key.starts_with("egm_"), "{key}");
    let search = |key: String| {
        let app = &app;
        async move {
            app.client
                .post(app.url("/v1/memories/search"))
                .bearer_auth(key)
                .json(&json!({"user_id": "ivy", "query": "anything"}))
                .send()
                .await
                .unwrap()
                .status()
        }
    };
    assert_eq!(search(key.clone()).await, 200);
    let (ok, listed, _) = run(&["keys", "list"]);
    assert!(ok);
    let line = listed
        .lines()
        .find(|l| l.contains("cli-app"))
        .expect("listed");
    assert!(line.contains("acme") && line.contains("active") && !line.contains(&key));
    let id = line.split('\t').next().unwrap();
    let (ok, _, err) = run(&["keys", "revoke", id]);
    assert!(ok, "{err}");
    assert_eq!(search(key).await, 401);
    let (ok, _, err) = run(&[
        "keys", "create", "--role", "owner", "--tenant", "acme", "--name", "x",
    ]);
    assert!(!ok && err.contains("--role must be one of"), "{err}");
    let (ok, _, err) = run(&["keys", "revoke", "not-a-uuid"]);
    assert!(!ok && err.contains("UUID"), "{err}");
    // A key bound to one user: listed with its user, and it acts only for them.
    let (ok, bound, err) = run(&[
        "keys",
        "create",
        "--role",
        "tenant",
        "--tenant",
        "acme",
        "--name",
        "ivy-phone",
        "--user-id",
        "ivy",
    ]);
    assert!(ok && err.contains("bound to user ivy"), "{err}");
    assert_eq!(search(bound.clone()).await, 200);
    let other = app
        .client
        .post(app.url("/v1/memories/search"))
        .bearer_auth(&bound)
        .json(&json!({"user_id": "not-ivy", "query": "anything"}))
        .send()
        .await
        .unwrap();
    assert_eq!(other.status(), 403);
    let (_, listed, _) = run(&["keys", "list"]);
    let line = listed.lines().find(|l| l.contains("ivy-phone")).unwrap();
    assert_eq!(line.split('\t').nth(4), Some("ivy"), "{line}");
    for (args, said) in [
        (
            &["--user-id", "ivy", "--role", "admin"][..],
            "--user-id: admin keys",
        ),
        (
            &["--agent-id", "a", "--role", "tenant", "--tenant", "acme"][..],
            "--agent-id: a key bound to an agent needs a user_id",
        ),
    ] {
        let mut all = vec!["keys", "create", "--name", "x"];
        all.extend_from_slice(args);
        let (ok, _, err) = run(&all);
        assert!(!ok && err.contains(said), "{err}");
    }

    // Export over HTTP, erase, import the file with the binary.
    app.add_text("ivy", "I restore old typewriters.").await;
    let export = app.export("ivy").await;
    assert_eq!(app.delete("/v1/admin/users/ivy").await.status, 200);
    let file = std::env::temp_dir().join(format!("ivy-{}.json", uuid::Uuid::now_v7()));
    std::fs::write(&file, &export).unwrap();
    let (ok, counts, err) = run(&["import", file.to_str().unwrap()]);
    assert!(ok, "{err}");
    let counts: Value = serde_json::from_str(&counts).unwrap();
    assert_eq!(counts["memories"], 1);
    let found = app
        .search(json!({"user_id": "ivy", "query": "what do I repair"}))
        .await;
    assert_eq!(
        crate::common::contents(&found),
        ["I restore old typewriters."]
    );
    let (ok, _, err) = run(&["import", "/nonexistent/export.json"]);
    assert!(!ok && err.contains("could not read"), "{err}");
    std::fs::remove_file(&file).ok();

    // `engram consolidate`: a dry run plans, a real run merges, for one user.
    for text in ["likes tea", "Likes tea.", "likes tea!"] {
        app.post(
            "/v1/memories",
            json!({"user_id": "tess", "infer": false, "text": text}),
        )
        .await;
    }
    let dry_merges = |extra: &[&str]| {
        let mut args = vec!["consolidate", "--user", "tess", "--dry-run"];
        args.extend_from_slice(extra);
        let (ok, report, err) = run(&args);
        assert!(ok, "{err}");
        let report: serde_json::Value = serde_json::from_str(&report).unwrap();
        assert_eq!(report["dry_run"], true, "{report}");
        report["counts"]["merge"].as_i64().unwrap_or(0)
    };
    assert_eq!(dry_merges(&[]), 1);
    // The thresholds are configuration: at cosine 1 only identical texts merge.
    assert_eq!(dry_merges(&["--consolidation-duplicate-threshold", "1"]), 0);
    let (ok, _, err) = run(&[
        "consolidate",
        "--user",
        "tess",
        "--consolidation-archive-floor",
        "1.5",
    ]);
    assert!(
        !ok && err.contains("ENGRAM_CONSOLIDATION_ARCHIVE_FLOOR"),
        "{err}"
    );
    let (ok, _, err) = run(&[
        "consolidate",
        "--user",
        "tess",
        "--consolidation-episodic-window-hours",
        "100000",
    ]);
    assert!(
        !ok && err.contains("ENGRAM_CONSOLIDATION_EPISODIC_WINDOW_HOURS"),
        "{err}"
    );
    let (ok, report, err) = run(&["consolidate", "--user", "tess"]);
    assert!(ok, "{err}");
    assert!(report.contains("\"status\": \"done\""), "{report}");
    let live = app.get("/v1/memories?user_id=tess").await.body;
    assert_eq!(live["results"].as_array().unwrap().len(), 1, "{live}");
    let (ok, _, err) = run(&["consolidate", "--tenant", "acme"]);
    assert!(
        !ok && err.contains("--user"),
        "--tenant needs --user: {err}"
    );
}

/// Engram's migration runner (one statement per execution, for Citus) and
/// sqlx's own read each other's bookkeeping: same rows, same checksums; a
/// changed migration is refused.
#[sqlx::test(migrations = false)]
async fn the_migration_runner_and_sqlxs_agree(pool: PgPool) {
    let store = Store::new(pool.clone());
    store.migrate().await.expect("engram migrates");
    engram_store::MIGRATOR
        .run(&pool)
        .await
        .expect("sqlx sees every migration applied, with its checksum");
    let rows: i64 = sqlx::query_scalar("SELECT count(*) FROM _sqlx_migrations WHERE success")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(rows as usize, engram_store::MIGRATOR.iter().count());
    store.migrate().await.expect("a second run changes nothing");
    sqlx::query("UPDATE _sqlx_migrations SET checksum = '\\x00' WHERE version = (SELECT max(version) FROM _sqlx_migrations)")
        .execute(&pool)
        .await
        .unwrap();
    let err = store
        .migrate()
        .await
        .expect_err("a changed migration is refused");
    assert!(err.to_string().contains("was changed"), "{err}");
}

/// A database sqlx migrated up to some version is finished by Engram's
/// runner (an upgrade from a release that used sqlx's).
#[sqlx::test(migrations = false)]
async fn a_database_sqlx_migrated_is_finished_by_the_runner(pool: PgPool) {
    let last = engram_store::MIGRATOR
        .iter()
        .map(|m| m.version)
        .max()
        .unwrap();
    let older = sqlx::migrate::Migrator {
        migrations: std::borrow::Cow::Owned(
            engram_store::MIGRATOR
                .iter()
                .filter(|m| m.version < last)
                .cloned()
                .collect(),
        ),
        ..sqlx::migrate::Migrator::DEFAULT
    };
    older
        .run(&pool)
        .await
        .expect("sqlx applies all but the last");
    Store::new(pool.clone())
        .migrate()
        .await
        .expect("the runner applies the last");
    let applied: i64 = sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(applied, last);
    let index: Option<String> = sqlx::query_scalar(
        "SELECT indexname::text FROM pg_indexes WHERE indexname = 'memory_history_job_idx'",
    )
    .fetch_optional(&pool)
    .await
    .unwrap();
    assert!(index.is_some());
}

/// With `ENGRAM_LLM_RESPONSE_FORMAT=auto`, the server asks the endpoint once
/// at start which structured output it takes, and `/readyz` says what it found.
#[sqlx::test(migrations = false)]
async fn the_structured_output_probe_at_start_shows_in_readyz(pool: PgPool) {
    struct RefusesSchema;
    impl Respond for RefusesSchema {
        fn respond(&self, req: &Request) -> ResponseTemplate {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            if body["response_format"]["type"] == "json_schema" {
                return ResponseTemplate::new(400).set_body_json(
                    json!({"error": {"message": "json_schema not supported", "type": "invalid_request_error"}}),
                );
            }
            ResponseTemplate::new(200).set_body_json(json!({
                "id": "x", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "{\"facts\": []}"}}]
            }))
        }
    }
    let llm = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(RefusesSchema)
        .mount(&llm)
        .await;
    let port = free_port();
    let mut child = engram(&pool)
        .arg("serve")
        .env("ENGRAM_API_KEY", "key-probe")
        .env("ENGRAM_BIND", format!("127.0.0.1:{port}"))
        .env("ENGRAM_LLM_BASE_URL", format!("{}/v1", llm.uri()))
        .env("ENGRAM_LLM_MODEL", "small-model")
        .env("ENGRAM_WORKERS", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("engram starts");
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let ready = loop {
        if let Ok(r) = client
            .get(format!("http://127.0.0.1:{port}/readyz"))
            .send()
            .await
        {
            if r.status() == 200 {
                break r.json::<Value>().await.unwrap();
            }
        }
        assert!(Instant::now() < deadline, "not ready");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let _ = child.kill();
    let _ = child.wait();
    wait_for_disconnect(&pool).await;
    let shown = ready["models"]["structured_output"]
        .as_str()
        .unwrap_or_default();
    assert!(
        shown.starts_with("json_object") && shown.contains("probed at start"),
        "{ready}"
    );
    let probes = llm.received_requests().await.unwrap();
    assert!(!probes.is_empty(), "the endpoint was asked");
}
