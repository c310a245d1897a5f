//! Bounds on a request besides its body size: how long it may take.

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;

/// Answers 503 (problem+json) when the handler has not produced a response in
/// time; the handler's future is dropped, so its transaction rolls back.
pub async fn timeout(limit: std::time::Duration, req: Request, next: Next) -> Response {
    match tokio::time::timeout(limit, next.run(req)).await {
        Ok(response) => response,
        Err(_) => ApiError::Timeout.into_response(),
    }
}
