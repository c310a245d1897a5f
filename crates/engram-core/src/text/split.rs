//! Splitting text into sentences and clauses: the units every screen,
//! the statement reader, the rules extractor and the summaries work on.

use std::sync::LazyLock;

use regex::Regex;

static SENTENCE_BREAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"[.!?;]+(?:\s+|$)|[。！？；]+\s*|\n+").unwrap_or_else(|e| panic!("{e}"))
});

/// Whether a stop ends a title or a street's abbreviation rather than a
/// sentence ("St. Mary's hospital", "Dr. Rao", "e.g. Rust"): the word
/// before it is one, and the break is a single stop.
fn after_abbreviation(before: &str, brk: &str) -> bool {
    const ABBREVIATIONS: &[&str] = &[
        "Mr", "Mrs", "Ms", "Dr", "St", "Mt", "Prof", "Jr", "Sr", "Ave", "Rd", "vs", "e.g", "i.e",
    ];
    brk.trim_end().len() == 1
        && brk.starts_with('.')
        && before
            .rsplit(|c: char| c.is_whitespace() || c == '(')
            .next()
            .is_some_and(|w| ABBREVIATIONS.contains(&w))
}

/// Splits a message into sentences, each with its closing punctuation (so
/// a question still ends with `?`). A stop ends a sentence only before a
/// space or the end, so "Python 3.11" and "example.com" stay whole. A
/// list written on one line ("1. apples 2. bananas 3. pears") loses its
/// numbers: "bananas 2." is not what was said of bananas.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for m in SENTENCE_BREAK.find_iter(text) {
        if after_abbreviation(&text[..m.start()], m.as_str()) {
            continue;
        }
        out.push(&text[start..m.end()]);
        start = m.end();
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(|s| without_list_number(s, text))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// `sentence` without the number of the next list item it ends with
/// ("bananas 2." → "bananas"), when the text numbers its items: the
/// markers 1 to it are all in the text.
fn without_list_number<'a>(sentence: &'a str, text: &str) -> &'a str {
    let body = sentence.trim_end().trim_end_matches('.');
    let Some((before, number)) = body.rsplit_once(char::is_whitespace) else {
        return sentence;
    };
    let Ok(n) = number.parse::<u32>() else {
        return sentence;
    };
    let marker = |k: u32| text.starts_with(&format!("{k}. ")) || text.contains(&format!(" {k}. "));
    let listed = (2..=50).contains(&n) && (1..=n).all(marker);
    match listed && sentence.trim_end().ends_with('.') {
        true => before,
        false => sentence,
    }
}

static CLAUSE_BREAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:[.!?;]+(?:\s+|$)|\n+\s*|\s+[-–—]\s+|,?\s+(?:and|but|so|also|plus)\s+(?P<p>i\b|i'm|i've|im\b|my\b|we\b|we're)|,\s+(?P<q>i\b|i'm|my\b)|,\s+(?P<r>(?:should|would|could|can|do|does|did|is|are|am|was|were|what|where|when|why|how|shall|will|or)\b))")
        .unwrap_or_else(|e| panic!("{e}"))
});

/// Splits a text into clauses: sentences, "… and I …" joins, and a
/// question tagged on ("…, should I …"). Each is a slice of `text`.
pub fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for c in CLAUSE_BREAK.captures_iter(text) {
        let whole = c.get(0).map(|m| m.range()).unwrap_or(0..0);
        // "a session with Dr. Smith": a title's stop ends no clause.
        if after_abbreviation(&text[..whole.start], &text[whole.clone()]) {
            continue;
        }
        let next = c
            .name("p")
            .or_else(|| c.name("q"))
            .or_else(|| c.name("r"))
            .map_or(whole.end, |m| m.start());
        out.push(&text[start..whole.start]);
        start = next;
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Where a list's parts meet in the languages the screens read and their
/// neighbours: commas and semicolons (Latin and CJK), and the word for
/// "and" (und, y, e, et, en, i, и, och, og, ve, a, és, ja, και, та, і, 和).
static PART_BREAK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\s*[,;，、；]\s*|\s+(?:and|und|y|e|ed|et|en|i|и|och|og|ve|a|oraz|és|ja|και|та|і)\s+|和")
        .unwrap_or_else(|e| panic!("{e}"))
});

/// The parts of a message in any language: its sentences, each cut at
/// commas and at the word for "and" ("Moro em Curitiba e sou professora"
/// → "Moro em Curitiba", "sou professora"). Coarser than `clauses`, which
/// reads English; for telling which parts a model's answer left out.
pub fn parts(text: &str) -> Vec<&str> {
    sentences(text)
        .into_iter()
        .flat_map(|s| PART_BREAK.split(s))
        .map(|p| {
            p.trim()
                .trim_end_matches(['.', '!', '?', '。', '！', '？'])
                .trim()
        })
        .filter(|p| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_or_street_abbreviation_ends_no_sentence() {
        assert_eq!(
            sentences("I work as a nurse at St. Mary's hospital. I live in Leeds."),
            [
                "I work as a nurse at St. Mary's hospital.",
                "I live in Leeds."
            ]
        );
        assert_eq!(sentences("Ask Dr. Rao, e.g. today.").len(), 1);
        assert_eq!(sentences("I like it. Mr. Smith does not.").len(), 2);
    }

    #[test]
    fn a_list_on_one_line_loses_its_numbers() {
        assert_eq!(
            sentences("1. I love apples 2. I dislike bananas 3. I like pears."),
            ["1.", "I love apples", "I dislike bananas", "I like pears."]
        );
        // A number that is no list marker stays.
        assert_eq!(
            sentences("We won 2. It was fun."),
            ["We won 2.", "It was fun."]
        );
        assert_eq!(
            sentences("I have 2. You have 3."),
            ["I have 2.", "You have 3."]
        );
    }

    #[test]
    fn parts_split_lists_in_any_language() {
        assert_eq!(
            parts("Moro em Curitiba e sou professora."),
            ["Moro em Curitiba", "sou professora"]
        );
        assert_eq!(parts("我住在上海，我是医生。"), ["我住在上海", "我是医生"]);
    }
}
