//! Keys bound to one user (and agent): every way a request can name whose
//! memories it touches goes through here. A scope it names is narrowed to
//! the binding (a user left out is filled in, another user refused 403); a
//! row reached by id that belongs to someone else is "not found", as it
//! would be in another tenant, so ids reveal nothing.

use engram_core::{BindingRefusal, Limits, Scope};
use engram_store::{ConflictKind, StoreError};
use uuid::Uuid;

use crate::dto;
use crate::error::ApiError;
use crate::state::{AppState, Caller};

impl From<BindingRefusal> for ApiError {
    fn from(r: BindingRefusal) -> Self {
        ApiError::Forbidden(match r {
            BindingRefusal::OtherUser => {
                "this key is bound to one user: leave user_id out or give that user's id"
            }
            BindingRefusal::OtherAgent => {
                "this key is bound to one agent: leave agent_id out or give that agent's id"
            }
        })
    }
}

impl Caller {
    /// The validated scope of a request: for a bound key, its user (and
    /// agent) whatever else the request narrows by.
    pub(crate) fn scope(
        &self,
        user_id: &Option<String>,
        agent_id: &Option<String>,
        session_id: &Option<String>,
        require_owner: bool,
        limits: &Limits,
    ) -> Result<Scope, ApiError> {
        let (user_id, agent_id) = match &self.binding {
            Some(b) => {
                let (user, agent) = b.fill(user_id.as_deref(), agent_id.as_deref())?;
                (Some(user), agent)
            }
            None => (user_id.clone(), agent_id.clone()),
        };
        Ok(dto::scope(
            &user_id,
            &agent_id,
            session_id,
            require_owner,
            limits,
        )?)
    }

    /// A user named by a path or a required field: a bound key may name only
    /// its own.
    pub(crate) fn check_user(&self, user_id: &str) -> Result<(), ApiError> {
        match &self.binding {
            Some(b) => b.fill(Some(user_id), None).map(|_| ()).map_err(Into::into),
            None => Ok(()),
        }
    }

    /// Whether a row of this user and agent is visible to the caller.
    pub(crate) fn covers(&self, user_id: Option<&str>, agent_id: Option<&str>) -> bool {
        self.binding
            .as_ref()
            .is_none_or(|b| b.covers(user_id, agent_id))
    }

    /// `Ok` when the caller may see the row, else the not-found the same id
    /// would get in another tenant.
    pub(crate) fn see(
        &self,
        user_id: Option<&str>,
        agent_id: Option<&str>,
    ) -> Result<(), ApiError> {
        if self.covers(user_id, agent_id) {
            Ok(())
        } else {
            Err(ApiError::NotFound)
        }
    }

    /// A session's turns belong to its user, whatever agent a key is bound
    /// to: `Ok` when the caller may see them, else not found.
    pub(crate) fn see_session(&self, owner: &str) -> Result<(), ApiError> {
        match &self.binding {
            Some(b) if b.user_id != owner => Err(ApiError::NotFound),
            _ => Ok(()),
        }
    }

    /// Before acting on a memory by id (deleted ones included, which history
    /// and revert reach): for a bound key, it must be its user's (and
    /// agent's). Unbound keys skip the read.
    pub(crate) async fn check_memory(&self, state: &AppState, id: Uuid) -> Result<(), ApiError> {
        if self.binding.is_none() {
            return Ok(());
        }
        let (user, agent) = state.store.memory_owner(self.tenant_id, id).await?;
        self.see(user.as_deref(), agent.as_deref())
    }

    /// Before acting on a session: for a bound key, it must be its user's.
    pub(crate) async fn check_session(
        &self,
        state: &AppState,
        session_id: &str,
    ) -> Result<(), ApiError> {
        if self.binding.is_none() {
            return Ok(());
        }
        let owner = state
            .store
            .session_owner(self.tenant_id, session_id)
            .await?;
        self.see_session(&owner)
    }

    /// A store error as this caller may learn it: to a bound key another
    /// user's session is as unknown as one in another tenant (an unbound
    /// key, which may read it, gets the conflict).
    pub(crate) fn refusal(&self, e: StoreError) -> ApiError {
        match e {
            StoreError::Conflict(ConflictKind::SessionOwner, _) if self.binding.is_some() => {
                ApiError::NotFound
            }
            other => other.into(),
        }
    }

    /// Profile entries the caller may see, without any that directs the
    /// assistant: a pinned verbatim or agent-written memory reaches the
    /// profile only if it passes the instruction screen (docs/EXTRACTION.md).
    pub(crate) fn profile(&self, rows: Vec<engram_core::Memory>) -> Vec<engram_core::Memory> {
        self.visible(rows)
            .into_iter()
            .filter(|m| engram_core::policy::instruction_reason(&m.content).is_none())
            .collect()
    }

    /// The memories of `rows` the caller may see (all, for an unbound key).
    pub(crate) fn visible(&self, rows: Vec<engram_core::Memory>) -> Vec<engram_core::Memory> {
        rows.into_iter()
            .filter(|m| self.covers(m.scope.user_id.as_deref(), m.scope.agent_id.as_deref()))
            .collect()
    }
}
