//! Background work: extraction jobs taken from Postgres, run through the write
//! policy, an extractor and the decision rules, and applied in one transaction.

mod consolidate;
mod pipeline;
mod runner;

pub use consolidate::{
    parse_schedule, spawn_schedule, ConsolidationSettings, Consolidator, RunTarget,
};
pub use pipeline::{JobHandlers, PipelineConfig, ResultItem};
pub use runner::{run_one, spawn_workers, WorkerConfig};
