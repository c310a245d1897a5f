//! Test harness: a real server on a loopback port over a fresh database
//! (one per test, made by `#[sqlx::test]`), with the real local embedder.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use engram_api::ApiConfig;
use engram_core::{Embedder, ManualClock};
use engram_store::Store;
use engram_worker::{JobHandlers, WorkerConfig};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use sqlx::PgPool;

pub const KEY: &str = "test-admin-key";

/// The MiniLM model, loaded once per test binary.
pub fn embedder() -> Arc<dyn Embedder> {
    static EMBEDDER: OnceLock<Arc<dyn Embedder>> = OnceLock::new();
    EMBEDDER
        .get_or_init(|| {
            let dir = std::env::var("ENGRAM_EMBED_MODEL_DIR")
                .expect("ENGRAM_EMBED_MODEL_DIR is not set: run the tests with `make test`");
            Arc::new(engram_embed::MiniLm::load(&PathBuf::from(dir)).expect("model loads"))
        })
        .clone()
}

/// multilingual-e5-small (4-bit), loaded once per test binary.
pub fn e5() -> Arc<dyn Embedder> {
    static EMBEDDER: OnceLock<Arc<dyn Embedder>> = OnceLock::new();
    EMBEDDER
        .get_or_init(|| {
            let path = std::env::var("ENGRAM_E5_MODEL")
                .expect("ENGRAM_E5_MODEL is not set: run the tests with `make test`");
            Arc::new(engram_embed::E5Small::load(&PathBuf::from(path)).expect("e5 loads"))
        })
        .clone()
}

pub struct TestApp {
    pub addr: SocketAddr,
    pub pool: PgPool,
    pub client: reqwest::Client,
    /// The server's clock: tests move it to expire memories.
    pub clock: Arc<ManualClock>,
    /// Stops the background workers when sent `true`.
    pub stop_workers: tokio::sync::watch::Sender<bool>,
    /// What the workers run jobs with, for `run_pending_jobs`.
    pub handlers: Arc<JobHandlers>,
    workers: WorkerConfig,
}

/// How a test's app is made: `TestApp::builder(pool)…spawn()` (crates.io's
/// test-app shape); `spawn_app(pool)` for the defaults.
pub struct TestAppBuilder {
    pool: PgPool,
    config: ApiConfig,
    workers: WorkerConfig,
    extractor: Arc<dyn engram_core::extract::Extractor>,
    summarizer: Option<Arc<dyn engram_context::Summarizer>>,
    reviewer: Option<Arc<dyn engram_core::consolidate::ConflictReviewer>>,
    embedder: Arc<dyn Embedder>,
    handler_config: engram_worker::HandlerConfig,
}

impl TestApp {
    pub fn builder(pool: PgPool) -> TestAppBuilder {
        TestAppBuilder {
            pool,
            config: ApiConfig::default(),
            workers: fast_workers(1),
            extractor: Arc::new(engram_core::extract::RulesExtractor),
            summarizer: None,
            reviewer: None,
            embedder: embedder(),
            handler_config: engram_worker::HandlerConfig::default(),
        }
    }
}

impl TestAppBuilder {
    pub fn config(mut self, config: ApiConfig) -> Self {
        self.config = config;
        self
    }

    /// Background workers (`fast_workers(0)` for none: then only
    /// `run_pending_jobs` runs jobs).
    pub fn workers(mut self, workers: WorkerConfig) -> Self {
        self.workers = workers;
        self
    }

    pub fn extractor(mut self, extractor: Arc<dyn engram_core::extract::Extractor>) -> Self {
        self.extractor = extractor;
        self
    }

    /// What the job handlers do where the server's settings choose
    /// (e.g. `ENGRAM_UNREAD_MESSAGES`).
    pub fn handler_config(mut self, config: engram_worker::HandlerConfig) -> Self {
        self.handler_config = config;
        self
    }

    /// Another embedder than MiniLM (wrapped in the server's query cache).
    pub fn embedder(mut self, embedder: Arc<dyn Embedder>) -> Self {
        self.embedder = Arc::new(engram_embed::CachedEmbedder::new(embedder, 64));
        self
    }

    pub fn summarizer(mut self, summarizer: Arc<dyn engram_context::Summarizer>) -> Self {
        self.summarizer = Some(summarizer);
        self
    }

    pub fn reviewer(
        mut self,
        reviewer: Arc<dyn engram_core::consolidate::ConflictReviewer>,
    ) -> Self {
        self.reviewer = Some(reviewer);
        self
    }

    pub async fn spawn(self) -> TestApp {
        let _ = tracing_subscriber::fmt()
            .with_test_writer()
            .with_env_filter("warn,sqlx=error")
            .try_init();
        let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
        let store = Store::new(self.pool.clone());
        let (state, _usage) = engram_server::prepare(
            store.clone(),
            self.embedder.clone(),
            self.config,
            KEY,
            clock.clone(),
        )
        .await
        .expect("state prepares");
        let mut handlers =
            engram_server::job_handlers(store, self.embedder, self.extractor, clock.clone());
        if let Some(s) = self.summarizer {
            handlers.summarizer = s;
        }
        handlers.reviewer = self.reviewer;
        handlers.config = self.handler_config;
        let handlers = Arc::new(handlers);
        let (stop_workers, stopped) = tokio::sync::watch::channel(false);
        engram_worker::spawn_workers(handlers.clone(), self.workers.clone(), stopped);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("binds");
        let addr = listener.local_addr().expect("has an address");
        tokio::spawn(engram_server::serve(
            listener,
            state,
            std::future::pending(),
        ));
        TestApp {
            addr,
            pool: self.pool,
            client: reqwest::Client::new(),
            clock,
            stop_workers,
            handlers,
            workers: self.workers,
        }
    }
}

/// The app with its defaults: the rules extractor, one fast worker.
pub async fn spawn_app(pool: PgPool) -> TestApp {
    TestApp::builder(pool).spawn().await
}

/// Workers that poll often and retry quickly, for tests.
pub fn fast_workers(workers: usize) -> WorkerConfig {
    WorkerConfig {
        workers,
        lease: std::time::Duration::from_secs(30),
        poll_interval: std::time::Duration::from_millis(50),
        backoff_base: std::time::Duration::from_millis(50),
        max_backoff: std::time::Duration::from_millis(200),
    }
}

/// A response: status, content type and parsed body (Null when empty or not JSON).
pub struct Reply {
    pub status: StatusCode,
    pub content_type: String,
    pub body: Value,
}

impl Reply {
    /// Asserts an RFC 9457 problem with this status and, if given, this field.
    pub fn assert_problem(&self, status: u16, field: Option<&str>) {
        assert_eq!(self.status.as_u16(), status, "body: {}", self.body);
        assert_eq!(
            self.content_type, "application/problem+json",
            "body: {}",
            self.body
        );
        assert_eq!(self.body["status"], status);
        assert!(self.body["type"]
            .as_str()
            .unwrap_or("")
            .starts_with("urn:engram:problem:"));
        assert!(self.body["title"].is_string() && self.body["detail"].is_string());
        if let Some(field) = field {
            assert_eq!(self.body["field"], field, "body: {}", self.body);
        }
    }
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    pub async fn send(&self, method: Method, path: &str, body: Option<Value>) -> Reply {
        let mut req = self.client.request(method, self.url(path)).bearer_auth(KEY);
        if let Some(b) = body {
            req = req.json(&b);
        }
        into_reply(req.send().await.expect("request is sent")).await
    }

    pub async fn raw(&self, req: reqwest::RequestBuilder) -> Reply {
        into_reply(req.send().await.expect("request is sent")).await
    }

    pub async fn post(&self, path: &str, body: Value) -> Reply {
        self.send(Method::POST, path, Some(body)).await
    }

    pub async fn get(&self, path: &str) -> Reply {
        self.send(Method::GET, path, None).await
    }

    pub async fn patch(&self, path: &str, body: Value) -> Reply {
        self.send(Method::PATCH, path, Some(body)).await
    }

    pub async fn delete(&self, path: &str) -> Reply {
        self.send(Method::DELETE, path, None).await
    }

    /// Adds one verbatim text for a user and returns its id.
    pub async fn add_text(&self, user: &str, text: &str) -> String {
        let r = self
            .post(
                "/v1/memories",
                serde_json::json!({"text": text, "user_id": user, "infer": false}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "body: {}", r.body);
        r.body["results"][0]["id"].as_str().expect("id").to_owned()
    }

    pub async fn search(&self, body: Value) -> Vec<Value> {
        let r = self.post("/v1/memories/search", body).await;
        assert_eq!(r.status, StatusCode::OK, "body: {}", r.body);
        r.body["results"].as_array().expect("results").clone()
    }

    /// Appends to a session (201 expected); the response.
    pub async fn append(&self, session: &str, body: Value) -> Value {
        let r = self
            .post(&format!("/v1/sessions/{session}/messages"), body)
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "body: {}", r.body);
        r.body
    }

    /// Adds one user message with `infer: true, wait: true`; the finished job.
    pub async fn infer(&self, user: &str, text: &str) -> Value {
        let body = serde_json::json!({"user_id": user, "wait": true, "messages": [{"role": "user", "content": text}]});
        let r = self.post("/v1/memories", body).await;
        assert_eq!(r.status, StatusCode::OK, "body: {}", r.body);
        assert_eq!(r.body["status"], "done", "body: {}", r.body);
        r.body
    }

    /// Runs the jobs that are due now, here, one after another, until none
    /// is left (crates.io's `run_pending_background_jobs`): no polling, and
    /// it returns when they are done. The number run.
    pub async fn run_pending_jobs(&self) -> usize {
        let mut n = 0;
        while engram_worker::run_one(
            &self.handlers,
            &self.workers,
            "test",
            &engram_store::JobKind::ALL,
        )
        .await
        .expect("a job is claimed")
        {
            n += 1;
        }
        n
    }

    /// Every job in the database ended: the due ones run here, then any a
    /// background worker holds are waited for.
    pub async fn settle(&self) {
        self.run_pending_jobs().await;
        for _ in 0..400 {
            let open: i64 = sqlx::query_scalar(
                "SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')",
            )
            .fetch_one(&self.pool)
            .await
            .expect("jobs are counted");
            if open == 0 {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(25)).await;
        }
        panic!("jobs did not finish");
    }

    /// The newest history entry of a memory.
    pub async fn last_history(&self, id: &str) -> Value {
        let history = self.get(&format!("/v1/memories/{id}/history")).await.body;
        history["results"]
            .as_array()
            .and_then(|a| a.last())
            .cloned()
            .unwrap_or(Value::Null)
    }

    /// The user's export document, as bytes (the admin key, default tenant).
    pub async fn export(&self, user: &str) -> Vec<u8> {
        let resp = self
            .client
            .get(self.url(&format!("/v1/admin/users/{user}/export")))
            .bearer_auth(KEY)
            .send()
            .await
            .expect("request is sent");
        assert_eq!(resp.status(), StatusCode::OK);
        assert_eq!(resp.headers()["content-type"], "application/json");
        resp.bytes().await.expect("body reads").to_vec()
    }

    /// A request with another key, optionally naming the tenant to act in.
    pub async fn send_as(
        &self,
        key: Option<&str>,
        tenant: Option<&str>,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Reply {
        let mut req = self.client.request(method, self.url(path));
        if let Some(key) = key {
            req = req.bearer_auth(key);
        }
        if let Some(t) = tenant {
            req = req.header(engram_api::TENANT_HEADER, t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        into_reply(req.send().await.expect("request is sent")).await
    }

    /// Creates a key through the admin API; (id, key).
    pub async fn create_key(&self, role: &str, tenant: Option<&str>) -> (String, String) {
        let mut body = serde_json::json!({"role": role, "name": format!("{role}-key")});
        if let Some(t) = tenant {
            body["tenant"] = t.into();
        }
        let r = self.post("/v1/admin/keys", body).await;
        assert_eq!(r.status, StatusCode::CREATED, "body: {}", r.body);
        (
            r.body["id"].as_str().expect("id").to_owned(),
            r.body["key"].as_str().expect("key").to_owned(),
        )
    }

    pub async fn count_rows(&self, table: &str) -> i64 {
        sqlx::query_scalar(&format!("SELECT count(*) FROM {table}"))
            .fetch_one(&self.pool)
            .await
            .expect("counts")
    }
}

async fn into_reply(resp: reqwest::Response) -> Reply {
    let status = resp.status();
    let content_type = resp
        .headers()
        .get(reqwest::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    let bytes = resp.bytes().await.expect("body reads");
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    Reply {
        status,
        content_type,
        body,
    }
}

pub fn contents(results: &[Value]) -> Vec<String> {
    results
        .iter()
        .map(|r| r["memory"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// Every key and string of a JSON answer except ids and timestamps, for
/// asserting that a secret is absent: a short numeric secret ("8642") turns
/// up by chance in a UUID or in a timestamp's microseconds.
pub fn prose(v: &Value) -> String {
    fn walk(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(&without_uuids(s));
                out.push('\n');
            }
            Value::Array(items) => items.iter().for_each(|i| walk(i, out)),
            Value::Object(map) => {
                for (k, v) in map {
                    out.push_str(k);
                    out.push('\n');
                    let machine_made = k == "id"
                        || k.ends_with("_id")
                        || k.ends_with("_at")
                        || k.ends_with("cursor");
                    if !machine_made {
                        walk(v, out);
                    }
                }
            }
            other => {
                out.push_str(&other.to_string());
                out.push('\n');
            }
        }
    }
    let mut out = String::new();
    walk(v, &mut out);
    out
}

/// `text` with every UUID replaced by `<id>` (ids inside reasons, metadata
/// and job payloads), for the same reason as [`prose`].
pub fn without_uuids(text: &str) -> String {
    const SHAPE: &[u8] = b"xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
    let is_uuid = |w: &[u8]| {
        w.iter().zip(SHAPE).all(|(c, s)| match s {
            b'-' => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
    };
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let (mut i, mut copied) = (0, 0);
    while i + SHAPE.len() <= bytes.len() {
        if is_uuid(&bytes[i..i + SHAPE.len()]) {
            out.push_str(&text[copied..i]);
            out.push_str("<id>");
            i += SHAPE.len();
            copied = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&text[copied..]);
    out
}

/// The `event` of every item in `results`.
pub fn events(body: &Value) -> Vec<String> {
    body["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|e| e["event"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// The URL of the test's own database (made by `#[sqlx::test]`).
pub fn database_url(pool: &PgPool) -> String {
    let base = std::env::var("DATABASE_URL").expect("DATABASE_URL is set by `make test`");
    let db = pool
        .connect_options()
        .get_database()
        .expect("a database name")
        .to_owned();
    let (server, _) = base.rsplit_once('/').expect("URL has a path");
    format!("{server}/{db}")
}

/// Every place a user's id or words could hide: each text, json, jsonb,
/// tsvector and array column of every table (read from information_schema,
/// so new tables are covered), searched case-insensitively.
pub async fn tables_holding(app: &TestApp, needle: &str) -> Vec<String> {
    let columns: Vec<(String, String)> = sqlx::query_as(
        "SELECT table_name::text, column_name::text FROM information_schema.columns
         WHERE table_schema = 'public'
           AND (data_type IN ('text', 'character varying', 'json', 'jsonb', 'tsvector', 'ARRAY')
                OR udt_name IN ('text', 'varchar', 'jsonb', 'tsvector'))",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let tables: Vec<&str> = columns.iter().map(|(t, _)| t.as_str()).collect();
    for t in [
        "consolidation_runs",
        "consolidation_progress",
        "audit_log",
        "session_summaries",
    ] {
        assert!(tables.contains(&t), "the scan sees {t}");
    }
    let mut found = Vec::new();
    for (table, column) in columns {
        let n: i64 = sqlx::query_scalar(&format!(
            "SELECT count(*) FROM \"{table}\" WHERE \"{column}\"::text ILIKE '%' || $1 || '%'"
        ))
        .bind(needle)
        .fetch_one(&app.pool)
        .await
        .unwrap();
        if n > 0 {
            found.push(format!("{table}.{column} ({n})"));
        }
    }
    found
}
