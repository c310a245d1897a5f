//! The operations both Mem0 surfaces share, each made of Engram REST calls:
//! which scopes a filter reaches, listing and searching them, one memory's
//! read, change, delete and history, a scope's delete.

use axum::http::Method;
use chrono::Utc;
use serde_json::{json, Value};

use crate::error::Mem0Error;
use crate::filters::{self, Expr, ScopeKey};
use crate::rest::{with_query, Api};
use crate::shape;

/// Memories one list may gather before paging (beyond, narrow the filter
/// or page Engram's own `/v1/memories` by cursor).
pub const MAX_COLLECT: usize = 10_000;
/// Open scopes (`{"user_id": "*"}`) expand to at most this many users and
/// agents.
pub const MAX_OPEN: usize = 100;
/// Engram's search answers at most this many per call.
pub const MAX_TOP_K: i64 = 100;

/// The scopes to call for `expr`: its cover, with an open one (no user,
/// agent or run named) expanded to the users and agents the key can see.
pub async fn scopes(api: &Api, expr: &Expr) -> Result<Vec<ScopeKey>, Mem0Error> {
    let cover = filters::scopes(expr)?;
    if !cover.iter().any(ScopeKey::is_open) {
        return Ok(cover);
    }
    let mut out: Vec<ScopeKey> = cover.into_iter().filter(|s| !s.is_open()).collect();
    for kind in ["user", "agent"] {
        for id in entity_ids(api, kind, MAX_OPEN + 1).await? {
            out.push(match kind {
                "user" => ScopeKey {
                    user_id: Some(id),
                    ..Default::default()
                },
                _ => ScopeKey {
                    agent_id: Some(id),
                    ..Default::default()
                },
            });
        }
    }
    if out.len() > MAX_OPEN {
        return Err(Mem0Error::bad(
            "filters",
            format!(
                "reach more than {MAX_OPEN} users and agents; name a user_id, agent_id or run_id"
            ),
        ));
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Ids of one entity kind, at most `cap`.
pub async fn entity_ids(api: &Api, kind: &str, cap: usize) -> Result<Vec<String>, Mem0Error> {
    Ok(entities(api, kind, cap)
        .await?
        .into_iter()
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .collect())
}

/// Entities of one kind (`GET /v1/entities`), every page, at most `cap`.
pub async fn entities(api: &Api, kind: &str, cap: usize) -> Result<Vec<Value>, Mem0Error> {
    let mut out = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let path = with_query(
            "/v1/entities",
            &[
                ("type", Some(kind)),
                ("limit", Some("1000")),
                ("after", after.as_deref()),
            ],
        );
        let page = api.get(&path).await?;
        out.extend(page["results"].as_array().cloned().unwrap_or_default());
        after = page["next_after"].as_str().map(str::to_owned);
        if after.is_none() || out.len() >= cap {
            out.truncate(cap);
            return Ok(out);
        }
    }
}

fn scope_pairs(s: &ScopeKey) -> [(&'static str, Option<&str>); 3] {
    [
        ("user_id", s.user_id.as_deref()),
        ("agent_id", s.agent_id.as_deref()),
        ("session_id", s.session_id.as_deref()),
    ]
}

/// Every memory in view of one scope, in Mem0's shape.
async fn list_scope(
    api: &Api,
    scope: &ScopeKey,
    include_expired: bool,
    out: &mut Vec<Value>,
) -> Result<(), Mem0Error> {
    let now = Utc::now();
    let mut cursor: Option<String> = None;
    loop {
        let mut pairs = scope_pairs(scope).to_vec();
        pairs.push(("limit", Some("1000")));
        pairs.push(("include_expired", include_expired.then_some("true")));
        pairs.push(("cursor", cursor.as_deref()));
        let page = api.get(&with_query("/v1/memories", &pairs)).await?;
        for m in page["results"].as_array().into_iter().flatten() {
            out.push(shape::memory(m, now));
        }
        if out.len() > MAX_COLLECT {
            return Err(Mem0Error::bad(
                "filters",
                format!("match more than {MAX_COLLECT} memories; narrow them"),
            ));
        }
        cursor = page["next_cursor"].as_str().map(str::to_owned);
        if cursor.is_none() {
            return Ok(());
        }
    }
}

/// The memories `expr` matches, newest first, each once.
pub async fn collect(
    api: &Api,
    expr: &Expr,
    include_expired: bool,
) -> Result<Vec<Value>, Mem0Error> {
    let mut all = Vec::new();
    for scope in scopes(api, expr).await? {
        list_scope(api, &scope, include_expired, &mut all).await?;
    }
    let mut seen = std::collections::HashSet::new();
    all.retain(|m| filters::matches(expr, m) && seen.insert(m["id"].to_string()));
    all.sort_by(|a, b| {
        let key = |m: &Value| {
            (
                m["created_at"].as_str().map(str::to_owned),
                m["id"].to_string(),
            )
        };
        key(b).cmp(&key(a))
    });
    Ok(all)
}

/// How one search runs.
pub struct SearchSpec<'a> {
    pub query: &'a str,
    pub expr: &'a Expr,
    pub top_k: i64,
    pub threshold: Option<f64>,
    /// dense | hybrid (rerank and keyword search ask for the keyword side).
    pub mode: &'static str,
    pub include_expired: bool,
    pub reference_time: Option<String>,
}

/// The best `top_k` matches of `expr` for the query across its scopes.
pub async fn search(api: &Api, spec: SearchSpec<'_>) -> Result<Vec<Value>, Mem0Error> {
    let push = filters::pushdown(spec.expr);
    let mut native_filters = json!({});
    if !push.metadata.is_empty() {
        native_filters["metadata"] = Value::Object(push.metadata.clone());
    }
    let fmt = |t: chrono::DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    if push.created_gte.is_some() || push.created_lte.is_some() {
        let mut range = json!({});
        if let Some(t) = push.created_gte {
            range["gte"] = json!(fmt(t));
        }
        if let Some(t) = push.created_lte {
            range["lte"] = json!(fmt(t));
        }
        native_filters["created_at"] = range;
    }
    // More candidates than asked for: the filter may drop some.
    let candidates = (spec.top_k * 3).clamp(30, MAX_TOP_K);
    let now = Utc::now();
    let mut hits: Vec<Value> = Vec::new();
    for scope in scopes(api, spec.expr).await? {
        let mut body = json!({
            "query": spec.query,
            "top_k": candidates,
            "mode": spec.mode,
            "include_expired": spec.include_expired,
            "filters": native_filters,
        });
        for (k, v) in scope_pairs(&scope) {
            if let Some(v) = v {
                body[k] = json!(v);
            }
        }
        if let Some(t) = spec.threshold {
            body["threshold"] = json!(t);
        }
        if let Some(t) = &spec.reference_time {
            body["reference_time"] = json!(t);
        }
        let found = api.post("/v1/memories/search", &body).await?;
        for h in found["results"].as_array().into_iter().flatten() {
            let m = shape::memory(h, now);
            if filters::matches(spec.expr, &m) {
                hits.push(m);
            }
        }
    }
    hits.sort_by(|a, b| {
        let s = |m: &Value| m["score"].as_f64().unwrap_or(0.0);
        s(b).total_cmp(&s(a))
    });
    let mut seen = std::collections::HashSet::new();
    hits.retain(|m| seen.insert(m["id"].to_string()));
    hits.truncate(spec.top_k as usize);
    Ok(hits)
}

/// One memory in Mem0's shape (404 when it is not the caller's to see).
pub async fn get(api: &Api, id: uuid::Uuid) -> Result<Value, Mem0Error> {
    let m = api
        .get(&format!("/v1/memories/{id}"))
        .await
        .map_err(not_found)?;
    Ok(shape::memory(&m, Utc::now()))
}

/// Changes one memory (`patch` in Engram's PATCH shape).
pub async fn update(api: &Api, id: uuid::Uuid, patch: &Value) -> Result<Value, Mem0Error> {
    let m = api
        .call(Method::PATCH, &format!("/v1/memories/{id}"), Some(patch))
        .await
        .map_err(not_found)?;
    Ok(shape::memory(&m, Utc::now()))
}

pub async fn delete(api: &Api, id: uuid::Uuid) -> Result<(), Mem0Error> {
    api.call(Method::DELETE, &format!("/v1/memories/{id}"), None)
        .await
        .map_err(not_found)?;
    Ok(())
}

/// A memory's history as Mem0's rows, oldest first.
pub async fn history(api: &Api, id: uuid::Uuid) -> Result<Vec<Value>, Mem0Error> {
    let h = api
        .get(&format!("/v1/memories/{id}/history"))
        .await
        .map_err(not_found)?;
    // Whose it is, while it can still be read (a deleted one cannot).
    let owner = match api.get(&format!("/v1/memories/{id}")).await {
        Ok(m) => m,
        Err(_) => Value::Null,
    };
    let mut rows: Vec<Value> = h["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| shape::history_row(r, &owner))
        .collect();
    rows.sort_by(|a, b| a["created_at"].as_str().cmp(&b["created_at"].as_str()));
    Ok(rows)
}

/// Deletes what a scope holds (Engram's scope delete: memories in every
/// state, their history, the scope's sessions); the count of memories.
pub async fn delete_scope(api: &Api, scope: &ScopeKey) -> Result<i64, Mem0Error> {
    let path = with_query("/v1/memories", &scope_pairs(scope));
    let r = api.call(Method::DELETE, &path, None).await?;
    Ok(r["deleted"].as_i64().unwrap_or(0))
}

/// A run (session) id's owners: the users whose memories name it.
pub async fn run_scopes(api: &Api, run_id: &str) -> Result<Vec<ScopeKey>, Mem0Error> {
    let path = with_query(
        "/v1/memories",
        &[("session_id", Some(run_id)), ("limit", Some("1000"))],
    );
    let page = api.get(&path).await?;
    let mut users: Vec<String> = page["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["user_id"].as_str().map(str::to_owned))
        .collect();
    users.sort();
    users.dedup();
    Ok(users
        .into_iter()
        .map(|u| ScopeKey {
            user_id: Some(u),
            agent_id: None,
            session_id: Some(run_id.to_owned()),
        })
        .collect())
}

/// A 404 from Engram is Mem0's "Memory not found".
fn not_found(e: Mem0Error) -> Mem0Error {
    if e.status == axum::http::StatusCode::NOT_FOUND {
        Mem0Error::not_found("Memory")
    } else {
        e
    }
}
