//! Fusing the dense and the lexical signal into one relevance per candidate.
//!
//! Weighted score fusion: each candidate's BM25 is normalised by the best
//! candidate's (so the top lexical match is 1 whatever the query's length),
//! the cosine is min-max scaled over the candidates (over at least
//! `MIN_COSINE_SPREAD`), then
//! `relevance = w·lexical + (1 − w)·dense`. Chosen over reciprocal-rank
//! fusion because it keeps how much better the best match is, not only that
//! it is first: on LoCoMo a rare name found in one turn must beat ten
//! near-misses of similar meaning (docs/EVALUATION.md has the comparison).

use serde::{Deserialize, Serialize};

use crate::scoring::Relevance;

/// Hybrid is the default: on LoCoMo it finds the evidence turn first about
/// twice as often as dense, for about a millisecond more (docs/EVALUATION.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchMode {
    Dense,
    Lexical,
    #[default]
    Hybrid,
}

/// What the store found for one candidate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    pub cosine: f32,
    /// BM25 of the query's terms in the memory; 0 when no term matches.
    pub bm25: f32,
}

/// The words of a query matched exactly instead of by their English stem:
/// names (a capital letter not at the start of a sentence), acronyms and
/// anything with a digit, lowercased as Postgres' `simple` configuration
/// stores them. Stems find "painting" for "painted", but they also make
/// "Jean" match "jeans" and "Will" match nothing (a stop word); a name means
/// itself. (Counting both the stem and the exact form weighed names twice,
/// which measured worse: docs/EVALUATION.md.)
pub fn exact_terms(query: &str) -> Vec<String> {
    let mut terms = Vec::new();
    let mut sentence_start = true;
    for word in query.split_whitespace() {
        let token: String = word
            .chars()
            .skip_while(|c| !c.is_alphanumeric())
            .take_while(|c| c.is_alphanumeric())
            .collect();
        let has_digit = token.chars().any(|c| c.is_ascii_digit());
        let capital = token.chars().next().is_some_and(char::is_uppercase);
        let acronym = token.chars().count() > 1 && token.chars().all(|c| !c.is_lowercase());
        if !token.is_empty() && (has_digit || acronym || (capital && !sentence_start)) {
            let t = token.to_lowercase();
            if !terms.contains(&t) {
                terms.push(t);
            }
        }
        sentence_start = word.ends_with(['.', '?', '!', ':']);
    }
    terms
}

/// The narrowest cosine range min-max scaling stretches to 0..1. MiniLM's
/// cosines for one query differ by a few hundredths on near-equal texts; a
/// user with three memories must not see that as the full range (and lose
/// a date or a name match to it). LoCoMo's candidate lists span more than
/// this, so it does not change the evaluation.
const MIN_COSINE_SPREAD: f32 = 0.25;

/// The relevance of each candidate, in input order.
pub fn fuse(signals: &[Signals], mode: SearchMode, lexical_weight: f32) -> Vec<Relevance> {
    let best = signals.iter().map(|s| s.bm25).fold(0.0f32, f32::max);
    let (lo, hi) = signals.iter().fold((f32::MAX, f32::MIN), |(lo, hi), s| {
        (lo.min(s.cosine), hi.max(s.cosine))
    });
    let lo = lo.min(hi - MIN_COSINE_SPREAD);
    signals
        .iter()
        .map(|s| {
            let lexical = if best > 0.0 { s.bm25 / best } else { 0.0 };
            let dense = (s.cosine - lo) / (hi - lo);
            let relevance = match mode {
                SearchMode::Dense => s.cosine,
                SearchMode::Lexical => lexical,
                SearchMode::Hybrid => lexical_weight * lexical + (1.0 - lexical_weight) * dense,
            };
            Relevance {
                relevance,
                dense: s.cosine,
                lexical: (mode != SearchMode::Dense).then_some(lexical),
                time: None,
                evidence: None,
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
    fn exact_terms_are_names_acronyms_and_numbers_not_sentence_starts() {
        assert_eq!(
            exact_terms("What did Caroline's LGBTQ+ group do on 8 May, 2023? When did Mel go?"),
            ["caroline", "lgbtq", "8", "may", "2023", "mel"]
        );
        assert!(exact_terms("what do i like to eat").is_empty());
        assert_eq!(exact_terms("I met Will. I met will."), ["will"]);
    }

    #[test]
    fn near_equal_cosines_are_not_stretched_to_the_full_range() {
        let h = fuse(&[sig(0.6, 0.0), sig(0.55, 0.0)], SearchMode::Hybrid, 0.5);
        assert!((h[0].relevance - 0.5).abs() < 1e-6);
        assert!((h[1].relevance - 0.4).abs() < 1e-6, "{h:?}");
    }

    #[test]
    fn a_single_candidate_is_the_best_dense_match() {
        let h = fuse(&[sig(0.3, 0.0)], SearchMode::Hybrid, 0.25);
        assert!((h[0].relevance - 0.75).abs() < 1e-6);
    }
}
