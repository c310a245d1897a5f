//! Translation of request values into domain values: scopes, messages,
//! stored text, pages and cursors, each error naming its field.

use chrono::{DateTime, Utc};
use engram_core::time::Timestamp;
use engram_core::validate::{self, in_range};
use engram_core::{Cursor, FieldError, Limits, MemoryFilter, Scope};

use super::{KindFilter, MessageIn, Role, SearchFilters};

/// A page size: `default` when absent, else 1..=1000 (422 naming `limit`).
pub fn page_limit(limit: Option<i64>, default: i64) -> Result<usize, crate::error::ApiError> {
    let limit = limit.unwrap_or(default);
    if !(1..=1000).contains(&limit) {
        return Err(crate::error::ApiError::validation(
            "limit",
            "must be between 1 and 1000",
        ));
    }
    Ok(limit as usize)
}

/// Validates scope identifiers; `require_owner` demands a user or agent.
pub fn scope(
    user_id: &Option<String>,
    agent_id: &Option<String>,
    session_id: &Option<String>,
    require_owner: bool,
    limits: &Limits,
) -> Result<Scope, FieldError> {
    let check = |field: &str, v: &Option<String>| {
        v.as_deref()
            .map(|v| validate::reference(field, v, limits))
            .transpose()
    };
    let scope = Scope {
        user_id: check("user_id", user_id)?,
        agent_id: check("agent_id", agent_id)?,
        session_id: check("session_id", session_id)?,
    };
    if require_owner && scope.user_id.is_none() && scope.agent_id.is_none() {
        return Err(FieldError::new(
            "user_id",
            "a user_id or agent_id is required",
        ));
    }
    if scope.user_id.is_none() && scope.agent_id.is_none() && scope.session_id.is_none() {
        return Err(FieldError::new(
            "user_id",
            "a user_id, agent_id or session_id is required",
        ));
    }
    Ok(scope)
}

/// A scope about to be stored with a write: its identifiers hold no secret.
pub fn stored_scope(scope: &Scope, limits: &Limits) -> Result<(), FieldError> {
    for (field, v) in [
        ("user_id", &scope.user_id),
        ("agent_id", &scope.agent_id),
        ("session_id", &scope.session_id),
    ] {
        if let Some(v) = v {
            validate::identifier(field, v, limits)?;
        }
    }
    Ok(())
}

/// A message of an add or a session append, validated, secrets redacted.
pub struct ValidMessage {
    /// Where it was in the request (empty messages before it are skipped).
    pub position: usize,
    pub role: Role,
    pub content: String,
    pub created_at: Option<DateTime<Utc>>,
    /// The kinds of secret redacted from it.
    pub redacted: Vec<&'static str>,
    /// The speaker's name, when given (OpenAI's `name`).
    pub name: Option<String>,
}

/// A text that will be stored: validated, and every secret in it redacted
/// (the kinds redacted come back, so the response can say so).
pub fn stored_text(
    field: &str,
    value: &str,
    limits: &Limits,
) -> Result<(String, Vec<&'static str>), FieldError> {
    let text = validate::content(field, value, limits)?;
    Ok(engram_core::policy::redact(&text))
}

/// A speaker's name (a message's `name`): an identifier of at most 64
/// characters, kept with what they said.
fn speaker_name(field: &str, name: &str, limits: &Limits) -> Result<String, FieldError> {
    let name = validate::identifier(field, name.trim(), limits)?;
    if name.chars().count() > 64 {
        return Err(FieldError::new(field, "must be at most 64 characters"));
    }
    Ok(name)
}

/// The messages of a request, validated, and the positions of those
/// skipped because they were empty.
pub struct Said {
    pub messages: Vec<ValidMessage>,
    pub skipped: Vec<usize>,
}

/// The messages of an add or a session append: 1..=max_messages of them,
/// each a valid content, and all together at most `max_total_chars`
/// characters (what one request may give the embedder). An empty or
/// blank message is real data (a chat log's empty assistant turn), not bad
/// input: it is skipped and its position returned, unless every message is
/// empty.
pub fn messages(
    messages: &[MessageIn],
    limits: &Limits,
    max_total_chars: usize,
) -> Result<Said, FieldError> {
    if messages.is_empty() {
        return Err(FieldError::new("messages", "must not be empty"));
    }
    if messages.len() > limits.max_messages {
        return Err(FieldError::new(
            "messages",
            format!("at most {} messages per request", limits.max_messages),
        ));
    }
    let mut total = 0usize;
    let mut valid = Vec::with_capacity(messages.len());
    // Consecutive messages of one speaker are screened together, so a
    // secret split across them ("my card is 4111 1111" + "1111 1111") is
    // found whole.
    // Each message valid and all within the budget before any screening:
    // what is over it is refused without the cost of reading it.
    let skipped: Vec<usize> = messages
        .iter()
        .enumerate()
        .filter(|(_, m)| validate::is_blank(&m.content))
        .map(|(i, _)| i)
        .collect();
    if skipped.len() == messages.len() {
        return Err(FieldError::new(
            "messages",
            "every message is empty: give at least one with content",
        ));
    }
    let kept: Vec<(usize, &MessageIn)> = messages
        .iter()
        .enumerate()
        .filter(|(i, _)| !skipped.contains(i))
        .collect();
    let mut contents = Vec::with_capacity(kept.len());
    let mut names = Vec::with_capacity(kept.len());
    for &(i, m) in &kept {
        names.push(
            m.name
                .as_deref()
                .map(|n| speaker_name(&format!("messages[{i}].name"), n, limits))
                .transpose()?,
        );
        contents.push(validate::content(
            &format!("messages[{i}].content"),
            &m.content,
            limits,
        )?);
        total = total.saturating_add(m.content.chars().count());
        if total > max_total_chars {
            return Err(FieldError::new(
                "messages",
                format!(
                    "at most {max_total_chars} characters in all messages of one request (ENGRAM_MAX_ADD_CHARS); send the rest in another request"
                ),
            ));
        }
    }
    // Read together: the user's turns, all of them in order (a secret's
    // label in one and its value in the next, with the assistant's turn
    // between: issue 51), and each run of another role's turns.
    let mut screened: Vec<(String, Vec<&'static str>)> = vec![Default::default(); kept.len()];
    let user: Vec<usize> = (0..kept.len())
        .filter(|&k| kept[k].1.role == Role::User)
        .collect();
    let mut groups: Vec<Vec<usize>> = vec![user];
    let mut start = 0;
    while start < kept.len() {
        let mut end = start + 1;
        while end < kept.len() && kept[end].1.role == kept[start].1.role {
            end += 1;
        }
        if kept[start].1.role != Role::User {
            groups.push((start..end).collect());
        }
        start = end;
    }
    for group in groups.into_iter().filter(|g| !g.is_empty()) {
        let run: Vec<&str> = group.iter().map(|&k| contents[k].as_str()).collect();
        for (k, out) in group
            .into_iter()
            .zip(engram_core::policy::redact_together(&run))
        {
            screened[k] = out;
        }
    }
    for (((position, m), (content, redacted)), name) in kept.into_iter().zip(screened).zip(names) {
        valid.push(ValidMessage {
            position,
            role: m.role,
            content,
            created_at: m.created_at.map(Timestamp::get),
            redacted,
            name,
        });
    }
    Ok(Said {
        messages: valid,
        skipped,
    })
}

pub fn importance(field: &str, v: Option<f64>) -> Result<Option<f32>, FieldError> {
    v.map(|v| in_range(field, v, 0.0, 1.0).map(|v| v as f32))
        .transpose()
}

/// Metadata: a bounded JSON object, with any secret in its string values
/// redacted before it is stored.
pub fn metadata(
    v: Option<serde_json::Value>,
    limits: &Limits,
) -> Result<Option<serde_json::Value>, FieldError> {
    if let Some(m) = &v {
        validate::metadata("metadata", m, limits)?;
    }
    Ok(v.map(|m| engram_core::policy::redact_json(&m).0))
}

pub fn cursor(v: &Option<String>) -> Result<Option<Cursor>, FieldError> {
    v.as_deref()
        .map(|s| {
            Cursor::decode(s)
                .ok_or_else(|| FieldError::new("cursor", "is not a cursor returned by this API"))
        })
        .transpose()
}

impl SearchFilters {
    pub fn apply(self, filter: &mut MemoryFilter, limits: &Limits) -> Result<(), FieldError> {
        if let Some(m) = self.metadata {
            validate::metadata("filters.metadata", &m, limits)?;
            filter.metadata = Some(m);
        }
        filter.said = self.said;
        filter.kinds = match self.kind {
            None => Vec::new(),
            Some(KindFilter::One(k)) => vec![k],
            Some(KindFilter::Many(ks)) => ks,
        };
        if let Some(r) = self.created_at {
            if let (Some(a), Some(b)) = (r.gte, r.lte) {
                if a > b {
                    return Err(FieldError::new(
                        "filters.created_at",
                        "gte must not be after lte",
                    ));
                }
            }
            filter.created_gte = r.gte.map(Timestamp::get);
            filter.created_lte = r.lte.map(Timestamp::get);
        }
        Ok(())
    }
}

/// The cursor of the page after `items`, when the page was full: what
/// `cursor` reads back.
pub fn next_cursor<T>(
    items: &[T],
    limit: usize,
    key: impl Fn(&T) -> (chrono::DateTime<chrono::Utc>, uuid::Uuid),
) -> Option<String> {
    (items.len() == limit)
        .then(|| items.last())
        .flatten()
        .map(|last| {
            let (created_at, id) = key(last);
            engram_core::Cursor { created_at, id }.encode()
        })
}
