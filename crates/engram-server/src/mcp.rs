//! The MCP endpoint of `engram serve` (`/mcp`) and the bridge `engram mcp`.
//! The tools live in engram-mcp and call the REST API: in process here, over
//! HTTP from the bridge.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::Request;
use axum::middleware::{from_fn, Next};
use axum::response::Response;
use axum::Router;
use engram_api::{ApiError, AppState, Caller};
use engram_mcp::{Defaults, InProcess, Remote};

use crate::config::{Endpoint, Secret};

/// The endpoints served besides the REST operations (openapi.yaml lists
/// them under `x-non-rest-endpoints`; a test keeps the two equal).
pub const NON_REST_ENDPOINTS: [&str; 2] = ["/mcp", engram_console::PATH];

/// `/mcp`: streamable HTTP, stateless. `engram_api::app_with` puts it behind
/// the API's authentication, so a missing or wrong key is 401 and a
/// default user the key may not act for 403, before any MCP exchange.
/// `rest` is the REST API the tools call in process.
pub fn router(state: &AppState, rest: axum::Router) -> Router<AppState> {
    let service =
        engram_mcp::http_service(Arc::new(InProcess(rest)), &state.config.mcp_allowed_hosts);
    let limit = state.config.max_body_bytes;
    Router::new()
        .route_service("/mcp", service)
        .route_layer(from_fn(check_defaults))
        .route_layer(from_fn(move |req, next| parse_first(limit, req, next)))
}

/// A POST body that is not JSON the reader accepts (malformed, or nested
/// past serde_json's depth limit of 128) is answered as JSON-RPC answers a
/// parse error (-32700, HTTP 400), before the MCP service (which would
/// answer 415) reads it.
async fn parse_first(limit: usize, req: Request, next: Next) -> Result<Response, ApiError> {
    use axum::response::IntoResponse;
    if req.method() != axum::http::Method::POST {
        return Ok(next.run(req).await);
    }
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, limit)
        .await
        .map_err(|_| ApiError::PayloadTooLarge)?;
    if let Err(e) = serde_json::from_slice::<serde_json::Value>(&bytes) {
        // serde_json's message names the line and column, never the text.
        let error = serde_json::json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32700, "message": format!("Parse error: {e}")},
        });
        return Ok((axum::http::StatusCode::BAD_REQUEST, axum::Json(error)).into_response());
    }
    Ok(next
        .run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await)
}

/// A key bound to a user may name only that user (and agent) as the
/// connection's default.
async fn check_defaults(req: Request, next: Next) -> Result<Response, ApiError> {
    let defaults = Defaults::from_headers(req.headers());
    if let Some(binding) = req
        .extensions()
        .get::<Caller>()
        .and_then(|c| c.binding.as_ref())
    {
        binding.fill(defaults.user_id.as_deref(), defaults.agent_id.as_deref())?;
    }
    Ok(next.run(req).await)
}

/// `engram mcp`: where the bridge forwards to, with which key, for whom.
#[derive(clap::Args)]
pub struct BridgeArgs {
    /// The running Engram to forward to.
    #[arg(long, env = "ENGRAM_URL", default_value = "http://127.0.0.1:8420")]
    pub url: Endpoint,
    /// The key the tools act with (a key bound to one user is the safest
    /// to hand an agent).
    #[arg(long = "api-key", env = "ENGRAM_API_KEY")]
    pub api_key: Secret,
    /// The tenant to act in (admin keys only).
    #[arg(long, env = "ENGRAM_TENANT")]
    pub tenant: Option<String>,
    /// The user calls act for when they name none (not needed with a key
    /// bound to a user).
    #[arg(long = "user-id", env = "ENGRAM_USER_ID")]
    pub user_id: Option<String>,
    /// The agent calls act for when they name none.
    #[arg(long = "agent-id", env = "ENGRAM_AGENT_ID")]
    pub agent_id: Option<String>,
    /// How long one REST call may take.
    #[arg(
        long = "timeout-secs",
        env = "ENGRAM_TIMEOUT_SECS",
        default_value_t = 60
    )]
    pub timeout_secs: u64,
}

/// Serves the tools on stdin/stdout, forwarding to Engram over HTTP, until
/// the client closes stdin.
pub async fn bridge(args: BridgeArgs) -> anyhow::Result<()> {
    if args.url.shown() != args.url.0 {
        anyhow::bail!("ENGRAM_URL must not carry credentials; give the key in ENGRAM_API_KEY");
    }
    let remote = Remote::new(
        &args.url.0,
        &args.api_key.0,
        args.tenant.as_deref(),
        Duration::from_secs(args.timeout_secs.max(1)),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let defaults = Defaults {
        user_id: args.user_id,
        agent_id: args.agent_id,
    };
    tracing::info!(url = %args.url.shown(), "MCP on stdio, forwarding to Engram");
    engram_mcp::serve_stdio(Arc::new(remote), defaults)
        .await
        .map_err(|e| anyhow::anyhow!("MCP stdio: {e}"))
}
