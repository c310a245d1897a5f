//! The extractive running summary, used when no LLM is configured: keep the
//! sentences that carry preferences, decisions, open questions and facts,
//! drop pleasantries, and stay within a token budget by letting the oldest,
//! least useful sentences go first.

use async_trait::async_trait;
use engram_core::session::{SummarizeError, Summarizer, Turn};
use engram_core::text::clauses;

use crate::tokens::TokenCounter;

/// The summarizer without an LLM: [`extractive`].
pub struct ExtractiveSummarizer {
    pub counter: TokenCounter,
}

#[async_trait]
impl Summarizer for ExtractiveSummarizer {
    fn id(&self) -> &str {
        "extractive"
    }

    async fn summarize(
        &self,
        previous: &str,
        turns: &[Turn],
        max_tokens: usize,
    ) -> Result<String, SummarizeError> {
        Ok(extractive(previous, turns, max_tokens, &self.counter))
    }
}

/// Cuts a summary to `max_tokens` by dropping its oldest lines: what a
/// summarizer returned over budget.
pub fn fit(summary: &str, max_tokens: usize, counter: &TokenCounter) -> String {
    let mut lines: Vec<&str> = summary.lines().filter(|l| !l.trim().is_empty()).collect();
    while !lines.is_empty() && counter.count(&lines.join("\n")) > max_tokens {
        lines.remove(0);
    }
    lines.join("\n")
}

const PLEASANTRIES: &[&str] = &[
    "noted",
    "understood",
    "perfect",
    "wow",
    "hi",
    "hello",
    "hey",
    "thanks",
    "thank you",
    "ok",
    "okay",
    "great",
    "cool",
    "sure",
    "bye",
    "good morning",
    "good night",
    "sounds good",
    "nice",
    "awesome",
    "got it",
    "yes",
    "no",
];

/// How much a sentence is worth keeping, 0 = not at all. What the user
/// says counts from 1; what the assistant says only for what it carries.
fn weight(role: &str, sentence: &str) -> u8 {
    let lower = sentence.trim().to_lowercase();
    let words = lower.split_whitespace().count();
    let bare = lower.trim_matches(|c: char| !c.is_alphanumeric() && c != ' ');
    let opener = bare.split([',', ' ']).next().unwrap_or("");
    if words == 0 || PLEASANTRIES.contains(&bare) {
        return 0;
    }
    let has = |ps: &[&str]| ps.iter().any(|p| lower.contains(p));
    let mut w: u8 = u8::from(role == "user" && !PLEASANTRIES.contains(&opener));
    if has(&[
        "prefer",
        "favorite",
        "favourite",
        "like ",
        "love ",
        "hate",
        "can't stand",
        "allergic",
    ]) {
        w += 3; // preferences
    }
    if has(&[
        "decided",
        "decide",
        "going to",
        "will ",
        "plan",
        "switch",
        "chose",
        "choose",
        "considering",
    ]) {
        w += 3; // decisions and plans
    }
    if sentence.trim_end().ends_with('?') && role == "user" {
        w += 2; // open questions
    }
    if has(&[
        "i'm ", "i am ", "my ", "we ", "i work", "i live", "i have", "i use", "building",
    ]) || sentence.chars().any(|c| c.is_ascii_digit())
    {
        w += 2; // facts about the user
    }
    if words <= 3 {
        w = w.saturating_sub(1);
    }
    w
}

/// The summary after folding `turns` into `previous`, at most `max_tokens`.
/// Lines are "role: sentence", oldest first; when over budget the
/// lowest-weighted lines go first, the oldest among equals.
pub fn extractive(
    previous: &str,
    turns: &[Turn],
    max_tokens: usize,
    counter: &TokenCounter,
) -> String {
    let mut lines: Vec<(u8, String)> = previous
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (role, text) = l.split_once(": ").unwrap_or(("user", l));
            (weight(role, text).max(1), l.to_owned())
        })
        .collect();
    for t in turns {
        for s in clauses(&t.content) {
            let w = weight(&t.role, s);
            if w > 0 {
                let s = s.trim().trim_end_matches(['.', ',']);
                lines.push((w, format!("{}: {}", t.role, s)));
            }
        }
    }
    let render = |ls: &[(u8, String)]| {
        ls.iter()
            .map(|(_, l)| l.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    };
    while !lines.is_empty() && counter.count(&render(&lines)) > max_tokens {
        let lowest = lines.iter().map(|(w, _)| *w).min().unwrap_or(0);
        if let Some(i) = lines.iter().position(|(w, _)| *w == lowest) {
            lines.remove(i);
        }
    }
    render(&lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::Encoding;

    fn turn(role: &str, content: &str) -> Turn {
        Turn {
            role: role.into(),
            content: content.into(),
        }
    }

    #[test]
    fn keeps_facts_and_drops_pleasantries() {
        let c = TokenCounter::new(Encoding::Cl100kBase);
        let s = extractive(
            "",
            &[
                turn("user", "Hi! I'm Bob, a data scientist at Netflix."),
                turn("assistant", "Nice to meet you, Bob!"),
                turn(
                    "user",
                    "Thanks. I'm building a recommendation system using collaborative filtering.",
                ),
                turn("user", "ok"),
            ],
            500,
            &c,
        );
        assert!(s.contains("data scientist at Netflix"), "{s}");
        assert!(s.contains("recommendation system"), "{s}");
        assert!(
            !s.lines().any(|l| l == "user: ok" || l == "user: Hi!"),
            "{s}"
        );
    }

    #[test]
    fn stays_within_budget_dropping_the_least_useful_first() {
        let c = TokenCounter::new(Encoding::Cl100kBase);
        let turns = [
            turn(
                "assistant",
                "That is an interesting dataset you have there.",
            ),
            turn("user", "I prefer Python 3.11 for stability."),
            turn("user", "We have about 50 million user interaction records."),
        ];
        let s = extractive(
            "user: I'm considering switching from TensorFlow to PyTorch",
            &turns,
            30,
            &c,
        );
        assert!(c.count(&s) <= 30, "{s}");
        assert!(s.contains("Python 3.11"), "{s}");
        assert!(!s.contains("interesting dataset"), "{s}");
        // The previous summary's lines are kept ahead of new weaker ones.
        assert!(s.starts_with("user: I'm considering"), "{s}");
    }
}
