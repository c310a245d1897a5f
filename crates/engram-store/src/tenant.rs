//! The second wall between tenants: tenant-scoped work runs in a transaction as
//! the role `engram_app` with `engram.tenant_id` set, so the row-level security
//! policies (migration 3) hide and protect every other tenant's rows even if a
//! query forgot its `tenant_id = $1`.

use sqlx::{PgConnection, Postgres, Transaction};
use uuid::Uuid;

use crate::{Store, StoreError};

/// The statement that switches a transaction to `tenant`: the settings are
/// transaction-local, so they end with it and never leak to the next user of
/// the pooled connection. A simple query (so it can follow `BEGIN` in one
/// round trip); the tenant is a Uuid and the timeout a number, so formatting
/// them in cannot inject anything.
fn tenant_settings(tenant: Uuid, statement_timeout_ms: Option<u64>) -> String {
    let timeout = statement_timeout_ms
        .map(|ms| format!(", set_config('statement_timeout', '{ms}', true)"))
        .unwrap_or_default();
    format!(
        "SELECT set_config('engram.tenant_id', '{tenant}', true), set_config('role', 'engram_app', true){timeout}"
    )
}

/// Switches the current transaction to `tenant` (no statement timeout).
pub async fn enter_tenant(conn: &mut PgConnection, tenant: Uuid) -> Result<(), StoreError> {
    sqlx::Executor::execute(conn, tenant_settings(tenant, None).as_str()).await?;
    Ok(())
}

impl Store {
    /// A transaction confined to one tenant's rows: `BEGIN` and the settings
    /// in one round trip. Each statement in it is cancelled after the
    /// store's statement timeout, if it has one.
    pub async fn tenant_tx(
        &self,
        tenant: Uuid,
    ) -> Result<Transaction<'static, Postgres>, StoreError> {
        let begin = format!(
            "BEGIN; {}",
            tenant_settings(tenant, self.statement_timeout_ms)
        );
        Ok(self.pool.begin_with(begin).await?)
    }
}

/// Ends a read-only tenant transaction without waiting for a COMMIT round
/// trip: dropping it queues a ROLLBACK (for a read, the same as a commit),
/// which the pool sends with the ping it makes on every released connection,
/// after the caller already has its rows.
pub(crate) fn end_read(tx: Transaction<'static, Postgres>) {
    drop(tx);
}
