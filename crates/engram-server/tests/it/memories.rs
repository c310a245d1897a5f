//! The raw memory API over HTTP, against a real Postgres and the real embedder.

use crate::common::{contents, spawn_app};
use reqwest::StatusCode;
use serde_json::json;
use sqlx::PgPool;

const UNRELATED: [&str; 20] = [
    "The quarterly report is due on the last Friday of the month.",
    "Our team standup happens at 9:30 every morning.",
    "The printer on the third floor is out of toner.",
    "Kubernetes upgraded the cluster to version 1.31 last night.",
    "The marketing campaign launches in early spring.",
    "Remember to rotate the database credentials every ninety days.",
    "The new office chairs arrive next Tuesday.",
    "Our CI pipeline takes about twelve minutes to finish.",
    "The client asked for a dark theme in the dashboard.",
    "Jupiter is the largest planet in the solar system.",
    "The train to the airport leaves every fifteen minutes.",
    "The library closes early on public holidays.",
    "Backups are stored in two separate regions.",
    "The conference talk was about distributed consensus.",
    "The garden needs watering twice a week in summer.",
    "Invoices must be approved by the finance lead.",
    "The router firmware was updated to fix a security bug.",
    "Chess openings reward careful preparation.",
    "The museum has a new exhibit on ancient maps.",
    "The code review guidelines ask for small pull requests.",
];

#[sqlx::test(migrations = false)]
async fn personal_facts_are_found_scoped_deleted_and_edited(pool: PgPool) {
    let app = spawn_app(pool).await;
    let allergy = app
        .add_text("alice", "I am allergic to peanuts and shellfish.")
        .await;
    app.add_text("alice", "I live in Lisbon with my partner.")
        .await;
    let job = app
        .add_text(
            "alice",
            "I work as a backend engineer at a fintech startup.",
        )
        .await;
    for text in UNRELATED {
        app.add_text("alice", text).await;
    }
    app.add_text("bob", "Bob prefers window seats on long flights.")
        .await;

    // Relevance first: the allergy answers a question about food.
    let hits = app
        .search(json!({"query": "what food can't I eat", "user_id": "alice"}))
        .await;
    assert_eq!(hits[0]["id"], allergy.as_str(), "got {:?}", contents(&hits));
    for key in ["relevance", "recency", "importance"] {
        assert!(
            hits[0]["scores"][key].is_number(),
            "score breakdown has {key}"
        );
    }
    assert_eq!(hits[0]["user_id"], "alice");

    // Bob sees nothing of Alice's, even when asking her question.
    let bobs = app
        .search(json!({"query": "what food can't I eat", "user_id": "bob", "threshold": -1.0}))
        .await;
    assert!(bobs.iter().all(|h| h["user_id"] == "bob"));
    assert_eq!(
        contents(&bobs),
        ["Bob prefers window seats on long flights."]
    );

    // DELETE: gone from search and from GET.
    let r = app.delete(&format!("/v1/memories/{allergy}")).await;
    assert_eq!(r.status, StatusCode::NO_CONTENT);
    let hits = app
        .search(json!({"query": "what food can't I eat", "user_id": "alice"}))
        .await;
    assert!(hits.iter().all(|h| h["id"] != allergy.as_str()));
    app.get(&format!("/v1/memories/{allergy}"))
        .await
        .assert_problem(404, None);
    app.delete(&format!("/v1/memories/{allergy}"))
        .await
        .assert_problem(404, None);

    // PATCH: new content is searchable (re-embedded), history keeps both versions.
    let r = app
        .patch(
            &format!("/v1/memories/{job}"),
            json!({"memory": "I teach mathematics at a secondary school."}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "body: {}", r.body);
    assert_eq!(
        r.body["memory"],
        "I teach mathematics at a secondary school."
    );
    let hits = app
        .search(
            json!({"query": "what is my profession as a teacher", "user_id": "alice", "top_k": 1}),
        )
        .await;
    assert_eq!(hits[0]["id"], job.as_str());
    let history = app.get(&format!("/v1/memories/{job}/history")).await;
    let events = crate::common::events(&history.body);
    assert_eq!(events, ["ADD", "UPDATE"]);
    let update = &history.body["results"][1];
    assert_eq!(
        update["old_content"],
        "I work as a backend engineer at a fintech startup."
    );
    assert_eq!(
        update["new_content"],
        "I teach mathematics at a secondary school."
    );
    assert_eq!(update["actor"], "key:env-admin");
}

#[sqlx::test(migrations = false)]
async fn an_exact_duplicate_in_the_same_scope_is_a_noop(pool: PgPool) {
    let app = spawn_app(pool).await;
    let body = json!({"user_id": "u1", "infer": false, "messages": [
        {"role": "user", "content": "I like green tea."},
        {"role": "assistant", "content": "Noted!"},
        {"role": "user", "content": "I like green tea."},
        {"role": "user", "content": "My cat is called Miso."}
    ]});
    let r = app.post("/v1/memories", body.clone()).await;
    assert_eq!(r.status, StatusCode::CREATED, "body: {}", r.body);
    let events = crate::common::events(&r.body);
    assert_eq!(
        events,
        ["ADD", "NOOP", "ADD"],
        "assistant turns are not stored verbatim"
    );
    assert_eq!(r.body["results"][0]["id"], r.body["results"][1]["id"]);

    let again = app.post("/v1/memories", body).await;
    let events = crate::common::events(&again.body);
    assert_eq!(events, ["NOOP", "NOOP", "NOOP"]);
    assert_eq!(again.body["results"][0]["id"], r.body["results"][0]["id"]);

    // The same text for another user, or in another session, is another memory.
    let other = app
        .post(
            "/v1/memories",
            json!({"user_id": "u2", "text": "I like green tea.", "infer": false}),
        )
        .await;
    assert_eq!(other.body["results"][0]["event"], "ADD");
    let session = app
        .post("/v1/memories", json!({"user_id": "u1", "session_id": "s9", "text": "I like green tea.", "infer": false}))
        .await;
    assert_eq!(session.body["results"][0]["event"], "ADD");
    assert_eq!(app.count_rows("memories").await, 4);
    assert_eq!(
        app.count_rows("memory_history").await,
        4,
        "one ADD row per stored memory"
    );
}

#[sqlx::test(migrations = false)]
async fn messages_keep_their_time_kind_and_source(pool: PgPool) {
    let app = spawn_app(pool).await;
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "session_id": "s1", "infer": false, "metadata": {"app": "chat"},
                   "importance": 0.9, "pinned": true, "source": {"type": "tool", "ref": "import-7"},
                   "messages": [{"role": "user", "content": "We moved the launch to June.", "created_at": "2023-05-08T13:56:00Z"}]}),
        )
        .await;
    let id = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    let m = app.get(&format!("/v1/memories/{id}")).await.body;
    assert_eq!(m["created_at"], "2023-05-08T13:56:00Z");
    assert_eq!(m["kind"], "episodic");
    assert_eq!(m["session_id"], "s1");
    assert_eq!(m["metadata"], json!({"app": "chat"}));
    assert!((m["importance"].as_f64().unwrap() - 0.9).abs() < 1e-6);
    assert_eq!(m["pinned"], true);
    assert_eq!(m["source"], json!({"type": "tool", "ref": "import-7"}));

    let t = app
        .post(
            "/v1/memories",
            json!({"agent_id": "helper", "text": "Answer in French.", "infer": false}),
        )
        .await;
    let id = t.body["results"][0]["id"].as_str().unwrap().to_owned();
    let m = app.get(&format!("/v1/memories/{id}")).await.body;
    assert_eq!(m["kind"], "semantic");
    assert_eq!(m["source"]["type"], "api");
    assert_eq!(m["agent_id"], "helper");
    assert!(m["user_id"].is_null());
}

#[sqlx::test(migrations = false)]
async fn infer_defaults_to_true_and_answers_202_with_a_job(pool: PgPool) {
    let app = crate::common::TestApp::builder(pool)
        .config(engram_api::ApiConfig::default())
        .workers(crate::common::fast_workers(0))
        .spawn()
        .await;
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "text": "I like tea."}),
        )
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "body: {}", r.body);
    assert_eq!(r.body["status"], "queued");
    assert!(r.body["job_id"].is_string());
    // What was said is kept with the request; facts come from the job.
    let kept: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT content, said_by FROM memories")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(kept, [("I like tea.".to_owned(), Some("user".to_owned()))]);
    assert_eq!(app.count_rows("jobs").await, 1);
}

#[sqlx::test(migrations = false)]
async fn expired_superseded_and_deleted_memories_stay_hidden_unless_asked(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let old = app.add_text("u", "I live in Dallas.").await;
    let new = app.add_text("u", "I moved to Austin.").await;
    let trip = app
        .add_text("u", "I am on holiday in Rome this week.")
        .await;
    let gone = app.add_text("u", "I live in a flat near the river.").await;
    sqlx::query("UPDATE memories SET superseded_by = $1::uuid WHERE id = $2::uuid")
        .bind(&new)
        .bind(&old)
        .execute(&pool)
        .await
        .unwrap();
    sqlx::query("UPDATE memories SET expires_at = now() - interval '1 minute' WHERE id = $1::uuid")
        .bind(&trip)
        .execute(&pool)
        .await
        .unwrap();
    app.delete(&format!("/v1/memories/{gone}")).await;

    let q = json!({"query": "where do I live", "user_id": "u", "threshold": -1.0});
    let ids: Vec<String> = app
        .search(q)
        .await
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids, std::slice::from_ref(&new));

    let q = json!({"query": "where do I live", "user_id": "u", "threshold": -1.0, "include_superseded": true, "include_expired": true});
    let mut ids: Vec<String> = app
        .search(q)
        .await
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    let mut want = vec![old.clone(), new.clone(), trip.clone()];
    want.sort();
    assert_eq!(ids, want, "deleted memories never come back");

    let listed = app.get("/v1/memories?user_id=u").await.body;
    assert_eq!(listed["results"].as_array().unwrap().len(), 1);
    let listed = app
        .get("/v1/memories?user_id=u&include_superseded=true&include_expired=true")
        .await
        .body;
    assert_eq!(listed["results"].as_array().unwrap().len(), 3);
    // A superseded memory is still readable by id and says what replaced it.
    let m = app.get(&format!("/v1/memories/{old}")).await.body;
    assert_eq!(m["superseded_by"], new.as_str());
}

#[sqlx::test(migrations = false)]
async fn ttl_sets_an_expiry_and_a_restated_expired_fact_is_revived(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    let r = app.post("/v1/memories", json!({"user_id": "u", "text": "I am at the dentist today.", "ttl_seconds": 3600, "infer": false})).await;
    let id = r.body["results"][0]["id"].as_str().unwrap().to_owned();
    let m = app.get(&format!("/v1/memories/{id}")).await.body;
    let expires: chrono::DateTime<chrono::Utc> = m["expires_at"].as_str().unwrap().parse().unwrap();
    let left = expires - chrono::Utc::now();
    assert!(left > chrono::Duration::minutes(59) && left <= chrono::Duration::minutes(60));

    // Expired by the server's clock (a manual one, frozen at start): the
    // database's now() can be seconds past it on a busy machine.
    sqlx::query("UPDATE memories SET expires_at = $1")
        .bind(engram_core::Clock::now(&*app.clock) - chrono::Duration::seconds(1))
        .execute(&pool)
        .await
        .unwrap();
    assert!(app
        .search(json!({"query": "dentist", "user_id": "u", "threshold": -1.0}))
        .await
        .is_empty());
    let again = app
        .post(
            "/v1/memories",
            json!({"user_id": "u", "text": "I am at the dentist today.", "infer": false}),
        )
        .await;
    assert_eq!(again.body["results"][0]["event"], "NOOP");
    assert_eq!(again.body["results"][0]["id"], id.as_str());
    let hits = app
        .search(json!({"query": "dentist", "user_id": "u"}))
        .await;
    assert_eq!(
        hits.len(),
        1,
        "restating an expired fact makes it live again"
    );
    assert!(hits[0]["expires_at"].is_null());
}

#[sqlx::test(migrations = false)]
async fn search_filters_by_metadata_kind_and_time(pool: PgPool) {
    let app = spawn_app(pool).await;
    let add = |text: &'static str, extra: serde_json::Value| {
        let mut body = json!({"user_id": "u", "infer": false, "messages": [{"role": "user", "content": text, "created_at": extra["at"]}]});
        body["metadata"] = extra["metadata"].clone();
        body["kind"] = extra["kind"].clone();
        body
    };
    for (text, extra) in [
        (
            "I booked a flight to Tokyo.",
            json!({"at": "2023-05-01T10:00:00Z", "metadata": {"topic": "travel"}, "kind": "episodic"}),
        ),
        (
            "I booked a hotel in Kyoto.",
            json!({"at": "2023-06-01T10:00:00Z", "metadata": {"topic": "travel"}, "kind": "semantic"}),
        ),
        (
            "I booked a table for dinner.",
            json!({"at": "2023-06-02T10:00:00Z", "metadata": {"topic": "food"}, "kind": "episodic"}),
        ),
    ] {
        let r = app.post("/v1/memories", add(text, extra)).await;
        assert_eq!(r.status, StatusCode::CREATED, "body: {}", r.body);
    }
    let base = json!({"query": "what did I book", "user_id": "u", "threshold": -1.0});
    let with = |filters: serde_json::Value| {
        let mut b = base.clone();
        b["filters"] = filters;
        b
    };
    let mut got = contents(
        &app.search(with(json!({"metadata": {"topic": "travel"}})))
            .await,
    );
    got.sort();
    assert_eq!(
        got,
        ["I booked a flight to Tokyo.", "I booked a hotel in Kyoto."]
    );
    assert_eq!(
        contents(&app.search(with(json!({"kind": "semantic"}))).await),
        ["I booked a hotel in Kyoto."]
    );
    let got = contents(
        &app.search(with(
            json!({"kind": ["episodic"], "metadata": {"topic": "travel"}}),
        ))
        .await,
    );
    assert_eq!(got, ["I booked a flight to Tokyo."]);
    let got = contents(
        &app.search(with(
            json!({"created_at": {"gte": "2023-06-01T00:00:00Z", "lte": "2023-06-01T23:59:59Z"}}),
        ))
        .await,
    );
    assert_eq!(got, ["I booked a hotel in Kyoto."]);
}

#[sqlx::test(migrations = false)]
async fn weights_and_importance_shape_the_ranking(pool: PgPool) {
    let app = spawn_app(pool).await;
    for (text, importance) in [
        ("I enjoy hiking in the Alps.", 0.1),
        ("I enjoy hiking in the Andes.", 1.0),
    ] {
        app.post(
            "/v1/memories",
            json!({"user_id": "u", "text": text, "importance": importance, "infer": false}),
        )
        .await;
    }
    let hits = app
        .search(json!({"query": "hiking", "user_id": "u", "weights": {"relevance": 0.0, "recency": 0.0, "importance": 1.0}}))
        .await;
    assert_eq!(contents(&hits)[0], "I enjoy hiking in the Andes.");
    assert!((hits[0]["score"].as_f64().unwrap() - 1.0).abs() < 1e-6);
    // A high threshold drops everything that is not close.
    assert!(app
        .search(json!({"query": "quantum chromodynamics", "user_id": "u", "threshold": 0.9}))
        .await
        .is_empty());
}

#[sqlx::test(migrations = false)]
async fn listing_pages_with_a_cursor(pool: PgPool) {
    let app = spawn_app(pool).await;
    for i in 0..5 {
        app.add_text("u", &format!("Fact number {i} about the user."))
            .await;
    }
    app.add_text("other", "Not in this listing.").await;
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let path = match &cursor {
            Some(c) => format!("/v1/memories?user_id=u&limit=2&cursor={c}"),
            None => "/v1/memories?user_id=u&limit=2".to_owned(),
        };
        let page = app.get(&path).await.body;
        pages += 1;
        seen.extend(contents(page["results"].as_array().unwrap()));
        match page["next_cursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
        assert!(pages < 10);
    }
    assert_eq!(pages, 3);
    let want: Vec<String> = (0..5)
        .rev()
        .map(|i| format!("Fact number {i} about the user."))
        .collect();
    assert_eq!(seen, want, "newest first, each exactly once");
}

#[sqlx::test(migrations = false)]
async fn deleting_a_scope_removes_all_of_it_and_nothing_else(pool: PgPool) {
    let app = spawn_app(pool).await;
    // More rows than any page size, so a paged delete would show.
    let texts: Vec<serde_json::Value> = (0..150)
        .map(|i| json!({"role": "user", "content": format!("Memory {i}")}))
        .collect();
    for chunk in texts.chunks(75) {
        let r = app
            .post(
                "/v1/memories",
                json!({"user_id": "a", "infer": false, "messages": chunk}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "body: {}", r.body);
    }
    app.add_text("b", "Memory of another user.").await;
    app.delete("/v1/memories")
        .await
        .assert_problem(422, Some("user_id"));
    app.delete("/v1/memories?session_id=s")
        .await
        .assert_problem(422, Some("user_id"));
    let r = app.delete("/v1/memories?user_id=a").await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["deleted"], 150);
    assert!(app.get("/v1/memories?user_id=a").await.body["results"]
        .as_array()
        .unwrap()
        .is_empty());
    assert!(app
        .search(json!({"query": "Memory", "user_id": "a", "threshold": -1.0}))
        .await
        .is_empty());
    assert_eq!(
        app.get("/v1/memories?user_id=b").await.body["results"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // A hard delete: no row of a's is left, history included.
    let left: i64 = sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM memories WHERE user_id = 'a')
              + (SELECT count(*) FROM memory_history h WHERE NOT EXISTS
                    (SELECT 1 FROM memories m WHERE m.id = h.memory_id AND m.user_id = 'b'))",
    )
    .fetch_one(&app.pool)
    .await
    .unwrap();
    assert_eq!(left, 0);
}

#[sqlx::test(migrations = false)]
async fn patch_edits_fields_and_keeps_history(pool: PgPool) {
    let app = spawn_app(pool).await;
    let id = app.add_text("u", "I drink coffee black.").await;
    let r = app
        .patch(&format!("/v1/memories/{id}"), json!({"metadata": {"confirmed": true}, "importance": 0.8, "pinned": true, "expires_at": "2099-01-01T00:00:00Z"}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "body: {}", r.body);
    assert_eq!(r.body["memory"], "I drink coffee black.");
    assert_eq!(r.body["metadata"], json!({"confirmed": true}));
    assert_eq!(r.body["pinned"], true);
    assert_eq!(r.body["expires_at"], "2099-01-01T00:00:00Z");
    let r = app
        .patch(&format!("/v1/memories/{id}"), json!({"expires_at": null}))
        .await;
    assert!(r.body["expires_at"].is_null(), "null clears the expiry");
    assert_eq!(r.body["pinned"], true, "absent fields are left alone");

    // Editing into the text of another live memory in the scope is a conflict.
    app.add_text("u", "I drink tea with milk.").await;
    app.patch(
        &format!("/v1/memories/{id}"),
        json!({"memory": "I drink tea with milk."}),
    )
    .await
    .assert_problem(409, None);

    let history = app.get(&format!("/v1/memories/{id}/history")).await.body;
    let entries = history["results"].as_array().unwrap();
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[1]["new_metadata"], json!({"confirmed": true}));
    assert_eq!(entries[1]["old_metadata"], json!({}));

    app.delete(&format!("/v1/memories/{id}")).await;
    let history = app.get(&format!("/v1/memories/{id}/history")).await.body;
    assert_eq!(
        history["results"].as_array().unwrap().last().unwrap()["event"],
        "DELETE"
    );
    app.patch(&format!("/v1/memories/{id}"), json!({"importance": 0.1}))
        .await
        .assert_problem(404, None);
}

#[sqlx::test(migrations = false)]
async fn search_records_usage_off_the_request_path(pool: PgPool) {
    let app = spawn_app(pool).await;
    let id = app.add_text("u", "My favourite colour is teal.").await;
    app.search(json!({"query": "favourite colour", "user_id": "u"}))
        .await;
    let mut count = 0;
    for _ in 0..50 {
        count = app.get(&format!("/v1/memories/{id}")).await.body["access_count"]
            .as_i64()
            .unwrap();
        if count == 1 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(count, 1);
    let m = app.get(&format!("/v1/memories/{id}")).await.body;
    assert!(m["last_used_at"].is_string());
    assert_eq!(m["updated_at"], m["created_at"], "usage is not an edit");
}

/// Lexical and hybrid search find a rare word verbatim, show every score
/// component, and refuse an unknown mode.
#[sqlx::test(migrations = false)]
async fn search_modes_find_rare_words_and_show_their_components(pool: PgPool) {
    let app = spawn_app(pool).await;
    for text in [
        "I bought a Brompton folding bike last spring.",
        "We talked about cycling holidays in the Alps.",
        "My sister rides a mountain bike every weekend.",
        "The garden needs watering twice a week.",
    ] {
        app.add_text("lex", text).await;
    }
    let search = |mode: &str| {
        app.search(serde_json::json!({"user_id": "lex", "query": "what is the Brompton", "mode": mode, "top_k": 4}))
    };
    let lexical = search("lexical").await;
    assert_eq!(
        lexical.len(),
        1,
        "only the memory with the term: {lexical:?}"
    );
    assert!(contents(&lexical)[0].contains("Brompton"));
    assert_eq!(lexical[0]["scores"]["lexical"], 1.0);
    let hybrid = search("hybrid").await;
    assert!(contents(&hybrid)[0].contains("Brompton"), "{hybrid:?}");
    let s = &hybrid[0]["scores"];
    assert!(s["dense"].is_number() && s["lexical"] == 1.0 && s["relevance"].is_number());
    let dense = search("dense").await;
    assert!(dense.iter().all(|h| h["scores"]["lexical"].is_null()));
    // Stop words only: no term to match, so lexical finds nothing (no error).
    let none = app
        .search(serde_json::json!({"user_id": "lex", "query": "what is it", "mode": "lexical"}))
        .await;
    assert!(none.is_empty());
    app.post(
        "/v1/memories/search",
        serde_json::json!({"user_id": "lex", "query": "bike", "mode": "sparse"}),
    )
    .await
    .assert_problem(422, Some("mode"));
    app.post(
        "/v1/memories/search",
        serde_json::json!({"user_id": "lex", "query": "bike", "mode": "hybrid", "lexical_weight": 2}),
    )
    .await
    .assert_problem(422, Some("lexical_weight"));
}

/// Hybrid search answers the same whether BM25 finishes before the query's
/// vector (the first ask: one statement fetches the nearest with its picks)
/// or after it (the repeat, whose vector is cached: the nearest are found
/// beside BM25 and its picks fetched after), including a pick that only BM25
/// finds, outside the 50 nearest.
#[sqlx::test(migrations = false)]
async fn hybrid_search_is_the_same_whichever_ranker_finishes_first(pool: PgPool) {
    let app = spawn_app(pool).await;
    let dishes = [
        "risotto", "lasagne", "paella", "curry", "ramen", "goulash", "tagine", "chili", "moussaka",
        "pho", "gumbo", "biryani", "stew", "dal", "pad thai", "falafel",
    ];
    for i in 0..80 {
        let dish = dishes[i % dishes.len()];
        app.add_text("cook", &format!("I cooked {dish} for dinner on day {i}."))
            .await;
    }
    let parcel = app
        .add_text("cook", "The courier says parcel QX7731 is delayed.")
        .await;
    let ask = || {
        app.search(serde_json::json!({"user_id": "cook", "query": "what did I cook for dinner, and QX7731", "top_k": 10}))
    };
    let first = ask().await;
    let repeat = ask().await;
    let ids = |hits: &[serde_json::Value]| -> Vec<String> {
        hits.iter()
            .map(|h| h["id"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(ids(&first).contains(&parcel), "{first:?}");
    // The parcel is not among the 50 nearest by meaning: only BM25 brings it.
    let by_meaning = app
        .search(serde_json::json!({"user_id": "cook", "query": "what did I cook for dinner, and QX7731",
                                   "mode": "dense", "top_k": 100, "threshold": -1, "weights": {"relevance": 1, "recency": 0, "importance": 0}}))
        .await;
    let rank = ids(&by_meaning).iter().position(|id| *id == parcel);
    assert!(rank.is_some_and(|r| r >= 50), "rank by meaning {rank:?}");
    assert_eq!(ids(&first), ids(&repeat));
    for (a, b) in first.iter().zip(&repeat) {
        assert_eq!(a["scores"]["lexical"], b["scores"]["lexical"]);
        assert_eq!(a["scores"]["dense"], b["scores"]["dense"]);
    }
}

/// A period named in the query ("in May 2023", "last week") prefers the
/// memories said in it, shows how it was read, can filter instead, and can
/// be turned off; names that English drops as stop words still match.
#[sqlx::test(migrations = false)]
async fn search_reads_periods_and_names_in_the_query(pool: PgPool) {
    let app = spawn_app(pool).await;
    for (text, at) in [
        (
            "I went hiking in the Alps with Will.",
            "2023-05-10T09:00:00Z",
        ),
        ("I went hiking in the Rockies.", "2023-08-20T09:00:00Z"),
        ("I went hiking in Wales.", "2022-03-01T09:00:00Z"),
    ] {
        let r = app
            .post(
                "/v1/memories",
                json!({"user_id": "t", "infer": false,
                       "messages": [{"role": "user", "content": text, "created_at": at}]}),
            )
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
    }
    let search = |extra: serde_json::Value| {
        let mut body = json!({"user_id": "t", "query": "Where did I go hiking in May 2023?"});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        app.post("/v1/memories/search", body)
    };

    let r = search(json!({})).await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.body["query_time"],
        json!({"from": "2023-05-01T00:00:00Z", "to": "2023-06-01T00:00:00Z", "phrase": "May 2023"})
    );
    let hits = r.body["results"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert!(
        hits[0]["memory"].as_str().unwrap().contains("Alps"),
        "{hits:?}"
    );
    assert_eq!(hits[0]["scores"]["time"], 1.0);
    assert!(
        hits[1..].iter().all(|h| h["scores"]["time"] == 0.0),
        "{hits:?}"
    );

    let filtered = search(json!({"query_time": "filter"})).await;
    let hits = filtered.body["results"].as_array().unwrap();
    assert_eq!(hits.len(), 1, "{hits:?}");
    assert!(hits[0]["memory"].as_str().unwrap().contains("Alps"));

    let off = search(json!({"query_time": "off"})).await;
    assert!(off.body.get("query_time").is_none(), "{:?}", off.body);
    let hits = off.body["results"].as_array().unwrap();
    assert!(hits.iter().all(|h| h["scores"]["time"].is_null()));

    // "last week" counts from the reference time: 2023-08-25 is a Friday, so
    // last week is 14-20 August.
    let r = app
        .post(
            "/v1/memories/search",
            json!({"user_id": "t", "query": "where was I hiking last week",
                   "reference_time": "2023-08-25T12:00:00Z"}),
        )
        .await;
    assert_eq!(r.body["query_time"]["from"], "2023-08-14T00:00:00Z");
    assert!(r.body["results"][0]["memory"]
        .as_str()
        .unwrap()
        .contains("Rockies"));

    // "Will" is an English stop word; as a name it is matched exactly.
    let r = app
        .post(
            "/v1/memories/search",
            json!({"user_id": "t", "query": "hiking with Will", "mode": "lexical"}),
        )
        .await;
    let hits = r.body["results"].as_array().unwrap();
    assert!(
        hits[0]["memory"].as_str().unwrap().contains("Will"),
        "{hits:?}"
    );
    assert!(
        hits[0]["scores"]["lexical"] == 1.0 && hits[1]["scores"]["lexical"].as_f64() < Some(1.0)
    );

    for (field, value) in [
        ("query_time", json!("sometimes")),
        ("reference_time", json!("yesterday")),
    ] {
        search(json!({field: value}))
            .await
            .assert_problem(422, Some(field));
    }
}

/// Hybrid search lifts the turn that answers a matching question (its
/// neighbour) and names its evidence; another user's memory stored in
/// between is no one's neighbour; dense mode has no evidence; the weights
/// are validated by field.
#[sqlx::test(migrations = false)]
async fn hybrid_search_lifts_the_answer_after_a_matching_question(pool: PgPool) {
    let app = spawn_app(pool).await;
    let add = |user: &'static str, session: &'static str, text: &'static str| {
        let app = &app;
        async move {
            let r = app
                .post(
                    "/v1/memories",
                    serde_json::json!({"text": text, "user_id": user, "session_id": session, "infer": false}),
                )
                .await;
            assert_eq!(r.status, StatusCode::CREATED, "body: {}", r.body);
            r.body["results"][0]["id"].as_str().unwrap().to_owned()
        }
    };
    for text in [
        "John: I shared a pasta recipe blog post with my colleagues.",
        "John: My colleagues share lunch recipes on the office chat.",
        "Tim: I posted my grandmother's soup recipe online last year.",
    ] {
        add("tim", "work", text).await;
    }
    add(
        "tim",
        "dinner",
        "John: I make honey garlic chicken with roasted vegetables a lot.",
    )
    .await;
    let question = add(
        "tim",
        "dinner",
        "Tim: That sounds delicious! Can I get the recipe for the honey garlic chicken?",
    )
    .await;
    add("eve", "dinner", "Eve: Nothing to do with anyone here.").await;
    let answer = add(
        "tim",
        "dinner",
        "John: Sure thing! I can write it down and mail it to you.",
    )
    .await;
    add("tim", "dinner", "Tim: Thanks, I will try it this weekend.").await;

    let query = "How will John share the honey garlic chicken recipe with Tim?";
    let rank_of = |hits: &[serde_json::Value], id: &str| hits.iter().position(|h| h["id"] == id);
    let with = app
        .search(serde_json::json!({"user_id": "tim", "query": query, "top_k": 10}))
        .await;
    let without = app
        .search(
            serde_json::json!({"user_id": "tim", "query": query, "top_k": 10,
                                   "signal_weights": {"neighbours": 0, "session": 0, "names": 0}}),
        )
        .await;
    let (r_with, r_without) = (rank_of(&with, &answer), rank_of(&without, &answer));
    assert!(
        r_with.is_some() && r_with < r_without.or(Some(usize::MAX)),
        "the answer ranks {r_with:?} with the evidence, {r_without:?} without"
    );
    assert!(
        rank_of(&with, &question) < r_with,
        "the question itself still ranks above"
    );
    let hit = &with[r_with.unwrap()]["scores"];
    assert!(hit["neighbours"].as_f64().unwrap() > 0.3, "{hit}");
    assert!(hit["session"].as_f64().unwrap() > 0.3, "{hit}");
    assert_eq!(hit["names"], 0.5, "of John and Tim it mentions John: {hit}");
    assert!(with.iter().all(|h| h["user_id"] == "tim"), "{with:?}");
    // Zero weights: the signals are still shown (they count for nothing).
    let off = &without[0]["scores"];
    assert!(
        ["neighbours", "session", "names"]
            .iter()
            .all(|k| off[k].is_number()),
        "{off}"
    );
    let dense = app
        .search(serde_json::json!({"user_id": "tim", "query": query, "mode": "dense"}))
        .await;
    assert!(dense[0]["scores"]["neighbours"].is_null() && dense[0]["scores"]["names"].is_null());

    for (weights, field) in [
        (
            serde_json::json!({"neighbours": 0.5, "session": 2, "names": 0}),
            "signal_weights.session",
        ),
        (
            serde_json::json!({"neighbours": -1, "session": 0, "names": 0}),
            "signal_weights.neighbours",
        ),
    ] {
        app.post(
            "/v1/memories/search",
            serde_json::json!({"user_id": "tim", "query": query, "signal_weights": weights}),
        )
        .await
        .assert_problem(422, Some(field));
    }
    let r = app
        .post(
            "/v1/memories/search",
            serde_json::json!({"user_id": "tim", "query": query, "signal_weights": {"neighbours": 1, "session": 0, "names": 0, "speakers": 1}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", r.body);

    // Memories at the calendar's ends: the neighbours' hour either side
    // stays within what Postgres holds, and the search answers.
    for (at, text) in [
        (
            "0001-01-01T00:00:00Z",
            "Ada: Can I borrow the honey garlic chicken recipe?",
        ),
        ("0001-01-01T00:00:00Z", "Bo: Yes, here it is."),
        (
            "9999-12-31T23:59:59.999999Z",
            "Ada: Can I borrow the honey garlic chicken pan?",
        ),
        ("9999-12-31T23:59:59.999999Z", "Bo: Yes, take it."),
    ] {
        let r = app
            .post(
                "/v1/memories",
                serde_json::json!({"user_id": "edge", "session_id": "s", "infer": false,
                                   "messages": [{"role": "user", "content": text, "created_at": at}]}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "body: {}", r.body);
    }
    let edge = app
        .search(serde_json::json!({"user_id": "edge", "query": "Can Ada borrow the honey garlic chicken recipe?"}))
        .await;
    assert_eq!(edge.len(), 4, "{edge:?}");
    assert!(
        edge.iter()
            .any(|h| h["scores"]["neighbours"].as_f64() > Some(0.0)),
        "{edge:?}"
    );
}
