//! One user's consolidation plan over many memories: every pair compared
//! against the hashed pairs, side by side in one run.
//!
//! `cargo run --release -p engram-core --example plan_bench [-- memories]`
//! (default 20,000: the review's case). Memories are 384-dimensional unit
//! vectors in groups of four near-identical ones (cosine about 0.97 within a
//! group), like MiniLM embeddings of the same fact said four ways.

use std::time::Instant;

use chrono::Utc;
use engram_core::consolidate::{plan, ConsolidationParams, MemoryView, Operation};
use engram_core::{MemoryKind, SourceType};
use uuid::Uuid;

fn unit(v: Vec<f32>) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / n).collect()
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let now = Utc::now();
    let mut seed = 42u64;
    let mut rnd = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
    };
    let mut memories = Vec::with_capacity(n);
    let mut center = Vec::new();
    for i in 0..n {
        if i % 4 == 0 {
            center = unit((0..384).map(|_| rnd()).collect());
        }
        let embedding = unit(center.iter().map(|c| c + 0.012 * rnd()).collect());
        memories.push(MemoryView {
            id: Uuid::now_v7(),
            kind: MemoryKind::Semantic,
            content: format!("fact {}", i / 4),
            subject: None,
            attribute: None,
            value: None,
            source_type: SourceType::UserStated,
            base_importance: 0.5,
            importance: 0.5,
            pinned: false,
            access_count: 0,
            created_at: now,
            last_used_at: Some(now),
            expires_at: None,
            deleted_at: None,
            archived_at: None,
            said: false,
            superseded_by: None,
            embedding,
        });
    }
    let merges = |ops: &[Operation]| {
        ops.iter()
            .filter_map(|o| match o {
                Operation::Merge { merged, .. } => Some(merged.len()),
                _ => None,
            })
            .sum::<usize>()
    };
    for (label, all_pairs_up_to) in [("every pair", usize::MAX), ("hashed pairs", 2_000)] {
        let params = ConsolidationParams {
            all_pairs_up_to,
            ..ConsolidationParams::defaults(now)
        };
        let started = Instant::now();
        let ops = plan(&memories, &params);
        println!(
            "{n} memories, {label}: {:.2} s, {} memories merged into others",
            started.elapsed().as_secs_f64(),
            merges(&ops)
        );
    }
}
