//! Shared state of the HTTP layer. Holds nothing a second replica would need:
//! all data is in Postgres.

use std::sync::Arc;

use engram_core::access::hash_key;
use engram_core::{Clock, Embedder, KeyBinding, Limits, Role, SearchWeights, DEFAULT_TENANT};
use engram_store::AuditEntry;
use engram_store::Store;
use subtle::ConstantTimeEq;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use uuid::Uuid;

/// Settings of the API layer, parsed once by the server.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    pub limits: Limits,
    pub max_body_bytes: usize,
    pub weights: SearchWeights,
    pub half_life_days: f64,
    /// The relevance gate: minimum relevance before blending.
    pub min_relevance: f32,
    /// Hybrid search: the lexical share of relevance (the rest is the cosine).
    pub lexical_weight: f32,
    /// Hybrid search: how much the evidence around a match adds.
    pub signal_weights: engram_core::SignalWeights,
    /// The share of relevance given to closeness in time when the query names
    /// a period ("in May 2023", "last week").
    pub time_weight: f32,
    /// How long an add with `wait: true` waits for its job before answering 202.
    pub add_wait_timeout: std::time::Duration,
    /// Attempts before an extraction job is failed for good.
    pub job_max_attempts: i32,
    /// Extraction jobs one tenant may have waiting (429 `queue-full` past
    /// it); `None`: no cap.
    pub max_queued_jobs: Option<u32>,
    /// Requests per second each key may make (sustained), and the burst above
    /// it; `None` turns rate limiting off.
    pub rate_limit: Option<RateLimit>,
    /// How long a request may take before it is answered 503 (an export's
    /// streamed body is not bounded by it, only the time to its first byte).
    pub request_timeout: std::time::Duration,
    /// Each database statement of a request is cancelled after this long
    /// (503 `query-timeout`); `None` leaves statements unbounded. Erasure,
    /// purges, exports and consolidation are not bounded by it.
    pub statement_timeout: Option<std::time::Duration>,
    /// Requests served at once (authenticated routes); more are answered
    /// 503 `overloaded` with Retry-After at once rather than queued.
    pub max_concurrent_requests: usize,
    /// Characters one add or session append may carry in all its messages
    /// together (each is also bounded by `limits.max_content_chars`), so one
    /// request cannot occupy the embedder for long.
    pub max_add_chars: usize,
    /// Distinct query terms lexical search scores at most: those rarest in
    /// the scope searched.
    pub search_max_terms: usize,
    /// A request's head must arrive within this, from its first byte (from
    /// the accept for a new connection); else the connection is closed.
    pub header_timeout: std::time::Duration,
    /// A kept-alive connection idle this long is closed.
    pub idle_timeout: std::time::Duration,
    /// A request's body must arrive whole within this of its head (408 and
    /// the connection closed otherwise); it is read before the request
    /// takes a server-wide slot.
    pub body_timeout: std::time::Duration,
    /// A response write that cannot make progress for this long (the client
    /// stopped reading) closes the connection.
    pub write_timeout: std::time::Duration,
    /// Requests in flight at once with one API key (0: no cap).
    pub max_requests_per_key: usize,
    /// Requests in flight at once from one IP address, bodies being read or
    /// sent included (0: no cap).
    pub max_requests_per_peer: usize,
    /// Failed authentications a peer may make per second before its unknown
    /// keys are refused without a lookup for a moment (0: no limit).
    pub auth_failures_per_second: u32,
    /// Exports read from the database at once; more are answered 503.
    pub max_concurrent_exports: usize,
    /// Origins allowed by CORS; empty means no CORS headers at all.
    pub cors_origins: Vec<String>,
    /// Memories per page of a streamed export.
    pub export_page: usize,
    /// Counts tokens for session windows and context budgets.
    pub tokens: engram_context::TokenCounter,
    /// Tokens of recent turns a new session keeps in full.
    pub session_window_tokens: u32,
    /// What the workers extract and summarise with (shown by /readyz).
    pub models: ModelsInfo,
    /// `Host` values `/mcp` accepts (DNS-rebinding protection); empty: any
    /// (every request carries a key anyway).
    pub mcp_allowed_hosts: Vec<String>,
    /// What was said that is kept as episodic memories (`ENGRAM_EPISODIC`).
    pub episodic: EpisodicConfig,
}

/// The episodic layer: whose turns are kept, for how long, in what pieces.
#[derive(Debug, Clone, Copy, Default)]
pub struct EpisodicConfig {
    pub keep: engram_core::said::KeepTurns,
    /// Days a piece is kept after it was last said or used; `None` keeps it
    /// until it is deleted.
    pub retention_days: Option<u32>,
    pub bound: engram_core::text::PieceBound,
    /// The importance of the assistant's words kept as said (`None`: the
    /// default, `said::ASSISTANT_IMPORTANCE`).
    pub assistant_importance: Option<f32>,
}

impl EpisodicConfig {
    /// How long a piece is kept after it was last said or used.
    pub fn retention(&self) -> engram_store::Retention {
        self.retention_days
            .map(|d| engram_core::time::days(i64::from(d)))
    }
}

#[derive(Debug, Clone, Copy)]
pub struct RateLimit {
    pub per_second: std::num::NonZeroU32,
    pub burst: std::num::NonZeroU32,
}

impl Default for ApiConfig {
    fn default() -> Self {
        Self {
            limits: Limits::default(),
            max_body_bytes: 1 << 20,
            weights: SearchWeights::default(),
            half_life_days: 30.0,
            min_relevance: 0.1,
            lexical_weight: 0.5,
            signal_weights: engram_core::SignalWeights::default(),
            time_weight: 0.3,
            add_wait_timeout: std::time::Duration::from_secs(10),
            job_max_attempts: 5,
            max_queued_jobs: Some(5000),
            rate_limit: None,
            request_timeout: std::time::Duration::from_secs(30),
            statement_timeout: Some(std::time::Duration::from_secs(5)),
            max_concurrent_requests: 64,
            max_add_chars: 32_000,
            search_max_terms: 32,
            header_timeout: std::time::Duration::from_secs(10),
            idle_timeout: std::time::Duration::from_secs(75),
            body_timeout: std::time::Duration::from_secs(10),
            write_timeout: std::time::Duration::from_secs(30),
            max_requests_per_key: 32,
            max_requests_per_peer: 64,
            // Off, as the rate limit is: tests send bad keys by the hundred
            // (the server's own default is 20, `engram serve --help`).
            auth_failures_per_second: 0,
            max_concurrent_exports: 2,
            cors_origins: Vec::new(),
            export_page: 500,
            tokens: engram_context::TokenCounter::new(engram_context::Encoding::O200kBase),
            session_window_tokens: 2000,
            models: ModelsInfo::default(),
            mcp_allowed_hosts: Vec::new(),
            episodic: EpisodicConfig::default(),
        }
    }
}

/// The models behind the background work, as `/readyz` shows them.
#[derive(Debug, Clone)]
pub struct ModelsInfo {
    pub extractor: String,
    pub summarizer: String,
    pub conflict_reviewer: Option<String>,
    /// How the LLM is asked for JSON (null with the rules).
    pub structured_output: Option<String>,
}

impl Default for ModelsInfo {
    fn default() -> Self {
        Self {
            extractor: "rules".into(),
            summarizer: "extractive".into(),
            conflict_reviewer: None,
            structured_output: None,
        }
    }
}

/// The admin API key, kept only as its SHA-256 so it never sits in memory in clear.
#[derive(Clone)]
pub struct ApiKey([u8; 32]);

impl ApiKey {
    pub fn new(key: &str) -> Self {
        Self(hash_key(key))
    }

    /// Constant-time comparison of digests (equal length whatever the input).
    pub fn matches(&self, presented: &str) -> bool {
        self.0.ct_eq(&hash_key(presented)).into()
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Who is calling, set by authentication: the tenant every query of the
/// request is filtered by, and what the key may do.
#[derive(Debug, Clone)]
pub struct Caller {
    pub tenant_id: Uuid,
    pub role: Role,
    /// `None` for the key in ENGRAM_API_KEY.
    pub key_id: Option<Uuid>,
    /// How history and the audit log name the caller (never the key itself).
    pub actor: String,
    pub request_id: Option<String>,
    /// The one user (and agent) a bound key acts for (see `binding.rs`).
    pub binding: Option<KeyBinding>,
}

impl Caller {
    /// The key configured in ENGRAM_API_KEY, in the default tenant.
    pub fn env_admin() -> Self {
        Self {
            tenant_id: DEFAULT_TENANT,
            role: Role::Admin,
            key_id: None,
            actor: "key:env-admin".into(),
            request_id: None,
            binding: None,
        }
    }

    /// An audit entry by this caller, for its tenant.
    pub fn audit(&self, action: &str) -> AuditEntry {
        AuditEntry {
            tenant_id: Some(self.tenant_id),
            ..AuditEntry::new(&self.actor, action, self.request_id.clone())
        }
    }
}

/// Per-key request budgets (governor's GCRA: no background task, a few bytes
/// per key). Keyed by key id; the ENGRAM_API_KEY key uses the nil id.
pub type KeyLimiter = governor::DefaultKeyedRateLimiter<Uuid>;

#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub embedder: Arc<dyn Embedder>,
    pub config: Arc<ApiConfig>,
    pub api_key: ApiKey,
    pub limiter: Option<Arc<KeyLimiter>>,
    pub usage: UsageRecorder,
    pub clock: Arc<dyn Clock>,
    pub admission: Arc<crate::admission::Admission>,
    /// Whether a stored text may be shown in a context block, remembered
    /// per memory and text (the screens cost ~0.2 ms a memory).
    pub shown: Arc<ShownVerdicts>,
}

/// The read-time screen's verdicts (`usecases::context_block`), by memory
/// id and a hash of its text: a changed text is screened again.
pub struct ShownVerdicts(std::sync::Mutex<lru::LruCache<(Uuid, u64), bool>>);

impl Default for ShownVerdicts {
    fn default() -> Self {
        let capacity = std::num::NonZeroUsize::new(100_000).unwrap_or(std::num::NonZeroUsize::MIN);
        Self(std::sync::Mutex::new(lru::LruCache::new(capacity)))
    }
}

impl ShownVerdicts {
    /// The verdict for `id` with `text`, computed by `decide` when unknown.
    pub fn get_or(&self, id: Uuid, text: &str, decide: impl FnOnce() -> bool) -> bool {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        let key = (id, h.finish());
        if let Some(v) = self.0.lock().ok().and_then(|mut c| c.get(&key).copied()) {
            return v;
        }
        let v = decide();
        if let Ok(mut c) = self.0.lock() {
            c.put(key, v);
        }
        v
    }
}

/// Records, off the request path, that memories were returned to a caller.
/// Best effort: when the queue is full the update is dropped with a warning
/// rather than slowing searches down.
#[derive(Clone)]
pub struct UsageRecorder {
    tx: mpsc::Sender<(Uuid, Vec<Uuid>)>,
}

impl UsageRecorder {
    /// Starts the recorder's task; it ends when every sender is dropped. A
    /// piece of what was said that is used is kept `retention` longer.
    pub fn spawn(store: Store, retention: engram_store::Retention) -> (Self, JoinHandle<()>) {
        let (tx, mut rx) = mpsc::channel::<(Uuid, Vec<Uuid>)>(1024);
        let task = tokio::spawn(async move {
            while let Some((tenant, ids)) = rx.recv().await {
                if let Err(e) = store.touch_memories(tenant, &ids, retention).await {
                    tracing::warn!(error = %e, "could not record memory usage");
                }
            }
        });
        (Self { tx }, task)
    }

    pub fn record(&self, tenant: Uuid, ids: Vec<Uuid>) {
        if ids.is_empty() {
            return;
        }
        if self.tx.try_send((tenant, ids)).is_err() {
            tracing::warn!("usage queue full; dropped one access-count update");
        }
    }
}
