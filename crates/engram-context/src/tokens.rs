//! Token counts with the tokenizer of the model the context is for.
//!
//! tiktoken-rs carries OpenAI's BPE ranks inside the crate (no download at
//! run time), and counts exactly what OpenAI's models will count; for other
//! models cl100k/o200k are close enough to budget by.

use std::sync::{Arc, OnceLock};
use tiktoken_rs::CoreBPE;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Encoding {
    Cl100kBase,
    O200kBase,
}

impl std::str::FromStr for Encoding {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "cl100k_base" | "cl100k" => Ok(Self::Cl100kBase),
            "o200k_base" | "o200k" => Ok(Self::O200kBase),
            other => Err(format!(
                "unknown tokenizer {other}: cl100k_base or o200k_base"
            )),
        }
    }
}

/// Counts tokens; cheap to clone (the BPE tables are loaded once per process).
#[derive(Clone)]
pub struct TokenCounter {
    bpe: Arc<CoreBPE>,
    encoding: Encoding,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TokenCounter({:?})", self.encoding)
    }
}

static CL100K: OnceLock<Arc<CoreBPE>> = OnceLock::new();
static O200K: OnceLock<Arc<CoreBPE>> = OnceLock::new();

impl TokenCounter {
    pub fn new(encoding: Encoding) -> Self {
        let load = || -> Arc<CoreBPE> {
            let bpe = match encoding {
                Encoding::Cl100kBase => tiktoken_rs::cl100k_base(),
                Encoding::O200kBase => tiktoken_rs::o200k_base(),
            };
            // The ranks are compiled into the crate: failing to parse them is
            // a broken build, not a runtime condition.
            Arc::new(bpe.unwrap_or_else(|e| panic!("built-in BPE ranks: {e}")))
        };
        let bpe = match encoding {
            Encoding::Cl100kBase => CL100K.get_or_init(load),
            Encoding::O200kBase => O200K.get_or_init(load),
        }
        .clone();
        Self { bpe, encoding }
    }

    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Tokens in `text`, special-token strings counted as plain text (user
    /// content must never turn into control tokens).
    pub fn count(&self, text: &str) -> usize {
        self.bpe.encode_ordinary(text).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_match_openai_reference_values() {
        // Reference counts from OpenAI's tiktoken for these strings.
        let cl = TokenCounter::new(Encoding::Cl100kBase);
        assert_eq!(cl.count("hello world"), 2);
        assert_eq!(cl.count(""), 0);
        assert_eq!(
            cl.count("<|endoftext|>"),
            7,
            "special tokens are plain text"
        );
        let o = TokenCounter::new(Encoding::O200kBase);
        assert_eq!(o.count("hello world"), 2);
    }

    #[test]
    fn encodings_parse_by_name() {
        assert_eq!("o200k_base".parse(), Ok(Encoding::O200kBase));
        assert!("gpt2".parse::<Encoding>().is_err());
    }
}
