//! engram-bench-embed-server: Engram's local embedder (all-MiniLM-L6-v2,
//! candle) behind the OpenAI embeddings API, so that a peer measured beside
//! Engram (Mem0 in `make bench-extraction`) embeds with exactly the same
//! model and code.
//!
//! ```sh
//! . .data/env && cargo run --release -p engram-bench --bin engram-bench-embed-server -- 127.0.0.1:8432
//! curl -s 127.0.0.1:8432/v1/embeddings -d '{"input": ["I live in Oslo."]}'
//! ```
//!
//! Only for benchmarks on loopback: no key, no limits beyond axum's body cap.

use std::sync::Arc;

use axum::{extract::State, http::StatusCode, routing::post, Json, Router};
use engram_core::Embedder;
use serde_json::{json, Value};

async fn embeddings(
    State(model): State<Arc<engram_embed::MiniLm>>,
    Json(body): Json<Value>,
) -> Result<Json<Value>, (StatusCode, String)> {
    let bad = |m: &str| (StatusCode::BAD_REQUEST, m.to_owned());
    let texts: Vec<String> = match &body["input"] {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map(String::from))
            .collect::<Option<_>>()
            .ok_or_else(|| bad("input: strings only"))?,
        _ => return Err(bad("input: a string or an array of strings")),
    };
    let vectors = model
        .embed(&texts)
        .await
        .map_err(|e| (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    let data: Vec<Value> = vectors
        .into_iter()
        .enumerate()
        .map(|(index, v)| json!({"object": "embedding", "index": index, "embedding": v}))
        .collect();
    Ok(Json(json!({
        "object": "list",
        "model": "all-MiniLM-L6-v2",
        "data": data,
        "usage": {"prompt_tokens": 0, "total_tokens": 0},
    })))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8432".into());
    let dir = std::env::var("ENGRAM_EMBED_MODEL_DIR").unwrap_or_else(|_| ".data/model".into());
    let model = Arc::new(engram_embed::MiniLm::load(dir.as_ref())?);
    let app = Router::new()
        .route("/v1/embeddings", post(embeddings))
        .with_state(model);
    let listener = tokio::net::TcpListener::bind(&address).await?;
    eprintln!("embeddings on http://{address}/v1");
    axum::serve(listener, app).await?;
    Ok(())
}
