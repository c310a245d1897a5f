//! The administrative subcommands: `engram keys ...` and `engram import`. They
//! talk to the database directly (no server needed) and are audited like the
//! HTTP endpoints that do the same, with the actor `cli`.

use std::path::Path;
use std::sync::Arc;

use anyhow::{bail, Context};
use engram_core::{validate, Embedder, KeyBinding, Role};
use engram_store::{AuditEntry, Counts, CreatedKey, ExportDocument, KeyInfo, Store, EXPORT_FORMAT};

const ACTOR: &str = "cli";

pub async fn create_key(
    store: &Store,
    tenant: Option<&str>,
    role: &str,
    name: &str,
    user_id: Option<&str>,
    agent_id: Option<&str>,
) -> anyhow::Result<CreatedKey> {
    let role = Role::parse(role).context("--role must be one of admin, tenant, read-only")?;
    let binding = KeyBinding::for_new_key(role, user_id, agent_id, &Default::default())
        .map_err(|e| anyhow::anyhow!("--{}: {}", e.field.replace('_', "-"), e.message))?;
    let tenant = match (role, tenant) {
        (Role::Admin, Some(_)) => bail!("admin keys act in every tenant; give no --tenant"),
        (Role::Admin, None) => None,
        (_, None) => bail!("--tenant is required for tenant and read-only keys"),
        (_, Some(t)) => Some(validate::tenant_name("tenant", t).map_err(anyhow::Error::msg)?),
    };
    let name =
        validate::identifier("name", name, &Default::default()).map_err(anyhow::Error::msg)?;
    Ok(store
        .create_key(
            tenant.as_deref(),
            role,
            &name,
            binding.as_ref(),
            AuditEntry::new(ACTOR, "key.create", None),
        )
        .await?)
}

pub async fn list_keys(store: &Store) -> anyhow::Result<Vec<KeyInfo>> {
    Ok(store.list_keys().await?)
}

pub async fn revoke_key(store: &Store, id: &str) -> anyhow::Result<()> {
    let id =
        uuid::Uuid::try_parse(id).context("the key id must be a UUID (see `engram keys list`)")?;
    store
        .revoke_key(id, AuditEntry::new(ACTOR, "key.revoke", None))
        .await
        .with_context(|| format!("could not revoke key {id}"))
}

/// Loads an export document into `tenant` (by name, created if new; default:
/// the tenant named in the document). Memories are embedded with this
/// deployment's embedder; nothing is written unless all of it is.
pub async fn import(
    store: &Store,
    embedder: Arc<dyn Embedder>,
    file: &Path,
    tenant: Option<&str>,
) -> anyhow::Result<Counts> {
    let text = std::fs::read(file).with_context(|| format!("could not read {}", file.display()))?;
    let raw: serde_json::Value =
        serde_json::from_slice(&text).with_context(|| format!("{} is not JSON", file.display()))?;
    // Every timestamp in the document within the range the API accepts, so
    // nothing imported can reach what requests cannot.
    engram_core::time::check_json(&raw).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
    let mut doc: ExportDocument = serde_json::from_value(raw)
        .with_context(|| format!("{} is not an Engram export document", file.display()))?;
    if doc.header.format != EXPORT_FORMAT || doc.header.version != engram_store::EXPORT_VERSION {
        bail!(
            "unsupported document: format `{}` version {} (this Engram reads `{EXPORT_FORMAT}` version {})",
            doc.header.format,
            doc.header.version,
            engram_store::EXPORT_VERSION
        );
    }
    if let Some(m) = doc
        .memories
        .iter()
        .find(|m| m.user_id.as_deref() != Some(doc.header.user_id.as_str()))
    {
        bail!(
            "memory {} does not belong to the exported user `{}`; refusing a document that mixes users",
            m.id,
            doc.header.user_id
        );
    }
    if let Some(j) = doc
        .jobs
        .iter()
        .find(|j| j.user_id.as_deref() != Some(doc.header.user_id.as_str()))
    {
        bail!(
            "job {} does not belong to the exported user `{}`; refusing a document that mixes users",
            j.id,
            doc.header.user_id
        );
    }
    // A document written before today's secret screen (or by hand) is held
    // to it like any other write.
    let redacted = redact_document(&mut doc);
    let tenant_name = tenant.unwrap_or(&doc.header.tenant.name);
    let tenant_id = store.ensure_tenant(tenant_name).await?;
    let mut embeddings = Vec::with_capacity(doc.memories.len());
    for chunk in doc.memories.chunks(64) {
        let texts: Vec<String> = chunk.iter().map(|m| m.content.clone()).collect();
        let vectors = embedder.embed(&texts).await?;
        if vectors.len() != texts.len() {
            bail!(
                "the embedder returned {} vectors for {} texts",
                vectors.len(),
                texts.len()
            );
        }
        embeddings.extend(vectors);
    }
    let audit = AuditEntry {
        tenant_id: Some(tenant_id),
        ..AuditEntry::new(ACTOR, "user.import", None)
    };
    let mut counts = store
        .import_user(tenant_id, &doc, &embeddings, audit)
        .await?;
    counts.insert("secrets_redacted".into(), redacted);
    Ok(counts)
}

/// Redacts every secret in the document's free text (contents, values,
/// metadata, history, session turns and summaries, job payloads and results);
/// returns how many it found.
fn redact_document(doc: &mut ExportDocument) -> i64 {
    use engram_core::policy::{redact, redact_json};
    let mut found = 0usize;
    let mut text = |s: &mut String| {
        let (clean, kinds) = redact(s);
        if !kinds.is_empty() {
            found += kinds.len();
            *s = clean;
        }
    };
    let mut json_found = 0usize;
    let mut json = |v: &mut serde_json::Value| {
        let (clean, kinds) = redact_json(v);
        if !kinds.is_empty() {
            json_found += kinds.len();
            *v = clean;
        }
    };
    for m in &mut doc.memories {
        text(&mut m.content);
        m.value.iter_mut().for_each(&mut text);
        json(&mut m.metadata);
        for h in &mut m.history {
            h.old_content.iter_mut().for_each(&mut text);
            h.new_content.iter_mut().for_each(&mut text);
            h.source_message.iter_mut().for_each(&mut text);
            h.reason.iter_mut().for_each(&mut text);
            h.old_metadata.iter_mut().for_each(&mut json);
            h.new_metadata.iter_mut().for_each(&mut json);
        }
    }
    for s in &mut doc.sessions {
        s.messages.iter_mut().for_each(|t| text(&mut t.content));
        if let Some(summary) = &mut s.summary {
            text(&mut summary.content);
        }
    }
    for j in &mut doc.jobs {
        j.payload.iter_mut().for_each(&mut json);
        json(&mut j.results);
        j.last_error.iter_mut().for_each(&mut text);
    }
    i64::try_from(found + json_found).unwrap_or(i64::MAX)
}

/// Runs consolidation now for one user (of `tenant`, by id or name; the
/// default tenant otherwise) or everyone; `None` when another process holds
/// the cluster lock.
pub async fn consolidate(
    store: &Store,
    user: Option<&str>,
    tenant: Option<&str>,
    dry_run: bool,
    settings: engram_worker::ConsolidationSettings,
    reviewer: Option<std::sync::Arc<dyn engram_core::consolidate::ConflictReviewer>>,
) -> anyhow::Result<Option<engram_store::ConsolidationRun>> {
    let target = match user {
        Some(u) => {
            let tenant = match tenant {
                Some(t) => store.find_tenant(t).await.context("no such tenant")?.0,
                None => engram_core::DEFAULT_TENANT,
            };
            engram_worker::RunTarget::User {
                tenant,
                user_id: u.to_owned(),
            }
        }
        None => engram_worker::RunTarget::Everyone,
    };
    let consolidator = engram_worker::Consolidator {
        store: store.clone(),
        clock: std::sync::Arc::new(engram_core::SystemClock),
        settings,
        reviewer,
    };
    Ok(consolidator.run(target, dry_run, "cli", None).await?)
}
