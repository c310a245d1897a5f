//! What each `engram` command does; `main.rs` parses the command line and
//! calls one of these. The long-running ones have a file each.

pub mod keys;
pub mod serve;
pub mod worker;

use std::path::Path;

use anyhow::Context;
use engram_server::config::{ConsolidationRules, DatabaseArgs, EmbedArgs, LlmArgs};
use engram_server::{cli, connect, embedder};
use engram_store::Store;

/// The store, its migrations applied.
pub async fn migrated(db: &DatabaseArgs) -> anyhow::Result<Store> {
    let store = connect(db).await?;
    store.migrate().await.context("applying migrations")?;
    Ok(store)
}

/// `engram migrate`.
pub async fn migrate(db: &DatabaseArgs) -> anyhow::Result<()> {
    migrated(db).await?;
    tracing::info!("migrations applied");
    Ok(())
}

/// `engram audit-subjects`: every user with data here and their pseudonym.
pub async fn audit_subjects(db: &DatabaseArgs) -> anyhow::Result<()> {
    let store = migrated(db).await?;
    for (tenant, user, hash) in store.subjects().await? {
        println!("{tenant}\t{user}\t{hash}");
    }
    Ok(())
}

/// Whom `engram consolidate` runs for, and whether it changes anything.
pub struct ConsolidateTarget {
    pub user: Option<String>,
    pub tenant: Option<String>,
    pub dry_run: bool,
}

/// `engram consolidate`: one run now, its report on stdout; exits 3 when
/// another process holds the cluster lock.
pub async fn consolidate(
    db: &DatabaseArgs,
    target: ConsolidateTarget,
    rules: &ConsolidationRules,
    llm: &LlmArgs,
) -> anyhow::Result<()> {
    let settings = rules.settings()?;
    let store = migrated(db).await?;
    let report = cli::consolidate(
        &store,
        target.user.as_deref(),
        target.tenant.as_deref(),
        target.dry_run,
        settings,
        engram_server::conflict_reviewer(llm),
    )
    .await?;
    match report {
        Some(run) => println!("{}", serde_json::to_string_pretty(&run)?),
        None => {
            eprintln!("another process is consolidating; try again when it has finished");
            std::process::exit(3);
        }
    }
    Ok(())
}

/// `engram import`: a user export loaded and re-embedded here.
pub async fn import(
    db: &DatabaseArgs,
    embed: &EmbedArgs,
    tenant: Option<&str>,
    file: &Path,
) -> anyhow::Result<()> {
    let store = migrated(db).await?;
    let embedder = embedder(embed)?;
    store
        .check_embedder(embedder.id(), embedder.dimensions())
        .await?;
    let counts = cli::import(&store, embedder, file, tenant).await?;
    println!("{}", serde_json::to_string(&counts)?);
    Ok(())
}
