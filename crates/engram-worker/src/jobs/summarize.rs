//! A summarize job: folds a session's turns up to the job's mark into its
//! running summary, screened as every write path is.

use engram_context::Turn;
use engram_core::policy::redact_secrets;
use engram_store::{JobRow, NewSummary, SummarizePayload};

use super::{JobError, JobHandlers};

pub(super) async fn run(
    handlers: &JobHandlers,
    job: &JobRow,
    request: SummarizePayload,
) -> Result<(), JobError> {
    let work = handlers
        .store
        .summary_work(job.tenant_id, &request.session_id, request.through_seq)
        .await?;
    let built_on = work.previous.as_ref().map(|p| p.last_seq);
    // Turns and summaries written before the current screen, and whatever
    // a model writes, are screened again: a summary is a write path too.
    let previous = work
        .previous
        .map(|p| redact_secrets(&p.content))
        .unwrap_or_default();
    let turns: Vec<Turn> = work
        .turns
        .iter()
        .map(|t| Turn {
            role: t.role.clone(),
            content: redact_secrets(&t.content),
        })
        .collect();
    let max = handlers.config.summary_max_tokens;
    let text = if turns.is_empty() {
        previous
    } else {
        let raw = handlers
            .summarizer
            .summarize(&previous, &turns, max)
            .await?;
        // A summary passes the screens the turns did: no secret, and no
        // sentence that directs the assistant (whoever wrote it).
        let screened = engram_core::policy::without_instructions(&redact_secrets(&raw));
        engram_context::fit(&screened, max, &handlers.counter)
    };
    let seqs: Vec<i64> = work.turns.iter().map(|t| t.seq).collect();
    let summary = NewSummary {
        content: &text,
        tokens: handlers.counter.count(&text) as i32,
        seqs: &seqs,
        summarizer: handlers.summarizer.id(),
        built_on,
        redactions: work.redactions,
    };
    handlers
        .store
        .save_summary(
            job.tenant_id,
            job.id,
            &request.session_id,
            &summary,
            handlers.clock.now(),
        )
        .await?;
    Ok(())
}
