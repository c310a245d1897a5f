//! The body of `GET /v1/entities`.

use engram_store::{Entity, EntityKind};
use serde::{Deserialize, Serialize};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntitiesQuery {
    /// user | agent | session.
    #[serde(rename = "type")]
    pub kind: EntityKindIn,
    pub limit: Option<i64>,
    /// Only ids that start with this (literally).
    pub prefix: Option<String>,
    /// The last id of the previous page (`next_after`).
    pub after: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntityKindIn {
    User,
    Agent,
    Session,
}

impl From<EntityKindIn> for EntityKind {
    fn from(k: EntityKindIn) -> Self {
        match k {
            EntityKindIn::User => EntityKind::User,
            EntityKindIn::Agent => EntityKind::Agent,
            EntityKindIn::Session => EntityKind::Session,
        }
    }
}

#[derive(Debug, Serialize)]
pub struct EntitiesResponse {
    pub results: Vec<Entity>,
    /// Pass as `after` for the next page; `null` on the last.
    pub next_after: Option<String>,
}
