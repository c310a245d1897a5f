//! Engram's domain: memory types and validated values, scoring, and the traits
//! the outer layers implement (`Embedder`). No I/O, no HTTP, no SQL here.

pub mod access;
pub mod clock;
pub mod consolidate;
pub mod cursor;
pub mod decide;
pub mod embed;
pub mod extract;
pub mod forget;
pub mod hybrid;
pub mod memory;
pub mod policy;
pub mod query;
pub mod querytime;
pub mod scoring;
pub mod session;
pub mod text;
pub mod time;
pub mod timephrase;
pub mod validate;

pub use access::{Access, BindingRefusal, KeyBinding, Role};
pub use clock::{Clock, ManualClock, SystemClock};
pub use cursor::Cursor;
pub use embed::{EmbedError, Embedder};
pub use hybrid::{exact_terms, fuse, SearchMode, Signals};
pub use memory::*;
pub use query::{MemoryFilter, Page};
pub use scoring::{
    blend, rank, RankParams, Relevance, ScoreBreakdown, ScoredMemory, SearchWeights,
};
pub use validate::{FieldError, Limits};
