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

/// The one user (and optionally one agent) a key acts for: a key that lives
/// on an end user's device or in one agent's configuration. Such a key sees
/// and changes only memories of that user (and agent); where a request names
/// no user the binding's is used, and naming another is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyBinding {
    pub user_id: String,
    pub agent_id: Option<String>,
}

/// Why a bound key may not act as a request asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingRefusal {
    OtherUser,
    OtherAgent,
}

impl KeyBinding {
    /// The user and agent a request acts for: the binding's, where the
    /// request names none or the same; another is refused.
    pub fn fill(
        &self,
        user_id: Option<&str>,
        agent_id: Option<&str>,
    ) -> Result<(String, Option<String>), BindingRefusal> {
        if user_id.is_some_and(|u| u != self.user_id) {
            return Err(BindingRefusal::OtherUser);
        }
        let agent = match (&self.agent_id, agent_id) {
            (Some(bound), Some(asked)) if bound != asked => return Err(BindingRefusal::OtherAgent),
            (Some(bound), _) => Some(bound.clone()),
            (None, asked) => asked.map(str::to_owned),
        };
        Ok((self.user_id.clone(), agent))
    }

    /// Whether a row of this user and agent is the key's to see.
    pub fn covers(&self, user_id: Option<&str>, agent_id: Option<&str>) -> bool {
        user_id == Some(self.user_id.as_str())
            && self
                .agent_id
                .as_deref()
                .is_none_or(|bound| agent_id == Some(bound))
    }

    /// The binding a new key of `role` is given: none without a user; an
    /// agent only with a user; never for admin keys (they act in every
    /// tenant). Each error names its field.
    pub fn for_new_key(
        role: Role,
        user_id: Option<&str>,
        agent_id: Option<&str>,
        limits: &crate::Limits,
    ) -> Result<Option<Self>, crate::FieldError> {
        use crate::{validate, FieldError};
        let user_id = user_id
            .map(|u| validate::identifier("user_id", u, limits))
            .transpose()?;
        let agent_id = agent_id
            .map(|a| validate::identifier("agent_id", a, limits))
            .transpose()?;
        match (role, &user_id, &agent_id) {
            (Role::Admin, Some(_), _) | (Role::Admin, _, Some(_)) => Err(FieldError::new(
                "user_id",
                "admin keys act in every tenant and cannot be bound to a user",
            )),
            (_, None, Some(_)) => Err(FieldError::new(
                "agent_id",
                "a key bound to an agent needs a user_id too",
            )),
            _ => Ok(Self::from_columns(user_id, agent_id)),
        }
    }

    /// The binding of a stored key: `None` when it has no user.
    pub fn from_columns(user_id: Option<String>, agent_id: Option<String>) -> Option<Self> {
        user_id.map(|user_id| Self { user_id, agent_id })
    }
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

    /// A keyed hash of `parts` for one purpose (`domain`), so values that
    /// only need to be recognised again (an idempotency key, a request's
    /// fingerprint) are stored without what they were made from and cannot
    /// be recovered by guessing without the key. Each part is
    /// length-prefixed: no two lists of parts hash alike.
    pub fn mac(&self, domain: &str, parts: &[&[u8]]) -> String {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        for part in std::iter::once(domain.as_bytes()).chain(parts.iter().copied()) {
            mac.update(&(part.len() as u64).to_be_bytes());
            mac.update(part);
        }
        hex::encode(mac.finalize().into_bytes())
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
    fn a_binding_fills_in_its_user_and_refuses_others() {
        let user_only = KeyBinding {
            user_id: "alice".into(),
            agent_id: None,
        };
        assert_eq!(user_only.fill(None, None), Ok(("alice".into(), None)));
        assert_eq!(
            user_only.fill(Some("alice"), Some("helper")),
            Ok(("alice".into(), Some("helper".into())))
        );
        assert_eq!(
            user_only.fill(Some("bob"), None),
            Err(BindingRefusal::OtherUser)
        );
        // Case and padding are other users: identifiers compare exactly.
        for other in ["Alice", "alice ", "", "alic"] {
            assert_eq!(
                user_only.fill(Some(other), None),
                Err(BindingRefusal::OtherUser)
            );
        }
        let with_agent = KeyBinding {
            user_id: "alice".into(),
            agent_id: Some("helper".into()),
        };
        assert_eq!(
            with_agent.fill(None, None),
            Ok(("alice".into(), Some("helper".into())))
        );
        assert_eq!(
            with_agent.fill(None, Some("other")),
            Err(BindingRefusal::OtherAgent)
        );
        assert!(user_only.covers(Some("alice"), None));
        assert!(user_only.covers(Some("alice"), Some("any")));
        assert!(!user_only.covers(Some("bob"), None));
        assert!(!user_only.covers(None, Some("helper")));
        assert!(with_agent.covers(Some("alice"), Some("helper")));
        assert!(!with_agent.covers(Some("alice"), None));
        assert!(!with_agent.covers(Some("alice"), Some("other")));
        assert_eq!(KeyBinding::from_columns(None, None), None);
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
