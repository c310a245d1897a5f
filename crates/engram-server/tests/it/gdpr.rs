//! The GDPR endpoints through HTTP: every state of a user's memories, hard
//! deletion of one, export and `engram import`, erasure with a no-trace proof
//! over every column of every table, and purging what one source produced.

use crate::common::{embedder, spawn_app, tables_holding, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use sqlx::PgPool;

async fn infer_with_source(app: &TestApp, user: &str, text: &str, source: Option<&str>) -> Value {
    let mut body = json!({"user_id": user, "wait": true, "text": text});
    if let Some(s) = source {
        body["source"] = json!({"type": "user_stated", "ref": s});
    }
    let r = app.post("/v1/memories", body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["status"], "done", "{}", r.body);
    r.body
}

/// (a, b) of every item of `items`, sorted.
fn pairs(items: &Value, a: &str, b: &str) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m[a].as_str().unwrap().to_owned(),
                m[b].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    v.sort();
    v
}

fn states_of(body: &Value) -> Vec<(String, String)> {
    pairs(&body["results"], "memory", "state")
}

#[sqlx::test(migrations = false)]
async fn the_admin_sees_every_state_with_history_and_can_purge_one(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.add_text("fay", "I like green tea.").await;
    infer_with_source(&app, "fay", "I live in Oslo.", None).await;
    infer_with_source(&app, "fay", "I moved to Bergen.", None).await;
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "fay", "infer": false, "text": "I am at the dentist today.", "ttl_seconds": 60}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    let gone = app.add_text("fay", "I own a red kayak.").await;
    assert_eq!(
        app.delete(&format!("/v1/memories/{gone}")).await.status,
        StatusCode::NO_CONTENT
    );
    app.clock.advance(chrono::Duration::hours(2));
    app.add_text("gus", "I like green tea.").await;

    let all = app.get("/v1/admin/users/fay/memories").await;
    assert_eq!(all.status, StatusCode::OK, "{}", all.body);
    let states = states_of(&all.body);
    let state_names: Vec<&str> = states.iter().map(|(_, s)| s.as_str()).collect();
    for s in ["live", "superseded", "expired", "deleted"] {
        assert!(state_names.contains(&s), "{s} missing: {states:?}");
    }
    assert!(!all.body.to_string().contains("gus"));
    for m in all.body["results"].as_array().unwrap() {
        assert!(
            !m["history"].as_array().unwrap().is_empty(),
            "every memory has history: {m}"
        );
    }
    let oslo = all.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["memory"].as_str().unwrap().contains("Oslo"))
        .unwrap();
    assert_eq!(oslo["state"], "superseded");
    let events: Vec<&str> = oslo["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["event"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["ADD", "SUPERSEDE"]);
    assert!(oslo["provenance"]["job_id"].is_string());

    let deleted = app
        .get("/v1/admin/users/fay/memories?states=deleted,expired")
        .await;
    let mut only: Vec<String> = states_of(&deleted.body)
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    only.sort();
    assert_eq!(only, ["deleted", "expired"]);
    app.get("/v1/admin/users/fay/memories?states=live,bogus")
        .await
        .assert_problem(422, Some("states"));
    app.get("/v1/admin/users/fay/memories?limit=0")
        .await
        .assert_problem(422, Some("limit"));
    // Paged: two at a time, every memory once.
    let mut seen = 0;
    let mut cursor = String::new();
    loop {
        let page = app
            .get(&format!("/v1/admin/users/fay/memories?limit=2{cursor}"))
            .await;
        seen += page.body["results"].as_array().unwrap().len();
        match page.body["next_cursor"].as_str() {
            Some(c) => cursor = format!("&cursor={c}"),
            None => break,
        }
    }
    assert_eq!(seen, states.len());

    // Search reaches the states ordinary search never shows.
    let r = app
        .post(
            "/v1/admin/users/fay/search",
            json!({"query": "kayak", "states": ["deleted"]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["results"][0]["memory"], "I own a red kayak.");
    assert!(r.body["results"][0]["relevance"].as_f64().unwrap() > 0.3);
    app.post("/v1/admin/users/fay/search", json!({"query": ""}))
        .await
        .assert_problem(422, Some("query"));

    // Purging one memory removes it and its history from every table.
    let r = app
        .delete(&format!("/v1/admin/users/gus/memories/{gone}"))
        .await;
    r.assert_problem(404, None); // not gus's
    let r = app
        .delete(&format!("/v1/admin/users/fay/memories/{gone}"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["counts"]["memories"], 1);
    assert_eq!(r.body["counts"]["memory_history"], 2); // ADD, DELETE
    assert!(tables_holding(&app, "kayak").await.is_empty());
    app.delete(&format!("/v1/admin/users/fay/memories/{gone}"))
        .await
        .assert_problem(404, None);
}

#[sqlx::test(migrations = false)]
async fn erasure_leaves_no_trace_and_an_export_imports_back(pool: PgPool) {
    let app = spawn_app(pool).await;
    // Carol: raw memories, extracted facts with a supersession, a soft delete,
    // an expired memory, and a queued job still holding its messages.
    app.add_text("carol", "I adore quokkas from Rottnest.")
        .await;
    infer_with_source(&app, "carol", "I live in Tromsø.", Some("chat-carol-1")).await;
    infer_with_source(&app, "carol", "I moved to Bergen.", Some("chat-carol-2")).await;
    let soft = app.add_text("carol", "My bicycle is a Brompton.").await;
    app.delete(&format!("/v1/memories/{soft}")).await;
    app.post(
        "/v1/memories",
        json!({"user_id": "carol", "infer": false, "text": "Dinner with Zuleika tonight.", "ttl_seconds": 1}),
    )
    .await;
    app.stop_workers.send(true).unwrap();
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "carol", "text": "My favourite tea is lapsang souchong."}),
        )
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    // A session: turns kept verbatim, to be exported and erased too.
    let r = app
        .post(
            "/v1/sessions/carol-chat/messages",
            json!({"user_id": "carol", "infer": false,
                   "messages": [{"role": "user", "content": "We snorkelled off Vanuatu."}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    // A bystander who must be untouched.
    app.add_text("dave", "I collect Faroese stamps.").await;

    // Export.
    let bytes = app.export("carol").await;
    let export: Value = serde_json::from_slice(&bytes).expect("the export is one JSON document");
    assert_eq!(export["format"], "engram.user-export");
    assert_eq!(export["version"], 1);
    assert_eq!(export["user_id"], "carol");
    let memories = export["memories"].as_array().unwrap();
    assert_eq!(
        memories.len(),
        9,
        "raw, two facts, deleted, expired, and four messages kept as said"
    );
    assert_eq!(
        memories.iter().filter(|m| m["said_by"] == "user").count(),
        4,
        "Tromsø, Bergen, the queued tea and the session's turn"
    );
    assert!(memories.iter().all(|m| m["user_id"] == "carol"));
    assert!(memories.iter().any(|m| m["deleted_at"].is_string()));
    assert!(memories.iter().any(|m| m["superseded_by"].is_string()));
    assert!(memories
        .iter()
        .all(|m| !m["history"].as_array().unwrap().is_empty()));
    let queued = export["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|j| j["status"] == "queued")
        .expect("the queued job");
    assert!(queued["payload"].to_string().contains("lapsang"));
    assert!(!String::from_utf8_lossy(&bytes).contains("Faroese"));
    let sessions = export["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(
        sessions[0]["messages"][0]["content"],
        "We snorkelled off Vanuatu."
    );

    // Erase.
    let r = app.delete("/v1/admin/users/carol").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let counts = &r.body["counts"];
    assert_eq!(
        counts["memories"].as_u64().unwrap() as usize,
        memories.len()
    );
    let history: usize = memories
        .iter()
        .map(|m| m["history"].as_array().unwrap().len())
        .sum();
    assert_eq!(counts["memory_history"].as_u64().unwrap() as usize, history);
    assert_eq!(
        counts["jobs"].as_u64().unwrap() as usize,
        export["jobs"].as_array().unwrap().len()
    );
    assert!(r.body["request_id"].is_string() && r.body["completed_at"].is_string());
    assert_eq!(counts["sessions"], 1);
    assert_eq!(counts["session_messages"], 1);

    // No trace: not the id, not a word of what carol said, in any column.
    for needle in [
        "carol", "quokka", "Rottnest", "Tromsø", "Bergen", "Brompton", "Zuleika", "lapsang",
        "Vanuatu",
    ] {
        let found = tables_holding(&app, needle).await;
        assert!(found.is_empty(), "{needle:?} is still in {found:?}");
    }
    // The content-free audit entry stays.
    let entries: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM audit_log WHERE action = 'user.erase' AND subject_hash = $1",
    )
    .bind(
        engram_store::Store::new(app.pool.clone())
            .subject_hash(engram_core::DEFAULT_TENANT, "carol")
            .await
            .unwrap(),
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(entries, 1);
    // The bystander is whole.
    let dave = app.get("/v1/memories?user_id=dave").await;
    assert_eq!(
        crate::common::contents(dave.body["results"].as_array().unwrap()),
        ["I collect Faroese stamps."]
    );
    // Erasing again: nothing left, an empty receipt.
    let again = app.delete("/v1/admin/users/carol").await;
    assert_eq!(again.body["counts"]["memories"], 0);

    // Import the export back (as `engram import` does).
    let file = std::env::temp_dir().join(format!("engram-export-{}.json", uuid::Uuid::now_v7()));
    std::fs::write(&file, &bytes).unwrap();
    let store = engram_store::Store::new(app.pool.clone());
    let counts = engram_server::cli::import(&store, embedder(), &file, None)
        .await
        .unwrap();
    assert_eq!(counts["memories"] as usize, memories.len());
    let back = app.get("/v1/admin/users/carol/memories").await;
    assert_eq!(
        pairs(&export["memories"], "id", "content"),
        pairs(&back.body["results"], "id", "memory")
    );
    // States and history came back too, and search finds the live facts.
    let again: Value = serde_json::from_slice(&app.export("carol").await).unwrap();
    assert_eq!(again["memories"], export["memories"]);
    assert_eq!(
        again["sessions"], export["sessions"],
        "sessions come back whole"
    );
    assert_eq!(counts["session_messages"], 1);
    let found = app
        .search(json!({"user_id": "carol", "query": "where do I live"}))
        .await;
    assert!(
        crate::common::contents(&found)[0].contains("Bergen"),
        "{found:?}"
    );
    // A second import collides and writes nothing.
    let err = engram_server::cli::import(&store, embedder(), &file, None)
        .await
        .unwrap_err();
    assert!(err.to_string().contains("nothing was written"), "{err:#}");
    assert_eq!(
        app.get("/v1/admin/users/carol/memories").await.body["results"]
            .as_array()
            .unwrap()
            .len(),
        memories.len()
    );
    // Into another tenant, the same document loads beside it.
    let counts = engram_server::cli::import(&store, embedder(), &file, Some("elsewhere"))
        .await
        .unwrap();
    assert_eq!(counts["memories"] as usize, memories.len());
    std::fs::remove_file(&file).ok();
    // A file that is not an export is refused with a clear message.
    let junk = std::env::temp_dir().join(format!("engram-junk-{}.json", uuid::Uuid::now_v7()));
    std::fs::write(&junk, r#"{"format": "other", "version": 1}"#).unwrap();
    let err = engram_server::cli::import(&store, embedder(), &junk, None)
        .await
        .unwrap_err();
    assert!(
        format!("{err:#}").contains("not an Engram export"),
        "{err:#}"
    );
    std::fs::remove_file(&junk).ok();
}

#[sqlx::test(migrations = false)]
async fn purging_a_source_removes_what_it_produced_and_restores_what_it_replaced(pool: PgPool) {
    let app = spawn_app(pool).await;
    infer_with_source(&app, "erin", "I live in Oslo.", Some("chat-1")).await;
    let poisoned = infer_with_source(&app, "erin", "I moved to Reykjavik.", Some("doc-7")).await;
    assert!(poisoned.to_string().contains("SUPERSEDE"), "{poisoned}");
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "erin", "infer": false, "text": "Erin enjoys glacier hiking.",
                   "source": {"type": "document", "ref": "doc-7"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    app.add_text("frank", "I moved to Reykjavik.").await; // same words, another source

    let r = app.delete("/v1/admin/sources/doc-7").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let counts = &r.body["counts"];
    // The fact, the message kept as said, and the document's memory; the
    // Oslo fact and what was said of it come back.
    assert_eq!(counts["memories"], 3, "{counts}");
    assert_eq!(counts["memories_restored"], 2, "{counts}");
    assert_eq!(counts["jobs"], 1, "{counts}");

    let live = app
        .search(json!({"user_id": "erin", "query": "where do I live"}))
        .await;
    let mut live = crate::common::contents(&live);
    live.sort();
    assert_eq!(live, ["I live in Oslo.", "User lives in Oslo."]);
    let view = app.get("/v1/admin/users/erin/memories").await;
    let text = view.body.to_string();
    assert!(
        !text.contains("Reykjavik") && !text.contains("glacier"),
        "{text}"
    );
    let oslo = view.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["attribute"].is_string())
        .unwrap();
    assert_eq!(oslo["state"], "live");
    let events: Vec<&str> = oslo["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["event"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["ADD", "REVERT"]);
    assert!(tables_holding(&app, "glacier").await.is_empty());
    assert!(tables_holding(&app, "doc-7").await.is_empty());
    // Frank's identical words came from elsewhere and stay.
    let frank = app.get("/v1/memories?user_id=frank").await;
    assert_eq!(frank.body["results"].as_array().unwrap().len(), 1);
    // A source nothing came from: an empty receipt, not an error.
    let r = app.delete("/v1/admin/sources/never-seen").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["counts"]["memories"], 0);
}

/// Extracts with the rules, but only after `delay`: a job caught mid-flight.
struct Slow {
    delay: std::time::Duration,
    started: std::sync::Arc<tokio::sync::Notify>,
}

#[async_trait::async_trait]
impl engram_core::extract::Extractor for Slow {
    fn id(&self) -> &str {
        "rules"
    }
    async fn extract(
        &self,
        messages: &[engram_core::extract::InputMessage],
    ) -> Result<Vec<engram_core::extract::Candidate>, engram_core::extract::ExtractError> {
        self.started.notify_one();
        tokio::time::sleep(self.delay).await;
        engram_core::extract::RulesExtractor.extract(messages).await
    }
}

/// An erasure while a job of the user is running wins: the job finds its row
/// gone and writes nothing back.
#[sqlx::test(migrations = false)]
async fn an_erasure_during_a_running_job_is_not_undone_by_it(pool: PgPool) {
    let started = std::sync::Arc::new(tokio::sync::Notify::new());
    let app = crate::common::TestApp::builder(pool)
        .config(engram_api::ApiConfig::default())
        .workers(crate::common::fast_workers(1))
        .extractor(std::sync::Arc::new(Slow {
            delay: std::time::Duration::from_millis(1500),
            started: started.clone(),
        }))
        .spawn()
        .await;
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "hana", "text": "I live in Trondheim."}),
        )
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED);
    let job = r.body["job_id"].as_str().unwrap().to_owned();
    started.notified().await; // the worker holds the job
    let r = app.delete("/v1/admin/users/hana").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["counts"]["jobs"], 1);
    tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
    assert!(tables_holding(&app, "Trondheim").await.is_empty());
    assert!(tables_holding(&app, "hana").await.is_empty());
    app.get(&format!("/v1/jobs/{job}"))
        .await
        .assert_problem(404, None);
}

#[sqlx::test(migrations = false)]
async fn admin_endpoints_refuse_bad_input_naming_the_field(pool: PgPool) {
    let app = spawn_app(pool).await;
    app.add_text("jo", "I play the oboe.").await;
    let long = "u".repeat(300);
    for path in [
        "/v1/admin/users/%00jo/memories".to_owned(),
        format!("/v1/admin/users/{long}/export"),
        "/v1/admin/users/%20/memories".to_owned(),
    ] {
        app.get(&path).await.assert_problem(400, Some("user_id"));
    }
    app.delete(&format!("/v1/admin/sources/{long}"))
        .await
        .assert_problem(400, Some("source_ref"));
    app.delete("/v1/admin/users/jo/memories/not-a-uuid")
        .await
        .assert_problem(400, Some("id"));
    app.post(
        "/v1/admin/users/jo/search",
        json!({"query": "oboe", "states": ["gone"]}),
    )
    .await
    .assert_problem(422, Some("states"));
    app.post(
        "/v1/admin/users/jo/search",
        json!({"query": "oboe", "extra": 1}),
    )
    .await
    .assert_problem(422, Some("extra"));
    app.get("/v1/admin/audit?cursor=garbage")
        .await
        .assert_problem(422, Some("cursor"));
    let r = app
        .send_as(
            Some(crate::common::KEY),
            Some(" "),
            reqwest::Method::GET,
            "/v1/memories?user_id=jo",
            None,
        )
        .await;
    r.assert_problem(404, Some("x-engram-tenant"));
    // Nothing above changed anything.
    assert_eq!(
        app.get("/v1/memories?user_id=jo").await.body["results"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // An import mixing users is refused before anything is written.
    let export: Value = serde_json::from_slice(&app.export("jo").await).unwrap();
    let mut forged = export.clone();
    forged["memories"][0]["user_id"] = json!("someone-else");
    forged["memories"][0]["id"] = json!(uuid::Uuid::now_v7());
    let file = std::env::temp_dir().join(format!("forged-{}.json", uuid::Uuid::now_v7()));
    std::fs::write(&file, forged.to_string()).unwrap();
    let store = engram_store::Store::new(app.pool.clone());
    let err = engram_server::cli::import(&store, embedder(), &file, Some("other"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("mixes users"), "{err:#}");
    std::fs::remove_file(&file).ok();
}
