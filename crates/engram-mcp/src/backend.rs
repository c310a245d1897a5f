//! Where the tools send their work: Engram's own REST API, so a tool does
//! exactly what the matching endpoint does (validation, bound keys, roles,
//! audit, problem documents) and there is one implementation of each
//! operation. In `engram serve` the API is called in process
//! ([`InProcess`], the router itself); `engram mcp` calls a running server
//! over HTTP ([`Remote`]).

use std::time::Duration;

use async_trait::async_trait;
use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, Request};
use serde_json::Value;
use tower::ServiceExt;

/// One REST call: method, path with query, JSON body.
#[derive(Debug, Clone)]
pub struct RestCall {
    pub method: Method,
    /// Path and query, every user-supplied part already encoded.
    pub path: String,
    pub body: Option<Value>,
}

/// The REST answer: status and JSON body (`Null` when empty).
#[derive(Debug, Clone)]
pub struct RestReply {
    pub status: u16,
    pub body: Value,
}

/// Why a call did not reach the API or its answer was unreadable. Never
/// holds a key or a URL's credentials.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct BackendError(pub String);

/// The headers of the MCP request a tool call arrived in that the REST
/// call carries on: the key, the tenant, the request id.
#[derive(Debug, Clone, Default)]
pub struct Forward(pub HeaderMap);

/// The headers a tool call forwards, taken from its MCP request.
pub const FORWARDED: [&str; 3] = ["authorization", "x-engram-tenant", "x-request-id"];

impl Forward {
    pub fn from_headers(headers: &HeaderMap) -> Self {
        let mut kept = HeaderMap::new();
        for name in FORWARDED {
            if let Some(v) = headers.get(name) {
                kept.insert(HeaderName::from_static(name), v.clone());
            }
        }
        Self(kept)
    }
}

#[async_trait]
pub trait Backend: Send + Sync + 'static {
    async fn send(&self, forward: &Forward, call: RestCall) -> Result<RestReply, BackendError>;
}

/// The largest REST answer a tool reads (a page of 1,000 long memories fits).
const MAX_REPLY_BYTES: usize = 32 << 20;

/// The API in this process: the REST router, called like a client would.
#[derive(Clone)]
pub struct InProcess(pub axum::Router);

#[async_trait]
impl Backend for InProcess {
    async fn send(&self, forward: &Forward, call: RestCall) -> Result<RestReply, BackendError> {
        let mut req = Request::builder().method(call.method).uri(&call.path);
        for (name, value) in &forward.0 {
            req = req.header(name, value);
        }
        let req = match call.body {
            Some(body) => req
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(body.to_string())),
            None => req.body(Body::empty()),
        }
        .map_err(|e| BackendError(format!("could not build the request: {e}")))?;
        let resp = self
            .0
            .clone()
            .oneshot(req)
            .await
            .map_err(|e| BackendError(format!("the API failed: {e}")))?;
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), MAX_REPLY_BYTES)
            .await
            .map_err(|e| BackendError(format!("could not read the API's answer: {e}")))?;
        Ok(RestReply {
            status,
            body: parse_body(&bytes)?,
        })
    }
}

/// A running Engram reached over HTTP, with the key (and tenant) of this
/// bridge: what `engram mcp` uses.
pub struct Remote {
    client: reqwest::Client,
    base_url: String,
    headers: HeaderMap,
}

impl Remote {
    /// `base_url` without a trailing slash; `key` sent as a Bearer token.
    pub fn new(
        base_url: &str,
        key: &str,
        tenant: Option<&str>,
        timeout: Duration,
    ) -> Result<Self, BackendError> {
        let mut headers = HeaderMap::new();
        let mut auth = HeaderValue::from_str(&format!("Bearer {key}"))
            .map_err(|_| BackendError("the API key is not a valid header value".into()))?;
        auth.set_sensitive(true);
        headers.insert(header::AUTHORIZATION, auth);
        if let Some(t) = tenant {
            headers.insert(
                HeaderName::from_static("x-engram-tenant"),
                HeaderValue::from_str(t)
                    .map_err(|_| BackendError("the tenant is not a valid header value".into()))?,
            );
        }
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .map_err(|e| BackendError(format!("could not make an HTTP client: {e}")))?;
        Ok(Self {
            client,
            base_url: base_url.trim_end_matches('/').to_owned(),
            headers,
        })
    }
}

#[async_trait]
impl Backend for Remote {
    async fn send(&self, _: &Forward, call: RestCall) -> Result<RestReply, BackendError> {
        let url = format!("{}{}", self.base_url, call.path);
        let mut req = self
            .client
            .request(call.method, &url)
            .headers(self.headers.clone());
        if let Some(body) = call.body {
            req = req.json(&body);
        }
        // reqwest's errors name the URL; ours never carries credentials
        // (engram mcp refuses a URL with them), so they may be shown.
        let resp = req
            .send()
            .await
            .map_err(|e| BackendError(format!("Engram is unreachable: {e}")))?;
        let status = resp.status().as_u16();
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| BackendError(format!("could not read Engram's answer: {e}")))?;
        Ok(RestReply {
            status,
            body: parse_body(&bytes)?,
        })
    }
}

fn parse_body(bytes: &[u8]) -> Result<Value, BackendError> {
    if bytes.is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_slice(bytes)
        .map_err(|e| BackendError(format!("the API answered something other than JSON: {e}")))
}
