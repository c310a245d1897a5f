//! What a deletion did, table by table: the counts an erasure, a purge or
//! a scope delete answers with (its receipt).

use std::collections::BTreeMap;

/// Rows removed (or changed) per table: the body of an erasure receipt.
pub type Counts = BTreeMap<String, i64>;
