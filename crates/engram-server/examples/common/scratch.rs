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

/// Serves Engram over `pool` on loopback with the local MiniLM in
/// `model_dir`, extraction by the built-in rules (no LLM), workers polling
/// often; the base URL (admin key `key`) and the embedder.
#[allow(dead_code)] // not every bench extracts
pub async fn serve_with_rules(
    pool: &sqlx::PgPool,
    model_dir: &str,
    config: engram_api::ApiConfig,
    key: &str,
) -> anyhow::Result<(String, std::sync::Arc<dyn engram_core::Embedder>)> {
    use std::sync::Arc;
    let embedder: Arc<dyn engram_core::Embedder> =
        Arc::new(engram_embed::MiniLm::load(model_dir.as_ref())?);
    let clock: Arc<dyn engram_core::Clock> = Arc::new(engram_core::SystemClock);
    let store = engram_store::Store::new(pool.clone());
    let (state, _usage) =
        engram_server::prepare(store.clone(), embedder.clone(), config, key, clock.clone()).await?;
    // Workers live as long as the process: the sender is leaked on purpose.
    let (stop, stopped) = tokio::sync::watch::channel(false);
    std::mem::forget(stop);
    engram_worker::spawn_workers(
        Arc::new(engram_server::pipeline(
            store,
            embedder.clone(),
            Arc::new(engram_core::extract::RulesExtractor),
            clock,
        )),
        engram_worker::WorkerConfig {
            poll_interval: std::time::Duration::from_millis(20),
            ..Default::default()
        },
        stopped,
    );
    Ok((serve_on_loopback(state).await?, embedder))
}
