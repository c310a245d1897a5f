//! The embedding port. Implementations live in `engram-embed`.

use async_trait::async_trait;

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("embedding model failed: {0}")]
    Model(String),
    #[error("embedding service failed: {0}")]
    Remote(String),
    #[error("embedder returned {got} dimensions, expected {expected}")]
    Dimensions { expected: usize, got: usize },
}

/// Turns texts into unit-length vectors of a fixed dimension.
#[async_trait]
pub trait Embedder: Send + Sync {
    /// Stable identifier of the model, stored beside the vectors so that vectors
    /// from different models are never mixed silently.
    fn id(&self) -> &str;
    fn dimensions(&self) -> usize;
    /// One vector per text, in order. Implementations batch internally.
    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError>;
    /// Vectors for search queries. Models trained with a query prompt and a
    /// passage prompt (E5) embed the two differently; the rest share `embed`.
    async fn embed_queries(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        self.embed(texts).await
    }
}
