//! The shape the LLM must answer in, and tolerant, bounded parsing of it.

use engram_core::extract::{is_label, predicate_of, Candidate, FactAction, InputMessage};
use engram_core::timephrase::expiry_hint;
use engram_core::MemoryKind;
use serde::Deserialize;
use serde_json::Value;

const MAX_STATEMENT: usize = 300;
const MAX_VALUE: usize = 200;
use engram_core::policy::SENSITIVITY;

/// JSON schema of the answer (strict-mode compatible: every property
/// required). Six fields a fact: every token is generated, and a small
/// model on a CPU spends most of a message's time there. What a model
/// judges poorly is derived after it instead (`parse_facts`): the message
/// a fact comes from, whether it was said or inferred, its importance.
pub fn output_schema(max_facts: usize) -> Value {
    serde_json::from_str(&output_schema_text(max_facts))
        .unwrap_or_else(|e| panic!("the answer's schema is JSON: {e}"))
}

/// The schema as sent, its properties in the order a fact is written:
/// what it says, its key and value, then what to do with it. The order is
/// the point: a constrained decoder (llama.cpp's grammar, OpenAI's strict
/// mode) writes properties in the schema's order, and with the keys sorted
/// (as a `serde_json` map sorts them) a model had to choose the action
/// before the statement: a 0.5B model then marked most second facts
/// "retract" and left their value empty.
pub fn output_schema_text(max_facts: usize) -> String {
    let sensitivity: Vec<String> = SENSITIVITY.iter().map(|s| format!("\"{s}\"")).collect();
    let sensitivity = sensitivity.join(", ");
    format!(
        concat!(
            r#"{{"type": "object", "additionalProperties": false, "required": ["facts"], "properties": {{"facts": {{"#,
            r#""type": "array", "maxItems": {max}, "items": {{"type": "object", "additionalProperties": false, "#,
            r#""required": ["statement", "attribute", "value", "action", "valid_for_days", "sensitivity"], "properties": {{"#,
            r#""statement": {{"type": "string", "maxLength": {statement}}}, "#,
            r#""attribute": {{"type": "string", "maxLength": 80}}, "#,
            r#""value": {{"type": "string", "maxLength": {value}}}, "#,
            r#""action": {{"type": "string", "enum": ["assert", "retract", "forget"]}}, "#,
            r#""valid_for_days": {{"type": ["integer", "null"], "minimum": 0, "maximum": 3650}}, "#,
            r#""sensitivity": {{"type": ["string", "null"], "enum": [{sensitivity}, null]}}}}}}}}}}}}"#
        ),
        max = max_facts,
        statement = MAX_STATEMENT,
        value = MAX_VALUE,
        sensitivity = sensitivity,
    )
}

#[derive(Deserialize)]
struct Answer {
    /// Each item read on its own: one malformed item is refused, not the
    /// answer (`parse_answer`).
    facts: Vec<Value>,
}

/// A usable answer: its facts, and why each item that could not be used
/// was refused (no text of the answer in it: it may quote the user).
#[derive(Debug, Default)]
pub struct Parsed {
    pub facts: Vec<Candidate>,
    pub refused: Vec<String>,
}

#[derive(Deserialize)]
struct Fact {
    statement: String,
    #[serde(default)]
    subject: Option<String>,
    attribute: String,
    value: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    importance: Option<f64>,
    #[serde(default)]
    confidence: Option<f64>,
    #[serde(default)]
    sensitivity: Option<String>,
    #[serde(default)]
    valid_for_days: Option<i64>,
    #[serde(default)]
    stated: Option<bool>,
    #[serde(default)]
    message_index: Option<usize>,
    /// assert (the default), retract or forget.
    #[serde(default)]
    action: Option<String>,
}

/// A number meant to be in 0..=1: percentages and 0..10 scores are scaled down,
/// anything else out of range is clamped; missing or non-finite takes the default.
fn unit(x: Option<f64>, default: f64) -> f32 {
    let v = match x {
        Some(v) if v.is_finite() => v,
        _ => default,
    };
    let v = if v > 1.0 && v <= 10.0 {
        v / 10.0
    } else if v > 10.0 && v <= 100.0 {
        v / 100.0
    } else {
        v
    };
    v.clamp(0.0, 1.0) as f32
}

/// Whether `message` holds `value` in its own words (case and punctuation
/// aside): the user said it, rather than the model inferring it.
fn holds(message: &str, value: &str) -> bool {
    use engram_core::text::words::{folded, says};
    let v = engram_core::extract::slug(&folded(value));
    let number = value.trim().chars().all(|c| c.is_ascii_digit());
    !v.is_empty()
        && (says(message, value)
            || (!number && engram_core::extract::slug(&folded(message)).contains(&v)))
}

/// The message a fact comes from when the answer does not say: the last
/// that holds its value, else the last user message.
fn source_of(messages: &[InputMessage], value: &str) -> usize {
    let last_user = messages
        .iter()
        .rposition(|m| m.role == engram_core::extract::Role::User)
        .unwrap_or(messages.len().saturating_sub(1));
    messages
        .iter()
        .rposition(|m| holds(&m.content, value))
        .unwrap_or(last_user)
}

/// "Location City!" -> "location_city"; at most 80 characters.
fn normalise_key(raw: &str) -> String {
    let mut out = String::new();
    for c in raw.trim().to_lowercase().chars() {
        if c.is_ascii_alphanumeric() || c == '.' {
            out.push(c);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    engram_core::extract::bounded_key(out.trim_matches(['_', '.']), 80)
}

/// The JSON object in `text`: code fences and prose around it are ignored.
pub(crate) fn json_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    (end > start).then(|| &text[start..=end])
}

/// Why a model's answer cannot be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InvalidReason {
    /// No text at all.
    Empty,
    /// Stopped at `max_tokens` (`finish_reason: length`).
    CutOff,
    /// No JSON object in it, or not well-formed JSON.
    NotJson,
    /// JSON, but not the schema's (a missing field, a wrong type, a bad value).
    OffSchema,
}

impl InvalidReason {
    /// The `reason` label of `engram_llm_invalid_answers_total`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Empty => "empty",
            Self::CutOff => "cut_off",
            Self::NotJson => "not_json",
            Self::OffSchema => "off_schema",
        }
    }
}

/// An unusable answer: why, and in detail for the repair prompt (the
/// detail may quote the answer, so it goes back to the model only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    pub reason: InvalidReason,
    pub detail: String,
}

impl Invalid {
    pub fn new(reason: InvalidReason, detail: impl Into<String>) -> Self {
        Self {
            reason,
            detail: detail.into(),
        }
    }

    /// What the model is told before its one repair attempt.
    pub fn repair_prompt(&self, max_facts: usize) -> String {
        match self.reason {
            InvalidReason::CutOff => format!(
                "That reply was cut off before it ended. Reply again with only the JSON object matching the schema, shorter: at most {max_facts} facts, short statements."
            ),
            InvalidReason::Empty => "That reply was empty. Reply with only the JSON object matching the schema ({\"facts\": []} when there is nothing to keep).".to_owned(),
            _ => format!(
                "That reply was not valid: {}. Reply again with only the corrected JSON object matching the schema.",
                self.detail
            ),
        }
    }

    /// For the job's error and the log: what was wrong, without anything
    /// quoted from the answer (which may quote the user).
    pub fn public(&self, max_tokens: u32) -> String {
        match self.reason {
            InvalidReason::Empty => "the model's answer was empty".to_owned(),
            InvalidReason::CutOff => format!(
                "the model's answer was cut off at max_tokens ({max_tokens}) before it ended (raise ENGRAM_LLM_MAX_TOKENS)"
            ),
            InvalidReason::NotJson => "the model's answer was not a JSON object".to_owned(),
            InvalidReason::OffSchema => format!(
                "the model's answer did not match the schema: {}",
                without_backticked(&engram_core::text::without_quoted(&self.detail))
            ),
        }
    }
}

/// `text` with the inside of every `…` replaced by an ellipsis (serde
/// names unknown fields and variants that way).
fn without_backticked(text: &str) -> String {
    text.split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { "…" } else { part })
        .collect::<Vec<_>>()
        .join("`")
}

/// An answer's facts (`parse_answer`, without what it refused).
pub fn parse_facts(
    text: &str,
    messages: &[InputMessage],
    max_facts: usize,
) -> Result<Vec<Candidate>, Invalid> {
    parse_answer(text, messages, max_facts).map(|p| p.facts)
}

/// Parses and checks an answer, item by item: a malformed item (not an
/// object, an unknown action, a key shaped like a path) is refused and
/// its neighbours kept. The answer is unusable (`Invalid`, whose detail is
/// for the repair prompt) when it is not the schema's object, or when it
/// holds items and none of them is usable.
pub fn parse_answer(
    text: &str,
    messages: &[InputMessage],
    max_facts: usize,
) -> Result<Parsed, Invalid> {
    let body = json_object(text)
        .ok_or_else(|| Invalid::new(InvalidReason::NotJson, "no JSON object found"))?;
    let answer: Answer = serde_json::from_str(body).map_err(|e| {
        let reason = if e.is_data() {
            InvalidReason::OffSchema
        } else {
            InvalidReason::NotJson
        };
        Invalid::new(reason, format!("invalid JSON for the schema: {e}"))
    })?;
    let mut problems = Vec::new();
    let mut out = Vec::new();
    for (n, item) in answer.facts.into_iter().take(max_facts).enumerate() {
        let bad = |what: &str| format!("facts[{n}]: {what}");
        let f: Fact = match serde_json::from_value(item) {
            Ok(f) => f,
            Err(_) => {
                problems.push(bad("must be an object with the schema's fields"));
                continue;
            }
        };
        // A key is words and dots; one shaped like a path is not a key.
        if f.attribute.contains(['/', '\\']) || f.attribute.contains("..") {
            problems.push(bad("attribute must be a lower-case dotted key"));
            continue;
        }
        let statement = f.statement.trim().to_owned();
        if statement.is_empty() || statement.chars().count() > MAX_STATEMENT {
            problems.push(bad("statement must be 1..300 characters"));
            continue;
        }
        // Small models are sloppy with keys and numbers: normalise what has an
        // obvious meaning, refuse what has none.
        let attribute = normalise_key(&f.attribute);
        let action = match f
            .action
            .as_deref()
            .map(str::trim)
            .map(str::to_lowercase)
            .as_deref()
        {
            None | Some("") | Some("assert") => FactAction::Assert,
            Some("retract") => FactAction::Retract,
            Some("forget") => FactAction::Forget,
            Some(_) => {
                problems.push(bad("action must be assert, retract or forget"));
                continue;
            }
        };
        // What is taken back or forgotten may name the attribute alone.
        // An assertion needs a value: a small model copies the example's
        // empty one; its statement then says it ("User lives in Porto."),
        // and the rules read it back.
        let value_required = action == FactAction::Assert;
        let read_back = (value_required && f.value.trim().is_empty())
            .then(|| engram_core::extract::read_back(&statement))
            .flatten();
        // When they read nothing, the statement's own predicate is the
        // value ("User is now the team lead." → "now the team lead").
        let predicate = (value_required && f.value.trim().is_empty() && read_back.is_none())
            .then(|| predicate_of(&statement));
        if predicate.as_deref().is_some_and(is_label) {
            tracing::debug!("dropped a statement that names a fact without stating it");
            continue;
        }
        let value = match (&read_back, &predicate) {
            (Some(r), _) => r.value.as_str(),
            (None, Some(p)) => p.as_str(),
            (None, None) => f.value.trim(),
        };
        let attribute = read_back
            .as_ref()
            .map_or(attribute, |r| r.attribute.clone());
        if (value_required && value.is_empty()) || value.chars().count() > MAX_VALUE {
            problems.push(bad("value must be 1..200 characters"));
            continue;
        }
        // A key left empty (or of no ASCII letter, "签证"): what is taken back
        // or forgotten is then named by its statement's words, as the rules
        // name it; an assertion is keyed as the rules read its statement,
        // else under its value.
        let attribute = if !attribute.is_empty() || !value_required {
            attribute
        } else if let Some(r) = engram_core::extract::read_back(&statement) {
            r.attribute
        } else {
            let key = engram_core::extract::slug(value);
            if key.is_empty() {
                problems.push(bad("attribute must be a lower-case dotted key"));
                continue;
            }
            engram_core::extract::bounded_key(&format!("note.{key}"), 80)
        };
        let index = f
            .message_index
            .unwrap_or_else(|| source_of(messages, value))
            .min(messages.len().saturating_sub(1));
        let Some(message) = messages.get(index) else {
            problems.push(bad("message_index is not a message"));
            continue;
        };
        let stated = f.stated.unwrap_or_else(|| holds(&message.content, value));
        let importance = unit(
            f.importance,
            f64::from(engram_core::extract::key_importance(&attribute)),
        );
        let confidence = unit(f.confidence, if stated { 0.9 } else { 0.6 });
        let sensitivity = f.sensitivity.filter(|s| SENSITIVITY.contains(&s.as_str()));
        // The message's own wording bounds time more reliably than a small model.
        let expires_at = f.valid_for_days.filter(|d| *d > 0).map(|days| {
            let by_model =
                engram_core::time::add(message.created_at, engram_core::time::days(days));
            expiry_hint(&message.content, message.created_at)
                .map_or(by_model, |hint| hint.min(by_model))
        });
        out.push(Candidate {
            statement,
            kind: f
                .kind
                .as_deref()
                .and_then(MemoryKind::parse)
                .unwrap_or(MemoryKind::Semantic),
            subject: f
                .subject
                .map(|s| s.trim().to_lowercase())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "user".into()),
            attribute,
            value: value.to_owned(),
            importance,
            confidence,
            sensitivity,
            expires_at,
            stated,
            message_index: index,
            action,
            replaces: None,
        });
    }
    if out.is_empty() && !problems.is_empty() {
        return Err(Invalid::new(InvalidReason::OffSchema, problems.join("; ")));
    }
    Ok(Parsed {
        facts: out,
        refused: problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{DateTime, Utc};
    use engram_core::extract::Role;

    /// A statement with no value that only names a fact ("User's cat's
    /// name.") or holds no words goes; the facts beside it stay, and one
    /// whose predicate states something is kept with it as the value.
    #[test]
    fn a_label_without_a_value_goes_and_its_neighbours_stay() {
        let messages = [InputMessage {
            role: Role::User,
            content: "My cat is Miso and I'm now the team lead.".into(),
            created_at: Utc::now(),
        }];
        let fact = |statement: &str, value: &str| {
            format!(r#"{{"statement": "{statement}", "attribute": "pet.cat", "value": "{value}"}}"#)
        };
        let answer = format!(
            r#"{{"facts": [{}, {}, {}, {}, {}]}}"#,
            fact("User's cat's name.", ""),
            fact("User (2026-12-05)", ""),
            fact("User's favourite colour", ""),
            fact("User's cat is called Miso.", "Miso"),
            fact("User is now the team lead.", ""),
        );
        let facts = parse_facts(&answer, &messages, 10).unwrap_or_else(|e| panic!("{e:?}"));
        let values: Vec<&str> = facts.iter().map(|f| f.value.as_str()).collect();
        assert_eq!(values, ["Miso", "team lead"]);
        for label in [
            "cat's name",
            "(2026-12-05)",
            "favourite colour",
            "email address",
        ] {
            assert!(is_label(label), "{label}");
        }
        for said in [
            "",
            "now the team lead",
            "vegan",
            "name is Ada",
            "learning Japanese",
        ] {
            assert!(!is_label(said), "{said}");
        }
    }

    /// The schema as sent lists a fact's properties in the order a fact is
    /// written (a constrained decoder follows it), and says what the
    /// validating schema says.
    #[test]
    fn the_schema_lists_a_fact_in_the_order_it_is_written() {
        let text = output_schema_text(7);
        let at = |key: &str| {
            text.find(&format!("\"{key}\": {{"))
                .unwrap_or_else(|| panic!("{key} missing"))
        };
        let order = [
            "statement",
            "attribute",
            "value",
            "action",
            "valid_for_days",
            "sensitivity",
        ];
        assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{text}");
        let schema = output_schema(7);
        let item = &schema["properties"]["facts"]["items"];
        assert_eq!(schema["properties"]["facts"]["maxItems"], 7);
        assert_eq!(item["required"].as_array().map(Vec::len), Some(6));
        assert_eq!(item["properties"]["action"]["enum"][1], "retract");
        assert_eq!(
            item["properties"]["sensitivity"]["enum"]
                .as_array()
                .map(Vec::len),
            Some(SENSITIVITY.len() + 1)
        );
    }

    /// A key left empty is no reason to lose the answer: a forget request
    /// is named by its words, an assertion keyed as the rules read it or
    /// under its value.
    #[test]
    fn an_empty_key_is_read_from_the_statement() {
        let messages = [InputMessage {
            role: Role::User,
            content: "I live in Porto, I play the oud, and forget my visa.".into(),
            created_at: Utc::now(),
        }];
        let answer = r#"{"facts": [
            {"statement": "User lives in Porto.", "attribute": "", "value": "Porto", "action": "assert", "valid_for_days": null, "sensitivity": null},
            {"statement": "User plays the oud.", "attribute": "签证", "value": "oud", "action": "assert", "valid_for_days": null, "sensitivity": null},
            {"statement": "User's visa.", "attribute": "", "value": "", "action": "forget", "valid_for_days": null, "sensitivity": null}]}"#;
        let facts = parse_facts(answer, &messages, 10).unwrap_or_else(|e| panic!("{e:?}"));
        let keys: Vec<&str> = facts.iter().map(|f| f.attribute.as_str()).collect();
        assert_eq!(keys, ["location.city", "note.oud", ""]);
        assert_eq!(facts[2].action, FactAction::Forget);
    }

    /// A model may answer any number of days, and a message may be dated at
    /// the end of the calendar: the expiry saturates, it never panics.
    #[test]
    fn validity_days_at_the_calendars_end_saturate() {
        for (at, days) in [
            (engram_core::time::max(), 3650),
            (DateTime::<Utc>::MAX_UTC, i64::MAX),
            (DateTime::<Utc>::MIN_UTC, i64::MAX),
            (engram_core::time::min(), 1),
        ] {
            let messages = [InputMessage {
                role: Role::User,
                content: "I am in Rome for a while.".into(),
                created_at: at,
            }];
            let answer = format!(
                r#"{{"facts": [{{"statement": "User is in Rome.", "kind": "episodic", "subject": "user",
                    "attribute": "location.current", "value": "Rome", "importance": 0.5, "confidence": 0.9,
                    "sensitivity": null, "valid_for_days": {days}, "stated": true, "message_index": 0}}]}}"#
            );
            let facts = parse_facts(&answer, &messages, 10).unwrap_or_else(|e| panic!("{e:?}"));
            let expires = facts[0].expires_at.unwrap_or_else(|| panic!("no expiry"));
            assert!(
                engram_core::time::in_range(expires),
                "{at} + {days}: {expires}"
            );
        }
    }

    /// A compact answer names no message, no importance and no "stated":
    /// the fact's source is the message that holds its value, and a value
    /// in no message was inferred.
    #[test]
    fn what_a_compact_answer_leaves_out_is_derived() {
        let at = Utc::now();
        let message = |role, content: &str| InputMessage {
            role,
            content: content.into(),
            created_at: at,
        };
        let messages = [
            message(Role::User, "I moved to Porto last year."),
            message(Role::Assistant, "Nice! What do you do there?"),
            message(Role::User, "I don't eat meat, and I teach."),
        ];
        let answer = r#"{"facts": [
            {"statement": "User lives in Porto.", "attribute": "location.city", "value": "porto", "action": "assert", "valid_for_days": null, "sensitivity": null},
            {"statement": "User is vegetarian.", "attribute": "diet", "value": "vegetarian", "action": "assert", "valid_for_days": null, "sensitivity": null}]}"#;
        let facts = parse_facts(answer, &messages, 10).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(facts[0].message_index, 0);
        assert!(facts[0].stated);
        assert!((facts[0].importance - 0.7).abs() < 1e-6);
        assert_eq!(facts[1].message_index, 2, "the last user message");
        assert!(!facts[1].stated, "inferred");
        assert!(facts[1].confidence < facts[0].confidence);
    }

    /// An assertion with no value: the rules read its statement back, or
    /// the statement's predicate is the value; the answer is not lost.
    #[test]
    fn an_assertion_without_a_value_takes_it_from_its_statement() {
        let messages = [InputMessage {
            role: Role::User,
            content: "I'm now the team lead, and I live in Porto.".into(),
            created_at: Utc::now(),
        }];
        let answer = r#"{"facts": [
            {"statement": "User lives in Porto.", "attribute": "location.current", "value": "", "action": "assert", "valid_for_days": null, "sensitivity": null},
            {"statement": "User is now the team lead.", "attribute": "role", "value": "", "action": "assert", "valid_for_days": null, "sensitivity": null}]}"#;
        let facts = parse_facts(answer, &messages, 10).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(
            (facts[0].attribute.as_str(), facts[0].value.as_str()),
            ("location.city", "Porto")
        );
        assert_eq!(
            (facts[1].attribute.as_str(), facts[1].value.as_str()),
            ("role", "team lead")
        );
        assert_eq!(predicate_of("The user's dog is Rex."), "dog is Rex");
        assert_eq!(predicate_of("User."), "");
    }

    #[test]
    fn a_malformed_item_is_refused_and_its_neighbours_kept() {
        let messages = [InputMessage {
            role: Role::User,
            content: "I live in Hamar.".into(),
            created_at: Utc::now(),
        }];
        let good = r#"{"statement": "User lives in Hamar.", "attribute": "location.city", "value": "Hamar", "action": "assert", "valid_for_days": null, "sensitivity": null}"#;
        let path = good.replace("location.city", "../../admin");
        let obey = good.replace("\"assert\"", "\"obey\"");
        let answer = format!(r#"{{"facts": [null, {obey}, {path}, 7, {good}]}}"#);
        let parsed = parse_answer(&answer, &messages, 10).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(parsed.facts.len(), 1);
        assert_eq!(parsed.facts[0].value, "Hamar");
        assert_eq!(parsed.refused.len(), 4, "{:?}", parsed.refused);
        assert!(parsed
            .refused
            .iter()
            .all(|r| !r.contains("admin") && !r.contains("obey")));
        // Nothing usable at all: the answer is repaired, then fails.
        let none = format!(r#"{{"facts": [null, {obey}]}}"#);
        let invalid = parse_answer(&none, &messages, 10).unwrap_err();
        assert_eq!(invalid.reason, InvalidReason::OffSchema);
    }
}
