#![warn(clippy::arithmetic_side_effects)]
//! Consolidation: what one user's nightly run should change, decided from
//! their memories alone (no I/O), so a dry run and a real run plan the same
//! thing and every change carries its reason.
//!
//! Order matters and is fixed: purge what is past keeping, resolve conflicts
//! among live facts, merge near-duplicates of what is left, then decay and
//! archive. Pinned memories never decay, merge away, archive or lose a
//! conflict.
//!
//! Conflicts the rules decide only weakly (two guesses, or two statements a
//! day apart or less) may be reviewed first by a [`ConflictReviewer`] (an
//! LLM); its verdicts go into the plan, keyed by the exact set of memories
//! reviewed, so a group that changed since is decided by the rules.

use std::collections::{BTreeMap, HashSet};

use async_trait::async_trait;
use chrono::{DateTime, Duration, Utc};
use serde::Serialize;
use uuid::Uuid;

use crate::{MemoryKind, SourceType};

/// One memory as consolidation sees it.
#[derive(Debug, Clone)]
pub struct MemoryView {
    pub id: Uuid,
    pub kind: MemoryKind,
    pub content: String,
    pub subject: Option<String>,
    pub attribute: Option<String>,
    pub value: Option<String>,
    pub source_type: SourceType,
    /// The importance as stated or set; decay works from it.
    pub base_importance: f32,
    pub importance: f32,
    pub pinned: bool,
    pub access_count: i64,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
    pub deleted_at: Option<DateTime<Utc>>,
    pub superseded_by: Option<Uuid>,
    pub archived_at: Option<DateTime<Utc>>,
    /// A piece of what was said (the episodic layer): a record of words
    /// said at a time, never merged with another nor decayed; it leaves
    /// when it expires (`ENGRAM_EPISODIC_RETENTION_DAYS`) or is deleted.
    pub said: bool,
    /// Unit-length embedding (MiniLM's are normalised).
    pub embedding: Vec<f32>,
}

impl MemoryView {
    fn live(&self, now: DateTime<Utc>) -> bool {
        self.deleted_at.is_none()
            && self.superseded_by.is_none()
            && self.archived_at.is_none()
            && self.expires_at.is_none_or(|e| e > now)
    }

    fn explicit(&self) -> bool {
        self.source_type != SourceType::Inferred
    }
}

#[derive(Debug, Clone, Copy)]
pub struct ConsolidationParams {
    /// Cosine at or above which two memories say the same thing.
    pub duplicate_threshold: f32,
    /// Days after which an unused memory's importance has halved.
    pub half_life_days: f64,
    /// Below this importance a memory is archived.
    pub archive_floor: f32,
    /// How long an expired memory is kept before it is purged.
    pub expired_grace: Duration,
    /// How long a soft-deleted memory is kept before it is purged.
    pub deleted_retention: Duration,
    /// Episodic memories merge only when created this close together: the
    /// same words weeks apart are two events ("a dentist appointment on
    /// Friday"), not one said twice.
    pub episodic_window: Duration,
    /// Up to this many live memories per user every pair is compared for
    /// near-duplicates; beyond it the pairs come from hashing
    /// (`near_duplicates`).
    pub all_pairs_up_to: usize,
    pub now: DateTime<Utc>,
}

impl ConsolidationParams {
    pub fn defaults(now: DateTime<Utc>) -> Self {
        Self {
            duplicate_threshold: 0.9,
            half_life_days: 90.0,
            archive_floor: 0.05,
            expired_grace: Duration::days(30),
            deleted_retention: Duration::days(30),
            episodic_window: Duration::days(1),
            all_pairs_up_to: ALL_PAIRS_UP_TO,
            now,
        }
    }
}

/// One planned change, with why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Operation {
    /// Hard-delete (embedding and history content too).
    Purge {
        id: Uuid,
        rule: &'static str,
        reason: String,
    },
    /// `loser` is superseded by `winner`.
    Resolve {
        winner: Uuid,
        loser: Uuid,
        rule: &'static str,
        reason: String,
    },
    /// `merged` point to `canonical`, which takes the most specific content,
    /// the highest importance and the summed access counts.
    Merge {
        canonical: Uuid,
        merged: Vec<Uuid>,
        content: String,
        /// The member whose wording (and so embedding) the canonical takes.
        content_from: Uuid,
        importance: f32,
        access_count: i64,
        reason: String,
    },
    /// Importance falls with time since last use.
    Decay { id: Uuid, from: f32, to: f32 },
    /// Out of default search, kept, restorable.
    Archive { id: Uuid, importance: f32 },
}

impl Operation {
    pub fn kind(&self) -> &'static str {
        match self {
            Operation::Purge { .. } => "purge",
            Operation::Resolve { .. } => "resolve",
            Operation::Merge { .. } => "merge",
            Operation::Decay { .. } => "decay",
            Operation::Archive { .. } => "archive",
        }
    }

    /// What a run's record keeps of the operation: its kind, the memories it
    /// touches, the rule that chose it and the importance it sets, never
    /// text (reasons quote values and content; records outlive memories).
    pub fn report(&self) -> OperationReport {
        let (memory_ids, rule, importance) = match self {
            Operation::Purge { id, rule, .. } => (vec![*id], *rule, None),
            Operation::Resolve {
                winner,
                loser,
                rule,
                ..
            } => (vec![*loser, *winner], *rule, None),
            Operation::Merge {
                canonical,
                merged,
                importance,
                ..
            } => (
                std::iter::once(*canonical)
                    .chain(merged.iter().copied())
                    .collect(),
                "near_duplicates",
                Some(*importance),
            ),
            Operation::Decay { id, to, .. } => (vec![*id], "unused", Some(*to)),
            Operation::Archive { id, importance } => (vec![*id], "below_floor", Some(*importance)),
        };
        OperationReport {
            op: self.kind(),
            memory_ids,
            rule,
            importance,
        }
    }
}

/// An operation as a run's record keeps it (`Operation::report`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OperationReport {
    pub op: &'static str,
    /// The memories it touches; for a resolve the loser first, for a merge
    /// the canonical first.
    pub memory_ids: Vec<Uuid>,
    pub rule: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub importance: Option<f32>,
}

/// Importance after `days` unused: an Ebbinghaus-style exponential
/// forgetting curve, halving every `half_life_days`.
pub fn decayed(base: f32, days: f64, half_life_days: f64) -> f32 {
    (base as f64 * 0.5f64.powf(days.max(0.0) / half_life_days)) as f32
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Memories past keeping: expired ones after the grace period (unless
/// pinned), deleted ones after the retention period.
fn purges(memories: &[MemoryView], p: &ConsolidationParams) -> Vec<Operation> {
    memories
        .iter()
        .filter_map(|m| {
            let (rule, reason) = match (m.deleted_at, m.expires_at) {
                (Some(d), _) if crate::time::add(d, p.deleted_retention) <= p.now => (
                    "deleted_past_retention",
                    format!(
                        "deleted on {}, past the retention period",
                        d.format("%Y-%m-%d")
                    ),
                ),
                (None, Some(e)) if !m.pinned && crate::time::add(e, p.expired_grace) <= p.now => (
                    "expired_past_grace",
                    format!("expired on {}, past the grace period", e.format("%Y-%m-%d")),
                ),
                _ => return None,
            };
            Some(Operation::Purge {
                id: m.id,
                rule,
                reason,
            })
        })
        .collect()
}

/// The purges, the ids they take, and the live memories left.
fn purge_first<'a>(
    memories: &'a [MemoryView],
    p: &ConsolidationParams,
) -> (Vec<Operation>, HashSet<Uuid>, Vec<&'a MemoryView>) {
    let ops = purges(memories, p);
    let gone: HashSet<Uuid> = ops
        .iter()
        .filter_map(|o| match o {
            Operation::Purge { id, .. } => Some(*id),
            _ => None,
        })
        .collect();
    let live = memories
        .iter()
        .filter(|m| m.live(p.now) && !gone.contains(&m.id))
        .collect();
    (ops, gone, live)
}

/// Live memories sharing a subject + attribute, two or more to a group.
fn conflict_groups<'a>(live: &[&'a MemoryView]) -> BTreeMap<(String, String), Vec<&'a MemoryView>> {
    let mut groups: BTreeMap<(String, String), Vec<&MemoryView>> = BTreeMap::new();
    for m in live {
        if let Some(a) = &m.attribute {
            let subject = m.subject.clone().unwrap_or_else(|| "user".into());
            groups.entry((subject, a.clone())).or_default().push(m);
        }
    }
    groups.retain(|_, g| g.len() > 1);
    groups
}

/// The rules' winner: pinned first, then the latest explicit statement,
/// then (with none) the latest inferred one.
fn rule_winner<'a>(group: &[&'a MemoryView]) -> Option<&'a MemoryView> {
    group
        .iter()
        .max_by_key(|m| (m.pinned, m.explicit(), m.created_at, m.id))
        .copied()
}

/// Whether the rules' choice is weak: nothing pinned, and the winner's
/// strongest rival with another value is, like it, a guess, or an explicit
/// statement made within a day of it.
fn ambiguous(group: &[&MemoryView]) -> bool {
    if group.iter().any(|m| m.pinned) {
        return false;
    }
    let Some(winner) = rule_winner(group) else {
        return false;
    };
    let rival = group
        .iter()
        .filter(|m| m.value.is_none() || m.value != winner.value)
        .filter(|m| m.id != winner.id)
        .max_by_key(|m| (m.explicit(), m.created_at, m.id));
    match rival {
        None => false,
        Some(r) if !winner.explicit() => !r.explicit(),
        Some(r) => {
            r.explicit()
                && winner.created_at.signed_duration_since(r.created_at) <= Duration::days(1)
        }
    }
}

/// The key a review is filed under: the memories' ids, sorted.
fn sorted_ids(ids: impl Iterator<Item = Uuid>) -> Vec<Uuid> {
    let mut ids: Vec<Uuid> = ids.collect();
    ids.sort();
    ids
}

/// One statement of a conflict, as a reviewer sees it.
#[derive(Debug, Clone, Serialize)]
pub struct Statement {
    pub id: Uuid,
    pub content: String,
    pub value: Option<String>,
    /// Said or set by the user (not inferred).
    pub explicit: bool,
    pub said_at: DateTime<Utc>,
}

/// Live memories giving different values for one subject + attribute, where
/// the rules' choice is weak.
#[derive(Debug, Clone, Serialize)]
pub struct ConflictGroup {
    pub subject: String,
    pub attribute: String,
    /// Oldest first.
    pub statements: Vec<Statement>,
}

impl ConflictGroup {
    /// The key its review is filed under: the memories' ids, sorted.
    pub fn key(&self) -> Vec<Uuid> {
        sorted_ids(self.statements.iter().map(|s| s.id))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// This memory holds now; the others are superseded by it.
    Current(Uuid),
    /// No conflict: every statement still holds (leave them all live).
    AllHold,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    pub verdict: Verdict,
    pub reason: String,
}

/// Reviews by [`ConflictGroup::key`].
pub type Reviews = BTreeMap<Vec<Uuid>, Review>;

#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("the reviewer failed: {0}")]
    Service(String),
    #[error("the reviewer's answer is unusable: {0}")]
    Invalid(String),
}

/// Decides weak conflicts (an LLM); the rules decide whatever it does not.
#[async_trait]
pub trait ConflictReviewer: Send + Sync {
    /// Recorded in the reason: the model.
    fn id(&self) -> &str;
    async fn review(&self, group: &ConflictGroup) -> Result<Review, ReviewError>;
}

impl std::fmt::Debug for dyn ConflictReviewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ConflictReviewer({})", self.id())
    }
}

/// The conflicts among one user's memories that the rules decide weakly,
/// as the plan would meet them (after purging).
pub fn ambiguous_conflicts(memories: &[MemoryView], p: &ConsolidationParams) -> Vec<ConflictGroup> {
    let (_, _, live) = purge_first(memories, p);
    conflict_groups(&live)
        .into_iter()
        .filter(|(_, g)| ambiguous(g))
        .map(|((subject, attribute), mut g)| {
            g.sort_by_key(|m| (m.created_at, m.id));
            ConflictGroup {
                subject,
                attribute,
                statements: g
                    .iter()
                    .map(|m| Statement {
                        id: m.id,
                        content: m.content.clone(),
                        value: m.value.clone(),
                        explicit: m.explicit(),
                        said_at: m.created_at,
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The plan for one user's memories, by the rules alone.
pub fn plan(memories: &[MemoryView], p: &ConsolidationParams) -> Vec<Operation> {
    plan_reviewed(memories, p, &Reviews::new())
}

/// The plan for one user's memories, taking `reviews` for the conflicts
/// they cover unchanged.
pub fn plan_reviewed(
    memories: &[MemoryView],
    p: &ConsolidationParams,
    reviews: &Reviews,
) -> Vec<Operation> {
    // 1. Purge what is past keeping.
    let (mut ops, mut gone, live) = purge_first(memories, p);

    // 2. Conflicts: one current value per subject + attribute. The latest
    // explicit statement wins over older ones and over inferred ones; with
    // no explicit statement the latest inferred one wins. Pinned memories
    // are never superseded here. A review overrides the rules for the group
    // it saw.
    for ((_, attribute), group) in conflict_groups(&live) {
        let review = reviews.get(&sorted_ids(group.iter().map(|m| m.id)));
        let reviewed = match review {
            Some(Review {
                verdict: Verdict::AllHold,
                ..
            }) => continue,
            Some(Review {
                verdict: Verdict::Current(id),
                reason,
            }) => group
                .iter()
                .find(|m| m.id == *id)
                .map(|w| (*w, reason.as_str())),
            None => None,
        };
        let Some((winner, reviewed)) = reviewed
            .map(|(w, r)| (w, Some(r)))
            .or_else(|| rule_winner(&group).map(|w| (w, None)))
        else {
            continue;
        };
        for m in &group {
            if m.id == winner.id || m.pinned {
                continue;
            }
            let same = m.value.is_some() && m.value == winner.value;
            let (rule, why) = if same {
                ("same_value", "the same value stated again".to_owned())
            } else if let Some(reason) = reviewed {
                ("reviewed", format!("reviewed: {reason}"))
            } else if !m.explicit() && winner.explicit() {
                (
                    "explicit_over_inferred",
                    "an inferred value gives way to an explicit statement".to_owned(),
                )
            } else {
                (
                    "more_recent",
                    "a more recent statement replaces it".to_owned(),
                )
            };
            ops.push(Operation::Resolve {
                winner: winner.id,
                loser: m.id,
                rule,
                reason: format!(
                    "{attribute}: {} → {} ({why})",
                    m.value.as_deref().unwrap_or(&m.content),
                    winner.value.as_deref().unwrap_or(&winner.content)
                ),
            });
            gone.insert(m.id);
        }
    }

    // 3. Near-duplicates among what is left: clusters grow from the most
    // important (pinned first) memory through every memory within the
    // threshold of one already in (single linkage: "likes coffee" and
    // "LIKES COFFEE..." meet through "Likes coffee."), keeping to the same
    // subject + attribute when both know theirs.
    let mut rest: Vec<&MemoryView> = live
        .into_iter()
        .filter(|m| !gone.contains(&m.id) && !m.said)
        .collect();
    rest.sort_by(|a, b| {
        (b.pinned, b.importance, b.created_at, b.id)
            .partial_cmp(&(a.pinned, a.importance, a.created_at, a.id))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let near = near_duplicates(
        &rest,
        p.duplicate_threshold,
        p.all_pairs_up_to,
        seed_of(p.now),
    );
    let mut clustered: HashSet<Uuid> = HashSet::new();
    for (i, head) in rest.iter().enumerate() {
        if clustered.contains(&head.id) {
            continue;
        }
        let mut joined: Vec<usize> = Vec::new();
        let mut seen: HashSet<usize> = HashSet::new();
        let mut frontier: Vec<usize> = vec![i];
        while let Some(seed) = frontier.pop() {
            for &j in &near[seed] {
                let m = rest[j];
                if j <= i
                    || clustered.contains(&m.id)
                    || m.pinned
                    || seen.contains(&j)
                    || !compatible(head, m, p)
                {
                    continue;
                }
                seen.insert(j);
                joined.push(j);
                frontier.push(j);
            }
        }
        // In the order the memories rank.
        joined.sort_unstable();
        let members: Vec<&MemoryView> = joined.iter().map(|&j| rest[j]).collect();
        if members.is_empty() {
            continue;
        }
        clustered.insert(head.id);
        let all: Vec<&MemoryView> = std::iter::once(*head)
            .chain(members.iter().copied())
            .collect();
        // The most specific wording: the longest.
        let wording = all
            .iter()
            .max_by_key(|m| (m.content.chars().count(), m.created_at))
            .copied()
            .unwrap_or(*head);
        let importance = all.iter().map(|m| m.importance).fold(0.0, f32::max);
        let access_count = all.iter().map(|m| m.access_count).sum();
        for m in &members {
            clustered.insert(m.id);
            gone.insert(m.id);
        }
        ops.push(Operation::Merge {
            canonical: head.id,
            merged: members.iter().map(|m| m.id).collect(),
            content: wording.content.clone(),
            content_from: wording.id,
            importance,
            access_count,
            reason: format!(
                "{} near-identical memories (cosine ≥ {})",
                all.len(),
                p.duplicate_threshold
            ),
        });
    }

    // 4. Decay from the stated importance since last use; archive below
    // the floor. Merge canonicals are fresh: they were just consolidated.
    let merged_into: HashSet<Uuid> = ops
        .iter()
        .filter_map(|o| match o {
            Operation::Merge { canonical, .. } => Some(*canonical),
            _ => None,
        })
        .collect();
    for m in rest {
        if gone.contains(&m.id) || m.pinned || merged_into.contains(&m.id) {
            continue;
        }
        let since = m.last_used_at.unwrap_or(m.created_at);
        let days = crate::time::days_between(p.now, since);
        let to = decayed(m.base_importance, days, p.half_life_days);
        if to < p.archive_floor {
            ops.push(Operation::Archive {
                id: m.id,
                importance: to,
            });
        } else if (to - m.importance).abs() >= 0.005 {
            ops.push(Operation::Decay {
                id: m.id,
                from: m.importance,
                to,
            });
        }
    }
    ops
}

/// Up to this many memories every pair is compared by default; beyond it the pairs
/// come from locality-sensitive hashing, so a user's run stays near-linear
/// (20,000 memories: 9 s all pairs, docs/CONSOLIDATION.md).
const ALL_PAIRS_UP_TO: usize = 2_000;
/// Random-hyperplane hashing (SimHash): `BANDS` tables of `BITS` sign bits
/// each. Two memories at cosine c share one band's bits with probability
/// (1 - acos(c)/π)^BITS, so at the 0.9 threshold some band matches with
/// probability ≈ 0.975 (0.9996 at 0.95) while unrelated memories (cosine
/// 0.2) share a band about 1% of the time. The hyperplanes change every day
/// (the seed is the run's date), so a pair missed one night is found on a
/// later one with the same odds.
const BANDS: usize = 30;
const BITS: usize = 14;
/// In a bucket larger than this (many memories hashed alike: near-identical
/// texts), each member is compared with the next `BUCKET_WINDOW` only; as
/// they are alike, single linkage still reaches them all.
const BUCKET_WINDOW: usize = 256;

/// The day of `now`, as the hashing's seed.
fn seed_of(now: DateTime<Utc>) -> u64 {
    now.timestamp().div_euclid(86_400) as u64
}

/// For each memory of `rest`, the others at cosine ≥ `threshold` (indices).
fn near_duplicates(
    rest: &[&MemoryView],
    threshold: f32,
    all_pairs_up_to: usize,
    seed: u64,
) -> Vec<Vec<usize>> {
    let n = rest.len();
    let mut near = vec![Vec::new(); n];
    let link = |a: usize, b: usize, near: &mut Vec<Vec<usize>>| {
        if cosine(&rest[a].embedding, &rest[b].embedding) >= threshold {
            near[a].push(b);
            near[b].push(a);
        }
    };
    if n <= all_pairs_up_to {
        for a in 0..n {
            for b in a.saturating_add(1)..n {
                link(a, b, &mut near);
            }
        }
        return near;
    }
    let dims = rest.iter().map(|m| m.embedding.len()).max().unwrap_or(0);
    let planes = hyperplanes(BANDS.saturating_mul(BITS), dims, seed);
    let mut buckets: std::collections::HashMap<(usize, u32), Vec<usize>> =
        std::collections::HashMap::new();
    for (i, m) in rest.iter().enumerate() {
        for band in 0..BANDS {
            let mut sig = 0u32;
            for bit in 0..BITS {
                let plane = &planes[band.saturating_mul(BITS).saturating_add(bit)];
                let dot: f32 = plane.iter().zip(&m.embedding).map(|(x, y)| x * y).sum();
                sig = (sig << 1) | u32::from(dot >= 0.0);
            }
            buckets.entry((band, sig)).or_default().push(i);
        }
    }
    let mut pairs: HashSet<(usize, usize)> = HashSet::new();
    for members in buckets.values() {
        for (k, &a) in members.iter().enumerate() {
            for &b in members.iter().skip(k.saturating_add(1)).take(BUCKET_WINDOW) {
                pairs.insert((a.min(b), a.max(b)));
            }
        }
    }
    let mut pairs: Vec<(usize, usize)> = pairs.into_iter().collect();
    pairs.sort_unstable();
    for (a, b) in pairs {
        link(a, b, &mut near);
    }
    near
}

/// `count` random directions in `dims` dimensions (Gaussian coordinates, so
/// every direction is as likely), the same for the same seed.
fn hyperplanes(count: usize, dims: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        // splitmix64
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let mut uniform = move || ((next() >> 11) as f64 + 0.5) / (1u64 << 53) as f64;
    (0..count)
        .map(|_| {
            (0..dims)
                .map(|_| {
                    // Box-Muller: one normal deviate from two uniforms.
                    let (u, v) = (uniform(), uniform());
                    ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
                })
                .collect()
        })
        .collect()
}

/// Of one kind; episodes only within the episodic window of each other;
/// same subject + attribute when both know theirs.
fn compatible(a: &MemoryView, b: &MemoryView, p: &ConsolidationParams) -> bool {
    if a.kind != b.kind {
        return false;
    }
    if a.kind == MemoryKind::Episodic
        && a.created_at.signed_duration_since(b.created_at).abs() > p.episodic_window
    {
        return false;
    }
    match (&a.attribute, &b.attribute) {
        (Some(x), Some(y)) => x == y && a.subject == b.subject,
        _ => true,
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(y: i32, m: u32, d: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, 12, 0, 0).unwrap()
    }

    fn unit(seed: u32) -> Vec<f32> {
        let mut v: Vec<f32> = (0..8)
            .map(|i| ((seed * 7 + i * 13) % 11) as f32 + 1.0)
            .collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= n);
        v
    }

    fn memory(content: &str, created: DateTime<Utc>) -> MemoryView {
        MemoryView {
            id: Uuid::now_v7(),
            kind: MemoryKind::Semantic,
            content: content.into(),
            subject: None,
            attribute: None,
            value: None,
            source_type: SourceType::UserStated,
            base_importance: 0.5,
            importance: 0.5,
            pinned: false,
            access_count: 0,
            created_at: created,
            last_used_at: Some(created),
            expires_at: None,
            deleted_at: None,
            archived_at: None,
            superseded_by: None,
            said: false,
            embedding: unit(1),
        }
    }

    fn count(ops: &[Operation], kind: &str) -> usize {
        ops.iter().filter(|o| o.kind() == kind).count()
    }

    /// A unit vector near `center` (cosine ≈ 0.97), deterministic in `k`.
    fn near(center: &[f32], k: usize) -> Vec<f32> {
        let planes = hyperplanes(1, center.len(), k as u64 + 1_000_000);
        let mut v: Vec<f32> = center
            .iter()
            .zip(&planes[0])
            .map(|(c, e)| c + 0.03 * e)
            .collect();
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter_mut().for_each(|x| *x /= n);
        v
    }

    #[test]
    fn hashing_finds_the_near_duplicates_all_pairs_would() {
        // 100 groups of 22 near-identical memories (above ALL_PAIRS_UP_TO),
        // in 64 dimensions, the groups far apart.
        let now = at(2026, 6, 1);
        let centers = hyperplanes(100, 64, 7)
            .into_iter()
            .map(|mut c| {
                let n = c.iter().map(|x| x * x).sum::<f32>().sqrt();
                c.iter_mut().for_each(|x| *x /= n);
                c
            })
            .collect::<Vec<_>>();
        let ms: Vec<MemoryView> = (0..2200)
            .map(|i| {
                let mut m = memory(&format!("fact {}", i % 100), now);
                m.embedding = near(&centers[i % 100], i);
                m
            })
            .collect();
        assert!(ms.len() > ALL_PAIRS_UP_TO);
        let refs: Vec<&MemoryView> = ms.iter().collect();
        let mut exact = 0usize;
        let mut found = 0usize;
        let hashed = near_duplicates(&refs, 0.9, ALL_PAIRS_UP_TO, 1);
        for a in 0..refs.len() {
            for b in a + 1..refs.len() {
                if cosine(&refs[a].embedding, &refs[b].embedding) >= 0.9 {
                    exact += 1;
                    found += usize::from(hashed[a].contains(&b));
                }
            }
        }
        assert!(exact > 20_000, "{exact}");
        let recall = found as f64 / exact as f64;
        assert!(recall > 0.97, "pair recall {recall}");
        // Single linkage makes up for the pairs missed: every group is one.
        let ops = plan(&ms, &ConsolidationParams::defaults(now));
        let merges: Vec<usize> = ops
            .iter()
            .filter_map(|o| match o {
                Operation::Merge { merged, .. } => Some(merged.len()),
                _ => None,
            })
            .collect();
        assert_eq!(merges, vec![21; 100]);
    }

    #[test]
    fn fifty_near_identical_memories_become_one() {
        let now = at(2026, 6, 1);
        let mut ms: Vec<MemoryView> = (0..50)
            .map(|i| {
                let mut m = memory(
                    if i == 7 {
                        "Likes coffee, especially flat whites"
                    } else {
                        "likes coffee"
                    },
                    now,
                );
                m.access_count = 1;
                m.importance = if i == 3 { 0.9 } else { 0.5 };
                m.embedding = unit(1);
                m.embedding[0] += 0.001 * i as f32; // near, not equal
                m
            })
            .collect();
        ms.push({
            let mut m = memory("lives in Leeds", now);
            m.embedding = unit(4);
            m
        });
        let ops = plan(&ms, &ConsolidationParams::defaults(now));
        assert_eq!(count(&ops, "merge"), 1, "{ops:?}");
        let Some(Operation::Merge {
            merged,
            content,
            importance,
            access_count,
            canonical,
            ..
        }) = ops.iter().find(|o| o.kind() == "merge")
        else {
            unreachable!()
        };
        assert_eq!(merged.len(), 49);
        assert_eq!(*canonical, ms[3].id, "the most important one stays");
        assert_eq!(
            content, "Likes coffee, especially flat whites",
            "the most specific wording"
        );
        assert_eq!((*importance, *access_count), (0.9, 50));
        assert!(!merged.contains(&ms[50].id), "Leeds is not coffee");
    }

    /// The same episode said twice in a day is one; the same words a month
    /// apart are two events; an episode never merges into a fact.
    #[test]
    fn episodes_merge_only_within_their_window_and_kind() {
        let now = at(2026, 6, 1);
        let episode = |created: DateTime<Utc>| {
            let mut m = memory("Dentist appointment on Friday", created);
            m.kind = MemoryKind::Episodic;
            m
        };
        let morning = episode(at(2026, 5, 4));
        let evening = episode(at(2026, 5, 4) + Duration::hours(9));
        let month_later = episode(at(2026, 5, 4) + Duration::days(28));
        let fact = memory("Dentist appointment on Friday", at(2026, 5, 4));
        let p = ConsolidationParams::defaults(now);
        let ops = plan(
            &[
                morning.clone(),
                evening.clone(),
                month_later.clone(),
                fact.clone(),
            ],
            &p,
        );
        let merges: Vec<(Uuid, Vec<Uuid>)> = ops
            .iter()
            .filter_map(|o| match o {
                Operation::Merge {
                    canonical, merged, ..
                } => Some((*canonical, merged.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(merges.len(), 1, "{ops:?}");
        let mut pair = vec![merges[0].0, merges[0].1[0]];
        pair.sort();
        let mut same_day = vec![morning.id, evening.id];
        same_day.sort();
        assert_eq!(pair, same_day);
        // A wider window takes the later one in too.
        let wide = ConsolidationParams {
            episodic_window: Duration::days(30),
            ..p
        };
        let ops = plan(&[morning, evening, month_later, fact], &wide);
        assert_eq!(count(&ops, "merge"), 1);
        let Some(Operation::Merge { merged, .. }) = ops.iter().find(|o| o.kind() == "merge") else {
            unreachable!()
        };
        assert_eq!(merged.len(), 2, "three episodes, the fact apart: {ops:?}");
    }

    fn drink(value: &str, created: DateTime<Utc>, source: SourceType) -> MemoryView {
        let mut m = memory(&format!("prefers {value}"), created);
        m.subject = Some("user".into());
        m.attribute = Some("preference.drink".into());
        m.value = Some(value.into());
        m.source_type = source;
        m.embedding = unit(value.len() as u32 + 3);
        m
    }

    #[test]
    fn only_weak_conflicts_are_ambiguous() {
        let now = at(2026, 7, 1);
        let p = ConsolidationParams::defaults(now);
        let stated = SourceType::UserStated;
        let inferred = SourceType::Inferred;
        let morning = Utc.with_ymd_and_hms(2026, 6, 1, 9, 0, 0).unwrap();
        let evening = Utc.with_ymd_and_hms(2026, 6, 1, 18, 0, 0).unwrap();
        let cases = [
            (
                "two statements the same day",
                stated,
                morning,
                stated,
                evening,
                true,
            ),
            (
                "two statements weeks apart",
                stated,
                at(2026, 5, 1),
                stated,
                evening,
                false,
            ),
            (
                "two guesses",
                inferred,
                at(2026, 1, 1),
                inferred,
                evening,
                true,
            ),
            (
                "a statement and a later guess",
                stated,
                morning,
                inferred,
                evening,
                false,
            ),
        ];
        for (label, first, t1, second, t2, expected) in cases {
            let ms = [drink("tea", t1, first), drink("coffee", t2, second)];
            let groups = ambiguous_conflicts(&ms, &p);
            assert_eq!(groups.len() == 1, expected, "{label}: {groups:?}");
        }
        // The same value twice is no conflict at all.
        let ms = [drink("tea", morning, stated), drink("tea", evening, stated)];
        assert!(ambiguous_conflicts(&ms, &p).is_empty());
        // Pinned values are never reviewed.
        let mut ms = [
            drink("tea", morning, stated),
            drink("coffee", evening, stated),
        ];
        ms[0].pinned = true;
        assert!(ambiguous_conflicts(&ms, &p).is_empty());
    }

    #[test]
    fn a_review_decides_the_group_it_saw_and_only_that() {
        let now = at(2026, 7, 1);
        let p = ConsolidationParams::defaults(now);
        let morning = Utc.with_ymd_and_hms(2026, 6, 1, 9, 0, 0).unwrap();
        let evening = Utc.with_ymd_and_hms(2026, 6, 1, 18, 0, 0).unwrap();
        let ms = vec![
            drink("tea", morning, SourceType::UserStated),
            drink("coffee", evening, SourceType::UserStated),
        ];
        let group = &ambiguous_conflicts(&ms, &p)[0];
        assert_eq!(group.statements[0].id, ms[0].id, "oldest first");
        let resolve = |reviews: &Reviews| -> Vec<(Uuid, Uuid, String)> {
            plan_reviewed(&ms, &p, reviews)
                .into_iter()
                .filter_map(|o| match o {
                    Operation::Resolve {
                        winner,
                        loser,
                        reason,
                        ..
                    } => Some((winner, loser, reason)),
                    _ => None,
                })
                .collect()
        };
        // Rules: the later statement wins.
        assert_eq!(resolve(&Reviews::new())[0].0, ms[1].id);
        // The reviewer says the morning's still holds.
        let current = Reviews::from([(
            group.key(),
            Review {
                verdict: Verdict::Current(ms[0].id),
                reason: "coffee was only for that afternoon".into(),
            },
        )]);
        let r = resolve(&current);
        assert_eq!((r[0].0, r[0].1), (ms[0].id, ms[1].id));
        assert!(r[0].2.contains("reviewed: coffee was only"), "{}", r[0].2);
        // Both hold: nothing is superseded.
        let both = Reviews::from([(
            group.key(),
            Review {
                verdict: Verdict::AllHold,
                reason: "both".into(),
            },
        )]);
        assert!(resolve(&both).is_empty());
        // A review of another set of memories (the group changed) is ignored.
        let stale = Reviews::from([(
            vec![ms[0].id],
            Review {
                verdict: Verdict::AllHold,
                reason: "stale".into(),
            },
        )]);
        assert_eq!(resolve(&stale)[0].0, ms[1].id);
    }

    #[test]
    fn the_latest_explicit_statement_wins_a_conflict() {
        let now = at(2026, 7, 1);
        let fact = |content: &str, value: &str, created, source| {
            let mut m = memory(content, created);
            m.subject = Some("user".into());
            m.attribute = Some("preference.database".into());
            m.value = Some(value.into());
            m.source_type = source;
            m.embedding = unit(value.len() as u32);
            m
        };
        let mut january = fact(
            "prefers PostgreSQL",
            "PostgreSQL",
            at(2026, 1, 10),
            SourceType::UserStated,
        );
        january.access_count = 3;
        let february = fact(
            "mentioned liking PostgreSQL",
            "PostgreSQL",
            at(2026, 2, 10),
            SourceType::Inferred,
        );
        let june = fact(
            "switched to MongoDB for the new project",
            "MongoDB",
            at(2026, 6, 10),
            SourceType::UserStated,
        );
        let ops = plan(
            &[january.clone(), february.clone(), june.clone()],
            &ConsolidationParams::defaults(now),
        );
        let resolved: Vec<(Uuid, Uuid, String)> = ops
            .iter()
            .filter_map(|o| match o {
                Operation::Resolve {
                    winner,
                    loser,
                    reason,
                    ..
                } => Some((*winner, *loser, reason.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(resolved.len(), 2, "{ops:?}");
        assert!(resolved.iter().all(|(w, _, _)| *w == june.id));
        let why_feb = &resolved
            .iter()
            .find(|(_, l, _)| *l == february.id)
            .unwrap()
            .2;
        assert!(why_feb.contains("inferred"), "{why_feb}");
        let why_jan = &resolved
            .iter()
            .find(|(_, l, _)| *l == january.id)
            .unwrap()
            .2;
        assert!(why_jan.contains("PostgreSQL → MongoDB"), "{why_jan}");
        // An inferred value never beats an explicit one, however recent.
        let mut late = fact(
            "seems to like Oracle",
            "Oracle",
            at(2026, 6, 20),
            SourceType::Inferred,
        );
        late.embedding = unit(9);
        let ops = plan(
            &[june.clone(), late.clone()],
            &ConsolidationParams::defaults(now),
        );
        assert!(ops.contains(&Operation::Resolve {
            winner: june.id,
            loser: late.id,
            rule: "explicit_over_inferred",
            reason: "preference.database: Oracle → MongoDB (an inferred value gives way to an explicit statement)".into()
        }), "{ops:?}");
    }

    #[test]
    fn a_pinned_year_old_memory_survives_untouched() {
        let now = at(2026, 6, 1);
        let mut pinned = memory("allergic to penicillin", at(2025, 5, 1));
        pinned.pinned = true;
        pinned.expires_at = Some(at(2025, 6, 1));
        let mut twin = memory("allergic to penicillin!", at(2026, 5, 1));
        twin.embedding = pinned.embedding.clone();
        let ops = plan(
            &[pinned.clone(), twin.clone()],
            &ConsolidationParams::defaults(now),
        );
        for o in &ops {
            match o {
                Operation::Merge {
                    canonical, merged, ..
                } => {
                    assert_eq!(*canonical, pinned.id);
                    assert!(!merged.contains(&pinned.id));
                }
                Operation::Purge { id, .. }
                | Operation::Decay { id, .. }
                | Operation::Archive { id, .. } => {
                    assert_ne!(*id, pinned.id, "{ops:?}")
                }
                Operation::Resolve { loser, .. } => assert_ne!(*loser, pinned.id),
            }
        }
    }

    #[test]
    fn pieces_of_what_was_said_are_never_merged_or_decayed() {
        let now = at(2026, 6, 1);
        let mut said = memory("I walk the dog at seven.", at(2025, 1, 1));
        said.kind = MemoryKind::Episodic;
        said.said = true;
        said.last_used_at = None;
        let mut again = said.clone();
        again.id = Uuid::now_v7();
        again.content = "I walk the dog at seven!".into();
        again.created_at = at(2025, 1, 1);
        let ops = plan(&[said, again], &ConsolidationParams::defaults(now));
        assert!(ops.is_empty(), "{ops:?}");
    }

    #[test]
    fn unused_memories_decay_and_archive_and_use_resets_the_clock() {
        let now = at(2026, 6, 1);
        let mut stale = memory("liked a TV show in 2024", at(2024, 6, 1));
        stale.last_used_at = Some(at(2024, 6, 1));
        stale.embedding = unit(2);
        let mut used = memory("plays the cello", at(2024, 6, 1));
        used.last_used_at = Some(at(2026, 5, 31));
        used.embedding = unit(3);
        let mut fading = memory("visited Rome", at(2026, 3, 3));
        fading.embedding = unit(5);
        let ops = plan(
            &[stale.clone(), used.clone(), fading.clone()],
            &ConsolidationParams::defaults(now),
        );
        assert!(
            ops.iter()
                .any(|o| matches!(o, Operation::Archive { id, .. } if *id == stale.id)),
            "{ops:?}"
        );
        assert!(!ops.iter().any(|o| matches!(o, Operation::Decay { id, .. } | Operation::Archive { id, .. } if *id == used.id)), "{ops:?}");
        let to = ops
            .iter()
            .find_map(|o| match o {
                Operation::Decay { id, to, .. } if *id == fading.id => Some(*to),
                _ => None,
            })
            .unwrap();
        assert!((to - 0.25).abs() < 0.01, "90 days: half of 0.5, got {to}");
        assert!((decayed(0.8, 180.0, 90.0) - 0.2).abs() < 1e-6);
    }

    #[test]
    fn expired_and_deleted_memories_are_purged_after_their_grace() {
        let now = at(2026, 6, 1);
        let mut expired = memory("in Lisbon until Friday", at(2026, 4, 1));
        expired.expires_at = Some(at(2026, 4, 3));
        let mut recent = memory("in Rome this week", at(2026, 5, 28));
        recent.expires_at = Some(at(2026, 5, 30));
        let mut deleted = memory("old phone number", at(2026, 1, 1));
        deleted.deleted_at = Some(at(2026, 2, 1));
        let ops = plan(
            &[expired.clone(), recent.clone(), deleted.clone()],
            &ConsolidationParams::defaults(now),
        );
        let purged: Vec<Uuid> = ops
            .iter()
            .filter_map(|o| match o {
                Operation::Purge { id, .. } => Some(*id),
                _ => None,
            })
            .collect();
        assert_eq!(purged, [expired.id, deleted.id], "{ops:?}");
    }
}
