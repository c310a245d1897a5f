//! One person at a glance, for the console's and a privacy officer's first
//! look: how many memories they have in each state and of each kind, when
//! they were last active, and their sessions. Plain GROUP BY statements, so
//! each runs as one distributed aggregate on Citus.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::{Store, StoreError};

/// Sessions listed in an overview, most recently active first.
pub const OVERVIEW_SESSIONS: i64 = 50;

#[derive(Debug, Clone, serde::Serialize)]
pub struct UserOverview {
    pub user_id: String,
    /// Every memory row the user has, whatever its state.
    pub memories: i64,
    /// live, superseded, archived, expired, deleted (soft-deleted, retained
    /// until consolidation purges it): states with none are 0.
    pub by_state: BTreeMap<String, i64>,
    /// semantic, episodic, procedural.
    pub by_kind: BTreeMap<String, i64>,
    /// The latest change to any memory or session of theirs.
    pub last_activity_at: Option<DateTime<Utc>>,
    pub sessions_total: i64,
    pub sessions: Vec<SessionOverview>,
}

#[derive(Debug, Clone, serde::Serialize, sqlx::FromRow)]
pub struct SessionOverview {
    pub session_id: String,
    /// Turns appended through the sessions API (0 for a session known only
    /// from the memories added with its id).
    pub turns: i64,
    /// Memories of the user in this session, whatever their state.
    pub memories: i64,
    pub last_activity_at: DateTime<Utc>,
}

const STATES: [&str; 5] = ["live", "superseded", "archived", "expired", "deleted"];
const KINDS: [&str; 3] = ["semantic", "episodic", "procedural"];

impl Store {
    pub async fn user_overview(
        &self,
        tenant: Uuid,
        user_id: &str,
        now: DateTime<Utc>,
    ) -> Result<UserOverview, StoreError> {
        let mut tx = self.tenant_tx(tenant).await?;
        // The same order of checks as `Memory::state`.
        let groups: Vec<(String, String, i64, DateTime<Utc>)> = sqlx::query_as(
            "SELECT CASE WHEN deleted_at IS NOT NULL THEN 'deleted'
                         WHEN superseded_by IS NOT NULL THEN 'superseded'
                         WHEN archived_at IS NOT NULL THEN 'archived'
                         WHEN expires_at IS NOT NULL AND expires_at <= $3 THEN 'expired'
                         ELSE 'live' END,
                    kind, count(*), max(updated_at)
             FROM memories WHERE tenant_id = $1 AND user_id = $2
             GROUP BY 1, 2",
        )
        .bind(tenant)
        .bind(user_id)
        .bind(now)
        .fetch_all(&mut *tx)
        .await?;
        let sessions: Vec<SessionOverview> = sqlx::query_as(
            "WITH turns AS (
                 SELECT session_id, next_seq AS turns, updated_at FROM sessions
                 WHERE tenant_id = $1 AND user_id = $2),
             mems AS (
                 SELECT session_id, count(*) AS memories, max(updated_at) AS updated_at
                 FROM memories WHERE tenant_id = $1 AND user_id = $2 AND session_id IS NOT NULL
                 GROUP BY session_id)
             SELECT session_id, COALESCE(t.turns, 0) AS turns, COALESCE(m.memories, 0) AS memories,
                    GREATEST(t.updated_at, m.updated_at) AS last_activity_at
             FROM turns t FULL JOIN mems m USING (session_id)
             ORDER BY last_activity_at DESC, session_id",
        )
        .bind(tenant)
        .bind(user_id)
        .fetch_all(&mut *tx)
        .await?;
        tx.commit().await?;
        let mut by_state: BTreeMap<String, i64> =
            STATES.iter().map(|s| (s.to_string(), 0)).collect();
        let mut by_kind: BTreeMap<String, i64> = KINDS.iter().map(|k| (k.to_string(), 0)).collect();
        let mut last = None;
        for (state, kind, n, at) in &groups {
            *by_state.entry(state.clone()).or_default() += n;
            *by_kind.entry(kind.clone()).or_default() += n;
            last = last.max(Some(*at));
        }
        last = last.max(sessions.iter().map(|s| s.last_activity_at).max());
        Ok(UserOverview {
            user_id: user_id.to_owned(),
            memories: groups.iter().map(|g| g.2).sum(),
            by_state,
            by_kind,
            last_activity_at: last,
            sessions_total: sessions.len() as i64,
            sessions: sessions
                .into_iter()
                .take(OVERVIEW_SESSIONS as usize)
                .collect(),
        })
    }
}
