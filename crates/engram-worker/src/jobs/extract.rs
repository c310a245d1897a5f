//! An extraction job: the write policy screens the messages, the extractor
//! proposes candidates, the policy checks each, the decision rules compare
//! it with what is known, and every change is applied in one transaction.

use engram_core::decide::{decide, resolve_correction, Decision, ResultEvent};
use engram_core::extract::{Candidate, ExtractionRequest, FactAction, InputMessage};
use engram_core::policy::{check_candidate, screen_messages, unread_message, Refusal, Unread};
use std::collections::HashMap;

use engram_core::said::evidence_for;
use engram_core::{MemoryKind, SourceType};
use engram_store::{ExtractionTx, FactContext, JobRow, StoreError};
use serde::Serialize;
use uuid::Uuid;

use super::{JobError, JobHandlers, UnreadMessages};

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
    /// A result that stored nothing, and why.
    fn nothing_stored(event: ResultEvent, reason: String, message_index: usize) -> Self {
        Self {
            event,
            memory_id: None,
            replaced: Vec::new(),
            old_content: None,
            new_content: None,
            attribute: None,
            reason,
            message_index: Some(message_index),
        }
    }

    /// A candidate the policy refused: why (with the category), never its
    /// words or even its attribute, which is made of them (job results are
    /// readable with a read-only key).
    fn rejected(c: &Candidate, reason: String) -> Self {
        Self::nothing_stored(ResultEvent::Rejected, reason, c.message_index)
    }

    /// A sentence refused before extraction (an order, a secret).
    fn refused_sentence(r: Refusal, message_index: usize) -> Self {
        Self::nothing_stored(ResultEvent::Rejected, r.to_string(), message_index)
    }

    /// An item of the model's answer that could not be used, and why (a
    /// malformed item; its neighbours are kept).
    fn refused_item(reason: String) -> Self {
        Self {
            message_index: None,
            ..Self::nothing_stored(
                ResultEvent::Rejected,
                format!("the model's answer: {reason}"),
                0,
            )
        }
    }

    /// A message left as it was: nothing stored from it, and why.
    fn unread(reason: String, message_index: usize) -> Self {
        Self::nothing_stored(ResultEvent::Noop, reason, message_index)
    }
}

/// A message kept verbatim because the extractor cannot read it: the
/// memory to add, and the reason the job gives.
struct Verbatim {
    candidate: Candidate,
    reason: String,
}

/// The user messages the extractor produced nothing from and cannot read
/// (another language than the rules' English): kept verbatim when the
/// screens pass (`Verbatim`), or reported as left out (`ResultItem`).
fn unread_messages(
    handlers: &JobHandlers,
    request: &ExtractionRequest,
    eligible: &[(usize, InputMessage)],
    read: &[usize],
) -> (Vec<Verbatim>, Vec<ResultItem>) {
    let (mut kept, mut left) = (Vec::new(), Vec::new());
    if handlers.extractor.reads_any_language() {
        return (kept, left);
    }
    for (i, m) in eligible.iter().filter(|(i, _)| !read.contains(i)) {
        let unread =
            "which the rules extractor does not read (configure an LLM to extract facts from it)";
        let kept_as_said = request.evidence.iter().find(|e| e.message == *i);
        match unread_message(&m.content, request.allow_sensitive) {
            // Kept already, piece by piece, as what was said.
            Some(Unread::Keep { language, .. } | Unread::Skip { language, .. })
                if kept_as_said.is_some() =>
            {
                let mut reason = format!(
                    "written in {}, {unread}; kept as it was said",
                    language.described()
                );
                if engram_core::policy::unscreened_language(&m.content).is_some() {
                    reason += "; held out of context blocks: the instruction screen does not read this language";
                }
                let sensitive =
                    engram_core::said::left_out_sensitive(&m.content, request.allow_sensitive);
                if !sensitive.is_empty() {
                    reason += &format!(
                        "; left out: sensitive categories {} (stored only with allow_sensitive: true)",
                        sensitive.join(", ")
                    );
                }
                left.push(ResultItem {
                    memory_id: kept_as_said.map(|e| e.memory_id),
                    ..ResultItem::unread(reason, *i)
                })
            }
            None => {}
            Some(Unread::Skip { language, reason }) => left.push(ResultItem::unread(
                format!(
                    "written in {}, {unread}; nothing kept verbatim: {reason}",
                    language.described()
                ),
                *i,
            )),
            Some(Unread::Keep { language, .. })
                if handlers.config.unread_messages == UnreadMessages::Skip =>
            {
                left.push(ResultItem::unread(
                    format!(
                        "written in {}, {unread}; not kept verbatim (ENGRAM_UNREAD_MESSAGES=skip)",
                        language.described()
                    ),
                    *i,
                ))
            }
            Some(Unread::Keep {
                text,
                language,
                left_out,
            }) => {
                let mut reason = format!(
                    "kept verbatim as an episodic memory: written in {}, {unread}",
                    language.described()
                );
                if engram_core::policy::unscreened_language(&text).is_some() {
                    reason += "; held out of context blocks: the instruction screen does not read this language";
                }
                if !left_out.is_empty() {
                    reason += &format!(
                        "; left out: sensitive categories {} (stored only with allow_sensitive: true)",
                        left_out.join(", ")
                    );
                }
                let sensitivity = request
                    .allow_sensitive
                    .then(|| engram_core::policy::sensitive_category(&text))
                    .flatten()
                    .map(str::to_owned);
                kept.push(Verbatim {
                    candidate: Candidate {
                        statement: text,
                        kind: MemoryKind::Episodic,
                        subject: "user".into(),
                        attribute: String::new(),
                        value: String::new(),
                        importance: 0.5,
                        confidence: 0.8,
                        sensitivity,
                        expires_at: None,
                        stated: true,
                        message_index: *i,
                        action: FactAction::Assert,
                        replaces: None,
                    },
                    reason,
                });
            }
        }
    }
    (kept, left)
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
    let mut read: Vec<usize> = Vec::new();
    let extraction = handlers.extractor.extract_all(&inputs).await?;
    results.extend(extraction.refused.into_iter().map(ResultItem::refused_item));
    for mut c in extraction.facts {
        let original = eligible.get(c.message_index).map(|(i, _)| *i).unwrap_or(0);
        c.message_index = original;
        read.push(original);
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
    // What the user takes back or asks to forget was known before this
    // job; what they assert in it is new. Retire first, so a retraction
    // reaches the old fact and never the new one ("I switched from Android
    // to an iPhone": the iPhone's statement names Android too).
    accepted.sort_by_key(|c| c.action == FactAction::Assert);
    let (verbatim, left) = unread_messages(handlers, &request, &eligible, &read);
    results.extend(left);
    let statements: Vec<String> = accepted
        .iter()
        .chain(verbatim.iter().map(|v| &v.candidate))
        .map(|c| c.statement.clone())
        .collect();
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
    // What was said, kept with the job: a fact names the piece it was read from.
    let ids: Vec<Uuid> = request.evidence.iter().map(|e| e.memory_id).collect();
    let texts = tx.pieces(&ids).await?;
    let mut said: HashMap<usize, Vec<(Uuid, String)>> = HashMap::new();
    for e in &request.evidence {
        if let Some((id, text)) = texts.iter().find(|(id, _)| *id == e.memory_id) {
            said.entry(e.message).or_default().push((*id, text.clone()));
        }
    }
    let (fact_vectors, verbatim_vectors) = vectors.split_at(accepted.len());
    for (c, v) in accepted.iter_mut().zip(fact_vectors) {
        let known = tx.known(c, v, handlers.config.neighbours).await?;
        // A correction that names no key takes the key of what it corrects,
        // and its statement changes with it: embedded again (one sentence,
        // and only for such a correction, inside the transaction).
        let mut v = v.clone();
        if resolve_correction(c, &known) {
            let again = handlers
                .embedder
                .embed(std::slice::from_ref(&c.statement))
                .await?;
            if let Some(first) = again.into_iter().next() {
                v = first;
            }
        }
        let ctx = fact_context(handlers, job, &request, c, &said);
        let decision = decide(c, &known, &handlers.config.decide);
        results.push(apply(&mut tx, c, &v, &ctx, decision).await?);
    }
    // Verbatim messages are what the user said, not facts: no decision
    // compares them with what is known (the same text twice is one memory).
    for (kept, v) in verbatim.into_iter().zip(verbatim_vectors) {
        let c = &kept.candidate;
        let ctx = fact_context(handlers, job, &request, c, &said);
        let id = tx.add(c, v, &ctx, &kept.reason).await?;
        results.push(ResultItem {
            event: if id.is_some() {
                ResultEvent::Add
            } else {
                ResultEvent::Noop
            },
            memory_id: id,
            replaced: Vec::new(),
            old_content: None,
            new_content: Some(c.statement.clone()),
            attribute: None,
            reason: match id {
                Some(_) => kept.reason,
                None => "the same text is already a live memory".to_owned(),
            },
            message_index: Some(c.message_index),
        });
    }
    // Results name a message by its place in the request the client sent.
    for r in &mut results {
        r.message_index = r.message_index.map(|i| request.position(i));
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
    said: &HashMap<usize, Vec<(Uuid, String)>>,
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
        evidence_id: said
            .get(&c.message_index)
            .and_then(|pieces| evidence_for(pieces, &c.value, &c.statement)),
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
