//! Checks on values coming from outside. Each failure names the field it is about,
//! so the API can answer with the offending field in its problem document.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// Path of the field in the request, e.g. `messages[2].content`.
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for FieldError {}

/// Size limits on input; configurable at the server.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_content_chars: usize,
    pub max_messages: usize,
    pub max_metadata_bytes: usize,
    pub max_id_chars: usize,
    pub max_query_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_content_chars: 8_000,
            max_messages: 100,
            max_metadata_bytes: 16_384,
            max_id_chars: 128,
            max_query_chars: 4_000,
        }
    }
}

/// Whether `c` is a default-ignorable code point (Unicode's
/// DerivedCoreProperties `Default_Ignorable_Code_Point`): zero-width spaces
/// and joiners, bidirectional marks, variation selectors, soft hyphens, tag
/// characters. They render as nothing, so a value made only of them is as
/// blank as an empty one.
pub fn is_default_ignorable(c: char) -> bool {
    matches!(c as u32,
        0x00AD | 0x034F | 0x061C | 0x115F..=0x1160 | 0x17B4..=0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFF8 | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0000..=0xE0FFF)
}

/// Blank: nothing but white space and invisible (default-ignorable) characters.
pub fn is_blank(value: &str) -> bool {
    value
        .chars()
        .all(|c| c.is_whitespace() || is_default_ignorable(c))
}

/// An identifier about to be stored (user, agent, session, source ref, key
/// name): a valid [`reference`] that holds no secret. An identifier is
/// stored, echoed back and shown as it is, and cannot be redacted, so one
/// that the secret screen flags is refused.
pub fn identifier(field: &str, value: &str, limits: &Limits) -> Result<String, FieldError> {
    let value = reference(field, value, limits)?;
    if let Some(kind) = crate::policy::identifier_secret(&value) {
        return Err(FieldError::new(
            field,
            format!(
                "must not contain a secret ({kind}): identifiers are stored and shown as they are"
            ),
        ));
    }
    Ok(value)
}

/// An identifier that names something already stored (a path, a filter):
/// non-empty, bounded, printable. Not screened for secrets, so what was
/// stored before the screen can still be found, exported and erased.
pub fn reference(field: &str, value: &str, limits: &Limits) -> Result<String, FieldError> {
    if is_blank(value) {
        return Err(FieldError::new(field, "must not be empty"));
    }
    if value.chars().count() > limits.max_id_chars {
        return Err(FieldError::new(
            field,
            format!("must be at most {} characters", limits.max_id_chars),
        ));
    }
    if value.chars().any(char::is_control) {
        return Err(FieldError::new(
            field,
            "must not contain control characters",
        ));
    }
    Ok(value.to_owned())
}

/// Memory content: non-blank and within the configured length.
pub fn content(field: &str, value: &str, limits: &Limits) -> Result<String, FieldError> {
    text(field, value, limits.max_content_chars)
}

/// A tenant name: 1-64 of `a-z 0-9 . _ -`, starting with a letter or digit,
/// and not shaped like a UUID (a tenant may be named by either).
pub fn tenant_name(field: &str, value: &str) -> Result<String, FieldError> {
    let ok_chars = value
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-'));
    let ok_start = value
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    if !(1..=64).contains(&value.len()) || !ok_chars || !ok_start {
        return Err(FieldError::new(
            field,
            "must be 1-64 characters of a-z, 0-9, '.', '_' or '-', starting with a letter or digit",
        ));
    }
    if uuid::Uuid::try_parse(value).is_ok() {
        return Err(FieldError::new(field, "must not be a UUID"));
    }
    Ok(value.to_owned())
}

/// A search query: non-blank and within the configured length.
pub fn query(field: &str, value: &str, limits: &Limits) -> Result<String, FieldError> {
    text(field, value, limits.max_query_chars)
}

fn text(field: &str, value: &str, max_chars: usize) -> Result<String, FieldError> {
    if is_blank(value) {
        return Err(FieldError::new(field, "must not be empty"));
    }
    if value.chars().count() > max_chars {
        return Err(FieldError::new(
            field,
            format!("must be at most {max_chars} characters"),
        ));
    }
    if value.contains('\0') {
        return Err(FieldError::new(field, NUL));
    }
    Ok(value.to_owned())
}

/// Postgres stores no NUL character in text or jsonb (found by fuzzing: it
/// was a 500).
const NUL: &str = "must not contain NUL (\\u0000) characters";

fn has_nul(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(s) => s.contains('\0'),
        serde_json::Value::Array(a) => a.iter().any(has_nul),
        serde_json::Value::Object(o) => o.iter().any(|(k, v)| k.contains('\0') || has_nul(v)),
        _ => false,
    }
}

/// A number that must lie in `lo..=hi` (and be finite).
pub fn in_range(field: &str, value: f64, lo: f64, hi: f64) -> Result<f64, FieldError> {
    if !value.is_finite() || value < lo || value > hi {
        return Err(FieldError::new(
            field,
            format!("must be between {lo} and {hi}"),
        ));
    }
    Ok(value)
}

/// How deep a client's JSON (metadata, filters) may nest: far below the
/// 128 levels serde_json reads, so what is stored can be read back inside
/// the envelopes around it (an export, an MCP result, a re-import).
pub const MAX_JSON_DEPTH: usize = 32;

/// The nesting depth of a JSON value (a scalar is 0, `{}` and `[]` are 1).
pub fn json_depth(value: &serde_json::Value) -> usize {
    // Iterative, so no input can exhaust the stack.
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &serde_json::Value>> = match v {
            serde_json::Value::Array(a) => Box::new(a.iter()),
            serde_json::Value::Object(o) => Box::new(o.values()),
            _ => continue,
        };
        let depth = depth.saturating_add(1);
        deepest = deepest.max(depth);
        stack.extend(children.map(|c| (c, depth)));
    }
    deepest
}

/// Metadata: a JSON object no larger than the configured size, nested at
/// most [`MAX_JSON_DEPTH`] deep.
pub fn metadata(field: &str, value: &serde_json::Value, limits: &Limits) -> Result<(), FieldError> {
    if !value.is_object() {
        return Err(FieldError::new(field, "must be a JSON object"));
    }
    if json_depth(value) > MAX_JSON_DEPTH {
        return Err(FieldError::new(
            field,
            format!("must nest at most {MAX_JSON_DEPTH} levels deep"),
        ));
    }
    if has_nul(value) {
        return Err(FieldError::new(field, NUL));
    }
    if value.to_string().len() > limits.max_metadata_bytes {
        return Err(FieldError::new(
            field,
            format!(
                "must be at most {} bytes as JSON",
                limits.max_metadata_bytes
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nul_characters_are_refused_in_text_and_metadata() {
        let limits = Limits::default();
        assert_eq!(query("query", "a\0b", &limits).unwrap_err().field, "query");
        assert!(content("content", "a\0b", &limits).is_err());
        assert!(metadata("metadata", &serde_json::json!({"k": ["x\0"]}), &limits).is_err());
        assert!(metadata("metadata", &serde_json::json!({"k\0": 1}), &limits).is_err());
        assert!(query("query", "ordinary text", &limits).is_ok());
    }

    #[test]
    fn identifiers_reject_blank_long_and_control() {
        let l = Limits::default();
        assert!(identifier("user_id", "alice", &l).is_ok());
        assert_eq!(
            identifier("user_id", "  ", &l).unwrap_err().field,
            "user_id"
        );
        assert!(identifier("user_id", &"x".repeat(129), &l).is_err());
        assert!(identifier("user_id", "a\u{0}b", &l).is_err());
    }

    #[test]
    fn invisible_characters_alone_are_blank() {
        let l = Limits::default();
        for blank in [
            "\u{200B}\u{200B}",
            "\u{2060}",
            " \u{FEFF}\u{200D} ",
            "\u{E0041}\u{00AD}",
        ] {
            assert!(identifier("user_id", blank, &l).is_err(), "{blank:?}");
            assert!(content("text", blank, &l).is_err(), "{blank:?}");
            assert!(query("query", blank, &l).is_err(), "{blank:?}");
        }
        // Joiners inside visible text are fine (emoji sequences use them).
        assert!(identifier("user_id", "👩\u{200D}💻", &l).is_ok());
        assert!(content("text", "a\u{200B}b", &l).is_ok());
    }

    #[test]
    fn identifiers_holding_a_secret_are_refused() {
        let l = Limits::default();
        for secret in [
            "sk-proj-abcdefghijklmnop1234",
            "https://bob:S3cretPass@example.com/doc",
            "password=hunter22",
        ] {
            let e = identifier("session_id", secret, &l).unwrap_err();
            assert_eq!(e.field, "session_id");
            assert!(!e.message.contains("hunter22") && !e.message.contains("S3cret"));
        }
        for fine in [
            "0192f6a8-7c3e-7b2a-9d4e-1f2a3b4c5d6e",
            "a1b2c3d4e5f60718293a4b5c6d7e8f90",
            "doc:handbook/2024#p3",
            "https://example.com/doc?id=7",
            "session-42",
        ] {
            assert!(identifier("session_id", fine, &l).is_ok(), "{fine}");
        }
    }

    #[test]
    fn json_is_nested_at_most_the_cap() {
        let l = Limits::default();
        let mut deep = serde_json::json!(1);
        for _ in 0..MAX_JSON_DEPTH {
            deep = serde_json::json!({ "k": deep });
        }
        assert_eq!(json_depth(&deep), MAX_JSON_DEPTH);
        assert!(metadata("metadata", &deep, &l).is_ok());
        let deeper = serde_json::json!({ "k": deep });
        assert_eq!(
            metadata("metadata", &deeper, &l).unwrap_err().message,
            format!("must nest at most {MAX_JSON_DEPTH} levels deep")
        );
        assert_eq!(json_depth(&serde_json::json!({"a": [1, [2]], "b": {}})), 3);
    }

    #[test]
    fn content_counts_characters_not_bytes() {
        let l = Limits {
            max_content_chars: 3,
            ..Limits::default()
        };
        assert!(content("text", "日本語", &l).is_ok());
        assert!(content("text", "日本語!", &l).is_err());
        assert!(content("text", "\n\t ", &l).is_err());
    }

    #[test]
    fn ranges_reject_nan_and_out_of_bounds() {
        assert!(in_range("importance", f64::NAN, 0.0, 1.0).is_err());
        assert!(in_range("importance", 1.01, 0.0, 1.0).is_err());
        assert_eq!(in_range("importance", 1.0, 0.0, 1.0), Ok(1.0));
    }

    #[test]
    fn metadata_must_be_a_bounded_object() {
        let l = Limits {
            max_metadata_bytes: 10,
            ..Limits::default()
        };
        assert!(metadata("metadata", &serde_json::json!([1]), &l).is_err());
        assert!(metadata("metadata", &serde_json::json!({"a": "long value"}), &l).is_err());
        assert!(metadata("metadata", &serde_json::json!({"a": 1}), &l).is_ok());
    }
}
