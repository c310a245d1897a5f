//! The ingest use-cases: an add (verbatim, or queued for extraction with
//! optional raw copies) and a session append (turns, and the extraction of
//! what the user said). Message validation is shared (`dto::messages`); the
//! routes parse, call these, and shape the answer.

use axum::http::HeaderMap;
use chrono::{DateTime, Utc};
use engram_core::access::SubjectKey;
use engram_core::extract::{ExtractionRequest, InputMessage};
use engram_core::said::KeepTurns;
use engram_core::time::{self, Timestamp};
use engram_core::{validate, Limits, MemoryKind, NewMemory, Scope, Source, SourceType};
use engram_store::{Enqueued, NewJob, NewTurn};

use crate::dto::{self, AddMemoriesRequest, AddResult, Role, ValidMessage};
use crate::error::ApiError;
use crate::state::{AppState, Caller};
use crate::usecases::said;
use crate::usecases::search::embed_all;

/// The fields every add shares, validated.
pub(crate) struct AddCommon {
    pub scope: Scope,
    pub importance: f32,
    pub metadata: serde_json::Value,
    pub expires_at: Option<DateTime<Utc>>,
    pub source: Option<Source>,
    pub said: Vec<ValidMessage>,
    /// Positions of the messages skipped because they were empty.
    pub skipped: Vec<usize>,
    pub from_messages: bool,
}

pub(crate) fn validate_add(
    state: &AppState,
    caller: &Caller,
    req: &AddMemoriesRequest,
) -> Result<AddCommon, ApiError> {
    let limits = &state.config.limits;
    let now = state.clock.now();
    let scope = caller.scope(&req.user_id, &req.agent_id, &req.session_id, true, limits)?;
    dto::stored_scope(&scope, limits)?;
    let importance = dto::importance("importance", req.importance)?.unwrap_or(0.5);
    let metadata =
        dto::metadata(req.metadata.clone(), limits)?.unwrap_or_else(|| serde_json::json!({}));
    let expires_at = match (req.expires_at.map(Timestamp::get), req.ttl_seconds) {
        (Some(_), Some(_)) => {
            return Err(ApiError::validation(
                "ttl_seconds",
                "give expires_at or ttl_seconds, not both",
            ))
        }
        (Some(at), None) if at <= now => {
            return Err(ApiError::validation("expires_at", "must be in the future"))
        }
        (Some(at), None) => Some(at),
        (None, Some(ttl)) if !(1..=100 * 365 * 86_400).contains(&ttl) => {
            return Err(ApiError::validation(
                "ttl_seconds",
                "must be between 1 and 3153600000",
            ))
        }
        (None, Some(ttl)) => Some(time::add(now, time::seconds(ttl))),
        (None, None) => None,
    };
    if let Some(r) = req.source.as_ref().and_then(|s| s.source_ref.as_ref()) {
        validate::identifier("source.ref", r, limits)?;
    }
    let (said, skipped) = match (&req.messages, &req.text) {
        (Some(_), Some(_)) => {
            return Err(ApiError::validation(
                "text",
                "give messages or text, not both",
            ))
        }
        (None, None) => {
            return Err(ApiError::validation(
                "messages",
                "messages or text is required",
            ))
        }
        (None, Some(text)) => {
            let (content, redacted) = dto::stored_text("text", text, limits)?;
            let said = ValidMessage {
                position: 0,
                role: Role::User,
                content,
                created_at: None,
                redacted,
                name: None,
            };
            (vec![said], Vec::new())
        }
        (Some(messages), None) => {
            let said = dto::messages(messages, limits, state.config.max_add_chars)?;
            (said.messages, said.skipped)
        }
    };
    let source = req.source.as_ref().map(|s| Source {
        source_type: s.source_type,
        source_ref: s.source_ref.clone(),
    });
    Ok(AddCommon {
        scope,
        importance,
        metadata,
        expires_at,
        source,
        said,
        skipped,
        from_messages: req.messages.is_some(),
    })
}

/// A verbatim add's memories, the kinds of secret redacted from each, and
/// the places of the messages left out as orders to the assistant.
pub(crate) type Verbatim = (Vec<NewMemory>, Vec<Vec<&'static str>>, Vec<usize>);

/// What the user said in an add without inference, as memories: episodic
/// messages stated by the user, or a semantic fact from the app; with the
/// kinds of secret each text had redacted (`Verbatim`).
pub(crate) fn verbatim_memories(
    req: &AddMemoriesRequest,
    common: &AddCommon,
) -> Result<Verbatim, ApiError> {
    for (field, set) in [
        ("wait", req.wait.is_some()),
        ("store_raw", req.store_raw.is_some()),
    ] {
        if set {
            return Err(ApiError::validation(field, "applies only with infer: true"));
        }
    }
    let mut user_said: Vec<&ValidMessage> = common
        .said
        .iter()
        .filter(|s| s.role == Role::User)
        .collect();
    if user_said.is_empty() {
        return Err(ApiError::validation(
            "messages",
            "with infer: false, at least one message must have role user",
        ));
    }
    let kind = req.kind.unwrap_or(if common.from_messages {
        MemoryKind::Episodic
    } else {
        MemoryKind::Semantic
    });
    let source = common.source.clone().unwrap_or(Source {
        source_type: if common.from_messages {
            SourceType::UserStated
        } else {
            SourceType::Api
        },
        source_ref: None,
    });
    // A verbatim memory is shown in context blocks like any other: an
    // order to the assistant is not stored, as on every other path (issue
    // 51: `infer: false` was not screened at all; its metadata is, by
    // `dto::metadata`). Real data is not bad input: in a batch of turns an
    // order is skipped and listed; it is refused (422) only when nothing
    // else would be stored.
    let mut orders: Vec<(usize, &'static str)> = Vec::new();
    user_said.retain(
        |s| match engram_core::policy::instruction_reason(&s.content) {
            Some(why) => {
                orders.push((s.position, why));
                false
            }
            None => true,
        },
    );
    if user_said.is_empty() {
        if let Some((position, why)) = orders.first() {
            let field = match common.from_messages {
                true => format!("messages[{position}].content"),
                false => "text".to_owned(),
            };
            return Err(ApiError::validation(field, not_an_order(why)));
        }
    }
    let redacted = user_said.iter().map(|s| s.redacted.clone()).collect();
    let memories = user_said
        .into_iter()
        .map(|s| NewMemory {
            scope: common.scope.clone(),
            kind,
            content: s.content.clone(),
            importance: common.importance,
            source: source.clone(),
            metadata: common.metadata.clone(),
            pinned: req.pinned.unwrap_or(false),
            expires_at: common.expires_at,
            created_at: s.created_at,
        })
        .collect();
    let skipped = orders.into_iter().map(|(position, _)| position).collect();
    Ok((memories, redacted, skipped))
}

/// Why a text is refused when it reads as an order to the assistant.
fn not_an_order(why: &str) -> String {
    format!(
        "reads as an instruction to an assistant ({why}), not a fact about the user; memories hold facts, e.g. \"The user prefers short answers\""
    )
}

/// Embeds in one batch and stores in one statement; `redacted` says, per
/// memory, which kinds of secret its text had.
pub(crate) async fn store_verbatim(
    state: &AppState,
    caller: &Caller,
    memories: Vec<NewMemory>,
    redacted: Vec<Vec<&'static str>>,
) -> Result<Vec<AddResult>, ApiError> {
    let texts: Vec<String> = memories.iter().map(|m| m.content.clone()).collect();
    let vectors = embed_all(state, &texts).await?;
    let items: Vec<(NewMemory, Vec<f32>)> = memories.into_iter().zip(vectors).collect();
    let outcomes = state
        .store
        .insert_memories(caller.tenant_id, &items, &caller.actor)
        .await
        .map_err(|e| caller.refusal(e))?;
    Ok(outcomes
        .into_iter()
        .zip(redacted.into_iter().chain(std::iter::repeat(Vec::new())))
        .map(|(o, redacted)| AddResult {
            id: o.id,
            memory: o.content,
            event: o.event,
            redacted,
        })
        .collect())
}

/// How an `Idempotency-Key` is kept: a keyed hash of the key with the
/// scope it was sent for, so the same key sent for two users names two
/// jobs (a key reveals nothing about another user's requests), no client
/// key can collide with the server's own job keys, and a secret sent as a
/// key is never stored.
fn stored_idempotency_key(
    key: &SubjectKey,
    tenant: uuid::Uuid,
    scope: &Scope,
    sent: &str,
) -> String {
    let part = |v: &Option<String>| v.as_deref().unwrap_or("").as_bytes().to_vec();
    format!(
        "client:{}",
        key.mac(
            "idempotency-key",
            &[
                tenant.as_bytes(),
                &part(&scope.user_id),
                &part(&scope.agent_id),
                &part(&scope.session_id),
                sent.as_bytes(),
            ],
        )
    )
}

/// What an Idempotency-Key stands for: a keyed hash of the request as it
/// will be stored (secrets redacted), so a retry of the same request
/// matches, anything else does not, and the fingerprint cannot be turned
/// back into the request by trying candidates (a 4-digit PIN would take
/// 10,000 guesses without the key).
fn fingerprint(
    key: &SubjectKey,
    req: &AddMemoriesRequest,
    common: &AddCommon,
) -> Result<String, ApiError> {
    let mut stored = req.clone();
    if let (Some(_), Some(said)) = (&stored.text, common.said.first()) {
        stored.text = Some(said.content.clone());
    }
    if let Some(messages) = &mut stored.messages {
        for said in &common.said {
            if let Some(m) = messages.get_mut(said.position) {
                m.content = said.content.clone();
            }
        }
    }
    if stored.metadata.is_some() {
        stored.metadata = Some(common.metadata.clone());
    }
    let request = serde_json::to_vec(&(&common.scope, &stored))
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(key.mac("request-fingerprint", &[&request]))
}

/// The `Idempotency-Key` header, validated, if sent.
pub(crate) fn idempotency_key(
    headers: &HeaderMap,
    limits: &Limits,
) -> Result<Option<String>, ApiError> {
    match headers.get("idempotency-key") {
        Some(v) => {
            let v = v
                .to_str()
                .map_err(|_| ApiError::validation("Idempotency-Key", "must be visible ASCII"))?;
            // Kept only as a keyed hash (stored_idempotency_key).
            Ok(Some(validate::reference("Idempotency-Key", v, limits)?))
        }
        None => Ok(None),
    }
}

/// Where each message was in the request, when an empty one was skipped
/// (none otherwise: positions are then the indices).
fn positions(messages: &[ValidMessage]) -> Vec<usize> {
    let moved = messages.iter().enumerate().any(|(i, m)| m.position != i);
    match moved {
        true => messages.iter().map(|m| m.position).collect(),
        false => Vec::new(),
    }
}

/// Messages as extraction reads them, each with its time (the server's
/// now when the client gave none). Secrets were redacted when they were read.
pub(crate) fn said(messages: &[ValidMessage], now: DateTime<Utc>) -> Vec<InputMessage> {
    messages
        .iter()
        .map(|s| InputMessage {
            role: s.role,
            content: s.content.clone(),
            created_at: s.created_at.unwrap_or(now),
        })
        .collect()
}

/// Whose turns an add or an append keeps as what was said: the server's
/// `ENGRAM_EPISODIC`, unless the request's `store_raw` says (true keeps at
/// least the user's, false none).
pub(crate) fn kept_turns(state: &AppState, store_raw: Option<bool>) -> KeepTurns {
    match (store_raw, state.config.episodic.keep) {
        (Some(false), _) => KeepTurns::Off,
        (Some(true), KeepTurns::Off) => KeepTurns::User,
        (_, keep) => keep,
    }
}

/// Queues extraction of an add's messages and stores, in the same
/// transaction, the pieces of what was said that are kept (`usecases::said`:
/// no orders, no sensitive clause unless allowed).
pub(crate) async fn enqueue_inferred(
    state: &AppState,
    caller: &Caller,
    idempotency_key: Option<String>,
    req: &AddMemoriesRequest,
    common: &AddCommon,
) -> Result<(Enqueued, Vec<AddResult>), ApiError> {
    let messages = said(&common.said, state.clock.now());
    let request = ExtractionRequest {
        messages,
        source: common.source.clone().unwrap_or(Source {
            source_type: SourceType::UserStated,
            source_ref: None,
        }),
        allow_sensitive: req.allow_sensitive.unwrap_or(false),
        trusted: req.trusted.unwrap_or(false),
        positions: positions(&common.said),
        evidence: Vec::new(),
    };
    let turns = said::turns(&common.said, &request.messages);
    let pieces = said::pieces(
        state,
        &turns,
        &said::Options {
            scope: &common.scope,
            keep: kept_turns(state, req.store_raw),
            allow_sensitive: request.allow_sensitive,
            importance: common.importance,
            metadata: &common.metadata,
            source_ref: request.source.source_ref.as_deref(),
            expires_at: common.expires_at,
        },
    )
    .await?;
    let (idempotency_key, fingerprint) = match idempotency_key {
        Some(sent) => {
            let key = state.store.subject_key().await?;
            (
                Some(stored_idempotency_key(
                    &key,
                    caller.tenant_id,
                    &common.scope,
                    &sent,
                )),
                Some(fingerprint(&key, req, common)?),
            )
        }
        None => (None, None),
    };
    let job = NewJob {
        scope: common.scope.clone(),
        source_ref: request.source.source_ref.clone(),
        payload: request,
        fingerprint,
        idempotency_key,
        max_attempts: state.config.job_max_attempts,
    };
    let enqueued = state
        .store
        .enqueue_extraction(
            caller.tenant_id,
            &job,
            &pieces,
            state.config.episodic.retention(),
            &caller.actor,
        )
        .await
        .map_err(|e| caller.refusal(e))?;
    let raw_results = enqueued
        .raw
        .iter()
        .map(|o| AddResult {
            id: o.id,
            memory: o.content.clone(),
            event: o.event,
            redacted: Vec::new(),
        })
        .collect();
    Ok((enqueued, raw_results))
}

/// An earlier turn of the session redacted by this append (a secret split
/// across it and the new turns): as read, as redacted, and when it was said.
pub(crate) struct Redacted {
    pub seq: i64,
    pub read: String,
    pub redacted: String,
    pub said_at: DateTime<Utc>,
}

/// Turns the user sent last in a session, read with the user turns this
/// append opens with: a secret split across them ("my card is 4111 1111",
/// then "1111 1111") is redacted in both. Changes `messages` and returns the
/// earlier turns' redactions for the append's transaction.
async fn screen_with_earlier_turns(
    state: &AppState,
    caller: &Caller,
    session_id: &str,
    user_id: &str,
    messages: &mut [ValidMessage],
) -> Result<Vec<Redacted>, ApiError> {
    let leading = messages.iter().take_while(|m| m.role == Role::User).count();
    if leading == 0 {
        return Ok(Vec::new());
    }
    let earlier = state
        .store
        .trailing_user_turns(caller.tenant_id, session_id, user_id, 3)
        .await?;
    if earlier.is_empty() {
        return Ok(Vec::new());
    }
    let texts: Vec<&str> = earlier
        .iter()
        .map(|t| t.content.as_str())
        .chain(messages[..leading].iter().map(|m| m.content.as_str()))
        .collect();
    let screened = engram_core::policy::redact_together(&texts);
    let (before, now) = screened.split_at(earlier.len());
    for (m, (content, kinds)) in messages[..leading].iter_mut().zip(now) {
        m.content = content.clone();
        for k in kinds {
            if !m.redacted.contains(k) {
                m.redacted.push(k);
            }
        }
    }
    Ok(earlier
        .iter()
        .zip(before)
        .filter(|(t, (content, _))| &t.content != content)
        .map(|(t, (content, _))| Redacted {
            seq: t.seq,
            read: t.content.clone(),
            redacted: content.clone(),
            said_at: t.created_at,
        })
        .collect())
}

/// Where a session's extracted facts came from, for provenance and purges.
pub(crate) fn session_source(session_id: &str) -> String {
    format!("{}{session_id}", engram_core::SESSION_SOURCE_PREFIX)
}

/// What a session append writes: its turns (with their token counts), the
/// pieces of what was said that are kept (of these turns, and of the
/// earlier ones it redacts), and unless `infer` is off the job that
/// extracts what the user said.
pub(crate) struct SessionWrite {
    pub turns: Vec<NewTurn>,
    pub pieces: Vec<engram_store::NewPiece>,
    pub extract: Option<NewJob<ExtractionRequest>>,
}

/// How a session append treats what it is given.
pub(crate) struct AppendOptions {
    pub infer: bool,
    pub keep: KeepTurns,
    pub allow_sensitive: bool,
    pub trusted: bool,
}

async fn session_append(
    state: &AppState,
    session_id: &str,
    user_id: &str,
    messages: &[ValidMessage],
    earlier: &[Redacted],
    opts: AppendOptions,
) -> Result<SessionWrite, ApiError> {
    let said = said(messages, state.clock.now());
    let turns = said
        .iter()
        .map(|m| NewTurn {
            role: serde_json::to_value(m.role)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_else(|| "user".into()),
            tokens: state.config.tokens.count(&m.content) as i32,
            content: m.content.clone(),
            created_at: m.created_at,
        })
        .collect();
    let scope = Scope {
        user_id: Some(user_id.to_owned()),
        agent_id: None,
        session_id: Some(session_id.to_owned()),
    };
    let source_ref = session_source(session_id);
    let kept: Vec<said::Turn> = said::turns(messages, &said)
        .into_iter()
        .chain(earlier.iter().map(|r| said::Turn {
            message: engram_store::EARLIER,
            role: Role::User,
            content: &r.redacted,
            said_at: r.said_at,
            seq: Some(r.seq),
            name: None,
        }))
        .collect();
    let empty = serde_json::json!({});
    let pieces = said::pieces(
        state,
        &kept,
        &said::Options {
            scope: &scope,
            keep: opts.keep,
            allow_sensitive: opts.allow_sensitive,
            importance: 0.5,
            metadata: &empty,
            source_ref: Some(&source_ref),
            expires_at: None,
        },
    )
    .await?;
    if !opts.infer {
        return Ok(SessionWrite {
            turns,
            pieces,
            extract: None,
        });
    }
    let request = ExtractionRequest {
        messages: said,
        source: Source {
            source_type: SourceType::UserStated,
            source_ref: Some(source_ref.clone()),
        },
        allow_sensitive: opts.allow_sensitive,
        trusted: opts.trusted,
        positions: positions(messages),
        evidence: Vec::new(),
    };
    let job = NewJob {
        scope,
        payload: request,
        idempotency_key: None,
        fingerprint: None,
        max_attempts: state.config.job_max_attempts,
        source_ref: Some(source_ref),
    };
    Ok(SessionWrite {
        turns,
        pieces,
        extract: Some(job),
    })
}

/// Appends `messages` to the session: screened with the user's last turns,
/// cut into what is kept as said, numbered and stored with their jobs in
/// one transaction.
pub(crate) async fn append(
    state: &AppState,
    caller: &Caller,
    (session_id, user_id): (&str, &str),
    mut messages: Vec<ValidMessage>,
    window_tokens: i32,
    opts: AppendOptions,
) -> Result<engram_store::Appended, ApiError> {
    let earlier =
        screen_with_earlier_turns(state, caller, session_id, user_id, &mut messages).await?;
    let write = session_append(state, session_id, user_id, &messages, &earlier, opts).await?;
    let redact_earlier: Vec<(i64, String, String)> = earlier
        .into_iter()
        .map(|r| (r.seq, r.read, r.redacted))
        .collect();
    let append = engram_store::Append {
        session_id,
        user_id,
        window_tokens,
        turns: &write.turns,
        extract: write.extract.as_ref(),
        max_attempts: state.config.job_max_attempts,
        redact_earlier: &redact_earlier,
        said: &write.pieces,
        retention: state.config.episodic.retention(),
        actor: &caller.actor,
    };
    state
        .store
        .append_turns(caller.tenant_id, &append)
        .await
        .map_err(|e| caller.refusal(e))
}
