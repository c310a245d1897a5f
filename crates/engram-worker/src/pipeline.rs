//! The handlers of the job queue, one per kind (`JobKind`): extraction
//! (screen, extract, decide, apply in one transaction), summaries, and
//! consolidation runs; `process` dispatches a claimed job to its handler.

use std::sync::Arc;

use engram_context::{Summarizer, TokenCounter, Turn};
use engram_core::decide::{decide, DecideParams, Decision};
use engram_core::extract::{Candidate, ExtractionRequest, Extractor, FactAction, InputMessage};
use engram_core::policy::{check_candidate, redact_secrets, screen_messages, Refusal};
use engram_core::{Clock, Embedder, SourceType};
use engram_store::{
    ConsolidateOutcome, ConsolidatePayload, ExtractionTx, FactContext, JobKind, JobRow, NewSummary,
    Store, StoreError, SummarizePayload,
};
use serde::Serialize;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct PipelineConfig {
    /// Nearest neighbours each candidate is compared with.
    pub neighbours: i64,
    pub decide: DecideParams,
    /// The most tokens a session's running summary may take.
    pub summary_max_tokens: usize,
    /// What a consolidation job's run changes.
    pub consolidation: crate::ConsolidationSettings,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            neighbours: 5,
            decide: DecideParams::default(),
            summary_max_tokens: 400,
            consolidation: Default::default(),
        }
    }
}

/// What happened to one candidate (or one refused sentence), as a job reports it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ResultItem {
    /// ADD | SUPERSEDE | MERGE | NOOP | RETRACT | FORGET | REJECTED
    pub event: &'static str,
    pub memory_id: Option<Uuid>,
    /// Memories this result retired (SUPERSEDE, RETRACT, FORGET).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replaced: Vec<Uuid>,
    pub old_content: Option<String>,
    pub new_content: Option<String>,
    pub attribute: Option<String>,
    pub reason: String,
    pub message_index: Option<usize>,
}

impl ResultItem {
    /// A candidate the policy refused: why (with the category), never its
    /// words or even its attribute, which is made of them (job results are
    /// readable with a read-only key).
    fn rejected(c: &Candidate, reason: String) -> Self {
        Self {
            event: "REJECTED",
            memory_id: None,
            replaced: Vec::new(),
            old_content: None,
            new_content: None,
            attribute: None,
            reason,
            message_index: Some(c.message_index),
        }
    }

    /// A sentence refused before extraction (an order, a secret).
    fn refused_sentence(r: Refusal, message_index: usize) -> Self {
        Self {
            event: "REJECTED",
            memory_id: None,
            replaced: Vec::new(),
            old_content: None,
            new_content: None,
            attribute: None,
            reason: r.to_string(),
            message_index: Some(message_index),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("the job payload is unreadable: {0}")]
    Payload(String),
    #[error("extraction failed: {0}")]
    Extract(#[from] engram_core::extract::ExtractError),
    #[error("embedding failed: {0}")]
    Embed(#[from] engram_core::EmbedError),
    #[error("storage failed: {0}")]
    Store(#[from] StoreError),
    #[error("{0}")]
    Summarize(#[from] engram_context::SummarizeError),
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
    pub config: PipelineConfig,
    /// Reviews weak conflicts in consolidation runs (an LLM, when one is
    /// configured).
    pub reviewer: Option<Arc<dyn engram_core::consolidate::ConflictReviewer>>,
}

/// A job's payload as its kind's type.
fn payload<T: serde::de::DeserializeOwned>(job: &JobRow) -> Result<T, JobError> {
    let payload = job
        .payload
        .clone()
        .ok_or_else(|| JobError::Payload("no payload".into()))?;
    serde_json::from_value(payload).map_err(|e| JobError::Payload(e.to_string()))
}

impl JobHandlers {
    /// Runs a claimed job to completion; the caller records a failure.
    /// Returns what an extraction did (a summary reports nothing here).
    pub async fn process(&self, job: &JobRow) -> Result<Vec<ResultItem>, JobError> {
        match JobKind::parse(&job.kind) {
            Some(JobKind::Extract) => self.extract(job).await,
            Some(JobKind::Summarize) => self.summarize(job).await.map(|()| Vec::new()),
            Some(JobKind::Consolidate) => self.consolidate(job).await.map(|()| Vec::new()),
            None => Err(JobError::Payload(format!(
                "unknown job kind {:?}",
                job.kind
            ))),
        }
    }

    /// Runs the consolidation a job asks for and records which run it made
    /// (or that another run held the cluster lock) as the job's result.
    async fn consolidate(&self, job: &JobRow) -> Result<(), JobError> {
        let request: ConsolidatePayload = payload(job)?;
        let target = match request.user_id {
            Some(user_id) => crate::RunTarget::User {
                tenant: job.tenant_id,
                user_id,
            },
            None => crate::RunTarget::Everyone,
        };
        let consolidator = crate::Consolidator {
            store: self.store.clone(),
            clock: self.clock.clone(),
            settings: self.config.consolidation,
            reviewer: self.reviewer.clone(),
        };
        let outcome = match consolidator
            .run(target, request.dry_run, "api", None)
            .await?
        {
            Some(run) => ConsolidateOutcome::Run { run_id: run.id },
            None => ConsolidateOutcome::Busy,
        };
        let results = serde_json::json!([outcome]);
        self.store
            .finish_job(job.tenant_id, job.id, &results)
            .await?;
        Ok(())
    }

    /// Folds the session's turns up to the job's mark into its summary.
    async fn summarize(&self, job: &JobRow) -> Result<(), JobError> {
        let request: SummarizePayload = payload(job)?;
        let work = self
            .store
            .summary_work(job.tenant_id, &request.session_id, request.through_seq)
            .await?;
        let built_on = work.previous.as_ref().map(|p| p.last_seq);
        // Turns and summaries written before the current screen, and whatever
        // a model writes, are screened again: a summary is a write path too.
        let previous = work
            .previous
            .map(|p| redact_secrets(&p.content))
            .unwrap_or_default();
        let turns: Vec<Turn> = work
            .turns
            .iter()
            .map(|t| Turn {
                role: t.role.clone(),
                content: redact_secrets(&t.content),
            })
            .collect();
        let max = self.config.summary_max_tokens;
        let text = if turns.is_empty() {
            previous
        } else {
            let raw = self.summarizer.summarize(&previous, &turns, max).await?;
            // A summary passes the screens the turns did: no secret, and no
            // sentence that directs the assistant (whoever wrote it).
            let screened = engram_core::policy::without_instructions(&redact_secrets(&raw));
            engram_context::fit(&screened, max, &self.counter)
        };
        let seqs: Vec<i64> = work.turns.iter().map(|t| t.seq).collect();
        let summary = NewSummary {
            content: &text,
            tokens: self.counter.count(&text) as i32,
            seqs: &seqs,
            summarizer: self.summarizer.id(),
            built_on,
            redactions: work.redactions,
        };
        self.store
            .save_summary(
                job.tenant_id,
                job.id,
                &request.session_id,
                &summary,
                self.clock.now(),
            )
            .await?;
        Ok(())
    }

    async fn extract(&self, job: &JobRow) -> Result<Vec<ResultItem>, JobError> {
        let request: ExtractionRequest = payload(job)?;
        let screened = screen_messages(&request);
        let mut results: Vec<ResultItem> = screened
            .refused
            .into_iter()
            .map(|(i, r)| ResultItem::refused_sentence(r, i))
            .collect();
        let eligible = screened.eligible;
        let inputs: Vec<InputMessage> = eligible.iter().map(|(_, m)| m.clone()).collect();
        let mut accepted: Vec<Candidate> = Vec::new();
        for mut c in self.extractor.extract(&inputs).await? {
            let original = eligible.get(c.message_index).map(|(i, _)| *i).unwrap_or(0);
            c.message_index = original;
            let message = request
                .messages
                .get(original)
                .map(|m| m.content.as_str())
                .unwrap_or("");
            match check_candidate(&mut c, message, request.allow_sensitive) {
                Ok(()) => accepted.push(c),
                Err(reason) => results.push(ResultItem::rejected(&c, reason)),
            }
        }
        let statements: Vec<String> = accepted.iter().map(|c| c.statement.clone()).collect();
        let vectors = if statements.is_empty() {
            Vec::new()
        } else {
            self.embedder.embed(&statements).await?
        };
        if vectors.len() != statements.len() {
            // Never drop a fact silently: the job fails and is retried.
            return Err(JobError::Embed(engram_core::EmbedError::Model(format!(
                "{} vectors for {} statements",
                vectors.len(),
                statements.len()
            ))));
        }
        let now = self.clock.now();
        let mut tx = self
            .store
            .begin_extraction(job.tenant_id, job.scope(), job.id, now)
            .await?;
        for (c, v) in accepted.iter().zip(&vectors) {
            let ctx = self.fact_context(job, &request, c);
            let known = tx.known(c, v, self.config.neighbours).await?;
            let decision = decide(c, &known, &self.config.decide);
            results.push(apply(&mut tx, c, v, &ctx, decision).await?);
        }
        let json = serde_json::to_value(&results).map_err(|e| JobError::Payload(e.to_string()))?;
        tx.finish(&json).await?;
        Ok(results)
    }

    /// Provenance recorded with what a candidate changes.
    fn fact_context(
        &self,
        job: &JobRow,
        request: &ExtractionRequest,
        c: &Candidate,
    ) -> FactContext {
        let message = &request.messages[c
            .message_index
            .min(request.messages.len().saturating_sub(1))];
        FactContext {
            job_id: job.id,
            source: engram_core::Source {
                source_type: if c.stated {
                    request.source.source_type
                } else {
                    SourceType::Inferred
                },
                source_ref: request
                    .source
                    .source_ref
                    .clone()
                    .or_else(|| job.session_id.as_ref().map(|s| format!("session:{s}")))
                    .or_else(|| Some(format!("job:{}", job.id))),
            },
            source_message: message.content.clone(),
            said_at: message.created_at,
            extractor: self.extractor.id().to_owned(),
            model: self.extractor.model().map(str::to_owned),
            prompt_version: self.extractor.prompt_version().map(str::to_owned),
            actor: format!("job:{}", job.id),
        }
    }
}

/// Carries out one decision in the job's transaction, and says what it did.
async fn apply(
    tx: &mut ExtractionTx,
    c: &Candidate,
    v: &[f32],
    ctx: &FactContext,
    decision: Decision,
) -> Result<ResultItem, StoreError> {
    let item = |event, memory_id, old_content, reason: String| ResultItem {
        event,
        memory_id,
        replaced: Vec::new(),
        old_content,
        new_content: Some(c.statement.clone()),
        attribute: Some(c.attribute.clone()),
        reason,
        message_index: Some(c.message_index),
    };
    let same_text = || "the same text is already a live memory".to_owned();
    Ok(match decision {
        Decision::Add { reason } => match tx.add(c, v, ctx, &reason).await? {
            Some(id) => item("ADD", Some(id), None, reason),
            None => item("NOOP", None, None, same_text()),
        },
        Decision::Noop { target, reason } => {
            let old = tx.reinforce(target, c, ctx, &reason).await?;
            item("NOOP", Some(target), Some(old), reason)
        }
        Decision::Merge {
            target,
            content,
            reason,
        } => {
            let embedding = (content == c.statement).then_some(v);
            let old = tx
                .merge(target, &content, embedding, c, ctx, &reason)
                .await?;
            ResultItem {
                new_content: Some(content),
                ..item("MERGE", Some(target), Some(old), reason)
            }
        }
        Decision::Supersede { targets, reason } => match tx.add(c, v, ctx, &reason).await? {
            Some(new_id) => {
                let old = tx.supersede(&targets, new_id, c, ctx, &reason).await?;
                ResultItem {
                    replaced: old.iter().map(|(id, _)| *id).collect(),
                    ..item("SUPERSEDE", Some(new_id), Some(joined(&old)), reason)
                }
            }
            None => item("NOOP", None, None, same_text()),
        },
        Decision::Retire {
            targets,
            action,
            reason,
        } => {
            let event = if action == FactAction::Forget {
                "FORGET"
            } else {
                "RETRACT"
            };
            let old = tx.retire(&targets, event, c, ctx, &reason).await?;
            // What was asked is not stored, nor repeated as "new content";
            // what was forgotten is not quoted either.
            let forgotten = action == FactAction::Forget;
            ResultItem {
                replaced: old.iter().map(|(id, _)| *id).collect(),
                new_content: None,
                attribute: if forgotten {
                    None
                } else {
                    Some(c.attribute.clone())
                },
                ..item(event, None, (!forgotten).then(|| joined(&old)), reason)
            }
        }
        Decision::Ignore { reason } => ResultItem {
            new_content: None,
            attribute: (c.action != FactAction::Forget).then(|| c.attribute.clone()),
            ..item("NOOP", None, None, reason)
        },
    })
}

fn joined(old: &[(Uuid, String)]) -> String {
    old.iter()
        .map(|(_, content)| content.as_str())
        .collect::<Vec<_>>()
        .join(" | ")
}
