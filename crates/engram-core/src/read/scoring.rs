#![warn(clippy::arithmetic_side_effects)]
//! How a search result's score is made: relevance, recency and importance,
//! blended with weights. The store narrows and gates by cosine; this ranks.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::Memory;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchWeights {
    pub relevance: f32,
    pub recency: f32,
    pub importance: f32,
}

impl Default for SearchWeights {
    fn default() -> Self {
        Self {
            relevance: 0.6,
            recency: 0.2,
            importance: 0.2,
        }
    }
}

/// Every component of a score, so a client can see why a memory ranked.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScoreBreakdown {
    /// How well the memory answers the query, 0..=1: the cosine in dense
    /// mode, the normalised BM25 in lexical mode, their fusion in hybrid.
    pub relevance: f32,
    /// Cosine similarity between query and memory.
    pub dense: f32,
    /// BM25 of the query's terms in the memory, normalised by the best
    /// candidate's (0..=1); `None` in dense mode.
    pub lexical: Option<f32>,
    /// How close the memory's date is to the period the query names (1
    /// inside it, fading to 0 one period away); `None` when it names none.
    pub time: Option<f32>,
    /// Hybrid only, the evidence around the memory that relevance includes
    /// (crate::evidence), each 0..=1; `None` in dense and lexical modes:
    /// the best match among the memories stored just before and after it,
    pub neighbours: Option<f32>,
    /// the best match in its session,
    pub session: Option<f32>,
    /// and the share of the query's names it mentions.
    pub names: Option<f32>,
    /// exp(-λ·age_days), λ = ln 2 / half-life.
    pub recency: f32,
    pub importance: f32,
}

/// score = w_rel·cosine + w_rec·exp(−λ·age_days) + w_imp·importance.
/// Negative ages (clock skew, future `created_at`) count as zero.
pub fn blend(
    relevance: Relevance,
    age_days: f64,
    importance: f32,
    weights: SearchWeights,
    half_life_days: f64,
) -> (f32, ScoreBreakdown) {
    let lambda = std::f64::consts::LN_2 / half_life_days;
    let recency = (-lambda * age_days.max(0.0)).exp() as f32;
    let parts = ScoreBreakdown {
        relevance: relevance.relevance,
        dense: relevance.dense,
        lexical: relevance.lexical,
        time: relevance.time,
        neighbours: relevance.evidence.map(|e| e.neighbours),
        session: relevance.evidence.map(|e| e.session),
        names: relevance.evidence.map(|e| e.names),
        recency,
        importance,
    };
    let score = weights.relevance * relevance.relevance
        + weights.recency * recency
        + weights.importance * importance;
    (score, parts)
}

/// A candidate's match to the query, from `crate::hybrid::fuse`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Relevance {
    pub relevance: f32,
    pub dense: f32,
    pub lexical: Option<f32>,
    pub time: Option<f32>,
    pub evidence: Option<crate::evidence::Evidence>,
}

impl Relevance {
    /// Mixes in how close the memory is to the period the query names:
    /// `weight` of relevance becomes that closeness. A match in words and
    /// meaning still counts most; the date decides between near equals.
    pub fn with_time(self, closeness: f32, weight: f32) -> Self {
        Self {
            relevance: (1.0 - weight) * self.relevance + weight * closeness,
            time: Some(closeness),
            ..self
        }
    }

    /// The relevance gate drops what matches the query neither in meaning
    /// (cosine below the gate) nor in words (no query term at all): a rare
    /// name found verbatim is relevant however far its embedding is.
    pub fn passes_gate(&self, min_relevance: f32) -> bool {
        self.dense >= min_relevance || self.lexical.is_some_and(|l| l > 0.0)
    }

    /// Dense only: relevance is the cosine.
    pub fn dense(cosine: f32) -> Self {
        Self {
            relevance: cosine,
            dense: cosine,
            lexical: None,
            time: None,
            evidence: None,
        }
    }
}

/// How to turn similarity candidates into a ranked result list.
#[derive(Debug, Clone, Copy)]
pub struct RankParams {
    pub weights: SearchWeights,
    pub half_life_days: f64,
    /// The relevance gate: candidates below this relevance are dropped before blending.
    pub min_relevance: f32,
    pub top_k: usize,
    pub now: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScoredMemory {
    pub memory: Memory,
    pub score: f32,
    pub scores: ScoreBreakdown,
}

/// Gates candidates by relevance, blends in recency (age since `created_at`) and
/// importance, and keeps the best `top_k`. Ties keep the candidates' order.
pub fn rank(candidates: Vec<(Memory, Relevance)>, p: &RankParams) -> Vec<ScoredMemory> {
    let mut scored: Vec<ScoredMemory> = candidates
        .into_iter()
        .filter(|(_, r)| r.passes_gate(p.min_relevance))
        .map(|(memory, relevance)| {
            let age_days = crate::time::days_between(p.now, memory.created_at);
            let (score, scores) = blend(
                relevance,
                age_days,
                memory.importance,
                p.weights,
                p.half_life_days,
            );
            ScoredMemory {
                memory,
                score,
                scores,
            }
        })
        .collect();
    scored.sort_by(|a, b| b.score.total_cmp(&a.score));
    scored.truncate(p.top_k);
    scored
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects)]
mod tests {
    use super::*;
    use crate::{MemoryKind, Scope, Source, SourceType};
    use chrono::Duration;

    fn memory(content: &str, age_days: i64, importance: f32, now: DateTime<Utc>) -> Memory {
        let at = now - Duration::days(age_days);
        Memory {
            id: uuid::Uuid::now_v7(),
            scope: Scope {
                user_id: Some("u".into()),
                ..Default::default()
            },
            kind: MemoryKind::Semantic,
            subject: None,
            attribute: None,
            value: None,
            content: content.into(),
            importance,
            sensitivity: None,
            source: Source {
                source_type: SourceType::Api,
                source_ref: None,
            },
            confidence: None,
            metadata: serde_json::json!({}),
            pinned: false,
            access_count: 0,
            created_at: at,
            updated_at: at,
            last_used_at: None,
            expires_at: None,
            superseded_by: None,
            deleted_at: None,
            archived_at: None,
            provenance: Default::default(),
        }
    }

    #[test]
    fn rank_gates_blends_sorts_and_truncates() {
        let now = Utc::now();
        let p = RankParams {
            weights: SearchWeights::default(),
            half_life_days: 30.0,
            min_relevance: 0.2,
            top_k: 2,
            now,
        };
        let cands = vec![
            (memory("old but relevant", 365, 0.5, now), 0.70),
            (memory("fresh and relevant", 0, 0.5, now), 0.65),
            (memory("below the gate", 0, 1.0, now), 0.10),
            (memory("fresh, less relevant", 0, 0.5, now), 0.40),
        ];
        let cands = cands
            .into_iter()
            .map(|(m, c)| (m, Relevance::dense(c)))
            .collect();
        let ranked = rank(cands, &p);
        let names: Vec<&str> = ranked.iter().map(|r| r.memory.content.as_str()).collect();
        assert_eq!(names, ["fresh and relevant", "fresh, less relevant"]);
        assert!(ranked[0].score > ranked[1].score);
        assert!((ranked[0].scores.relevance - 0.65).abs() < 1e-6);
    }

    #[test]
    fn recency_halves_at_the_half_life() {
        let w = SearchWeights {
            relevance: 0.0,
            recency: 1.0,
            importance: 0.0,
        };
        let (now, _) = blend(Relevance::dense(0.5), 0.0, 0.5, w, 30.0);
        let (month, parts) = blend(Relevance::dense(0.5), 30.0, 0.5, w, 30.0);
        assert!((now - 1.0).abs() < 1e-6);
        assert!((month - 0.5).abs() < 1e-6);
        assert!((parts.recency - 0.5).abs() < 1e-6);
    }

    #[test]
    fn default_weights_blend_all_three() {
        let (score, parts) = blend(
            Relevance::dense(0.8),
            0.0,
            0.5,
            SearchWeights::default(),
            30.0,
        );
        assert!((score - (0.6 * 0.8 + 0.2 * 1.0 + 0.2 * 0.5)).abs() < 1e-6);
        assert_eq!(parts.relevance, 0.8);
        assert_eq!(parts.importance, 0.5);
    }

    #[test]
    fn future_dates_do_not_boost_recency_above_one() {
        let (_, parts) = blend(
            Relevance::dense(0.1),
            -5.0,
            0.0,
            SearchWeights::default(),
            30.0,
        );
        assert_eq!(parts.recency, 1.0);
    }

    #[test]
    fn more_relevant_beats_more_recent_at_default_weights() {
        let w = SearchWeights::default();
        let (relevant_old, _) = blend(Relevance::dense(0.7), 90.0, 0.5, w, 30.0);
        let (irrelevant_new, _) = blend(Relevance::dense(0.2), 0.0, 0.5, w, 30.0);
        assert!(relevant_old > irrelevant_new);
    }
}
