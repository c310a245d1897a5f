//! Forgetting without residue (issue 17), through HTTP and the binary:
//! a deleted fact leaves its session's summary, turns and context block
//! while the session's other facts stay; a scope delete removes what it
//! names; erasure after every feature leaves neither the user's id nor a
//! word of theirs in any column of any table; the audit's pseudonyms are
//! keyed; read-only reads change no row; `--help` prints no secret.

use std::process::{Command, Stdio};

use crate::common::{database_url, events, spawn_app, tables_holding, TestApp};
use engram_core::access::{unkeyed_subject_hash, SubjectKey};
use engram_core::DEFAULT_TENANT;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::PgPool;

async fn append(app: &TestApp, session: &str, body: Value) {
    app.append(session, body).await;
}

/// A session of `user` whose first turns leave a small window: facts about
/// Berlin, a dog and an employer, a summary, recent turns.
async fn berlin_session(app: &TestApp, user: &str, session: &str) {
    let turns = [
        "I live in Berlin and my dog is called Rex.",
        "I work at Siemens.",
        "The weather in Berlin was grey today.",
        "I prefer tea over coffee.",
        "We talked about the weekend.",
        "Let us plan the next sprint.",
    ];
    for (i, text) in turns.iter().enumerate() {
        let mut body = json!({"user_id": user, "messages": [
            {"role": "user", "content": text},
            {"role": "assistant", "content": "Noted, thanks for telling me."}
        ]});
        if i == 0 {
            body["window_tokens"] = json!(40);
        }
        append(app, session, body).await;
    }
    app.settle().await;
}

async fn profile(app: &TestApp, user: &str) -> Vec<Value> {
    let r = app.get(&format!("/v1/users/{user}/profile")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.body["entries"].as_array().unwrap().clone()
}

fn values(entries: &[Value]) -> Vec<String> {
    entries
        .iter()
        .filter_map(|e| e["value"].as_str().map(str::to_owned))
        .collect()
}

async fn context_text(app: &TestApp, user: &str, session: &str, query: &str) -> String {
    let r = app
        .post(
            "/v1/context",
            json!({"user_id": user, "session_id": session, "query": query, "token_budget": 3000}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.body["text"].as_str().unwrap().to_owned()
}

/// The session as the API shows it: every turn's text, and the summary.
async fn session_texts(app: &TestApp, session: &str) -> (Vec<String>, String) {
    let turns = app
        .get(&format!("/v1/sessions/{session}/messages?limit=100"))
        .await;
    assert_eq!(turns.status, StatusCode::OK, "{}", turns.body);
    let turns: Vec<String> = turns.body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["content"].as_str().unwrap().to_owned())
        .collect();
    let state = app.get(&format!("/v1/sessions/{session}")).await;
    let summary = state.body["summary"]["content"]
        .as_str()
        .unwrap_or("")
        .to_owned();
    (turns, summary)
}

#[sqlx::test(migrations = false)]
async fn a_deleted_session_fact_leaves_summary_turns_and_context_and_the_others_stay(pool: PgPool) {
    let app = spawn_app(pool).await;
    // Four users, four ways to delete the same fact.
    for way in ["delete", "profile", "forget", "purge"] {
        let user = format!("u-{way}");
        let session = format!("s-{way}");
        berlin_session(&app, &user, &session).await;
        let before = profile(&app, &user).await;
        let berlin = before
            .iter()
            .find(|e| e["value"] == "Berlin")
            .unwrap_or_else(|| panic!("the fact is learned: {before:?}"))["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let (turns, summary) = session_texts(&app, &session).await;
        assert!(turns[0].contains("Berlin"), "{turns:?}");
        assert!(
            summary.contains("Berlin"),
            "the summary holds it: {summary}"
        );
        assert!(context_text(&app, &user, &session, "where do I live")
            .await
            .contains("Berlin"));

        match way {
            "delete" => {
                let r = app.delete(&format!("/v1/memories/{berlin}")).await;
                assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
            }
            "profile" => {
                let r = app
                    .patch(
                        &format!("/v1/users/{user}/profile"),
                        json!({"id": berlin, "remove": true}),
                    )
                    .await;
                assert_eq!(r.status, StatusCode::OK, "{}", r.body);
            }
            "forget" => {
                append(
                    &app,
                    &session,
                    json!({"user_id": user, "messages": [
                        {"role": "user", "content": "Please forget that I live in Berlin."}]}),
                )
                .await;
                app.settle().await;
            }
            _ => {
                let r = app
                    .delete(&format!("/v1/admin/users/{user}/memories/{berlin}"))
                    .await;
                assert_eq!(r.status, StatusCode::OK, "{}", r.body);
                assert_eq!(r.body["counts"]["session_summaries_redacted"], 1);
            }
        }

        // Gone from the profile, search, summary, turns and context block.
        let after = profile(&app, &user).await;
        let left = values(&after);
        assert!(!left.contains(&"Berlin".to_owned()), "{way}: {left:?}");
        let found = app
            .search(json!({"user_id": user, "query": "where do I live in Berlin"}))
            .await;
        assert!(
            crate::common::contents(&found)
                .iter()
                .all(|c| !c.contains("Berlin")),
            "{way}: {found:?}"
        );
        let (turns, summary) = session_texts(&app, &session).await;
        assert!(
            turns.iter().all(|t| !t.contains("Berlin")),
            "{way}: {turns:?}"
        );
        assert!(!summary.contains("Berlin"), "{way}: {summary}");
        // The turn stays as a marker, with the rest of what was said.
        assert_eq!(
            turns[0], "[removed] and my dog is called Rex.",
            "{way}: {turns:?}"
        );
        let text = context_text(&app, &user, &session, "where do I live").await;
        assert!(!text.contains("Berlin"), "{way}: {text}");
        // The session's other facts stay, in the profile and the block.
        assert!(left.contains(&"Siemens".to_owned()), "{way}: {left:?}");
        assert!(left.contains(&"Rex".to_owned()), "{way}: {left:?}");
        assert!(
            text.contains("Siemens") && text.contains("Rex"),
            "{way}: {text}"
        );
        assert!(summary.contains("Siemens"), "{way}: {summary}");
    }
    // Nowhere in the database, except where a soft delete keeps the
    // memory itself until consolidation's retention period ends.
    let holding: Vec<String> = tables_holding(&app, "Berlin")
        .await
        .into_iter()
        .filter(|t| !t.starts_with("memories.") && !t.starts_with("memory_history."))
        .collect();
    assert!(holding.is_empty(), "{holding:?}");
}

/// A digest of every row of every table: equal digests, equal bytes.
async fn snapshot(pool: &PgPool) -> Vec<(String, String)> {
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT table_name::text FROM information_schema.tables
         WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    )
    .fetch_all(pool)
    .await
    .unwrap();
    let mut out = Vec::new();
    for t in tables {
        let digest: Option<String> = sqlx::query_scalar(&format!(
            "SELECT md5(string_agg(r::text, E'\\n' ORDER BY r::text)) FROM \"{t}\" r"
        ))
        .fetch_one(pool)
        .await
        .unwrap();
        out.push((t, digest.unwrap_or_default()));
    }
    out
}

#[sqlx::test(migrations = false)]
async fn a_read_only_key_changes_no_stored_row(pool: PgPool) {
    let app = spawn_app(pool).await;
    berlin_session(&app, "reader", "r-1").await;
    let id = app.add_text("reader", "I collect vinyl records.").await;
    let (_, read_only) = app.create_key("read-only", Some("default")).await;
    let (_, tenant) = app.create_key("tenant", Some("default")).await;
    // The keys' own first use is recorded once, before the snapshot.
    let warm = |key: String| {
        let app = &app;
        async move {
            let r = app
                .send_as(
                    Some(&key),
                    None,
                    Method::GET,
                    "/v1/memories?user_id=reader",
                    None,
                )
                .await;
            assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        }
    };
    warm(tenant.clone()).await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    let before = snapshot(&app.pool).await;
    let reads: Vec<(Method, String, Option<Value>)> = vec![
        (
            Method::POST,
            "/v1/memories/search".into(),
            Some(json!({"user_id": "reader", "query": "what do I collect"})),
        ),
        (
            Method::POST,
            "/v1/context".into(),
            Some(
                json!({"user_id": "reader", "session_id": "r-1", "query": "where do I work", "token_budget": 2000}),
            ),
        ),
        (Method::GET, "/v1/memories?user_id=reader".into(), None),
        (Method::GET, format!("/v1/memories/{id}"), None),
        (Method::GET, format!("/v1/memories/{id}/history"), None),
        (Method::GET, "/v1/users/reader/profile".into(), None),
        (Method::GET, "/v1/sessions/r-1".into(), None),
        (Method::GET, "/v1/sessions/r-1/messages".into(), None),
    ];
    for (method, path, body) in &reads {
        let r = app
            .send_as(Some(&read_only), None, method.clone(), path, body.clone())
            .await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {}", r.body);
    }
    // Usage is recorded off the request path: give it time to (not) happen.
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(
        snapshot(&app.pool).await,
        before,
        "a read-only read changed a row"
    );

    // The same search with a read-write key does count (the check can fail).
    let r = app
        .send_as(
            Some(&tenant),
            None,
            Method::POST,
            "/v1/memories/search",
            reads[0].2.clone(),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    let used: i64 =
        sqlx::query_scalar("SELECT coalesce(sum(access_count), 0)::bigint FROM memories")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(used > 0, "a tenant key's search is counted");
    // The read-only key's use is counted in the metrics instead.
    let metrics = app.client.get(app.url("/metrics")).send().await.unwrap();
    let metrics = metrics.text().await.unwrap();
    assert!(
        metrics.contains("engram_read_only_key_requests_total"),
        "{metrics}"
    );
}

#[sqlx::test(migrations = false)]
async fn a_scope_delete_removes_what_it_names(pool: PgPool) {
    let app = spawn_app(pool).await;
    berlin_session(&app, "scoped-user", "scoped-session").await;
    app.add_text("scoped-user", "My locker code word is Xylophone.")
        .await;
    let gone = app.add_text("scoped-user", "I once met Ozymandias.").await;
    app.delete(&format!("/v1/memories/{gone}")).await;
    // An agent's memories of the same user: a narrower scope.
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "scoped-user", "agent_id": "helper", "infer": false,
                   "text": "Helper noted Quixotic plans."}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    app.add_text("bystander", "I live in Lisbon.").await;

    // The agent scope first: its memory goes, the user's sessions stay.
    let r = app
        .delete("/v1/memories?user_id=scoped-user&agent_id=helper")
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["deleted"], 1, "{}", r.body);
    assert!(tables_holding(&app, "Quixotic").await.is_empty());
    assert_eq!(app.count_rows("sessions").await, 1);

    // The user scope: every memory in every state, the session, the jobs.
    let r = app.delete("/v1/memories?user_id=scoped-user").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let counts = &r.body["counts"];
    assert!(r.body["deleted"].as_i64().unwrap() >= 5, "{}", r.body);
    assert_eq!(counts["sessions"], 1, "{}", r.body);
    assert_eq!(counts["session_messages"], 12, "{}", r.body);
    assert_eq!(counts["session_summaries"], 1, "{}", r.body);
    assert!(counts["jobs"].as_i64().unwrap() >= 6, "{}", r.body);
    for needle in [
        "scoped-user",
        "Berlin",
        "Siemens",
        "Xylophone",
        "Ozymandias",
    ] {
        let found = tables_holding(&app, needle).await;
        assert!(found.is_empty(), "{needle} in {found:?}");
    }
    let ctx = app
        .post(
            "/v1/context",
            json!({"user_id": "scoped-user", "query": "where do I live"}),
        )
        .await;
    assert!(!ctx.body["text"].as_str().unwrap_or("").contains("Berlin"));
    assert_eq!(
        crate::common::contents(
            &app.search(json!({"user_id": "bystander", "query": "live"}))
                .await
        ),
        ["I live in Lisbon."]
    );
    // Nothing to delete is not an error; no scope at all is.
    let r = app.delete("/v1/memories?user_id=scoped-user").await;
    assert_eq!(r.body["deleted"], 0, "{}", r.body);
    app.delete("/v1/memories").await.assert_problem(422, None);
}

#[sqlx::test(migrations = false)]
async fn audit_pseudonyms_need_the_deployment_key_and_old_ones_are_rekeyed(pool: PgPool) {
    // Rows written before the key existed (the schema as an earlier version
    // left it): unkeyed hashes of a user and a source.
    engram_store::MIGRATOR.run(&pool).await.unwrap();
    let old_subject = unkeyed_subject_hash(DEFAULT_TENANT, "olga");
    let old_source = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"chat-olga"));
    sqlx::query(
        "INSERT INTO audit_log (tenant_id, id, actor, action, target, subject_hash)
         VALUES ($1, gen_random_uuid(), 'cli', 'user.erase', 'user', $2),
                ($1, gen_random_uuid(), 'cli', 'source.purge', 'source:' || $3, NULL)",
    )
    .bind(DEFAULT_TENANT)
    .bind(&old_subject)
    .bind(&old_source)
    .execute(&pool)
    .await
    .unwrap();
    let app = spawn_app(pool).await;
    let store = engram_store::Store::new(app.pool.clone());
    let key = store.subject_key().await.unwrap();
    // Re-keyed in place, to what the key gives for the same user and source.
    let subjects: Vec<Option<String>> =
        sqlx::query_scalar("SELECT subject_hash FROM audit_log WHERE action = 'user.erase'")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(subjects, [Some(key.subject(DEFAULT_TENANT, "olga"))]);
    let target: String =
        sqlx::query_scalar("SELECT target FROM audit_log WHERE action = 'source.purge'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(target, format!("source:{}", key.source("chat-olga")));
    assert_eq!(
        tables_holding(&app, &old_subject).await,
        Vec::<String>::new()
    );

    // A new erasure: its entry is found by naming the user (the server has
    // the key), and cannot be recomputed without it.
    app.add_text("petra", "I sail on Lake Constance.").await;
    let r = app.delete("/v1/admin/users/petra").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let hashes: Vec<String> = sqlx::query_scalar(
        "SELECT subject_hash FROM audit_log WHERE action = 'user.erase' AND subject_hash IS NOT NULL",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap();
    let petra = key.subject(DEFAULT_TENANT, "petra");
    assert!(hashes.contains(&petra), "{hashes:?}");
    let guesses = [
        unkeyed_subject_hash(DEFAULT_TENANT, "petra"),
        hex::encode(<sha2::Sha256 as sha2::Digest>::digest(b"petra")),
        SubjectKey::from_bytes(&[0u8; 32])
            .unwrap()
            .subject(DEFAULT_TENANT, "petra"),
        SubjectKey::from_bytes(&[0xffu8; 32])
            .unwrap()
            .subject(DEFAULT_TENANT, "petra"),
    ];
    for guess in &guesses {
        assert!(!hashes.contains(guess), "reproduced without the key");
    }
    let listed = app.get("/v1/admin/audit?user_id=petra").await;
    assert!(
        listed.body["results"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["action"] == "user.erase" && e["subject_hash"] == petra.as_str()),
        "{}",
        listed.body
    );
    // `engram audit-subjects` lists who is held, with the same pseudonyms
    // (what re-applying erasures after a restore needs).
    app.add_text("rita", "I row on the Thames.").await;
    let out = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("audit-subjects")
        .env("ENGRAM_DATABASE_URL", database_url(&app.pool))
        .stdin(Stdio::null())
        .output()
        .expect("engram runs");
    assert!(out.status.success(), "{out:?}");
    let listed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        listed.trim(),
        format!(
            "{DEFAULT_TENANT}\trita\t{}",
            key.subject(DEFAULT_TENANT, "rita")
        )
    );
    // The key is the table owner's alone: the tenant role cannot read it.
    let mut tx = app.pool.begin().await.unwrap();
    engram_store::enter_tenant(&mut tx, DEFAULT_TENANT)
        .await
        .unwrap();
    let denied = sqlx::query("SELECT secret FROM deployment_secrets")
        .fetch_all(&mut *tx)
        .await;
    assert!(denied.is_err(), "engram_app reads the key");
    // The key never reaches the API.
    let keys = app.get("/v1/admin/keys").await;
    assert!(!keys.body.to_string().contains("subject-key"));
}

/// Runs consolidation for everyone or one user, waiting for the report.
async fn consolidate(app: &TestApp, body: Value) -> Value {
    let mut body = body;
    body["wait"] = json!(true);
    let r = app.post("/v1/admin/consolidate", body).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.body
}

#[sqlx::test(migrations = false)]
async fn erasure_after_every_feature_leaves_no_trace(pool: PgPool) {
    let app = spawn_app(pool).await;
    let user = "Quentin-Zx9";
    let words = [
        "Berlin",
        "Siemens",
        "Rex",
        "quokka",
        "Rottnest",
        "Tromsø",
        "Bergen",
        "Brompton",
        "Zuleika",
        "lapsang",
        "Kilimanjaro",
        "Vanuatu",
        "Ouagadougou",
        "Yggdrasil",
    ];
    // Memories in every state: live, superseded, soft-deleted, expired,
    // archived, pinned, near-duplicates for consolidation to merge.
    app.add_text(user, "I adore quokkas from Rottnest.").await;
    app.add_text(user, "I ADORE quokkas from Rottnest!!").await;
    app.infer(user, "I live in Tromsø.").await;
    app.infer(user, "I moved to Bergen.").await;
    let soft = app.add_text(user, "My bicycle is a Brompton.").await;
    app.delete(&format!("/v1/memories/{soft}")).await;
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": user, "infer": false, "text": "Dinner with Zuleika tonight.", "ttl_seconds": 1}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let pinned = app.add_text(user, "I climbed Kilimanjaro in 2019.").await;
    app.patch(&format!("/v1/memories/{pinned}"), json!({"pinned": true}))
        .await;
    let archived = app.add_text(user, "I once visited Ouagadougou.").await;
    sqlx::query("UPDATE memories SET archived_at = now() WHERE id = $1::uuid")
        .bind(&archived)
        .execute(&app.pool)
        .await
        .unwrap();
    // A session with a summary and facts learned from it.
    berlin_session(&app, user, "quentin-chat").await;
    // A source purged: another source of the same user.
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": user, "wait": true, "text": "I speak Yggdrasil Norse.",
                   "source": {"type": "user_stated", "ref": "doc-quentin"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let r = app.delete("/v1/admin/sources/doc-quentin").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    // Consolidation: a dry run for the user, then a real run for everyone.
    app.clock.advance(chrono::Duration::days(40));
    let dry = consolidate(&app, json!({"user_id": user, "dry_run": true})).await;
    assert_eq!(dry["scope"], "user");
    let planned = dry["planned"].to_string();
    assert!(planned.contains("memory_ids"), "{planned}");
    let real = consolidate(&app, json!({})).await;
    assert_eq!(real["status"], "done", "{real}");
    // Neither run, nor the listing, names the user or quotes them.
    let runs = app.get("/v1/admin/consolidation-runs").await;
    let listed = runs.body.to_string();
    for needle in std::iter::once(user).chain(words) {
        assert!(!listed.contains(needle), "{needle} in {listed}");
    }
    assert!(!listed.contains(&unkeyed_subject_hash(DEFAULT_TENANT, user)));
    // Jobs in every state: done above; failed, running and queued here.
    sqlx::query(
        "UPDATE jobs SET status = 'failed', last_error = 'failed reading Vanuatu'
         WHERE id = (SELECT id FROM jobs WHERE user_id = $1 AND status = 'done' LIMIT 1)",
    )
    .bind(user)
    .execute(&app.pool)
    .await
    .unwrap();
    app.stop_workers.send(true).unwrap();
    for text in [
        "My favourite tea is lapsang souchong.",
        "We snorkelled off Vanuatu.",
    ] {
        let r = app
            .post("/v1/memories", json!({"user_id": user, "text": text}))
            .await;
        assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    }
    sqlx::query(
        "UPDATE jobs SET status = 'running', locked_until = now() + interval '1 hour', attempts = 1
         WHERE id = (SELECT id FROM jobs WHERE user_id = $1 AND status = 'queued' LIMIT 1)",
    )
    .bind(user)
    .execute(&app.pool)
    .await
    .unwrap();
    let states: Vec<String> =
        sqlx::query_scalar("SELECT DISTINCT status FROM jobs WHERE user_id = $1 ORDER BY 1")
            .bind(user)
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(states, ["done", "failed", "queued", "running"]);
    // The admin views and an export.
    for path in [
        format!("/v1/admin/users/{user}/memories"),
        format!("/v1/admin/audit?user_id={user}"),
    ] {
        assert_eq!(app.get(&path).await.status, StatusCode::OK, "{path}");
    }
    let r = app
        .post(
            &format!("/v1/admin/users/{user}/search"),
            json!({"query": "where do I live"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let export = String::from_utf8(app.export(user).await).unwrap();
    assert!(export.contains("Bergen") && export.contains("lapsang"));
    // Keys bound to the user hold their id (one used, one revoked).
    let mut bound_keys = Vec::new();
    for agent in [None, Some("quentin-agent")] {
        let r = app
            .post(
                "/v1/admin/keys",
                json!({"role": "tenant", "tenant": "default", "name": "device",
                       "user_id": user, "agent_id": agent}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
        bound_keys.push((
            r.body["id"].as_str().unwrap().to_owned(),
            r.body["key"].as_str().unwrap().to_owned(),
        ));
    }
    let r = app
        .send_as(
            Some(&bound_keys[0].1),
            None,
            Method::GET,
            "/v1/memories",
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    app.delete(&format!("/v1/admin/keys/{}", bound_keys[1].0))
        .await;
    // A bystander, consolidated in the same runs.
    app.add_text("bystander", "I collect Faroese stamps.").await;

    let r = app.delete(&format!("/v1/admin/users/{user}")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let counts = &r.body["counts"];
    assert_eq!(counts["api_keys"], 2, "the bound keys: {}", r.body);
    let r = app
        .send_as(
            Some(&bound_keys[0].1),
            None,
            Method::GET,
            "/v1/memories",
            None,
        )
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED, "an erased user's key");
    assert_eq!(
        counts["consolidation_runs"], 1,
        "the user's dry run: {}",
        r.body
    );
    assert!(
        counts["consolidation_progress"].as_i64().unwrap() >= 2,
        "{}",
        r.body
    );

    let subject = engram_store::Store::new(app.pool.clone())
        .subject_hash(DEFAULT_TENANT, user)
        .await
        .unwrap();
    let unkeyed = unkeyed_subject_hash(DEFAULT_TENANT, user);
    for needle in std::iter::once(user).chain(words).chain([unkeyed.as_str()]) {
        let found = tables_holding(&app, needle).await;
        assert!(found.is_empty(), "{needle:?} is still in {found:?}");
    }
    // Only the audit log keeps the keyed pseudonym, by design.
    let found = tables_holding(&app, &subject).await;
    assert!(
        found.iter().all(|t| t.starts_with("audit_log.")),
        "{found:?}"
    );
    assert_eq!(
        crate::common::contents(
            &app.search(json!({"user_id": "bystander", "query": "stamps"}))
                .await
        ),
        ["I collect Faroese stamps."]
    );
}

/// Every command path of the binary (`[]`, `["serve"]`, `["keys", "create"]`,
/// ...), read from the help itself so a new command is covered too.
fn command_paths(env: &[(&str, &str)]) -> Vec<Vec<String>> {
    let mut paths = vec![Vec::<String>::new()];
    let mut i = 0;
    while i < paths.len() {
        let path = paths[i].clone();
        let out = help(&path, env);
        let mut in_commands = false;
        for line in out.lines() {
            if line.starts_with("Commands:") {
                in_commands = true;
                continue;
            }
            if in_commands {
                let Some(name) = line
                    .strip_prefix("  ")
                    .and_then(|l| l.split_whitespace().next())
                else {
                    break;
                };
                if name != "help" {
                    let mut next = path.clone();
                    next.push(name.to_owned());
                    paths.push(next);
                }
            }
        }
        i += 1;
    }
    paths
}

/// `engram <path> --help`, stdout and stderr together.
fn help(path: &[String], env: &[(&str, &str)]) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_engram"));
    cmd.args(path).arg("--help").stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("engram runs");
    assert!(out.status.success(), "{path:?}: {out:?}");
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn help_never_prints_a_secret_from_the_environment() {
    let secrets = [
        "Sk-admin-0123456789abcdef",
        "pa55w0rd-in-the-url",
        "llm-key-fedcba9876543210",
        "embed-key-13579bdf",
        "basepass-in-llm-url",
        "basepass-in-embed-url",
    ];
    let env = [
        ("ENGRAM_API_KEY", secrets[0].to_owned()),
        (
            "ENGRAM_DATABASE_URL",
            format!("postgres://engram:{}@127.0.0.1:1/engram", secrets[1]),
        ),
        ("ENGRAM_LLM_API_KEY", secrets[2].to_owned()),
        ("ENGRAM_EMBED_API_KEY", secrets[3].to_owned()),
        (
            "ENGRAM_LLM_BASE_URL",
            format!("https://me:{}@llm.example/v1", secrets[4]),
        ),
        (
            "ENGRAM_EMBED_BASE_URL",
            format!("https://me:{}@embed.example/v1", secrets[5]),
        ),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let paths = command_paths(&env);
    for expected in [
        vec!["serve"],
        vec!["worker"],
        vec!["migrate"],
        vec!["keys", "create"],
        vec!["import"],
        vec!["consolidate"],
    ] {
        assert!(
            paths.iter().any(|p| p == &expected),
            "{expected:?} not in {paths:?}"
        );
    }
    for path in &paths {
        let out = help(path, &env);
        for s in &secrets {
            assert!(
                !out.contains(s),
                "`engram {path:?} --help` printed {s}:\n{out}"
            );
        }
        // The variables are still named, so users know what to set.
        if path.first().map(String::as_str) == Some("serve") {
            assert!(out.contains("ENGRAM_API_KEY") && out.contains("ENGRAM_DATABASE_URL"));
        }
    }
    // Nor does a command that fails on them (an unreachable database).
    let out = Command::new(env!("CARGO_BIN_EXE_engram"))
        .arg("migrate")
        .envs(env.iter().copied())
        .env("ENGRAM_DB_ACQUIRE_TIMEOUT_MS", "500")
        .stdin(Stdio::null())
        .output()
        .expect("engram runs");
    assert!(!out.status.success());
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    for s in &secrets {
        assert!(!text.contains(s), "an error printed {s}:\n{text}");
    }
}

/// A user who said "I live in Berlin" through every path that keeps it:
/// an inferred add with a verbatim copy, and a session (turns, summary).
async fn berlin_everywhere(app: &TestApp, user: &str, session: &str) {
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": user, "wait": true, "store_raw": true, "messages": [
                {"role": "user", "content": "I live in Berlin and I work at Siemens."}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    berlin_session(app, user, session).await;
}

/// Everything a user sees of themselves (live memories, profile, context,
/// turns, summary, job results), as one text.
async fn what_is_held(app: &TestApp, user: &str, session: &str) -> String {
    let listed = app
        .get(&format!("/v1/memories?user_id={user}&limit=1000"))
        .await;
    let (turns, summary) = session_texts(app, session).await;
    let jobs: Vec<Value> = sqlx::query_scalar("SELECT results FROM jobs WHERE user_id = $1")
        .bind(user)
        .fetch_all(&app.pool)
        .await
        .unwrap();
    format!(
        "{} {:?} {} {} {summary} {:?}",
        listed.body,
        profile(app, user).await,
        context_text(app, user, session, "where do I live").await,
        turns.join(" "),
        jobs
    )
}

/// The review's ways of asking to forget, each through a session of its
/// own: German, a request to forget everything, "remove … from your
/// memory", "don't store that …" (read as a retraction before). Each
/// reaches the profile, search, context, turns, summary, job results and
/// the verbatim copy of the message that stated the fact.
#[sqlx::test(migrations = false)]
async fn forget_requests_in_any_wording_reach_every_copy(pool: PgPool) {
    let app = spawn_app(pool).await;
    for (i, request) in [
        "Vergiss, dass ich in Berlin wohne.",
        "Please forget everything you know about me.",
        "Remove Berlin from your memory.",
        "Don't store that I live in Berlin.",
        // Issue 51's English wordings.
        "Wipe everything about Berlin.",
        "That's private, delete that I live in Berlin.",
        "You no longer need to know that I live in Berlin, forget it.",
    ]
    .iter()
    .enumerate()
    {
        let (user, session) = (format!("f{i}"), format!("fs{i}"));
        berlin_everywhere(&app, &user, &session).await;
        assert!(what_is_held(&app, &user, &session).await.contains("Berlin"));
        let raw: i64 = sqlx::query_scalar(
            "SELECT count(*) FROM memories WHERE user_id = $1 AND attribute IS NULL AND deleted_at IS NULL AND content LIKE '%Berlin%'",
        )
        .bind(&user)
        .fetch_one(&app.pool)
        .await
        .unwrap();
        // The add's message and the session's turns, kept as they were said.
        assert_eq!(raw, 3, "what was said is kept until the request");
        append(
            &app,
            &session,
            json!({"user_id": user, "messages": [{"role": "user", "content": request}]}),
        )
        .await;
        app.settle().await;
        let held = what_is_held(&app, &user, &session).await;
        assert!(!held.contains("Berlin"), "{request}: {held}");
        let live: Vec<String> = sqlx::query_scalar(
            "SELECT content FROM memories WHERE user_id = $1 AND deleted_at IS NULL",
        )
        .bind(&user)
        .fetch_all(&app.pool)
        .await
        .unwrap();
        assert!(
            live.iter().all(|c| !c.contains("Berlin")),
            "{request}: {live:?}"
        );
        let events: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT h.event FROM memory_history h JOIN memories m ON m.id = h.memory_id
             WHERE m.user_id = $1 AND h.event IN ('FORGET', 'RETRACT')",
        )
        .bind(&user)
        .fetch_all(&app.pool)
        .await
        .unwrap();
        assert_eq!(events, ["FORGET"], "{request}: forgotten, not retracted");
        if request.contains("everything you know about me") {
            assert!(live.is_empty(), "everything: {live:?}");
            let job: Value = sqlx::query_scalar(
                "SELECT results FROM jobs WHERE user_id = $1 AND kind = 'extract' ORDER BY created_at DESC LIMIT 1",
            )
            .bind(&user)
            .fetch_one(&app.pool)
            .await
            .unwrap();
            assert!(job.to_string().contains("everything about them"), "{job}");
        }
    }
}

/// A FORGET reaches a fact the user had already taken back (a retraction
/// keeps the turns, the summary and the memory's text; a request to forget
/// then removes them).
#[sqlx::test(migrations = false)]
async fn a_forget_reaches_a_fact_already_retracted(pool: PgPool) {
    let app = spawn_app(pool).await;
    berlin_everywhere(&app, "r1", "rs1").await;
    append(
        &app,
        "rs1",
        json!({"user_id": "r1", "messages": [{"role": "user", "content": "I don't live in Berlin anymore."}]}),
    )
    .await;
    app.settle().await;
    let (turns, _) = session_texts(&app, "rs1").await;
    assert!(
        turns[0].contains("Berlin"),
        "a retraction keeps what was said"
    );
    append(
        &app,
        "rs1",
        json!({"user_id": "r1", "messages": [{"role": "user", "content": "Please forget that I lived in Berlin."}]}),
    )
    .await;
    app.settle().await;
    let held = what_is_held(&app, "r1", "rs1").await;
    assert!(!held.contains("Berlin"), "{held}");
}

/// Issue 51: in nine languages kept verbatim, a request to forget was
/// itself stored (holding the value) and nothing was forgotten. Now what
/// was said in the language is reached, and the request is never kept.
#[sqlx::test(migrations = false)]
async fn forget_requests_in_the_languages_kept_verbatim_reach_what_was_said(pool: PgPool) {
    let app = spawn_app(pool).await;
    for (lang, said, request, city) in [
        ("zh", "我住在奥斯陆。", "请忘记我住在奥斯陆。", "奥斯陆"),
        (
            "ja",
            "私はオスロに住んでいます。",
            "私がオスロに住んでいることを忘れてください。",
            "オスロ",
        ),
        (
            "ko",
            "저는 오슬로에 살아요.",
            "내가 오슬로에 산다는 것을 잊어 주세요.",
            "오슬로",
        ),
        (
            "tr",
            "Oslo'da yaşıyorum.",
            "Oslo'da yaşadığımı unut.",
            "Oslo",
        ),
        (
            "ar",
            "أنا أعيش في أوسلو.",
            "من فضلك انس أنني أعيش في أوسلو.",
            "أوسلو",
        ),
        (
            "hi",
            "मैं ओस्लो में रहता हूँ।",
            "कृपया भूल जाइए कि मैं ओस्लो में रहता हूँ।",
            "ओस्लो",
        ),
        (
            "id",
            "Saya tinggal di Oslo.",
            "Tolong lupakan bahwa saya tinggal di Oslo.",
            "Oslo",
        ),
        (
            "vi",
            "Tôi sống ở Oslo.",
            "Hãy quên rằng tôi sống ở Oslo.",
            "Oslo",
        ),
        ("el", "Μένω στο Όσλο.", "Ξέχασε ότι μένω στο Όσλο.", "Όσλο"),
        // And three more the review did not list.
        ("th", "ฉันอาศัยอยู่ที่ออสโล", "ช่วยลืมว่าฉันอาศัยอยู่ที่ออสโลด้วย", "ออสโล"),
        (
            "he",
            "אני גר באוסלו.",
            "בבקשה תשכח שאני גר באוסלו.",
            "באוסלו",
        ),
        ("uk", "Я живу в Осло.", "Забудь, що я живу в Осло.", "Осло"),
    ] {
        let user = format!("lang-{lang}");
        app.infer(&user, said).await;
        let live = |user: String| {
            let pool = app.pool.clone();
            async move {
                sqlx::query_scalar::<_, String>(
                    "SELECT content FROM memories WHERE user_id = $1 AND deleted_at IS NULL",
                )
                .bind(user)
                .fetch_all(&pool)
                .await
                .unwrap()
            }
        };
        let before = live(user.clone()).await;
        assert!(
            before.iter().any(|c| c.contains(city)),
            "{lang}: {before:?}"
        );
        let rows_before = app.count_rows("memories").await;
        let job = app.infer(&user, request).await;
        let after = live(user.clone()).await;
        assert!(
            after.iter().all(|c| !c.contains(city)),
            "{lang}: {after:?} {job}"
        );
        assert_eq!(
            app.count_rows("memories").await,
            rows_before,
            "{lang}: the request itself was stored: {job}"
        );
        assert!(events(&job).contains(&"FORGET".to_owned()), "{lang}: {job}");
    }
}
