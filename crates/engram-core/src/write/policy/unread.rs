//! Messages the rules extractor cannot read. The rules read English; a
//! message in another language would give a job with no results and store
//! nothing, so with no LLM configured it is kept as what it is: the user's
//! own words, as an episodic memory that search and the context block can
//! find, once every screen has passed (the secrets and orders were taken
//! out sentence by sentence before this; sensitive clauses are left out
//! here unless the caller allows them; questions assert nothing).

use std::sync::LazyLock;

use regex::Regex;
use whatlang::{Lang, Script};

use super::without_sensitive;
use crate::text::sentences;

/// A language the rules do not read, as detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language {
    /// ISO 639-3, e.g. "deu".
    pub code: &'static str,
    /// In English, e.g. "German".
    pub name: &'static str,
    /// Whether the detector is confident of the name (close languages
    /// such as Spanish, Catalan and Portuguese are often confused).
    pub reliable: bool,
}

impl Language {
    /// For a reason shown to the user: the name, hedged when the detector
    /// is not sure of it.
    pub fn described(&self) -> String {
        if self.reliable {
            self.name.to_string()
        } else {
            format!("a language other than English (perhaps {})", self.name)
        }
    }
}

/// What to do with a message the rules cannot read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// Keep `text` verbatim; `left_out` names the sensitive categories
    /// whose clauses were not kept.
    Keep {
        text: String,
        language: Language,
        left_out: Vec<&'static str>,
    },
    /// Nothing in it may be kept, and why.
    Skip {
        language: Language,
        reason: &'static str,
    },
}

/// Common English words that are not also common words of the other
/// Latin-script languages ("in", "a", "was", "die", "me" are left out).
const ENGLISH_WORDS: &[&str] = &[
    "the",
    "i",
    "i'm",
    "i've",
    "i'd",
    "my",
    "mine",
    "is",
    "are",
    "and",
    "to",
    "of",
    "with",
    "it",
    "it's",
    "that",
    "this",
    "we",
    "you",
    "your",
    "our",
    "have",
    "has",
    "had",
    "be",
    "been",
    "not",
    "but",
    "for",
    "at",
    "he",
    "she",
    "they",
    "their",
    "them",
    "his",
    "her",
    "what",
    "where",
    "when",
    "who",
    "how",
    "which",
    "would",
    "will",
    "can",
    "could",
    "should",
    "just",
    "about",
    "from",
    "there",
    "here",
    "some",
    "any",
    "like",
    "love",
    "work",
    "live",
    "name",
    "yes",
    "don't",
    "or",
    "else",
    "somewhere",
    "something",
    "someone",
    "very",
    "really",
    "than",
    "then",
    "also",
    "if",
    "because",
    "get",
    "got",
    "going",
    "went",
    "want",
    "need",
    "think",
    "know",
];

/// The share of `text`'s words that are common English words.
fn english_share(words: &[String]) -> f32 {
    if words.is_empty() {
        return 0.0;
    }
    let english = words
        .iter()
        .filter(|w| ENGLISH_WORDS.contains(&w.as_str()))
        .count();
    english as f32 / words.len() as f32
}

/// Below this share of common English words, Latin text of at least
/// `MIN_WORDS` words is not English (English prose runs at 0.3 to 0.5).
const ENGLISH_SHARE: f32 = 0.1;
const MIN_WORDS: usize = 3;

/// The language of `text` when it is one the rules extractor does not read
/// (anything but English), or `None` when it reads as English or cannot be
/// told. Text in a script other than Latin is not English whatever the
/// detector's confidence. Latin text is another language when the detector
/// is sure, or when it names another language and the text has almost no
/// common English words (short sentences detect unreliably, so the
/// detector's flag alone would leave most of them unread).
pub fn unread_language(text: &str) -> Option<Language> {
    // Names and brands are often written in Latin letters inside text in
    // another script ("我的狗叫Bello。"): a third of the letters in another
    // script makes it that script's, detected from those letters alone.
    // (An ideograph or a syllable block stands for a word, and counts twice.)
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let other: String = text
        .chars()
        .filter(|c| c.is_alphabetic() && !c.is_ascii() && !is_latin(*c))
        .collect();
    let weight: usize = other.chars().map(|c| if is_cjk(c) { 2 } else { 1 }).sum();
    if letters > 0 && weight * 3 >= letters {
        let info = whatlang::detect(&other)?;
        return Some(Language {
            code: info.lang().code(),
            name: info.lang().eng_name(),
            reliable: info.is_reliable(),
        });
    }
    let info = whatlang::detect(text)?;
    let lang = info.lang();
    if lang == Lang::Eng || info.script() != Script::Latin {
        return None;
    }
    // "I'm", "I'll", "I've", "I'd" are English whatever the detector says
    // of a short sentence with a foreign name in it ("Maybe one day I'll
    // open a café in Kyoto." was read as French and kept verbatim).
    static ENGLISH_I: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\bI['’](?:m|ll|ve|d)\b").unwrap_or_else(|e| panic!("{e}")));
    if ENGLISH_I.is_match(text) {
        return None;
    }
    // English writes "I" as a capital; a lower-case "i" is the word for
    // "and" in Polish, Croatian, Catalan, and Italian's "the".
    let words: Vec<String> = text
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|w| w.chars().any(char::is_alphabetic))
        .map(|w| {
            if w == "i" {
                "i·".to_owned()
            } else {
                w.to_lowercase()
            }
        })
        .collect();
    let unlike_english = words.len() >= MIN_WORDS && english_share(&words) < ENGLISH_SHARE;
    (info.is_reliable() || unlike_english).then_some(Language {
        code: lang.code(),
        name: lang.eng_name(),
        reliable: info.is_reliable(),
    })
}

/// The languages the instruction screen reads (`instructions.rs`), by ISO
/// 639-3 code: English, German, French, Spanish, Italian, Portuguese,
/// Dutch, Polish, Russian, Chinese, Japanese and Korean.
const SCREENED: &[&str] = &[
    "eng", "deu", "fra", "spa", "ita", "por", "nld", "pol", "rus", "cmn", "jpn", "kor",
];

/// The language of `text` when it is one the instruction screen cannot
/// read: an order written in it would pass unseen, so what was said in it
/// is kept but held out of context blocks (issue 51: 13 of 14 steering
/// messages in such languages were shown as "the user said").
pub fn unscreened_language(text: &str) -> Option<Language> {
    unread_language(text).filter(|l| !SCREENED.contains(&l.code))
}

/// Han, kana or Hangul.
fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF)
}

/// A letter of the Latin script (with its accents: "ö", "ç", "ł").
fn is_latin(c: char) -> bool {
    matches!(c as u32, 0x00C0..=0x024F | 0x1E00..=0x1EFF)
}

/// Whether a sentence asks rather than tells, in any of the scripts'
/// question marks.
fn is_question(sentence: &str) -> bool {
    let s = sentence.trim_end_matches(|c: char| c.is_whitespace() || c == '"' || c == '»');
    s.ends_with(['?', '？', '؟', '\u{37e}']) || s.starts_with('¿')
}

/// The decision for one user message the rules produced nothing from,
/// after the message screens (`screened` is its text without the
/// sentences and clauses they refused). `None` when the message reads as
/// English: the rules read it, and found nothing to keep.
pub fn unread_message(screened: &str, allow_sensitive: bool) -> Option<Unread> {
    let language = unread_language(screened)?;
    let all = sentences(screened);
    // A request to forget is acted on, never kept: it holds what is to go.
    let forgets = |s: &&str| crate::text::statement::asks_to_forget(s);
    let told: Vec<&str> = all
        .iter()
        .copied()
        .filter(|s| !is_question(s) && !forgets(s))
        .collect();
    if told.is_empty() {
        return Some(Unread::Skip {
            language,
            reason: if all.iter().any(forgets) {
                "it asks to forget, and a request to forget is not kept"
            } else {
                "it only asks questions"
            },
        });
    }
    let told = told.join(" ");
    let (text, left_out) = if allow_sensitive {
        (told, Vec::new())
    } else {
        without_sensitive(&told)
    };
    if !text.chars().any(char::is_alphanumeric) {
        return Some(Unread::Skip {
            language,
            reason: "nothing is left once the sensitive clauses are left out",
        });
    }
    Some(Unread::Keep {
        text,
        language,
        left_out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn german_is_kept_and_english_is_left_to_the_rules() {
        let Some(Unread::Keep { text, language, .. }) = unread_message(
            "Ich wohne in Köln und arbeite bei der Telekom. Mein Hund heißt Bello.",
            false,
        ) else {
            panic!("not kept");
        };
        assert_eq!(language.name, "German");
        assert!(text.contains("Köln") && text.contains("Bello"), "{text}");
        assert_eq!(
            unread_message("We went hiking at the lake yesterday.", false),
            None
        );
        assert_eq!(unread_message("ok", false), None);
    }

    #[test]
    fn a_lower_case_i_is_not_english() {
        let polish = unread_language("Mieszkam w Gdańsku i mam psa o imieniu Burek.");
        assert!(polish.is_some(), "{polish:?}");
        assert_eq!(unread_language("i live in oslo and i work at sap"), None);
        // An English contraction of "I" outweighs a foreign name.
        for text in [
            "Maybe one day I'll open a café in Kyoto.",
            "I'm moving to Besançon près de la frontière.",
        ] {
            assert_eq!(unread_language(text), None, "{text}");
        }
    }

    #[test]
    fn questions_are_not_kept() {
        assert!(matches!(
            unread_message("¿Dónde vivo yo? ¿Te acuerdas de mi perro?", false),
            Some(Unread::Skip { .. })
        ));
        let Some(Unread::Keep { text, .. }) =
            unread_message("我住在里斯本。你还记得我的狗叫什么吗？", false)
        else {
            panic!("not kept");
        };
        assert!(!text.contains('狗'), "{text}");
    }

    #[test]
    fn an_unsure_name_is_hedged() {
        let sure = Language {
            code: "deu",
            name: "German",
            reliable: true,
        };
        let unsure = Language {
            code: "cat",
            name: "Catalan",
            reliable: false,
        };
        assert_eq!(sure.described(), "German");
        assert_eq!(
            unsure.described(),
            "a language other than English (perhaps Catalan)"
        );
    }
}
