//! `engram keys`: create, list and revoke API keys.

use clap::Subcommand;
use engram_server::cli;
use engram_server::config::DatabaseArgs;

#[derive(Subcommand)]
pub enum KeysAction {
    /// Create a key and print it (shown this once).
    Create {
        /// admin, tenant or read-only.
        #[arg(long)]
        role: String,
        /// The tenant's name (created if new); not for admin keys.
        #[arg(long)]
        tenant: Option<String>,
        /// What the key is for, e.g. the app using it.
        #[arg(long)]
        name: String,
        /// Bind the key to one user of its tenant: it then acts only for
        /// that user (on REST and MCP alike).
        #[arg(long)]
        user_id: Option<String>,
        /// With --user-id: bind the key to one agent of that user as well.
        #[arg(long)]
        agent_id: Option<String>,
    },
    /// List keys (never their secrets).
    List,
    /// Revoke a key by id.
    Revoke { id: String },
}

pub async fn run(db: &DatabaseArgs, action: KeysAction) -> anyhow::Result<()> {
    let store = &super::migrated(db).await?;
    match action {
        KeysAction::Create {
            role,
            tenant,
            name,
            user_id,
            agent_id,
        } => {
            let created = cli::create_key(
                store,
                tenant.as_deref(),
                &role,
                &name,
                user_id.as_deref(),
                agent_id.as_deref(),
            )
            .await?;
            println!("{}", created.key);
            let bound = match (&created.info.user_id, &created.info.agent_id) {
                (Some(u), Some(a)) => format!(", bound to user {u}, agent {a}"),
                (Some(u), None) => format!(", bound to user {u}"),
                _ => String::new(),
            };
            eprintln!(
                "created key {} (role {}, tenant {}{bound}); the key above is shown only once",
                created.info.id,
                created.info.role,
                created.info.tenant.as_deref().unwrap_or("*")
            );
        }
        KeysAction::List => {
            for k in cli::list_keys(store).await? {
                let bound = match (&k.user_id, &k.agent_id) {
                    (Some(u), Some(a)) => format!("{u}/{a}"),
                    (Some(u), None) => u.clone(),
                    _ => "-".into(),
                };
                println!(
                    "{}\t{}\t{}\t{}\t{bound}\t{}",
                    k.id,
                    k.role,
                    k.tenant.as_deref().unwrap_or("*"),
                    k.name,
                    if k.revoked_at.is_some() {
                        "revoked"
                    } else {
                        "active"
                    }
                );
            }
        }
        KeysAction::Revoke { id } => {
            cli::revoke_key(store, &id).await?;
            eprintln!("revoked key {id}");
        }
    }
    Ok(())
}
