//! What happens to memories after they are written: consolidation (merge,
//! decay, archive, purge) and what a deletion leaves behind in the text a
//! fact came from.

pub mod consolidate;
pub mod forget;
