//! Engram for agents: a Model Context Protocol server (rmcp, the official
//! Rust SDK) whose tools — add, search, list, get, update, delete, forget,
//! profile, context — call Engram's REST API, so each does exactly what its
//! endpoint does, with the caller's own key.
//!
//! Two transports, one implementation of the tools:
//! - streamable HTTP at `/mcp` in `engram serve` ([`http_service`]):
//!   stateless (no MCP session is kept between requests; every request
//!   carries the key), answers as plain JSON where the protocol allows;
//! - stdio for desktop clients (`engram mcp`, [`serve_stdio`]), forwarding
//!   to a running Engram over HTTP.
//!
//! Whose memories a call touches: a key bound to a user acts only for that
//! user (the API enforces it); with an unbound key a tool's `user_id`
//! argument names the user, else the connection's default
//! (`X-Engram-User` / `X-Engram-Agent` headers, or `ENGRAM_USER_ID` /
//! `ENGRAM_AGENT_ID` for `engram mcp`).

pub mod backend;
mod render;
mod server;
pub mod tools;

use std::sync::Arc;

use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::ServiceExt;

pub use backend::{Backend, BackendError, Forward, InProcess, Remote};
pub use server::EngramMcp;
pub use tools::{Defaults, AGENT_HEADER, USER_HEADER};

/// The `/mcp` endpoint's service: stateless streamable HTTP. `allowed_hosts`
/// restricts the `Host` header (DNS-rebinding protection); empty allows any,
/// which is safe here because every request must carry a valid key.
pub fn http_service(
    backend: Arc<dyn Backend>,
    allowed_hosts: &[String],
) -> StreamableHttpService<EngramMcp, NeverSessionManager> {
    let mut config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true)
        .with_sse_keep_alive(None);
    config = if allowed_hosts.is_empty() {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(allowed_hosts.iter().cloned())
    };
    let server = EngramMcp::new(backend, Defaults::default());
    StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    )
}

/// Serves the tools over stdin/stdout until the client closes them.
pub async fn serve_stdio(
    backend: Arc<dyn Backend>,
    defaults: Defaults,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let running = EngramMcp::new(backend, defaults)
        .serve(rmcp::transport::stdio())
        .await?;
    running.waiting().await?;
    Ok(())
}
