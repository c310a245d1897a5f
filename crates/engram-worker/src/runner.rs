//! Worker loops: claim, process, record. Woken by NOTIFY on enqueue, and by a
//! poll interval for retries that come due and leases that expire.

use std::sync::Arc;
use std::time::Duration;

use engram_store::{JobKind, JOBS_CHANNEL};
use sqlx::postgres::PgListener;
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

use crate::jobs::JobHandlers;

#[derive(Debug, Clone)]
pub struct WorkerConfig {
    pub workers: usize,
    /// How long a claimed job is held before another worker may take it.
    pub lease: Duration,
    pub poll_interval: Duration,
    /// Retry delay = base * 2^(attempts-1), capped at `max_backoff`.
    pub backoff_base: Duration,
    pub max_backoff: Duration,
}

impl Default for WorkerConfig {
    fn default() -> Self {
        Self {
            workers: 1,
            lease: Duration::from_secs(120),
            poll_interval: Duration::from_secs(1),
            backoff_base: Duration::from_secs(2),
            max_backoff: Duration::from_secs(300),
        }
    }
}

fn backoff(config: &WorkerConfig, attempts: i32) -> Duration {
    let factor = 2u32.saturating_pow(attempts.saturating_sub(1).clamp(0, 16) as u32);
    config
        .backoff_base
        .saturating_mul(factor)
        .min(config.max_backoff)
}

/// Starts `config.workers` loops for the work behind requests (extraction,
/// summaries), one more for consolidation runs (so a long run never holds up
/// extraction), and a NOTIFY listener, until `stop` turns true. Each loop is
/// supervised: should it ever panic it is started again, so no input can
/// leave a process without workers.
pub fn spawn_workers(
    handlers: Arc<JobHandlers>,
    config: WorkerConfig,
    stop: watch::Receiver<bool>,
) -> Vec<JoinHandle<()>> {
    if config.workers == 0 {
        return Vec::new();
    }
    let wake = Arc::new(Notify::new());
    let mut handles = vec![tokio::spawn(listen(
        handlers.clone(),
        wake.clone(),
        stop.clone(),
    ))];
    let lanes = (0..config.workers)
        .map(|n| {
            (
                format!("{}-{n}", std::process::id()),
                &JobKind::REQUEST_WORK[..],
            )
        })
        .chain(std::iter::once((
            format!("{}-consolidation", std::process::id()),
            &[JobKind::Consolidate][..],
        )));
    for (name, kinds) in lanes {
        let (handlers, config, wake, stop) =
            (handlers.clone(), config.clone(), wake.clone(), stop.clone());
        handles.push(tokio::spawn(async move {
            loop {
                let task = tokio::spawn(work(
                    handlers.clone(),
                    config.clone(),
                    name.clone(),
                    kinds,
                    wake.clone(),
                    stop.clone(),
                ));
                match task.await {
                    Err(e) if e.is_panic() => {
                        tracing::error!(worker = %name, "a worker loop panicked; starting it again");
                        tokio::time::sleep(config.poll_interval).await;
                    }
                    _ => return,
                }
            }
        }));
    }
    handles
}

async fn listen(handlers: Arc<JobHandlers>, wake: Arc<Notify>, mut stop: watch::Receiver<bool>) {
    loop {
        let mut listener = match PgListener::connect_with(handlers.store.pool()).await {
            Ok(l) => l,
            Err(e) => {
                tracing::warn!(error = %e, "job listener could not connect; polling only");
                tokio::select! { _ = tokio::time::sleep(Duration::from_secs(5)) => continue, _ = stop.changed() => return }
            }
        };
        if let Err(e) = listener.listen(JOBS_CHANNEL).await {
            tracing::warn!(error = %e, "job listener could not LISTEN");
        }
        loop {
            tokio::select! {
                n = listener.recv() => match n {
                    Ok(_) => wake.notify_waiters(),
                    Err(e) => { tracing::warn!(error = %e, "job listener lost its connection"); break }
                },
                _ = stop.changed() => return,
            }
        }
    }
}

async fn work(
    handlers: Arc<JobHandlers>,
    config: WorkerConfig,
    name: String,
    kinds: &'static [JobKind],
    wake: Arc<Notify>,
    mut stop: watch::Receiver<bool>,
) {
    while !*stop.borrow() {
        match run_one(&handlers, &config, &name, kinds).await {
            Ok(true) => continue,
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "could not claim a job"),
        }
        tokio::select! {
            _ = wake.notified() => {},
            _ = tokio::time::sleep(config.poll_interval) => {},
            // A dropped sender means the owner is gone: stop, rather than
            // spin on a channel that answers at once for ever.
            changed = stop.changed() => if changed.is_err() { return },
        }
    }
}

/// How long a consolidation job may run.
const CONSOLIDATION_LEASE: Duration = Duration::from_secs(6 * 3600);

const PANICKED: &str =
    "the job panicked (a bug in Engram; the server log says where); it is retried, then failed";

/// How long the database holds a job for a worker whose attempts end at
/// `lease`: a little longer, so that the worker records how its attempt
/// ended before anyone else may take the job or fail it as abandoned.
fn held_for(lease: Duration) -> Duration {
    lease.saturating_add((lease / 4).clamp(Duration::from_millis(250), Duration::from_secs(30)))
}

/// Claims and runs one job of `kinds`; false when none was due.
///
/// The job runs in a task of its own, so a panic is that job's failure (its
/// attempt counts, it is retried with backoff and fails for good at its
/// maximum) and never the worker's; an attempt that outlives the lease is
/// abandoned and counted the same way.
pub async fn run_one(
    handlers: &Arc<JobHandlers>,
    config: &WorkerConfig,
    name: &str,
    kinds: &[JobKind],
) -> Result<bool, engram_store::StoreError> {
    let Some(job) = handlers
        .store
        .claim_job(name, held_for(config.lease).as_secs_f64(), kinds)
        .await?
    else {
        return Ok(false);
    };
    let started = std::time::Instant::now();
    // A consolidation run can outlast an extraction's lease by far; it
    // heartbeats on its own record and resumes where it stopped.
    let lease = if job.kind == JobKind::Consolidate {
        let lease = config.lease.max(CONSOLIDATION_LEASE);
        handlers
            .store
            .extend_lease(job.id, held_for(lease).as_secs_f64())
            .await?;
        lease
    } else {
        config.lease
    };
    let task = tokio::spawn({
        let (handlers, job) = (handlers.clone(), job.clone());
        async move { handlers.process(&job).await }
    });
    let abort = task.abort_handle();
    let attempt = match tokio::time::timeout(lease, task).await {
        Ok(Ok(Ok(results))) => Ok(results),
        Ok(Ok(Err(e))) => Err((e.to_string(), e.is_permanent())),
        Ok(Err(e)) if e.is_panic() => {
            tracing::error!(job = %job.id, kind = %job.kind, "a job panicked");
            Err((PANICKED.to_owned(), false))
        }
        Ok(Err(_)) => Err(("the job was cancelled".to_owned(), false)),
        Err(_) => {
            abort.abort();
            Err((
                format!(
                    "the job ran longer than its lease ({} s) and was abandoned",
                    lease.as_secs()
                ),
                false,
            ))
        }
    };
    let outcome = match attempt {
        Ok(results) => {
            tracing::info!(job = %job.id, results = results.len(), ms = started.elapsed().as_millis() as u64, "job done");
            for r in &results {
                metrics::counter!("engram_extraction_facts_total", "event" => r.event.as_str())
                    .increment(1);
            }
            "done"
        }
        Err((error, give_up)) => {
            let retry = backoff(config, job.attempts);
            match handlers
                .store
                .fail_job(job.tenant_id, job.id, &error, retry.as_secs_f64(), give_up)
                .await?
            {
                Some(status) => {
                    // Without what the error quotes (a model's answer,
                    // a value): logs never carry memory text.
                    let error = engram_core::text::without_quoted(&error);
                    tracing::warn!(job = %job.id, attempts = job.attempts, status = status.as_str(), error = %error, "job attempt failed");
                    if status == engram_core::JobStatus::Failed {
                        "failed"
                    } else {
                        "retry"
                    }
                }
                None => {
                    tracing::info!(job = %job.id, "job dropped: it was deleted while running (erasure or source purge)");
                    "dropped"
                }
            }
        }
    };
    let labels = [("kind", job.kind.as_str()), ("outcome", outcome)];
    metrics::counter!("engram_jobs_total", &labels).increment(1);
    metrics::histogram!("engram_job_duration_seconds", &labels)
        .record(started.elapsed().as_secs_f64());
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_holds_a_job_past_its_workers_deadline() {
        assert_eq!(held_for(Duration::MAX), Duration::MAX);
        for ms in [100, 600, 30_000, 3_600_000] {
            let lease = Duration::from_millis(ms);
            let grace = held_for(lease) - lease;
            assert!(grace >= Duration::from_millis(250), "{ms}");
            assert!(grace <= Duration::from_secs(30), "{ms}");
        }
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        let c = WorkerConfig {
            backoff_base: Duration::from_secs(2),
            max_backoff: Duration::from_secs(10),
            ..Default::default()
        };
        assert_eq!(backoff(&c, 1), Duration::from_secs(2));
        assert_eq!(backoff(&c, 2), Duration::from_secs(4));
        assert_eq!(backoff(&c, 3), Duration::from_secs(8));
        assert_eq!(backoff(&c, 4), Duration::from_secs(10));
        assert_eq!(backoff(&c, 100), Duration::from_secs(10));
    }
}
