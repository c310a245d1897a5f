//! The OpenAI-compatible embedder against a scripted local mock server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use engram_core::{EmbedError, Embedder};
use engram_embed::{OpenAiEmbedder, OpenAiEmbedderConfig};
use serde_json::{json, Value};
use wiremock::matchers::{body_partial_json, header, method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// Answers with vectors [len(text), 1, 0...] in reverse index order, as servers may.
struct Reversed {
    dims: usize,
}

impl Respond for Reversed {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&req.body).unwrap();
        let inputs: Vec<String> = serde_json::from_value(body["input"].clone()).unwrap();
        let mut data: Vec<Value> = inputs
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let mut v = vec![0.0f32; self.dims];
                v[0] = t.len() as f32;
                v[1] = 1.0;
                json!({"object": "embedding", "index": i, "embedding": v})
            })
            .collect();
        data.reverse();
        ResponseTemplate::new(200).set_body_json(json!({
            "object": "list", "model": "mock-embed", "data": data,
            "usage": {"prompt_tokens": 1, "total_tokens": 1}
        }))
    }
}

fn embedder(server: &MockServer, dims: usize) -> OpenAiEmbedder {
    OpenAiEmbedder::new(OpenAiEmbedderConfig {
        base_url: format!("{}/v1", server.uri()),
        api_key: Some("sk-test".into()),
        model: "mock-embed".into(),
        dimensions: dims,
        request_dimensions: true,
    })
}

#[tokio::test]
async fn embeds_a_batch_in_one_request_in_input_order() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/embeddings"))
        .and(header("authorization", "Bearer sk-test"))
        .and(body_partial_json(
            json!({"model": "mock-embed", "dimensions": 8}),
        ))
        .respond_with(Reversed { dims: 8 })
        .expect(1)
        .mount(&server)
        .await;
    let e = embedder(&server, 8);
    assert_eq!(e.id(), "openai-compatible:mock-embed:8");
    let out = e.embed(&["a".into(), "abc".into()]).await.unwrap();
    // [1,1] and [3,1], normalised.
    assert!((out[0][0] - 1.0 / 2f32.sqrt()).abs() < 1e-6);
    assert!((out[1][0] - 3.0 / 10f32.sqrt()).abs() < 1e-6);
    for v in &out {
        assert!((v.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
    }
}

#[tokio::test]
async fn wrong_dimensions_and_server_errors_are_errors() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(Reversed { dims: 4 })
        .mount(&server)
        .await;
    let err = embedder(&server, 8).embed(&["a".into()]).await.unwrap_err();
    assert!(
        matches!(
            err,
            EmbedError::Dimensions {
                expected: 8,
                got: 4
            }
        ),
        "{err:?}"
    );

    let failing = MockServer::start().await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(400).set_body_json(
            json!({"error": {"message": "bad model", "type": "invalid_request_error"}}),
        ))
        .mount(&failing)
        .await;
    let err = embedder(&failing, 8)
        .embed(&["a".into()])
        .await
        .unwrap_err();
    assert!(
        matches!(err, EmbedError::Remote(ref m) if m.contains("bad model")),
        "{err:?}"
    );
}
