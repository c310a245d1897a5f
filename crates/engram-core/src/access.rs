//! Who may do what: key roles, the key format, and the subject hash the audit
//! log uses instead of a user's id.

use hmac::{Hmac, Mac};
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

    /// Whether this key's reads are recorded in stored rows (a memory's
    /// `access_count` and `last_used_at`, the key's `last_used_at`): not for
    /// read-only keys, whose reads change nothing.
    pub fn records_use(self) -> bool {
        self != Role::ReadOnly
    }

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

/// The deployment's key for the pseudonyms that stand in for a user or a
/// source where their own name must not be kept (the audit log, consolidation
/// records). Generated once per deployment and kept in the database
/// (`deployment_secrets`), never in a response or a log.
///
/// A pseudonym is HMAC-SHA-256 under this key of the unkeyed SHA-256 that
/// earlier versions stored: so a hash cannot be recomputed from a guessed user
/// id without the key, and the rows written before the key existed were
/// re-keyed from what they held (see engram-store `audit_key`).
#[derive(Clone)]
pub struct SubjectKey([u8; 32]);

impl SubjectKey {
    pub const LEN: usize = 32;

    /// `None` unless `bytes` is exactly `LEN` long.
    pub fn from_bytes(bytes: &[u8]) -> Option<Self> {
        bytes.try_into().ok().map(Self)
    }

    /// The stand-in for `user_id` of `tenant`.
    pub fn subject(&self, tenant: Uuid, user_id: &str) -> String {
        self.rekey(&unkeyed_subject_hash(tenant, user_id))
    }

    /// The stand-in for a source ref (refs may name people).
    pub fn source(&self, source_ref: &str) -> String {
        self.rekey(&hex::encode(Sha256::digest(source_ref.as_bytes())))
    }

    /// The keyed form of an unkeyed hash (migrating rows written before the key).
    pub fn rekey(&self, unkeyed: &str) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(unkeyed.as_bytes());
        hex::encode(mac.finalize().into_bytes())
    }
}

impl std::fmt::Debug for SubjectKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SubjectKey(..)")
    }
}

/// What earlier versions stored as `subject_hash`: SHA-256 of `tenant:user`,
/// which anyone can recompute for a guessed user. Only an input to the keyed
/// hash now.
pub fn unkeyed_subject_hash(tenant: Uuid, user_id: &str) -> String {
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
    fn subject_hashes_differ_by_tenant_and_by_key() {
        let key = SubjectKey::from_bytes(&[3u8; 32]).unwrap();
        let a = key.subject(Uuid::nil(), "alice");
        assert_eq!(a.len(), 64);
        assert_ne!(a, key.subject(Uuid::now_v7(), "alice"));
        assert!(!a.contains("alice"));
        // Without the key, neither the unkeyed hash nor another key gives it.
        assert_ne!(a, unkeyed_subject_hash(Uuid::nil(), "alice"));
        let other = SubjectKey::from_bytes(&[4u8; 32]).unwrap();
        assert_ne!(a, other.subject(Uuid::nil(), "alice"));
        // A row written before the key is re-keyed to the same value.
        assert_eq!(a, key.rekey(&unkeyed_subject_hash(Uuid::nil(), "alice")));
        assert!(SubjectKey::from_bytes(&[0u8; 31]).is_none());
        assert_eq!(format!("{key:?}"), "SubjectKey(..)");
    }
}
