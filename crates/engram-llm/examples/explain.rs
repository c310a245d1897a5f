//! What the LLM extractor makes of one message, stage by stage: the model's
//! facts, each check after the model, the rules beside it, and the
//! per-candidate checks the worker applies. For tuning the prompt and the
//! checks on the development half; it calls the model and prints what the
//! user wrote, so it is a developer's tool, never run by the server.
//!
//! ```sh
//! ENGRAM_LLM_BASE_URL=http://127.0.0.1:8433/v1 ENGRAM_LLM_MODEL=qwen2.5-coder-0.5b-instruct \
//!   cargo run -q -p engram-llm --example explain -- [--raw] "I moved to Lyon." ["another message" …]
//! ```

use std::time::Duration;

use engram_core::extract::{Candidate, InputMessage, Role};
use engram_llm::{after_model, probe_response_format, LlmConfig, LlmExtractor};

fn show(stage: &str, facts: &[Candidate]) {
    println!("== {stage}");
    for c in facts {
        println!(
            "   [{}] {:?} {} = {:?}  {:?}{}",
            c.message_index,
            c.action,
            c.attribute,
            c.value,
            c.statement,
            if c.stated { "" } else { " (inferred)" }
        );
    }
}

/// The model's first answer as it came (`--raw`), asked as the extractor
/// asks it (json_object with the schema, as llama.cpp takes it).
async fn print_raw_answer(
    config: &LlmConfig,
    texts: &[String],
) -> Result<(), Box<dyn std::error::Error>> {
    let system = engram_llm::EXTRACT_PROMPT
        .replace("{max_facts}", &config.max_facts.to_string())
        .replace(
            "{schema}",
            &engram_llm::output_schema_text(config.max_facts),
        );
    let mut user = String::from("Messages:\n");
    let today = chrono::Utc::now().format("%Y-%m-%d");
    for (i, t) in texts.iter().enumerate() {
        user.push_str(&format!("[{i}] user ({today}): {t}\n"));
    }
    let schema = engram_llm::output_schema_text(config.max_facts);
    let body = format!(
        r#"{{"model": {}, "messages": [{{"role": "system", "content": {}}}, {{"role": "user", "content": {}}}], "temperature": 0, "max_tokens": {}, "response_format": {{"type": "json_object", "schema": {schema}}}, "stream": false}}"#,
        serde_json::to_string(&config.model)?,
        serde_json::to_string(&system)?,
        serde_json::to_string(&user)?,
        config.max_tokens,
    );
    let answer: serde_json::Value = reqwest::Client::new()
        .post(format!(
            "{}/chat/completions",
            config.base_url.trim_end_matches('/')
        ))
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await?
        .json()
        .await?;
    println!("== raw\n{}", answer["choices"][0]["message"]["content"]);
    Ok(())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let raw = std::env::args().any(|a| a == "--raw");
    let texts: Vec<String> = std::env::args().skip(1).filter(|a| a != "--raw").collect();
    let env = |k: &str| std::env::var(k).ok();
    let mut config = LlmConfig {
        base_url: env("ENGRAM_LLM_BASE_URL").unwrap_or_else(|| "http://127.0.0.1:8433/v1".into()),
        model: env("ENGRAM_LLM_MODEL").unwrap_or_else(|| "local".into()),
        api_key: env("ENGRAM_LLM_API_KEY"),
        timeout: Duration::from_secs(300),
        ..LlmConfig::default()
    };
    config.response_format = probe_response_format(&config).await?;
    if raw {
        print_raw_answer(&config, &texts).await?;
    }
    let extractor = LlmExtractor::new(config);
    let messages: Vec<InputMessage> = texts
        .iter()
        .map(|t| InputMessage {
            role: Role::User,
            content: t.clone(),
            created_at: chrono::Utc::now(),
        })
        .collect();
    let model = extractor.read_facts(&messages).await?;
    let mut facts = after_model(model, &messages, show);
    println!("== checked against the message");
    for c in &mut facts {
        let message = &messages[c.message_index].content;
        match engram_core::policy::check_candidate(c, message, false) {
            Ok(()) => println!(
                "   kept     {} = {:?}  {:?}",
                c.attribute, c.value, c.statement
            ),
            Err(r) => println!("   refused  {} = {:?}: {r}", c.attribute, c.value),
        }
    }
    Ok(())
}
