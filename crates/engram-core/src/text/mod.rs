//! Text as every layer reads it: split into sentences and clauses
//! (`split`), what a statement does (`statement`), time phrases
//! (`timephrase`), words compared by their stems (`words`), a turn cut
//! into pieces an embedder reads whole (`pieces`), and small utilities.

mod frames;
pub mod grammar;
pub mod pieces;
mod split;
pub mod statement;
pub mod timephrase;
pub mod topics;
pub mod words;

pub use pieces::{pieces, PieceBound};
pub use split::{clauses, parts, sentences};

/// `text` with the inside of every "…" and '…' replaced by an ellipsis.
pub fn without_quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut open: Option<char> = None;
    for c in text.chars() {
        match open {
            Some(q) if c == q => {
                out.push('…');
                out.push(c);
                open = None;
            }
            Some(_) => {}
            None if c == '"' || c == '\'' => {
                out.push(c);
                open = Some(c);
            }
            None => out.push(c),
        }
    }
    if open.is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_parts_are_elided() {
        assert_eq!(
            without_quoted(r#"syntax error in tsquery: "我住在北京""#),
            r#"syntax error in tsquery: "…""#
        );
        assert_eq!(
            without_quoted("invalid input 'secret' and \"unterminated"),
            "invalid input '…' and \"…"
        );
        assert_eq!(without_quoted("no quotes"), "no quotes");
    }
}
