//! What the bench tools share: a scratch database beside the test database
//! of `make env`. Used by `engram-bench` and by engram-server's examples
//! (evaluation and benchmark tools).

use anyhow::Context;
use sqlx::Connection;

/// A database created beside ENGRAM_TEST_DATABASE_URL's, dropped by
/// [`Scratch::drop`] unless `keep` is set (it starts set when EVAL_KEEP_DB
/// is, to look at query plans afterwards).
pub struct Scratch {
    admin: sqlx::PgConnection,
    pub name: String,
    pub url: String,
    pub model_dir: String,
    pub keep: bool,
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
            keep: std::env::var_os("EVAL_KEEP_DB").is_some(),
        })
    }

    pub async fn drop(mut self) -> anyhow::Result<()> {
        if self.keep {
            println!("kept database {}", self.name);
            return Ok(());
        }
        sqlx::query(&format!("DROP DATABASE {} WITH (FORCE)", self.name))
            .execute(&mut self.admin)
            .await?;
        Ok(())
    }
}
