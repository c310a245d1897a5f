//! The session ports: a turn, the summarizer that folds turns into a
//! running summary (extractive in engram-context, an LLM in engram-llm), and
//! the window rule that decides which turns have left the short-term window.
//! Here so that the store and the LLM crate depend on core alone.

use async_trait::async_trait;

#[derive(Debug, thiserror::Error)]
pub enum SummarizeError {
    #[error("the summarizer failed: {0}")]
    Service(String),
}

/// Folds turns that left the window into a session's running summary.
#[async_trait]
pub trait Summarizer: Send + Sync {
    /// Recorded with each summary: `extractive`, or the LLM's model.
    fn id(&self) -> &str;
    /// The summary after `turns`, given the one before; it should stay
    /// within `max_tokens` (the caller enforces it).
    async fn summarize(
        &self,
        previous: &str,
        turns: &[Turn],
        max_tokens: usize,
    ) -> Result<String, SummarizeError>;
}

/// One turn that left the window.
#[derive(Debug, Clone)]
pub struct Turn {
    pub role: String,
    pub content: String,
}

/// Where the window starts: the index of the oldest turn kept, given each
/// turn's token count (oldest first). The window is the longest run of
/// newest turns whose tokens sum to at most `budget`; everything before it
/// has left the window. A single turn larger than the budget leaves it too:
/// the window never exceeds its budget.
pub fn window_start(tokens: &[usize], budget: usize) -> usize {
    let mut used = 0;
    for (i, t) in tokens.iter().enumerate().rev() {
        if used + t > budget {
            return i + 1;
        }
        used += t;
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_newest_turns_that_fit_by_tokens_not_by_count() {
        assert_eq!(window_start(&[10, 10, 10], 30), 0);
        assert_eq!(window_start(&[10, 10, 10], 29), 1);
        // One long turn pushes out several short ones.
        assert_eq!(window_start(&[5, 5, 5, 5, 25], 30), 3);
        assert_eq!(
            window_start(&[5, 5, 5, 5, 31], 30),
            5,
            "too big for any window"
        );
        assert_eq!(window_start(&[], 30), 0);
    }
}
