//! Request extractors whose rejections are our problem documents, not axum's
//! plain-text ones: bad JSON is 400, a JSON value of the wrong shape is 422 with
//! the field's path, a wrong content type 415, an oversized body 413.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use serde::de::DeserializeOwned;
use serde_json::error::Category;
use uuid::Uuid;

use crate::error::ApiError;

/// A JSON body, deserialized with the failing field's path kept.
pub struct ApiJson<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, ApiError> {
        let content_type = req
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok());
        if !content_type.is_some_and(is_json) {
            return Err(ApiError::UnsupportedMediaType(
                "the request body must be JSON, sent with Content-Type: application/json".into(),
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::PayloadTooLarge
            } else {
                ApiError::MalformedJson(rejection.body_text())
            }
        })?;
        parse_json(&bytes).map(ApiJson)
    }
}

fn is_json(content_type: &str) -> bool {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    mime == "application/json" || (mime.starts_with("application/") && mime.ends_with("+json"))
}

pub(crate) fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        match inner.classify() {
            Category::Data => ApiError::validation(
                field_name(&path, &inner.to_string()),
                strip_position(&inner),
            ),
            _ => ApiError::MalformedJson(format!("the request body is not valid JSON: {inner}")),
        }
    })?;
    de.end()
        .map_err(|e| ApiError::MalformedJson(format!("the request body is not valid JSON: {e}")))?;
    Ok(value)
}

/// serde_path_to_error reports an unknown field at its own path, but a missing
/// one at its parent's, naming it in backticks; the problem names the field itself.
fn field_name(path: &str, message: &str) -> String {
    let missing = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next());
    match (missing, path) {
        (Some(name), "." | "") => name.to_owned(),
        (Some(name), parent) => format!("{parent}.{name}"),
        (None, "") => ".".to_owned(),
        (None, path) => path.to_owned(),
    }
}

fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.find(" at line ") {
        Some(i) => s[..i].to_owned(),
        None => s,
    }
}

/// Query-string parameters, with the same field-naming errors as JSON bodies.
pub struct ApiQuery<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for ApiQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let query = parts.uri.query().unwrap_or("");
        let de = serde_urlencoded::Deserializer::new(form_urlencoded_parse(query));
        serde_path_to_error::deserialize(de)
            .map(ApiQuery)
            .map_err(|e| {
                let path = e.path().to_string();
                let message = e.into_inner().to_string();
                ApiError::validation(field_name(&path, &message), message)
            })
    }
}

fn form_urlencoded_parse(query: &str) -> form_urlencoded::Parse<'_> {
    form_urlencoded::parse(query.as_bytes())
}

/// A path `{id}` that must be a UUID (400 otherwise).
pub struct IdPath(pub Uuid);

impl<S: Send + Sync> FromRequestParts<S> for IdPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError::BadParameter {
                field: "id".into(),
                message: "missing id".into(),
            })?;
        Uuid::try_parse(&raw)
            .map(IdPath)
            .map_err(|_| ApiError::BadParameter {
                field: "id".into(),
                message: format!("`{raw}` is not a UUID"),
            })
    }
}

/// A path segment that must be an identifier: 400 naming it otherwise.
pub(crate) fn path_identifier(
    state: &crate::state::AppState,
    field: &str,
    raw: &str,
) -> Result<String, ApiError> {
    engram_core::validate::reference(field, raw, &state.config.limits).map_err(|e| {
        ApiError::BadParameter {
            field: field.into(),
            message: e.message,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        text: String,
        items: Option<Vec<Item>>,
    }

    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Item {
        n: u8,
    }

    fn field_of(json: &str) -> (u16, Option<String>) {
        match parse_json::<Body>(json.as_bytes()) {
            Err(ApiError::Validation(f)) => (422, Some(f.field)),
            Err(ApiError::MalformedJson(_)) => (400, None),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn errors_name_the_offending_field() {
        assert_eq!(
            field_of(r#"{"text": "a", "bogus": 1}"#),
            (422, Some("bogus".into()))
        );
        assert_eq!(field_of(r#"{}"#), (422, Some("text".into())));
        assert_eq!(field_of(r#"{"text": 5}"#), (422, Some("text".into())));
        assert_eq!(
            field_of(r#"{"text": "a", "items": [{"n": 1}, {"n": 300}]}"#),
            (422, Some("items[1].n".into()))
        );
        assert_eq!(
            field_of(r#"{"text": "a", "items": [{"m": 1}]}"#),
            (422, Some("items[0].m".into()))
        );
    }

    #[test]
    fn syntax_errors_and_trailing_garbage_are_malformed() {
        assert_eq!(field_of(r#"{"text": "a""#), (400, None));
        assert_eq!(field_of(r#"{"text": "a"} x"#), (400, None));
        assert_eq!(field_of(""), (400, None));
    }

    #[test]
    fn json_content_types() {
        assert!(is_json("application/json"));
        assert!(is_json("Application/JSON; charset=utf-8"));
        assert!(is_json("application/merge-patch+json"));
        assert!(!is_json("text/plain"));
        assert!(!is_json("application/x-www-form-urlencoded"));
    }
}
