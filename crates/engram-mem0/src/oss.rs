//! Mem0's OSS REST server (`server/main.py` in Mem0's repository) under
//! `/mem0-oss`, for teams that call it with plain HTTP and `X-API-Key`.
//! Same operations as the Platform routes, the OSS shapes: adds answer
//! synchronously (extraction waited for), lists and searches `{results}`.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::Mem0Error;
use crate::filters;
use crate::input::{self, AddBody, SearchBody, UpdateBody};
use crate::ops;
use crate::platform::{delete_entities, run_search};
use crate::rest::{Api, Rest};
use crate::shape::{self, APP_KEY};

type Answer = Result<Json<Value>, Mem0Error>;

/// `POST /memories`: stored before the answer; with `infer` the
/// extraction is waited for (bounded by ENGRAM_ADD_WAIT_MS).
pub async fn add(State(rest): State<Rest>, headers: HeaderMap, body: Bytes) -> Answer {
    let req: AddBody = input::body(&body)?;
    let mut native = req.to_engram()?;
    if native["infer"] == json!(true) {
        native["wait"] = json!(true);
    }
    let r = Api::new(&rest, &headers)
        .post("/v1/memories", &native)
        .await?;
    if r.get("job_id").is_some() {
        if r["status"] == json!("done") {
            let results: Vec<Value> = shape::job_results(&r["results"])
                .into_iter()
                .map(|m| {
                    json!({"id": m["id"], "memory": m["data"]["memory"], "event": m["event"],
                                 "previous_memory": m["previous_memory"], "reason": m["reason"]})
                })
                .collect();
            return Ok(Json(json!({ "results": results })));
        }
        return Ok(Json(json!({
            "results": [],
            "event_id": r["job_id"],
            "status": shape::event_status(r["status"].as_str().unwrap_or("queued")),
        })));
    }
    let results: Vec<Value> = r["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| json!({"id": m["id"], "memory": m["memory"], "event": m["event"]}))
        .collect();
    Ok(Json(json!({ "results": results })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    user_id: Option<String>,
    agent_id: Option<String>,
    run_id: Option<String>,
    top_k: Option<String>,
    show_expired: Option<String>,
}

fn flag(v: Option<&str>, field: &str) -> Result<bool, Mem0Error> {
    match v {
        None | Some("false") | Some("False") => Ok(false),
        Some("true") | Some("True") => Ok(true),
        Some(_) => Err(Mem0Error::bad(field, "must be true or false")),
    }
}

/// The filter a set of top-level ids stands for (`"*"` for none).
fn ids_filter(user: &Option<String>, agent: &Option<String>, run: &Option<String>) -> Value {
    let mut f = serde_json::Map::new();
    for (k, v) in [("user_id", user), ("agent_id", agent), ("run_id", run)] {
        if let Some(v) = v {
            f.insert(k.into(), json!(v));
        }
    }
    if f.is_empty() {
        f.insert("user_id".into(), json!("*"));
    }
    Value::Object(f)
}

/// `GET /memories?user_id=…&top_k=…`.
pub async fn list(
    State(rest): State<Rest>,
    headers: HeaderMap,
    query: Result<Query<ListParams>, axum::extract::rejection::QueryRejection>,
) -> Answer {
    let Query(q) = query.map_err(|e| Mem0Error::bad("query", e.body_text()))?;
    let top_k = match q.top_k.as_deref() {
        None => 1000,
        Some(s) => s
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=1000).contains(n))
            .ok_or_else(|| Mem0Error::bad("top_k", "must be 1 to 1000"))?,
    };
    let expr = filters::parse(&ids_filter(&q.user_id, &q.agent_id, &q.run_id), "filters")?;
    let api = Api::new(&rest, &headers);
    let mut all = ops::collect(
        &api,
        &expr,
        flag(q.show_expired.as_deref(), "show_expired")?,
    )
    .await?;
    all.truncate(top_k);
    Ok(Json(json!({ "results": all })))
}

/// `POST /search`: top-level ids (deprecated there) join `filters`.
pub async fn search(State(rest): State<Rest>, headers: HeaderMap, body: Bytes) -> Answer {
    let req: SearchBody = input::body(&body)?;
    let ids = ids_filter(&req.user_id, &req.agent_id, &req.run_id);
    let expr = match &req.filters {
        Some(f) if req.user_id.is_none() && req.agent_id.is_none() && req.run_id.is_none() => {
            filters::parse(f, "filters")?
        }
        Some(f) => filters::Expr::And(vec![
            filters::parse(f, "filters")?,
            filters::parse(&ids, "filters")?,
        ]),
        None => filters::parse(&ids, "filters")?,
    };
    let results = run_search(&Api::new(&rest, &headers), &req, expr).await?;
    Ok(Json(json!({ "results": results })))
}

pub async fn get(State(rest): State<Rest>, headers: HeaderMap, Path(id): Path<String>) -> Answer {
    let id = input::memory_id(&id, "memory_id")?;
    Ok(Json(ops::get(&Api::new(&rest, &headers), id).await?))
}

pub async fn update(
    State(rest): State<Rest>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Answer {
    let id = input::memory_id(&id, "memory_id")?;
    let req: UpdateBody = input::body(&body)?;
    let api = Api::new(&rest, &headers);
    let current = ops::get(&api, id).await?;
    ops::update(&api, id, &req.to_engram(current.get(APP_KEY))?).await?;
    Ok(Json(json!({ "message": "Memory updated successfully!" })))
}

pub async fn history(
    State(rest): State<Rest>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Answer {
    let id = input::memory_id(&id, "memory_id")?;
    Ok(Json(json!(
        ops::history(&Api::new(&rest, &headers), id).await?
    )))
}

pub async fn delete(
    State(rest): State<Rest>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Answer {
    let id = input::memory_id(&id, "memory_id")?;
    ops::delete(&Api::new(&rest, &headers), id).await?;
    Ok(Json(json!({ "message": "Memory deleted successfully" })))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeParams {
    user_id: Option<String>,
    agent_id: Option<String>,
    run_id: Option<String>,
}

/// `DELETE /memories?user_id=…`.
pub async fn delete_all(
    State(rest): State<Rest>,
    headers: HeaderMap,
    query: Result<Query<ScopeParams>, axum::extract::rejection::QueryRejection>,
) -> Answer {
    let Query(q) = query.map_err(|e| Mem0Error::bad("query", e.body_text()))?;
    let api = Api::new(&rest, &headers);
    delete_entities(&api, q.user_id, q.agent_id, q.run_id).await?;
    Ok(Json(json!({ "message": "All relevant memories deleted" })))
}

/// `POST /reset`: every user's and agent's memories in the key's tenant.
/// Not for a key bound to one user (the OSS server wants an admin).
pub async fn reset(State(rest): State<Rest>, headers: HeaderMap) -> Answer {
    let api = Api::new(&rest, &headers);
    let me = api.get("/v1/me").await?;
    if !me["user_id"].is_null() {
        return Err(Mem0Error::forbidden(
            "a key bound to one user may not reset the store",
        ));
    }
    for kind in ["user", "agent"] {
        for id in ops::entity_ids(&api, kind, usize::MAX).await? {
            let (u, a) = if kind == "user" {
                (Some(id), None)
            } else {
                (None, Some(id))
            };
            delete_entities(&api, u, a, None).await?;
        }
    }
    Ok(Json(json!({ "message": "All memories reset" })))
}
