//! A consolidation job: runs the consolidation it asks for and records
//! which run it made (or that another run held the cluster lock) as its
//! result.

use engram_store::{ConsolidateOutcome, ConsolidatePayload, JobRow};

use super::{JobError, JobHandlers};
use crate::{Consolidator, RunTarget};

pub(super) async fn run(
    handlers: &JobHandlers,
    job: &JobRow,
    request: ConsolidatePayload,
) -> Result<(), JobError> {
    let target = match request.user_id {
        Some(user_id) => RunTarget::User {
            tenant: job.tenant_id,
            user_id,
        },
        None => RunTarget::Everyone,
    };
    let consolidator = Consolidator {
        store: handlers.store.clone(),
        clock: handlers.clock.clone(),
        settings: handlers.config.consolidation,
        reviewer: handlers.reviewer.clone(),
    };
    let outcome = match consolidator
        .run(target, request.dry_run, "api", None)
        .await?
    {
        Some(run) => ConsolidateOutcome::Run { run_id: run.id },
        None => ConsolidateOutcome::Busy,
    };
    let results = serde_json::json!([outcome]);
    handlers
        .store
        .finish_job(job.tenant_id, job.id, &results)
        .await?;
    Ok(())
}
