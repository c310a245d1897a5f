//! The short-term window rule lives in engram-core (`session::window_start`),
//! where the store uses it too.

pub use engram_core::session::window_start;
