//! A model's candidates with the rules' beside them. A small model misses
//! what the rules read reliably (a forget request, "I quit smoking", a
//! plain "I live in Oslo") and may contradict itself; the rules never
//! see past their patterns. Together: the model's facts, then each rules
//! candidate the model has nothing on, and no retraction of what the same
//! answer asserts. Pure, so it is tested here and used by every model.

use super::{Candidate, FactAction, InputMessage};
use crate::text::statement::asserts_plainly;

/// A model's retractions that its message plainly asserts, read as the
/// assertions they are: small models copy a retraction from their prompt's
/// example onto "Sorry, I meant Graz, not Salzburg" (Graz).
pub fn as_said(mut model: Vec<Candidate>, messages: &[InputMessage]) -> Vec<Candidate> {
    for c in &mut model {
        let said = messages
            .get(c.message_index)
            .map_or("", |m| m.content.as_str());
        if c.action == FactAction::Retract && asserts_plainly(said, &c.value) {
            c.action = FactAction::Assert;
        }
    }
    model
}

/// Whether two candidates are about the same fact: the same attribute
/// (and value, when both name one), or the same value under another key.
fn same_fact(a: &Candidate, b: &Candidate) -> bool {
    let (va, vb) = (a.value.trim().to_lowercase(), b.value.trim().to_lowercase());
    (a.attribute == b.attribute && (va.is_empty() || vb.is_empty() || va == vb))
        || (!va.is_empty() && va == vb)
}

/// Whether the model said anything about what the rules' assertion
/// `rule` says: a candidate of the same fact, or one whose words hold its
/// value.
fn covered(rule: &Candidate, model: &[Candidate]) -> bool {
    let value = rule.value.trim().to_lowercase();
    model.iter().any(|m| {
        m.message_index == rule.message_index
            && (same_fact(m, rule)
                || (!value.is_empty() && m.statement.to_lowercase().contains(&value)))
    })
}

/// The model's candidates and the rules' assertions it missed, without
/// repeats. Retractions and forget requests the rules read replace the
/// model's of the same kind on that message: the rules name what goes in
/// the words memories are matched by, where a model's key may miss it.
/// No retraction or forget request survives beside an assertion of the
/// same fact (a retraction needs words of its own: the rules read them).
pub fn with_rules(model: Vec<Candidate>, rules: Vec<Candidate>) -> Vec<Candidate> {
    let ruled = |c: &Candidate| {
        rules
            .iter()
            .any(|r| r.action == c.action && r.message_index == c.message_index)
    };
    let mut all: Vec<Candidate> = model
        .iter()
        .filter(|m| m.action == FactAction::Assert || !ruled(m))
        .cloned()
        .collect();
    all.extend(
        rules
            .iter()
            .filter(|r| r.action != FactAction::Assert || !covered(r, &model))
            .cloned(),
    );
    let mut out: Vec<Candidate> = Vec::new();
    for c in &all {
        let contradicted = c.action != FactAction::Assert
            && all.iter().any(|a| {
                a.action == FactAction::Assert
                    && a.message_index == c.message_index
                    && same_fact(a, c)
            });
        let repeated = out
            .iter()
            .any(|o| o.action == c.action && o.attribute == c.attribute && o.value == c.value);
        if !contradicted && !repeated {
            out.push(c.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{InputMessage, Role, RulesExtractor};

    fn candidate(attribute: &str, value: &str, action: FactAction) -> Candidate {
        Candidate {
            statement: format!("User {attribute} {value}."),
            kind: crate::MemoryKind::Semantic,
            subject: "user".into(),
            attribute: attribute.into(),
            value: value.into(),
            importance: 0.5,
            confidence: 0.9,
            sensitivity: None,
            expires_at: None,
            stated: true,
            message_index: 0,
            action,
        }
    }

    fn rules(text: &str) -> Vec<Candidate> {
        RulesExtractor.extract_sync(&[InputMessage {
            role: Role::User,
            content: text.into(),
            created_at: chrono::Utc::now(),
        }])
    }

    #[test]
    fn what_the_model_missed_the_rules_add() {
        // The model read the city but not the forget request.
        let text = "I live in Oslo. Please forget where I work.";
        let model = vec![candidate("location.city", "Oslo", FactAction::Assert)];
        let both = with_rules(model, rules(text));
        assert!(
            both.iter().any(|c| c.action == FactAction::Forget),
            "{both:?}"
        );
        // The rules' own reading of the city is not added twice.
        let cities = both.iter().filter(|c| c.value.contains("Oslo")).count();
        assert_eq!(cities, 1, "{both:?}");
        // A forget request both read is taken once, in the rules' words.
        let text = "Please forget where I live.";
        let model = vec![candidate("location", "", FactAction::Forget)];
        let alone = rules(text);
        let both = with_rules(model, alone.clone());
        assert_eq!(both.len(), alone.len(), "{both:?}");
        assert!(both.iter().all(|c| c.action == FactAction::Forget));
    }

    #[test]
    fn a_fact_the_model_keys_otherwise_is_not_added_again() {
        let text = "I've been learning Japanese for two years.";
        let model = vec![candidate("language", "Japanese", FactAction::Assert)];
        let both = with_rules(model, rules(text));
        let japanese = both.iter().filter(|c| c.value.contains("Japanese")).count();
        assert_eq!(japanese, 1, "{both:?}");
    }

    #[test]
    fn an_answer_that_asserts_and_takes_back_one_fact_keeps_the_assertion() {
        let model = vec![
            candidate("language", "Japanese", FactAction::Assert),
            candidate("language", "japanese", FactAction::Retract),
            candidate("learning.japanese", "Japanese", FactAction::Forget),
            candidate("language", "Japanese", FactAction::Assert),
        ];
        let both = with_rules(model, Vec::new());
        assert_eq!(both.len(), 1, "{both:?}");
        assert_eq!(both[0].action, FactAction::Assert);
        // A retraction on its own stays, beside an unrelated assertion.
        let model = vec![
            candidate("employer", "Initech", FactAction::Retract),
            candidate("location.city", "Oslo", FactAction::Assert),
        ];
        assert_eq!(with_rules(model, Vec::new()).len(), 2);
    }

    #[test]
    fn a_retraction_of_what_the_message_asserts_is_an_assertion() {
        let said = |t: &str| {
            vec![InputMessage {
                role: Role::User,
                content: t.into(),
                created_at: chrono::Utc::now(),
            }]
        };
        let model = vec![
            candidate("location.city", "Graz", FactAction::Retract),
            candidate("location.city", "Salzburg", FactAction::Retract),
        ];
        let read = as_said(model, &said("Sorry, I meant Graz, not Salzburg."));
        let actions: Vec<_> = read.iter().map(|c| c.action).collect();
        assert_eq!(actions, [FactAction::Assert, FactAction::Retract]);
        let quit = as_said(
            vec![candidate("habit", "smoking", FactAction::Retract)],
            &said("I quit smoking last year."),
        );
        assert_eq!(quit[0].action, FactAction::Retract);
    }

    #[test]
    fn with_nothing_from_the_model_the_rules_stand() {
        for text in [
            "I live in Oslo.",
            "I quit smoking last year.",
            "Should I move to Vienna?",
            "",
        ] {
            let alone = rules(text);
            let both = with_rules(Vec::new(), alone.clone());
            assert_eq!(both.len(), alone.len(), "{text}: {both:?}");
        }
    }
}
