//! The WHERE clauses every memory read shares: tenant, scope, filters,
//! states and "now", emitted only when present so the planner sees
//! `user_id = $n` and uses the partial scope indexes.

use engram_core::{MemoryFilter, MemoryState, Scope};
use sqlx::{Postgres, QueryBuilder};
use uuid::Uuid;

/// `FROM memories` is already pushed; appends the WHERE clause for tenant, scope
/// and filters. Only conditions that are present are emitted, so the planner sees
/// `user_id = $n` and can use the partial scope indexes.
pub(crate) fn push_filter(q: &mut QueryBuilder<'_, Postgres>, tenant: Uuid, f: &MemoryFilter) {
    q.push(" WHERE tenant_id = ").push_bind(tenant);
    if f.admin_states.is_none() {
        q.push(" AND deleted_at IS NULL");
    }
    if let Some(u) = &f.scope.user_id {
        q.push(" AND user_id = ").push_bind(u.clone());
    }
    if let Some(a) = &f.scope.agent_id {
        q.push(" AND agent_id = ").push_bind(a.clone());
    }
    if let Some(s) = &f.scope.session_id {
        q.push(" AND session_id = ").push_bind(s.clone());
    }
    match &f.admin_states {
        Some(states) if !states.is_empty() => push_states(q, states, f.now),
        Some(_) => {}
        None => {
            if !f.include_archived {
                q.push(" AND archived_at IS NULL");
            }
            if !f.include_superseded {
                q.push(" AND superseded_by IS NULL");
            }
            if !f.include_expired {
                q.push(" AND (expires_at IS NULL OR expires_at > ");
                push_now(q, f.now);
                q.push(")");
            }
        }
    }
    if let Some(m) = &f.metadata {
        q.push(" AND metadata @> ").push_bind(m.clone());
    }
    if !f.kinds.is_empty() {
        let kinds: Vec<&'static str> = f.kinds.iter().map(|k| k.as_str()).collect();
        q.push(" AND kind = ANY(").push_bind(kinds).push(")");
    }
    match f.said {
        Some(true) => {
            q.push(" AND said_by IS NOT NULL");
        }
        Some(false) => {
            q.push(" AND said_by IS NULL");
        }
        None => {}
    }
    if let Some(t) = f.created_gte {
        q.push(" AND created_at >= ").push_bind(t);
    }
    if let Some(t) = f.created_lte {
        q.push(" AND created_at <= ").push_bind(t);
    }
    if let Some(a) = &f.attribute {
        q.push(" AND attribute = ").push_bind(a.clone());
    }
    if let Some(t) = f.source_type {
        q.push(" AND source_type = ").push_bind(t.as_str());
    }
    if let Some(r) = &f.source_ref {
        q.push(" AND source_ref = ").push_bind(r.clone());
    }
    if let Some(t) = &f.text_contains {
        // strpos, not LIKE: the needle's % and _ stay plain characters.
        q.push(" AND strpos(lower(content), lower(")
            .push_bind(t.clone())
            .push(")) > 0");
    }
}

/// ` AND` the columns of `scope` that it names (memories and jobs alike).
pub(super) fn push_scope(q: &mut QueryBuilder<'_, Postgres>, scope: &Scope) {
    if let Some(u) = &scope.user_id {
        q.push(" AND user_id = ").push_bind(u.clone());
    }
    if let Some(a) = &scope.agent_id {
        q.push(" AND agent_id = ").push_bind(a.clone());
    }
    if let Some(s) = &scope.session_id {
        q.push(" AND session_id = ").push_bind(s.clone());
    }
}

/// "Now" for expiry: the injected clock's when given, else the database's.
fn push_now(q: &mut QueryBuilder<'_, Postgres>, now: Option<chrono::DateTime<chrono::Utc>>) {
    match now {
        Some(now) => q.push_bind(now),
        None => q.push("now()"),
    };
}

/// Rows in any of `states` (the SQL twin of `Memory::state`).
fn push_states(
    q: &mut QueryBuilder<'_, Postgres>,
    states: &[MemoryState],
    now: Option<chrono::DateTime<chrono::Utc>>,
) {
    q.push(" AND (false");
    for state in states {
        q.push(" OR ");
        match state {
            MemoryState::Deleted => q.push("deleted_at IS NOT NULL"),
            MemoryState::Superseded => q.push("(deleted_at IS NULL AND superseded_by IS NOT NULL)"),
            MemoryState::Archived => {
                q.push("(deleted_at IS NULL AND superseded_by IS NULL AND archived_at IS NOT NULL)")
            }
            MemoryState::Expired => {
                q.push("(deleted_at IS NULL AND superseded_by IS NULL AND archived_at IS NULL AND expires_at <= ");
                push_now(q, now);
                q.push(")")
            }
            MemoryState::Live => {
                q.push("(deleted_at IS NULL AND superseded_by IS NULL AND archived_at IS NULL AND (expires_at IS NULL OR expires_at > ");
                push_now(q, now);
                q.push("))")
            }
        };
    }
    q.push(")");
}
