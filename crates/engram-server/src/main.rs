//! `engram`: the memory server.

use anyhow::Context;
use clap::{Parser, Subcommand};
use engram_server::config::{DatabaseArgs, EmbedArgs, ServeArgs};
use engram_server::{connect, embedder, prepare, serve, shutdown_signal, telemetry};

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
    /// Apply database migrations and exit.
    Migrate {
        #[command(flatten)]
        db: DatabaseArgs,
    },
}

#[derive(clap::Args)]
struct ServeCommand {
    #[command(flatten)]
    db: DatabaseArgs,
    #[command(flatten)]
    embed: EmbedArgs,
    #[command(flatten)]
    serve: ServeArgs,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    telemetry::init(cli.log_json);
    match cli.command {
        Command::Migrate { db } => {
            connect(&db)
                .await?
                .migrate()
                .await
                .context("applying migrations")?;
            tracing::info!("migrations applied");
        }
        Command::Serve(cmd) => {
            let ServeCommand {
                db,
                embed,
                serve: args,
            } = *cmd;
            let api_key = args.api_key.clone().context(
                "no API key: set ENGRAM_API_KEY (`make run` generates one and keeps it in .data/api-key)",
            )?;
            tracing::info!(db = ?db, embed = ?embed, serve = ?args, "effective configuration");
            let store = connect(&db).await?;
            let embedder = embedder(&embed)?;
            let (state, usage_task) =
                prepare(store, embedder, args.api_config(), &api_key.0).await?;
            let listener = tokio::net::TcpListener::bind(args.bind)
                .await
                .with_context(|| format!("could not bind {}", args.bind))?;
            tracing::info!(addr = %args.bind, "engram is serving");
            serve(listener, state, shutdown_signal()).await?;
            let _ = usage_task.await;
            tracing::info!("stopped");
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
