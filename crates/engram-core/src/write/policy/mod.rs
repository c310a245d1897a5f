//! The write policy: what may become a memory. Facts, not instructions; never
//! secrets; sensitive categories only when the caller allows them, and never
//! inferred. Pure functions over text, shared by every extractor and every
//! write path.

mod instructions;
mod messages;
mod one_fact;
mod screen;
mod secrets;
mod sensitive;
mod standing;
mod unread;
pub(crate) mod value;

pub use instructions::{instruction_reason, style_preference, without_instructions};
pub use messages::{check_candidate, screen_messages, ScreenedMessages};
pub use one_fact::one_fact;
pub use screen::{screen, source_clause, Allowances, SENSITIVITY};
pub use secrets::{
    find_secret, identifier_secret, redact, redact_json, redact_secrets, redact_together,
    secret_spans, without_url_credentials, SecretSpan,
};
pub use sensitive::{sensitive_category, without_sensitive};
pub use unread::{unread_language, unread_message, unscreened_language, Language, Unread};
pub use value::value_problem;

/// Why a piece of text was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    Instruction(&'static str),
    Secret(&'static str),
    Sensitive(&'static str),
    /// A sensitive category the extractor inferred rather than read.
    Inferred(&'static str),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Instruction(why) => write!(
                f,
                "looks like an instruction to the assistant ({why}), not a fact about the user"
            ),
            Self::Secret(kind) => write!(f, "contains a secret ({kind}); secrets are never stored"),
            Self::Sensitive(cat) => write!(
                f,
                "sensitive category `{cat}`: stored only with allow_sensitive: true"
            ),
            Self::Inferred(cat) => write!(
                f,
                "sensitive category `{cat}` is never inferred, only stored when the user states it"
            ),
        }
    }
}
