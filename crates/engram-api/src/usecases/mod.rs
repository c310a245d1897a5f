//! What the API does, apart from how requests arrive: the use-cases routes
//! call (and MCP, through the routes). Routes parse and check a request,
//! call one of these, and shape the answer; they never call each other.

pub(crate) mod context_block;
pub(crate) mod ingest;
pub(crate) mod jobs;
pub(crate) mod purge;
pub(crate) mod said;
pub(crate) mod search;
