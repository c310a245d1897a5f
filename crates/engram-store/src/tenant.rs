//! The second wall between tenants: tenant-scoped work runs in a transaction as
//! the role `engram_app` with `engram.tenant_id` set, so the row-level security
//! policies (migration 3) hide and protect every other tenant's rows even if a
//! query forgot its `tenant_id = $1`.

use sqlx::{PgConnection, Postgres, Transaction};
use uuid::Uuid;

use crate::{Store, StoreError};

/// The statements that switch a transaction to `tenant`: the settings are
/// transaction-local, so they end with it and never leak to the next user of
/// the pooled connection. One simple query of `SET LOCAL`s, sent after
/// `BEGIN`, not with it: on Citus (`citus.propagate_set_commands = 'local'`)
/// a `SET LOCAL` is replayed on the workers the transaction reaches, and
/// `set_config()` in a SELECT is not. The tenant is a Uuid and the timeout a
/// number, so formatting them in cannot inject anything.
fn tenant_settings(tenant: Uuid, statement_timeout_ms: Option<u64>) -> String {
    let timeout = statement_timeout_ms
        .map(|ms| format!("; SET LOCAL statement_timeout = {ms}"))
        .unwrap_or_default();
    format!("SET LOCAL engram.tenant_id = '{tenant}'; SET LOCAL ROLE engram_app{timeout}")
}

/// Switches the current transaction to `tenant` (no statement timeout).
pub async fn enter_tenant(conn: &mut PgConnection, tenant: Uuid) -> Result<(), StoreError> {
    sqlx::Executor::execute(conn, tenant_settings(tenant, None).as_str()).await?;
    Ok(())
}

impl Store {
    /// A transaction confined to one tenant's rows: `BEGIN`, then the
    /// settings (two round trips; docs/SCALING.md measures the second). Each
    /// statement in it is cancelled after the store's statement timeout, if
    /// it has one.
    pub async fn tenant_tx(
        &self,
        tenant: Uuid,
    ) -> Result<Transaction<'static, Postgres>, StoreError> {
        let mut tx = self.pool.begin().await?;
        sqlx::Executor::execute(
            &mut *tx,
            tenant_settings(tenant, self.statement_timeout_ms).as_str(),
        )
        .await?;
        Ok(tx)
    }
}

/// Ends a read-only tenant transaction without waiting for a COMMIT round
/// trip: dropping it queues a ROLLBACK (for a read, the same as a commit),
/// which the pool sends with the ping it makes on every released connection,
/// after the caller already has its rows.
pub(crate) fn end_read(tx: Transaction<'static, Postgres>) {
    drop(tx);
}
