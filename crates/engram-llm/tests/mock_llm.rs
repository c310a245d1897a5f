//! The LLM extractor against a scripted OpenAI-compatible mock server.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use engram_core::extract::{ExtractError, Extractor, InputMessage, Role};
use engram_llm::{LlmConfig, LlmExtractor, ResponseFormat};
use serde_json::{json, Value};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

fn reply(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "x", "object": "chat.completion", "created": 0, "model": "mock",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
    }))
}

const GOOD: &str = r#"{"facts": [{"statement": "User lives in Austin.", "subject": "user", "attribute": "location.city", "value": "Austin", "kind": "semantic", "importance": 0.8, "confidence": 0.9, "sensitivity": null, "valid_for_days": null, "stated": true, "message_index": 0}]}"#;

/// Answers with `script[i]` on the i-th call (the last one repeats) and keeps the requests.
struct Script {
    replies: Vec<ResponseTemplate>,
    calls: AtomicUsize,
    seen: Arc<std::sync::Mutex<Vec<Value>>>,
}

impl Respond for Script {
    fn respond(&self, req: &Request) -> ResponseTemplate {
        // The body as parsed, and as sent (`__raw`: its key order).
        let mut body: Value = serde_json::from_slice(&req.body).unwrap();
        body["__raw"] = Value::String(String::from_utf8_lossy(&req.body).into_owned());
        self.seen.lock().unwrap().push(body);
        let i = self
            .calls
            .fetch_add(1, Ordering::SeqCst)
            .min(self.replies.len() - 1);
        self.replies[i].clone()
    }
}

async fn mock(replies: Vec<ResponseTemplate>) -> (MockServer, Arc<std::sync::Mutex<Vec<Value>>>) {
    let server = MockServer::start().await;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(Script {
            replies,
            calls: AtomicUsize::new(0),
            seen: seen.clone(),
        })
        .mount(&server)
        .await;
    (server, seen)
}

fn extractor(server: &MockServer, format: ResponseFormat) -> LlmExtractor {
    LlmExtractor::new(LlmConfig {
        base_url: format!("{}/v1", server.uri()),
        model: "mock".into(),
        timeout: Duration::from_secs(2),
        response_format: format,
        ..LlmConfig::default()
    })
}

fn said(text: &str) -> Vec<InputMessage> {
    vec![InputMessage {
        role: Role::User,
        content: text.into(),
        created_at: "2026-11-30T10:00:00Z".parse().unwrap(),
    }]
}

#[tokio::test]
async fn good_structured_output_becomes_candidates() {
    let (server, seen) = mock(vec![reply(GOOD)]).await;
    let e = extractor(&server, ResponseFormat::Auto);
    let facts = e.extract(&said("I moved to Austin.")).await.unwrap();
    assert_eq!(facts.len(), 1);
    assert_eq!(facts[0].attribute, "location.city");
    assert_eq!(facts[0].value, "Austin");
    assert_eq!(e.prompt_version(), Some("extract-v4"));
    let req = &seen.lock().unwrap()[0];
    assert_eq!(req["model"], "mock");
    assert_eq!(req["response_format"]["type"], "json_schema");
    assert_eq!(req["response_format"]["json_schema"]["strict"], true);
    // A decoder writes a fact's properties in the schema's order: the
    // statement before the action, as sent.
    let raw = req["__raw"].as_str().unwrap();
    let (statement, action) = (
        raw.find(r#""statement":"#).unwrap(),
        raw.find(r#""action":"#).unwrap(),
    );
    assert!(statement < action, "{raw}");
    assert!(req["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains("[0] user (2026-11-30): I moved to Austin."));
}

#[tokio::test]
async fn an_endpoint_that_refuses_json_schema_gets_json_object_with_the_schema_in_the_prompt() {
    // llama.cpp's server answers 500 to json_schema; async-openai retries 5xx a few times first.
    let refuse = ResponseTemplate::new(500).set_body_json(
        json!({"error": {"message": "json_schema not supported", "type": "server_error"}}),
    );
    let server = MockServer::start().await;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    struct ByFormat(ResponseTemplate, Arc<std::sync::Mutex<Vec<Value>>>);
    impl Respond for ByFormat {
        fn respond(&self, req: &Request) -> ResponseTemplate {
            let body: Value = serde_json::from_slice(&req.body).unwrap();
            let schema = body["response_format"]["type"] == "json_schema";
            self.1.lock().unwrap().push(body);
            if schema {
                self.0.clone()
            } else {
                reply(GOOD)
            }
        }
    }
    Mock::given(method("POST"))
        .respond_with(ByFormat(refuse, seen.clone()))
        .mount(&server)
        .await;
    let e = extractor(&server, ResponseFormat::Auto);
    assert_eq!(
        e.extract(&said("I moved to Austin.")).await.unwrap().len(),
        1
    );
    let n_first = seen.lock().unwrap().len();
    let last = seen.lock().unwrap().last().unwrap().clone();
    assert_eq!(last["response_format"]["type"], "json_object");
    assert!(
        last["messages"][0]["content"]
            .as_str()
            .unwrap()
            .contains("\"valid_for_days\""),
        "schema is in the prompt"
    );
    // Later calls go straight to json_object.
    e.extract(&said("I moved to Austin.")).await.unwrap();
    assert_eq!(seen.lock().unwrap().len(), n_first + 1);

    // The probe at start finds the same, in one tiny request.
    let config = LlmConfig {
        base_url: format!("{}/v1", server.uri()),
        model: "mock".into(),
        timeout: Duration::from_secs(2),
        ..LlmConfig::default()
    };
    assert_eq!(
        engram_llm::probe_response_format(&config).await,
        Ok(ResponseFormat::JsonObject)
    );
    let last = seen.lock().unwrap().last().unwrap().clone();
    assert_eq!(last["max_tokens"], 16);
    assert_eq!(last["response_format"]["type"], "json_schema");
    // An endpoint that takes json_schema is found to.
    let (good, _) = mock(vec![reply(r#"{"ok": true}"#)]).await;
    let config = LlmConfig {
        base_url: format!("{}/v1", good.uri()),
        ..config
    };
    assert_eq!(
        engram_llm::probe_response_format(&config).await,
        Ok(ResponseFormat::JsonSchema)
    );
    // One that cannot be reached is an error, with no credentials in it.
    let down = LlmConfig {
        base_url: "http://me:pa55@127.0.0.1:9/v1".into(),
        ..config
    };
    let err = engram_llm::probe_response_format(&down).await.unwrap_err();
    assert!(!err.contains("pa55"), "{err}");
}

#[tokio::test]
async fn prose_and_code_fences_around_the_json_are_tolerated() {
    let (server, _) = mock(vec![reply(&format!(
        "Sure! Here you go:\n```json\n{GOOD}\n```"
    ))])
    .await;
    assert_eq!(
        extractor(&server, ResponseFormat::JsonObject)
            .extract(&said("I moved to Austin."))
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn malformed_json_is_repaired_once() {
    let (server, seen) = mock(vec![
        reply("{\"facts\": [{\"statement\": \"User lives in"),
        reply(GOOD),
    ])
    .await;
    let facts = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin."))
        .await
        .unwrap();
    assert_eq!(facts.len(), 1);
    let repair = &seen.lock().unwrap()[1];
    let last = repair["messages"].as_array().unwrap().last().unwrap();
    assert!(
        last["content"].as_str().unwrap().contains("not valid"),
        "{last}"
    );
}

#[tokio::test]
async fn output_that_stays_invalid_is_an_error_not_a_silent_drop() {
    let bad = r#"{"facts": [{"statement": "", "subject": "user", "attribute": "!!!", "value": "Austin", "kind": "semantic", "importance": 0.5, "confidence": 0.9, "sensitivity": null, "valid_for_days": null, "stated": true, "message_index": 0}]}"#;
    let (server, seen) = mock(vec![reply(bad)]).await;
    let err = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin."))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ExtractError::Output(m) if m.contains("statement") && m.contains("after one repair")),
        "{err:?}"
    );
    assert_eq!(seen.lock().unwrap().len(), 2, "one call and one repair");

    let (server, _) = mock(vec![reply(r#"{"facts": [{"statement": 5}]}"#)]).await;
    let err = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("hello"))
        .await
        .unwrap_err();
    assert!(matches!(err, ExtractError::Output(_)), "{err:?}");

    let (server, _) = mock(vec![reply("I cannot help with that.")]).await;
    let err = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("hello"))
        .await
        .unwrap_err();
    assert!(matches!(err, ExtractError::Output(_)), "{err:?}");
}

#[tokio::test]
async fn sloppy_keys_and_numbers_are_normalised() {
    let sloppy = r#"{"facts": [{"statement": "User lives in Austin.", "subject": "User", "attribute": "Location City!", "value": "Austin", "kind": "semantic", "importance": 8, "confidence": 95, "sensitivity": null, "valid_for_days": null, "stated": true, "message_index": 7}, {"statement": "User goes bouldering.", "attribute": "Hobby Climbing!", "value": "bouldering", "action": "assert", "valid_for_days": null, "sensitivity": null}]}"#;
    let (server, _) = mock(vec![reply(sloppy)]).await;
    let facts = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin and go bouldering."))
        .await
        .unwrap();
    // The rules read the statement back ("I live in Austin."): their key.
    assert_eq!(facts[0].attribute, "location.city");
    assert_eq!(facts[0].subject, "user");
    // One they cannot read keeps the model's, normalised; the fields the
    // compact answer leaves out are derived.
    assert_eq!(facts[1].attribute, "hobby_climbing");
    assert!(facts[1].stated, "the message holds its value");
    assert!((facts[1].importance - 0.5).abs() < 1e-6);
    assert!((facts[0].importance - 0.8).abs() < 1e-6);
    assert!((facts[0].confidence - 0.95).abs() < 1e-6);
    assert_eq!(facts[0].message_index, 0);
}

#[tokio::test]
async fn rate_limits_server_errors_and_timeouts_are_service_errors() {
    let limited = ResponseTemplate::new(429)
        .set_body_json(json!({"error": {"message": "slow down", "type": "rate_limit_error"}}));
    let (server, seen) = mock(vec![limited]).await;
    let err = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin."))
        .await
        .unwrap_err();
    assert!(matches!(err, ExtractError::Service(_)), "{err:?}");
    assert!(
        seen.lock().unwrap().len() > 1,
        "429 is retried before giving up"
    );

    let (server, _) = mock(vec![ResponseTemplate::new(500).set_body_string("boom")]).await;
    let err = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin."))
        .await
        .unwrap_err();
    assert!(matches!(err, ExtractError::Service(_)), "{err:?}");

    let (server, _) = mock(vec![reply(GOOD).set_delay(Duration::from_secs(5))]).await;
    let started = std::time::Instant::now();
    let err = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin."))
        .await
        .unwrap_err();
    assert!(matches!(err, ExtractError::Service(_)), "{err:?}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the timeout bounds the call"
    );
}

#[tokio::test]
async fn output_is_bounded_and_time_comes_from_the_message() {
    let many: Vec<Value> = (0..50)
        .map(|i| json!({"statement": format!("User likes thing {i}."), "subject": "user", "attribute": format!("likes.thing_{i}"), "value": "likes", "kind": "semantic", "importance": 0.5, "confidence": 0.9, "sensitivity": null, "valid_for_days": null, "stated": true, "message_index": 0}))
        .collect();
    let (server, _) = mock(vec![reply(&json!({"facts": many}).to_string())]).await;
    assert_eq!(
        extractor(&server, ResponseFormat::JsonObject)
            .extract(&said("Many things, as listed."))
            .await
            .unwrap()
            .len(),
        20
    );

    let stay = r#"{"facts": [{"statement": "User is staying in Lisbon.", "subject": "user", "attribute": "location.current", "value": "Lisbon", "kind": "semantic", "importance": 0.5, "confidence": 0.9, "sensitivity": null, "valid_for_days": 30, "stated": true, "message_index": 0}]}"#;
    let (server, _) = mock(vec![reply(stay)]).await;
    let facts = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I'm in Lisbon until Friday"))
        .await
        .unwrap();
    assert_eq!(
        facts[0].expires_at,
        Some("2026-12-04T23:59:59Z".parse().unwrap())
    );
}

fn cut_off(content: &str) -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "id": "x", "object": "chat.completion", "created": 0, "model": "mock",
        "choices": [{"index": 0, "finish_reason": "length", "message": {"role": "assistant", "content": content}}]
    }))
}

/// The last message of the `n`-th request: what the repair prompt said.
fn repair_prompt(seen: &std::sync::Mutex<Vec<Value>>, n: usize) -> String {
    let seen = seen.lock().unwrap();
    let messages = seen[n]["messages"].as_array().unwrap();
    messages.last().unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn an_answer_cut_off_at_max_tokens_is_repaired_shorter_or_ends_visibly() {
    // Cut off, though what came before the cut parses: never taken as whole.
    let partial = r#"{"facts": []}"#;
    let (server, seen) = mock(vec![cut_off(partial), reply(GOOD)]).await;
    let facts = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin."))
        .await
        .unwrap();
    assert_eq!(facts.len(), 1);
    let prompt = repair_prompt(&seen, 1);
    assert!(
        prompt.contains("cut off") && prompt.contains("shorter"),
        "{prompt}"
    );

    let truncated = &GOOD[..GOOD.len() / 2];
    let (server, seen) = mock(vec![cut_off(truncated)]).await;
    let err = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin."))
        .await
        .unwrap_err();
    let ExtractError::Output(m) = &err else {
        panic!("{err:?}")
    };
    assert!(
        m.contains("cut off at max_tokens (1500)") && m.contains("after one repair"),
        "{m}"
    );
    assert!(m.contains("retry"), "{m}");
    assert!(!m.contains("Austin"), "the error quotes nothing: {m}");
    assert_eq!(seen.lock().unwrap().len(), 2, "one call and one repair");
}

#[tokio::test]
async fn an_empty_answer_is_asked_again_then_ends_visibly() {
    let (server, seen) = mock(vec![reply(""), reply(GOOD)]).await;
    let facts = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin."))
        .await
        .unwrap();
    assert_eq!(facts.len(), 1);
    assert!(repair_prompt(&seen, 1).contains("empty"));

    // No content at all (null), twice.
    let null = ResponseTemplate::new(200).set_body_json(json!({
        "id": "x", "object": "chat.completion", "created": 0, "model": "mock",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": null}}]
    }));
    let (server, _) = mock(vec![null]).await;
    let err = extractor(&server, ResponseFormat::JsonObject)
        .extract(&said("I moved to Austin."))
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ExtractError::Output(m) if m.contains("answer was empty")),
        "{err:?}"
    );
}

/// Off-schema answers quote what the model wrote, and the model quotes the
/// user: the repair prompt may show it, the job's error may not.
#[tokio::test]
async fn an_off_schema_answer_is_named_without_quoting_it() {
    let secret = "hunter2-Tulpen4711";
    for bad in [
        format!(r#"{{"facts": [{{"statement": ["{secret}"], "attribute": "x", "value": "y"}}]}}"#),
        format!(
            r#"{{"facts": [{{"statement": "s", "attribute": "x", "value": "y", "kind": {{"{secret}": 1}}}}]}}"#
        ),
        format!(r#"{{"facts": "{secret}"}}"#),
        format!(r#"{{"{secret}": []}}"#),
        format!(
            r#"{{"facts": [{{"statement": "{secret}", "attribute": "x", "value": "y", "action": "{secret}"}}]}}"#
        ),
    ] {
        let (server, seen) = mock(vec![reply(&bad)]).await;
        let err = extractor(&server, ResponseFormat::JsonObject)
            .extract(&said(&format!("My password is {secret}")))
            .await
            .unwrap_err();
        let ExtractError::Output(m) = &err else {
            panic!("{bad}: {err:?}")
        };
        assert!(m.contains("after one repair"), "{bad}: {m}");
        assert!(
            !m.contains("hunter2") && !m.contains("Tulpen"),
            "{bad}: {m}"
        );
        assert_eq!(seen.lock().unwrap().len(), 2, "{bad}");
    }
}
