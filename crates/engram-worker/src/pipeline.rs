//! One extraction job, start to end.

use std::sync::Arc;

use engram_context::{Summarizer, TokenCounter, Turn};
use engram_core::decide::{decide, DecideParams, Decision};
use engram_core::extract::{clauses, Candidate, ExtractionRequest, Extractor, InputMessage, Role};
use engram_core::policy::{find_secret, instruction_reason, redact_secrets, sensitive_category};
use engram_core::{Clock, Embedder, SourceType};
use engram_store::{FactContext, JobKind, JobRow, NewSummary, Store, StoreError};
use serde::Serialize;
use uuid::Uuid;

#[derive(Debug, Clone)]
pub struct PipelineConfig {
    /// Nearest neighbours each candidate is compared with.
    pub neighbours: i64,
    pub decide: DecideParams,
    /// The most tokens a session's running summary may take.
    pub summary_max_tokens: usize,
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            neighbours: 5,
            decide: DecideParams::default(),
            summary_max_tokens: 400,
        }
    }
}

/// What happened to one candidate (or one refused sentence), as a job reports it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ResultItem {
    /// ADD | SUPERSEDE | UPDATE | MERGE | NOOP | REJECTED
    pub event: &'static str,
    pub memory_id: Option<Uuid>,
    /// Memories this result retired (SUPERSEDE).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub replaced: Vec<Uuid>,
    pub old_content: Option<String>,
    pub new_content: Option<String>,
    pub attribute: Option<String>,
    pub reason: String,
    pub message_index: Option<usize>,
}

impl ResultItem {
    fn rejected(content: String, reason: String, message_index: usize) -> Self {
        Self {
            event: "REJECTED",
            memory_id: None,
            replaced: Vec::new(),
            old_content: None,
            new_content: Some(content),
            attribute: None,
            reason,
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

pub struct ExtractionPipeline {
    pub store: Store,
    pub embedder: Arc<dyn Embedder>,
    pub extractor: Arc<dyn Extractor>,
    pub clock: Arc<dyn Clock>,
    pub summarizer: Arc<dyn Summarizer>,
    /// Counts summary tokens, with the tokenizer the context uses.
    pub counter: TokenCounter,
    pub config: PipelineConfig,
}

/// What a summarize job carries.
#[derive(serde::Deserialize)]
struct SummarizeRequest {
    session_id: String,
    through_seq: i64,
}

impl ExtractionPipeline {
    /// Runs a claimed job to completion; the caller records a failure.
    /// Returns what an extraction did (a summary reports nothing here).
    pub async fn process(&self, job: &JobRow) -> Result<Vec<ResultItem>, JobError> {
        if job.kind == JobKind::Summarize.as_str() {
            self.summarize(job).await?;
            return Ok(Vec::new());
        }
        self.extract(job).await
    }

    /// Folds the session's turns up to the job's mark into its summary.
    async fn summarize(&self, job: &JobRow) -> Result<(), JobError> {
        let payload = job
            .payload
            .clone()
            .ok_or_else(|| JobError::Payload("no payload".into()))?;
        let request: SummarizeRequest =
            serde_json::from_value(payload).map_err(|e| JobError::Payload(e.to_string()))?;
        let work = self
            .store
            .summary_work(job.tenant_id, &request.session_id, request.through_seq)
            .await?;
        let built_on = work.previous.as_ref().map(|p| p.last_seq);
        let previous = work.previous.map(|p| p.content).unwrap_or_default();
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
            engram_context::fit(&raw, max, &self.counter)
        };
        let seqs: Vec<i64> = work.turns.iter().map(|t| t.seq).collect();
        let summary = NewSummary {
            content: &text,
            tokens: self.counter.count(&text) as i32,
            seqs: &seqs,
            summarizer: self.summarizer.id(),
            built_on,
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
        let payload = job
            .payload
            .clone()
            .ok_or_else(|| JobError::Payload("no payload".into()))?;
        let request: ExtractionRequest =
            serde_json::from_value(payload).map_err(|e| JobError::Payload(e.to_string()))?;

        // The write policy, sentence by sentence, before any extractor sees the text.
        let mut results = Vec::new();
        let mut eligible = Vec::new();
        for (i, m) in request.messages.iter().enumerate() {
            if m.role != Role::User && !request.trusted {
                continue; // only what the user says creates facts, unless trusted
            }
            let mut kept = Vec::new();
            for sentence in clauses(&m.content) {
                if let Some(why) = instruction_reason(sentence) {
                    results.push(ResultItem::rejected(
                        redact_secrets(sentence),
                        format!("looks like an instruction ({why}), not a fact about the user"),
                        i,
                    ));
                } else if let Some(kind) = find_secret(sentence) {
                    results.push(ResultItem::rejected(
                        redact_secrets(sentence),
                        format!("contains a secret ({kind}); secrets are never stored"),
                        i,
                    ));
                } else {
                    kept.push(sentence);
                }
            }
            eligible.push((
                i,
                InputMessage {
                    role: Role::User,
                    content: kept.join(". "),
                    created_at: m.created_at,
                },
            ));
        }
        let inputs: Vec<InputMessage> = eligible.iter().map(|(_, m)| m.clone()).collect();
        let mut accepted: Vec<Candidate> = Vec::new();
        for mut c in self.extractor.extract(&inputs).await? {
            let original = eligible.get(c.message_index).map(|(i, _)| *i).unwrap_or(0);
            c.message_index = original;
            let sentence = request
                .messages
                .get(original)
                .map(|m| m.content.as_str())
                .unwrap_or("");
            if let Some(why) = instruction_reason(&c.statement) {
                results.push(ResultItem::rejected(
                    c.statement,
                    format!("looks like an instruction ({why})"),
                    original,
                ));
                continue;
            }
            if let Some(kind) = find_secret(&c.statement) {
                results.push(ResultItem::rejected(
                    redact_secrets(&c.statement),
                    format!("contains a secret ({kind})"),
                    original,
                ));
                continue;
            }
            let category = c.sensitivity.clone().or_else(|| {
                sensitive_category(&c.statement)
                    .or_else(|| sensitive_category(sentence))
                    .map(str::to_owned)
            });
            if let Some(cat) = &category {
                if !c.stated {
                    results.push(ResultItem::rejected(
                        c.statement,
                        format!("sensitive category `{cat}` is never inferred"),
                        original,
                    ));
                    continue;
                }
                if !request.allow_sensitive {
                    results.push(ResultItem::rejected(
                        c.statement,
                        format!(
                            "sensitive category `{cat}`: stored only with allow_sensitive: true"
                        ),
                        original,
                    ));
                    continue;
                }
            }
            c.sensitivity = category;
            accepted.push(c);
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
            let message = &request.messages[c.message_index];
            let ctx = FactContext {
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
            };
            let known = tx.known(c, v, self.config.neighbours).await?;
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
            let result = match decide(c, &known, &self.config.decide) {
                Decision::Add { reason } => match tx.add(c, v, &ctx, &reason).await? {
                    Some(id) => item("ADD", Some(id), None, reason),
                    None => item(
                        "NOOP",
                        None,
                        None,
                        "the same text is already a live memory".into(),
                    ),
                },
                Decision::Noop { target, reason } => {
                    let old = tx.reinforce(target, c, &ctx, &reason).await?;
                    item("NOOP", Some(target), Some(old), reason)
                }
                Decision::Merge {
                    target,
                    content,
                    reason,
                } => {
                    let embedding = (content == c.statement).then_some(v.as_slice());
                    let old = tx
                        .merge(target, &content, embedding, c, &ctx, &reason)
                        .await?;
                    ResultItem {
                        new_content: Some(content),
                        ..item("MERGE", Some(target), Some(old), reason)
                    }
                }
                Decision::Supersede { targets, reason } => match tx.add(c, v, &ctx, &reason).await?
                {
                    Some(new_id) => {
                        let old = tx.supersede(&targets, new_id, c, &ctx, &reason).await?;
                        let old_content = old
                            .iter()
                            .map(|(_, content)| content.clone())
                            .collect::<Vec<_>>()
                            .join(" | ");
                        ResultItem {
                            replaced: old.into_iter().map(|(id, _)| id).collect(),
                            ..item("SUPERSEDE", Some(new_id), Some(old_content), reason)
                        }
                    }
                    None => item(
                        "NOOP",
                        None,
                        None,
                        "the same text is already a live memory".into(),
                    ),
                },
            };
            results.push(result);
        }
        let json = serde_json::to_value(&results).map_err(|e| JobError::Payload(e.to_string()))?;
        tx.finish(&json).await?;
        Ok(results)
    }
}
