//! Request and response bodies of the HTTP API, one module per resource
//! (mirroring `routes/`), and their translation into domain values
//! (`input`). Every request type denies unknown fields.

mod admin;
mod context;
mod entities;
mod input;
mod jobs;
mod memories;
mod sessions;

/// Integer fields of request bodies. JSON Schema, and so `openapi.yaml`,
/// counts `14.0` as the integer 14, so these accept a number with no
/// fractional part; `14.5`, a string, or a value beyond i64 is still refused.
pub(crate) mod whole {
    use serde::de::{Deserializer, Error};
    use serde::Deserialize;
    use serde_json::Number;

    pub fn required<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        let n = Number::deserialize(d)?;
        integer(&n).ok_or_else(|| D::Error::custom(format!("{n} is not a whole number")))
    }

    pub fn option<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
        Option::<Number>::deserialize(d)?
            .map(|n| {
                integer(&n).ok_or_else(|| D::Error::custom(format!("{n} is not a whole number")))
            })
            .transpose()
    }

    fn integer(n: &Number) -> Option<i64> {
        n.as_i64().or_else(|| {
            let f = n.as_f64()?;
            // i64::MAX as f64 rounds up to 2^63, so the bound is exclusive.
            (f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64).then_some(f as i64)
        })
    }
}

pub use admin::{
    AdminListQuery, AdminListResponse, AdminMemoryOut, AdminSearchRequest, AuditListResponse,
    AuditQueryParams, CallerOut, ConsolidateRequest, CreateKeyRequest, CreatedKeyOut, ErasureQuery,
    ErasureReceipt, KeyListResponse, KeyOut, RunsQuery, RunsResponse,
};
pub use context::{
    ContextRequest, ContextResponse, PatchProfileRequest, ProfileQuery, ProfileResponse,
    ProfileSummaryOut,
};
pub use entities::{EntitiesQuery, EntitiesResponse, EntityKindIn};
pub use input::{
    cursor, importance, messages, metadata, next_cursor, page_limit, stored_text, ValidMessage,
};
// Handlers take a scope from `Caller::scope` (binding.rs), which narrows it
// to a bound key's user first; only that goes to this directly.
pub(crate) use input::{scope, stored_scope};
pub use jobs::{JobListResponse, JobOut, JobsQuery};
pub(crate) use memories::{skipped_empty, skipped_orders};
pub use memories::{
    AddJobResponse, AddMemoriesRequest, AddMemoriesResponse, AddResult, BatchRequest,
    BatchResponse, BatchUpdate, DeleteScopeResponse, HistoryResponse, KindFilter, ListQuery,
    ListResponse, MemoryOut, MessageIn, PatchMemoryRequest, QueryTimeUse, ScopeQuery,
    SearchFilters, SearchHit, SearchRequest, SearchResponse, SkippedMessage, SourceIn, TimeRange,
};
pub use sessions::{
    AppendMessagesRequest, AppendMessagesResponse, ListTurnsQuery, ListTurnsResponse, SessionOut,
    SummaryOut, TurnOut,
};

pub use engram_core::extract::Role;
