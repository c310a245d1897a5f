//! Consolidation runs: user by user in pages, each user in one short
//! transaction, under a cluster-wide advisory lock so one replica runs it,
//! recorded with per-user progress so a run that died resumes without
//! redoing finished users (and redoing one would change nothing: planning
//! starts from the data as it is).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use engram_core::consolidate::{
    ambiguous_conflicts, plan_reviewed, ConflictReviewer, ConsolidationParams, Reviews,
};
use engram_core::{time, Clock};
use engram_store::{ConsolidationRun, Counts, Store, StoreError, UserStart};
use futures::FutureExt as _;
use std::panic::AssertUnwindSafe;
use uuid::Uuid;

#[derive(Debug, Clone, Copy)]
pub struct ConsolidationSettings {
    pub duplicate_threshold: f32,
    pub half_life_days: f64,
    pub archive_floor: f32,
    pub expired_grace_days: i64,
    pub deleted_retention_days: i64,
    /// Hours within which near-identical episodic memories are one event.
    pub episodic_window_hours: f64,
    /// Users read per page.
    pub page: usize,
    /// A running run without a heartbeat for this long is resumed.
    pub stale_after_secs: f64,
}

impl Default for ConsolidationSettings {
    fn default() -> Self {
        Self {
            duplicate_threshold: 0.9,
            half_life_days: 90.0,
            archive_floor: 0.05,
            expired_grace_days: 30,
            deleted_retention_days: 30,
            episodic_window_hours: 24.0,
            page: 200,
            stale_after_secs: 300.0,
        }
    }
}

impl ConsolidationSettings {
    fn params(&self, now: chrono::DateTime<chrono::Utc>) -> ConsolidationParams {
        ConsolidationParams {
            duplicate_threshold: self.duplicate_threshold,
            half_life_days: self.half_life_days,
            archive_floor: self.archive_floor,
            expired_grace: time::days(self.expired_grace_days),
            deleted_retention: time::days(self.deleted_retention_days),
            episodic_window: time::hours_f64(self.episodic_window_hours),
            ..ConsolidationParams::defaults(now)
        }
    }
}

/// Whom a run covers: one user of a tenant, or everyone.
#[derive(Debug, Clone)]
pub enum RunTarget {
    Everyone,
    User { tenant: Uuid, user_id: String },
}

pub struct Consolidator {
    pub store: Store,
    pub clock: Arc<dyn Clock>,
    pub settings: ConsolidationSettings,
    /// Reviews weak conflicts before the rules would decide them (an LLM,
    /// when one is configured).
    pub reviewer: Option<Arc<dyn ConflictReviewer>>,
}

/// Reviews asked per user and run, at most: an LLM call each.
const MAX_REVIEWS_PER_USER: usize = 20;

impl Consolidator {
    /// Runs consolidation, or returns `None` when another process holds the
    /// cluster lock. `started` hears the run id as soon as it exists.
    pub async fn run(
        &self,
        target: RunTarget,
        dry_run: bool,
        trigger: &str,
        started: Option<tokio::sync::oneshot::Sender<Uuid>>,
    ) -> Result<Option<ConsolidationRun>, StoreError> {
        self.run_once_since(target, dry_run, trigger, started, None)
            .await
    }

    /// The scheduled run for the schedule's `occurrence`, unless a replica
    /// already made it: checked under the cluster lock, so replicas whose
    /// timers fire apart (one after another's run has finished) still make
    /// one run per occurrence. `None` when skipped.
    pub async fn run_occurrence(
        &self,
        occurrence: DateTime<Utc>,
    ) -> Result<Option<ConsolidationRun>, StoreError> {
        // Replicas' clocks and the database's may differ a little.
        let since = time::add(occurrence, -chrono::Duration::minutes(10));
        self.run_once_since(RunTarget::Everyone, false, "schedule", None, Some(since))
            .await
    }

    async fn run_once_since(
        &self,
        target: RunTarget,
        dry_run: bool,
        trigger: &str,
        started: Option<tokio::sync::oneshot::Sender<Uuid>>,
        once_since: Option<DateTime<Utc>>,
    ) -> Result<Option<ConsolidationRun>, StoreError> {
        let work = async {
            if let Some(since) = once_since {
                if self.store.scheduled_run_since(since).await? {
                    return Ok(None);
                }
            }
            let run = match (&target, dry_run) {
                (RunTarget::Everyone, false) => {
                    match self
                        .store
                        .abandoned_run(self.settings.stale_after_secs)
                        .await?
                    {
                        Some(r) => {
                            tracing::info!(run = %r.id, users_done = r.users_done, "resuming an abandoned consolidation run");
                            r
                        }
                        None => self.store.start_run(None, false, trigger).await?,
                    }
                }
                (RunTarget::Everyone, true) => self.store.start_run(None, true, trigger).await?,
                (RunTarget::User { tenant, user_id }, _) => {
                    self.store
                        .start_run(Some((*tenant, user_id)), dry_run, trigger)
                        .await?
                }
            };
            if let Some(tx) = started {
                let _ = tx.send(run.id);
            }
            let mut errors = Vec::new();
            match &target {
                RunTarget::User { tenant, user_id } => {
                    self.next_user(&run, *tenant, user_id, dry_run, &mut errors)
                        .await?;
                }
                RunTarget::Everyone => {
                    let mut after = None;
                    loop {
                        let users = self
                            .store
                            .users_to_consolidate(after.clone(), self.settings.page)
                            .await?;
                        let Some(last) = users.last().cloned() else {
                            break;
                        };
                        for (tenant, user_id) in users {
                            self.next_user(&run, tenant, &user_id, dry_run, &mut errors)
                                .await?;
                        }
                        after = Some(last);
                    }
                }
            }
            self.store.finish_run(run.id, &errors).await.map(Some)
        };
        match self.store.with_consolidation_lock(work).await? {
            Some(result) => result,
            None => Ok(None),
        }
    }

    /// One user, unless an earlier attempt of this run already did them or
    /// died on them. A failure, panics included, is recorded on the user
    /// (the error without the user's id: its hash) and the run goes on.
    async fn next_user(
        &self,
        run: &ConsolidationRun,
        tenant: Uuid,
        user_id: &str,
        dry_run: bool,
        errors: &mut Vec<String>,
    ) -> Result<(), StoreError> {
        let failure = match self.store.begin_user(run.id, tenant, user_id).await? {
            UserStart::Finished => return Ok(()),
            UserStart::Interrupted => {
                "the run stopped while consolidating this user; skipped".to_owned()
            }
            UserStart::Begun => {
                let attempt = AssertUnwindSafe(self.one_user(run, tenant, user_id, dry_run))
                    .catch_unwind()
                    .await;
                match attempt {
                    Ok(Ok(())) => return Ok(()),
                    Ok(Err(e)) => e.to_string(),
                    Err(_) => "consolidating this user panicked (a bug in Engram; the server log says where)".to_owned(),
                }
            }
        };
        tracing::warn!(run = %run.id, error = %failure, "consolidating a user failed");
        let subject = self.store.subject_hash(tenant, user_id).await?;
        errors.push(format!("user {subject}: {failure}"));
        self.store.fail_user(run.id, tenant, user_id).await
    }

    /// Reviews, plans and applies one user's consolidation, and records it.
    async fn one_user(
        &self,
        run: &ConsolidationRun,
        tenant: Uuid,
        user_id: &str,
        dry_run: bool,
    ) -> Result<(), StoreError> {
        let now = self.clock.now();
        let params = self.settings.params(now);
        let mut review_counts = Counts::new();
        let reviews = match &self.reviewer {
            Some(reviewer) => {
                self.review(
                    reviewer.as_ref(),
                    tenant,
                    user_id,
                    &params,
                    &mut review_counts,
                )
                .await
            }
            None => Ok(Reviews::new()),
        };
        let reviews = reviews?;
        let (ops, mut counts) = self
            .store
            .consolidate_user(tenant, user_id, dry_run, now, move |v| {
                plan_reviewed(v, &params, &reviews)
            })
            .await?;
        for (k, v) in review_counts {
            *counts.entry(k).or_default() += v;
        }
        self.store
            .record_user(
                run.id,
                tenant,
                user_id,
                &counts,
                dry_run.then_some(&ops[..]),
            )
            .await
    }
}

impl Consolidator {
    /// Asks the reviewer about the user's weak conflicts, outside any
    /// transaction (an LLM call can take seconds). A failed review leaves
    /// the group to the rules; counted as `reviewed` and `review_failed`.
    async fn review(
        &self,
        reviewer: &dyn ConflictReviewer,
        tenant: Uuid,
        user_id: &str,
        params: &ConsolidationParams,
        counts: &mut Counts,
    ) -> Result<Reviews, StoreError> {
        let views = self.store.attributed_views(tenant, user_id).await?;
        let mut reviews = Reviews::new();
        for group in ambiguous_conflicts(&views, params)
            .into_iter()
            .take(MAX_REVIEWS_PER_USER)
        {
            match reviewer.review(&group).await {
                Ok(mut review) => {
                    review.reason = format!("{} ({})", review.reason, reviewer.id());
                    *counts.entry("reviewed".into()).or_default() += 1;
                    reviews.insert(group.key(), review);
                }
                Err(e) => {
                    tracing::warn!(error = %e, attribute = %group.attribute, "a conflict review failed; the rules decide it");
                    *counts.entry("review_failed".into()).or_default() += 1;
                }
            }
        }
        Ok(reviews)
    }
}

/// When consolidation runs inside `engram serve`: a cron expression
/// (croner: POSIX five fields, UTC), parsed once at start.
pub fn parse_schedule(expr: &str) -> Result<croner::Cron, String> {
    use std::str::FromStr as _;
    croner::Cron::from_str(expr).map_err(|e| format!("{expr:?} is not a cron expression: {e}"))
}

/// Runs consolidation at every occurrence of `schedule` until `stop`, and
/// once at start when a run was left unfinished (its process died). On
/// several replicas each tries; the cluster lock lets one run.
pub fn spawn_schedule(
    consolidator: Arc<Consolidator>,
    schedule: croner::Cron,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        match consolidator
            .store
            .abandoned_run(consolidator.settings.stale_after_secs)
            .await
        {
            Ok(Some(_)) => run_scheduled(&consolidator, None).await,
            Ok(None) => {}
            Err(e) => {
                tracing::warn!(error = %e, "could not look for an unfinished consolidation run")
            }
        }
        loop {
            let now = consolidator.clock.now();
            let Ok(next) = schedule.find_next_occurrence(&now, false) else {
                tracing::warn!("the consolidation schedule has no next occurrence; not scheduling");
                return;
            };
            let wait = next.signed_duration_since(now).to_std().unwrap_or_default();
            tracing::info!(next = %next, "next consolidation run");
            tokio::select! {
                _ = tokio::time::sleep(wait) => run_scheduled(&consolidator, Some(next)).await,
                changed = stop.changed() => if changed.is_err() || *stop.borrow() { return },
            }
        }
    })
}

/// A scheduled run over everyone: for the schedule's `occurrence`, or (at
/// start, `None`) to finish a run a dead process left; logged either way.
async fn run_scheduled(consolidator: &Consolidator, occurrence: Option<DateTime<Utc>>) {
    let result = match occurrence {
        Some(at) => consolidator.run_occurrence(at).await,
        None => {
            consolidator
                .run(RunTarget::Everyone, false, "schedule", None)
                .await
        }
    };
    match result {
        Ok(Some(run)) => {
            tracing::info!(run = %run.id, status = %run.status, users = run.users_done, counts = %run.counts, "consolidation run finished")
        }
        Ok(None) => tracing::info!("another process is consolidating or has consolidated; skipped"),
        Err(e) => tracing::warn!(error = %e, "consolidation run failed"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn the_default_schedule_is_nightly_at_three_utc() {
        let cron = parse_schedule("0 3 * * *").unwrap_or_else(|e| panic!("{e}"));
        let at = chrono::Utc
            .with_ymd_and_hms(2026, 11, 30, 17, 0, 0)
            .unwrap();
        let next = cron
            .find_next_occurrence(&at, false)
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            next,
            chrono::Utc.with_ymd_and_hms(2026, 12, 1, 3, 0, 0).unwrap()
        );
        assert!(parse_schedule("every night").is_err());
        assert!(parse_schedule("0 25 * * *").is_err());
    }
}
