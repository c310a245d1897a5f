//! A scratch database for the bench tools, beside the test database of
//! `make env` (ENGRAM_TEST_DATABASE_URL), dropped afterwards unless
//! EVAL_KEEP_DB is set (to look at query plans).

use anyhow::Context;
use sqlx::Connection;

pub struct Scratch {
    admin: sqlx::PgConnection,
    pub name: String,
    pub url: String,
    pub model_dir: String,
}

impl Scratch {
    pub async fn create(prefix: &str) -> anyhow::Result<Self> {
        let admin_url = std::env::var("ENGRAM_TEST_DATABASE_URL")
            .context("ENGRAM_TEST_DATABASE_URL is not set: run `make env && . .data/env` first")?;
        let model_dir =
            std::env::var("ENGRAM_EMBED_MODEL_DIR").context("ENGRAM_EMBED_MODEL_DIR is not set")?;
        let name = format!("{prefix}_{}", std::process::id());
        let mut admin = sqlx::PgConnection::connect(&admin_url).await?;
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await?;
        let (server, _) = admin_url.rsplit_once('/').context("URL has a path")?;
        let url = format!("{server}/{name}");
        Ok(Self {
            admin,
            name,
            url,
            model_dir,
        })
    }

    pub async fn drop(mut self) -> anyhow::Result<()> {
        if std::env::var_os("EVAL_KEEP_DB").is_some() {
            println!("kept database {}", self.name);
            return Ok(());
        }
        sqlx::query(&format!("DROP DATABASE {} WITH (FORCE)", self.name))
            .execute(&mut self.admin)
            .await?;
        Ok(())
    }
}

/// Serves `state` on a free loopback port until the process ends; the base URL.
pub async fn serve_on_loopback(state: engram_api::AppState) -> anyhow::Result<String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(engram_server::serve(
        listener,
        state,
        std::future::pending(),
    ));
    Ok(base)
}
