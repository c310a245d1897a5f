//! A model's facts said in words that hold them. A small model writes a
//! statement that is not its fact ("User was born in 1990." for the city
//! Toronto; "User's cat's name." for Biscuit), keys a fact where its value
//! cannot be ("name" = 1990), and marks its second fact "retract" because
//! its prompt's example did. The memory a user sees is the statement, so
//! each is checked against the value and the key, and said again where
//! they disagree. Pure.

use super::{slug, Candidate, FactAction, InputMessage};
use crate::text::words::{folded, names_all, says};

/// What a statement says of the user, without them: "User is now the
/// team lead." → "now the team lead"; "User's dog is Rex." → "dog is Rex".
pub fn predicate_of(statement: &str) -> String {
    let strip = |text: &str, heads: &[&str]| -> Option<usize> {
        let lower = text.to_lowercase();
        heads
            .iter()
            .find(|h| lower.starts_with(*h) && text.is_char_boundary(h.len()))
            .map(|h| h.len())
    };
    let mut rest = statement.trim();
    for heads in [
        &["the "][..],
        &["user's ", "user’s ", "user "],
        &["is ", "was ", "has ", "had "],
    ] {
        if let Some(n) = strip(rest, heads) {
            rest = rest[n..].trim_start();
        }
    }
    let rest = rest.trim_end_matches(['.', '!', ' ']);
    if rest.eq_ignore_ascii_case("user") {
        return String::new();
    }
    rest.chars().take(200).collect()
}

/// Whether a statement's predicate names a fact without stating it: a
/// label ("User's cat's name.", "User's favourite colour.") or no words
/// at all ("User (2026-12-05)"; an empty one is the answer's problem, for
/// its repair). A 0.5B model writes these beside the
/// facts of a long message; they hold nothing to recall.
pub fn is_label(predicate: &str) -> bool {
    const LABELS: &[&str] = &[
        "name",
        "names",
        "age",
        "birthday",
        "city",
        "country",
        "job",
        "email",
        "address",
        "number",
        "phone",
        "title",
        "occupation",
        "employer",
        "location",
        "hometown",
        "color",
        "colour",
        "hobby",
        "hobbies",
        "pet",
        "pets",
        "diet",
        "language",
        "languages",
        "preference",
        "preferences",
        "date",
        "information",
        "info",
        "details",
    ];
    const LINKS: &[&str] = &[
        "is", "are", "was", "were", "be", "been", "has", "have", "had", "called", "named",
    ];
    let lower = predicate.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
        .filter(|w| w.chars().any(char::is_alphabetic))
        .collect();
    let last = words
        .last()
        .map(|w| w.trim_end_matches("'s").trim_end_matches("’s"));
    (words.is_empty() && !lower.trim().is_empty())
        || (words.len() <= 4
            && last.is_some_and(|w| LABELS.contains(&w))
            && !words.iter().any(|w| LINKS.contains(w)))
}

/// Number words read as digits, for comparing a value with its statement
/// ("User has two kids." holds 2).
fn with_digits(text: &str) -> String {
    const NUMBERS: [&str; 10] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    ];
    text.to_lowercase()
        .split_inclusive(|c: char| !c.is_alphanumeric())
        .map(|w| {
            let word = w.trim_end_matches(|c: char| !c.is_alphanumeric());
            match NUMBERS.iter().position(|n| *n == word) {
                Some(i) => format!("{}{}", i + 1, &w[word.len()..]),
                None => w.to_owned(),
            }
        })
        .collect()
}

/// Whether `statement` says `value`: in its words (case, spacing and
/// punctuation aside, numbers as digits), or in other forms of them.
pub fn holds_value(statement: &str, value: &str) -> bool {
    let (s, v) = (with_digits(&folded(statement)), with_digits(&folded(value)));
    let (ss, vs) = (slug(&s), slug(&v));
    s.contains(v.trim())
        || (!vs.is_empty() && ss.contains(&vs))
        || names_all(value, statement)
        // likes.* say "likes" or "dislikes"; a flag says true.
        || matches!(vs.as_str(), "likes" | "dislikes" | "true" | "yes")
}

/// Whether `value` can be what `attribute` names: a name has letters and
/// few words and no digits; an age has a number; a birthday a number or
/// a month. Other keys take any value.
pub fn fits_key(attribute: &str, value: &str) -> bool {
    let last = attribute.rsplit('.').next().unwrap_or("");
    let words = value.split_whitespace().count();
    let digits = value.chars().any(|c| c.is_ascii_digit());
    match last {
        "name" => value.chars().any(char::is_alphabetic) && !digits && words <= 4,
        "age" => digits || with_digits(value) != value.to_lowercase(),
        "birthday" => {
            const MONTHS: [&str; 12] = [
                "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
            ];
            let lower = value.to_lowercase();
            digits || MONTHS.iter().any(|m| lower.contains(m))
        }
        "city" | "origin" => value.chars().any(char::is_alphabetic) && words <= 5,
        _ => true,
    }
}

/// A statement for a fact from its key and value, where the model's words
/// do not say it: "User lives in Toronto.", "User's cat is called Biscuit.",
/// else "User's <key in words>: <value>.".
pub fn statement_for(attribute: &str, value: &str) -> String {
    let parts: Vec<&str> = attribute.split('.').collect();
    let words = |p: &[&str]| p.join(" ").replace('_', " ");
    let number = !value.is_empty() && value.chars().all(|c| c.is_ascii_digit());
    match parts.as_slice() {
        ["name"] => format!("User's name is {value}."),
        ["age"] if number => format!("User is {value} years old."),
        ["birthday"] => format!("User's birthday is {value}."),
        ["location", "city"] => format!("User lives in {value}."),
        ["origin"] => format!("User is from {value}."),
        ["employer"] => format!("User works at {value}."),
        ["role"] => format!("User works as {value}."),
        ["family" | "pet" | "friend", who, "name"] => {
            format!("User's {} is called {value}.", who.replace('_', " "))
        }
        ["likes", thing @ ..] if matches!(value, "likes" | "dislikes") => {
            format!("User {value} {}.", words(thing))
        }
        ["language", ..] => format!("User speaks {value}."),
        ["learning", ..] => format!("User is learning {value}."),
        _ => format!("User's {}: {value}.", words(&parts)),
    }
}

/// A model's assertions said in words that hold them, under keys their
/// values fit. An assertion whose statement does not say its value is
/// said from its key and value ("User was born in 1990." under
/// `location.city` = Toronto → "User lives in Toronto."); in a message in
/// another language, where the statement is a translation, the value is
/// added in the user's words ("User works as a programmer
/// (программистом)."). A value its key cannot hold ("name" = 1990) is kept
/// under a key of its own (`note.1990`), so it replaces nothing.
pub fn restated(mut model: Vec<Candidate>, messages: &[InputMessage]) -> Vec<Candidate> {
    let english = |i: usize| {
        messages
            .get(i)
            .is_none_or(|m| crate::policy::unread_language(&m.content).is_none())
    };
    let said = messages
        .iter()
        .map(|m| m.content.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let held = |v: &str| says(&said, v);
    for c in &mut model {
        if c.action != FactAction::Assert || c.value.trim().is_empty() {
            continue;
        }
        if !fits_key(&c.attribute, &c.value) {
            c.attribute = super::bounded_key(&format!("note.{}", slug(&c.value)), 80);
            c.statement = statement_for(&c.attribute, &c.value);
            continue;
        }
        if holds_value(&c.statement, &c.value) {
            // A number the user did not say was worked out, and small
            // models work out wrongly ("Born in 1990" gave "User is 20
            // years old.").
            if !c.stated && c.value.chars().any(|ch| ch.is_ascii_digit()) && !held(&c.value) {
                c.value.clear();
            }
            continue;
        }
        // A value in neither its statement nor any message came from
        // nowhere ("User is born in 1990." with age = 20): the statement is
        // the fact where the rules can read it, else the fact goes.
        if !c.stated {
            let predicate = predicate_of(&c.statement);
            match super::read_back(&c.statement) {
                Some(r) if held(&r.value) => {
                    c.attribute = r.attribute;
                    c.value = r.value;
                    c.stated = true;
                }
                // "User is leraar." with the value "laraar": the user's word.
                _ if !is_label(&predicate) && held(&predicate) => {
                    c.value = predicate;
                    c.stated = true;
                }
                _ => c.value.clear(),
            }
            continue;
        }
        let predicate = predicate_of(&c.statement);
        c.statement = if english(c.message_index) || predicate.is_empty() || is_label(&predicate) {
            statement_for(&c.attribute, &c.value)
        } else {
            format!(
                "{} ({}).",
                c.statement.trim().trim_end_matches(['.', '!']),
                c.value.trim()
            )
        };
    }
    // Those that came from nowhere are gone.
    model.retain(|c| c.action != FactAction::Assert || !c.value.trim().is_empty());
    model
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(text: &str) -> Vec<InputMessage> {
        vec![InputMessage {
            role: crate::extract::Role::User,
            content: text.into(),
            created_at: chrono::Utc::now(),
        }]
    }

    fn fact(attribute: &str, value: &str, statement: &str) -> Candidate {
        Candidate::stated_fact(attribute, value, statement)
    }

    #[test]
    fn a_statement_holds_its_value_in_any_form() {
        assert!(holds_value("User lives in Toronto.", "toronto"));
        assert!(holds_value("User has two kids.", "2"));
        assert!(holds_value("User loves playing chess.", "likes"));
        assert!(holds_value("User quit smoking.", "smokes"));
        assert!(holds_value("User works at St. Mary's.", "St Mary's"));
        assert!(!holds_value("User was born in 1990.", "Toronto"));
        assert!(!holds_value("User's cat's name.", "Biscuit"));
    }

    #[test]
    fn a_value_its_key_cannot_hold_is_kept_apart() {
        assert!(fits_key("name", "Priya") && fits_key("family.son.name", "Kofi"));
        assert!(!fits_key("name", "1990") && !fits_key("name", "pet Toby is a dog and loves me"));
        assert!(
            fits_key("age", "41") && fits_key("age", "forty-one") && !fits_key("age", "Spanish")
        );
        assert!(
            fits_key("birthday", "12 May")
                && fits_key("birthday", "May")
                && !fits_key("birthday", "Leo")
        );
        assert!(fits_key("hobby.chess", "anything at all"));
        let out = restated(
            vec![fact("name", "1990", "User is born in 1990.")],
            &said("Born in 1990."),
        );
        assert_eq!(out[0].attribute, "note.1990");
        assert_eq!(out[0].value, "1990");
    }

    #[test]
    fn a_statement_that_does_not_say_its_fact_is_said_again() {
        let out = restated(
            vec![
                fact("location.city", "Toronto", "User was born in 1990."),
                fact("pet.cat.name", "Biscuit", "User's cat's name."),
                fact("name", "Priya", "User (2026-12-07)"),
                fact("role", "architect", "User now works as an architect."),
                fact("likes.chess", "likes", "User loves playing chess."),
                fact("hobby.pottery", "pottery", "User makes things."),
            ],
            &said("x"),
        );
        let statements: Vec<&str> = out.iter().map(|c| c.statement.as_str()).collect();
        assert_eq!(
            statements,
            [
                "User lives in Toronto.",
                "User's cat is called Biscuit.",
                "User's name is Priya.",
                "User now works as an architect.",
                "User loves playing chess.",
                "User's hobby pottery: pottery.",
            ]
        );
        // Another language: the translation keeps the user's own word.
        let out = restated(
            vec![fact("role", "программистом", "User works as a programmer.")],
            &said("Я живу в Казани и работаю программистом."),
        );
        assert_eq!(
            out[0].statement,
            "User works as a programmer (программистом)."
        );
        // Retractions and forget requests may name a key alone.
        let mut gone = fact("employer", "", "User's employer.");
        gone.action = FactAction::Retract;
        assert_eq!(
            restated(vec![gone.clone()], &said("x"))[0].statement,
            gone.statement
        );
        // A value from nowhere: the statement is the fact (read by the
        // rules, or its predicate in the user's words), or it goes.
        let mut twenty = fact("age", "20", "User is born in 1990.");
        twenty.stated = false;
        let mut lives = fact("age", "20", "User lives in Toronto.");
        lives.stated = false;
        let mut invented = fact("employer", "Acme", "User works somewhere nice.");
        invented.stated = false;
        let out = restated(
            vec![twenty, lives, invented],
            &said("Born in 1990, I moved to Toronto in 2015."),
        );
        let read: Vec<(&str, &str)> = out
            .iter()
            .map(|c| (c.attribute.as_str(), c.value.as_str()))
            .collect();
        assert_eq!(
            read,
            [("age", "born in 1990"), ("location.city", "Toronto")]
        );
        // A misspelt value, the user's word in its statement: the word.
        let mut teacher = fact("status", "laraar", "User is leraar.");
        teacher.stated = false;
        let out = restated(vec![teacher], &said("Ik woon in Utrecht en ik ben leraar."));
        assert_eq!(out[0].value, "leraar");
        // A number worked out, not said, goes.
        let mut age = fact("age", "20", "User is 20 years old.");
        age.stated = false;
        assert!(restated(vec![age], &said("Born in 1990.")).is_empty());
        // An accent the model left out is still the user's word.
        let out = restated(
            vec![fact("role", "infirmiere", "User is infirmière.")],
            &said("Je suis infirmière."),
        );
        assert_eq!(out[0].statement, "User is infirmière.");
    }
}
