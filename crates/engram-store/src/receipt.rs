//! What a deletion did, table by table: the counts an erasure, a purge or
//! a scope delete answers with (its receipt).

use std::collections::BTreeMap;

/// Rows removed (or changed) per table: the body of an erasure receipt.
pub type Counts = BTreeMap<String, i64>;

/// Whether an erasure keeps what it did or only counts it: a dry run runs
/// the very same statements in its transaction and rolls back, so its
/// counts are exactly what the real one would remove at that moment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Apply {
    Commit,
    DryRun,
}
