//! What a read asks for: which memories are in view, independent of how they are ranked.

use chrono::{DateTime, Utc};

use crate::{Cursor, MemoryKind, MemoryState, Scope, SourceType};

/// Narrows the memories a search or listing considers.
#[derive(Debug, Clone, Default)]
pub struct MemoryFilter {
    pub scope: Scope,
    /// Top-level metadata keys that must equal the given values (JSON containment).
    pub metadata: Option<serde_json::Value>,
    /// Empty means every kind.
    pub kinds: Vec<MemoryKind>,
    /// `Some(true)`: only pieces of what was said (the episodic layer);
    /// `Some(false)`: everything else (facts, verbatim adds).
    pub said: Option<bool>,
    pub created_gte: Option<DateTime<Utc>>,
    pub created_lte: Option<DateTime<Utc>>,
    /// Admin views: the fact's attribute, exactly.
    pub attribute: Option<String>,
    /// Admin views: where the memory came from.
    pub source_type: Option<SourceType>,
    pub source_ref: Option<String>,
    /// Admin views: content containing this, ignoring case (plain text, no
    /// pattern characters).
    pub text_contains: Option<String>,
    pub include_superseded: bool,
    pub include_expired: bool,
    /// Memories consolidation archived (decayed below the floor).
    pub include_archived: bool,
    /// Admin views: every state, or only `states` when it is not empty. Set,
    /// it replaces the two `include_*` flags.
    pub admin_states: Option<Vec<MemoryState>>,
    /// "Now" for expiry; `None` uses the database clock. Set from the injected
    /// clock so tests can move time.
    pub now: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone)]
pub struct Page {
    pub limit: usize,
    pub after: Option<Cursor>,
}
