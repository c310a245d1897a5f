//! An extraction job: the write policy screens the messages, the extractor
//! proposes candidates, the policy checks each, the decision rules compare
//! it with what is known, and every change is applied in one transaction.

use engram_core::decide::{decide, Decision, ResultEvent};
use engram_core::extract::{Candidate, ExtractionRequest, FactAction, InputMessage};
use engram_core::policy::{check_candidate, screen_messages, Refusal};
use engram_core::SourceType;
use engram_store::{ExtractionTx, FactContext, JobRow, StoreError};
use serde::Serialize;
use uuid::Uuid;

use super::{JobError, JobHandlers};

/// What happened to one candidate (or one refused sentence), as a job reports it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ResultItem {
    pub event: ResultEvent,
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
            event: ResultEvent::Rejected,
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
            event: ResultEvent::Rejected,
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

/// Runs an extraction job; what it did, one item per candidate or refused
/// sentence.
pub(super) async fn run(
    handlers: &JobHandlers,
    job: &JobRow,
    request: ExtractionRequest,
) -> Result<Vec<ResultItem>, JobError> {
    let screened = screen_messages(&request);
    let mut results: Vec<ResultItem> = screened
        .refused
        .into_iter()
        .map(|(i, r)| ResultItem::refused_sentence(r, i))
        .collect();
    let eligible = screened.eligible;
    let inputs: Vec<InputMessage> = eligible.iter().map(|(_, m)| m.clone()).collect();
    let mut accepted: Vec<Candidate> = Vec::new();
    for mut c in handlers.extractor.extract(&inputs).await? {
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
        handlers.embedder.embed(&statements).await?
    };
    if vectors.len() != statements.len() {
        // Never drop a fact silently: the job fails and is retried.
        return Err(JobError::Embed(engram_core::EmbedError::Model(format!(
            "{} vectors for {} statements",
            vectors.len(),
            statements.len()
        ))));
    }
    let now = handlers.clock.now();
    let mut tx = handlers
        .store
        .begin_extraction(job.tenant_id, job.scope(), job.id, now)
        .await?;
    for (c, v) in accepted.iter().zip(&vectors) {
        let ctx = fact_context(handlers, job, &request, c);
        let known = tx.known(c, v, handlers.config.neighbours).await?;
        let decision = decide(c, &known, &handlers.config.decide);
        results.push(apply(&mut tx, c, v, &ctx, decision).await?);
    }
    let json = serde_json::to_value(&results)
        .map_err(|e| JobError::Store(StoreError::Internal(e.to_string())))?;
    tx.finish(&json).await?;
    Ok(results)
}

/// Provenance recorded with what a candidate changes.
fn fact_context(
    handlers: &JobHandlers,
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
        extractor: handlers.extractor.id().to_owned(),
        model: handlers.extractor.model().map(str::to_owned),
        prompt_version: handlers.extractor.prompt_version().map(str::to_owned),
        actor: format!("job:{}", job.id),
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
            Some(id) => item(ResultEvent::Add, Some(id), None, reason),
            None => item(ResultEvent::Noop, None, None, same_text()),
        },
        Decision::Noop { target, reason } => {
            let old = tx.reinforce(target, c, ctx, &reason).await?;
            item(ResultEvent::Noop, Some(target), Some(old), reason)
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
                ..item(ResultEvent::Merge, Some(target), Some(old), reason)
            }
        }
        Decision::Supersede { targets, reason } => match tx.add(c, v, ctx, &reason).await? {
            Some(new_id) => {
                let old = tx.supersede(&targets, new_id, c, ctx, &reason).await?;
                ResultItem {
                    replaced: old.iter().map(|(id, _)| *id).collect(),
                    ..item(
                        ResultEvent::Supersede,
                        Some(new_id),
                        Some(joined(&old)),
                        reason,
                    )
                }
            }
            None => item(ResultEvent::Noop, None, None, same_text()),
        },
        Decision::Retire {
            targets,
            action,
            reason,
        } => {
            let event = if action == FactAction::Forget {
                ResultEvent::Forget
            } else {
                ResultEvent::Retract
            };
            let old = tx.retire(&targets, action, c, ctx, &reason).await?;
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
            ..item(ResultEvent::Noop, None, None, reason)
        },
    })
}

fn joined(old: &[(Uuid, String)]) -> String {
    old.iter()
        .map(|(_, content)| content.as_str())
        .collect::<Vec<_>>()
        .join(" | ")
}
