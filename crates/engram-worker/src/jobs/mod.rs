//! The job handlers, one file per kind (`JobKind`): [`extract`] (screen,
//! extract, decide, apply in one transaction), [`summarize`] (a session's
//! running summary) and [`consolidate`] (a consolidation run). `process`
//! hands a claimed job to the handler of its kind.

mod consolidate;
mod extract;
mod summarize;

use std::sync::Arc;

use engram_context::{Summarizer, TokenCounter};
use engram_core::decide::DecideParams;
use engram_core::extract::Extractor;
use engram_core::{Clock, Embedder};
use engram_store::{JobKind, JobRow, PayloadError, Store, StoreError};

pub use extract::ResultItem;

#[derive(Debug, Clone)]
pub struct HandlerConfig {
    /// Nearest neighbours each candidate is compared with.
    pub neighbours: i64,
    pub decide: DecideParams,
    /// The most tokens a session's running summary may take.
    pub summary_max_tokens: usize,
    /// What a consolidation job's run changes.
    pub consolidation: crate::ConsolidationSettings,
    /// What becomes of a message the extractor cannot read.
    pub unread_messages: UnreadMessages,
}

/// What becomes of a user message the extractor cannot read (another
/// language than the rules' English): kept verbatim as an episodic
/// memory when the screens pass, or left out; the job says which.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum UnreadMessages {
    #[default]
    Keep,
    Skip,
}

impl Default for HandlerConfig {
    fn default() -> Self {
        Self {
            neighbours: 5,
            decide: DecideParams::default(),
            summary_max_tokens: 400,
            consolidation: Default::default(),
            unread_messages: UnreadMessages::Keep,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("{0}")]
    Payload(#[from] PayloadError),
    #[error("extraction failed: {0}")]
    Extract(#[from] engram_core::extract::ExtractError),
    #[error("embedding failed: {0}")]
    Embed(#[from] engram_core::EmbedError),
    #[error("storage failed: {0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Summarize(#[from] engram_context::SummarizeError),
}

impl JobError {
    /// Retrying will not mend it: a model whose answer stayed unusable
    /// after its repair answers the same way again (temperature 0). The
    /// job fails at once, keeping its input for `POST /v1/jobs/{id}/retry`.
    pub fn is_permanent(&self) -> bool {
        matches!(
            self,
            JobError::Extract(engram_core::extract::ExtractError::Output(_)) | JobError::Payload(_)
        )
    }
}

/// What the handlers need: the store, the models, the clock and settings.
pub struct JobHandlers {
    pub store: Store,
    pub embedder: Arc<dyn Embedder>,
    pub extractor: Arc<dyn Extractor>,
    pub clock: Arc<dyn Clock>,
    pub summarizer: Arc<dyn Summarizer>,
    /// Counts summary tokens, with the tokenizer the context uses.
    pub counter: TokenCounter,
    pub config: HandlerConfig,
    /// Reviews weak conflicts in consolidation runs (an LLM, when one is
    /// configured).
    pub reviewer: Option<Arc<dyn engram_core::consolidate::ConflictReviewer>>,
}

impl JobHandlers {
    /// Runs a claimed job to completion; the caller records a failure.
    /// Returns what an extraction did (the other kinds report nothing here).
    pub async fn process(&self, job: &JobRow) -> Result<Vec<ResultItem>, JobError> {
        match job.kind {
            JobKind::Extract => extract::run(self, job, job.payload()?).await,
            JobKind::Summarize => summarize::run(self, job, job.payload()?)
                .await
                .map(|()| Vec::new()),
            JobKind::Consolidate => consolidate::run(self, job, job.payload()?)
                .await
                .map(|()| Vec::new()),
        }
    }
}
