//! Inserting memories: one multi-row upsert per thousand inputs, each new
//! row with its ADD history, an exact live duplicate in the same scope a
//! NOOP, an archived one restored.

use std::collections::HashMap;

use chrono::Utc;
use engram_core::{AddEvent, NewMemory, Scope};
use pgvector::Vector;
use sqlx::{PgConnection, Postgres, QueryBuilder};
use uuid::Uuid;

use crate::ownership::refuse_foreign_sessions;
use crate::{Store, StoreError};

/// One input of an add, and what became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct InsertOutcome {
    pub id: Uuid,
    pub content: String,
    pub event: AddEvent,
}

/// (id, content_hash, user_id, agent_id, session_id, inserted) of each written row.
type WrittenRow = (
    Uuid,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    bool,
);

impl Store {
    /// Stores memories with their embeddings in one statement: each input either
    /// becomes a new memory (ADD, with a history row) or finds its live exact
    /// duplicate in the same scope (NOOP). A duplicate that had expired is revived
    /// with the new expiry. Outcomes come back in input order.
    pub async fn insert_memories(
        &self,
        tenant: Uuid,
        items: &[(NewMemory, Vec<f32>)],
        actor: &str,
    ) -> Result<Vec<InsertOutcome>, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        let outcomes = insert_memories_in(&mut tx, tenant, items, actor).await?;
        tx.commit().await?;
        Ok(outcomes)
    }
}

/// [`Store::insert_memories`] on a given connection.
async fn insert_memories_in(
    conn: &mut PgConnection,
    tenant: Uuid,
    items: &[(NewMemory, Vec<f32>)],
    actor: &str,
) -> Result<Vec<InsertOutcome>, StoreError> {
    let named: Vec<(Option<&str>, &str)> = items
        .iter()
        .flat_map(|(m, _)| {
            engram_core::named_sessions(&m.scope, m.source.source_ref.as_deref())
                .map(|s| (m.scope.user_id.as_deref(), s))
        })
        .collect();
    refuse_foreign_sessions(conn, tenant, &named).await?;
    // Within one request, the same text in the same scope is one memory.
    let mut first_by_key: HashMap<(Scope, String), usize> = HashMap::new();
    let mut unique = Vec::new();
    for (i, (m, _)) in items.iter().enumerate() {
        first_by_key
            .entry((m.scope.clone(), m.content_hash()))
            .or_insert_with(|| {
                unique.push(i);
                i
            });
    }

    // Three statements, no INSERT … SELECT: Citus runs an INSERT fed by a
    // SELECT or a modifying CTE through COPY, which row-level security
    // refuses; multi-row VALUES are routed to their shards.
    let now = Utc::now();
    let rows_in: Vec<(Uuid, &NewMemory, &Vec<f32>)> = unique
        .iter()
        .map(|&i| (Uuid::now_v7(), &items[i].0, &items[i].1))
        .collect();
    let restored = archived_copies(conn, tenant, &rows_in).await?;

    // At most ROWS_PER_STATEMENT rows a statement (Postgres takes 65,535
    // parameters; a memory has 17).
    let mut rows: Vec<WrittenRow> = Vec::with_capacity(rows_in.len());
    for chunk in rows_in.chunks(ROWS_PER_STATEMENT) {
        let mut insert = QueryBuilder::<Postgres>::new(
            "INSERT INTO memories AS m (tenant_id, id, user_id, agent_id, session_id, kind, content, \
             embedding, content_hash, importance, source_type, source_ref, metadata, pinned, expires_at, \
             created_at, updated_at) ",
        );
        insert.push_values(chunk, |mut b, (id, m, embedding)| {
            b.push_bind(tenant)
                .push_bind(*id)
                .push_bind(m.scope.user_id.clone())
                .push_bind(m.scope.agent_id.clone())
                .push_bind(m.scope.session_id.clone())
                .push_bind(m.kind.as_str())
                .push_bind(m.content.clone())
                .push_bind(Vector::from((*embedding).clone()))
                .push_bind(m.content_hash())
                .push_bind(m.importance)
                .push_bind(m.source.source_type.as_str())
                .push_bind(m.source.source_ref.clone())
                .push_bind(m.metadata.clone())
                .push_bind(m.pinned)
                .push_bind(m.expires_at)
                .push_bind(m.created_at.unwrap_or(now))
                .push_bind(now);
        });
        // Said again: an expired copy takes the new expiry, an archived one is
        // back in search at its stated importance, decay starting over. The
        // time is a parameter, not now(): Citus admits only immutable functions
        // in DO UPDATE SET on a distributed table.
        insert.push(
            " ON CONFLICT (tenant_id, (coalesce(user_id, '')), (coalesce(agent_id, '')), \
                 (coalesce(session_id, '')), content_hash) \
             WHERE deleted_at IS NULL AND superseded_by IS NULL \
             DO UPDATE SET expires_at = CASE WHEN m.expires_at <= ",
        );
        insert
            .push_bind(now)
            .push(
                " THEN EXCLUDED.expires_at ELSE m.expires_at END, \
                 importance = CASE WHEN m.archived_at IS NULL THEN m.importance \
                                   ELSE coalesce(m.base_importance, m.importance) END, \
                 last_used_at = CASE WHEN m.archived_at IS NULL THEN m.last_used_at ELSE ",
            )
            .push_bind(now)
            .push(
                " END, archived_at = NULL \
                 RETURNING m.id, m.content_hash, m.user_id, m.agent_id, m.session_id, (m.xmax = 0) AS inserted",
            );
        rows.extend(
            insert
                .build_query_as::<WrittenRow>()
                .fetch_all(&mut *conn)
                .await?,
        );
    }

    // History: an ADD for each new memory, a REVERT for each restored one.
    let by_id: HashMap<Uuid, &NewMemory> = rows_in.iter().map(|(id, m, _)| (*id, *m)).collect();
    let mut history: Vec<NewHistory> = Vec::new();
    for (id, _, _, _, _, inserted) in &rows {
        if let (true, Some(m)) = (*inserted, by_id.get(id)) {
            history.push(NewHistory {
                memory_id: *id,
                event: "ADD",
                old_content: None,
                new_content: m.content.clone(),
                new_metadata: Some(m.metadata.clone()),
                reason: "added verbatim (infer: false)",
            });
        }
    }
    for (id, content) in restored {
        history.push(NewHistory {
            memory_id: id,
            event: "REVERT",
            old_content: Some(content.clone()),
            new_content: content,
            new_metadata: None,
            reason: "restated (infer: false), so restored from the archive",
        });
    }
    for chunk in history.chunks(ROWS_PER_STATEMENT) {
        let mut h = QueryBuilder::<Postgres>::new(
            "INSERT INTO memory_history (tenant_id, id, memory_id, event, old_content, new_content, \
             new_metadata, actor, reason) ",
        );
        h.push_values(chunk, |mut b, r| {
            b.push_bind(tenant)
                .push_bind(Uuid::now_v7())
                .push_bind(r.memory_id)
                .push_bind(r.event)
                .push_bind(r.old_content.clone())
                .push_bind(r.new_content.clone())
                .push_bind(r.new_metadata.clone())
                .push_bind(actor)
                .push_bind(r.reason);
        });
        h.build().execute(&mut *conn).await?;
    }

    let by_key: HashMap<(Scope, String), (Uuid, bool)> = rows
        .into_iter()
        .map(|(id, hash, user_id, agent_id, session_id, inserted)| {
            (
                (
                    Scope {
                        user_id,
                        agent_id,
                        session_id,
                    },
                    hash,
                ),
                (id, inserted),
            )
        })
        .collect();
    items
        .iter()
        .enumerate()
        .map(|(i, (m, _))| {
            let key = (m.scope.clone(), m.content_hash());
            let (id, inserted) = *by_key.get(&key).ok_or(StoreError::NotFound)?;
            // Only the first occurrence of a text in the request can be the ADD.
            let first = first_by_key.get(&key) == Some(&i);
            let event = if inserted && first {
                AddEvent::Add
            } else {
                AddEvent::Noop
            };
            Ok(InsertOutcome {
                id,
                content: m.content.clone(),
                event,
            })
        })
        .collect()
}

/// A history row the verbatim add writes.
struct NewHistory {
    memory_id: Uuid,
    event: &'static str,
    old_content: Option<String>,
    new_content: String,
    new_metadata: Option<serde_json::Value>,
    reason: &'static str,
}

/// Rows of one multi-row INSERT: within Postgres's 65,535 parameters.
const ROWS_PER_STATEMENT: usize = 1000;

/// The archived copies of these texts (same scope, same content hash) the
/// upsert is about to restore, with their content: read first, each one
/// probe of the live-content index.
async fn archived_copies(
    conn: &mut PgConnection,
    tenant: Uuid,
    rows: &[(Uuid, &NewMemory, &Vec<f32>)],
) -> Result<Vec<(Uuid, String)>, StoreError> {
    let users: Vec<Option<String>> = rows
        .iter()
        .map(|(_, m, _)| m.scope.user_id.clone())
        .collect();
    let agents: Vec<Option<String>> = rows
        .iter()
        .map(|(_, m, _)| m.scope.agent_id.clone())
        .collect();
    let sessions: Vec<Option<String>> = rows
        .iter()
        .map(|(_, m, _)| m.scope.session_id.clone())
        .collect();
    let hashes: Vec<String> = rows.iter().map(|(_, m, _)| m.content_hash()).collect();
    Ok(sqlx::query_as(
        "SELECT m.id, m.content FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
                AS i(user_id, agent_id, session_id, content_hash)
         CROSS JOIN LATERAL (
            SELECT id, content FROM memories m
            WHERE m.tenant_id = $1 AND coalesce(m.user_id, '') = coalesce(i.user_id, '')
              AND coalesce(m.agent_id, '') = coalesce(i.agent_id, '')
              AND coalesce(m.session_id, '') = coalesce(i.session_id, '')
              AND m.content_hash = i.content_hash
              AND m.deleted_at IS NULL AND m.superseded_by IS NULL AND m.archived_at IS NOT NULL
         ) m",
    )
    .bind(tenant)
    .bind(&users)
    .bind(&agents)
    .bind(&sessions)
    .bind(&hashes)
    .fetch_all(conn)
    .await?)
}
