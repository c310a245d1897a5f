//! Errors as Mem0's clients read them: JSON (`application/json`, which the
//! Python client requires before it reads the body) with the message in
//! `detail`, which both clients put in the exception they raise, and the
//! status they map to their exception classes (400 `ValidationError`, 401
//! `AuthenticationError`, 404 `MemoryNotFoundError`, 429 `RateLimitError`).
//! Engram's problem documents are turned into this shape, field included.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};

#[derive(Debug)]
pub struct Mem0Error {
    pub status: StatusCode,
    pub detail: String,
    /// The offending field, as a path (`filters.AND[1].created_at`).
    pub field: Option<String>,
}

impl Mem0Error {
    pub fn bad(field: impl Into<String>, message: impl AsRef<str>) -> Self {
        let field = field.into();
        Self {
            status: StatusCode::BAD_REQUEST,
            detail: format!("{field}: {}", message.as_ref()),
            field: Some(field),
        }
    }

    pub fn not_found(what: &str) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            detail: format!("{what} not found"),
            field: None,
        }
    }

    pub fn forbidden(message: &str) -> Self {
        Self {
            status: StatusCode::FORBIDDEN,
            detail: message.to_owned(),
            field: None,
        }
    }

    /// A fault on this side: logged, and answered without its words.
    pub fn internal(message: String) -> Self {
        tracing::error!(error = %message, "mem0 compat call failed");
        Self {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            detail: "internal error".into(),
            field: None,
        }
    }

    /// An Engram problem document (`status`, `detail`, `field`) as a Mem0
    /// error. A validation problem (422) is Mem0's 400.
    pub fn from_problem(status: u16, body: &Value) -> Self {
        let status = match status {
            422 => StatusCode::BAD_REQUEST,
            s => StatusCode::from_u16(s).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        };
        let field = body["field"].as_str().map(str::to_owned);
        let message = body["detail"]
            .as_str()
            .or(body["title"].as_str())
            .unwrap_or("request failed");
        let detail = match (&field, status) {
            (Some(f), StatusCode::BAD_REQUEST) if !message.starts_with(f.as_str()) => {
                format!("{f}: {message}")
            }
            _ => message.to_owned(),
        };
        Self {
            status,
            detail,
            field,
        }
    }

    pub fn body(&self) -> Value {
        let mut body = json!({
            "detail": self.detail,
            "error": self.status.canonical_reason().unwrap_or("error"),
        });
        if let Some(f) = &self.field {
            body["field"] = json!(f);
        }
        body
    }
}

impl IntoResponse for Mem0Error {
    fn into_response(self) -> Response {
        let mut resp = (self.status, axum::Json(self.body())).into_response();
        resp.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        resp
    }
}
