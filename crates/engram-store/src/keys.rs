//! Tenants and API keys. These are deployment-wide tables (not tenant-scoped),
//! read and written as the connecting role.

use chrono::{DateTime, Utc};
use engram_core::access::{format_key, hash_key};
use engram_core::{KeyBinding, Role};
use rand::RngCore;
use uuid::Uuid;

use crate::audit::{write_audit, AuditEntry};
use crate::{Store, StoreError};

/// A key as listed: never its secret or hash.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct KeyInfo {
    pub id: Uuid,
    pub tenant_id: Option<Uuid>,
    pub tenant: Option<String>,
    pub role: String,
    pub name: String,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub revoked_at: Option<DateTime<Utc>>,
    /// The user the key acts for, if it is bound to one.
    pub user_id: Option<String>,
    /// The agent the key acts for within its user, if bound to one.
    pub agent_id: Option<String>,
}

impl KeyInfo {
    pub fn role(&self) -> Role {
        // The CHECK constraint admits only known roles; unknown reads as least power.
        Role::parse(&self.role).unwrap_or(Role::ReadOnly)
    }

    pub fn binding(&self) -> Option<KeyBinding> {
        KeyBinding::from_columns(self.user_id.clone(), self.agent_id.clone())
    }
}

/// A key found by id, with the hash to compare against.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct StoredKey {
    #[sqlx(flatten)]
    pub info: KeyInfo,
    pub key_hash: Vec<u8>,
}

/// A new key: the clear text exists only in this value.
#[derive(Debug)]
pub struct CreatedKey {
    pub info: KeyInfo,
    pub key: String,
}

const KEY_COLUMNS: &str = "k.id, k.tenant_id, t.name AS tenant, k.role, k.name, k.created_by, \
     k.created_at, k.last_used_at, k.revoked_at, k.user_id, k.agent_id";

impl Store {
    /// A tenant by id or by name.
    pub async fn find_tenant(&self, id_or_name: &str) -> Result<(Uuid, String), StoreError> {
        let id = Uuid::try_parse(id_or_name).ok();
        sqlx::query_as("SELECT id, name FROM tenants WHERE id = $1 OR name = $2")
            .bind(id)
            .bind(id_or_name)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(StoreError::NotFound)
    }

    /// The tenant with this name, created if it does not exist yet.
    pub async fn ensure_tenant(&self, name: &str) -> Result<Uuid, StoreError> {
        let id = sqlx::query_scalar(
            "INSERT INTO tenants (id, name) VALUES ($1, $2)
             ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id",
        )
        .bind(Uuid::now_v7())
        .bind(name)
        .fetch_one(&self.pool)
        .await?;
        Ok(id)
    }

    /// Creates a key (and its tenant, named, if new), bound to one user (and
    /// agent) if `binding` says so; audited in the same commit (the audit
    /// entry says whether it is bound, never to whom).
    pub async fn create_key(
        &self,
        tenant: Option<&str>,
        role: Role,
        name: &str,
        binding: Option<&KeyBinding>,
        audit: AuditEntry,
    ) -> Result<CreatedKey, StoreError> {
        let tenant_id = match tenant {
            Some(t) => Some(self.ensure_tenant(t).await?),
            None => None,
        };
        let id = Uuid::now_v7();
        let mut secret = [0u8; 32];
        rand::rng().fill_bytes(&mut secret);
        let key = format_key(id, &secret);
        let mut tx = self.pool.begin().await?;
        sqlx::query(
            "INSERT INTO api_keys (id, tenant_id, role, name, key_hash, created_by, user_id, agent_id)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(id)
        .bind(tenant_id)
        .bind(role.as_str())
        .bind(name)
        .bind(hash_key(&key).as_slice())
        .bind(&audit.actor)
        .bind(binding.map(|b| b.user_id.as_str()))
        .bind(binding.and_then(|b| b.agent_id.as_deref()))
        .execute(&mut *tx)
        .await?;
        write_audit(
            &mut tx,
            &AuditEntry {
                tenant_id,
                target: Some(format!("key:{id}")),
                details: serde_json::json!({"role": role.as_str(), "bound": binding.is_some()}),
                ..audit
            },
        )
        .await?;
        let info = key_by_id(&mut tx, id).await?.info;
        tx.commit().await?;
        Ok(CreatedKey { info, key })
    }

    pub async fn list_keys(&self) -> Result<Vec<KeyInfo>, StoreError> {
        Ok(sqlx::query_as(&format!(
            "SELECT {KEY_COLUMNS} FROM api_keys k LEFT JOIN tenants t ON t.id = k.tenant_id
             ORDER BY k.created_at, k.id"
        ))
        .fetch_all(&self.pool)
        .await?)
    }

    /// Revokes a key; revoking a revoked key changes nothing and succeeds.
    pub async fn revoke_key(&self, id: Uuid, audit: AuditEntry) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let tenant_id: Option<Uuid> = sqlx::query_scalar(
            "UPDATE api_keys SET revoked_at = coalesce(revoked_at, $2) WHERE id = $1 RETURNING tenant_id",
        )
        .bind(id)
        // A parameter: Citus refuses now() in a COALESCE.
        .bind(Utc::now())
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(StoreError::NotFound)?;
        write_audit(
            &mut tx,
            &AuditEntry {
                tenant_id,
                target: Some(format!("key:{id}")),
                ..audit
            },
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    /// The key with this id, revoked or not, with its hash.
    pub async fn find_key(&self, id: Uuid) -> Result<StoredKey, StoreError> {
        let mut conn = self.pool.acquire().await?;
        key_by_id(&mut conn, id).await
    }

    /// Notes a key's use, at most once a minute per key so reads stay reads.
    pub async fn touch_key(&self, id: Uuid) -> Result<(), StoreError> {
        sqlx::query(
            "UPDATE api_keys SET last_used_at = now()
             WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')",
        )
        .bind(id)
        .execute(&self.pool)
        .await?;
        Ok(())
    }
}

async fn key_by_id(conn: &mut sqlx::PgConnection, id: Uuid) -> Result<StoredKey, StoreError> {
    sqlx::query_as(&format!(
        "SELECT {KEY_COLUMNS}, k.key_hash FROM api_keys k LEFT JOIN tenants t ON t.id = k.tenant_id
         WHERE k.id = $1"
    ))
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or(StoreError::NotFound)
}
