//! The short text each tool result carries next to its structured JSON:
//! what a model reads first, one line per memory with its id so it can
//! refer to it in a later call.

use serde_json::{json, Value};

/// Why a tool call failed; each becomes a result with `isError`.
#[derive(Debug)]
pub enum ToolError {
    /// The arguments do not fit the tool's schema.
    Arguments(String),
    /// The API refused or failed: its problem document.
    Problem { status: u16, problem: Value },
    /// The API could not be reached.
    Unreachable(String),
}

/// What a successful tool call gives: structured JSON and a short text.
pub struct ToolOutput {
    pub structured: Value,
    pub text: String,
}

fn out(structured: Value, text: String) -> ToolOutput {
    ToolOutput { structured, text }
}

/// `- text [id …, 2026-11-30]`, the date when there is one.
fn memory_line(m: &Value) -> String {
    let date = m["created_at"].as_str().map(|d| d.get(..10).unwrap_or(d));
    match date {
        Some(d) => format!(
            "- {} [id {}, {d}]",
            m["memory"].as_str().unwrap_or(""),
            m["id"].as_str().unwrap_or("?")
        ),
        None => format!(
            "- {} [id {}]",
            m["memory"].as_str().unwrap_or(""),
            m["id"].as_str().unwrap_or("?")
        ),
    }
}

fn results(reply: &Value) -> &[Value] {
    reply["results"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
}

/// An add: memories stored verbatim (201), a finished extraction job (200),
/// or one still queued (202); a job that failed is a failure.
pub fn added(reply: Value) -> Result<ToolOutput, ToolError> {
    if reply.get("job_id").is_none() {
        let lines: Vec<String> = results(&reply)
            .iter()
            .map(|r| {
                let redacted = match r["redacted"].as_array() {
                    Some(kinds) if !kinds.is_empty() => " (a secret in it was redacted)",
                    _ => "",
                };
                format!(
                    "Stored: {} [id {}]{redacted}",
                    r["memory"].as_str().unwrap_or(""),
                    r["id"].as_str().unwrap_or("?")
                )
            })
            .collect();
        return Ok(out(reply, lines.join("\n")));
    }
    job_outcome(
        reply,
        "Nothing new to remember in it (no durable fact, or already known).",
    )
}

/// A forget request: the job's FORGET and RETRACT events.
pub fn forgotten(reply: Value) -> Result<ToolOutput, ToolError> {
    job_outcome(reply, "Nothing stored matched; nothing was forgotten.")
}

fn job_outcome(reply: Value, when_empty: &str) -> Result<ToolOutput, ToolError> {
    let id = reply["job_id"].as_str().unwrap_or("?").to_owned();
    match reply["status"].as_str() {
        Some("done") => {}
        Some("failed") => {
            return Err(ToolError::Problem {
                status: 500,
                problem: json!({
                    "title": "Extraction failed",
                    "detail": format!("job {id} failed: {}", reply["error"].as_str().unwrap_or("unknown error")),
                    "job_id": id,
                }),
            })
        }
        _ => {
            let text = format!(
                "Queued as job {id}: Engram is still working on it; the result will be searchable when it finishes."
            );
            return Ok(out(reply, text));
        }
    }
    let lines: Vec<String> = results(&reply)
        .iter()
        .filter(|r| r["event"] != "NOOP")
        .map(|r| {
            // A forget quotes nothing: it names the memories it retired.
            let retired: Vec<&str> = r["replaced"]
                .as_array()
                .map(|ids| ids.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let text = match r["new_content"]
                .as_str()
                .or_else(|| r["old_content"].as_str())
            {
                Some(t) => t.to_owned(),
                None if !retired.is_empty() => format!("retired {}", retired.join(", ")),
                None => String::new(),
            };
            let id = r["memory_id"]
                .as_str()
                .map(|i| format!(" [id {i}]"))
                .unwrap_or_default();
            let reason = r["reason"]
                .as_str()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            format!("{}: {text}{id}{reason}", r["event"].as_str().unwrap_or("?"))
        })
        .collect();
    let text = if lines.is_empty() {
        when_empty.to_owned()
    } else {
        lines.join("\n")
    };
    Ok(out(reply, text))
}

pub fn found(reply: Value) -> ToolOutput {
    let hits = results(&reply);
    let text = if hits.is_empty() {
        "No memories match.".to_owned()
    } else {
        hits.iter()
            .map(|h| {
                format!(
                    "{} (score {:.2})",
                    memory_line(h),
                    h["score"].as_f64().unwrap_or(0.0)
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    out(reply, text)
}

pub fn listed(reply: Value) -> ToolOutput {
    let memories = results(&reply);
    let mut text = if memories.is_empty() {
        "No memories.".to_owned()
    } else {
        memories
            .iter()
            .map(memory_line)
            .collect::<Vec<_>>()
            .join("\n")
    };
    if let Some(c) = reply["next_cursor"].as_str() {
        text.push_str(&format!("\nMore: call again with cursor \"{c}\"."));
    }
    out(reply, text)
}

pub fn one(reply: Value) -> ToolOutput {
    let text = memory_line(&reply);
    out(reply, text)
}

pub fn profile(reply: Value) -> ToolOutput {
    let mut lines: Vec<String> = reply["entries"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or(&[])
        .iter()
        .map(memory_line)
        .collect();
    if let Some(s) = reply["summary"]["content"].as_str() {
        lines.push(format!("Latest conversation: {s}"));
    }
    let text = if lines.is_empty() {
        "Nothing known about this user yet.".to_owned()
    } else {
        lines.join("\n")
    };
    out(reply, text)
}

pub fn context(reply: Value) -> ToolOutput {
    let text = match reply["text"].as_str() {
        Some(t) if !t.is_empty() => t.to_owned(),
        _ => "Nothing relevant is remembered.".to_owned(),
    };
    out(reply, text)
}

/// The text of a failure: the problem's title and detail, and the field at
/// fault, so a model can correct its call.
pub fn failure(e: &ToolError) -> (String, Value) {
    match e {
        ToolError::Arguments(m) => (
            m.clone(),
            json!({"title": "Invalid arguments", "detail": m}),
        ),
        ToolError::Unreachable(m) => (
            m.clone(),
            json!({"title": "Engram unreachable", "detail": m}),
        ),
        ToolError::Problem { status, problem } => {
            let title = problem["title"].as_str().unwrap_or("Request failed");
            let detail = problem["detail"].as_str().unwrap_or("");
            let field = problem["field"]
                .as_str()
                .map(|f| format!(" (field: {f})"))
                .unwrap_or_default();
            let problem = if problem.is_object() {
                problem.clone()
            } else {
                json!({"status": status, "title": title})
            };
            (format!("{title} ({status}): {detail}{field}"), problem)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_queued_job_and_a_failed_job_read_differently() {
        let queued = added(json!({"job_id": "j1", "status": "queued", "raw": []}))
            .ok()
            .unwrap();
        assert!(queued.text.contains("Queued as job j1"));
        let failed = added(json!({"job_id": "j2", "status": "failed", "error": "model down"}));
        assert!(matches!(failed, Err(ToolError::Problem { .. })));
        let done = forgotten(json!({"job_id": "j3", "status": "done", "results": []}))
            .ok()
            .unwrap();
        assert_eq!(done.text, "Nothing stored matched; nothing was forgotten.");
        let forgot = forgotten(json!({"job_id": "j4", "status": "done", "results": [
            {"event": "FORGET", "memory_id": null, "replaced": ["m1", "m2"], "reason": "asked"}
        ]}))
        .ok()
        .unwrap();
        assert_eq!(forgot.text, "FORGET: retired m1, m2 (asked)");
    }

    #[test]
    fn failures_name_the_field() {
        let (text, problem) = failure(&ToolError::Problem {
            status: 422,
            problem: json!({"title": "Invalid field", "detail": "must not be empty", "field": "query"}),
        });
        assert_eq!(
            text,
            "Invalid field (422): must not be empty (field: query)"
        );
        assert_eq!(problem["field"], "query");
    }
}
