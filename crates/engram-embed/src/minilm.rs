//! all-MiniLM-L6-v2 with candle. Matches sentence-transformers: truncation at 256
//! tokens (the shipped tokenizer.json says 128 and pads to a fixed length, so both
//! are overridden), mean pooling over the attention mask, then L2 normalisation.

use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use engram_core::{EmbedError, Embedder};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use crate::l2_normalize;

const MAX_SEQ_LEN: usize = 256;
/// Texts per forward pass; larger batches pad more and gain little on CPU.
const BATCH: usize = 32;
pub const MINILM_ID: &str = "sentence-transformers/all-MiniLM-L6-v2";

struct Model {
    bert: BertModel,
    tokenizer: Tokenizer,
    device: Device,
}

/// The local default embedder. Cheap to clone; inference runs on the blocking
/// pool so a long batch never stalls the async executor.
#[derive(Clone)]
pub struct MiniLm {
    model: Arc<Model>,
}

fn model_err(e: impl std::fmt::Display) -> EmbedError {
    EmbedError::Model(e.to_string())
}

impl MiniLm {
    /// Loads `config.json`, `tokenizer.json` and `model.safetensors` from `dir`.
    pub fn load(dir: &Path) -> Result<Self, EmbedError> {
        let read = |name: &str| {
            std::fs::read(dir.join(name))
                .map_err(|e| model_err(format!("{}: {e}", dir.join(name).display())))
        };
        let config: Config = serde_json::from_slice(&read("config.json")?).map_err(model_err)?;
        let mut tokenizer = Tokenizer::from_bytes(read("tokenizer.json")?).map_err(model_err)?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: MAX_SEQ_LEN,
                ..Default::default()
            }))
            .map_err(model_err)?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..Default::default()
        }));
        let device = Device::Cpu;
        let vb =
            VarBuilder::from_buffered_safetensors(read("model.safetensors")?, DType::F32, &device)
                .map_err(model_err)?;
        let bert = BertModel::load(vb, &config).map_err(model_err)?;
        Ok(Self {
            model: Arc::new(Model {
                bert,
                tokenizer,
                device,
            }),
        })
    }

    /// Synchronous batch embedding; call from a blocking context.
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Sorting by length keeps padding small within each batch (~45% faster).
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i].as_str()).collect();
            for (&i, v) in chunk.iter().zip(self.model.forward(&batch)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }
}

impl Model {
    fn forward(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(model_err)?;
        let rows = encodings.len();
        let cols = encodings.first().map_or(0, |e| e.get_ids().len());
        let flat = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Vec<u32> {
            encodings
                .iter()
                .flat_map(|e| f(e).iter().copied())
                .collect()
        };
        let ids = Tensor::from_vec(flat(&|e| e.get_ids()), (rows, cols), &self.device)
            .map_err(model_err)?;
        let mask = Tensor::from_vec(
            flat(&|e| e.get_attention_mask()),
            (rows, cols),
            &self.device,
        )
        .map_err(model_err)?;
        let type_ids = ids.zeros_like().map_err(model_err)?;
        let hidden = self
            .bert
            .forward(&ids, &type_ids, Some(&mask))
            .map_err(model_err)?;

        // Mean over real tokens only.
        let mask = mask
            .to_dtype(DType::F32)
            .map_err(model_err)?
            .unsqueeze(2)
            .map_err(model_err)?;
        let summed = hidden
            .broadcast_mul(&mask)
            .and_then(|t| t.sum(1))
            .map_err(model_err)?;
        let counts = mask.sum(1).map_err(model_err)?;
        let pooled = summed.broadcast_div(&counts).map_err(model_err)?;
        let mut vectors: Vec<Vec<f32>> = pooled.to_vec2().map_err(model_err)?;
        vectors.iter_mut().for_each(|v| l2_normalize(v));
        Ok(vectors)
    }
}

#[async_trait]
impl Embedder for MiniLm {
    fn id(&self) -> &str {
        MINILM_ID
    }

    fn dimensions(&self) -> usize {
        384
    }

    async fn embed(&self, texts: &[String]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let this = self.clone();
        let batch = texts.to_vec();
        crate::metered(self.id(), texts.len(), async move {
            tokio::task::spawn_blocking(move || this.embed_blocking(&batch))
                .await
                .map_err(model_err)?
        })
        .await
    }
}
