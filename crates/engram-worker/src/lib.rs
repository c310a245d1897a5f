//! Background work: jobs claimed from Postgres (`runner`) and handed to the
//! handler of their kind (`jobs/`: extract, summarize, consolidate); the
//! consolidation runs those jobs and the schedule start (`consolidation`).

mod consolidation;
mod jobs;
mod runner;

pub use consolidation::{
    parse_schedule, spawn_schedule, ConsolidationSettings, Consolidator, RunTarget,
};
pub use jobs::{HandlerConfig, JobError, JobHandlers, ResultItem, UnreadMessages};
pub use runner::{run_one, spawn_workers, WorkerConfig};
