//! Who may do what: key roles, the key format, and the subject hash the audit
//! log uses instead of a user's id.

use sha2::{Digest, Sha256};
use uuid::Uuid;

/// What a key may do. Admin keys see every tenant and the admin endpoints;
/// tenant keys one tenant's data (including its GDPR endpoints); read-only keys
/// search and read within one tenant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Admin,
    Tenant,
    ReadOnly,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Admin, Role::Tenant, Role::ReadOnly];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Tenant => "tenant",
            Role::ReadOnly => "read-only",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// Whether this role may perform an operation needing `needed`.
    pub fn allows(self, needed: Access) -> bool {
        match needed {
            Access::Read => true,
            Access::Write | Access::TenantAdmin => matches!(self, Role::Admin | Role::Tenant),
            Access::Admin => self == Role::Admin,
        }
    }
}

/// What an operation needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Search and read.
    Read,
    /// Add, change and delete memories.
    Write,
    /// The GDPR endpoints of one tenant: view every state, export, erase, purge.
    TenantAdmin,
    /// Keys, the audit log: the whole deployment.
    Admin,
}

const KEY_PREFIX: &str = "egm_";

/// The clear text of a key: `egm_<key id, 32 hex>_<secret, 64 hex>`. The id lets
/// the server find the stored hash without comparing against every key; the
/// 256-bit secret is what makes it unguessable.
pub fn format_key(id: Uuid, secret: &[u8; 32]) -> String {
    format!("{KEY_PREFIX}{}_{}", id.simple(), hex::encode(secret))
}

/// The key id a presented key claims, if it has the key format at all.
pub fn parse_key_id(presented: &str) -> Option<Uuid> {
    let rest = presented.strip_prefix(KEY_PREFIX)?;
    let (id, secret) = rest.split_once('_')?;
    if secret.len() != 64 || !secret.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Uuid::try_parse(id).ok()
}

/// What is stored for a key: its SHA-256.
pub fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// The audit log's stand-in for a user id: SHA-256 of `tenant:user`. It lets an
/// operator find the entries about a user they can name, while an erased user's
/// id is no longer stored anywhere.
pub fn subject_hash(tenant: Uuid, user_id: &str) -> String {
    hex::encode(Sha256::digest(format!("{tenant}:{user_id}").as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_formatted_key_parses_back_to_its_id() {
        let id = Uuid::now_v7();
        let key = format_key(id, &[7u8; 32]);
        assert_eq!(parse_key_id(&key), Some(id));
        assert_eq!(key.len(), 4 + 32 + 1 + 64);
    }

    #[test]
    fn malformed_keys_have_no_id() {
        let id = Uuid::now_v7();
        let good = format_key(id, &[1u8; 32]);
        assert_eq!(parse_key_id(&good[..good.len() - 1]), None);
        assert_eq!(parse_key_id(&good.replacen("egm_", "xyz_", 1)), None);
        assert_eq!(parse_key_id("egm_nothex_00"), None);
        assert_eq!(parse_key_id(""), None);
    }

    #[test]
    fn roles_allow_what_the_issue_says() {
        use Access::*;
        assert!(Role::ReadOnly.allows(Read));
        assert!(!Role::ReadOnly.allows(Write));
        assert!(!Role::ReadOnly.allows(TenantAdmin));
        assert!(Role::Tenant.allows(Write) && Role::Tenant.allows(TenantAdmin));
        assert!(!Role::Tenant.allows(Admin));
        assert!(Role::Admin.allows(Admin));
        for r in Role::ALL {
            assert_eq!(Role::parse(r.as_str()), Some(r));
        }
    }

    #[test]
    fn subject_hashes_differ_by_tenant() {
        let a = subject_hash(Uuid::nil(), "alice");
        assert_eq!(a.len(), 64);
        assert_ne!(a, subject_hash(Uuid::now_v7(), "alice"));
        assert!(!a.contains("alice"));
    }
}
