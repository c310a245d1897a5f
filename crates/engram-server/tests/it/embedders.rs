//! The multilingual local embedder (ENGRAM_EMBEDDER=e5) end to end: what is
//! stored in German, Spanish or French is found by a question in the same
//! language or in English, and a database of one model's vectors refuses
//! the other.

use engram_store::{Store, StoreError};
use serde_json::json;
use sqlx::PgPool;

use crate::common::{contents, e5, embedder, spawn_app, TestApp};

const MEMORIES: [&str; 8] = [
    "Ich wohne in Köln und arbeite bei der Telekom.",
    "Mein Hund heißt Bello.",
    "Mi madre se llama Carmen y vive en Granada.",
    "Soy intolerante a la lactosa.",
    "Je lis surtout des romans policiers.",
    "Mon frère est pilote chez Air France.",
    "I go climbing every Saturday morning.",
    "My sister is a lawyer in Boston.",
];

#[sqlx::test]
async fn e5_finds_memories_across_four_languages(pool: PgPool) {
    let app = TestApp::builder(pool).embedder(e5()).spawn().await;
    for m in MEMORIES {
        app.add_text("polyglot", m).await;
    }
    // (question, the memory it asks about); few share a word with it, and
    // no other memory answers it in another language.
    let asked = [
        ("Wo wohne ich?", 0),
        ("Wie heißt mein Haustier?", 1),
        ("¿Puedo tomar leche?", 3),
        ("Quel genre de livres est-ce que je préfère ?", 4),
        ("¿Cuál es el nombre de mi madre?", 2),
        ("What sport do I do on weekends?", 6),
    ];
    // Across languages only the vectors can match (BM25 shares no word with
    // the memory, so hybrid ranks it by half its relevance).
    let across = [
        ("What does my brother do for a living?", 5),
        ("Which company do I work for?", 0),
    ];
    let cases = asked
        .iter()
        .map(|c| ("hybrid", *c))
        .chain(asked.iter().chain(&across).map(|c| ("dense", *c)));
    for (mode, (q, want)) in cases {
        let hits = app
            .search(json!({"user_id": "polyglot", "query": q, "mode": mode, "top_k": 3}))
            .await;
        assert_eq!(
            contents(&hits).first().map(String::as_str),
            Some(MEMORIES[want]),
            "{mode}: {q}"
        );
    }
}

#[sqlx::test(migrations = false)]
async fn a_database_of_minilm_vectors_refuses_e5(pool: PgPool) {
    let app = spawn_app(pool.clone()).await;
    app.add_text("u", "I like tea.").await;
    let store = Store::new(pool);
    let e5 = e5();
    match store.check_embedder(e5.id(), e5.dimensions()).await {
        Err(StoreError::EmbedderMismatch(m)) => {
            assert!(m.contains(embedder().id()) && m.contains(e5.id()), "{m}")
        }
        other => panic!("expected a mismatch, got {other:?}"),
    }
}
