//! The store alone against a real Postgres (a fresh database per test, made
//! by `#[sqlx::test]` from `DATABASE_URL`; `make test` sets it): the job
//! queue and an extraction's transaction, testable without the server or
//! the model.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod extraction;
mod queue;

use engram_core::extract::ExtractionRequest;
use engram_core::{Scope, DEFAULT_TENANT};
use engram_store::{NewJob, Store};
use sqlx::PgPool;
use uuid::Uuid;

/// The store over a migrated fresh database.
async fn store(pool: PgPool) -> Store {
    let store = Store::new(pool);
    store.migrate().await.expect("migrations apply");
    store
}

fn scope(user: &str) -> Scope {
    Scope {
        user_id: Some(user.into()),
        ..Default::default()
    }
}

/// An extraction job for one user message.
fn extraction(user: &str, text: &str) -> NewJob<ExtractionRequest> {
    NewJob::extraction(user, ExtractionRequest::user_said(text))
}

async fn enqueue(store: &Store, job: &NewJob<ExtractionRequest>) -> Uuid {
    let enqueued = store
        .enqueue_extraction(DEFAULT_TENANT, job, &[], None, "test")
        .await
        .expect("enqueues");
    assert!(enqueued.created);
    enqueued.job_id
}

/// A unit vector of MiniLM's size pointing along `axis`.
fn vector(axis: usize) -> Vec<f32> {
    let mut v = vec![0.0; 384];
    v[axis % 384] = 1.0;
    v
}
