//! What a deleted fact leaves behind in the text it was drawn from: the
//! clauses of a session's turns and summary that state it. Deleting a fact
//! replaces those clauses in the turns by [`MARKER`] (the turn keeps its
//! place in the conversation) and drops them from the summary, so neither
//! the context block nor an export shows the fact again; the other clauses
//! (and so the session's other facts) stay.
//!
//! A clause states a fact when it names the fact's value (word for word,
//! any case), or, for a fact without a usable value, when it holds at least
//! two thirds of the fact's content words (compared by their first four
//! letters, so "lives" meets "live"). Erring towards removing a clause too
//! many is the safe side: the memory itself is what the user keeps.

use crate::text::clauses;

/// What replaces a removed clause in a turn.
pub const MARKER: &str = "[removed]";

/// Words that say nothing about which fact a clause states.
const STOPWORDS: &[&str] = &[
    "the",
    "and",
    "but",
    "for",
    "with",
    "from",
    "that",
    "this",
    "these",
    "those",
    "user",
    "users",
    "has",
    "have",
    "had",
    "are",
    "was",
    "were",
    "been",
    "being",
    "is",
    "his",
    "her",
    "hers",
    "their",
    "they",
    "them",
    "she",
    "him",
    "who",
    "whom",
    "which",
    "what",
    "when",
    "where",
    "not",
    "does",
    "did",
    "doing",
    "into",
    "onto",
    "about",
    "also",
    "very",
    "just",
    "really",
    "named",
    "called",
    "currently",
    "now",
    "there",
    "here",
    "its",
    "our",
    "your",
    "you",
    "mine",
    "all",
    "any",
    "some",
    "than",
    "then",
    "too",
    "can",
    "will",
    "would",
    "should",
    "could",
];

/// Values too generic to point at one clause: the fact's words decide.
const GENERIC_VALUES: &[&str] = &["true", "false", "yes", "no", "none", "unknown"];

/// One deleted fact, as its clauses are recognised.
#[derive(Debug, Clone, PartialEq)]
pub struct FactTrace {
    /// Lower-cased value, when it is specific enough to look for.
    value: Option<String>,
    /// Four-letter stems of the content's words.
    stems: Vec<String>,
}

impl FactTrace {
    pub fn new(content: &str, value: Option<&str>) -> Self {
        let value = value
            .map(|v| v.trim().to_lowercase())
            .filter(|v| v.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
            .filter(|v| !GENERIC_VALUES.contains(&v.as_str()));
        let mut stems: Vec<String> = words(content)
            .filter(|w| w.chars().count() >= 3 && !STOPWORDS.contains(&w.as_str()))
            .map(|w| stem(&w))
            .collect();
        stems.sort();
        stems.dedup();
        Self { value, stems }
    }

    /// Whether `clause` states this fact by its words, not only names its
    /// value ("I work at Acme", not "I bought Acme's anvil"): two thirds of
    /// the fact's words, and its value when it has one. Narrower than
    /// [`matches`](Self::matches), for what a later statement replaces
    /// (what a delete removes errs wide; what a change hides must not).
    pub fn restated_by(&self, clause: &str) -> bool {
        let lower = clause.to_lowercase();
        if let Some(v) = &self.value {
            if !contains_word(&lower, v) {
                return false;
            }
        }
        if self.stems.is_empty() {
            return self.value.is_some();
        }
        let here: Vec<String> = words(&lower).map(|w| stem(&w)).collect();
        let found = self.stems.iter().filter(|s| here.contains(s)).count();
        found >= 2.min(self.stems.len()) && found * 3 >= self.stems.len() * 2
    }

    /// Whether `clause` states this fact.
    pub fn matches(&self, clause: &str) -> bool {
        let lower = clause.to_lowercase();
        if let Some(v) = &self.value {
            if contains_word(&lower, v) {
                return true;
            }
        }
        if self.stems.is_empty() {
            return false;
        }
        let here: Vec<String> = words(&lower).map(|w| stem(&w)).collect();
        let found = self.stems.iter().filter(|s| here.contains(s)).count();
        // Two thirds of the words, and never a single common word alone.
        found >= 2.min(self.stems.len()) && found * 3 >= self.stems.len() * 2
    }
}

fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric() && c != '\'')
        .map(|w| w.trim_matches('\'').to_lowercase())
        .filter(|w| !w.is_empty())
}

fn stem(word: &str) -> String {
    word.chars().take(4).collect()
}

/// `needle` in `haystack` (both lower-cased) with no letter or digit on
/// either side.
fn contains_word(haystack: &str, needle: &str) -> bool {
    haystack.match_indices(needle).any(|(i, _)| {
        let before = haystack[..i].chars().next_back();
        let after = haystack[i + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// `text` with every clause that states one of `facts` replaced by
/// [`MARKER`] (markers with only space between them collapse into one);
/// `None` when no clause does.
pub fn redact_turn(text: &str, facts: &[FactTrace]) -> Option<String> {
    let spans = stated_spans(text, facts);
    if spans.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in spans {
        out.push_str(&text[at..start]);
        if !out.trim_end().ends_with(MARKER) {
            out.push_str(MARKER);
        }
        at = end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// Whether some clause of `text` states one of `facts`: a piece of what
/// was said that does is deleted with the fact (its words, and its vector,
/// would hold the fact still).
pub fn states_any(text: &str, facts: &[FactTrace]) -> bool {
    !stated_spans(text, facts).is_empty()
}

/// A running summary without the clauses that state one of `facts`: lines
/// left with nothing but markers and punctuation are dropped. `None` when
/// no clause does.
pub fn redact_summary(summary: &str, facts: &[FactTrace]) -> Option<String> {
    let mut changed = false;
    let mut lines = Vec::new();
    for line in summary.lines() {
        // Extractive summaries write "role: text"; the role is no clause.
        let (prefix, body) = match line.split_once(": ") {
            Some((role, body)) if !role.contains(' ') && role.len() <= 12 => {
                (&line[..role.len() + 2], body)
            }
            _ => ("", line),
        };
        match redact_turn(body, facts) {
            None => lines.push(line.to_owned()),
            Some(redacted) => {
                changed = true;
                let rest = redacted.replace(MARKER, "");
                if rest.chars().any(char::is_alphanumeric) {
                    lines.push(format!("{prefix}{redacted}"));
                }
            }
        }
    }
    changed.then(|| lines.join("\n"))
}

/// Byte ranges of the clauses of `text` that state one of `facts`, in order.
fn stated_spans(text: &str, facts: &[FactTrace]) -> Vec<(usize, usize)> {
    let base = text.as_ptr() as usize;
    clauses(text)
        .into_iter()
        .filter(|c| facts.iter().any(|f| f.matches(c)))
        .map(|c| {
            let start = c.as_ptr() as usize - base;
            (start, start + c.len())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn berlin() -> FactTrace {
        FactTrace::new("User lives in Berlin", Some("Berlin"))
    }

    #[test]
    fn the_clause_with_the_value_goes_and_the_others_stay() {
        let turn = "I live in Berlin and my dog is called Rex.";
        assert_eq!(
            redact_turn(turn, &[berlin()]).as_deref(),
            Some("[removed] and my dog is called Rex.")
        );
        assert_eq!(
            redact_turn("I LIVE IN BERLIN!", &[berlin()]).as_deref(),
            Some("[removed]!")
        );
        assert_eq!(redact_turn("My dog is called Rex.", &[berlin()]), None);
        // A value inside another word is not the value.
        assert_eq!(redact_turn("I read Berliner Zeitung.", &[berlin()]), None);
    }

    #[test]
    fn a_request_to_forget_is_itself_removed() {
        let turn = "Please forget that I live in Berlin.";
        assert_eq!(
            redact_turn(turn, &[berlin()]).as_deref(),
            Some("[removed].")
        );
    }

    #[test]
    fn without_a_value_the_fact_words_decide() {
        let fact = FactTrace::new("User has a dog named Rex", None);
        assert!(fact.matches("My dog is called Rex"));
        assert!(!fact.matches("My dog is sick"));
        assert!(!fact.matches("I like cats"));
        let generic = FactTrace::new("User is vegetarian", Some("true"));
        assert!(generic.matches("I am a vegetarian"));
        assert!(!generic.matches("That is true"));
        // A fact of one content word needs that word.
        let one = FactTrace::new("Vegan", None);
        assert!(one.matches("I went vegan last year"));
        assert!(!one.matches("I eat everything"));
    }

    #[test]
    fn a_summary_loses_the_lines_and_keeps_the_rest() {
        let summary = "user: I live in Berlin\nuser: My dog is called Rex\nassistant: Berlin is lovely, and I can help";
        assert_eq!(
            redact_summary(summary, &[berlin()]).as_deref(),
            Some("user: My dog is called Rex\nassistant: [removed], and I can help")
        );
        let prose = "The user lives in Berlin. They have a dog called Rex.";
        assert_eq!(
            redact_summary(prose, &[berlin()]).as_deref(),
            Some("[removed]. They have a dog called Rex.")
        );
        assert_eq!(redact_summary("user: My dog is Rex", &[berlin()]), None);
    }

    #[test]
    fn edge_inputs_do_not_panic() {
        let facts = [
            berlin(),
            FactTrace::new("", None),
            FactTrace::new("—", Some("ÄÖÜ")),
        ];
        for text in [
            "",
            " ",
            "\n\n",
            "Berlin",
            "ÄÖÜ ist da.",
            "🙂 Berlin 🙂",
            "a\u{0}b Berlin",
        ] {
            let _ = redact_turn(text, &facts);
            let _ = redact_summary(text, &facts);
        }
        assert_eq!(
            redact_turn("🙂 Berlin 🙂", &facts).as_deref(),
            Some("[removed]")
        );
    }
}
