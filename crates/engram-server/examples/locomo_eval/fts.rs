//! The Postgres full-text baseline: `ts_rank` over the same turns, in SQL,
//! no Engram ranking at all. The question's words are OR-ed (`plainto_tsquery`
//! would AND them, and few questions share every word with one turn).

use sqlx::PgPool;

pub async fn search(pool: &PgPool, user: &str, question: &str) -> anyhow::Result<Vec<String>> {
    Ok(sqlx::query_scalar(
        "WITH q AS (
             SELECT to_tsquery('english', replace(plainto_tsquery('english', $2)::text, '&', '|')) AS q)
         SELECT m.metadata->>'dia_id'
         FROM memories m, q
         WHERE m.user_id = $1 AND m.deleted_at IS NULL
           AND to_tsvector('english', m.content) @@ q.q
         ORDER BY ts_rank(to_tsvector('english', m.content), q.q) DESC, m.created_at, m.id
         LIMIT 10",
    )
    .bind(user)
    .bind(question)
    .fetch_all(pool)
    .await?)
}
