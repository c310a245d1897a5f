//! Sensitive categories (GDPR art. 9 and the like): stored only when the
//! user states them and the caller allows it.

use regex::Regex;
use std::sync::LazyLock;

fn re(p: &str) -> Regex {
    Regex::new(p).unwrap_or_else(|e| panic!("bad pattern {p}: {e}"))
}

static SENSITIVE: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    vec![
        (
            "health",
            re(
                r"(?i)\b(?:allerg(?:y|ic|ies)|diagnos\w*|depress\w*|anxiety|adhd|autis\w*|diabet\w*|asthma|cancer|hiv|aids|pregnan\w*|miscarriage|medication|prescri\w*|therapy|therapist|psychiatr\w*|disorder|illness|disease|surgery|chemo\w*|insulin|antidepressant\w*|bipolar|schizophreni\w*|epilep\w*|rehab|addict\w*|sober|disabilit\w*|chronic pain|migraines?)\b",
            ),
        ),
        (
            "religion",
            re(
                r"(?i)\b(?:christian|catholic|protestant|muslim|islam\w*|jewish|judaism|hindu\w*|buddhis\w*|sikh|atheist|agnostic|mormon|church|mosque|synagogue|temple|pray(?:s|ing|ed)?|ramadan|religio\w*|faith)\b",
            ),
        ),
        (
            "politics",
            re(
                r"(?i)\b(?:democrat\w*|republican\w*|labou?r party|tory|tories|conservative party|liberal party|green party|socialist|communist|libertarian|maga|vote[sd]? (?:for|against)|political (?:views?|party)|left-wing|right-wing|trade union)\b",
            ),
        ),
        (
            "sexual orientation",
            re(
                r"(?i)\b(?:gay|lesbian|bisexual|queer|asexual|pansexual|homosexual|heterosexual|lgbt\w*|transgender|non-binary|coming out|came out)\b",
            ),
        ),
        (
            "precise location",
            re(
                r"(?i)\b\d{1,5}\s+(?:[a-z]+\s){0,3}(?:street|st|road|rd|avenue|ave|lane|ln|boulevard|blvd|drive|dr|court|ct|way|place|pl|square|sq)\b|\b(?:postcode|zip code|zipcode)\b|\b\d{5}(?:-\d{4})?\b.{0,5}$|\b(?:gps|coordinates)\b|-?\d{1,3}\.\d{3,},\s*-?\d{1,3}\.\d{3,}",
            ),
        ),
        (
            "financial hardship",
            re(
                r"(?i)\b(?:in debt|debts?\b|bankrupt\w*|can't afford|cannot afford|can't pay|cannot pay|behind on (?:rent|bills|payments)|evict\w*|unemployed|laid off|lost my job|broke\b|food bank|payday loan|foreclos\w*|overdraft)",
            ),
        ),
    ]
});

/// The sensitive category `text` touches, if any.
pub fn sensitive_category(text: &str) -> Option<&'static str> {
    SENSITIVE
        .iter()
        .find(|(_, p)| p.is_match(text))
        .map(|(cat, _)| *cat)
}

/// `text` without its clauses in a sensitive category, and the categories
/// left out: what may be kept verbatim when sensitive categories are not
/// allowed ("I'm allergic to peanuts and I live in Berlin" keeps "I live in
/// Berlin").
pub fn without_sensitive(text: &str) -> (String, Vec<&'static str>) {
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for sentence in crate::text::sentences(text) {
        let clauses = crate::text::clauses(sentence);
        let flagged: Vec<Option<&'static str>> =
            clauses.iter().map(|c| sensitive_category(c)).collect();
        if flagged.iter().all(Option::is_none) {
            kept.push(sentence.to_owned());
            continue;
        }
        for (clause, cat) in clauses.iter().zip(flagged) {
            match cat {
                Some(cat) => {
                    if !left_out.contains(&cat) {
                        left_out.push(cat);
                    }
                }
                None => kept.push(format!("{clause}.")),
            }
        }
    }
    (kept.join(" "), left_out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensitive_categories() {
        assert_eq!(
            sensitive_category("I was diagnosed with diabetes"),
            Some("health")
        );
        assert_eq!(
            sensitive_category("I'm allergic to peanuts"),
            Some("health")
        );
        assert_eq!(
            sensitive_category("I go to church on Sundays"),
            Some("religion")
        );
        assert_eq!(
            sensitive_category("I voted for the Green Party"),
            Some("politics")
        );
        assert_eq!(
            sensitive_category("I live at 12 Baker Street"),
            Some("precise location")
        );
        assert_eq!(
            sensitive_category("I can't afford my rent"),
            Some("financial hardship")
        );
        assert_eq!(sensitive_category("I live in Austin"), None);
        assert_eq!(sensitive_category("I work at a bank"), None);
    }

    #[test]
    fn sensitive_clauses_are_left_out_of_verbatim_text() {
        let (text, cats) = without_sensitive(
            "I am allergic to peanuts and I live in Berlin. My dog is called Rex.",
        );
        assert_eq!(text, "I live in Berlin. My dog is called Rex.");
        assert_eq!(cats, ["health"]);
        assert_eq!(without_sensitive("I like tea.").0, "I like tea.");
    }
}
