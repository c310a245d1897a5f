//! Search candidates within a scope: dense (pgvector cosine) and lexical
//! (BM25 over tsvectors); the API fuses them (`engram_core::hybrid`).

mod dense;
mod lexical;

pub use dense::{Candidate, Seeds};
