//! Bearer-key authentication for `/v1`.

use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::Response;

use crate::error::ApiError;
use crate::state::{AppState, Caller};

pub async fn require_api_key(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Result<Response, ApiError> {
    let presented = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .ok_or(ApiError::Unauthorized)?;
    if !state.api_key.matches(presented) {
        return Err(ApiError::Unauthorized);
    }
    req.extensions_mut().insert(Caller::admin());
    Ok(next.run(req).await)
}
