//! Evidence around a match: what a memory's surroundings say about it.
//!
//! Fusion scores each memory alone, but in a conversation the answer is
//! often the turn after the one that matches ("Can I get the recipe?" —
//! "Sure, I'll mail it to you"), a session whose turns match the query
//! holds more of its answer, and a question about someone is answered by
//! what mentions them. Three signals, each 0..=1, added to the fused match
//! with weights and the sum divided by one plus the weights (so relevance
//! stays 0..=1 and all-zero weights leave it as fused):
//!
//! - **neighbours**: the best `w · match` of the memories stored just before
//!   and after this one in its session (within an hour), `w` being 1 for the
//!   adjacent one, [`SECOND_NEIGHBOUR`] for the next, and the previous
//!   memory counting [`QUESTION_BONUS`] times more when it asks a question,
//!   divided by that maximum;
//! - **session**: the best match among the candidates of its session (none
//!   without a session id);
//! - **names**: the share of the query's names (capitalised words past a
//!   sentence's start, acronyms) the memory mentions as words.
//!
//! The weights and both constants were chosen by leave-one-conversation-out
//! cross-validation on LoCoMo (docs/EVALUATION.md).

use serde::{Deserialize, Serialize};

use crate::scoring::Relevance;

/// The previous memory is a question that matches: this one likely answers
/// it, so its match counts (1 + this) times.
pub const QUESTION_BONUS: f32 = 1.0;

/// Two memories away counts half.
pub const SECOND_NEIGHBOUR: f32 = 0.5;

/// How much each signal adds to the fused match (0 turns it off).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SignalWeights {
    pub neighbours: f32,
    pub session: f32,
    pub names: f32,
}

impl SignalWeights {
    pub const OFF: Self = Self {
        neighbours: 0.0,
        session: 0.0,
        names: 0.0,
    };

    fn total(&self) -> f32 {
        self.neighbours + self.session + self.names
    }
}

impl Default for SignalWeights {
    fn default() -> Self {
        Self {
            neighbours: 0.6,
            session: 0.3,
            names: 0.2,
        }
    }
}

/// The signals of one memory, as the score breakdown shows them.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Evidence {
    pub neighbours: f32,
    pub session: f32,
    pub names: f32,
}

/// What the evidence needs to know of a candidate.
#[derive(Debug, Clone)]
pub struct Surroundings<'a> {
    pub content: &'a str,
    /// Who said it, when its message named them: a query that names the
    /// speaker names what they said ("What did Caroline do?").
    pub speaker: Option<&'a str>,
    pub session: Option<&'a str>,
    /// (index of another candidate, this one's offset from it): `(3, 1)`
    /// means this memory was stored right after candidate 3.
    pub neighbour_of: Vec<(usize, i32)>,
}

/// The query's names, matched as whole lowercase words: the exact terms
/// without a digit (numbers and dates are the lexical ranker's business)
/// and longer than a letter ("I" is no one's name).
pub fn query_names(query: &str) -> Vec<String> {
    crate::hybrid::exact_terms(query)
        .into_iter()
        .filter(|t| t.chars().count() > 1 && !t.chars().any(|c| c.is_numeric()))
        .collect()
}

/// Whether `text` is, or ends in, a question.
fn asks(text: &str) -> bool {
    text.contains('?')
}

/// The share of `names` that `content` mentions as words, or its speaker
/// is.
fn mentions(content: &str, speaker: Option<&str>, names: &[String]) -> f32 {
    if names.is_empty() {
        return 0.0;
    }
    let words: std::collections::HashSet<String> = content
        .split(|c: char| !c.is_alphanumeric())
        .chain(
            speaker
                .into_iter()
                .flat_map(|s| s.split(|c: char| !c.is_alphanumeric())),
        )
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    names.iter().filter(|n| words.contains(*n)).count() as f32 / names.len() as f32
}

/// Mixes the signals into each candidate's fused relevance, in input order.
pub fn with_evidence(
    fused: &[Relevance],
    around: &[Surroundings<'_>],
    names: &[String],
    weights: SignalWeights,
) -> Vec<Relevance> {
    debug_assert_eq!(fused.len(), around.len());
    // A signal no candidate can have (a query naming nobody, no sessions)
    // adds nothing and divides nothing.
    let weights = SignalWeights {
        names: if names.is_empty() { 0.0 } else { weights.names },
        session: if around.iter().any(|s| s.session.is_some()) {
            weights.session
        } else {
            0.0
        },
        ..weights
    };
    let mut best_in_session: std::collections::HashMap<&str, f32> = Default::default();
    for (r, s) in fused.iter().zip(around) {
        if let Some(session) = s.session {
            let best = best_in_session.entry(session).or_insert(0.0);
            *best = best.max(r.relevance);
        }
    }
    let max_weight = 1.0 + QUESTION_BONUS;
    fused
        .iter()
        .zip(around)
        .map(|(r, s)| {
            let neighbours = s
                .neighbour_of
                .iter()
                .filter_map(|&(other, offset)| {
                    let w = match offset {
                        1 if asks(around.get(other)?.content) => max_weight,
                        1 | -1 => 1.0,
                        2 | -2 => SECOND_NEIGHBOUR,
                        _ => return None,
                    };
                    Some(w * fused.get(other)?.relevance.max(0.0))
                })
                .fold(0.0f32, f32::max)
                / max_weight;
            let evidence = Evidence {
                neighbours: neighbours.min(1.0),
                session: s
                    .session
                    .and_then(|k| best_in_session.get(k))
                    .copied()
                    .unwrap_or(0.0)
                    .max(0.0),
                names: mentions(s.content, s.speaker, names),
            };
            // All-zero weights: the signals are shown, and count for nothing.
            if weights.total() <= 0.0 {
                return Relevance {
                    evidence: Some(evidence),
                    ..*r
                };
            }
            Relevance {
                relevance: ((r.relevance
                    + weights.neighbours * evidence.neighbours
                    + weights.session * evidence.session
                    + weights.names * evidence.names)
                    / (1.0 + weights.total()))
                // Rounding must not push a perfect match past 1.
                .min(1.0),
                evidence: Some(evidence),
                ..*r
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(r: f32) -> Relevance {
        Relevance {
            relevance: r,
            dense: r,
            lexical: Some(r),
            time: None,
            evidence: None,
        }
    }

    fn at<'a>(content: &'a str, session: Option<&'a str>, of: &[(usize, i32)]) -> Surroundings<'a> {
        Surroundings {
            speaker: None,
            content,
            session,
            neighbour_of: of.to_vec(),
        }
    }

    #[test]
    fn the_answer_after_a_matching_question_rises_above_a_lone_near_miss() {
        let fused = [rel(1.0), rel(0.3), rel(0.5)];
        let around = [
            at("Tim: Can I get the recipe?", Some("s1"), &[]),
            at("John: Sure, I'll mail it to you.", Some("s1"), &[(0, 1)]),
            at("John: recipes are fun", Some("s2"), &[]),
        ];
        let r = with_evidence(&fused, &around, &[], SignalWeights::default());
        assert!(r[1].relevance > r[2].relevance, "{r:?}");
        assert!(
            r[0].relevance > r[1].relevance,
            "the match itself stays first"
        );
        let e = r[1].evidence.unwrap();
        assert_eq!((e.neighbours, e.session), (1.0, 1.0));
        // Not a question: the same neighbour counts half as much.
        let around2 = [
            at("Tim: I love the recipe.", Some("s1"), &[]),
            around[1].clone(),
            around[2].clone(),
        ];
        let r2 = with_evidence(&fused, &around2, &[], SignalWeights::default());
        assert_eq!(r2[1].evidence.unwrap().neighbours, 0.5);
    }

    #[test]
    fn names_count_as_whole_words_and_no_weights_means_fused() {
        let names = query_names("What book did Caroline recommend to Mel? And I in 2023?");
        assert_eq!(names, ["caroline", "mel"]);
        let fused = [rel(0.5), rel(0.5)];
        let around = [
            at("Caroline: Becoming Nicole", None, &[]),
            at("Melanie and Carolines", None, &[]),
        ];
        let r = with_evidence(&fused, &around, &names, SignalWeights::default());
        assert_eq!(r[0].evidence.unwrap().names, 0.5);
        assert_eq!(r[1].evidence.unwrap().names, 0.0);
        assert_eq!(
            r[0].evidence.unwrap().session,
            0.0,
            "no session, no session signal"
        );
        let off = with_evidence(&fused, &around, &names, SignalWeights::OFF);
        assert!(off
            .iter()
            .zip(&fused)
            .all(|(o, f)| o.relevance == f.relevance));
        assert_eq!(off[0].evidence.unwrap().names, 0.5, "shown all the same");
    }

    #[test]
    fn relevance_stays_within_zero_and_one() {
        let fused = [rel(1.0), rel(1.0)];
        let around = [
            at("Ann? Ann?", Some("s"), &[(1, -1)]),
            at("Ann", Some("s"), &[(0, 1)]),
        ];
        let names = vec!["ann".to_owned()];
        for r in with_evidence(&fused, &around, &names, SignalWeights::default()) {
            assert!((0.0..=1.0).contains(&r.relevance), "{r:?}");
        }
    }
}
