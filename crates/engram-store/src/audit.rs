//! The audit log: who did what, when, never content. Entries about a user carry
//! only `subject_hash`, its keyed pseudonym (engram-core `access::SubjectKey`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sqlx::{PgConnection, Postgres, QueryBuilder};
use uuid::Uuid;

use crate::{Store, StoreError};

/// One entry to write. `details` holds counts and ids, never text of a user's.
#[derive(Debug, Clone, Default)]
pub struct AuditEntry {
    pub tenant_id: Option<Uuid>,
    pub actor: String,
    pub action: String,
    pub target: Option<String>,
    pub subject_hash: Option<String>,
    pub request_id: Option<String>,
    pub details: Value,
}

impl AuditEntry {
    pub fn new(actor: &str, action: &str, request_id: Option<String>) -> Self {
        Self {
            actor: actor.to_owned(),
            action: action.to_owned(),
            request_id,
            details: Value::Object(Default::default()),
            ..Default::default()
        }
    }
}

/// An entry as stored.
#[derive(Debug, Clone, sqlx::FromRow, Serialize, Deserialize)]
pub struct AuditRecord {
    pub id: Uuid,
    pub tenant_id: Option<Uuid>,
    pub at: DateTime<Utc>,
    pub actor: String,
    pub action: String,
    pub target: Option<String>,
    pub subject_hash: Option<String>,
    pub request_id: Option<String>,
    pub details: Value,
}

/// Which entries to list, newest first.
#[derive(Debug, Clone, Default)]
pub struct AuditQuery {
    pub action: Option<String>,
    /// Exactly as history names callers (`key:<id>`, `key:env-admin`).
    pub actor: Option<String>,
    pub subject_hash: Option<String>,
    /// Entries at or after / before this instant.
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    pub before: Option<(DateTime<Utc>, Uuid)>,
    pub limit: usize,
}

pub(crate) async fn write_audit(conn: &mut PgConnection, e: &AuditEntry) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO audit_log (tenant_id, id, actor, action, target, subject_hash, request_id, details)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(e.tenant_id)
    .bind(Uuid::now_v7())
    .bind(&e.actor)
    .bind(&e.action)
    .bind(&e.target)
    .bind(&e.subject_hash)
    .bind(&e.request_id)
    .bind(&e.details)
    .execute(conn)
    .await?;
    Ok(())
}

impl Store {
    /// Writes one entry on its own (for actions with no transaction of theirs).
    pub async fn audit(&self, e: &AuditEntry) -> Result<(), StoreError> {
        let mut conn = self.pool.acquire().await?;
        write_audit(&mut conn, e).await
    }

    pub async fn list_audit(&self, q: &AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        let mut b: QueryBuilder<'_, Postgres> = QueryBuilder::new(
            "SELECT id, tenant_id, at, actor, action, target, subject_hash, request_id, details
             FROM audit_log WHERE true",
        );
        if let Some(a) = &q.action {
            b.push(" AND action = ").push_bind(a.clone());
        }
        if let Some(a) = &q.actor {
            b.push(" AND actor = ").push_bind(a.clone());
        }
        if let Some(h) = &q.subject_hash {
            b.push(" AND subject_hash = ").push_bind(h.clone());
        }
        if let Some(t) = q.since {
            b.push(" AND at >= ").push_bind(t);
        }
        if let Some(t) = q.until {
            b.push(" AND at < ").push_bind(t);
        }
        if let Some((at, id)) = q.before {
            b.push(" AND (at, id) < (")
                .push_bind(at)
                .push(", ")
                .push_bind(id)
                .push(")");
        }
        b.push(" ORDER BY at DESC, id DESC LIMIT ")
            .push_bind(q.limit as i64);
        Ok(b.build_query_as().fetch_all(&self.pool).await?)
    }
}
