//! Postgres stopped and started again under load, on a private cluster the
//! test starts (the shared test database is never touched): while it is down
//! Engram answers 503 quickly, it recovers without a restart, and every add
//! it acknowledged is there afterwards. Skipped without ENGRAM_PG_BIN (set by
//! `make env`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use sqlx::postgres::PgPoolOptions;

/// A throwaway Postgres cluster, run as the OS user `make env` made when
/// we are root (Postgres refuses root).
struct Cluster {
    bin: PathBuf,
    data: PathBuf,
    port: u16,
}

impl Cluster {
    fn run(&self, program: &str, args: &[&str]) {
        let exe = self.bin.join(program);
        let mut cmd = if is_root() {
            let mut c = Command::new("runuser");
            c.args(["-u", "engram-pg", "--"]).arg(&exe);
            c
        } else {
            Command::new(&exe)
        };
        let out = cmd.args(args).output().expect("runs");
        assert!(
            out.status.success(),
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    fn start(&self) {
        let data = self.data.to_str().unwrap();
        let log = self.data.with_extension("log");
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1",
            self.port,
            self.data.parent().unwrap().display()
        );
        self.run(
            "pg_ctl",
            &[
                "-D",
                data,
                "-o",
                &opts,
                "-l",
                log.to_str().unwrap(),
                "-w",
                "start",
            ],
        );
    }

    fn stop(&self) {
        self.run(
            "pg_ctl",
            &[
                "-D",
                self.data.to_str().unwrap(),
                "-m",
                "fast",
                "-w",
                "stop",
            ],
        );
    }

    fn url(&self) -> String {
        format!("postgres://engram@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let data = self.data.to_str().unwrap().to_owned();
        let pg_ctl = self.bin.join("pg_ctl");
        let _ = if is_root() {
            Command::new("runuser")
                .args(["-u", "engram-pg", "--"])
                .arg(&pg_ctl)
                .args(["-D", &data, "-m", "immediate", "stop"])
                .output()
        } else {
            Command::new(&pg_ctl)
                .args(["-D", &data, "-m", "immediate", "stop"])
                .output()
        };
        let _ = std::fs::remove_dir_all(self.data.parent().unwrap());
    }
}

fn is_root() -> bool {
    std::env::var("USER").map(|u| u == "root").unwrap_or(false)
        || Command::new("id")
            .arg("-u")
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
            .unwrap_or(false)
}

fn new_cluster(bin: &Path) -> Cluster {
    let root = std::env::temp_dir().join(format!("engram-outage-{}", std::process::id()));
    std::fs::create_dir_all(&root).unwrap();
    let _ = Command::new("chmod")
        .args(["777", root.to_str().unwrap()])
        .status();
    let data = root.join("data");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cluster = Cluster {
        bin: bin.to_owned(),
        data,
        port,
    };
    cluster.run(
        "initdb",
        &[
            "-D",
            cluster.data.to_str().unwrap(),
            "-U",
            "engram",
            "--auth=trust",
            "-E",
            "UTF8",
            "--locale=C",
        ],
    );
    cluster.start();
    cluster
}

#[tokio::test]
async fn postgres_stopped_and_restarted_under_load() {
    let Some(bin) = std::env::var_os("ENGRAM_PG_BIN") else {
        println!("ENGRAM_PG_BIN is not set (run through `make test`); skipped");
        return;
    };
    let cluster = new_cluster(Path::new(&bin));
    let pool = PgPoolOptions::new()
        .max_connections(4)
        .acquire_timeout(Duration::from_secs(1))
        .connect(&cluster.url())
        .await
        .unwrap();
    let app = Arc::new(crate::common::spawn_app(pool.clone()).await);

    // Writers add one memory at a time and keep the ids acknowledged.
    let acked: Arc<Mutex<Vec<String>>> = Arc::default();
    // (status, time taken, started): only requests started after the stop
    // completed count as "during" (one in flight may still have committed).
    let statuses: Arc<Mutex<Vec<(u16, Duration, Instant)>>> = Arc::default();
    let stop = Arc::new(AtomicBool::new(false));
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let (app, acked, statuses, stop) = (app.clone(), acked.clone(), statuses.clone(), stop.clone());
            tokio::spawn(async move {
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    let started = Instant::now();
                    let r = app
                        .post(
                            "/v1/memories",
                            json!({"user_id": "w", "infer": false, "text": format!("note {w}-{i}")}),
                        )
                        .await;
                    statuses.lock().unwrap().push((r.status.as_u16(), started.elapsed(), started));
                    if r.status == 201 {
                        acked.lock().unwrap().push(r.body["results"][0]["id"].as_str().unwrap().to_owned());
                    }
                    i += 1;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
        })
        .collect();

    tokio::time::sleep(Duration::from_secs(1)).await;
    cluster.stop();
    let stopped = Instant::now();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let during: Vec<(u16, Duration)> = statuses
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, _, started)| *started >= stopped)
        .map(|(s, d, _)| (*s, *d))
        .collect();
    cluster.start();
    // Recovery without restarting Engram: adds succeed again.
    let deadline = Instant::now() + Duration::from_secs(20);
    let up_at = statuses.lock().unwrap().len();
    loop {
        let ok = statuses.lock().unwrap()[up_at..]
            .iter()
            .filter(|(s, _, _)| *s == 201)
            .count();
        if ok >= 5 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no recovery: {:?}",
            &statuses.lock().unwrap()[up_at..]
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for w in writers {
        w.await.unwrap();
    }

    let all = statuses.lock().unwrap().clone();
    assert!(
        all.iter().all(|(s, _, _)| [201, 503].contains(s)),
        "only 201 or 503: {all:?}"
    );
    assert!(
        !during.is_empty() && during.iter().all(|(s, _)| *s == 503),
        "{during:?}"
    );
    let slowest = during.iter().map(|(_, d)| *d).max().unwrap();
    assert!(
        slowest < Duration::from_secs(2),
        "503s came quickly: {slowest:?}"
    );

    // Every acknowledged write is there.
    let acked = acked.lock().unwrap().clone();
    let ids: Vec<uuid::Uuid> = acked.iter().map(|s| s.parse().unwrap()).collect();
    let found: i64 = sqlx::query_scalar("SELECT count(*) FROM memories WHERE id = ANY($1)")
        .bind(&ids)
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(found as usize, acked.len());
    println!(
        "{} adds acknowledged, all present; {} answered 503 while down, slowest {:?}",
        acked.len(),
        during.len(),
        slowest
    );
}
