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
        .flat_map(|w| match w.chars().any(unspaced) {
            true => bigrams(w),
            false => vec![ENGLISH.stem(w).into_owned()],
        })
        .collect()
}

/// A letter of a script written without spaces between words (Han, kana,
/// Thai, Lao, Khmer, Myanmar), or of Hangul, whose words carry their
/// particles: there a "word" is found by its characters.
pub fn unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x0E00..=0x0EFF    // Thai, Lao
        | 0x1000..=0x109F    // Myanmar
        | 0x1780..=0x17FF    // Khmer
        | 0x1100..=0x11FF    // Hangul Jamo
        | 0x3130..=0x318F    // Hangul Compatibility Jamo
        | 0xAC00..=0xD7AF    // Hangul Syllables (words take particles: 오슬로에)
    )
}

/// A run of an unspaced script as its overlapping character pairs (what
/// CJK search indexes do, e.g. Lucene's CJKBigramFilter): "奥斯陆" →
/// "奥斯", "斯陆"; a single character stands alone. Letters of spaced
/// scripts inside the run stay whole words.
fn bigrams(word: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run: Vec<char> = Vec::new();
    let mut other = String::new();
    let flush = |run: &mut Vec<char>, out: &mut Vec<String>| {
        match run.len() {
            0 => {}
            1 => out.push(run[0].to_string()),
            _ => out.extend(run.windows(2).map(|w| w.iter().collect::<String>())),
        }
        run.clear();
    };
    for c in word.chars() {
        if unspaced(c) {
            if !other.is_empty() {
                out.push(std::mem::take(&mut other));
            }
            run.push(c);
        } else {
            flush(&mut run, &mut out);
            other.push(c);
        }
    }
    flush(&mut run, &mut out);
    if !other.is_empty() {
        out.push(other);
    }
    out
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

/// Whether `text` holds at least half of the words of `named` that name
/// something (by stem, or by character pairs in an unspaced script): how
/// a request in a language the rules cannot parse ("Oslo'da yaşadığımı
/// unut") reaches what was kept as said in it ("Oslo'da yaşıyorum"),
/// where inflection changes every other word.
pub fn names_most(named: &str, text: &str) -> bool {
    let mut needed = content_stems(named);
    needed.sort();
    needed.dedup();
    let have: HashSet<String> = content_stems(text).into_iter().collect();
    let shared = needed
        .iter()
        .filter(|s| {
            have.contains(*s)
                || (s.chars().count() >= 4 && have.iter().any(|h| h.starts_with(s.as_str())))
        })
        .count();
    shared > 0 && shared * 2 >= needed.len()
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
    fn unspaced_scripts_are_compared_by_character_pairs() {
        assert!(names_all("我住在奥斯陆", "我住在奥斯陆。"));
        assert!(names_all("奥斯陆", "我现在住在奥斯陆"));
        assert!(!names_all("奥斯陆", "我住在北京"));
        assert!(names_all(
            "オスロに住んでいること",
            "私はオスロに住んでいることが好き"
        ));
        assert!(names_all("ที่อยู่ในออสโล", "ฉันอยู่ในออสโล ที่อยู่ในออสโล"));
        assert!(names_all("Oslo 的公寓", "我在 Oslo 的公寓"));
    }

    #[test]
    fn most_words_reach_what_was_said_in_an_inflecting_language() {
        assert!(names_most("Oslo'da yaşadığımı", "Oslo'da yaşıyorum."));
        assert!(names_most("내가 오슬로에 산다는", "저는 오슬로에 살아요."));
        assert!(names_most("ओस्लो में रहने", "मैं ओस्लो में रहता हूँ।"));
        assert!(!names_most(
            "Oslo'da yaşadığımı",
            "İstanbul'da çalışıyorum."
        ));
        assert!(!names_most("", "anything"));
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
