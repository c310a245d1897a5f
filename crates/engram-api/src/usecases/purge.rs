//! Purging what one source produced (a document, a session), and the
//! receipt every erasure answers with.

use chrono::Utc;
use engram_store::Apply;

use crate::dto::ErasureReceipt;
use crate::error::ApiError;
use crate::state::{AppState, Caller};
use crate::usecases::search::embed_all;

/// Carries out a purge plan: embeds the merged memories' earlier texts it
/// restores, then purges in one transaction; the receipt.
pub(crate) async fn run_source_purge(
    state: &AppState,
    caller: &Caller,
    plan: &engram_store::SourcePurgePlan,
    action: &str,
    apply: Apply,
) -> Result<ErasureReceipt, ApiError> {
    let texts: Vec<String> = plan.restores.iter().map(|r| r.content.clone()).collect();
    let embeddings = if texts.is_empty() {
        Vec::new()
    } else {
        embed_all(state, &texts).await?
    };
    let counts = state
        .store
        .unbounded()
        .purge_source(
            caller.tenant_id,
            plan,
            &embeddings,
            caller.audit(action),
            apply,
        )
        .await?;
    Ok(receipt(caller, counts, apply))
}

/// What an erasure did (or, for a dry run, would do), for the caller to keep.
pub(crate) fn receipt(
    caller: &Caller,
    counts: engram_store::Counts,
    apply: Apply,
) -> ErasureReceipt {
    ErasureReceipt {
        request_id: caller.request_id.clone(),
        tenant_id: caller.tenant_id,
        completed_at: Utc::now(),
        dry_run: apply == Apply::DryRun,
        counts,
    }
}
