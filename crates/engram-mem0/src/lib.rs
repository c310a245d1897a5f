//! Mem0 compatibility: the Platform API that Mem0's `MemoryClient` calls
//! (under `/mem0`) and the OSS REST server's API (under `/mem0-oss`), so a
//! team switches by changing the client's `host`. Every route is made of
//! Engram REST calls in process with the caller's own key, like the MCP
//! tools: one implementation of each operation, and every guarantee of the
//! native API (screens, supersession, bound keys, tenant walls, audit).
//!
//! The flow: `adapt` (outermost, on these paths only) turns Mem0's auth
//! headers into a Bearer key and Engram's problem documents into Mem0's
//! error bodies; the handlers (`platform`, `oss`) parse Mem0's request
//! (`input`, `filters`), run `ops` through `rest`, and answer via `shape`.

mod error;
pub mod filters;
mod input;
mod ops;
mod oss;
mod platform;
mod rest;
mod shape;

use axum::extract::Request;
use axum::http::{header, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{on, MethodFilter, MethodRouter};
use axum::Router;

pub use error::Mem0Error;
pub use rest::Rest;

/// Where the Platform surface is mounted (a client's `host` ends in it).
pub const PLATFORM_PREFIX: &str = "/mem0";
/// Where the OSS server's surface is mounted.
pub const OSS_PREFIX: &str = "/mem0-oss";

fn r<H, T>(
    method: Method,
    path: &'static str,
    handler: H,
) -> (Method, &'static str, MethodRouter<Rest>)
where
    H: axum::handler::Handler<T, Rest>,
    T: 'static,
{
    let filter = MethodFilter::try_from(method.clone()).unwrap_or(MethodFilter::GET);
    (method, path, on(filter, handler))
}

/// Every compat operation: the router is built from it and the spec test
/// compares it with `openapi-mem0.yaml`.
fn routes() -> Vec<(Method, &'static str, MethodRouter<Rest>)> {
    use platform as p;
    use Method as M;
    vec![
        r(M::GET, "/mem0/v1/ping/", p::ping),
        r(M::POST, "/mem0/v3/memories/add/", p::add),
        r(M::POST, "/mem0/v3/memories/search/", p::search),
        r(M::POST, "/mem0/v3/memories/", p::list),
        r(M::DELETE, "/mem0/v1/memories/", p::delete_all),
        r(M::GET, "/mem0/v1/memories/{memory_id}/", p::get),
        r(M::PUT, "/mem0/v1/memories/{memory_id}/", p::update),
        r(M::DELETE, "/mem0/v1/memories/{memory_id}/", p::delete),
        r(M::GET, "/mem0/v1/memories/{memory_id}/history/", p::history),
        r(M::GET, "/mem0/v1/entities/", p::entities),
        r(
            M::DELETE,
            "/mem0/v2/entities/{entity_type}/{entity_id}/",
            p::delete_entity,
        ),
        r(
            M::DELETE,
            "/mem0/v1/entities/{entity_type}/{entity_id}/",
            p::delete_entity,
        ),
        r(M::PUT, "/mem0/v1/batch/", p::batch_update),
        r(M::DELETE, "/mem0/v1/batch/", p::batch_delete),
        r(M::GET, "/mem0/v1/event/{event_id}/", p::event),
        r(M::POST, "/mem0-oss/memories", oss::add),
        r(M::GET, "/mem0-oss/memories", oss::list),
        r(M::DELETE, "/mem0-oss/memories", oss::delete_all),
        r(M::GET, "/mem0-oss/memories/{memory_id}", oss::get),
        r(M::PUT, "/mem0-oss/memories/{memory_id}", oss::update),
        r(M::DELETE, "/mem0-oss/memories/{memory_id}", oss::delete),
        r(
            M::GET,
            "/mem0-oss/memories/{memory_id}/history",
            oss::history,
        ),
        r(M::POST, "/mem0-oss/search", oss::search),
        r(M::POST, "/mem0-oss/reset", oss::reset),
    ]
}

/// (method, path) of every compat operation.
pub fn route_table() -> Vec<(Method, &'static str)> {
    routes().into_iter().map(|(m, p, _)| (m, p)).collect()
}

/// The compat routes, calling `rest` (Engram's REST router) in process.
/// Serve them behind Engram's authentication and body limits, with
/// [`adapt`] outermost.
pub fn router<S: Clone + Send + Sync + 'static>(rest: Rest) -> Router<S> {
    let mut router = Router::new();
    for (_, path, handler) in routes() {
        router = router.route(path, handler);
    }
    router.with_state(rest)
}

fn surface(path: &str) -> Option<&'static str> {
    let under = |prefix: &str| path == prefix || path.starts_with(&format!("{prefix}/"));
    if under(OSS_PREFIX) {
        Some(OSS_PREFIX)
    } else if under(PLATFORM_PREFIX) {
        Some(PLATFORM_PREFIX)
    } else {
        None
    }
}

/// On the compat paths only: Mem0's key headers (`Authorization: Token k`
/// from the clients, `X-API-Key: k` for the OSS server) become Engram's
/// `Bearer k`, and every problem document answered (by authentication,
/// admission, limits or a handler) becomes Mem0's error body.
pub async fn adapt(mut req: Request, next: Next) -> Response {
    let Some(prefix) = surface(req.uri().path()) else {
        return next.run(req).await;
    };
    let headers = req.headers_mut();
    let presented = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Token ")
                .or_else(|| v.strip_prefix("token "))
        })
        .map(str::to_owned)
        .or_else(|| {
            let api_key = headers.get("x-api-key").and_then(|v| v.to_str().ok());
            let no_auth = !headers.contains_key(header::AUTHORIZATION);
            (prefix == OSS_PREFIX && no_auth)
                .then(|| api_key.map(str::to_owned))
                .flatten()
        });
    if let Some(key) = presented {
        if let Ok(mut v) = HeaderValue::from_str(&format!("Bearer {}", key.trim())) {
            v.set_sensitive(true);
            headers.insert(header::AUTHORIZATION, v);
        }
    }
    let resp = next.run(req).await;
    let is_problem = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/problem+json"));
    if !is_problem {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 16)
        .await
        .unwrap_or_default();
    let problem: serde_json::Value = serde_json::from_slice(&bytes).unwrap_or_default();
    let mut out = Mem0Error::from_problem(parts.status.as_u16(), &problem).into_response();
    for name in [header::RETRY_AFTER, header::ALLOW] {
        if let Some(v) = parts.headers.get(&name) {
            out.headers_mut().insert(name, v.clone());
        }
    }
    if let Some(v) = parts.headers.get("x-request-id") {
        out.headers_mut().insert("x-request-id", v.clone());
    }
    out
}

/// The spec of the compat routes (linked from openapi.yaml).
pub const OPENAPI_YAML: &str = include_str!("../../../openapi-mem0.yaml");
