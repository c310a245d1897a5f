//! The Mem0 Platform routes `MemoryClient` (Python and TypeScript) calls,
//! under `/mem0`: thin handlers that parse Mem0's request, run the shared
//! operations and answer in Mem0's shape.

use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::Json;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::Mem0Error;
use crate::filters::{self, ScopeKey};
use crate::input::{self, AddBody, BatchBody, ListBody, SearchBody, UpdateBody};
use crate::ops::{self, SearchSpec, MAX_TOP_K};
use crate::rest::{Api, Rest};
use crate::shape::{self, APP_KEY};

type Answer = Result<Json<Value>, Mem0Error>;

/// `GET /v1/ping/`: the clients' constructor check (the TypeScript one
/// requires `status: ok`). The key is checked by reading who it is.
pub async fn ping(State(rest): State<Rest>, headers: HeaderMap) -> Answer {
    let me = Api::new(&rest, &headers).get("/v1/me").await?;
    Ok(Json(json!({
        "status": "ok",
        "org_id": me["tenant_id"],
        "project_id": "engram",
        "user_id": me["user_id"],
    })))
}

/// `POST /v3/memories/add/`: `infer: true` queues Engram's extraction and
/// answers the job as the event to poll; `infer: false` stores verbatim at
/// once and answers the memories (SUCCEEDED, no event).
pub async fn add(State(rest): State<Rest>, headers: HeaderMap, body: Bytes) -> Answer {
    let req: AddBody = input::body(&body)?;
    let native = req.to_engram()?;
    let api = Api::new(&rest, &headers);
    let r = api.post("/v1/memories", &native).await?;
    if let Some(job) = r.get("job_id") {
        return Ok(Json(json!({
            "message": "Memory processing has been queued for background execution",
            "status": shape::event_status(r["status"].as_str().unwrap_or("queued")),
            "event_id": job,
        })));
    }
    let results: Vec<Value> = r["results"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|m| json!({"id": m["id"], "data": {"memory": m["memory"]}, "event": m["event"]}))
        .collect();
    Ok(Json(json!({"status": "SUCCEEDED", "results": results})))
}

/// `GET /v1/event/{event_id}/`: an add's job as Mem0's event.
pub async fn event(State(rest): State<Rest>, headers: HeaderMap, Path(id): Path<String>) -> Answer {
    let id = input::memory_id(&id, "event_id")?;
    let job = Api::new(&rest, &headers)
        .get(&format!("/v1/jobs/{id}"))
        .await
        .map_err(|e| match e.status.as_u16() {
            404 => Mem0Error::not_found("Event"),
            _ => e,
        })?;
    Ok(Json(json!({
        "id": job["job_id"],
        "event_type": "ADD",
        "status": shape::event_status(job["status"].as_str().unwrap_or("")),
        "results": shape::job_results(&job["results"]),
        "error": job["error"],
        "created_at": job["created_at"],
        "updated_at": job["updated_at"],
        "completed_at": job["finished_at"],
        "metadata": {"user_id": job["user_id"], "agent_id": job["agent_id"], "run_id": job["session_id"]},
    })))
}

fn required_filters(v: &Option<Value>) -> Result<filters::Expr, Mem0Error> {
    match v {
        Some(f) => filters::parse(f, "filters"),
        None => Err(Mem0Error::bad(
            "filters",
            "required, with at least one of user_id, agent_id or run_id (e.g. {\"user_id\": \"alice\"})",
        )),
    }
}

/// Extra conditions given beside `filters` (`categories`, `metadata`,
/// `keywords`, dates), ANDed to it.
fn and_extra(expr: filters::Expr, extra: Vec<(&str, Value)>) -> Result<filters::Expr, Mem0Error> {
    let mut parts = vec![expr];
    for (key, v) in extra {
        parts.push(filters::parse(&json!({ key: v }), key)?);
    }
    Ok(if parts.len() == 1 {
        parts.pop().expect("one")
    } else {
        filters::Expr::And(parts)
    })
}

fn refuse_top_level_ids(req: &SearchBody) -> Result<(), Mem0Error> {
    for (field, v) in [
        ("user_id", &req.user_id),
        ("agent_id", &req.agent_id),
        ("run_id", &req.run_id),
    ] {
        if v.is_some() {
            return Err(Mem0Error::bad(field, "entity ids go inside filters"));
        }
    }
    Ok(())
}

/// `POST /v3/memories/search/`.
pub async fn search(State(rest): State<Rest>, headers: HeaderMap, body: Bytes) -> Answer {
    let req: SearchBody = input::body(&body)?;
    refuse_top_level_ids(&req)?;
    if req.explain.is_some() {
        return Err(Mem0Error::bad(
            "explain",
            "is the OSS server's; Platform search always has score_breakdown",
        ));
    }
    let results = run_search(
        &Api::new(&rest, &headers),
        &req,
        required_filters(&req.filters)?,
    )
    .await?;
    Ok(Json(json!({ "results": results })))
}

/// A search as both surfaces run it, `expr` already parsed.
pub async fn run_search(
    api: &Api,
    req: &SearchBody,
    expr: filters::Expr,
) -> Result<Vec<Value>, Mem0Error> {
    if req.query.trim().is_empty() {
        return Err(Mem0Error::bad("query", "must not be empty"));
    }
    let top_k = req.top_k.unwrap_or(10);
    if !(1..=MAX_TOP_K).contains(&top_k) {
        return Err(Mem0Error::bad("top_k", format!("must be 1 to {MAX_TOP_K}")));
    }
    if let Some(t) = req.threshold.filter(|t| !(0.0..=1.0).contains(t)) {
        return Err(Mem0Error::bad(
            "threshold",
            format!("{t} is not between 0 and 1"),
        ));
    }
    input::output_format(&req.output_format)?;
    let mut extra = Vec::new();
    if let Some(c) = &req.categories {
        extra.push(("categories", json!({ "in": c })));
    }
    if let Some(m) = &req.metadata {
        extra.push(("metadata", Value::Object(m.clone())));
    }
    let expr = and_extra(expr, extra)?;
    let reference_time = match &req.reference_date {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            filters::instant(v, "reference_date")?
                .start
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        ),
    };
    let keyword = req.rerank.unwrap_or(false) || req.keyword_search.unwrap_or(false);
    let hits = ops::search(
        api,
        SearchSpec {
            query: &req.query,
            expr: &expr,
            top_k,
            threshold: req.threshold,
            mode: if keyword { "hybrid" } else { "dense" },
            include_expired: req.show_expired.unwrap_or(false),
            reference_time,
        },
    )
    .await?;
    Ok(project(hits, &req.fields))
}

/// Keeps the named fields (and `id`) when `fields` is given.
fn project(items: Vec<Value>, fields: &Option<Vec<String>>) -> Vec<Value> {
    let Some(fields) = fields else { return items };
    items
        .into_iter()
        .map(|m| {
            let mut out = json!({"id": m["id"]});
            for f in fields {
                if let Some(v) = m.get(f) {
                    out[f] = v.clone();
                }
            }
            out
        })
        .collect()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageQuery {
    page: Option<String>,
    page_size: Option<String>,
}

fn page_number(v: Option<&str>, field: &str, default: i64, max: i64) -> Result<i64, Mem0Error> {
    let n = match v {
        None => default,
        Some(s) => s
            .parse::<i64>()
            .map_err(|_| Mem0Error::bad(field, "must be a whole number"))?,
    };
    if !(1..=max).contains(&n) {
        return Err(Mem0Error::bad(field, format!("must be 1 to {max}")));
    }
    Ok(n)
}

/// `POST /v3/memories/?page=&page_size=`: Mem0's paged list.
pub async fn list(
    State(rest): State<Rest>,
    headers: HeaderMap,
    query: Result<Query<PageQuery>, axum::extract::rejection::QueryRejection>,
    body: Bytes,
) -> Answer {
    let Query(q) = query.map_err(|e| Mem0Error::bad("query", e.body_text()))?;
    let req: ListBody = input::body(&body)?;
    let page = page_number(
        q.page
            .as_deref()
            .or(req.page.map(|p| p.to_string()).as_deref()),
        "page",
        1,
        1_000_000,
    )?;
    let size = page_number(
        q.page_size
            .as_deref()
            .or(req.page_size.map(|p| p.to_string()).as_deref()),
        "page_size",
        100,
        1000,
    )?;
    input::output_format(&req.output_format)?;
    let mut extra = Vec::new();
    if let Some(c) = &req.categories {
        extra.push(("categories", json!({ "in": c })));
    }
    if let Some(k) = &req.keywords {
        extra.push(("keywords", json!({ "icontains": k })));
    }
    if let Some(d) = &req.start_date {
        extra.push(("created_at", json!({ "gte": d })));
    }
    if let Some(d) = &req.end_date {
        extra.push(("created_at", json!({ "lte": d })));
    }
    let expr = and_extra(required_filters(&req.filters)?, extra)?;
    let api = Api::new(&rest, &headers);
    let all = ops::collect(&api, &expr, req.show_expired.unwrap_or(false)).await?;
    let count = all.len() as i64;
    let start = ((page - 1) * size).min(count) as usize;
    let end = (start + size as usize).min(all.len());
    let link = |p: i64| {
        let host = headers
            .get(axum::http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("localhost");
        json!(format!(
            "http://{host}/mem0/v3/memories/?page={p}&page_size={size}"
        ))
    };
    let next = if (end as i64) < count {
        link(page + 1)
    } else {
        Value::Null
    };
    let previous = if page > 1 && start > 0 {
        link(page - 1)
    } else {
        Value::Null
    };
    Ok(Json(json!({
        "count": count,
        "next": next,
        "previous": previous,
        "results": project(all[start..end].to_vec(), &req.fields),
    })))
}

/// `GET /v1/memories/{memory_id}/`.
pub async fn get(State(rest): State<Rest>, headers: HeaderMap, Path(id): Path<String>) -> Answer {
    let id = input::memory_id(&id, "memory_id")?;
    Ok(Json(ops::get(&Api::new(&rest, &headers), id).await?))
}

/// `PUT /v1/memories/{memory_id}/`: text, metadata, expiration_date.
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
    let patch = req.to_engram(current.get(APP_KEY))?;
    Ok(Json(ops::update(&api, id, &patch).await?))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeleteQuery {
    delete_linked: Option<String>,
}

/// `DELETE /v1/memories/{memory_id}/`; `delete_linked=true` also deletes the
/// older memories it superseded, transitively.
pub async fn delete(
    State(rest): State<Rest>,
    headers: HeaderMap,
    Path(id): Path<String>,
    query: Result<Query<DeleteQuery>, axum::extract::rejection::QueryRejection>,
) -> Answer {
    let Query(q) = query.map_err(|e| Mem0Error::bad("query", e.body_text()))?;
    let id = input::memory_id(&id, "memory_id")?;
    let linked = match q.delete_linked.as_deref() {
        None | Some("false") | Some("False") => false,
        Some("true") | Some("True") => true,
        Some(_) => return Err(Mem0Error::bad("delete_linked", "must be true or false")),
    };
    let api = Api::new(&rest, &headers);
    let mut ids = vec![id];
    if linked {
        ids.extend(predecessors(&api, id).await?);
    }
    if ids.len() == 1 {
        ops::delete(&api, id).await?;
    } else {
        ops::get(&api, id).await?;
        let body = json!({ "delete": ids });
        api.post("/v1/memories/batch", &body).await?;
    }
    Ok(Json(json!({
        "message": "Memory deleted successfully!",
        "cascade_count": ids.len() - 1,
    })))
}

/// The memories `id` superseded, and the ones they did, in its user's scope.
async fn predecessors(api: &Api, id: uuid::Uuid) -> Result<Vec<uuid::Uuid>, Mem0Error> {
    let m = ops::get(api, id).await?;
    let path = crate::rest::with_query(
        "/v1/memories",
        &[
            ("user_id", m["user_id"].as_str()),
            (
                "agent_id",
                m["user_id"]
                    .is_null()
                    .then(|| m["agent_id"].as_str())
                    .flatten(),
            ),
            ("include_superseded", Some("true")),
            ("limit", Some("1000")),
        ],
    );
    let page = api.get(&path).await?;
    let all = page["results"].as_array().cloned().unwrap_or_default();
    let mut found = Vec::new();
    let mut frontier = vec![id.to_string()];
    while let Some(next) = frontier.pop() {
        for p in all
            .iter()
            .filter(|p| p["superseded_by"].as_str() == Some(next.as_str()))
        {
            if let Some(pid) = p["id"].as_str().and_then(|s| uuid::Uuid::try_parse(s).ok()) {
                if !found.contains(&pid) {
                    found.push(pid);
                    frontier.push(pid.to_string());
                }
            }
        }
    }
    Ok(found)
}

/// `GET /v1/memories/{memory_id}/history/`.
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScopeParams {
    user_id: Option<String>,
    agent_id: Option<String>,
    app_id: Option<String>,
    run_id: Option<String>,
    org_id: Option<String>,
    project_id: Option<String>,
}

/// `DELETE /v1/memories/?user_id=…`: everything a scope holds.
pub async fn delete_all(
    State(rest): State<Rest>,
    headers: HeaderMap,
    query: Result<Query<ScopeParams>, axum::extract::rejection::QueryRejection>,
) -> Answer {
    let Query(q) = query.map_err(|e| Mem0Error::bad("query", e.body_text()))?;
    let _ = (&q.org_id, &q.project_id);
    if q.app_id.is_some() {
        return Err(Mem0Error::bad(
            "app_id",
            "is metadata in Engram: delete by user_id, agent_id or run_id, or batch-delete the ids a filter lists",
        ));
    }
    let api = Api::new(&rest, &headers);
    let deleted = delete_entities(&api, q.user_id, q.agent_id, q.run_id).await?;
    Ok(Json(
        json!({ "message": "Memories deleted successfully!", "deleted": deleted }),
    ))
}

/// Deletes a user's, agent's or run's memories (a run with its user, as
/// Engram deletes sessions within their user's scope).
pub async fn delete_entities(
    api: &Api,
    user_id: Option<String>,
    agent_id: Option<String>,
    run_id: Option<String>,
) -> Result<i64, Mem0Error> {
    if user_id.is_none() && agent_id.is_none() && run_id.is_none() {
        return Err(Mem0Error::bad(
            "user_id",
            "name at least one of user_id, agent_id or run_id",
        ));
    }
    let scopes = match (&user_id, &agent_id, &run_id) {
        (None, None, Some(run)) => ops::run_scopes(api, run).await?,
        _ => vec![ScopeKey {
            user_id,
            agent_id,
            session_id: run_id,
        }],
    };
    let mut deleted = 0;
    for s in &scopes {
        deleted += ops::delete_scope(api, s).await?;
    }
    Ok(deleted)
}

/// `GET /v1/entities/`: users, agents and runs with memories.
pub async fn entities(State(rest): State<Rest>, headers: HeaderMap) -> Answer {
    let api = Api::new(&rest, &headers);
    let mut results = Vec::new();
    let mut totals = [0usize; 3];
    for (i, (kind, mem0)) in [("user", "user"), ("agent", "agent"), ("session", "run")]
        .into_iter()
        .enumerate()
    {
        let found = ops::entities(&api, kind, 10_000).await?;
        totals[i] = found.len();
        for e in found {
            results.push(json!({
                "id": e["id"],
                "name": e["id"],
                "type": mem0,
                "total_memories": e["memories"],
                "created_at": e["first_created_at"],
                "updated_at": e["last_updated_at"],
                "owner": e["user_id"].as_str().unwrap_or(""),
                "metadata": null,
            }));
        }
    }
    Ok(Json(json!({
        "count": results.len(),
        "next": null,
        "previous": null,
        "results": results,
        "total_users": totals[0],
        "total_agents": totals[1],
        "total_apps": 0,
        "total_runs": totals[2],
    })))
}

/// `DELETE /v2/entities/{type}/{name}/` (and the deprecated `/v1/` form).
pub async fn delete_entity(
    State(rest): State<Rest>,
    headers: HeaderMap,
    Path((kind, name)): Path<(String, String)>,
) -> Answer {
    let api = Api::new(&rest, &headers);
    let deleted = match kind.as_str() {
        "user" => delete_entities(&api, Some(name), None, None).await?,
        "agent" => delete_entities(&api, None, Some(name), None).await?,
        "run" => delete_entities(&api, None, None, Some(name)).await?,
        "app" => {
            return Err(Mem0Error::bad(
                "entity_type",
                "app_id is metadata in Engram; delete its memories by user, agent or run",
            ))
        }
        _ => {
            return Err(Mem0Error::bad(
                "entity_type",
                "must be user, agent, app or run",
            ))
        }
    };
    Ok(Json(
        json!({ "message": "Entity deleted successfully.", "deleted": deleted }),
    ))
}

fn batch_ids(req: &BatchBody) -> Result<Vec<uuid::Uuid>, Mem0Error> {
    if req.memories.is_empty() || req.memories.len() > 1000 {
        return Err(Mem0Error::bad("memories", "give 1 to 1000 memories"));
    }
    req.memories
        .iter()
        .enumerate()
        .map(|(i, m)| input::memory_id(&m.memory_id, &format!("memories[{i}].memory_id")))
        .collect()
}

/// `PUT /v1/batch/`: up to 1000 changes, one transaction.
pub async fn batch_update(State(rest): State<Rest>, headers: HeaderMap, body: Bytes) -> Answer {
    let req: BatchBody = input::body(&body)?;
    let ids = batch_ids(&req)?;
    let api = Api::new(&rest, &headers);
    let mut update = Vec::with_capacity(ids.len());
    for (i, (id, m)) in ids.iter().zip(&req.memories).enumerate() {
        let mut change = json!({ "id": id });
        if let Some(t) = &m.text {
            change["memory"] = json!(t);
        }
        if let Some(meta) = &m.metadata {
            change["metadata"] = Value::Object(meta.clone());
        }
        if change.as_object().is_some_and(|c| c.len() == 1) {
            return Err(Mem0Error::bad(
                format!("memories[{i}].text"),
                "give text or metadata",
            ));
        }
        update.push(change);
    }
    let r = api
        .post("/v1/memories/batch", &json!({ "update": update }))
        .await
        .map_err(batch_error)?;
    Ok(Json(json!({
        "message": format!("Successfully updated {} memories", r["updated"].as_array().map_or(0, Vec::len)),
    })))
}

/// `DELETE /v1/batch/`: up to 1000 deletes, one transaction.
pub async fn batch_delete(State(rest): State<Rest>, headers: HeaderMap, body: Bytes) -> Answer {
    let req: BatchBody = input::body(&body)?;
    let ids = batch_ids(&req)?;
    let api = Api::new(&rest, &headers);
    let r = api
        .post("/v1/memories/batch", &json!({ "delete": ids }))
        .await
        .map_err(batch_error)?;
    Ok(Json(json!({
        "message": format!("Successfully deleted {} memories", r["deleted"].as_array().map_or(0, Vec::len)),
    })))
}

fn batch_error(e: Mem0Error) -> Mem0Error {
    if e.status == axum::http::StatusCode::NOT_FOUND {
        Mem0Error {
            detail: "a memory of the batch was not found; nothing was changed".into(),
            ..e
        }
    } else {
        e
    }
}
