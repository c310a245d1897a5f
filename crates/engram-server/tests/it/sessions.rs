//! Sessions, the profile and the context block, through HTTP.

use crate::common::{spawn_app, TestApp};
use engram_context::{Encoding, TokenCounter};
use reqwest::StatusCode;
use serde_json::{json, Value};
use sqlx::PgPool;

const LAB: [&str; 5] = [
    "Hi! I'm Bob, a data scientist at Netflix.",
    "I'm building a recommendation system using collaborative filtering.",
    "We have about 50 million user interaction records.",
    "Considering switching from TensorFlow to PyTorch.",
    "I prefer Python 3.11 for stability.",
];

async fn append(app: &TestApp, session: &str, body: Value) -> Value {
    app.append(session, body).await
}

/// The lab conversation: each user turn answered by a short assistant turn,
/// in a window of about six turns.
async fn run_lab(app: &TestApp, session: &str) {
    for (i, text) in LAB.iter().enumerate() {
        let mut body = json!({"user_id": "bob", "messages": [
            {"role": "user", "content": text},
            {"role": "assistant", "content": "Noted, thanks for telling me."}
        ]});
        if i == 0 {
            body["window_tokens"] = json!(60);
        }
        append(app, session, body).await;
    }
    app.settle().await;
}

/// Bob tells the session he changed jobs, and the jobs finish.
async fn join_spotify(app: &TestApp) {
    append(
        app,
        "lab",
        json!({"user_id": "bob", "messages": [
        {"role": "user", "content": "I joined Spotify last week."}]}),
    )
    .await;
    app.settle().await;
}

/// The profile entry for `attribute`, if any.
fn entry(profile: &Value, attribute: &str) -> Option<Value> {
    profile["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["attribute"] == attribute)
        .cloned()
}

async fn context(app: &TestApp, body: Value) -> Value {
    let r = app.post("/v1/context", body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.body
}

#[sqlx::test(migrations = false)]
async fn the_lab_scenario_keeps_facts_that_left_the_window(pool: PgPool) {
    let app = spawn_app(pool).await;
    run_lab(&app, "lab").await;

    let session = app.get("/v1/sessions/lab").await.body;
    let window: Vec<&str> = session["window"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["content"].as_str().unwrap())
        .collect();
    assert!(window.len() <= 6, "about six turns: {window:?}");
    assert!(
        !window
            .iter()
            .any(|t| t.contains("Netflix") || t.contains("recommendation")),
        "the first turns left the window: {window:?}"
    );
    let summary = &session["summary"];
    assert_eq!(summary["first_seq"], 0, "{summary}");
    assert_eq!(summary["summarizer"], "extractive");
    let text = summary["content"].as_str().unwrap();
    assert!(
        text.contains("Netflix") && text.contains("recommendation system"),
        "{text}"
    );
    assert!(
        !text.contains("Noted, thanks"),
        "pleasantries are dropped: {text}"
    );
    // Each summarised turn says so; the summary covers exactly those.
    let turns = app.get("/v1/sessions/lab/messages").await.body;
    let summarized: Vec<i64> = turns["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["summarized_at"].is_string())
        .map(|t| t["seq"].as_i64().unwrap())
        .collect();
    assert_eq!(summarized.first(), Some(&0));
    assert_eq!(summarized.last(), summary["last_seq"].as_i64().as_ref());

    let work = context(
        &app,
        json!({"user_id": "bob", "session_id": "lab",
        "query": "What company do I work at?", "token_budget": 2000}),
    )
    .await;
    let text = work["text"].as_str().unwrap();
    assert!(text.contains("Netflix"), "{text}");
    assert!(
        text.contains("never") || text.contains("precedence"),
        "{text}"
    );
    let project = context(
        &app,
        json!({"user_id": "bob", "session_id": "lab",
        "query": "Can you remind me what I said I was working on?", "token_budget": 2000}),
    )
    .await;
    assert!(
        project["text"]
            .as_str()
            .unwrap()
            .contains("recommendation system"),
        "{}",
        project["text"]
    );
    // Erasing the user takes the session, its summary and its jobs.
    let r = app.delete("/v1/admin/users/bob").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["counts"]["sessions"], 1, "{}", r.body);
    assert_eq!(r.body["counts"]["session_summaries"], 1, "{}", r.body);
    app.get("/v1/sessions/lab").await.assert_problem(404, None);
}

#[sqlx::test(migrations = false)]
async fn the_profile_follows_supersession_and_can_be_corrected(pool: PgPool) {
    let app = spawn_app(pool).await;
    run_lab(&app, "lab").await;
    let profile = app.get("/v1/users/bob/profile").await.body;
    let employer = entry(&profile, "employer").unwrap_or_else(|| panic!("{profile}"));
    assert_eq!(employer["value"], "Netflix");
    assert!(employer["created_at"].is_string() && employer["confidence"].is_number());
    let role = entry(&profile, "role").unwrap_or_else(|| panic!("{profile}"));
    assert!(
        role["value"].as_str().unwrap().contains("data scientist"),
        "{role}"
    );

    join_spotify(&app).await;
    let profile = app.get("/v1/users/bob/profile").await.body;
    let now = entry(&profile, "employer").unwrap();
    assert_eq!(now["value"], "Spotify", "{profile}");
    assert!(!profile.to_string().contains("Netflix\""), "{profile}");
    let old = app
        .get(&format!(
            "/v1/memories/{}",
            employer["id"].as_str().unwrap()
        ))
        .await
        .body;
    assert_eq!(old["superseded_by"], now["id"], "Netflix is history: {old}");

    // Corrected by the app: the value and the text change, with history.
    let id = now["id"].as_str().unwrap();
    let r = app
        .send(
            reqwest::Method::PATCH,
            "/v1/users/bob/profile",
            Some(json!({"id": id, "value": "Spotify Research"})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let fixed = entry(&r.body, "employer").unwrap();
    assert_eq!(fixed["value"], "Spotify Research");
    assert!(fixed["memory"]
        .as_str()
        .unwrap()
        .contains("Spotify Research"));
    let history = app.get(&format!("/v1/memories/{id}/history")).await.body;
    assert!(history.to_string().contains("UPDATE"), "{history}");
    // Removed: gone from the profile, a DELETE in history.
    let r = app
        .send(
            reqwest::Method::PATCH,
            "/v1/users/bob/profile",
            Some(json!({"id": id, "remove": true})),
        )
        .await;
    assert!(entry(&r.body, "employer").is_none(), "{}", r.body);
    // Another user's entry is not this user's to change.
    app.send(
        reqwest::Method::PATCH,
        "/v1/users/alice/profile",
        Some(json!({"id": role["id"], "value": "x"})),
    )
    .await
    .assert_problem(404, None);
}

#[sqlx::test(migrations = false)]
async fn turns_leave_the_window_by_tokens_not_by_count(pool: PgPool) {
    let app = spawn_app(pool).await;
    let counter = TokenCounter::new(Encoding::O200kBase);
    let short = "I like tea.";
    let long = "I am planning a long trip through Portugal, Spain and the south of France next spring with my family";
    // Room for the long turn and two tokens more: three short turns fit, and
    // so does the long one, but not the long one beside any short one.
    let window = counter.count(long) + 2;
    assert!(3 * counter.count(short) <= window && counter.count(short) > 2);
    let first = append(
        &app,
        "w",
        json!({"user_id": "u", "infer": false, "window_tokens": window,
        "messages": [{"role": "user", "content": short}, {"role": "user", "content": short},
                     {"role": "user", "content": short}]}),
    )
    .await;
    assert_eq!(first["left_window"], 0);
    assert_eq!(first["messages"][0]["tokens"], counter.count(short));
    assert!(first["summarize_job_id"].is_null());
    // One long turn pushes out all three short ones (a count-based window of
    // four would have kept them).
    let second = append(
        &app,
        "w",
        json!({"user_id": "u", "infer": false,
        "messages": [{"role": "user", "content": long}]}),
    )
    .await;
    assert_eq!(second["left_window"], 3, "{second}");
    assert!(second["summarize_job_id"].is_string());
    app.settle().await;
    let s = app.get("/v1/sessions/w").await.body;
    assert_eq!(s["window"].as_array().unwrap().len(), 1);
    assert_eq!(s["summary"]["last_seq"], 2);
}

#[sqlx::test(migrations = false)]
async fn the_context_never_exceeds_its_budget_and_keeps_priorities(pool: PgPool) {
    let app = spawn_app(pool).await;
    run_lab(&app, "lab").await;
    // A memory outside the profile (no attribute), for the memories section.
    app.post(
        "/v1/memories",
        json!({"user_id": "bob", "infer": false, "text": "I use Jupyter notebooks and PyTorch tools daily."}),
    )
    .await;
    let counter = TokenCounter::new(Encoding::O200kBase);
    let mut previous_used = 0;
    for budget in [1, 30, 60, 90, 120, 200, 400, 800, 2000] {
        let c = context(
            &app,
            json!({"user_id": "bob", "session_id": "lab",
            "query": "what tools do I use", "token_budget": budget}),
        )
        .await;
        let text = c["text"].as_str().unwrap();
        let used = c["tokens_used"].as_u64().unwrap() as usize;
        assert!(used <= budget, "{budget}: {used}");
        assert_eq!(used, counter.count(text), "exact count at {budget}");
        assert!(used >= previous_used, "more budget, never less context");
        previous_used = used;
        let part = |s: &str| {
            c["parts"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["section"] == s)
                .cloned()
                .unwrap_or(json!({"included": 0, "offered": 0}))
        };
        // The recalled lines go by value (engram-context's block tests);
        // at 2000 tokens every section has room.
        if budget == 1 {
            assert_eq!(text, "", "not even the frame fits");
        }
        if budget == 2000 {
            for s in ["profile", "memories", "said", "summary", "recent"] {
                assert!(part(s)["included"].as_u64() > Some(0), "{s}: {c}");
            }
            assert!(
                text.contains("Saved 20"),
                "memory lines carry a date: {text}"
            );
            assert!(
                text.contains("from conversation lab"),
                "and a source: {text}"
            );
            assert!(
                text.contains("Saved 20") && text.contains("from the app"),
                "{text}"
            );
            // What was said is quoted, dated and named by its conversation;
            // the turns still in the window are recent turns, not recalled.
            let said = part("said")["lines"].to_string();
            assert!(said.contains("- user: “"), "{said}");
            assert!(text.contains(", conversation lab\n- user: “"), "{text}");
            assert!(!said.contains("Python 3.11"), "in the window: {said}");
        }
    }
    // Recent turns only, newest kept first when tight.
    let c = context(
        &app,
        json!({"user_id": "bob", "session_id": "lab", "query": "x",
        "token_budget": 110, "include": ["recent"]}),
    )
    .await;
    let text = c["text"].as_str().unwrap();
    assert!(
        text.contains("Python 3.11"),
        "the newest turn is kept: {text}"
    );
    assert!(!text.contains("Saved"), "no memories asked for: {text}");
}

/// Real chat logs hold empty turns and machine-made ids: an append whose
/// batch has an empty assistant turn stores the others and says which it
/// skipped, and ids like these are not secrets.
#[sqlx::test(migrations = false)]
async fn an_empty_turn_is_skipped_not_refused(pool: PgPool) {
    let app = spawn_app(pool).await;
    let session = "lmc-chat-09ba9854-170609-4079270e_2";
    let r = append(
        &app,
        session,
        json!({"user_id": "sharegpt_aVExml0_162", "messages": [
            {"role": "user", "content": "I have a therapy session with Dr. Smith every two weeks."},
            {"role": "assistant", "content": ""},
            {"role": "user", "content": "  \n "},
            {"role": "user", "content": "I moved to Porto last month."}
        ]}),
    )
    .await;
    assert_eq!(
        r["skipped"],
        json!([{"index": 1, "reason": "empty"}, {"index": 2, "reason": "empty"}])
    );
    let turns = r["messages"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{r}");
    assert_eq!(turns[1]["content"], "I moved to Porto last month.");
    // The job's results name messages by their place in the request.
    app.settle().await;
    let job = app
        .get(&format!(
            "/v1/jobs/{}",
            r["extract_job_id"].as_str().unwrap()
        ))
        .await;
    let porto: Vec<&Value> = job.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| {
            x["new_content"]
                .as_str()
                .is_some_and(|c| c.contains("Porto"))
        })
        .collect();
    assert!(!porto.is_empty(), "{}", job.body);
    assert!(
        porto.iter().all(|x| x["message_index"] == 3),
        "{}",
        job.body
    );
    // The same on an add, with and without inference.
    for infer in [true, false] {
        let r = app
            .post(
                "/v1/memories",
                json!({"user_id": "answer_96b8c9ee", "infer": infer, "messages": [
                    {"role": "assistant", "content": ""},
                    {"role": "user", "content": "I keep bees."}
                ]}),
            )
            .await;
        assert!(r.status.is_success(), "{}", r.body);
        assert_eq!(r.body["skipped"], json!([{"index": 0, "reason": "empty"}]));
    }
}

#[sqlx::test(migrations = false)]
async fn sessions_refuse_bad_input_and_other_users(pool: PgPool) {
    let app = spawn_app(pool).await;
    append(
        &app,
        "s1",
        json!({"user_id": "u", "infer": false,
        "messages": [{"role": "user", "content": "hello there"}]}),
    )
    .await;
    let cases = [
        (json!({"user_id": "u", "messages": []}), "messages"),
        (
            json!({"user_id": "u", "messages": [{"role": "robot", "content": "x"}]}),
            "messages[0].role",
        ),
        (
            // Every message empty: nothing to append (one empty among others
            // is skipped: `an_empty_turn_is_skipped_not_refused`).
            json!({"user_id": "u", "messages": [{"role": "user", "content": " "}]}),
            "messages",
        ),
        (
            json!({"user_id": "", "messages": [{"role": "user", "content": "x"}]}),
            "user_id",
        ),
        (
            json!({"user_id": "u", "window_tokens": 0, "messages": [{"role": "user", "content": "x"}]}),
            "window_tokens",
        ),
        (
            json!({"user_id": "u", "messages": [{"role": "user", "content": "x"}], "extra": 1}),
            "extra",
        ),
    ];
    for (body, field) in cases {
        app.post("/v1/sessions/s2/messages", body)
            .await
            .assert_problem(422, Some(field));
    }
    // A session belongs to its user.
    app.post(
        "/v1/sessions/s1/messages",
        json!({"user_id": "mallory", "messages": [{"role": "user", "content": "I live in Oslo."}]}),
    )
    .await
    .assert_problem(409, None);
    app.get("/v1/sessions/nope").await.assert_problem(404, None);
    app.get("/v1/sessions/s1/messages?cursor=abc")
        .await
        .assert_problem(422, Some("cursor"));
    for (body, field) in [
        (
            json!({"user_id": "u", "query": "q", "token_budget": 0}),
            "token_budget",
        ),
        (
            json!({"user_id": "u", "query": "q", "token_budget": 10, "include": ["recent", "recent"]}),
            "include",
        ),
        (
            json!({"user_id": "u", "query": "q", "token_budget": 10, "include": ["everything"]}),
            "include[0]",
        ),
        (
            json!({"user_id": "u", "query": "", "token_budget": 10}),
            "query",
        ),
    ] {
        app.post("/v1/context", body)
            .await
            .assert_problem(422, Some(field));
    }
    // Context for another user's session: as if it did not exist.
    app.post(
        "/v1/context",
        json!({"user_id": "mallory", "session_id": "s1", "query": "q", "token_budget": 100}),
    )
    .await
    .assert_problem(404, None);
    // Nothing was half-written by the refused appends.
    let turns: i64 = sqlx::query_scalar("SELECT count(*) FROM session_messages")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(turns, 1);
    // Deleting the session removes it and what was derived from it.
    let r = app.delete("/v1/sessions/s1/messages").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    app.get("/v1/sessions/s1").await.assert_problem(404, None);
}

/// A scripted OpenAI-compatible model: facts for extraction requests, a
/// summary for summarization requests, both from keywords it is shown.
struct FakeLab;

impl wiremock::Respond for FakeLab {
    fn respond(&self, req: &wiremock::Request) -> wiremock::ResponseTemplate {
        let body: Value = serde_json::from_slice(&req.body).unwrap();
        let shown = body["messages"][1]["content"].as_str().unwrap_or("");
        let content = if shown.starts_with("Summary so far:") {
            [
                ("Netflix", "user: Bob is a data scientist at Netflix"),
                (
                    "recommendation",
                    "user: building a recommendation system (collaborative filtering)",
                ),
                ("50 million", "user: about 50 million interaction records"),
            ]
            .iter()
            .filter(|(k, _)| shown.contains(k))
            .map(|(_, line)| *line)
            .collect::<Vec<_>>()
            .join("\n")
        } else {
            let fact = |statement: &str, attribute: &str, value: &str| {
                json!({"statement": statement, "subject": "user", "attribute": attribute, "value": value,
                       "kind": "semantic", "importance": 0.8, "confidence": 0.9, "sensitivity": null,
                       "valid_for_days": null, "stated": true, "message_index": 0})
            };
            let mut facts = Vec::new();
            if shown.contains("Netflix") {
                facts.push(fact("User works at Netflix.", "employer", "Netflix"));
                facts.push(fact(
                    "User works as a data scientist.",
                    "role",
                    "data scientist",
                ));
            }
            if shown.contains("recommendation system") {
                facts.push(fact(
                    "User is building a recommendation system using collaborative filtering.",
                    "project.current",
                    "recommendation system",
                ));
            }
            if shown.contains("Spotify") {
                facts.push(fact("User works at Spotify.", "employer", "Spotify"));
            }
            json!({"facts": facts}).to_string()
        };
        wiremock::ResponseTemplate::new(200).set_body_json(json!({
            "id": "x", "object": "chat.completion", "created": 0, "model": "fake-1",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}]
        }))
    }
}

#[sqlx::test(migrations = false)]
async fn the_lab_scenario_with_an_llm(pool: PgPool) {
    let server = wiremock::MockServer::start().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(FakeLab)
        .mount(&server)
        .await;
    let config = engram_llm::LlmConfig {
        base_url: format!("{}/v1", server.uri()),
        model: "fake-1".into(),
        timeout: std::time::Duration::from_secs(2),
        ..Default::default()
    };
    let app = crate::common::TestApp::builder(pool)
        .workers(crate::common::fast_workers(1))
        .extractor(std::sync::Arc::new(engram_llm::LlmExtractor::new(
            config.clone(),
        )))
        .summarizer(std::sync::Arc::new(engram_llm::LlmSummarizer::new(config)))
        .spawn()
        .await;
    run_lab(&app, "lab").await;

    let session = app.get("/v1/sessions/lab").await.body;
    assert_eq!(session["summary"]["summarizer"], "fake-1", "{session}");
    let summary = session["summary"]["content"].as_str().unwrap();
    assert!(
        summary.contains("Netflix") && summary.contains("recommendation"),
        "{summary}"
    );
    let window = session["window"].to_string();
    assert!(
        !window.contains("Netflix") && !window.contains("recommendation"),
        "{window}"
    );

    let work = context(
        &app,
        json!({"user_id": "bob", "session_id": "lab",
        "query": "What company do I work at?", "token_budget": 2000}),
    )
    .await;
    assert!(work["text"].as_str().unwrap().contains("Netflix"), "{work}");
    let project = context(
        &app,
        json!({"user_id": "bob", "session_id": "lab",
        "query": "Can you remind me what I said I was working on?", "token_budget": 2000}),
    )
    .await;
    assert!(
        project["text"]
            .as_str()
            .unwrap()
            .contains("recommendation system"),
        "{project}"
    );

    let profile = app.get("/v1/users/bob/profile").await.body;
    let value = |p: &Value, attr: &str| entry(p, attr).map(|e| e["value"].clone());
    assert_eq!(
        value(&profile, "employer"),
        Some(json!("Netflix")),
        "{profile}"
    );
    assert_eq!(
        value(&profile, "role"),
        Some(json!("data scientist")),
        "{profile}"
    );
    join_spotify(&app).await;
    let profile = app.get("/v1/users/bob/profile").await.body;
    assert_eq!(
        value(&profile, "employer"),
        Some(json!("Spotify")),
        "{profile}"
    );
    let all = app
        .get("/v1/memories?user_id=bob&include_superseded=true")
        .await
        .body;
    assert!(
        all.to_string().contains("User works at Netflix."),
        "Netflix is in history: {all}"
    );
}

#[sqlx::test(migrations = false)]
async fn deleting_a_session_takes_its_facts_and_restores_what_they_replaced(pool: PgPool) {
    let app = spawn_app(pool).await;
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "kim", "text": "I live in Oslo.", "wait": true}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    append(
        &app,
        "move",
        json!({"user_id": "kim", "messages": [{"role": "user", "content": "I just moved to Bergen."}]}),
    )
    .await;
    app.settle().await;
    let live = app.get("/v1/memories?user_id=kim").await.body.to_string();
    assert!(live.contains("Bergen") && !live.contains("Oslo"), "{live}");

    let r = app.delete("/v1/sessions/move/messages").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let counts = &r.body["counts"];
    // The fact and the turn kept as said go; the Oslo fact and what was
    // said of it (superseded with it) come back.
    assert_eq!(counts["memories"], 2, "{counts}");
    assert_eq!(counts["memories_restored"], 2, "{counts}");
    assert_eq!(counts["sessions"], 1, "{counts}");
    assert_eq!(counts["session_messages"], 1, "{counts}");
    let live = app.get("/v1/memories?user_id=kim").await.body.to_string();
    assert!(live.contains("Oslo") && !live.contains("Bergen"), "{live}");
    app.get("/v1/sessions/move").await.assert_problem(404, None);
    app.delete("/v1/sessions/move/messages")
        .await
        .assert_problem(404, None);
    let audit: i64 =
        sqlx::query_scalar("SELECT count(*) FROM audit_log WHERE action = 'session.delete'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(audit, 1);
}

#[sqlx::test(migrations = false)]
async fn the_profile_drops_expired_facts_and_keeps_pinned_ones(pool: PgPool) {
    let app = spawn_app(pool).await;
    append(
        &app,
        "trip",
        json!({"user_id": "eve", "messages": [
            {"role": "user", "content": "I'm in Lisbon until Friday."},
            {"role": "user", "content": "I live in Leeds."}]}),
    )
    .await;
    app.settle().await;
    let pinned = app
        .add_text("eve", "Eve's emergency contact is her brother Sam.")
        .await;
    let r = app
        .send(
            reqwest::Method::PATCH,
            &format!("/v1/memories/{pinned}"),
            Some(json!({"pinned": true, "importance": 0.2})),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let profile = app.get("/v1/users/eve/profile").await.body;
    let attributes: Vec<&str> = profile["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["attribute"].as_str())
        .collect();
    assert!(
        attributes.contains(&"location.current") && attributes.contains(&"location.city"),
        "{profile}"
    );
    assert_eq!(
        profile["entries"][0]["id"], pinned,
        "pinned first, whatever its importance: {profile}"
    );

    // A week later the stay in Lisbon has expired; the rest stays.
    app.clock.advance(chrono::Duration::days(8));
    let profile = app.get("/v1/users/eve/profile").await.body;
    let text = profile.to_string();
    assert!(
        !text.contains("Lisbon"),
        "expired facts leave the profile: {profile}"
    );
    assert!(
        text.contains("Leeds") && text.contains("emergency contact"),
        "{profile}"
    );
    let c = context(
        &app,
        json!({"user_id": "eve", "query": "where am I staying", "token_budget": 500}),
    )
    .await;
    // No longer a fact about the user; what was said then may still be
    // shown, as a dated quote.
    let facts = c["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["section"] == "profile")
        .map(|p| p["lines"].to_string())
        .collect::<String>();
    assert!(!facts.contains("Lisbon"), "{c}");
    for line in c["text"].as_str().unwrap().lines() {
        assert!(!line.contains("Lisbon") || line.contains(": “"), "{line}");
    }
}

/// Two summarize jobs folding overlapping turns must not overwrite each
/// other: a summary is saved only on top of the one it was built on.
#[sqlx::test(migrations = false)]
async fn a_summary_built_on_a_stale_one_is_refused(pool: PgPool) {
    let app = crate::common::TestApp::builder(pool.clone())
        .workers(crate::common::fast_workers(0))
        .spawn()
        .await;
    let r = append(
        &app,
        "race",
        json!({"user_id": "u", "infer": false, "window_tokens": 5,
        "messages": [{"role": "user", "content": "I prefer green tea in the morning."},
                     {"role": "user", "content": "ok"}]}),
    )
    .await;
    let job: uuid::Uuid = r["summarize_job_id"].as_str().unwrap().parse().unwrap();
    let store = engram_store::Store::new(pool);
    let tenant = engram_core::DEFAULT_TENANT;
    let summary = |built_on| engram_store::NewSummary {
        content: "user: prefers green tea",
        tokens: 5,
        seqs: &[0],
        summarizer: "extractive",
        built_on,
        redactions: 0,
    };
    let now = chrono::Utc::now();
    let err = store
        .save_summary(tenant, job, "race", &summary(Some(7)), now)
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            engram_store::StoreError::Conflict(engram_store::ConflictKind::ChangedMeanwhile, _)
        ),
        "{err}"
    );
    let s = app.get("/v1/sessions/race").await.body;
    assert!(s["summary"].is_null(), "nothing was written: {s}");
    let status = app.get(&format!("/v1/jobs/{job}")).await.body["status"].clone();
    assert_ne!(status, "done", "the job stays to be retried");
    store
        .save_summary(tenant, job, "race", &summary(None), now)
        .await
        .unwrap();
    let s = app.get("/v1/sessions/race").await.body;
    assert_eq!(s["summary"]["content"], "user: prefers green tea");
    assert_eq!(
        app.get(&format!("/v1/jobs/{job}")).await.body["status"],
        "done"
    );
}
