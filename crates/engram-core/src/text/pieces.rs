//! A turn cut into pieces an embedder reads whole: consecutive sentences
//! packed up to a bound, a sentence longer than the bound cut at word
//! boundaries. Every piece is a slice of the turn, so what is kept is what
//! was said, word for word.

use super::sentences;

/// How large a piece may be. MiniLM reads 256 word pieces and ignores the
/// rest; English prose runs about 1.3 word pieces a word and code or URLs
/// far more, so a piece stops at whichever bound it meets first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceBound {
    pub words: usize,
    pub chars: usize,
}

impl Default for PieceBound {
    /// About three sentences of chat: small enough that a block of 500
    /// tokens holds several answers, large enough that a sentence keeps
    /// the ones around it.
    fn default() -> Self {
        Self {
            words: 80,
            chars: 600,
        }
    }
}

/// The pieces of `text`, in order; none when it holds nothing but spaces.
pub fn pieces(text: &str, bound: PieceBound) -> Vec<&str> {
    let fits = |s: &str| words(s) <= bound.words && s.chars().count() <= bound.chars;
    let mut out: Vec<&str> = Vec::new();
    // The piece being packed, as a byte range of `text`.
    let mut open: Option<(usize, usize)> = None;
    for sentence in sentences(text) {
        let (start, end) = span(text, sentence);
        if let Some((a, _)) = open {
            if fits(&text[a..end]) {
                open = Some((a, end));
                continue;
            }
        }
        if let Some((a, b)) = open.take() {
            out.push(&text[a..b]);
        }
        if fits(sentence) {
            open = Some((start, end));
        } else {
            out.extend(cut(sentence, bound));
        }
    }
    if let Some((a, b)) = open {
        out.push(&text[a..b]);
    }
    out
}

/// Where `part` (a slice of `text`) lies in it.
fn span(text: &str, part: &str) -> (usize, usize) {
    let start = part.as_ptr() as usize - text.as_ptr() as usize;
    (start, start + part.len())
}

fn words(s: &str) -> usize {
    s.split_whitespace().count()
}

/// A sentence over the bound, cut at spaces (or anywhere, in a run with no
/// space that is over it by itself).
fn cut(sentence: &str, bound: PieceBound) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = sentence.trim();
    while !rest.is_empty() {
        let mut end = 0;
        let (mut n_words, mut n_chars) = (0, 0);
        let mut last_space = None;
        for (i, c) in rest.char_indices() {
            if c.is_whitespace() {
                if i > 0 && !rest[..i].ends_with(char::is_whitespace) {
                    n_words += 1;
                }
                last_space = Some(i);
            }
            n_chars += 1;
            if n_chars > bound.chars || n_words >= bound.words {
                break;
            }
            end = i + c.len_utf8();
        }
        let take = match (end == rest.len(), last_space) {
            (true, _) => end,
            (false, Some(s)) if s > 0 => s,
            _ => end.max(rest.chars().next().map_or(1, char::len_utf8)),
        };
        out.push(rest[..take].trim());
        rest = rest[take..].trim_start();
    }
    out.retain(|p| !p.is_empty());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: PieceBound = PieceBound {
        words: 12,
        chars: 80,
    };

    #[test]
    fn short_turns_are_one_piece() {
        assert_eq!(
            pieces("I moved to Porto. It's lovely!", PieceBound::default()),
            ["I moved to Porto. It's lovely!"]
        );
        assert!(pieces(" \n ", PieceBound::default()).is_empty());
    }

    #[test]
    fn sentences_are_packed_up_to_the_bound_and_kept_word_for_word() {
        let text = "I have a therapy session with Dr. Smith soon. It's every two weeks.\nI'm looking forward to it. Anyway, can you help me plan a trip to Lisbon?";
        let got = pieces(text, SMALL);
        assert_eq!(
            got,
            [
                "I have a therapy session with Dr. Smith soon.",
                "It's every two weeks.\nI'm looking forward to it.",
                "Anyway, can you help me plan a trip to Lisbon?",
            ]
        );
        for p in &got {
            assert!(text.contains(p));
        }
    }

    #[test]
    fn a_sentence_over_the_bound_is_cut_at_spaces() {
        let long = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen";
        let got = pieces(long, SMALL);
        assert_eq!(
            got,
            [
                "one two three four five six seven eight nine ten eleven twelve",
                "thirteen fourteen fifteen"
            ]
        );
        let blob = "x".repeat(200);
        let got = pieces(&blob, SMALL);
        assert!(got.iter().all(|p| p.chars().count() <= 80), "{got:?}");
        assert_eq!(got.concat(), blob);
    }
}
