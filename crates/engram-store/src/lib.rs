//! Postgres storage for Engram (sqlx + pgvector): memories, their history, search
//! candidates. All SQL lives in this crate. Every statement filters by tenant.
//!
//! Queries are built at run time (`sqlx::query_as` / `QueryBuilder`) because the
//! scope and filter conditions vary per request and only the conditions present
//! are emitted, which keeps the partial btree indexes usable; integration tests
//! run every statement against a real Postgres.

mod admin;
mod audit;
mod consolidation;
mod derived;
mod entities;
mod error;
mod export;
mod extraction;
mod history;
mod jobs;
mod keys;
mod memories;
pub mod migrate;
mod ownership;
mod person;
mod profile;
mod pseudonyms;
mod receipt;
mod revert;
mod rows;
mod search;
mod sessions;
mod tenant;

pub use admin::{Apply, Counts, MergeRestore, SourcePurgePlan};
pub use audit::{AuditEntry, AuditQuery, AuditRecord};
pub use consolidation::{ConsolidationRun, UserStart};
pub use entities::{Entity, EntityKind, EntityQuery};
pub use error::{sanitized, ConflictKind, StoreError};
pub use export::{
    ExportChunk, ExportDocument, ExportHeader, ExportTenant, ExportedHistory, ExportedJob,
    ExportedMemory, ExportedSession, UserExport, EXPORT_FORMAT, EXPORT_VERSION,
};
pub use extraction::{ExtractionTx, FactContext};
pub use jobs::{
    ConsolidateOutcome, ConsolidatePayload, Enqueued, JobKind, JobPayload, JobQuery, JobRow,
    NewJob, PayloadError, QueueStat, SummarizePayload, JOBS_CHANNEL,
};
pub use keys::{CreatedKey, KeyInfo, StoredKey};
pub use memories::{InsertOutcome, NewPiece, PieceOutcome, Retention, EARLIER};
pub use person::{SessionOverview, UserOverview};
pub use profile::UserSummary;
pub use revert::LatestChange;
pub use search::{Candidate, Seeds};
pub use sessions::{
    Append, Appended, NewSummary, NewTurn, SessionInfo, SessionState, SessionSummary, SessionTurn,
    SummaryWork, TrailingTurn,
};
pub use tenant::enter_tenant;

use sqlx::PgPool;

pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../../migrations");

/// Handle to the database. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    pool: PgPool,
    /// Cancels any statement of a tenant transaction that runs longer
    /// (`SET LOCAL statement_timeout`): the request path's bound, so no one
    /// request holds the database for long. `None` for background work.
    statement_timeout_ms: Option<u64>,
    /// The deployment's subject key, read on first use (`subject_key`).
    subject_key: std::sync::Arc<std::sync::OnceLock<engram_core::access::SubjectKey>>,
    /// Jobs one tenant may have waiting; an enqueue past it is refused
    /// (`StoreError::QueueFull`). `None`: no cap.
    queue_cap: Option<i64>,
}

impl Store {
    /// A store without a statement timeout (background work, maintenance).
    pub fn new(pool: PgPool) -> Self {
        Self {
            pool,
            statement_timeout_ms: None,
            subject_key: Default::default(),
            queue_cap: None,
        }
    }

    /// The same database, with every statement of a tenant transaction
    /// cancelled after `timeout` (`StoreError::StatementTimeout`).
    pub fn with_statement_timeout(&self, timeout: Option<std::time::Duration>) -> Self {
        Self {
            pool: self.pool.clone(),
            statement_timeout_ms: timeout.map(|t| (t.as_millis() as u64).max(1)),
            subject_key: self.subject_key.clone(),
            queue_cap: self.queue_cap,
        }
    }

    /// The same database, refusing an enqueue (`StoreError::QueueFull`)
    /// while the tenant already has `cap` jobs waiting: the bound on what
    /// one tenant can put in front of the workers.
    pub fn with_queue_cap(&self, cap: Option<u32>) -> Self {
        Self {
            queue_cap: cap.map(i64::from),
            ..self.clone()
        }
    }

    /// The same database without a statement timeout: for work that is
    /// long by nature and bounded otherwise (erasure, purges, exports).
    pub fn unbounded(&self) -> Self {
        self.with_statement_timeout(None)
    }

    pub fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Applies the migrations, then makes sure the deployment's subject key
    /// exists: from the first start on, every backup carries the key its
    /// pseudonyms were made with (a restore must compute the same ones).
    pub async fn migrate(&self) -> Result<(), StoreError> {
        migrate::run(&self.pool).await?;
        self.subject_key().await?;
        Ok(())
    }

    /// Database reachable and every migration this binary knows applied.
    pub async fn ready(&self) -> Result<(), StoreError> {
        let latest = MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0);
        let applied: Option<i64> =
            sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations WHERE success")
                .fetch_one(&self.pool)
                .await?;
        if applied.unwrap_or(0) < latest {
            return Err(StoreError::NotMigrated);
        }
        Ok(())
    }

    /// Refuses to run an embedder whose vectors differ from those already stored:
    /// the column's dimension must match, and a different model may only take over
    /// an empty store.
    pub async fn check_embedder(
        &self,
        embedder_id: &str,
        dimensions: usize,
    ) -> Result<(), StoreError> {
        let column_dims: i32 = sqlx::query_scalar(
            "SELECT atttypmod FROM pg_attribute
             WHERE attrelid = 'memories'::regclass AND attname = 'embedding'",
        )
        .fetch_one(&self.pool)
        .await?;
        if column_dims as usize != dimensions {
            return Err(StoreError::EmbedderMismatch(format!(
                "the embedder `{embedder_id}` produces {dimensions}-dimensional vectors, \
                 but the database stores vector({column_dims}); configure a {column_dims}-dimensional \
                 embedder or migrate the embedding column"
            )));
        }
        let mut tx = self.pool.begin().await?;
        let recorded: Option<String> =
            sqlx::query_scalar("SELECT embedder_id FROM embedder_settings FOR UPDATE")
                .fetch_optional(&mut *tx)
                .await?;
        match recorded {
            Some(id) if id == embedder_id => {}
            Some(id) => {
                let any: bool = sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM memories)")
                    .fetch_one(&mut *tx)
                    .await?;
                if any {
                    return Err(StoreError::EmbedderMismatch(format!(
                        "stored memories were embedded with `{id}`, but the configured embedder is \
                         `{embedder_id}`; mixing them would make search meaningless"
                    )));
                }
                sqlx::query("UPDATE embedder_settings SET embedder_id = $1, dimensions = $2, recorded_at = now()")
                    .bind(embedder_id)
                    .bind(dimensions as i32)
                    .execute(&mut *tx)
                    .await?;
            }
            None => {
                sqlx::query(
                    "INSERT INTO embedder_settings (embedder_id, dimensions) VALUES ($1, $2)",
                )
                .bind(embedder_id)
                .bind(dimensions as i32)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }
}
