//! The API's one error type, rendered as RFC 9457 `application/problem+json`.
//! Every failure a client can cause names its field; details of server-side
//! failures are logged, never returned.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use engram_core::{EmbedError, FieldError};
use engram_store::StoreError;
use serde::Serialize;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("{0}")]
    MalformedJson(String),
    #[error("{field}: {message}")]
    BadParameter { field: String, message: String },
    #[error("missing or invalid API key")]
    Unauthorized,
    #[error("{0}")]
    Forbidden(&'static str),
    #[error("not found")]
    NotFound,
    #[error("no such tenant")]
    TenantNotFound,
    #[error("rate limit exceeded; retry in {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    /// The tenant's jobs waiting reached `ENGRAM_MAX_QUEUED_JOBS`.
    #[error("this tenant has {0} extraction jobs waiting, the most this server queues for one tenant (ENGRAM_MAX_QUEUED_JOBS); retry when some have run, or add with infer: false")]
    QueueFull(i64),
    #[error("the request took longer than this server allows")]
    Timeout,
    #[error("a database query took longer than this server allows (ENGRAM_STATEMENT_TIMEOUT_MS); narrow the request or retry later")]
    QueryTimeout,
    #[error("the server is at its limit of concurrent requests; retry later")]
    Overloaded,
    /// A per-client cap (one address, one API key) on requests at once.
    #[error("too many requests at once from {0}; retry when one has finished")]
    TooManyConcurrent(&'static str),
    #[error("the request body did not arrive in time (ENGRAM_HTTP_BODY_TIMEOUT_SECS)")]
    BodyTimeout,
    #[error("the request body ended before it was complete")]
    BodyIncomplete,
    #[error("no route for this path")]
    RouteNotFound,
    #[error("method not allowed")]
    MethodNotAllowed,
    #[error("{1}")]
    Conflict(engram_store::ConflictKind, String),
    #[error("the request body is larger than this server accepts")]
    PayloadTooLarge,
    #[error("{0}")]
    UnsupportedMediaType(String),
    #[error("{0}")]
    Validation(FieldError),
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error")]
    Internal(String),
}

/// One row per problem: HTTP status, stable type URI and title.
fn kind(e: &ApiError) -> (StatusCode, &'static str, &'static str) {
    use ApiError::*;
    match e {
        MalformedJson(_) => (StatusCode::BAD_REQUEST, "malformed-json", "Malformed JSON"),
        BadParameter { .. } => (
            StatusCode::BAD_REQUEST,
            "bad-parameter",
            "Malformed parameter",
        ),
        Unauthorized => (StatusCode::UNAUTHORIZED, "unauthorized", "Unauthorized"),
        Forbidden(_) => (StatusCode::FORBIDDEN, "forbidden", "Forbidden"),
        NotFound => (StatusCode::NOT_FOUND, "not-found", "Not found"),
        TenantNotFound => (
            StatusCode::NOT_FOUND,
            "tenant-not-found",
            "Tenant not found",
        ),
        RateLimited { .. } => (
            StatusCode::TOO_MANY_REQUESTS,
            "rate-limited",
            "Too many requests",
        ),
        QueueFull(_) => (
            StatusCode::TOO_MANY_REQUESTS,
            "queue-full",
            "Too many jobs waiting",
        ),
        Timeout => (
            StatusCode::SERVICE_UNAVAILABLE,
            "timeout",
            "Request timed out",
        ),
        QueryTimeout => (
            StatusCode::SERVICE_UNAVAILABLE,
            "query-timeout",
            "Query timed out",
        ),
        Overloaded => (StatusCode::SERVICE_UNAVAILABLE, "overloaded", "Overloaded"),
        TooManyConcurrent(_) => (
            StatusCode::TOO_MANY_REQUESTS,
            "too-many-concurrent",
            "Too many requests at once",
        ),
        BodyTimeout => (
            StatusCode::REQUEST_TIMEOUT,
            "body-timeout",
            "Request body timed out",
        ),
        BodyIncomplete => (
            StatusCode::BAD_REQUEST,
            "body-incomplete",
            "Incomplete request body",
        ),
        RouteNotFound => (StatusCode::NOT_FOUND, "route-not-found", "No such endpoint"),
        MethodNotAllowed => (
            StatusCode::METHOD_NOT_ALLOWED,
            "method-not-allowed",
            "Method not allowed",
        ),
        Conflict(kind, _) => (StatusCode::CONFLICT, kind.slug(), "Conflict"),
        PayloadTooLarge => (
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload-too-large",
            "Payload too large",
        ),
        UnsupportedMediaType(_) => (
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported-media-type",
            "Unsupported media type",
        ),
        Validation(_) => (
            StatusCode::UNPROCESSABLE_ENTITY,
            "validation",
            "Invalid request",
        ),
        Unavailable(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "unavailable",
            "Service unavailable",
        ),
        Internal(_) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "Internal server error",
        ),
    }
}

#[derive(Serialize)]
struct Problem<'a> {
    #[serde(rename = "type")]
    type_uri: String,
    title: &'a str,
    status: u16,
    detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    field: Option<&'a str>,
}

impl ApiError {
    pub fn validation(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self::Validation(FieldError::new(field, message))
    }
}

impl From<FieldError> for ApiError {
    fn from(e: FieldError) -> Self {
        Self::Validation(e)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound => Self::NotFound,
            StoreError::Conflict(kind, m) => Self::Conflict(kind, m),
            StoreError::IdempotencyKeyReused => Self::validation(
                "Idempotency-Key",
                "was used for a different request; use a new key",
            ),
            StoreError::Unavailable(e) => {
                // The driver's words stay in the log; the client learns what
                // is unavailable.
                tracing::warn!(error = %engram_store::sanitized(&e), "database unavailable");
                Self::Unavailable("the database is unavailable; retry shortly".into())
            }
            StoreError::StatementTimeout => Self::QueryTimeout,
            StoreError::QueueFull(n) => Self::QueueFull(n),
            other => Self::Internal(other.to_string()),
        }
    }
}

impl From<EmbedError> for ApiError {
    fn from(e: EmbedError) -> Self {
        match e {
            EmbedError::Remote(m) => {
                tracing::warn!(error = %m, "embedding service failed");
                Self::Unavailable("the embedding service is unavailable; retry shortly".into())
            }
            other => Self::Internal(other.to_string()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, slug, title) = kind(&self);
        let detail = match &self {
            Self::Internal(detail) => {
                tracing::error!(error = %detail, "internal error");
                "the server failed to handle this request; see its logs".to_owned()
            }
            Self::Unavailable(detail) => detail.clone(),
            other => other.to_string(),
        };
        let field = match &self {
            Self::Validation(e) => Some(e.field.as_str()),
            Self::BadParameter { field, .. } => Some(field.as_str()),
            Self::TenantNotFound => Some(crate::headers::TENANT_HEADER),
            _ => None,
        };
        let body = Problem {
            type_uri: format!("urn:engram:problem:{slug}"),
            title,
            status: status.as_u16(),
            detail,
            field,
        };
        let mut response = (status, axum::Json(body)).into_response();
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/problem+json"),
        );
        let retry_after = match self {
            Self::RateLimited { retry_after_secs } => Some(retry_after_secs),
            Self::QueryTimeout | Self::Overloaded | Self::TooManyConcurrent(_) => Some(1),
            // A burst drains at tens of jobs a second with the rules.
            Self::QueueFull(_) => Some(5),
            _ => None,
        };
        if let Some(secs) = retry_after {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if status == StatusCode::UNAUTHORIZED {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}
