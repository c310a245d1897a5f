//! The write policy applied to one candidate fact: pure, so every extractor
//! and every test goes through the same decision.

use super::{find_secret, instruction_reason, sensitive_category, Refusal};
use crate::model::candidate::{Candidate, FactAction};
use crate::text::clauses;

/// The categories an extractor may name (others are ignored).
pub const SENSITIVITY: [&str; 6] = [
    "health",
    "religion",
    "politics",
    "sexual orientation",
    "precise location",
    "financial hardship",
];

/// What the caller allowed for this request.
#[derive(Debug, Clone, Copy, Default)]
pub struct Allowances {
    /// Sensitive categories the user states may be stored.
    pub sensitive: bool,
}

/// The clause of `message` that holds `value` (the fact's own words), so a
/// sensitive clause elsewhere in the message does not sink this fact.
pub fn source_clause<'a>(message: &'a str, value: &str) -> Option<&'a str> {
    let needle = value.trim().to_lowercase();
    if needle.is_empty() {
        return None;
    }
    clauses(message)
        .into_iter()
        .find(|c| c.to_lowercase().contains(&needle))
}

/// Whether `c`, read from `message`, may be kept, and with which sensitive
/// category. Sensitivity is judged per fact: from the fact and the clause
/// it came from, not the whole message. Retractions and forget requests
/// store nothing and are not screened.
pub fn screen(
    c: &Candidate,
    message: &str,
    allow: Allowances,
) -> Result<Option<&'static str>, Refusal> {
    if c.action != FactAction::Assert {
        return Ok(None);
    }
    if let Some(why) = instruction_reason(&c.statement) {
        return Err(Refusal::Instruction(why));
    }
    if let Some(kind) = find_secret(&c.statement) {
        return Err(Refusal::Secret(kind));
    }
    let named = c
        .sensitivity
        .as_deref()
        .and_then(|s| SENSITIVITY.iter().find(|k| **k == s).copied());
    let category = named
        .or_else(|| sensitive_category(&c.statement))
        .or_else(|| source_clause(message, &c.value).and_then(sensitive_category));
    match category {
        Some(cat) if !c.stated => Err(Refusal::Inferred(cat)),
        Some(cat) if !allow.sensitive => Err(Refusal::Sensitive(cat)),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{InputMessage, Role, RulesExtractor};

    fn read(text: &str) -> Vec<Candidate> {
        RulesExtractor.extract_sync(&[InputMessage {
            role: Role::User,
            content: text.into(),
            created_at: chrono::Utc::now(),
        }])
    }

    #[test]
    fn one_sensitive_fact_does_not_sink_the_others() {
        let text = "I am allergic to peanuts and I live in Berlin. My dog is called Rex.";
        let verdicts: Vec<(String, bool)> = read(text)
            .iter()
            .map(|c| {
                (
                    c.attribute.clone(),
                    screen(c, text, Allowances::default()).is_ok(),
                )
            })
            .collect();
        assert!(
            verdicts.contains(&("allergy.peanuts".into(), false)),
            "{verdicts:?}"
        );
        assert!(
            verdicts.contains(&("location.city".into(), true)),
            "{verdicts:?}"
        );
        assert!(
            verdicts.contains(&("pet.dog.name".into(), true)),
            "{verdicts:?}"
        );
        let allowed = Allowances { sensitive: true };
        assert!(read(text).iter().all(|c| screen(c, text, allowed).is_ok()));
    }

    #[test]
    fn inferred_sensitive_facts_and_secrets_are_refused() {
        let mut c = read("I go to church on Sundays and I live in Berlin")
            .into_iter()
            .find(|c| c.attribute == "location.city")
            .unwrap_or_else(|| panic!("a city"));
        assert!(screen(&c, "I live in Berlin", Allowances::default()).is_ok());
        c.sensitivity = Some("religion".into());
        c.stated = false;
        assert_eq!(
            screen(&c, "", Allowances { sensitive: true }),
            Err(Refusal::Inferred("religion"))
        );
        c.statement = "User's wifi password is Qz7WifiFact21.".into();
        assert!(matches!(
            screen(&c, "", Allowances::default()),
            Err(Refusal::Secret(_))
        ));
    }
}
