//! Liveness, readiness and the served OpenAPI document.

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use serde_json::json;

use crate::state::AppState;

/// The HTTP contract, embedded at build time.
pub const OPENAPI_YAML: &str = include_str!("../../../../openapi.yaml");

pub async fn healthz() -> Json<serde_json::Value> {
    Json(json!({"status": "ok"}))
}

/// Ready when the database answers with every migration applied and the
/// embedder produces a vector of the right size.
pub async fn readyz(State(state): State<AppState>) -> (StatusCode, Json<serde_json::Value>) {
    let database = match state.store.ready().await {
        Ok(()) => "ok".to_owned(),
        Err(e) => e.to_string(),
    };
    let probe = state.embedder.embed(&["readiness probe".to_owned()]).await;
    let embedder = match probe {
        Ok(v) if v.first().map(Vec::len) == Some(state.embedder.dimensions()) => "ok".to_owned(),
        Ok(_) => "wrong dimensions".to_owned(),
        Err(e) => e.to_string(),
    };
    let ready = database == "ok" && embedder == "ok";
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = json!({
        "status": if ready { "ready" } else { "not ready" },
        "checks": {"database": database, "embedder": embedder},
        "embedder": {"id": state.embedder.id(), "dimensions": state.embedder.dimensions()},
        "models": {
            "extractor": state.config.models.extractor,
            "summarizer": state.config.models.summarizer,
            "conflict_reviewer": state.config.models.conflict_reviewer,
            "structured_output": state.config.models.structured_output,
        },
    });
    (status, Json(body))
}

pub async fn get_openapi() -> impl IntoResponse {
    ([(header::CONTENT_TYPE, "application/yaml")], OPENAPI_YAML)
}
