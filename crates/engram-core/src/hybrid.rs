//! Fusing the dense and the lexical signal into one relevance per candidate.
//!
//! Weighted score fusion: each candidate's BM25 is normalised by the best
//! candidate's (so the top lexical match is 1 whatever the query's length),
//! the cosine is min-max scaled over the candidates, then
//! `relevance = w·lexical + (1 − w)·dense`. Chosen over reciprocal-rank
//! fusion because it keeps how much better the best match is, not only that
//! it is first: on LoCoMo a rare name found in one turn must beat ten
//! near-misses of similar meaning (docs/EVALUATION.md has the comparison).

use serde::{Deserialize, Serialize};

use crate::scoring::Relevance;

/// Dense stays the default until hybrid meets its latency budget (within
/// 2 ms of dense at p50; docs/EVALUATION.md has where it stands).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    #[default]
    Dense,
    Lexical,
    Hybrid,
}

/// What the store found for one candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    pub cosine: f32,
    /// BM25 of the query's terms in the memory; 0 when no term matches.
    pub bm25: f32,
}

/// The relevance of each candidate, in input order.
pub fn fuse(signals: &[Signals], mode: SearchMode, lexical_weight: f32) -> Vec<Relevance> {
    let best = signals.iter().map(|s| s.bm25).fold(0.0f32, f32::max);
    let (lo, hi) = signals.iter().fold((f32::MAX, f32::MIN), |(lo, hi), s| {
        (lo.min(s.cosine), hi.max(s.cosine))
    });
    signals
        .iter()
        .map(|s| {
            let lexical = if best > 0.0 { s.bm25 / best } else { 0.0 };
            let dense = if hi > lo {
                (s.cosine - lo) / (hi - lo)
            } else {
                1.0
            };
            let relevance = match mode {
                SearchMode::Dense => s.cosine,
                SearchMode::Lexical => lexical,
                SearchMode::Hybrid => lexical_weight * lexical + (1.0 - lexical_weight) * dense,
            };
            Relevance {
                relevance,
                dense: s.cosine,
                lexical: (mode != SearchMode::Dense).then_some(lexical),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(cosine: f32, bm25: f32) -> Signals {
        Signals { cosine, bm25 }
    }

    #[test]
    fn lexical_is_normalised_by_the_best_match() {
        let r = fuse(
            &[sig(0.2, 6.0), sig(0.5, 3.0), sig(0.4, 0.0)],
            SearchMode::Lexical,
            0.5,
        );
        assert_eq!(
            r.iter().map(|r| r.relevance).collect::<Vec<_>>(),
            [1.0, 0.5, 0.0]
        );
    }

    #[test]
    fn hybrid_weighs_both_min_max_scaled_and_dense_ignores_lexical() {
        let s = [sig(0.2, 6.0), sig(0.6, 0.0), sig(0.4, 3.0)];
        let h = fuse(&s, SearchMode::Hybrid, 0.25);
        let got: Vec<f32> = h.iter().map(|r| r.relevance).collect();
        for (g, want) in got.iter().zip([0.25, 0.75, 0.5]) {
            assert!((g - want).abs() < 1e-6, "{got:?}");
        }
        assert_eq!(h[1].lexical, Some(0.0));
        assert_eq!(h[1].dense, 0.6, "the breakdown keeps the raw cosine");
        let d = fuse(&s, SearchMode::Dense, 0.25);
        assert_eq!((d[0].relevance, d[0].lexical), (0.2, None));
    }

    #[test]
    fn a_single_candidate_is_the_best_dense_match() {
        let h = fuse(&[sig(0.3, 0.0)], SearchMode::Hybrid, 0.25);
        assert!((h[0].relevance - 0.75).abs() < 1e-6);
    }
}
