//! Engram's domain: memory types and validated values, the write policy and
//! the decisions of the write path, ranking for the read path, and the
//! lifecycle (consolidation, forgetting), with the traits the outer layers
//! implement (`Embedder`, `Extractor`, `Summarizer`). No I/O, no HTTP, no SQL
//! here.
//!
//! The folders show the flow; every module is also re-exported at the crate
//! root (`engram_core::policy`, `engram_core::scoring`, …), so callers do not
//! depend on the grouping:
//! - `model/`: the records and values every layer shares, and the ports;
//! - `text/`: splitting text into sentences and clauses, what a statement
//!   does (assert, ask, imagine, quote, forget), time phrases;
//! - `write/`: extraction, the write policy (screens), the decision rules;
//! - `read/`: scoring, fusing dense and lexical relevance, dates in queries;
//! - `lifecycle/`: consolidation and what a deletion leaves behind.

pub mod lifecycle;
pub mod model;
pub mod read;
pub mod text;
pub mod write;

pub use lifecycle::{consolidate, forget};
pub use model::{access, clock, cursor, embed, memory, query, session, time, validate};
pub use read::{evidence, hybrid, querytime, scoring};
pub use text::timephrase;
pub use write::{decide, extract, policy, said};

pub use access::{Access, BindingRefusal, KeyBinding, Role};
pub use clock::{Clock, ManualClock, SystemClock};
pub use cursor::Cursor;
pub use embed::{EmbedError, Embedder};
pub use evidence::{query_names, with_evidence, Evidence, SignalWeights, Surroundings};
pub use hybrid::{exact_terms, fuse, SearchMode, Signals};
pub use memory::*;
pub use query::{MemoryFilter, Page};
pub use scoring::{
    blend, rank, RankParams, Relevance, ScoreBreakdown, ScoredMemory, SearchWeights,
};
pub use validate::{FieldError, Limits};
