//! `engram`: the memory server.

use anyhow::Context;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::sync::Arc;

use engram_core::{Clock, SystemClock};
use engram_server::config::{
    ConsolidationArgs, ConsolidationRules, ContextArgs, DatabaseArgs, EmbedArgs, LlmArgs,
    ServeArgs, WorkerArgs,
};
use engram_server::{
    cli, configured_handlers, connect, embedder, prepare, serve, serve_metrics, shutdown_signal,
    telemetry,
};

#[derive(Parser)]
#[command(
    name = "engram",
    version,
    about = "A self-hosted memory server for LLM applications"
)]
struct Cli {
    /// Log as JSON lines instead of text.
    #[arg(long, env = "ENGRAM_LOG_JSON", global = true, default_value_t = false)]
    log_json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Apply migrations, then serve the HTTP API.
    Serve(Box<ServeCommand>),
    /// Run extraction workers only (no HTTP), e.g. beside `serve --workers 0`.
    Worker(Box<WorkerCommand>),
    /// Serve Engram's memory tools to an MCP client on stdin/stdout (for
    /// desktop agents), forwarding to a running Engram over HTTP.
    Mcp(Box<engram_server::mcp::BridgeArgs>),
    /// Apply database migrations and exit.
    Migrate {
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// Create, list and revoke API keys.
    Keys {
        #[command(flatten)]
        db: DatabaseArgs,
        #[command(subcommand)]
        action: KeysAction,
    },
    /// Load a user export (GET /v1/admin/users/{user_id}/export) into this
    /// deployment, re-embedding the memories with its embedder.
    Import {
        #[command(flatten)]
        db: DatabaseArgs,
        #[command(flatten)]
        embed: EmbedArgs,
        /// The tenant to load into (by name; created if new). Default: the
        /// tenant named in the document.
        #[arg(long)]
        tenant: Option<String>,
        /// The export document.
        file: std::path::PathBuf,
    },
    /// Print every user this database holds data about, with the pseudonym
    /// the audit log names them by (tab-separated: tenant, user,
    /// subject_hash): after restoring a backup, erase again the users whose
    /// pseudonym a later `user.erase` entry names (docs/GDPR.md).
    AuditSubjects {
        #[command(flatten)]
        db: DatabaseArgs,
    },
    /// Consolidate now: merge near-duplicates, resolve conflicts, decay,
    /// archive and purge; prints the run's report. One process at a time
    /// across the cluster (exits 3 if another holds the lock).
    Consolidate {
        #[command(flatten)]
        db: DatabaseArgs,
        /// Only this user (of `--tenant`, default the default tenant).
        #[arg(long)]
        user: Option<String>,
        /// The user's tenant, by id or name.
        #[arg(long, requires = "user")]
        tenant: Option<String>,
        /// Plan and report, change nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        rules: ConsolidationRules,
        /// With an LLM, weak conflicts are reviewed by it.
        #[command(flatten)]
        llm: LlmArgs,
    },
}

#[derive(Subcommand)]
enum KeysAction {
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

#[derive(clap::Args)]
struct ServeCommand {
    #[command(flatten)]
    db: DatabaseArgs,
    #[command(flatten)]
    embed: EmbedArgs,
    #[command(flatten)]
    serve: ServeArgs,
    #[command(flatten)]
    worker: WorkerArgs,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    context: ContextArgs,
    #[command(flatten)]
    consolidation: ConsolidationArgs,
}

#[derive(clap::Args)]
struct WorkerCommand {
    #[command(flatten)]
    db: DatabaseArgs,
    #[command(flatten)]
    embed: EmbedArgs,
    #[command(flatten)]
    worker: WorkerArgs,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    context: ContextArgs,
    /// What the consolidation jobs this worker takes change.
    #[command(flatten)]
    rules: ConsolidationRules,
    /// Address to serve `GET /metrics` on, e.g. 127.0.0.1:9091 (none by default).
    #[arg(long = "metrics-bind", env = "ENGRAM_WORKER_METRICS_BIND")]
    metrics_bind: Option<std::net::SocketAddr>,
}

fn main() -> anyhow::Result<()> {
    engram_server::unset_blank_settings();
    engram_server::set_inference_threads();
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(run())
}

/// The command line with no environment value shown anywhere in its help:
/// keys, the database URL with its password, and base URLs that may carry
/// credentials would otherwise print as `[env: NAME=value]`. Names still show.
fn command_line() -> clap::Command {
    fn hide(cmd: clap::Command) -> clap::Command {
        let cmd = cmd.mut_args(|a| a.hide_env_values(true));
        let subcommands: Vec<String> = cmd
            .get_subcommands()
            .map(|s| s.get_name().to_owned())
            .collect();
        subcommands
            .iter()
            .fold(cmd, |cmd, name| cmd.mut_subcommand(name, hide))
    }
    hide(Cli::command())
}

async fn run() -> anyhow::Result<()> {
    let cli = Cli::from_arg_matches(&command_line().get_matches()).unwrap_or_else(|e| e.exit());
    telemetry::init(cli.log_json);
    telemetry::log_panics_without_data();
    match cli.command {
        Command::Mcp(args) => engram_server::mcp::bridge(*args).await?,
        Command::Migrate { db } => {
            connect(&db)
                .await?
                .migrate()
                .await
                .context("applying migrations")?;
            tracing::info!("migrations applied");
        }
        Command::Keys { db, action } => {
            let store = connect(&db).await?;
            store.migrate().await.context("applying migrations")?;
            match action {
                KeysAction::Create {
                    role,
                    tenant,
                    name,
                    user_id,
                    agent_id,
                } => {
                    let created = cli::create_key(
                        &store,
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
                    for k in cli::list_keys(&store).await? {
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
                    cli::revoke_key(&store, &id).await?;
                    eprintln!("revoked key {id}");
                }
            }
        }
        Command::AuditSubjects { db } => {
            let store = connect(&db).await?;
            store.migrate().await.context("applying migrations")?;
            for (tenant, user, hash) in store.subjects().await? {
                println!("{tenant}\t{user}\t{hash}");
            }
        }
        Command::Consolidate {
            db,
            user,
            tenant,
            dry_run,
            rules,
            llm,
        } => {
            let settings = rules.settings()?;
            let store = connect(&db).await?;
            store.migrate().await.context("applying migrations")?;
            let report = cli::consolidate(
                &store,
                user.as_deref(),
                tenant.as_deref(),
                dry_run,
                settings,
                engram_server::conflict_reviewer(&llm),
            )
            .await?;
            match report {
                Some(run) => println!("{}", serde_json::to_string_pretty(&run)?),
                None => {
                    eprintln!("another process is consolidating; try again when it has finished");
                    std::process::exit(3);
                }
            }
        }
        Command::Import {
            db,
            embed,
            tenant,
            file,
        } => {
            let store = connect(&db).await?;
            store.migrate().await.context("applying migrations")?;
            let embedder = embedder(&embed)?;
            store
                .check_embedder(embedder.id(), embedder.dimensions())
                .await?;
            let counts = cli::import(&store, embedder, &file, tenant.as_deref()).await?;
            println!("{}", serde_json::to_string(&counts)?);
        }
        Command::Serve(cmd) => {
            let ServeCommand {
                db,
                embed,
                serve: args,
                worker,
                llm,
                context,
                consolidation,
            } = *cmd;
            let schedule = consolidation.schedule()?;
            let rules = consolidation.rules.settings()?;
            let api_key = args.api_key.clone().context(
                "no API key: set ENGRAM_API_KEY (`make run` generates one and keeps it in .data/api-key)",
            )?;
            tracing::info!(db = ?db, embed = ?embed, serve = ?args, worker = ?worker, llm = ?llm, context = ?context, consolidation = ?consolidation, "effective configuration");
            let store = connect(&db).await?;
            let embedder = embedder(&embed)?;
            let clock: Arc<dyn Clock> = Arc::new(SystemClock);
            let reviewer = engram_server::conflict_reviewer(&llm);
            let mut api_config = args.api_config(&context);
            api_config.models = engram_server::models_info(&llm);
            tracing::info!(extractor = %api_config.models.extractor, summarizer = %api_config.models.summarizer, "models");
            let (state, usage_task) = prepare(
                store.clone(),
                embedder.clone(),
                api_config,
                &api_key.0,
                clock.clone(),
            )
            .await?;
            let (stop, stopped) = tokio::sync::watch::channel(false);
            let mut workers = engram_worker::spawn_workers(
                configured_handlers(
                    store.clone(),
                    embedder,
                    &llm,
                    &context,
                    rules,
                    clock.clone(),
                ),
                worker.worker_config(),
                stopped.clone(),
            );
            if let Some(schedule) = schedule {
                let consolidator = Arc::new(engram_worker::Consolidator {
                    store,
                    clock,
                    settings: rules,
                    reviewer,
                });
                workers.push(engram_worker::spawn_schedule(
                    consolidator,
                    schedule,
                    stopped,
                ));
            }
            let listener = tokio::net::TcpListener::bind(args.bind)
                .await
                .with_context(|| format!("could not bind {}", args.bind))?;
            tracing::info!(addr = %args.bind, workers = worker.workers, "engram is serving");
            serve(listener, state, shutdown_signal()).await?;
            // In-flight jobs stop at their next step; an unfinished one is taken
            // again after its lease, so nothing is lost.
            let _ = stop.send(true);
            for w in workers {
                let _ = w.await;
            }
            // Bounded: after a forced shutdown a stalled connection may still
            // hold a sender until the runtime ends.
            let _ = tokio::time::timeout(std::time::Duration::from_secs(5), usage_task).await;
            tracing::info!("stopped");
        }
        Command::Worker(cmd) => {
            let WorkerCommand {
                db,
                embed,
                worker,
                llm,
                context,
                rules,
                metrics_bind,
            } = *cmd;
            let rules = rules.settings()?;
            tracing::info!(db = ?db, embed = ?embed, worker = ?worker, llm = ?llm, context = ?context, "effective configuration");
            let models = engram_server::models_info(&llm);
            tracing::info!(extractor = %models.extractor, summarizer = %models.summarizer, "models");
            let store = connect(&db).await?;
            store.migrate().await.context("applying migrations")?;
            let embedder = embedder(&embed)?;
            store
                .check_embedder(embedder.id(), embedder.dimensions())
                .await?;
            let (stop, stopped) = tokio::sync::watch::channel(false);
            let metrics = match metrics_bind {
                Some(bind) => Some(serve_metrics(bind, store.clone(), stopped.clone()).await?),
                None => None,
            };
            let workers = engram_worker::spawn_workers(
                configured_handlers(
                    store,
                    embedder,
                    &llm,
                    &context,
                    rules,
                    Arc::new(SystemClock),
                ),
                worker.worker_config(),
                stopped,
            );
            tracing::info!(workers = worker.workers, metrics = ?metrics_bind, "engram worker is running");
            shutdown_signal().await;
            let _ = stop.send(true);
            for w in workers.into_iter().chain(metrics) {
                let _ = w.await;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        super::Cli::command().debug_assert();
    }
}
