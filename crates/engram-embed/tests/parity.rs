//! The local embedder reproduces sentence-transformers' vectors for
//! all-MiniLM-L6-v2 (reference file in ../shared; skipped when it is absent).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use engram_core::Embedder;
use engram_embed::MiniLm;

#[derive(serde::Deserialize)]
struct Reference {
    dims: usize,
    items: Vec<Item>,
}

#[derive(serde::Deserialize)]
struct Item {
    text: String,
    embedding: Vec<f32>,
}

fn model_dir() -> PathBuf {
    let dir = std::env::var("ENGRAM_EMBED_MODEL_DIR")
        .expect("ENGRAM_EMBED_MODEL_DIR is not set: run the tests with `make test`, which installs the model");
    PathBuf::from(dir)
}

fn reference() -> Option<Reference> {
    let shared = std::env::var("ENGRAM_SHARED_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared"));
    let path = shared.join("data/minilm-reference.json");
    match std::fs::read(&path) {
        Ok(bytes) => Some(serde_json::from_slice(&bytes).expect("reference file parses")),
        Err(_) => {
            eprintln!("skipped: {} is absent", path.display());
            None
        }
    }
}

#[tokio::test]
async fn minilm_matches_sentence_transformers_within_1e5() {
    let Some(reference) = reference() else { return };
    assert_eq!(reference.items.len(), 21);
    let model = MiniLm::load(&model_dir()).expect("model loads");
    assert_eq!(model.dimensions(), reference.dims);
    let texts: Vec<String> = reference.items.iter().map(|i| i.text.clone()).collect();

    // One batch (padding and length sorting in play) and one text at a time.
    let batched = model.embed(&texts).await.expect("batch embeds");
    let mut worst = 0f32;
    for (i, item) in reference.items.iter().enumerate() {
        let single = model
            .embed(std::slice::from_ref(&item.text))
            .await
            .expect("single embeds")
            .remove(0);
        for got in [&batched[i], &single] {
            assert_eq!(got.len(), reference.dims);
            let diff = got
                .iter()
                .zip(&item.embedding)
                .map(|(a, b)| (a - b).abs())
                .fold(0f32, f32::max);
            assert!(
                diff < 1e-5,
                "text {i} ({:?}): max abs difference {diff}",
                item.text
            );
            worst = worst.max(diff);
        }
    }
    eprintln!("max abs difference over 21 texts, batched and single: {worst:e}");
}

#[tokio::test]
async fn long_texts_are_truncated_not_rejected() {
    let model = MiniLm::load(&model_dir()).expect("model loads");
    let long = "memory ".repeat(2_000);
    let v = model.embed(&[long]).await.expect("embeds");
    let norm: f32 = v[0].iter().map(|x| x * x).sum::<f32>().sqrt();
    assert!((norm - 1.0).abs() < 1e-4);
}
