//! Remember only what is true and safe (issue 16), over HTTP with the rules
//! extractor: every case the issue lists, checked through the profile and
//! search after each message.

use crate::common::{spawn_app, TestApp};
use reqwest::StatusCode;
use serde_json::{json, Value};
use sqlx::PgPool;

/// The profile's `attribute = value` pairs.
async fn profile(app: &TestApp, user: &str) -> Vec<String> {
    let r = app.get(&format!("/v1/users/{user}/profile")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    r.body["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| {
            Some(format!(
                "{}={}",
                e["attribute"].as_str()?,
                e["value"].as_str().unwrap_or("")
            ))
        })
        .collect()
}

/// Everything search returns for `query` (the user's live memories, as text).
/// The facts a search finds (what was said is kept whatever it says:
/// questions, hypotheses and denials are words said, not facts).
async fn found(app: &TestApp, user: &str, query: &str) -> Vec<String> {
    crate::common::contents(
        &app.search(json!({"user_id": user, "query": query, "top_k": 20,
                           "filters": {"said": false}}))
            .await,
    )
}

/// A user who lives in Austin, works at Initech, has a sister called Alice
/// and is a nurse.
async fn baseline(app: &TestApp, user: &str) {
    for text in [
        "I live in Austin.",
        "I work at Initech.",
        "My sister is called Alice.",
        "I'm a nurse.",
    ] {
        app.infer(user, text).await;
    }
    let p = profile(app, user).await;
    for want in [
        "location.city=Austin",
        "employer=Initech",
        "family.sister.name=Alice",
        "role=nurse",
    ] {
        assert!(p.contains(&want.to_owned()), "{want} in {p:?}");
    }
}

#[sqlx::test(migrations = false)]
async fn questions_hypotheses_reported_speech_denials_and_other_people_change_nothing(
    pool: PgPool,
) {
    let app = spawn_app(pool).await;
    baseline(&app, "carol").await;
    let before = profile(&app, "carol").await;
    for text in [
        "Should I work at Google?",
        "If I moved to Paris, I would miss my friends.",
        "My brother told me: I live in Berlin.",
        "It is not true that I am a pilot.",
        "Yesterday I saw a doctor at Mercy Hospital.",
    ] {
        let job = app.infer("carol", text).await;
        let stored: Vec<&Value> = job["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| {
                ["ADD", "SUPERSEDE", "MERGE", "RETRACT", "FORGET"]
                    .contains(&r["event"].as_str().unwrap_or(""))
            })
            .collect();
        assert!(stored.is_empty(), "{text}: {stored:?}");
        assert_eq!(profile(&app, "carol").await, before, "{text}");
    }
    // A fact about someone the user names is kept under them, never as the
    // user's own: the user's keys stay as they were.
    let job = app
        .infer("carol", "My sister is a teacher at Lincoln High.")
        .await;
    for r in job["results"].as_array().unwrap() {
        if r["event"] == "ADD" || r["event"] == "SUPERSEDE" {
            let key = r["attribute"].as_str().unwrap_or("");
            assert!(key.starts_with("family.sister."), "{job}");
        }
    }
    let own = |p: Vec<String>| -> Vec<String> {
        p.into_iter()
            .filter(|e| !e.starts_with("family.sister.") || e == "family.sister.name=Alice")
            .collect()
    };
    assert_eq!(own(profile(&app, "carol").await), own(before.clone()));
    for (query, absent) in [
        ("where do I work", "Google"),
        ("which city do I live in", "Paris"),
        ("which city do I live in", "Berlin"),
        ("what is my job", "pilot"),
        ("where do I work", "Lincoln"),
        ("where do I work", "Mercy"),
    ] {
        let hits = found(&app, "carol", query).await;
        assert!(
            hits.iter().all(|h| !h.contains(absent)),
            "{absent} in {hits:?}"
        );
    }
}

#[sqlx::test(migrations = false)]
async fn forget_and_retractions_retire_facts_and_never_reinforce_them(pool: PgPool) {
    let app = spawn_app(pool).await;
    for text in [
        "I live in Berlin.",
        "I work at Siemens.",
        "I'm vegetarian.",
        "I have a dog.",
    ] {
        app.infer("dave", text).await;
    }
    let berlin = app
        .search(json!({"user_id": "dave", "query": "where do I live", "filters": {"said": false}}))
        .await
        .into_iter()
        .find(|h| h["memory"].as_str().unwrap_or("").contains("Berlin"))
        .expect("Berlin is held");
    let job = app
        .infer("dave", "Please forget that I live in Berlin.")
        .await;
    assert_eq!(crate::common::events(&job), ["FORGET"], "{job}");
    assert!(job["results"][0]["new_content"].is_null(), "{job}");
    assert!(!profile(&app, "dave")
        .await
        .iter()
        .any(|e| e.contains("Berlin")));
    assert!(found(&app, "dave", "where do I live")
        .await
        .iter()
        .all(|h| !h.contains("Berlin")));
    // Recorded as FORGET with the message and the reason; the request itself
    // is not a memory.
    let id = berlin["id"].as_str().unwrap();
    let last = app.last_history(id).await;
    assert_eq!(last["event"], "FORGET", "{last}");
    assert_eq!(
        last["source_message"],
        "Please forget that I live in Berlin."
    );
    assert!(found(&app, "dave", "forget")
        .await
        .iter()
        .all(|h| !h.contains("forget")));
    // Revert undoes it.
    let r = app
        .post(&format!("/v1/memories/{id}/revert"), json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(profile(&app, "dave")
        .await
        .contains(&"location.city=Berlin".to_owned()));

    for (text, gone) in [
        ("I no longer work at Siemens.", "employer=Siemens"),
        ("I am not vegetarian anymore.", "diet=vegetarian"),
        ("Actually, I do not have a dog.", "pet.dog=a"),
    ] {
        assert!(
            profile(&app, "dave").await.contains(&gone.to_owned()),
            "{gone} before {text}"
        );
        let job = app.infer("dave", text).await;
        assert_eq!(crate::common::events(&job), ["RETRACT"], "{text}: {job}");
        let p = profile(&app, "dave").await;
        assert!(!p.contains(&gone.to_owned()), "{text}: {p:?}");
    }
    // Quitting takes the job back too; nothing held is reinforced.
    app.infer("dave", "I work at Siemens.").await;
    let job = app
        .infer("dave", "I quit my job at Siemens last week.")
        .await;
    assert_eq!(crate::common::events(&job), ["RETRACT"], "{job}");
    assert!(!profile(&app, "dave")
        .await
        .iter()
        .any(|e| e.contains("Siemens")));
    // Taking back what is not held changes nothing.
    let job = app.infer("dave", "I don't live in Rome anymore.").await;
    assert_eq!(crate::common::events(&job), ["NOOP"], "{job}");
    assert!(job["results"][0]["memory_id"].is_null());
}

/// "Stop remembering my music taste": a category reaches the facts under
/// its keys (the favourite band and song), not the favourite colour (a
/// person's facts are kept apart in `decide`'s unit test).
#[sqlx::test(migrations = false)]
async fn a_request_to_forget_a_category_reaches_its_facts_only(pool: PgPool) {
    let app = spawn_app(pool).await;
    for text in [
        "My favourite band is Muse.",
        "My favourite song is Starlight.",
        "My favourite colour is green.",
    ] {
        app.infer("erin", text).await;
    }
    let before = profile(&app, "erin").await;
    assert!(
        before.iter().any(|e| e.contains("Muse")) && before.iter().any(|e| e.contains("Starlight")),
        "{before:?}"
    );
    let job = app
        .infer("erin", "Stop remembering my music taste, please.")
        .await;
    assert_eq!(crate::common::events(&job), ["FORGET"], "{job}");
    let after = profile(&app, "erin").await;
    assert!(
        !after
            .iter()
            .any(|e| e.contains("Muse") || e.contains("Starlight")),
        "{after:?}"
    );
    assert!(after.iter().any(|e| e.contains("green")), "{after:?}");
    // "Can you erase my address?" is a request to forget, not a question.
    app.infer("erin", "I live in Porto.").await;
    let job = app.infer("erin", "Can you erase my address?").await;
    assert_eq!(crate::common::events(&job), ["FORGET"], "{job}");
    assert!(!profile(&app, "erin")
        .await
        .iter()
        .any(|e| e.contains("Porto")));
}

#[sqlx::test(migrations = false)]
async fn one_sensitive_fact_does_not_sink_a_message(pool: PgPool) {
    let app = spawn_app(pool).await;
    let job = app
        .infer(
            "erin",
            "I am allergic to peanuts and I live in Berlin. My dog is called Rex.",
        )
        .await;
    let p = profile(&app, "erin").await;
    assert!(p.contains(&"location.city=Berlin".to_owned()), "{p:?}");
    assert!(p.contains(&"pet.dog.name=Rex".to_owned()), "{p:?}");
    assert!(!p.iter().any(|e| e.contains("peanut")), "{p:?}");
    let rejected: Vec<&Value> = job["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["event"] == "REJECTED")
        .collect();
    assert_eq!(rejected.len(), 1, "{job}");
    assert!(rejected[0]["reason"].as_str().unwrap().contains("health"));
    // Job results keep the category and the reason, never the words.
    assert!(!job.to_string().contains("peanut"), "{job}");
}

/// Corrections that name no key, changes from one thing to another, and
/// things given up or sold: each retires what it names and nothing else.
#[sqlx::test(migrations = false)]
async fn corrections_switches_and_things_given_up_reach_what_they_name(pool: PgPool) {
    let app = spawn_app(pool).await;
    for text in [
        "I'm from Salzburg originally.",
        "I work at KPMG.",
        "I use an Android phone.",
        "I'm learning German.",
        "I live in Salzburg.",
    ] {
        app.infer("erin", text).await;
    }
    let p = profile(&app, "erin").await;
    assert!(p.contains(&"location.city=Salzburg".to_owned()), "{p:?}");

    // "I meant Graz, not Salzburg": the fact said last (the city) takes
    // Graz; the origin stays.
    let job = app
        .infer("erin", "Sorry, I meant Graz, not Salzburg.")
        .await;
    assert_eq!(crate::common::events(&job), ["SUPERSEDE"], "{job}");
    let p = profile(&app, "erin").await;
    assert!(p.contains(&"location.city=Graz".to_owned()), "{p:?}");
    assert!(p.contains(&"origin=Salzburg".to_owned()), "{p:?}");
    assert!(found(&app, "erin", "which city do I live in")
        .await
        .contains(&"User lives in Graz.".to_owned()));

    // The same without a held value changes nothing, and says so.
    let job = app.infer("erin", "Sorry, I meant Bern, not Basel.").await;
    assert_eq!(crate::common::events(&job), ["NOOP"], "{job}");

    // A switch retires what it leaves; the new tool is kept.
    let job = app
        .infer("erin", "I switched from Android to an iPhone last week.")
        .await;
    let events = crate::common::events(&job);
    assert_eq!(events[0], "RETRACT", "{job}");
    let p = profile(&app, "erin").await;
    assert!(!p.iter().any(|e| e.contains("Android")), "{p:?}");
    assert!(p.iter().any(|e| e.contains("iPhone")), "{p:?}");

    // Given up: by its words, only the user's own fact.
    let job = app.infer("erin", "I stopped learning German.").await;
    assert_eq!(crate::common::events(&job), ["RETRACT"], "{job}");
    let p = profile(&app, "erin").await;
    assert!(!p.iter().any(|e| e.contains("German")), "{p:?}");
    assert!(p.contains(&"employer=KPMG".to_owned()), "{p:?}");
}
