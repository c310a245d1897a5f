//! The context use-case: what a chat model should see now, in one block
//! within a token budget: what is recalled from earlier conversations
//! (profile facts, memories relevant to the query and what was said, one
//! pool spent by value), the session's running summary and its recent turns.

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use engram_context::lines::{memory_line, profile_line, said_group, said_line, turn_line};
use engram_context::{assemble, Candidates, Recalled, Section};
use engram_core::time::Timestamp;
use engram_core::validate;
use engram_core::MemoryFilter;
use engram_store::StoreError;

use crate::dto::{ContextRequest, ContextResponse};
use crate::error::ApiError;
use crate::state::{AppState, Caller};
use crate::usecases::search::{run_search, SearchPlan};

/// The most profile entries a profile or a context call considers.
pub(crate) const PROFILE_LIMIT: usize = 50;

/// A context request, validated.
pub(crate) struct ContextPlan {
    user_id: String,
    session_id: Option<String>,
    query: String,
    token_budget: i64,
    top_k: i64,
    priority: Vec<Section>,
    reference_time: Option<DateTime<Utc>>,
}

/// Checks every field of a context request, naming the one at fault.
pub(crate) fn plan(
    state: &AppState,
    caller: &Caller,
    req: ContextRequest,
) -> Result<ContextPlan, ApiError> {
    let limits = &state.config.limits;
    let user_id = validate::reference("user_id", &req.user_id, limits)?;
    caller.check_user(&user_id)?;
    let session_id = req
        .session_id
        .as_deref()
        .map(|s| validate::reference("session_id", s, limits))
        .transpose()?;
    let query = validate::query("query", &req.query, limits)?;
    if !(1..=200_000).contains(&req.token_budget) {
        return Err(ApiError::validation(
            "token_budget",
            "must be between 1 and 200000",
        ));
    }
    let top_k = req.top_k.unwrap_or_else(|| default_top_k(req.token_budget));
    if !(1..=50).contains(&top_k) {
        return Err(ApiError::validation("top_k", "must be between 1 and 50"));
    }
    let priority: Vec<Section> = match req.include {
        Some(list) => {
            let mut seen = HashSet::new();
            if list.is_empty() || !list.iter().all(|s| seen.insert(*s)) {
                return Err(ApiError::validation(
                    "include",
                    "name each section at most once, at least one",
                ));
            }
            list
        }
        None => Section::DEFAULT_PRIORITY.to_vec(),
    };
    Ok(ContextPlan {
        user_id,
        session_id,
        query,
        token_budget: req.token_budget,
        top_k,
        priority,
        reference_time: req.reference_time.map(Timestamp::get),
    })
}

/// Reads the profile, the search and the session at once and assembles the
/// block.
pub(crate) async fn build(
    state: &AppState,
    caller: &Caller,
    plan: ContextPlan,
) -> Result<ContextResponse, ApiError> {
    let ContextPlan {
        user_id,
        session_id,
        query,
        token_budget,
        top_k,
        priority,
        reference_time,
    } = plan;
    let wants = |s: Section| priority.contains(&s);
    let now = state.clock.now();
    let tenant = caller.tenant_id;

    // The profile, the search and the session are independent reads: run
    // them at once (the search's embedding overlaps the other two).
    let profile = async {
        if wants(Section::Profile) {
            let entries = state
                .store
                .profile(tenant, &user_id, now, PROFILE_LIMIT)
                .await?;
            Ok(caller.profile(entries))
        } else {
            Ok(Vec::new())
        }
    };
    let search = async {
        if !wants(Section::Memories) {
            return Ok((Vec::new(), None));
        }
        let filter = MemoryFilter {
            scope: caller.scope(
                &Some(user_id.clone()),
                &None,
                &None,
                true,
                &state.config.limits,
            )?,
            now: Some(now),
            ..Default::default()
        };
        let mut plan = SearchPlan::defaults(state, query.clone(), filter, top_k as usize);
        plan.reference_time = reference_time;
        run_search(state, caller, plan).await
    };
    let session = async {
        match &session_id {
            Some(sid) if wants(Section::Summary) || wants(Section::Recent) => {
                match state.store.session_state(tenant, sid).await {
                    Ok(s) if s.info.user_id == user_id => Ok(Some(s)),
                    // Another user's session is as unknown as a missing one.
                    Ok(_) => Err(ApiError::from(StoreError::NotFound)),
                    // No turns yet: nothing recent, nothing summarised.
                    Err(StoreError::NotFound) => Ok(None),
                    Err(e) => Err(e.into()),
                }
            }
            _ => Ok(None),
        }
    };
    let (profile, (ranked, query_time), session) = tokio::try_join!(profile, search, session)?;

    // The turns still in this session's window are shown as recent turns,
    // not again as what was said.
    let in_window: HashSet<i64> = session
        .as_ref()
        .map(|s| s.window.iter().map(|t| t.seq).collect())
        .unwrap_or_default();
    let recalled = recalled(
        state,
        &profile,
        &ranked,
        session_id.as_deref(),
        &in_window,
        reference_time.unwrap_or(now),
    );
    let (summary, recent) = match session {
        Some(s) => (
            s.summary
                .map(|m| {
                    engram_core::policy::without_instructions(&m.content)
                        .lines()
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            s.window
                .iter()
                .rev()
                .map(|t| turn_line(&t.role, &t.content))
                .collect(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    let candidates = Candidates {
        recalled,
        summary,
        recent,
    };
    let block = assemble(
        &candidates,
        &priority,
        token_budget as usize,
        &state.config.tokens,
    );
    Ok(ContextResponse {
        text: block.text,
        tokens_used: block.tokens_used,
        token_budget: token_budget as usize,
        tokenizer: state.config.tokens.encoding(),
        parts: block.parts,
        query_time,
    })
}

/// What is recalled from earlier conversations, as one pool: each memory
/// the search found at its score, and each profile fact it did not find at
/// the score it would have with no relevance (its recency and importance),
/// so a fact the message is about, or the turn that answers it, comes
/// before a fact it is not. Pieces of what was said read as quoted speech;
/// those of this session's window are left to its recent turns.
fn recalled(
    state: &AppState,
    profile: &[engram_core::Memory],
    ranked: &[engram_core::ScoredMemory],
    session_id: Option<&str>,
    in_window: &HashSet<i64>,
    now: DateTime<Utc>,
) -> Vec<Recalled> {
    let in_this_window = |m: &engram_core::Memory| {
        m.scope.session_id.as_deref() == session_id
            && session_id.is_some()
            && m.provenance
                .said
                .as_ref()
                .and_then(|s| s.seq)
                .is_some_and(|seq| in_window.contains(&seq))
    };
    let found: HashSet<uuid::Uuid> = ranked.iter().map(|r| r.memory.id).collect();
    let in_profile: HashSet<uuid::Uuid> = profile.iter().map(|m| m.id).collect();
    let unmatched = profile
        .iter()
        .filter(|m| !found.contains(&m.id) && shown(state, m))
        .map(|m| {
            let age = engram_core::time::days_between(now, m.created_at);
            let none = engram_core::Relevance::dense(0.0);
            let (value, _) = engram_core::blend(
                none,
                age,
                m.importance,
                state.config.weights,
                state.config.half_life_days,
            );
            Recalled {
                section: Section::Profile,
                text: profile_line(m),
                value: value + if m.pinned { 1.0 } else { 0.0 },
                sort: 0,
                group: None,
            }
        });
    let matched = ranked
        .iter()
        .filter(|r| !in_this_window(&r.memory))
        .filter(|r| shown(state, &r.memory))
        .map(|r| {
            let m = &r.memory;
            let (section, text, group) = if in_profile.contains(&m.id) {
                (Section::Profile, profile_line(m), None)
            } else if m.provenance.said.is_some() {
                (Section::Said, said_line(m), Some(said_group(m)))
            } else {
                (Section::Memories, memory_line(m), None)
            };
            Recalled {
                section,
                text,
                value: r.score + if m.pinned { 1.0 } else { 0.0 },
                // In the order it was said: by time, then turn and piece.
                sort: m.created_at.timestamp_micros(),
                group,
            }
        });
    matched.chain(unmatched).collect()
}

/// Whether a stored text may be shown in the block: the instruction screen
/// again, at read time, so what was stored before the screen learned a
/// style (or came in past it) is not put before the model as an order
/// (issue 51). Quoting tells the model what it reads is data; a small
/// model follows an order in quotes anyway (docs/GDPR.md, *Hardening*).
/// What was said in a language the screen cannot read is held out too.
/// The verdict is remembered per memory and text (`ShownVerdicts`): the
/// screens cost ~0.2 ms a memory, ~9 ms for a block's 50 candidates.
fn shown(state: &AppState, m: &engram_core::Memory) -> bool {
    state.shown.get_or(m.id, &m.content, || {
        let as_said = m.attribute.is_none();
        engram_core::policy::instruction_reason(&m.content).is_none()
            && !(as_said && engram_core::policy::unscreened_language(&m.content).is_some())
    })
}

/// Memories searched for the block when the request does not say: enough
/// to fill the budget (a memory line is about 33 tokens), at least 10, at
/// most 50. A fixed 10 left a 1,000-token block half empty; on LoCoMo,
/// leaving one conversation out, every fold chose 30 over 10 and 20 at
/// 1,000 tokens (context recall 0.694 → 0.760) and 250-500 tokens are bound
/// by the budget, not by this (docs/EVALUATION.md).
pub(crate) fn default_top_k(token_budget: i64) -> i64 {
    (token_budget / 33).clamp(10, 50)
}

#[cfg(test)]
mod tests {
    use super::default_top_k;

    #[test]
    fn the_default_top_k_follows_the_budget() {
        assert_eq!(default_top_k(1), 10);
        assert_eq!(default_top_k(250), 10);
        assert_eq!(default_top_k(500), 15);
        assert_eq!(default_top_k(1000), 30);
        assert_eq!(default_top_k(200_000), 50);
    }
}
