//! Embeddings from any OpenAI-compatible endpoint.

use std::time::Duration;

use async_openai::config::OpenAIConfig;
use async_openai::types::embeddings::{CreateEmbeddingRequestArgs, EmbeddingInput};
use async_openai::Client;
use async_trait::async_trait;
use engram_core::{EmbedError, Embedder};

use crate::l2_normalize;

/// Inputs per HTTP request; OpenAI accepts up to 2048.
const BATCH: usize = 256;

#[derive(Debug, Clone)]
pub struct OpenAiEmbedderConfig {
    /// e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub dimensions: usize,
    /// Send `dimensions` in the request (text-embedding-3 models can shorten vectors;
    /// most local servers reject the field).
    pub request_dimensions: bool,
}

pub struct OpenAiEmbedder {
    client: Client<OpenAIConfig>,
    config: OpenAiEmbedderConfig,
    id: String,
}

impl OpenAiEmbedder {
    pub fn new(config: OpenAiEmbedderConfig) -> Self {
        let mut oc = OpenAIConfig::new().with_api_base(config.base_url.trim_end_matches('/'));
        // async-openai falls back to OPENAI_API_KEY; an explicit empty key keeps
        // keyless local servers keyless.
        oc = oc.with_api_key(config.api_key.clone().unwrap_or_default());
        let id = format!("openai-compatible:{}:{}", config.model, config.dimensions);
        // A hung endpoint must not hold a request forever (async-openai sets no timeout).
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(30))
            .build()
            .unwrap_or_default();
        Self {
            client: Client::with_config(oc).with_http_client(http),
            config,
            id,
        }
    }
}

#[async_trait]
impl Embedder for OpenAiEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dimensions(&self) -> usize {
        self.config.dimensions
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            out.extend(crate::metered(self.id(), chunk.len(), self.embed_chunk(chunk)).await?);
        }
        Ok(out)
    }
}

impl OpenAiEmbedder {
    /// One request of at most BATCH texts.
    async fn embed_chunk(&self, chunk: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(chunk.len());
        let mut args = CreateEmbeddingRequestArgs::default();
        args.model(self.config.model.clone())
            .input(EmbeddingInput::StringArray(chunk.to_vec()));
        if self.config.request_dimensions {
            args.dimensions(self.config.dimensions as u32);
        }
        let request = args.build().map_err(|e| {
            EmbedError::Remote(engram_core::policy::without_url_credentials(&e.to_string()))
        })?;
        let mut response = self
            .client
            .embeddings()
            .create(request)
            .await
            .map_err(|e| {
                EmbedError::Remote(engram_core::policy::without_url_credentials(&e.to_string()))
            })?;
        if response.data.len() != chunk.len() {
            return Err(EmbedError::Remote(format!(
                "asked for {} embeddings, got {}",
                chunk.len(),
                response.data.len()
            )));
        }
        response.data.sort_by_key(|e| e.index);
        for e in response.data {
            if e.embedding.len() != self.config.dimensions {
                return Err(EmbedError::Dimensions {
                    expected: self.config.dimensions,
                    got: e.embedding.len(),
                });
            }
            let mut v = e.embedding;
            l2_normalize(&mut v);
            out.push(v);
        }
        Ok(out)
    }
}
