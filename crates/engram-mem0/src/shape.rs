//! Engram's answers in Mem0's shapes: a memory, a history row, an add's
//! results. Mem0 has three history events (ADD, UPDATE, DELETE) where
//! Engram has ten; the Engram event and its reason travel along in
//! `engram_event` and `reason`, so nothing is lost. Pure: no I/O.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use serde_json::{json, Map, Value};

/// The metadata key `app_id` is kept under (Engram has no app scope).
pub const APP_KEY: &str = "app_id";

/// A memory (`MemoryOut`, or a search hit with `score`/`scores`) as Mem0
/// returns it, with Engram's extras where the shape has room.
pub fn memory(m: &Value, now: DateTime<Utc>) -> Value {
    let mut metadata = m["metadata"].as_object().cloned().unwrap_or_default();
    let app_id = metadata.remove(APP_KEY).unwrap_or(Value::Null);
    let categories = categories(&metadata, &m["attribute"]);
    let mut out = json!({
        "id": m["id"],
        "memory": m["memory"],
        "user_id": m["user_id"],
        "agent_id": m["agent_id"],
        "app_id": app_id,
        "run_id": m["session_id"],
        "metadata": if metadata.is_empty() { Value::Null } else { Value::Object(metadata) },
        "categories": categories,
        "created_at": m["created_at"],
        "updated_at": m["updated_at"],
        "expiration_date": expiration_date(&m["expires_at"]),
        "immutable": m["pinned"],
        "replaced_by": m["superseded_by"],
        "lifecycle_state": state(m, now),
        "kind": m["kind"],
        "importance": m["importance"],
    });
    if let Some(score) = m["score"].as_f64() {
        out["score"] = json!(score.clamp(0.0, 1.0));
        out["score_breakdown"] = m["scores"].clone();
    }
    out
}

/// Mem0's categories: the ones given in metadata, else the attribute
/// Engram extracted (`location`, `diet`, ...).
fn categories(metadata: &Map<String, Value>, attribute: &Value) -> Value {
    if let Some(Value::Array(given)) = metadata.get("categories") {
        return Value::Array(given.iter().filter(|c| c.is_string()).cloned().collect());
    }
    match attribute.as_str() {
        Some(a) => json!([a]),
        None => json!([]),
    }
}

fn state(m: &Value, now: DateTime<Utc>) -> &'static str {
    let past = |v: &Value| {
        v.as_str()
            .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
            .is_some_and(|t| t <= now)
    };
    if !m["superseded_by"].is_null() {
        "superseded"
    } else if !m["archived_at"].is_null() {
        "archived"
    } else if past(&m["expires_at"]) {
        "expired"
    } else {
        "active"
    }
}

/// Mem0's `expiration_date` is the last day a memory is visible; Engram's
/// `expires_at` the instant it stops: midnight after that day.
pub fn expires_at(date: &str) -> Option<String> {
    let day = NaiveDate::parse_from_str(date, "%Y-%m-%d").ok()?;
    let end = day.succ_opt()?.and_hms_opt(0, 0, 0)?.and_utc();
    Some(end.to_rfc3339_opts(chrono::SecondsFormat::Secs, true))
}

fn expiration_date(expires_at: &Value) -> Value {
    let Some(t) = expires_at
        .as_str()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
    else {
        return Value::Null;
    };
    let last_visible = t.with_timezone(&Utc) - Duration::microseconds(1);
    json!(last_visible.date_naive().format("%Y-%m-%d").to_string())
}

/// Engram's history event as Mem0's: `None` for one Mem0 has no row for
/// (NOOP: said again, nothing changed).
pub fn history_event(engram: &str) -> Option<&'static str> {
    Some(match engram {
        "ADD" => "ADD",
        "UPDATE" | "SUPERSEDE" | "MERGE" | "REVERT" => "UPDATE",
        "DELETE" | "RETRACT" | "FORGET" | "ARCHIVE" => "DELETE",
        _ => return None,
    })
}

/// One history row (`HistoryEntry`) as Mem0's, for a memory of `owner`
/// (`user_id`, `agent_id`, `session_id`; null when it is gone).
pub fn history_row(h: &Value, owner: &Value) -> Option<Value> {
    let event = history_event(h["event"].as_str()?)?;
    let input = match h["source_message"].as_str() {
        Some(text) => json!([{"role": "user", "content": text}]),
        None => json!([]),
    };
    let metadata = h["new_metadata"].clone();
    Some(json!({
        "id": h["id"],
        "memory_id": h["memory_id"],
        "input": input,
        "old_memory": h["old_content"],
        "new_memory": h["new_content"],
        "user_id": owner["user_id"],
        "agent_id": owner["agent_id"],
        "app_id": metadata[APP_KEY],
        "session_id": owner["session_id"],
        "categories": [],
        "event": event,
        "engram_event": h["event"],
        "reason": h["reason"],
        "actor": h["actor"],
        "metadata": metadata,
        "created_at": h["created_at"],
        "updated_at": h["created_at"],
    }))
}

/// An Engram job result as Mem0 add results: one per memory touched.
/// SUPERSEDE and MERGE are Mem0's UPDATE (the id is the memory that holds
/// the fact now; `replaced` the ones it retired), RETRACT and FORGET its
/// DELETE (one per memory retired), a refused candidate a NOOP that says why.
pub fn job_results(results: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for r in results.as_array().into_iter().flatten() {
        let engram = r["event"].as_str().unwrap_or("NOOP");
        let base = |id: &Value, event: &str| {
            json!({
                "id": id,
                "data": {"memory": r["new_content"].as_str().or(r["old_content"].as_str())},
                "event": event,
                "engram_event": engram,
                "previous_memory": r["old_content"],
                "replaced": r.get("replaced").cloned().unwrap_or(json!([])),
                "reason": r["reason"],
            })
        };
        match engram {
            "ADD" => out.push(base(&r["memory_id"], "ADD")),
            "SUPERSEDE" | "MERGE" => out.push(base(&r["memory_id"], "UPDATE")),
            "RETRACT" | "FORGET" => {
                for id in r["replaced"].as_array().into_iter().flatten() {
                    out.push(base(id, "DELETE"));
                }
            }
            _ => out.push(base(&r["memory_id"], "NOOP")),
        }
    }
    out
}

/// A job's status as Mem0's event status.
pub fn event_status(engram: &str) -> &'static str {
    match engram {
        "queued" => "PENDING",
        "running" => "RUNNING",
        "done" => "SUCCEEDED",
        _ => "FAILED",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_expiration_date_round_trips() {
        let at = expires_at("2026-12-31").unwrap();
        assert_eq!(at, "2027-01-01T00:00:00Z");
        assert_eq!(expiration_date(&json!(at)), json!("2026-12-31"));
        assert!(expires_at("31/12/2026").is_none());
    }

    #[test]
    fn every_engram_event_has_a_mem0_reading() {
        for e in [
            "ADD",
            "UPDATE",
            "SUPERSEDE",
            "MERGE",
            "REVERT",
            "DELETE",
            "RETRACT",
            "FORGET",
            "ARCHIVE",
        ] {
            assert!(history_event(e).is_some(), "{e}");
        }
        assert_eq!(history_event("NOOP"), None);
    }

    #[test]
    fn app_id_comes_out_of_metadata() {
        let m = json!({"id": "x", "memory": "m", "metadata": {"app_id": "shop", "k": 1},
                       "superseded_by": null, "archived_at": null, "expires_at": null});
        let out = memory(&m, Utc::now());
        assert_eq!(out["app_id"], "shop");
        assert_eq!(out["metadata"], json!({"k": 1}));
        assert_eq!(out["lifecycle_state"], "active");
    }
}
