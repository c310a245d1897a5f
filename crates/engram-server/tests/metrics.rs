//! `GET /metrics`: what a Prometheus scrape sees after real traffic, with the
//! LLM a local mock. The recorder is process-wide, so tests here assert
//! lower bounds and label sets, not exact totals.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::sync::Arc;

use common::fast_workers;
use serde_json::json;
use sqlx::PgPool;

/// The value of the first sample of `name` whose labels include all of `labels`.
fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find(|l| {
            let (series, _) = l.rsplit_once(' ').unwrap_or((l, ""));
            (series == name || series.starts_with(&format!("{name}{{")))
                && labels
                    .iter()
                    .all(|(k, v)| series.contains(&format!("{k}=\"{v}\"")))
        })
        .and_then(|l| l.rsplit_once(' ')?.1.parse().ok())
}

async fn scrape(app: &common::TestApp) -> String {
    let resp = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    resp.text().await.unwrap()
}

struct FakeModel;

impl wiremock::Respond for FakeModel {
    fn respond(&self, _: &wiremock::Request) -> wiremock::ResponseTemplate {
        let facts = json!({"facts": [{"statement": "User lives in Oslo.", "subject": "user",
            "attribute": "location.city", "value": "Oslo", "kind": "semantic", "importance": 0.8,
            "confidence": 0.9, "sensitivity": null, "valid_for_days": null, "stated": true, "message_index": 0}]});
        wiremock::ResponseTemplate::new(200).set_body_json(json!({
            "id": "x", "object": "chat.completion", "created": 0, "model": "fake",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": facts.to_string()}}],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150}
        }))
    }
}

#[sqlx::test(migrations = false)]
async fn a_scrape_shows_requests_embedding_jobs_extraction_and_llm_use(pool: PgPool) {
    let server = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(FakeModel)
        .mount(&server)
        .await;
    let llm = engram_llm::LlmExtractor::new(engram_llm::LlmConfig {
        base_url: format!("{}/v1", server.uri()),
        model: "metrics-model".into(),
        timeout: std::time::Duration::from_secs(2),
        ..Default::default()
    });
    let app = common::TestApp::builder(pool)
        .workers(fast_workers(1))
        .extractor(Arc::new(llm))
        .spawn()
        .await;

    app.infer("m", "I live in Oslo.").await;
    app.search(json!({"user_id": "m", "query": "where do I live"}))
        .await;
    let bad = app
        .post("/v1/memories/search", json!({"user_id": "m"}))
        .await;
    assert_eq!(bad.status, 422);

    let resp = app.client.get(app.url("/metrics")).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/plain; version=0.0.4"));
    let text = resp.text().await.unwrap();
    let at_least = |name: &str, labels: &[(&str, &str)], min: f64| {
        let v = sample(&text, name, labels);
        assert!(
            v.is_some_and(|v| v >= min),
            "{name} {labels:?} = {v:?}, wanted ≥ {min}\n{text}"
        );
    };
    let search = [("route", "/v1/memories/search"), ("method", "POST")];
    at_least(
        "engram_http_requests_total",
        &[search[0], search[1], ("status", "200")],
        1.0,
    );
    at_least(
        "engram_http_requests_total",
        &[search[0], ("status", "422")],
        1.0,
    );
    at_least(
        "engram_http_request_duration_seconds_count",
        &[search[0], ("status", "200")],
        1.0,
    );
    // Histogram buckets, not a summary.
    assert!(
        text.contains("engram_http_request_duration_seconds_bucket{"),
        "{text}"
    );
    at_least("engram_embed_duration_seconds_count", &[], 2.0);
    at_least("engram_embed_batch_size_count", &[], 2.0);
    at_least(
        "engram_jobs_total",
        &[("kind", "extract"), ("outcome", "done")],
        1.0,
    );
    at_least("engram_extraction_facts_total", &[("event", "ADD")], 1.0);
    let llm = [("model", "metrics-model"), ("purpose", "extract")];
    at_least(
        "engram_llm_requests_total",
        &[llm[0], llm[1], ("outcome", "ok")],
        1.0,
    );
    at_least(
        "engram_llm_tokens_total",
        &[llm[0], llm[1], ("type", "prompt")],
        120.0,
    );
    at_least(
        "engram_llm_tokens_total",
        &[llm[0], llm[1], ("type", "completion")],
        30.0,
    );
    at_least("engram_db_pool_max_connections", &[], 1.0);
    at_least("engram_db_pool_connections", &[("state", "idle")], 0.0);

    // Routes are templates: no ids, users or content in any label.
    let id = app.add_text("m", "secret-content-marker").await;
    app.get(&format!("/v1/memories/{id}")).await;
    let text = scrape(&app).await;
    assert!(text.contains("route=\"/v1/memories/{id}\""), "{text}");
    for secret in [id.as_str(), "secret-content-marker", "Oslo", "\"m\""] {
        assert!(!text.contains(secret), "{secret} leaked into /metrics");
    }
}

#[sqlx::test(migrations = false)]
async fn queue_depth_and_the_oldest_job_are_read_at_scrape_time(pool: PgPool) {
    let app = common::spawn_app(pool).await;
    // Stop the workers so queued jobs stay queued.
    app.stop_workers.send(true).unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    for text in ["I live in Rome.", "I work at Acme."] {
        let r = app
            .post(
                "/v1/memories",
                json!({"user_id": "q", "messages": [{"role": "user", "content": text}]}),
            )
            .await;
        assert_eq!(r.status, 202, "{}", r.body);
    }
    sqlx::query("UPDATE jobs SET created_at = now() - interval '90 seconds'")
        .execute(&app.pool)
        .await
        .unwrap();
    let text = scrape(&app).await;
    let queued = [("kind", "extract"), ("status", "queued")];
    assert_eq!(
        sample(&text, "engram_jobs_queued", &queued),
        Some(2.0),
        "{text}"
    );
    let age = sample(&text, "engram_jobs_oldest_age_seconds", &queued).unwrap();
    assert!((90.0..120.0).contains(&age), "{age}");
}

#[sqlx::test(migrations = false)]
async fn responses_say_where_the_time_went(pool: PgPool) {
    let app = common::spawn_app(pool).await;
    let timing = |resp: &reqwest::Response| -> (f64, f64) {
        let header = resp.headers()["server-timing"].to_str().unwrap().to_owned();
        let dur = |name: &str| -> f64 {
            header
                .split(", ")
                .find_map(|p| p.strip_prefix(&format!("{name};dur=")))
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} in {header}"))
        };
        (dur("embed"), dur("total"))
    };
    let search = app
        .client
        .post(app.url("/v1/memories/search"))
        .bearer_auth(common::KEY)
        .json(&json!({"user_id": "t", "query": "a question never asked before 8137"}))
        .send()
        .await
        .unwrap();
    let (embed, total) = timing(&search);
    assert!(embed > 0.0 && embed <= total, "{embed} {total}");
    let health = app.client.get(app.url("/healthz")).send().await.unwrap();
    let (embed, total) = timing(&health);
    assert!(embed == 0.0 && total >= 0.0);
}
