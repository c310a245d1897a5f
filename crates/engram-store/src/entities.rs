//! Who has memories: the users, agents and sessions of a tenant with how
//! many memories in view each holds (what Mem0's `users()` lists and an
//! operator's "who is in here" asks). Three plain GROUP BY statements, one
//! per kind, so each runs as one distributed aggregate on Citus.

use chrono::{DateTime, Utc};
use engram_core::KeyBinding;
use sqlx::QueryBuilder;
use uuid::Uuid;

use crate::tenant::end_read;
use crate::{Store, StoreError};

/// What an entity is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EntityKind {
    User,
    Agent,
    Session,
}

impl EntityKind {
    pub const ALL: [EntityKind; 3] = [Self::User, Self::Agent, Self::Session];

    fn column(self) -> &'static str {
        match self {
            Self::User => "user_id",
            Self::Agent => "agent_id",
            Self::Session => "session_id",
        }
    }
}

/// One user, agent or session and its memories in view (current: not
/// deleted, superseded, archived or expired).
#[derive(Debug, Clone, serde::Serialize)]
pub struct Entity {
    #[serde(rename = "type")]
    pub kind: EntityKind,
    pub id: String,
    /// A session's user (a session belongs to one user); `None` otherwise.
    pub user_id: Option<String>,
    pub memories: i64,
    pub first_created_at: DateTime<Utc>,
    pub last_updated_at: DateTime<Utc>,
}

/// What `list_entities` lists.
#[derive(Debug, Clone, Copy)]
pub struct EntityQuery<'a> {
    pub kind: EntityKind,
    /// A bound key's user (and agent): only what they hold.
    pub binding: Option<&'a KeyBinding>,
    /// Only ids that start with this, literally.
    pub prefix: Option<&'a str>,
    /// The last id of the previous page.
    pub after: Option<&'a str>,
    pub limit: usize,
    /// For expiry.
    pub now: DateTime<Utc>,
}

/// id, user_id, memories, first created, last updated.
type EntityRow = (String, Option<String>, i64, DateTime<Utc>, DateTime<Utc>);

impl Store {
    /// Entities of one kind in id order, as `q` asks. A bound key sees
    /// only what its own user's (and agent's) memories name.
    pub async fn list_entities(
        &self,
        tenant: Uuid,
        q: &EntityQuery<'_>,
    ) -> Result<Vec<Entity>, StoreError> {
        let EntityQuery {
            kind,
            binding,
            prefix,
            after,
            limit,
            now,
        } = *q;
        let column = kind.column();
        let owner = if kind == EntityKind::Session {
            "user_id"
        } else {
            "NULL::text"
        };
        let mut sql = QueryBuilder::new(format!(
            "SELECT {column} AS id, {owner} AS user_id, count(*) AS memories,
                    min(created_at) AS first_created_at, max(updated_at) AS last_updated_at
               FROM memories WHERE tenant_id = "
        ));
        sql.push_bind(tenant);
        sql.push(format!(
            " AND {column} IS NOT NULL AND deleted_at IS NULL AND archived_at IS NULL
              AND superseded_by IS NULL AND (expires_at IS NULL OR expires_at > "
        ));
        sql.push_bind(now).push(")");
        if let Some(b) = binding {
            sql.push(" AND user_id = ").push_bind(b.user_id.clone());
            if let Some(a) = &b.agent_id {
                sql.push(" AND agent_id = ").push_bind(a.clone());
            }
        }
        if let Some(p) = prefix {
            // LIKE with the pattern's own characters escaped: a prefix, literally.
            let escaped = p
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_");
            sql.push(format!(" AND {column} LIKE "))
                .push_bind(format!("{escaped}%"))
                .push(" ESCAPE '\\'");
        }
        if let Some(after) = after {
            sql.push(format!(" AND {column} > "))
                .push_bind(after.to_owned());
        }
        sql.push(format!(" GROUP BY {column}, {owner} ORDER BY {column}"));
        sql.push(" LIMIT ").push_bind(limit as i64);
        let mut tx = self.tenant_tx(tenant).await?;
        let rows: Vec<EntityRow> = sql.build_query_as().fetch_all(&mut *tx).await?;
        end_read(tx);
        Ok(rows
            .into_iter()
            .map(|(id, user_id, memories, first, last)| Entity {
                kind,
                id,
                user_id,
                memories,
                first_created_at: first,
                last_updated_at: last,
            })
            .collect())
    }
}
