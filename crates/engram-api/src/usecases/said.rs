//! What was said, kept as it was said: the episodic pieces of an add's or
//! an append's turns (`engram_core::said` decides what of a turn is kept),
//! embedded in one batch and handed to the store with the write they
//! belong to.

use chrono::{DateTime, Utc};
use engram_core::extract::Role;
use engram_core::said::{keep, Speaker, ASSISTANT_IMPORTANCE};
use engram_core::{MemoryKind, NewMemory, Scope, Source, SourceType};
use engram_store::NewPiece;

use crate::error::ApiError;
use crate::state::AppState;
use crate::usecases::search::embed_all;

/// A turn to keep: its message in the request, who said it, what, when;
/// `seq` when it is an earlier turn of the session, redacted again now.
pub(crate) struct Turn<'a> {
    pub message: usize,
    pub role: Role,
    pub content: &'a str,
    pub said_at: DateTime<Utc>,
    pub seq: Option<i64>,
    /// The speaker's name, when the message gave one.
    pub name: Option<&'a str>,
}

/// The turns of a request's messages (as validated, and as extraction
/// reads them, with their times), each at its place in it.
pub(crate) fn turns<'a>(
    valid: &'a [crate::dto::ValidMessage],
    messages: &'a [engram_core::extract::InputMessage],
) -> Vec<Turn<'a>> {
    valid
        .iter()
        .zip(messages)
        .enumerate()
        .map(|(message, (v, m))| Turn {
            message,
            role: m.role,
            content: &m.content,
            said_at: m.created_at,
            seq: None,
            name: v.name.as_deref(),
        })
        .collect()
}

/// How the pieces of one write are stored.
pub(crate) struct Options<'a> {
    pub scope: &'a Scope,
    /// Whose turns are kept (the server's `ENGRAM_EPISODIC`, or the
    /// request's `store_raw`).
    pub keep: engram_core::said::KeepTurns,
    pub allow_sensitive: bool,
    /// The user's turns' importance (the assistant's is lower).
    pub importance: f32,
    pub metadata: &'a serde_json::Value,
    pub source_ref: Option<&'a str>,
    /// An expiry the request set (an add's `ttl_seconds`), else retention.
    pub expires_at: Option<DateTime<Utc>>,
}

/// The kept pieces of `turns`, embedded in one batch.
pub(crate) async fn pieces(
    state: &AppState,
    turns: &[Turn<'_>],
    opts: &Options<'_>,
) -> Result<Vec<NewPiece>, ApiError> {
    let episodic = &state.config.episodic;
    let mut out: Vec<NewPiece> = Vec::new();
    for t in turns {
        let Some(by) = speaker(t.role).filter(|s| opts.keep.keeps(*s)) else {
            continue;
        };
        let kept = keep(t.content, opts.allow_sensitive, episodic.bound);
        let expires_at = opts.expires_at.or_else(|| {
            episodic
                .retention()
                .and_then(|r| t.said_at.checked_add_signed(r))
        });
        for p in kept.pieces {
            out.push(NewPiece {
                memory: NewMemory {
                    scope: opts.scope.clone(),
                    kind: MemoryKind::Episodic,
                    content: p.text,
                    importance: match by {
                        Speaker::User => opts.importance,
                        Speaker::Assistant => episodic
                            .assistant_importance
                            .unwrap_or(ASSISTANT_IMPORTANCE)
                            .min(opts.importance),
                    },
                    source: Source {
                        source_type: match by {
                            Speaker::User => SourceType::UserStated,
                            Speaker::Assistant => SourceType::Assistant,
                        },
                        source_ref: opts.source_ref.map(str::to_owned),
                    },
                    metadata: opts.metadata.clone(),
                    pinned: false,
                    expires_at,
                    created_at: Some(t.said_at),
                },
                embedding: Vec::new(),
                by,
                message: t.message,
                seq: t.seq,
                piece: p.index,
                pieces: p.of,
                sensitivity: p.sensitivity,
                name: t.name.map(str::to_owned),
            });
        }
    }
    if out.is_empty() {
        return Ok(out);
    }
    // A piece is embedded with its speaker's name when given ("Caroline: I
    // went to a support group"), so a question that names them finds it.
    let texts: Vec<String> = out
        .iter()
        .map(|p| match &p.name {
            Some(name) => format!("{name}: {}", p.memory.content),
            None => p.memory.content.clone(),
        })
        .collect();
    let vectors = embed_all(state, &texts).await?;
    if vectors.len() != out.len() {
        return Err(ApiError::Internal(format!(
            "{} vectors for {} pieces",
            vectors.len(),
            out.len()
        )));
    }
    for (p, v) in out.iter_mut().zip(vectors) {
        p.embedding = v;
    }
    Ok(out)
}

/// Who said a message, if it is one a conversation keeps (system and tool
/// messages are not what anyone said).
fn speaker(role: Role) -> Option<Speaker> {
    match role {
        Role::User => Some(Speaker::User),
        Role::Assistant => Some(Speaker::Assistant),
        Role::System | Role::Tool => None,
    }
}
