//! Purging what one source produced (a document, a session), and the
//! receipt every erasure answers with.

use chrono::Utc;

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
        .purge_source(caller.tenant_id, plan, &embeddings, caller.audit(action))
        .await?;
    Ok(receipt(caller, counts))
}

/// What an erasure did, for the caller to keep.
pub(crate) fn receipt(caller: &Caller, counts: engram_store::Counts) -> ErasureReceipt {
    ErasureReceipt {
        request_id: caller.request_id.clone(),
        tenant_id: caller.tenant_id,
        completed_at: Utc::now(),
        counts,
    }
}
