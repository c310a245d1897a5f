//! What a chat model should see right now: token counting, the session
//! window, extractive summaries and the context block. Pure logic, no I/O.

pub mod block;
pub mod lines;
pub mod summary;
pub mod tokens;
pub mod window;

pub use block::{assemble, Block, Candidates, Part, Recalled, Section};
pub use engram_core::session::{SummarizeError, Summarizer, Turn};
pub use summary::{extractive, fit, ExtractiveSummarizer};
pub use tokens::{Encoding, TokenCounter};
pub use window::window_start;
