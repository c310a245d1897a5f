//! The records and values every layer shares (memories, keys, candidates,
//! queries, times, validated input) and the ports the outer crates
//! implement (`Embedder`, `Clock`, `Summarizer`).

pub mod access;
pub mod candidate;
pub mod clock;
pub mod cursor;
pub mod embed;
pub mod memory;
pub mod query;
pub mod session;
pub mod time;
pub mod validate;
