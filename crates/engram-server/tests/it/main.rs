//! Engram's integration tests, one binary with a module per area: each
//! test starts the real server on a loopback port over a fresh database
//! (`#[sqlx::test]`), with the real MiniLM model (loaded once for all of
//! them) and scripted LLM mocks. One binary links candle and the server
//! once instead of twenty times (docs/TESTING.md). `tests/metrics.rs` is a
//! binary of its own: the metrics recorder is process-wide.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "../common/mod.rs"]
mod common;

#[path = "../../../engram-core/tests/corpus/mod.rs"]
mod corpus;

mod adversarial;
mod architecture;
mod bad_input;
mod bound_keys;
mod configuration;
mod console;
mod consolidation;
mod deploy;
mod embedders;
mod extraction;
mod extraction_llm;
mod faults;
mod forgetting;
mod gdpr;
mod languages;
mod mem0;
mod memories;
mod multi_instance;
mod openapi;
mod operations;
mod said;
mod security;
mod sessions;
mod startup;
mod statements;
mod tenancy;
mod write_policy;
