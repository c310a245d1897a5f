//! `engram`: the memory server. The command line is here; what each
//! command does is in `commands/`.

mod commands;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use commands::keys::KeysAction;
use commands::serve::ServeCommand;
use commands::worker::WorkerCommand;
use engram_server::config::{ConsolidationRules, DatabaseArgs, EmbedArgs, LlmArgs};
use engram_server::telemetry;

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
        Command::Migrate { db } => commands::migrate(&db).await?,
        Command::Keys { db, action } => commands::keys::run(&db, action).await?,
        Command::AuditSubjects { db } => commands::audit_subjects(&db).await?,
        Command::Consolidate {
            db,
            user,
            tenant,
            dry_run,
            rules,
            llm,
        } => {
            let target = commands::ConsolidateTarget {
                user,
                tenant,
                dry_run,
            };
            commands::consolidate(&db, target, &rules, &llm).await?
        }
        Command::Import {
            db,
            embed,
            tenant,
            file,
        } => commands::import(&db, &embed, tenant.as_deref(), &file).await?,
        Command::Serve(cmd) => commands::serve::run(*cmd).await?,
        Command::Worker(cmd) => commands::worker::run(*cmd).await?,
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
