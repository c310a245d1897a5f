//! The text the secret detectors read, and the way back to the original.
//!
//! Secrets are written in more ways than patterns can list: full-width
//! digits (`４１１１`), non-breaking and zero-width spaces inside a number,
//! Unicode dashes, digits spelled out (`four seven one one`). One
//! normalisation removes those differences before any detector runs:
//!
//! - Unicode NFKC, one character at a time (full-width and other
//!   compatibility forms become their plain letters and digits, NBSP a space);
//! - default-ignorable code points (zero-width spaces and joiners, soft
//!   hyphens, bidirectional marks) dropped;
//! - every dash and minus sign becomes `-`;
//! - a run of three or more digit words ("four seven one one", "vier sieben
//!   eins eins", in eight languages) becomes the digits it spells.
//!
//! Each character of the normalised text remembers the bytes of the original
//! it came from, so a span found in one is redacted in the other.

use std::ops::Range;

use unicode_normalization::UnicodeNormalization;

use crate::validate::is_default_ignorable;

/// Normalised text with, for each of its characters, where it came from.
pub struct Normalized {
    pub text: String,
    /// (byte offset in `text`, bytes of the original), one per character.
    map: Vec<(usize, Range<usize>)>,
}

/// Digit words: 0-9 in English, German, French, Spanish, Italian,
/// Portuguese, Dutch and Swedish (and "oh" for zero, as said in English).
const DIGIT_WORDS: &[(&str, char)] = &[
    ("zero", '0'),
    ("oh", '0'),
    ("one", '1'),
    ("two", '2'),
    ("three", '3'),
    ("four", '4'),
    ("five", '5'),
    ("six", '6'),
    ("seven", '7'),
    ("eight", '8'),
    ("nine", '9'),
    ("null", '0'),
    ("eins", '1'),
    ("zwei", '2'),
    ("zwo", '2'),
    ("drei", '3'),
    ("vier", '4'),
    ("fünf", '5'),
    ("sechs", '6'),
    ("sieben", '7'),
    ("acht", '8'),
    ("neun", '9'),
    ("zéro", '0'),
    ("un", '1'),
    ("deux", '2'),
    ("trois", '3'),
    ("quatre", '4'),
    ("cinq", '5'),
    ("sept", '7'),
    ("huit", '8'),
    ("neuf", '9'),
    ("cero", '0'),
    ("uno", '1'),
    ("dos", '2'),
    ("tres", '3'),
    ("cuatro", '4'),
    ("cinco", '5'),
    ("seis", '6'),
    ("siete", '7'),
    ("ocho", '8'),
    ("nueve", '9'),
    ("due", '2'),
    ("tre", '3'),
    ("quattro", '4'),
    ("cinque", '5'),
    ("sei", '6'),
    ("sette", '7'),
    ("otto", '8'),
    ("nove", '9'),
    ("um", '1'),
    ("dois", '2'),
    ("três", '3'),
    ("sete", '7'),
    ("oito", '8'),
    ("nul", '0'),
    ("een", '1'),
    ("twee", '2'),
    ("drie", '3'),
    ("vijf", '5'),
    ("zes", '6'),
    ("zeven", '7'),
    ("negen", '9'),
    ("noll", '0'),
    ("ett", '1'),
    ("två", '2'),
    ("fyra", '4'),
    ("fem", '5'),
    ("sex", '6'),
    ("sju", '7'),
    ("åtta", '8'),
    ("nio", '9'),
];

/// Dashes and minus signs (U+2010..U+2015, U+2212, U+FE58, U+FE63, U+FF0D).
fn is_dash(c: char) -> bool {
    matches!(
        c,
        '\u{2010}'..='\u{2015}' | '\u{2212}' | '\u{FE58}' | '\u{FE63}' | '\u{FF0D}'
    )
}

/// The zero of each decimal digit script that NFKC leaves as it is
/// (Arabic-Indic, Extended Arabic-Indic, NKo, Devanagari, Bengali,
/// Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada, Malayalam, Sinhala,
/// Thai, Lao, Tibetan, Myanmar, Khmer, Mongolian): a card number written
/// in any of them is the same number.
const DIGIT_ZEROS: &[u32] = &[
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66, 0x0BE6, 0x0C66, 0x0CE6, 0x0D66,
    0x0DE6, 0x0E50, 0x0ED0, 0x0F20, 0x1040, 0x17E0, 0x1810,
];

/// `c` as an ASCII digit when it is a decimal digit of another script.
fn ascii_digit(c: char) -> Option<char> {
    let code = c as u32;
    DIGIT_ZEROS
        .iter()
        .find(|z| (**z..**z + 10).contains(&code))
        .and_then(|z| char::from_digit(code - z, 10))
}

/// Cyrillic and Greek letters that look like Latin ones, and the Latin
/// letter they pass for (Unicode's confusables for these scripts).
const LOOK_ALIKES: &[(char, char)] = &[
    ('а', 'a'),
    ('е', 'e'),
    ('о', 'o'),
    ('р', 'p'),
    ('с', 'c'),
    ('у', 'y'),
    ('х', 'x'),
    ('і', 'i'),
    ('ј', 'j'),
    ('ѕ', 's'),
    ('ԁ', 'd'),
    ('ԝ', 'w'),
    ('һ', 'h'),
    ('ӏ', 'l'),
    ('А', 'A'),
    ('В', 'B'),
    ('Е', 'E'),
    ('К', 'K'),
    ('М', 'M'),
    ('Н', 'H'),
    ('О', 'O'),
    ('Р', 'P'),
    ('С', 'C'),
    ('Т', 'T'),
    ('Х', 'X'),
    ('І', 'I'),
    ('Ѕ', 'S'),
    ('α', 'a'),
    ('ο', 'o'),
    ('ρ', 'p'),
    ('ν', 'v'),
    ('τ', 't'),
    ('ι', 'i'),
    ('κ', 'k'),
    ('Α', 'A'),
    ('Β', 'B'),
    ('Ε', 'E'),
    ('Ζ', 'Z'),
    ('Η', 'H'),
    ('Ι', 'I'),
    ('Κ', 'K'),
    ('Μ', 'M'),
    ('Ν', 'N'),
    ('Ο', 'O'),
    ('Ρ', 'P'),
    ('Τ', 'T'),
    ('Υ', 'Y'),
    ('Χ', 'X'),
];

/// The byte ranges of the words of `text` that mix Latin letters with
/// Cyrillic or Greek ones ("pаssword" with a Cyrillic а): a real word of
/// either script holds only its own letters (UTS #39's mixed-script
/// check), so only a disguise is folded, never Russian or Greek text.
fn mixed_script_words(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let (mut latin, mut other) = (false, false);
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        if c.is_alphanumeric() {
            start.get_or_insert(at);
            latin |= c.is_ascii_alphabetic();
            // Greek (0370-03FF), Cyrillic and its supplement (0400-052F).
            other |= matches!(c as u32, 0x0370..=0x052F);
        } else {
            if let (Some(s), true, true) = (start, latin, other) {
                out.push(s..at);
            }
            start = None;
            latin = false;
            other = false;
        }
    }
    out
}

impl Normalized {
    pub fn new(original: &str) -> Self {
        let mut text = String::with_capacity(original.len());
        let mut map = Vec::with_capacity(original.len());
        let disguised = mixed_script_words(original);
        for (at, c) in original.char_indices() {
            let range = at..at + c.len_utf8();
            if is_default_ignorable(c) {
                continue;
            }
            if is_dash(c) {
                map.push((text.len(), range));
                text.push('-');
                continue;
            }
            let folded = ascii_digit(c).or_else(|| {
                disguised
                    .iter()
                    .any(|w| w.contains(&at))
                    .then(|| LOOK_ALIKES.iter().find(|(x, _)| *x == c).map(|(_, l)| *l))
                    .flatten()
            });
            if let Some(plain) = folded {
                map.push((text.len(), range));
                text.push(plain);
                continue;
            }
            let mut buf = [0u8; 4];
            for n in c.encode_utf8(&mut buf).nfkc() {
                map.push((text.len(), range.clone()));
                text.push(n);
            }
        }
        let first = Normalized { text, map };
        first.with_digit_words()
    }

    /// The original bytes a normalised byte range came from.
    pub fn original(&self, range: &Range<usize>) -> Range<usize> {
        let index = |at: usize| self.map.partition_point(|(o, _)| *o < at);
        let (a, b) = (index(range.start), index(range.end));
        match (
            self.map.get(a),
            b.checked_sub(1).and_then(|i| self.map.get(i)),
        ) {
            (Some((_, first)), Some((_, last))) if a < b => first.start..last.end,
            _ => 0..0,
        }
    }

    /// Runs of three or more digit words, each becoming its digit.
    fn with_digit_words(self) -> Self {
        let words: Vec<(Range<usize>, Option<char>)> = word_ranges(&self.text)
            .map(|r| {
                let w = self.text[r.clone()].to_lowercase();
                let d = DIGIT_WORDS.iter().find(|(x, _)| *x == w).map(|(_, d)| *d);
                (r, d)
            })
            .collect();
        // The digit words that belong to runs of three or more, separated by
        // spaces, commas or hyphens only.
        let mut digit_at: Vec<Option<char>> = vec![None; words.len()];
        let mut i = 0;
        while i < words.len() {
            let mut j = i;
            while j < words.len()
                && words[j].1.is_some()
                && (j == i || joined(&self.text[words[j - 1].0.end..words[j].0.start]))
            {
                j += 1;
            }
            if j - i >= 3 {
                for (k, w) in words.iter().enumerate().take(j).skip(i) {
                    digit_at[k] = w.1;
                }
                i = j;
            } else {
                i = j.max(i + 1);
            }
        }
        if digit_at.iter().all(Option::is_none) {
            return self;
        }
        let mut text = String::with_capacity(self.text.len());
        let mut map = Vec::with_capacity(self.map.len());
        let mut at = 0;
        let mut k = 0;
        let copy =
            |from: usize, to: usize, text: &mut String, map: &mut Vec<(usize, Range<usize>)>| {
                let start = self.map.partition_point(|(o, _)| *o < from);
                for (o, r) in self.map[start..].iter().take_while(|(o, _)| *o < to) {
                    let c = self.text[*o..].chars().next().unwrap_or(' ');
                    map.push((text.len(), r.clone()));
                    text.push(c);
                }
            };
        while k < words.len() {
            let Some(d) = digit_at[k] else {
                k += 1;
                continue;
            };
            // A run: from its first word to its last, one digit per word.
            let mut end = k;
            while end + 1 < words.len() && digit_at[end + 1].is_some() {
                end += 1;
            }
            copy(at, words[k].0.start, &mut text, &mut map);
            for (w, digit) in words[k..=end].iter().zip(digit_at[k..=end].iter()) {
                let orig = self.original(&w.0);
                map.push((text.len(), orig));
                text.push(digit.unwrap_or(d));
            }
            at = words[end].0.end;
            k = end + 1;
        }
        copy(at, self.text.len(), &mut text, &mut map);
        Normalized { text, map }
    }
}

/// What may stand between the words of a spelled-out number.
fn joined(gap: &str) -> bool {
    !gap.is_empty() && gap.chars().all(|c| c == ' ' || c == ',' || c == '-')
}

/// The byte ranges of the words of `text` written in Latin letters (a
/// change of script ends a word: "はzero" holds the word "zero").
fn word_ranges(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let latin = |c: char| c.is_ascii_alphabetic() || ('\u{00C0}'..='\u{024F}').contains(&c);
    let mut start: Option<usize> = None;
    let mut out = Vec::new();
    for (i, c) in text.char_indices() {
        match (latin(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out.into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn back(original: &str, n: &Normalized, needle: &str) -> String {
        let at = n
            .text
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} in {}", n.text));
        original[n.original(&(at..at + needle.len()))].to_owned()
    }

    #[test]
    fn widths_invisibles_and_dashes_are_undone() {
        let s = "card ４１１１\u{00A0}1111\u{200B}1111 – 1111 end";
        let n = Normalized::new(s);
        assert_eq!(n.text, "card 4111 11111111 - 1111 end");
        assert_eq!(back(s, &n, "4111 1111"), "４１１１\u{00A0}1111");
        assert_eq!(back(s, &n, "end"), "end");
    }

    #[test]
    fn other_scripts_digits_and_disguised_letters_fold() {
        // Arabic-Indic and Devanagari digits are digits.
        assert_eq!(Normalized::new("٤١١١ ١١١١").text, "4111 1111");
        assert_eq!(Normalized::new("४१११-११११").text, "4111-1111");
        // A Cyrillic а inside a Latin word is a disguise; Russian is Russian.
        assert_eq!(Normalized::new("my pаssword is x").text, "my password is x");
        assert_eq!(Normalized::new("мой пароль").text, "мой пароль");
        assert_eq!(Normalized::new("Σ ρ alpha").text, "Σ ρ alpha");
        let s = "pаss: 7";
        let n = Normalized::new(s);
        assert_eq!(back(s, &n, "pass"), "pаss");
    }

    #[test]
    fn spelled_digits_become_digits_in_runs_of_three() {
        let s = "PIN: four seven one one, thanks";
        let n = Normalized::new(s);
        assert_eq!(n.text, "PIN: 4711, thanks");
        assert_eq!(back(s, &n, "4711"), "four seven one one");
        assert_eq!(back(s, &n, ", thanks"), ", thanks");
        // Two digit words are words.
        assert_eq!(Normalized::new("one or two cats").text, "one or two cats");
        assert_eq!(
            Normalized::new("ich habe zwei Katzen").text,
            "ich habe zwei Katzen"
        );
        assert_eq!(
            Normalized::new("code: neun acht sieben sechs").text,
            "code: 9876"
        );
    }
}
