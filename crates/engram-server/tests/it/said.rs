//! What was said, kept as it was said (issue 50's episodic layer): every
//! write path keeps the turns, in pieces that name their turn; the same
//! words are one memory; a fact names the piece it was read from; deletes,
//! forgets, redactions, erasure, purges and exports reach every piece;
//! the assistant's turns are kept with a lower prior unless the server
//! keeps the user's only; retention renews.

use crate::common::{spawn_app, TestApp, KEY};
use engram_api::ApiConfig;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::PgPool;

/// The user's pieces of what was said, as (content, said), oldest first.
async fn said(app: &TestApp, user: &str) -> Vec<(String, Value)> {
    let r = app
        .get(&format!("/v1/memories?user_id={user}&said=true&limit=100"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let mut out: Vec<(String, Value)> = r.body["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["memory"].as_str().unwrap().to_owned(),
                m["provenance"]["said"].clone(),
            )
        })
        .collect();
    out.reverse();
    out
}

fn texts(pieces: &[(String, Value)]) -> Vec<&str> {
    pieces.iter().map(|(t, _)| t.as_str()).collect()
}

async fn append(app: &TestApp, session: &str, body: Value) -> Value {
    app.append(session, body).await
}

/// Ana's first session: one turn of hers, one of the assistant's.
async fn append_cello_lesson(app: &TestApp) {
    append(
        app,
        "s1",
        json!({"user_id": "ana", "messages": [
            {"role": "user", "content": "I have a cello lesson every Thursday."},
            {"role": "assistant", "content": "Lovely, how long have you played?"}]}),
    )
    .await;
}

#[sqlx::test(migrations = false)]
async fn every_write_path_keeps_what_was_said(pool: PgPool) {
    let app = spawn_app(pool).await;
    // A session append, with or without inference.
    append_cello_lesson(&app).await;
    append(
        &app,
        "s2",
        json!({"user_id": "ana", "infer": false, "messages": [
            {"role": "user", "content": "My neighbour Ruth waters my ferns."}]}),
    )
    .await;
    // An add with inference (what MCP's add_memory with infer sends).
    let r = app
        .post(
            "/v1/memories",
            json!({"user_id": "ana", "messages": [{"role": "user", "content": "We adopted a greyhound called Pip."}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::ACCEPTED, "{}", r.body);
    assert_eq!(
        r.body["raw"][0]["memory"],
        "We adopted a greyhound called Pip."
    );
    // Mem0's routes, Platform and OSS, with inference.
    for (path, (header, value)) in [
        (
            "/mem0/v3/memories/add/",
            ("authorization", format!("Token {KEY}")),
        ),
        ("/mem0-oss/memories", ("x-api-key", KEY.to_owned())),
    ] {
        let r = app
            .raw(
                app.client
                    .request(Method::POST, app.url(path))
                    .header(header, value)
                    .json(&json!({"user_id": "ana", "messages": [
                        {"role": "user", "content": format!("I keep bees ({path}).")}]})),
            )
            .await;
        assert!(r.status.is_success(), "{path}: {}", r.body);
    }
    app.settle().await;
    let kept = said(&app, "ana").await;
    let mut got = texts(&kept);
    got.sort();
    assert_eq!(
        got,
        [
            "I have a cello lesson every Thursday.",
            "I keep bees (/mem0-oss/memories).",
            "I keep bees (/mem0/v3/memories/add/).",
            "Lovely, how long have you played?",
            "My neighbour Ruth waters my ferns.",
            "We adopted a greyhound called Pip.",
        ],
        "the assistant's turn is kept too, by default"
    );
    // A session's piece says which turn it was.
    let (_, cello) = kept
        .iter()
        .find(|(t, _)| t.starts_with("I have a cello"))
        .unwrap();
    assert_eq!(
        cello,
        &json!({"by": "user", "seq": 0, "piece": 0, "pieces": 1})
    );
    // Found by search and recalled in a new conversation, quoted and dated.
    let c = app
        .post(
            "/v1/context",
            json!({"user_id": "ana", "query": "when is my music lesson?", "token_budget": 300}),
        )
        .await;
    let text = c.body["text"].as_str().unwrap();
    assert!(
        text.contains(", conversation s1\n- user: “I have a cello lesson every Thursday.”"),
        "{text}"
    );
    // store_raw: false keeps none.
    append(
        &app,
        "s3",
        json!({"user_id": "bo", "store_raw": false, "messages": [
            {"role": "user", "content": "I run marathons."}]}),
    )
    .await;
    app.settle().await;
    assert!(said(&app, "bo").await.is_empty());
}

#[sqlx::test(migrations = false)]
async fn long_turns_are_cut_into_pieces_and_the_same_words_are_one_memory(pool: PgPool) {
    let app = spawn_app(pool).await;
    let long = (0..12)
        .map(|i| {
            format!("Sentence number {i} of a long message about my garden and its many roses.")
        })
        .collect::<Vec<_>>()
        .join(" ");
    append(
        &app,
        "long",
        json!({"user_id": "cy", "infer": false, "messages": [{"role": "user", "content": long}]}),
    )
    .await;
    let kept = said(&app, "cy").await;
    assert!(kept.len() >= 2, "{kept:?}");
    let n = kept.len() as i64;
    for (i, (text, at)) in kept.iter().enumerate() {
        assert!(long.contains(text.as_str()), "word for word: {text}");
        assert!(text.split_whitespace().count() <= 80, "{text}");
        assert_eq!(at["pieces"], n);
        assert_eq!(at["piece"], i as i64);
        assert_eq!(at["seq"], 0);
    }
    // The same words in another session: the memory kept already.
    for session in ["a", "b"] {
        append(
            &app,
            session,
            json!({"user_id": "cy", "infer": false, "messages": [{"role": "user", "content": "Good morning!"}]}),
        )
        .await;
    }
    let kept = said(&app, "cy").await;
    let mornings = texts(&kept)
        .into_iter()
        .filter(|t| *t == "Good morning!")
        .count();
    assert_eq!(mornings, 1);
}

#[sqlx::test(migrations = false)]
async fn the_assistants_turns_are_kept_below_the_users(pool: PgPool) {
    let app = spawn_app(pool).await;
    append(
        &app,
        "trip",
        json!({"user_id": "di", "messages": [
            {"role": "user", "content": "Which hotels would you suggest in Porto?"},
            {"role": "assistant", "content": "Try the Torel Palace, the Infante Sagres or the Pestana Vintage."},
            {"role": "system", "content": "You are a travel agent."}]}),
    )
    .await;
    let r = app.get("/v1/memories?user_id=di&said=true").await.body;
    let assistant: Vec<&Value> = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["provenance"]["said"]["by"] == "assistant")
        .collect();
    assert_eq!(assistant.len(), 1, "{r}");
    assert_eq!(assistant[0]["source"]["type"], "assistant");
    assert!(assistant[0]["importance"].as_f64().unwrap() < 0.5);
    assert_eq!(
        r["results"].as_array().unwrap().len(),
        2,
        "never the system's: {r}"
    );
    let c = app
        .post(
            "/v1/context",
            json!({"user_id": "di", "query": "which hotels did you suggest?", "token_budget": 300}),
        )
        .await;
    assert!(
        c.body["text"]
            .as_str()
            .unwrap()
            .contains("- assistant: “Try the Torel Palace"),
        "{}",
        c.body
    );
}

/// `ENGRAM_EPISODIC=user` keeps the user's turns only; a request's
/// `store_raw: false` keeps none.
#[sqlx::test(migrations = false)]
async fn a_server_can_keep_the_users_turns_only(pool: PgPool) {
    let mut config = ApiConfig::default();
    config.episodic.keep = engram_core::said::KeepTurns::User;
    let app = TestApp::builder(pool).config(config).spawn().await;
    append_cello_lesson(&app).await;
    append(
        &app,
        "s2",
        json!({"user_id": "ana", "store_raw": false, "messages": [
            {"role": "user", "content": "My neighbour Ruth waters my ferns."}]}),
    )
    .await;
    app.settle().await;
    assert_eq!(
        texts(&said(&app, "ana").await),
        ["I have a cello lesson every Thursday."]
    );
}

/// A fact names its evidence; deleting the fact deletes the pieces that
/// state it (their words and vectors would keep it) and redacts the turn,
/// leaving the rest of what was said; deleting a piece redacts its turn.
#[sqlx::test(migrations = false)]
async fn deleting_a_fact_reaches_what_was_said_of_it(pool: PgPool) {
    let app = spawn_app(pool).await;
    append(
        &app,
        "s",
        json!({"user_id": "ed", "messages": [
            {"role": "user", "content": "I live in Ghent."},
            {"role": "user", "content": "We went to a concert on Friday."}]}),
    )
    .await;
    app.settle().await;
    let facts = app.get("/v1/memories?user_id=ed&said=false").await.body;
    let ghent = &facts["results"][0];
    assert_eq!(ghent["memory"], "User lives in Ghent.", "{facts}");
    let evidence = ghent["provenance"]["evidence_id"].as_str().unwrap();
    let piece = app.get(&format!("/v1/memories/{evidence}")).await.body;
    assert_eq!(piece["memory"], "I live in Ghent.");

    let r = app
        .delete(&format!("/v1/memories/{}", ghent["id"].as_str().unwrap()))
        .await;
    assert_eq!(r.status, StatusCode::NO_CONTENT, "{}", r.body);
    assert_eq!(
        texts(&said(&app, "ed").await),
        ["We went to a concert on Friday."]
    );
    let history = app.last_history(evidence).await;
    assert_eq!(history["event"], "DELETE", "{history}");
    let turns = app.get("/v1/sessions/s/messages").await.body;
    assert!(!turns.to_string().contains("Ghent"), "{turns}");
    // Deleting what was said itself takes it out of the transcript too.
    let concert = app.get("/v1/memories?user_id=ed&said=true").await.body["results"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    app.delete(&format!("/v1/memories/{concert}")).await;
    let turns = app.get("/v1/sessions/s/messages").await.body;
    assert!(!turns.to_string().contains("concert"), "{turns}");
    assert!(said(&app, "ed").await.is_empty());
}

/// A secret split across two appends is redacted in both turns, and the
/// earlier turn's pieces, which held half of it, are replaced.
#[sqlx::test(migrations = false)]
async fn a_secret_split_across_turns_leaves_no_piece_holding_it(pool: PgPool) {
    let app = spawn_app(pool).await;
    append(
        &app,
        "card",
        json!({"user_id": "fi", "infer": false, "messages": [
            {"role": "user", "content": "My card number is 4111 1111"}]}),
    )
    .await;
    append(
        &app,
        "card",
        json!({"user_id": "fi", "infer": false, "messages": [
            {"role": "user", "content": "1111 1111, please keep it."}]}),
    )
    .await;
    let held: Vec<String> = sqlx::query_scalar("SELECT content FROM memories WHERE user_id = 'fi'")
        .fetch_all(&app.pool)
        .await
        .unwrap();
    assert!(!held.is_empty());
    assert!(
        held.iter()
            .all(|c| !c.contains("4111") && !c.contains("1111 1111")),
        "{held:?}"
    );
}

/// Erasure and a session's deletion take every piece; an export carries
/// them with their turns.
#[sqlx::test(migrations = false)]
async fn erasure_export_and_purges_reach_every_piece(pool: PgPool) {
    let app = spawn_app(pool).await;
    for (session, text) in [
        ("p1", "I sail on weekends."),
        ("p2", "My sister Lea paints."),
    ] {
        append(
            &app,
            session,
            json!({"user_id": "gus", "messages": [{"role": "user", "content": text}]}),
        )
        .await;
    }
    app.settle().await;
    let export: Value = serde_json::from_slice(&app.export("gus").await).unwrap();
    let pieces: Vec<&Value> = export["memories"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["said_by"] == "user")
        .collect();
    assert_eq!(pieces.len(), 2, "{export}");
    assert!(pieces
        .iter()
        .all(|m| m["turn_seq"] == 0 && m["turn_pieces"] == 1));
    // Deleting a session takes its pieces (a source purge of session:p1).
    let r = app.delete("/v1/sessions/p1/messages").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(texts(&said(&app, "gus").await), ["My sister Lea paints."]);
    // Erasure takes the rest: nothing of it is left anywhere.
    let r = app.delete("/v1/admin/users/gus").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let left = crate::common::tables_holding(&app, "paints").await;
    assert!(left.is_empty(), "{left:?}");
}

/// With a retention, a piece expires that many days after it was last
/// said or used; saying it again renews it.
#[sqlx::test(migrations = false)]
async fn retention_expires_what_was_said_unless_it_is_said_again(pool: PgPool) {
    let mut config = ApiConfig::default();
    config.episodic.retention_days = Some(30);
    let app = TestApp::builder(pool).config(config).spawn().await;
    let said_at = "2026-01-01T10:00:00Z";
    append(
        &app,
        "r",
        json!({"user_id": "hal", "infer": false, "messages": [
            {"role": "user", "content": "I take the 8:10 train.", "created_at": said_at}]}),
    )
    .await;
    let expires: Vec<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT expires_at FROM memories WHERE user_id = 'hal'")
            .fetch_all(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        expires,
        ["2026-01-31T10:00:00Z"
            .parse::<chrono::DateTime<chrono::Utc>>()
            .unwrap()]
    );
    // Said again now: kept until 30 days from now.
    append(
        &app,
        "r2",
        json!({"user_id": "hal", "infer": false, "messages": [
            {"role": "user", "content": "I take the 8:10 train."}]}),
    )
    .await;
    let renewed: chrono::DateTime<chrono::Utc> =
        sqlx::query_scalar("SELECT expires_at FROM memories WHERE user_id = 'hal'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(
        renewed > chrono::Utc::now() + chrono::Duration::days(29),
        "{renewed}"
    );
    // Used (found by a search) a year on: kept 30 days from its use.
    sqlx::query("UPDATE memories SET expires_at = now() + interval '1 day' WHERE user_id = 'hal'")
        .execute(&app.pool)
        .await
        .unwrap();
    app.search(json!({"user_id": "hal", "query": "which train do I take"}))
        .await;
    for _ in 0..100 {
        let used: chrono::DateTime<chrono::Utc> =
            sqlx::query_scalar("SELECT expires_at FROM memories WHERE user_id = 'hal'")
                .fetch_one(&app.pool)
                .await
                .unwrap();
        if used > chrono::Utc::now() + chrono::Duration::days(29) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("a use did not renew the piece");
}
