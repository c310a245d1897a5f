//! Pieces of what was said (the episodic layer): written with the turns or
//! the add that said them, in the same transaction. The same words said
//! again by the same speaker, in any session, are the memory already kept:
//! saying them again reinforces it (used now, its retention renewed, back
//! from the archive) rather than storing a copy.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use engram_core::{AddEvent, NewMemory, Speaker};
use pgvector::Vector;
use sqlx::{PgConnection, Postgres, QueryBuilder};
use uuid::Uuid;

use crate::ownership::refuse_foreign_sessions;
use crate::StoreError;

/// A piece of a turn, ready to store: its memory (kind episodic, the
/// piece's text; the scope names the session), its embedding, and the turn.
#[derive(Debug, Clone)]
pub struct NewPiece {
    pub memory: NewMemory,
    pub embedding: Vec<f32>,
    pub by: Speaker,
    /// The turn's message in the request (its session seq is given when
    /// the turns are numbered).
    pub message: usize,
    /// The turn's seq when it is known already (an earlier turn that this
    /// append redacts, its pieces replaced).
    pub seq: Option<i64>,
    pub piece: usize,
    pub pieces: usize,
    /// The sensitive category it states, when the caller allowed it.
    pub sensitivity: Option<String>,
    /// The speaker's name, when the message gave one.
    pub name: Option<String>,
}

/// What became of one piece.
#[derive(Debug, Clone, PartialEq)]
pub struct PieceOutcome {
    pub id: Uuid,
    pub content: String,
    pub event: AddEvent,
    pub message: usize,
}

/// How long a piece is kept after it was last said or used, when retention
/// is not "keep" (`None`).
pub type Retention = Option<chrono::Duration>;

/// Stores `pieces` (all of one scope), each turn's session seq taken from
/// `seqs` by its message (none for an add). Outcomes in input order.
pub(crate) async fn insert_pieces_in(
    conn: &mut PgConnection,
    tenant: Uuid,
    pieces: &[NewPiece],
    seqs: &[i64],
    actor: &str,
    retention: Retention,
) -> Result<Vec<PieceOutcome>, StoreError> {
    let Some(first) = pieces.first() else {
        return Ok(Vec::new());
    };
    let scope = &first.memory.scope;
    debug_assert!(pieces.iter().all(|p| &p.memory.scope == scope));
    let named: Vec<(Option<&str>, &str)> = pieces
        .iter()
        .flat_map(|p| {
            engram_core::named_sessions(&p.memory.scope, p.memory.source.source_ref.as_deref())
                .map(|s| (p.memory.scope.user_id.as_deref(), s))
        })
        .collect();
    refuse_foreign_sessions(conn, tenant, &named).await?;
    let now = Utc::now();
    let key = |p: &NewPiece| (p.by, p.memory.content_hash());

    // Said before (or twice in this request): reinforced, not stored again.
    let hashes: Vec<String> = pieces.iter().map(|p| p.memory.content_hash()).collect();
    let mut known = live_pieces(conn, tenant, scope, &hashes).await?;
    if !known.is_empty() {
        let ids: Vec<Uuid> = known.values().copied().collect();
        let renewed: Option<DateTime<Utc>> = retention.and_then(|r| now.checked_add_signed(r));
        sqlx::query(
            "UPDATE memories SET last_used_at = $3, archived_at = NULL,
                    importance = coalesce(base_importance, importance),
                    expires_at = CASE WHEN expires_at IS NULL OR $4::timestamptz IS NULL THEN expires_at
                                      ELSE greatest(expires_at, $4) END
             WHERE tenant_id = $1 AND id = ANY($2)",
        )
        .bind(tenant)
        .bind(&ids)
        .bind(now)
        .bind(renewed)
        .execute(&mut *conn)
        .await?;
    }
    let mut fresh: Vec<(Uuid, &NewPiece)> = Vec::new();
    let mut taken: HashMap<(Speaker, String), Uuid> = HashMap::new();
    for p in pieces {
        let k = key(p);
        if known.contains_key(&k) || taken.contains_key(&k) {
            continue;
        }
        let id = Uuid::now_v7();
        taken.insert(k, id);
        fresh.push((id, p));
    }
    for chunk in fresh.chunks(ROWS_PER_STATEMENT) {
        let mut q = QueryBuilder::<Postgres>::new(
            "INSERT INTO memories (tenant_id, id, user_id, agent_id, session_id, kind, content, \
             embedding, content_hash, importance, sensitivity, source_type, source_ref, metadata, \
             expires_at, created_at, updated_at, said_by, turn_seq, turn_piece, turn_pieces, said_as) ",
        );
        q.push_values(chunk, |mut b, (id, p)| {
            let m = &p.memory;
            b.push_bind(tenant)
                .push_bind(*id)
                .push_bind(m.scope.user_id.clone())
                .push_bind(m.scope.agent_id.clone())
                .push_bind(m.scope.session_id.clone())
                .push_bind(m.kind.as_str())
                .push_bind(m.content.clone())
                .push_bind(Vector::from(p.embedding.clone()))
                .push_bind(m.content_hash())
                .push_bind(m.importance)
                .push_bind(p.sensitivity.clone())
                .push_bind(m.source.source_type.as_str())
                .push_bind(m.source.source_ref.clone())
                .push_bind(m.metadata.clone())
                .push_bind(m.expires_at)
                .push_bind(m.created_at.unwrap_or(now))
                .push_bind(now)
                .push_bind(p.by.as_str())
                .push_bind(p.seq.or_else(|| seqs.get(p.message).copied()))
                .push_bind(p.piece as i32)
                .push_bind(p.pieces as i32)
                .push_bind(p.name.clone());
        });
        // Another request that stored the same words a moment ago wins;
        // this one finds its row below.
        q.push(" ON CONFLICT DO NOTHING");
        q.build().execute(&mut *conn).await?;
    }
    let stored = live_pieces(conn, tenant, scope, &hashes).await?;
    let added: Vec<Uuid> = fresh
        .iter()
        .map(|(id, _)| *id)
        .filter(|id| stored.values().any(|s| s == id))
        .collect();
    for chunk in added.chunks(ROWS_PER_STATEMENT) {
        let mut h = QueryBuilder::<Postgres>::new(
            "INSERT INTO memory_history (tenant_id, id, memory_id, event, new_content, actor, reason) ",
        );
        h.push_values(chunk, |mut b, id| {
            let content = fresh
                .iter()
                .find(|(f, _)| f == id)
                .map(|(_, p)| p.memory.content.clone());
            b.push_bind(tenant)
                .push_bind(Uuid::now_v7())
                .push_bind(*id)
                .push_bind("ADD")
                .push_bind(content)
                .push_bind(actor)
                .push_bind("kept as it was said");
        });
        h.build().execute(&mut *conn).await?;
    }
    known.extend(stored);
    let mut first_use: HashMap<(Speaker, String), usize> = HashMap::new();
    pieces
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let k = key(p);
            let id = *known.get(&k).ok_or(StoreError::NotFound)?;
            let first = *first_use.entry(k).or_insert(i) == i;
            Ok(PieceOutcome {
                id,
                content: p.memory.content.clone(),
                event: if first && added.contains(&id) {
                    AddEvent::Add
                } else {
                    AddEvent::Noop
                },
                message: p.message,
            })
        })
        .collect()
}

/// What a job reads of the pieces stored with it: each message's pieces
/// (not those of an earlier turn redacted with them).
pub(crate) fn evidence(outcomes: &[PieceOutcome]) -> Vec<engram_core::extract::Evidence> {
    outcomes
        .iter()
        .filter(|o| o.message != EARLIER)
        .map(|o| engram_core::extract::Evidence {
            message: o.message,
            memory_id: o.id,
        })
        .collect()
}

/// The `message` of a piece of an earlier turn (it is in no message of
/// this request).
pub const EARLIER: usize = usize::MAX;

/// What is kept already of these texts, by (speaker, content hash): a
/// piece the same speaker said, in any session of `scope`'s user and
/// agent; or any live memory with the text in exactly `scope` (an add
/// without inference stored it verbatim), which the same words cannot be
/// stored beside.
async fn live_pieces(
    conn: &mut PgConnection,
    tenant: Uuid,
    scope: &engram_core::Scope,
    hashes: &[String],
) -> Result<HashMap<(Speaker, String), Uuid>, StoreError> {
    let user = scope.user_id.as_deref().unwrap_or("");
    let agent = scope.agent_id.as_deref().unwrap_or("");
    let said: Vec<(Uuid, String, String)> = sqlx::query_as(
        "SELECT id, said_by, content_hash FROM memories
         WHERE tenant_id = $1 AND coalesce(user_id, '') = $2 AND coalesce(agent_id, '') = $3
           AND said_by IS NOT NULL AND content_hash = ANY($4)
           AND deleted_at IS NULL AND superseded_by IS NULL",
    )
    .bind(tenant)
    .bind(user)
    .bind(agent)
    .bind(hashes)
    .fetch_all(&mut *conn)
    .await?;
    let in_scope: Vec<(Uuid, String)> = sqlx::query_as(
        "SELECT id, content_hash FROM memories
         WHERE tenant_id = $1 AND coalesce(user_id, '') = $2 AND coalesce(agent_id, '') = $3
           AND coalesce(session_id, '') = $4 AND content_hash = ANY($5)
           AND deleted_at IS NULL AND superseded_by IS NULL",
    )
    .bind(tenant)
    .bind(user)
    .bind(agent)
    .bind(scope.session_id.as_deref().unwrap_or(""))
    .bind(hashes)
    .fetch_all(&mut *conn)
    .await?;
    let mut out: HashMap<(Speaker, String), Uuid> = HashMap::new();
    for (id, hash) in in_scope {
        for by in [Speaker::User, Speaker::Assistant] {
            out.insert((by, hash.clone()), id);
        }
    }
    // A piece of the same speaker's is the better match.
    for (id, by, hash) in said {
        if let Some(by) = Speaker::parse(&by) {
            out.insert((by, hash), id);
        }
    }
    Ok(out)
}

/// Rows of one multi-row INSERT: within Postgres's 65,535 parameters.
const ROWS_PER_STATEMENT: usize = 1000;
