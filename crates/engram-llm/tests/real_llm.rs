//! Against a real local OpenAI-compatible server (`make test-llm` starts
//! llama-cpp-python with Qwen2.5-Coder 0.5B Instruct). Checks the plumbing — request shape, the
//! json_schema -> json_object fallback, parsing, bounds — never fact quality.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use engram_core::extract::{Extractor, InputMessage, Role};
use engram_llm::{LlmConfig, LlmExtractor, ResponseFormat};

// Five shapes (a fact, a change, two facts, a preference list, nothing to
// keep): each answer takes the small model ~30 s on CI's two cores.
const MESSAGES: &[&str] = &[
    "I live in Dallas.",
    "I moved to Austin last month.",
    "My name is Priya and I work at Acme.",
    "I'm vegetarian and I love hiking.",
    "What's the weather like today?",
];

#[tokio::test]
#[ignore = "needs a local LLM server: run `make test-llm`"]
async fn a_real_small_model_answers_in_the_schema() {
    let url =
        std::env::var("ENGRAM_TEST_LLM_URL").expect("ENGRAM_TEST_LLM_URL (make test-llm sets it)");
    let e = LlmExtractor::new(LlmConfig {
        base_url: url,
        model: std::env::var("ENGRAM_TEST_LLM_MODEL").unwrap_or_else(|_| "local".into()),
        timeout: Duration::from_secs(120),
        response_format: ResponseFormat::Auto,
        max_facts: 3,
        max_tokens: 300,
        ..LlmConfig::default()
    });
    let mut ok = 0;
    let mut times = Vec::new();
    for text in MESSAGES {
        let msg = InputMessage {
            role: Role::User,
            content: (*text).into(),
            created_at: chrono::Utc::now(),
        };
        let started = Instant::now();
        match e.extract(&[msg]).await {
            Ok(facts) => {
                ok += 1;
                assert!(facts.len() <= 3);
                eprintln!(
                    "{text:?} -> {:?}",
                    facts
                        .iter()
                        .map(|f| (&f.attribute, &f.value))
                        .collect::<Vec<_>>()
                );
            }
            Err(err) => eprintln!("{text:?} -> error: {err}"),
        }
        times.push(started.elapsed().as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    eprintln!(
        "schema-valid answers: {ok}/{}; seconds per message: median {:.2}, max {:.2}",
        MESSAGES.len(),
        times[times.len() / 2],
        times[times.len() - 1]
    );
    assert!(
        ok * 10 >= MESSAGES.len() * 8,
        "only {ok}/{} answers parsed",
        MESSAGES.len()
    );
}
