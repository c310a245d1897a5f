//! What the bench tools share: a scratch database beside the test database
//! of `make env`. Used by `engram-bench` and by engram-server's examples
//! (evaluation and benchmark tools).

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::Value;
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

pub const KEY: &str = "bench-admin-key";

/// The `engram serve` child process; killed when dropped.
pub struct Server {
    child: Child,
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    /// Resident memory now and at its peak, in MiB (Linux).
    pub fn rss_mib(&self) -> (f64, f64) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.split_whitespace().next()?.parse::<f64>().ok())
                .map_or(f64::NAN, |kb| kb / 1024.0)
        };
        (field("VmRSS:"), field("VmHWM:"))
    }
}

pub async fn start_server(url: &str, model_dir: &str) -> anyhow::Result<(Server, Duration)> {
    let exe = std::env::current_exe()?
        .parent()
        .context("the bench's folder")?
        .join("engram");
    if !exe.exists() {
        bail!(
            "{} is missing: cargo build --release -p engram-server",
            exe.display()
        );
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let started = Instant::now();
    let child = Command::new(&exe)
        .arg("serve")
        .env("ENGRAM_DATABASE_URL", url)
        .env("ENGRAM_API_KEY", KEY)
        .env("ENGRAM_BIND", format!("127.0.0.1:{port}"))
        .env("ENGRAM_EMBED_MODEL_DIR", model_dir)
        .env("ENGRAM_RATE_LIMIT_PER_SECOND", "0")
        .env("ENGRAM_CONSOLIDATION_SCHEDULE", "off")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .with_context(|| format!("starting {}", exe.display()))?;
    let server = Server {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let client = reqwest::Client::new();
    loop {
        let ready = client
            .get(format!("{}/readyz", server.base))
            .send()
            .await
            .is_ok_and(|r| r.status().is_success());
        if ready {
            return Ok((server, started.elapsed()));
        }
        if started.elapsed() > Duration::from_secs(60) {
            bail!("the server was not ready within 60 s");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Runs `bench` with the URL and model folder of a fresh scratch database
/// named after `prefix`, on a multi-threaded runtime, and drops the
/// database afterwards unless `keep`.
pub fn run_on_scratch<F, Fut>(prefix: &str, keep: bool, bench: F) -> anyhow::Result<()>
where
    F: FnOnce(String, String) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(async {
            let mut scratch = Scratch::create(prefix).await?;
            scratch.keep |= keep;
            let result = bench(scratch.url.clone(), scratch.model_dir.clone()).await;
            scratch.drop().await?;
            result
        })
}

/// Runs `bench` on a database someone else prepared (`url`), which is left
/// as it is afterwards: for a cluster whose nodes a script has set up, such
/// as `scripts/bench-citus.sh` does. The model folder comes from
/// ENGRAM_EMBED_MODEL_DIR, as for a scratch database.
pub fn run_on_database<F, Fut>(url: String, bench: F) -> anyhow::Result<()>
where
    F: FnOnce(String, String) -> Fut,
    Fut: std::future::Future<Output = anyhow::Result<()>>,
{
    let model_dir =
        std::env::var("ENGRAM_EMBED_MODEL_DIR").context("ENGRAM_EMBED_MODEL_DIR is not set")?;
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?
        .block_on(bench(url, model_dir))
}

/// A deterministic generator (no extra crate for a benchmark's noise).
pub struct Lcg(pub u64);

impl Lcg {
    /// Uniform in [-0.5, 0.5).
    pub fn uniform(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as f32 / (1u64 << 31) as f32) - 0.5
    }

    pub fn below(&mut self, n: usize) -> usize {
        ((self.uniform() + 0.5) * n as f32) as usize % n
    }
}

pub fn noisy(base: &[f32], rng: &mut Lcg, noise: f32) -> Vec<f32> {
    let v: Vec<f32> = base.iter().map(|x| x + noise * rng.uniform()).collect();
    let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
    v.into_iter().map(|a| a / n).collect()
}

/// Percentiles of a sample, in ms.
pub struct Dist(pub Vec<f64>);

impl Dist {
    pub fn at(&self, p: f64) -> f64 {
        let mut v = self.0.clone();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return f64::NAN;
        }
        v[((v.len() - 1) as f64 * p).round() as usize]
    }

    pub fn row(&self, label: &str) -> String {
        format!(
            "| {label} | {} | {:.2} | {:.2} | {:.2} |",
            self.0.len(),
            self.at(0.5),
            self.at(0.95),
            self.at(0.99)
        )
    }
}

/// `embed` and `total` durations (ms) from a Server-Timing header.
pub fn server_timing(resp: &reqwest::Response) -> (f64, f64) {
    let header = resp
        .headers()
        .get("server-timing")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let dur = |name: &str| {
        header
            .split(", ")
            .find_map(|p| p.strip_prefix(&format!("{name};dur=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or(f64::NAN)
    };
    (dur("embed"), dur("total"))
}

pub struct Timed {
    pub client_ms: f64,
    pub embed_ms: f64,
    pub server_ms: f64,
    pub body: Value,
}

pub async fn post(client: &reqwest::Client, url: &str, body: &Value) -> anyhow::Result<Timed> {
    let t = Instant::now();
    let resp = client.post(url).bearer_auth(KEY).json(body).send().await?;
    let status = resp.status();
    let (embed_ms, server_ms) = server_timing(&resp);
    let body: Value = resp.json().await?;
    let client_ms = t.elapsed().as_secs_f64() * 1000.0;
    if !status.is_success() {
        bail!("{url}: {status} {body}");
    }
    Ok(Timed {
        client_ms,
        embed_ms,
        server_ms,
        body,
    })
}
