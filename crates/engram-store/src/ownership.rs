//! A session is one user's: the check every write that names a session
//! (its `session_id` or a `session:` source) makes first.

use uuid::Uuid;

use crate::{ConflictKind, StoreError};

/// Refuses a write whose rows name a session another user owns, each row
/// given as (its user, a session it names: its own or a `session:` source):
/// a session is one user's, and a delete redacts only its own user's
/// sessions, so a row of one user naming another's would be a handle on
/// them. A session nobody has opened yet may be named.
pub(crate) async fn refuse_foreign_sessions(
    conn: &mut sqlx::PgConnection,
    tenant: Uuid,
    named: &[(Option<&str>, &str)],
) -> Result<(), StoreError> {
    if named.is_empty() {
        return Ok(());
    }
    let mut sessions: Vec<&str> = named.iter().map(|(_, s)| *s).collect();
    sessions.sort_unstable();
    sessions.dedup();
    let owners: Vec<(String, String)> = sqlx::query_as(
        "SELECT session_id, user_id FROM sessions WHERE tenant_id = $1 AND session_id = ANY($2)",
    )
    .bind(tenant)
    .bind(&sessions)
    .fetch_all(&mut *conn)
    .await?;
    let foreign = named.iter().any(|(user, session)| {
        owners
            .iter()
            .any(|(s, owner)| s == session && Some(owner.as_str()) != *user)
    });
    if foreign {
        return Err(StoreError::Conflict(
            ConflictKind::SessionOwner,
            "a session named (session_id or a session: source) belongs to another user".into(),
        ));
    }
    Ok(())
}
