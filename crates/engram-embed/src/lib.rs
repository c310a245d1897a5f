//! Embedders behind `engram_core::Embedder`:
//! - [`MiniLm`]: all-MiniLM-L6-v2 in-process with candle + tokenizers (pure Rust,
//!   no network), reproducing sentence-transformers' vectors;
//! - [`OpenAiEmbedder`]: any OpenAI-compatible `/embeddings` endpoint (OpenAI,
//!   Ollama, vLLM, llama.cpp) through async-openai;
//! - [`CachedEmbedder`]: a small LRU in front of either, for repeated query texts.

mod cache;
mod minilm;
mod openai;

pub use cache::CachedEmbedder;
pub use minilm::MiniLm;
pub use openai::{OpenAiEmbedder, OpenAiEmbedderConfig};

/// Scales a vector to unit length (a zero vector stays zero).
pub(crate) fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
