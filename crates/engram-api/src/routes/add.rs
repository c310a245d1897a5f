//! `POST /v1/memories`: verbatim (`infer: false`, 201) or through background
//! extraction (`infer: true`, 202 with a job, or the job's results with `wait`).

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use chrono::{DateTime, Utc};
use engram_core::extract::{ExtractionRequest, InputMessage};
use engram_core::policy::{instruction_reason, without_sensitive};
use engram_core::time::{self, Timestamp};
use engram_core::{validate, JobStatus, MemoryKind, NewMemory, Scope, Source, SourceType};
use engram_store::NewJob;

use crate::dto::{
    self, AddJobResponse, AddMemoriesRequest, AddMemoriesResponse, AddResult, JobOut, Role,
    ValidMessage,
};
use crate::error::ApiError;
use crate::extractors::ApiJson;
use crate::routes::jobs::wait_for_job;
use crate::search::embed_all;
use crate::state::{AppState, Caller};

/// The fields every add shares, validated.
struct AddCommon {
    scope: Scope,
    importance: f32,
    metadata: serde_json::Value,
    expires_at: Option<DateTime<Utc>>,
    source: Option<Source>,
    said: Vec<ValidMessage>,
    from_messages: bool,
}

fn validate_add(state: &AppState, req: &AddMemoriesRequest) -> Result<AddCommon, ApiError> {
    let limits = &state.config.limits;
    let now = state.clock.now();
    let scope = dto::scope(&req.user_id, &req.agent_id, &req.session_id, true, limits)?;
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
    let said = match (&req.messages, &req.text) {
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
            vec![ValidMessage {
                role: Role::User,
                content,
                created_at: None,
                redacted,
            }]
        }
        (Some(messages), None) => dto::messages(messages, limits, state.config.max_add_chars)?,
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
        from_messages: req.messages.is_some(),
    })
}

pub async fn add_memories(
    State(state): State<AppState>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    ApiJson(req): ApiJson<AddMemoriesRequest>,
) -> Result<Response, ApiError> {
    let common = validate_add(&state, &req)?;
    if req.infer.unwrap_or(true) {
        return add_inferred(state, caller, headers, req, common).await;
    }
    for (field, set) in [
        ("wait", req.wait.is_some()),
        ("store_raw", req.store_raw.is_some()),
    ] {
        if set {
            return Err(ApiError::validation(field, "applies only with infer: true"));
        }
    }
    let user_said: Vec<&ValidMessage> = common
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
    // Verbatim messages are episodic and stated by the user; a text is a fact from the app.
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
    let redacted: Vec<Vec<&'static str>> = user_said.iter().map(|s| s.redacted.clone()).collect();
    let memories: Vec<NewMemory> = user_said
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
    let results = store_verbatim(&state, &caller, memories, redacted).await?;
    Ok((StatusCode::CREATED, Json(AddMemoriesResponse { results })).into_response())
}

/// Embeds in one batch and stores in one statement; `redacted` says, per
/// memory, which kinds of secret its text had.
async fn store_verbatim(
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
        .await?;
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

/// What an Idempotency-Key stands for: a hash of the scope and of the
/// request as sent (its serialised fields), so a retry of the same request
/// matches and anything else does not.
fn fingerprint(req: &AddMemoriesRequest, scope: &Scope) -> String {
    let request = serde_json::to_string(&(scope, req)).unwrap_or_default();
    engram_core::access::hash_key(&request)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

async fn add_inferred(
    state: AppState,
    caller: Caller,
    headers: HeaderMap,
    req: AddMemoriesRequest,
    common: AddCommon,
) -> Result<Response, ApiError> {
    let limits = &state.config.limits;
    let idempotency_key = match headers.get("idempotency-key") {
        Some(v) => {
            let v = v
                .to_str()
                .map_err(|_| ApiError::validation("Idempotency-Key", "must be visible ASCII"))?;
            Some(validate::identifier("Idempotency-Key", v, limits)?)
        }
        None => None,
    };
    let now = state.clock.now();
    // Secrets were redacted when the messages were read, so neither the job
    // payload nor a raw memory ever holds one.
    let messages: Vec<InputMessage> = common
        .said
        .iter()
        .map(|s| InputMessage {
            role: s.role,
            content: s.content.clone(),
            created_at: s.created_at.unwrap_or(now),
        })
        .collect();
    let request = ExtractionRequest {
        messages: messages.clone(),
        source: common.source.clone().unwrap_or(Source {
            source_type: SourceType::UserStated,
            source_ref: None,
        }),
        allow_sensitive: req.allow_sensitive.unwrap_or(false),
        trusted: req.trusted.unwrap_or(false),
    };
    // Verbatim copies follow the same policy as facts: no orders, and no
    // sensitive clause unless allowed (the rest of the message is kept).
    let raw: Vec<NewMemory> = if req.store_raw.unwrap_or(false) {
        messages
            .iter()
            .filter(|m| m.role == Role::User && instruction_reason(&m.content).is_none())
            .filter_map(|m| {
                let content = if request.allow_sensitive {
                    m.content.clone()
                } else {
                    without_sensitive(&m.content).0
                };
                (!content.trim().is_empty()).then_some((m, content))
            })
            .map(|(m, content)| NewMemory {
                scope: common.scope.clone(),
                kind: MemoryKind::Episodic,
                content,
                importance: common.importance,
                source: Source {
                    source_type: SourceType::UserStated,
                    source_ref: request.source.source_ref.clone(),
                },
                metadata: common.metadata.clone(),
                pinned: false,
                expires_at: common.expires_at,
                created_at: Some(m.created_at),
            })
            .collect()
    } else {
        Vec::new()
    };
    let texts: Vec<String> = raw.iter().map(|m| m.content.clone()).collect();
    let vectors = if texts.is_empty() {
        Vec::new()
    } else {
        embed_all(&state, &texts).await?
    };
    let raw_items: Vec<(NewMemory, Vec<f32>)> = raw.into_iter().zip(vectors).collect();
    let job = NewJob {
        scope: common.scope.clone(),
        payload: serde_json::to_value(&request).map_err(|e| ApiError::Internal(e.to_string()))?,
        fingerprint: idempotency_key
            .as_ref()
            .map(|_| fingerprint(&req, &common.scope)),
        idempotency_key,
        max_attempts: state.config.job_max_attempts,
        source_ref: request.source.source_ref.clone(),
    };
    let enqueued = state
        .store
        .enqueue_extraction(caller.tenant_id, &job, &raw_items, &caller.actor)
        .await?;
    let raw_results = enqueued
        .raw
        .into_iter()
        .map(|o| AddResult {
            id: o.id,
            memory: o.content,
            event: o.event,
            redacted: Vec::new(),
        })
        .collect();

    if req.wait.unwrap_or(false) {
        let timeout = state.config.add_wait_timeout;
        let waited = wait_for_job(&state, caller.tenant_id, enqueued.job_id, timeout).await?;
        if let Some(job) = waited {
            return Ok((StatusCode::OK, Json(JobOut::from(job))).into_response());
        }
    }
    let status = if enqueued.created {
        JobStatus::Queued
    } else {
        state
            .store
            .get_job(caller.tenant_id, enqueued.job_id)
            .await?
            .status()
    };
    let body = AddJobResponse {
        job_id: enqueued.job_id,
        status,
        raw: raw_results,
    };
    Ok((StatusCode::ACCEPTED, Json(body)).into_response())
}
