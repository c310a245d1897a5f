//! Words compared by their stems: a retraction or a forget request names
//! its fact in other forms of the same words ("I quit smoking" and "User
//! smokes a pack a day"; "my divorce" and "User is divorced").

use std::collections::HashSet;
use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Words that name no fact: articles, pronouns, auxiliaries, prepositions,
/// and the "User" every statement starts with.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "the", "my", "our", "your", "his", "her", "their", "its", "i", "me", "we", "us",
    "you", "he", "she", "they", "it", "user", "user's", "users", "is", "am", "are", "was", "were",
    "be", "been", "being", "have", "has", "had", "do", "does", "did", "of", "to", "in", "at", "on",
    "for", "with", "from", "by", "about", "and", "or", "but", "any", "some", "that", "this",
    "these", "those", "there", "not", "no", "more", "longer", "anymore", "now", "so", "as",
];

/// `text` in lower case without accents ("Infirmière" → "infirmiere"): a
/// model may drop them from a value the user wrote with them.
pub fn folded(text: &str) -> String {
    text.nfd()
        .filter(|c| !is_combining_mark(*c))
        .collect::<String>()
        .to_lowercase()
}

/// Whether `text` says `value` in the user's words: case and accents
/// aside, and a number as a whole ("20" is not in "2015").
pub fn says(text: &str, value: &str) -> bool {
    let v = folded(value.trim());
    if v.is_empty() {
        return false;
    }
    let text = folded(text);
    if v.chars().all(|c| c.is_ascii_digit()) {
        return text.split(|c: char| !c.is_ascii_digit()).any(|n| n == v);
    }
    text.contains(&v)
}

/// The stems of `text`'s words that name something, lower case.
pub fn content_stems(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .map(|w| w.trim_matches('\'').trim_end_matches("'s"))
        .filter(|w| !w.is_empty() && !FUNCTION_WORDS.contains(w))
        .map(|w| ENGLISH.stem(w).into_owned())
        .collect()
}

/// Whether every word of `named` that names something is in `text`, by
/// stem; `false` when `named` has no such word.
pub fn names_all(named: &str, text: &str) -> bool {
    let needed = content_stems(named);
    let have: HashSet<String> = content_stems(text).into_iter().collect();
    // A stem of four letters or more also names the longer words it
    // begins ("smoke" and "smoker"), which the stemmer keeps apart.
    let found = |s: &String| {
        have.contains(s)
            || (s.chars().count() >= 4 && have.iter().any(|h| h.starts_with(s.as_str())))
    };
    !needed.is_empty() && needed.iter().all(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_forms_of_a_word_name_the_same_thing() {
        assert!(names_all("smoking", "User smokes a pack a day."));
        assert!(names_all("smoking", "User is a pack-smoker."));
        assert!(names_all("my divorce", "User is divorced."));
        assert!(names_all("coffee", "User drinks three coffees a day."));
        assert!(names_all("play chess", "User loves playing chess."));
        assert!(names_all(
            "a member of the gym",
            "User is a member of the gym on Elm Street."
        ));
        assert!(names_all("learning German", "User is learning German."));
    }

    #[test]
    fn a_value_is_said_in_any_case_and_a_number_whole() {
        assert!(says("Je suis Infirmière.", "infirmiere"));
        assert!(says("Born in 1990.", "1990"));
        assert!(!says("I moved in 2015.", "20"));
        assert!(!says("anything", " "));
    }

    #[test]
    fn accents_fold_away() {
        assert_eq!(folded("Infirmière à Köln"), "infirmiere a koln");
        assert_eq!(folded("上海"), "上海");
    }

    #[test]
    fn every_named_word_must_be_there() {
        assert!(!names_all("the boat", "User owns a car."));
        assert!(!names_all("learning German", "User speaks German."));
        assert!(!names_all("", "User owns a boat."));
        assert!(!names_all("the", "User owns a boat."));
        assert!(!names_all("my", ""));
    }
}
