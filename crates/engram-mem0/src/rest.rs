//! Where the compat handlers send their work: Engram's own REST API, in
//! process (the router itself, called like a client would), with the
//! caller's key. So a Mem0 call does exactly what the Engram calls it is
//! made of do: validation, screens, bound keys, roles, audit.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderName, Method, Request};
use serde_json::Value;
use tower::ServiceExt;

use crate::error::Mem0Error;

/// The headers a compat request carries on to the REST calls it makes:
/// the key (already `Bearer`, see `adapt`), the tenant, the request id.
const FORWARDED: [&str; 3] = ["authorization", "x-engram-tenant", "x-request-id"];

/// The largest REST answer read (a page of 1,000 long memories fits).
const MAX_REPLY_BYTES: usize = 32 << 20;

/// The REST router of this process.
#[derive(Clone)]
pub struct Rest(pub axum::Router);

/// One caller's view of the REST API: the router and the headers to send.
#[derive(Clone)]
pub struct Api {
    rest: Rest,
    headers: HeaderMap,
}

/// A REST answer: status and JSON body (`Null` when empty).
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Value,
}

impl Api {
    pub fn new(rest: &Rest, incoming: &HeaderMap) -> Self {
        let mut headers = HeaderMap::new();
        for name in FORWARDED {
            if let Some(v) = incoming.get(name) {
                headers.insert(HeaderName::from_static(name), v.clone());
            }
        }
        Self {
            rest: rest.clone(),
            headers,
        }
    }

    /// Sends one call and answers its reply, whatever the status.
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Reply, Mem0Error> {
        let mut req = Request::builder().method(method).uri(path);
        for (name, value) in &self.headers {
            req = req.header(name, value);
        }
        let req = match body {
            Some(b) => req
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(b.to_string())),
            None => req.body(Body::empty()),
        }
        .map_err(|e| Mem0Error::internal(format!("could not build a request: {e}")))?;
        let resp = self
            .rest
            .0
            .clone()
            .oneshot(req)
            .await
            .map_err(|e| Mem0Error::internal(format!("the API failed: {e}")))?;
        let status = resp.status().as_u16();
        let bytes = axum::body::to_bytes(resp.into_body(), MAX_REPLY_BYTES)
            .await
            .map_err(|e| Mem0Error::internal(format!("could not read the API's answer: {e}")))?;
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes)
                .map_err(|e| Mem0Error::internal(format!("the API answered non-JSON: {e}")))?
        };
        Ok(Reply { status, body })
    }

    /// Sends one call; a 2xx body, else the problem as a Mem0 error.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Value, Mem0Error> {
        let reply = self.send(method, path, body).await?;
        if (200..300).contains(&reply.status) {
            Ok(reply.body)
        } else {
            Err(Mem0Error::from_problem(reply.status, &reply.body))
        }
    }

    pub async fn get(&self, path: &str) -> Result<Value, Mem0Error> {
        self.call(Method::GET, path, None).await
    }

    pub async fn post(&self, path: &str, body: &Value) -> Result<Value, Mem0Error> {
        self.call(Method::POST, path, Some(body)).await
    }
}

/// `path?k=v&…` with every value encoded; `None` values left out.
pub fn with_query(path: &str, pairs: &[(&str, Option<&str>)]) -> String {
    let mut q = form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        if let Some(v) = v {
            q.append_pair(k, v);
        }
    }
    let q = q.finish();
    if q.is_empty() {
        path.to_owned()
    } else {
        format!("{path}?{q}")
    }
}
